//! The scanner's CPU use on an idle board: scans a matrix that reads nothing
//! new, for `SECONDS` (default 10) at `HZ` (default 100), sleeping between
//! ticks as on a Pi, and prints the CPU time of all its threads (from
//! /proc/self/task/*/schedstat). The matrix holds the start position and waits
//! `--settle-us N` (default 20) where the GPIO matrix would: 3 times a frame.
//!
//!     cargo run --release -p tactus-board --example idle_cpu -- 10 100

use std::sync::mpsc;
use std::time::{Duration, Instant};

use shakmaty::Bitboard;
use tactus_board::{Board, BoardError, Lines, Matrix, ScanConfig, Scanner, SquareMap, scan_lines};
use tokio_util::sync::CancellationToken;

/// The start position on a diode matrix, with the GPIO matrix's settle waits.
struct Idle {
    settle: Duration,
    row: Option<usize>,
}

impl Lines for Idle {
    fn select(&mut self, row: Option<usize>) -> Result<(), BoardError> {
        self.row = row;
        Ok(())
    }
    fn columns(&mut self) -> Result<u8, BoardError> {
        Ok(match self.row {
            Some(0 | 1 | 6 | 7) => 0xFF,
            _ => 0,
        })
    }
    fn settle(&mut self) {
        if !self.settle.is_zero() {
            std::thread::sleep(self.settle);
        }
    }
}

impl Matrix for Idle {
    fn read(&mut self) -> Result<Bitboard, BoardError> {
        let (raw, _) = scan_lines(self)?;
        Ok(SquareMap::default().map_bits(raw))
    }
}

/// CPU time of every live thread of this process (/proc/self/task/*/schedstat).
fn cpu_ns() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return 0 };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut nums = args.iter().filter(|a| !a.starts_with("--")).filter_map(|a| a.parse::<u64>().ok());
    let seconds = nums.next().unwrap_or(10);
    let hz = nums.next().unwrap_or(100) as u32;
    let settle_us = args
        .iter()
        .position(|a| a == "--settle-us")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let matrix = Idle { settle: Duration::from_micros(settle_us), row: None };
    let scanner = Scanner::new(matrix, ScanConfig { rate_hz: hz, ..ScanConfig::default() }).expect("scan config");
    let stop = CancellationToken::new();
    let (tx, rx) = mpsc::sync_channel(4096);
    let board_stop = stop.clone();
    let t0 = Instant::now();
    let c0 = cpu_ns();
    let handle = std::thread::spawn(move || Box::new(scanner).run(tx, board_stop));
    let first = rx.recv().expect("the first frame's edges");
    let _ = first;
    std::thread::sleep(Duration::from_secs(seconds));
    // Measured while the scanner thread is alive: a joined thread's time is gone.
    let cpu = Duration::from_nanos(cpu_ns() - c0);
    let wall = t0.elapsed();
    stop.cancel();
    handle.join().expect("scanner thread").expect("scanner");
    let edges = rx.try_iter().count();
    println!(
        "{hz} Hz, settle {settle_us} µs, {:.1} s: CPU {:.1} ms = {:.3} % of one core ({edges} more edges)",
        wall.as_secs_f64(),
        cpu.as_secs_f64() * 1e3,
        100.0 * cpu.as_secs_f64() / wall.as_secs_f64()
    );
}
