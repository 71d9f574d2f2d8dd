//! Where the game's inputs come from: a board backend (the sensor matrix on
//! GPIO or I²C, or the simulated board) on its own thread, forwarded to the
//! game task.

use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Context;
use shakmaty::Bitboard;
use tactus_board::{
    Board, GpioConfig, GpioMatrix, Matrix, Mcp23017Config, Mcp23017Matrix, Mcp23017Wiring, ScanConfig, Scanner, Sense,
    SimBoard, SquareMap, Timebase,
};
use tactus_trace::{Entry, Input, Record};
use tokio::sync::mpsc;

use super::{GameTime, Incoming};
use crate::config::Config;

/// The calibration of `board.squares`: which square each wire pair is under.
pub fn square_map(cfg: &Config) -> anyhow::Result<SquareMap> {
    if cfg.board.squares.is_empty() {
        return Ok(SquareMap::default());
    }
    SquareMap::from_str(&cfg.board.squares.join(" ")).map_err(|e| anyhow::anyhow!("board.squares: {e}"))
}

fn scan_config(cfg: &Config) -> ScanConfig {
    ScanConfig { rate_hz: cfg.board.scan_hz, ..ScanConfig::default() }
}

/// The sensor matrix the config describes, read through `map` (the
/// identity map reads wires in order, as calibration needs).
pub fn matrix(cfg: &Config, map: SquareMap) -> anyhow::Result<Box<dyn Matrix>> {
    let settle = Duration::from_micros(cfg.board.settle_us);
    let pins = |v: &[u8], key: &str| -> anyhow::Result<[u8; 8]> {
        v.try_into().map_err(|_| anyhow::anyhow!("board.{key}: eight pin numbers, not {}", v.len()))
    };
    Ok(match cfg.board.kind.as_str() {
        "gpio-matrix" => {
            let config =
                GpioConfig { rows: pins(&cfg.board.rows, "rows")?, cols: pins(&cfg.board.cols, "cols")?, settle, map };
            Box::new(GpioMatrix::new(config)?)
        }
        "mcp23017" => {
            let config = Mcp23017Config {
                bus: cfg.board.i2c_bus,
                wiring: Mcp23017Wiring::Matrix { address: cfg.board.i2c_address },
                settle,
                map,
                ..Mcp23017Config::default()
            };
            Box::new(Mcp23017Matrix::new(config)?)
        }
        other => anyhow::bail!("board.kind {other:?} is not a sensor matrix (gpio-matrix, mcp23017)"),
    })
}

/// The configured matrix, scanned: timestamped edges at the scan rate.
fn matrix_board(cfg: &Config, occupied: Bitboard) -> anyhow::Result<Box<dyn Board>> {
    let scanner = Scanner::new(matrix(cfg, square_map(cfg)?)?, scan_config(cfg))?;
    Ok(Box::new(scanner.assuming(occupied)))
}

/// Starts the board and forwards what it senses. `done` are the entries a
/// recovered journal already holds: a simulated trace goes on after them.
/// Returns the flag that stops the board.
pub fn start(
    cfg: &Config,
    occupied: Bitboard,
    done: Option<&[Entry]>,
    clock: GameTime,
    tx: mpsc::UnboundedSender<Incoming>,
) -> anyhow::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    let (board, timebase): (Box<dyn Board>, Option<Timebase>) = match (cfg.board.kind.as_str(), &cfg.board.sim_trace) {
        ("sim", Some(path)) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            let (header, entries) = tactus_trace::read_str(&text).with_context(|| path.display().to_string())?;
            let skip = done.map_or(0, |done| already_played(&entries, done));
            // Trace time t plays at clock.instant(t): the board's time base
            // starts where game time 0 would have been.
            let zero = clock.start.checked_sub(Duration::from_secs_f64(clock.base as f64 / 1000.0 / clock.speed));
            let board = SimBoard::from_entries(header, entries.into_iter().skip(skip).collect(), clock.speed)?;
            let board = match zero {
                Some(zero) => board.with_start(zero),
                None => board,
            };
            let timebase = board.timebase();
            (Box::new(board), Some(timebase))
        }
        ("sim", None) => (Box::new(SimBoard::from_reader(std::io::BufReader::new(std::io::stdin()))), None),
        _ => (matrix_board(cfg, occupied)?, None),
    };
    let name = board.name().to_string();
    let (sensed_tx, sensed_rx) = std::sync::mpsc::channel();
    let board_stop = stop.clone();
    std::thread::Builder::new().name("board".into()).spawn(move || {
        if let Err(e) = board.run(sensed_tx, board_stop) {
            eprintln!("tactus: board {name}: {e}");
        }
    })?;
    std::thread::Builder::new().name("board-forward".into()).spawn(move || {
        for sensed in sensed_rx {
            let record = match sensed.what {
                Sense::Edge { sq, on } => Record::Edge { sq, on },
                Sense::Clock(side) => Record::Clock(side),
                Sense::Input(input) => Record::Input(input),
                Sense::End => Record::End,
                Sense::Fault(fault) => {
                    // Reported, never turned into moves: the scanner masks it.
                    eprintln!("tactus: board: {fault}");
                    continue;
                }
            };
            let msg = match timebase {
                Some(tb) => Incoming::Exact(Entry { t: tb.ms(sensed.at), record }),
                None => Incoming::At(sensed.at, record),
            };
            if tx.send(msg).is_err() {
                return;
            }
        }
    })?;
    Ok(stop)
}

/// How many of a trace's entries the journal already holds, in order; the
/// pauses and resumes the daemon added at each recovery are passed over.
pub fn already_played(trace: &[Entry], journal: &[Entry]) -> usize {
    let mut played = 0;
    for j in journal {
        if trace.get(played).is_some_and(|e| e.record == j.record) {
            played += 1;
        } else if !matches!(j.record, Record::Input(Input::Pause | Input::Resume)) {
            break;
        }
    }
    played
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square;

    #[test]
    fn a_recovered_trace_goes_on_where_the_journal_stopped() {
        let e = |t, on| Entry { t, record: Record::Edge { sq: Square::E2, on } };
        let pause = |t| Entry { t, record: Record::Input(Input::Pause) };
        let resume = |t| Entry { t, record: Record::Input(Input::Resume) };
        let trace = [e(1, false), e(2, true), e(3, false), e(4, true)];
        assert_eq!(already_played(&trace, &[e(1, false), pause(1), resume(1), e(2, true)]), 2);
        assert_eq!(already_played(&trace, &[]), 0);
    }

    #[test]
    fn the_calibration_must_name_64_squares() {
        let mut cfg = Config::default();
        cfg.board.squares = vec!["a1".into(), "b1".into()];
        assert!(square_map(&cfg).unwrap_err().to_string().starts_with("board.squares:"));
    }
}
