//! What the daemon's benches share besides the tests' helpers
//! (tests/common, included by path): percentiles, the daemon's memory, its
//! log read to its readiness line.

#![allow(dead_code)] // each bench uses its own part

use std::io::{BufRead, BufReader, Read};
use std::time::Duration;

/// Knights out and back, each move typed then its clock press: a game that
/// goes on as long as wanted, no position standing five times.
pub const KNIGHTS: [(&str, &str); 4] = [("g1f3", "w"), ("g8f6", "b"), ("f3g1", "w"), ("f6g8", "b")];

/// The `p`th percentile (in percent) of `v`, by tactus-stats' one
/// definition; zero when empty.
pub fn pct<T: Copy + Default + PartialOrd>(v: &[T], p: u32) -> T {
    tactus_stats::Sorted::new(v.iter().copied()).percentile(p).unwrap_or_default()
}

/// A duration in milliseconds, as the tables print it.
pub fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// A figure of the process's /proc status (`VmRSS:`, `VmHWM:`), in kB.
pub fn status_kb(pid: u32, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Reads the daemon's log up to its line containing `ready`, then drains
/// the rest on a thread: a log nobody reads would block the daemon.
pub fn ready(log: impl Read + Send + 'static, ready: &str) {
    let mut log = BufReader::new(log).lines();
    loop {
        let line = log.next().expect("the daemon's readiness line").unwrap();
        if line.contains(ready) {
            break;
        }
    }
    std::thread::spawn(move || log.for_each(drop));
}
