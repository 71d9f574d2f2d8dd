//! The lever-to-display latency: a press written on the simulated clock's
//! line, its report read by the host, a new display sent back, and the
//! simulated clock having parsed it. For `benches/lever.rs` and `tactus bench`.

use std::io;
use std::path::Path;
use std::time::Duration;

use shakmaty::Color;

use crate::sim::{Saw, SimClock};
use crate::{ClockLink, ClockReport, DeviceKind, Display};

/// Latency figures over a run of presses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeverLatency {
    /// Presses measured.
    pub presses: usize,
    /// Median.
    pub p50: Duration,
    /// 99th percentile.
    pub p99: Duration,
    /// Slowest.
    pub max: Duration,
}

impl std::fmt::Display for LeverLatency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} presses: p50 {:?}, p99 {:?}, max {:?}", self.presses, self.p50, self.p99, self.max)
    }
}

const WAIT: Duration = Duration::from_secs(3);

/// Measures `presses` lever presses on a simulated `kind` clock whose
/// symlink is made at `path` (in a directory you own).
pub fn lever_to_display(kind: DeviceKind, path: &Path, presses: usize) -> io::Result<LeverLatency> {
    let sim = SimClock::plug(kind, path)?;
    let baud = if matches!(kind, DeviceKind::Open) { 115_200 } else { 9_600 };
    let (link, reports) = ClockLink::open(kind, path, baud);
    let failed = |what: &str| io::Error::new(io::ErrorKind::TimedOut, format!("{what} within {WAIT:?}"));
    loop {
        match reports.recv_timeout(WAIT).map_err(|_| failed("no connection"))? {
            ClockReport::Connected { .. } => break,
            _ => continue,
        }
    }
    let mut display =
        Display { white_ms: 300_000, black_ms: 300_000, running: Some(Color::White), ..Display::default() };
    link.show(display);
    sim.wait_for(WAIT, |s| matches!(s, Saw::Display(_))).ok_or_else(|| failed("no first display"))?;
    let mut times = Vec::with_capacity(presses);
    for n in 0..presses {
        let side = if n % 2 == 0 { Color::White } else { Color::Black };
        sim.drain();
        let pressed = sim.press(side);
        loop {
            match reports.recv_timeout(WAIT).map_err(|_| failed("no lever report"))? {
                ClockReport::Lever { side: s, .. } if s == side => break,
                _ => continue,
            }
        }
        display.running = Some(!side);
        match side {
            Color::White => display.white_moves += 1,
            Color::Black => display.black_moves += 1,
        }
        link.show(display);
        let seen = sim.wait_for(WAIT, |s| matches!(s, Saw::Display(_))).ok_or_else(|| failed("no display"))?;
        times.push(seen.at.duration_since(pressed));
    }
    let times = tactus_stats::Sorted::new(times);
    let at = |p| times.percentile(p).unwrap_or_default();
    Ok(LeverLatency { presses, p50: at(50), p99: at(99), max: at(100) })
}
