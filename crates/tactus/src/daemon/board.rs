//! Where the game's inputs come from: a board backend (the sensor matrix on
//! GPIO or I²C, or the simulated board). The board is opened — and a
//! missing one reported — before any journal is written; then it senses on
//! a thread of its own, forwarding to the game task through a bounded queue.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use shakmaty::Bitboard;
use tactus_board::{
    Board, BoardError, Fault, GpioConfig, GpioMatrix, Matrix, Mcp23017Config, Mcp23017Matrix, Mcp23017Wiring,
    ScanConfig, Scanner, Sense, SimBoard, SquareMap, Warp,
};
use tactus_core::{Device, EventKind};
use tactus_trace::{Entry, Header, Input, Ms, Record};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::dgt_board::DgtBoard;
use super::input::Incoming;
use super::shutdown::{self, Thread};
use super::source::Origin;
use super::time::GameTime;
use crate::config::{BoardKind, Config};
use tactus_dgt::follow::ClockOnBoard;

/// The board's sensors cannot be reached: the daemon cannot run.
#[derive(Debug, thiserror::Error)]
#[error("no {kind} board: {why}; {fix}")]
pub struct NoBoard {
    pub kind: BoardKind,
    pub why: String,
    pub fix: String,
}

/// A board opened but not yet sensing.
pub enum OpenBoard {
    /// A simulated board playing a trace, already read whole (a bad line is
    /// an error now, not after a game has begun).
    SimTrace { header: Box<Header>, entries: Vec<Entry> },
    /// A simulated board typed on at standard input.
    SimTyped,
    /// A sensor matrix and what it shows now.
    Matrix { matrix: Box<dyn Matrix>, shows: Bitboard },
    /// A DGT e-Board, answering.
    Dgt(Box<DgtBoard>),
}

impl OpenBoard {
    /// The game's tags, when the board brings its own (a trace).
    pub fn header(&self) -> Option<&Header> {
        match self {
            OpenBoard::SimTrace { header, .. } => Some(header),
            _ => None,
        }
    }

    /// The occupied squares the board reads, when it has sensors.
    pub fn shows(&self) -> Option<Bitboard> {
        match self {
            OpenBoard::Matrix { shows, .. } => Some(*shows),
            OpenBoard::Dgt(board) => Some(board.shows()),
            _ => None,
        }
    }

    pub fn is_sim(&self) -> bool {
        !matches!(self, OpenBoard::Matrix { .. } | OpenBoard::Dgt(_))
    }
}

/// The sensor matrix the config describes, read through `map` (the
/// identity map reads wires in order, as calibration needs). A board that
/// is not there is a [`NoBoard`] error.
pub fn matrix(cfg: &Config, map: SquareMap, config_file: Option<&Path>) -> anyhow::Result<Box<dyn Matrix>> {
    let b = &cfg.board;
    let settle = Duration::from_micros(b.settle_us.get());
    let opened: Result<Box<dyn Matrix>, BoardError> = match b.kind {
        BoardKind::GpioMatrix => {
            GpioMatrix::new(GpioConfig { rows: b.rows, cols: b.cols, settle, map }).map(|m| Box::new(m) as _)
        }
        BoardKind::Mcp23017 | BoardKind::Hall => {
            let wiring = match b.kind {
                BoardKind::Hall => Mcp23017Wiring::Direct { addresses: b.hall_addresses },
                _ => Mcp23017Wiring::Matrix { address: b.i2c_address.get() },
            };
            let config = Mcp23017Config { bus: b.i2c_bus, wiring, settle, map, ..Mcp23017Config::default() };
            Mcp23017Matrix::new(config).map(|m| Box::new(m) as _)
        }
        BoardKind::Sim | BoardKind::Dgt => {
            anyhow::bail!("board.kind {} is not a sensor matrix (gpio-matrix, mcp23017, hall)", b.kind)
        }
    };
    opened.map_err(|e| match e {
        BoardError::Unavailable(why) | BoardError::Permission(why) | BoardError::Io(why) => NoBoard {
            kind: b.kind,
            why,
            fix: match config_file {
                Some(file) => format!(
                    "connect the board and run `tactus doctor`, or choose another [board] kind in {} (\"sim\" plays without hardware)",
                    file.display()
                ),
                None => "connect the board and run `tactus doctor`, or try without one: tactus run --board sim".into(),
            },
        }
        .into(),
        other => anyhow::anyhow!("board {}: {other}", b.kind),
    })
}

/// Opens the configured board: reads a sim trace whole, or opens the
/// matrix and reads what it shows. Returns it with its [`Origin`].
pub fn open(cfg: &Config, config_file: Option<&Path>) -> anyhow::Result<(OpenBoard, Origin)> {
    match (cfg.board.kind, &cfg.board.sim_trace) {
        (BoardKind::Sim, Some(path)) => {
            let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let text = String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("{}: not UTF-8 text", path.display()))?;
            let (header, entries) = tactus_trace::read_str(&text).with_context(|| path.display().to_string())?;
            let source = Origin::of(cfg, Some((path, text.as_bytes())));
            Ok((OpenBoard::SimTrace { header: Box::new(header), entries }, source))
        }
        (BoardKind::Sim, None) => Ok((OpenBoard::SimTyped, Origin::of(cfg, None))),
        (BoardKind::Dgt, _) => {
            let board = DgtBoard::open(&cfg.board.dgt_path)?;
            Ok((OpenBoard::Dgt(Box::new(board)), Origin::of(cfg, None)))
        }
        _ => {
            let map = cfg.board.squares.unwrap_or_default();
            let mut matrix = matrix(cfg, map, config_file)?;
            let shows = matrix.read().map_err(|e| NoBoard {
                kind: cfg.board.kind,
                why: format!("it cannot be read: {e}"),
                fix: "check its cable and power, then run `tactus doctor`".into(),
            })?;
            Ok((OpenBoard::Matrix { matrix, shows }, Origin::of(cfg, None)))
        }
    }
}

impl OpenBoard {
    /// A recording's quiets longer than `longest` shortened, from game
    /// time `from` on (the demo); none for any other board.
    pub fn warp(&self, from: Ms, longest: Option<Ms>) -> Warp {
        let (OpenBoard::SimTrace { entries, .. }, Some(longest)) = (self, longest) else { return Warp::default() };
        let warp = Warp::shortening(entries, from, longest);
        let jumps: Vec<String> = warp.jumps().iter().map(|(from, to)| format!("{from}..{to}")).collect();
        tracing::debug!("sim: the recording's quiets are shortened, game time jumping (ms): {}", jumps.join(" "));
        warp
    }
}

/// The threads of a sensing board: the board itself and its forwarder.
pub struct BoardThreads {
    threads: Vec<Thread<()>>,
}

impl BoardThreads {
    /// Waits for both to end, until `deadline` (the stop signal ends the
    /// board; the forwarder ends with it, or when the game stops listening).
    pub async fn join(self, deadline: std::time::Instant) {
        for thread in self.threads {
            if thread.join_by(deadline).await.is_none() {
                tracing::warn!("board: its thread did not end in time; left behind");
            }
        }
    }
}

/// How many sensings may wait for the game task before the board waits.
const QUEUE: usize = 1024;

/// Starts the board sensing. `assume` is what the game believes the board
/// shows (a scanner reports only changes from it); `done` are the entries
/// a recovered journal already holds: a simulated trace goes on after them.
pub fn start(
    board: OpenBoard,
    cfg: &Config,
    assume: Bitboard,
    done: Option<&[Entry]>,
    time: GameTime,
    tx: mpsc::Sender<Incoming>,
    stop: CancellationToken,
) -> anyhow::Result<BoardThreads> {
    let (board, timebase): (Box<dyn Board>, _) = match board {
        OpenBoard::SimTrace { header, entries } => {
            let skip = done.map_or(0, |done| already_played(&entries, done));
            // Trace time t plays at time.instant(t): the board's time base
            // starts where game time 0 would have been.
            let speed = time.speed.factor();
            let played = time.warp.played(time.base);
            let zero = time.start.checked_sub(Duration::from_secs_f64(played as f64 / 1000.0 / speed));
            let board = SimBoard::from_entries(*header, entries.into_iter().skip(skip).collect(), speed)?
                .with_warp(time.warp.clone());
            let board = match zero {
                Some(zero) => board.with_start(zero),
                None => board,
            };
            let timebase = board.timebase();
            (Box::new(board), Some(timebase))
        }
        OpenBoard::SimTyped => {
            let feedback = crate::terminal::LineWriter::new(crate::terminal::Stream::Stderr);
            let board = SimBoard::from_reader(std::io::BufReader::new(std::io::stdin())).with_feedback(feedback);
            (Box::new(board), None)
        }
        OpenBoard::Dgt(board) => {
            let clock =
                ClockOnBoard { white: cfg.clock.white, sole: cfg.clock.device == crate::config::ClockKind::None };
            let thread = board.start(assume, clock, tx, stop)?;
            return Ok(BoardThreads { threads: vec![thread] });
        }
        OpenBoard::Matrix { matrix, .. } => {
            let scan = ScanConfig { rate_hz: cfg.board.scan_hz.get(), ..ScanConfig::default() };
            (Box::new(Scanner::new(matrix, scan)?.assuming(assume)), None)
        }
    };
    let name = board.name().to_string();
    let (sensed_tx, sensed_rx) = std::sync::mpsc::sync_channel(QUEUE);
    let board_thread = shutdown::spawn("board", move || {
        if let Err(e) = board.run(sensed_tx, stop) {
            tracing::error!("board {name}: {e}");
        }
    })?;
    let forward = shutdown::spawn("board-forward", move || {
        for sensed in sensed_rx {
            let record = match sensed.what {
                Sense::Edge { sq, on, piece } => Record::Edge { sq, on, piece },
                Sense::Clock(side) => Record::Clock(side),
                Sense::Input(input) => Record::Input(input),
                Sense::End => Record::End,
                Sense::Quiet { next } => {
                    let Some(tb) = &timebase else { continue };
                    if tx.blocking_send(Incoming::Quiet(tb.ms(next))).is_err() {
                        return;
                    }
                    continue;
                }
                // Said, not journaled: it is no input to the game.
                Sense::NotUnderstood(typed) => {
                    let notice = EventKind::NotUnderstood { typed };
                    if tx.blocking_send(Incoming::Notice(sensed.at, notice)).is_err() {
                        return;
                    }
                    continue;
                }
                Sense::Fault(fault) => {
                    // Reported, never turned into moves: the scanner masks it.
                    tracing::warn!("board: {fault}");
                    // A board that cannot be read is said to the players.
                    let notice = match fault {
                        Fault::Io(detail) => EventKind::DeviceLost { device: Device::Board, detail },
                        Fault::IoRecovered => EventKind::DeviceBack { device: Device::Board },
                        _ => continue,
                    };
                    if tx.blocking_send(Incoming::Notice(sensed.at, notice)).is_err() {
                        return;
                    }
                    continue;
                }
            };
            let msg = match &timebase {
                Some(tb) => Incoming::Exact(Entry { t: tb.ms(sensed.at), record }),
                None => Incoming::At(sensed.at, record),
            };
            if tx.blocking_send(msg).is_err() {
                return;
            }
        }
    })?;
    Ok(BoardThreads { threads: vec![board_thread, forward] })
}

/// How many of a trace's entries the journal already holds, in order; the
/// pauses and resumes the daemon added at each recovery, and where its
/// timers ran, are passed over.
pub fn already_played(trace: &[Entry], journal: &[Entry]) -> usize {
    let mut played = 0;
    for j in journal {
        if trace.get(played).is_some_and(|e| e.record == j.record) {
            played += 1;
        } else if !matches!(j.record, Record::Input(Input::Pause | Input::Resume) | Record::Timers) {
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
        let e = |t, on| Entry { t, record: Record::Edge { sq: Square::E2, on, piece: None } };
        let pause = |t| Entry { t, record: Record::Input(Input::Pause) };
        let resume = |t| Entry { t, record: Record::Input(Input::Resume) };
        let timers = |t| Entry { t, record: Record::Timers };
        let trace = [e(1, false), e(2, true), e(3, false), e(4, true)];
        assert_eq!(already_played(&trace, &[e(1, false), pause(1), resume(1), e(2, true)]), 2);
        assert_eq!(already_played(&trace, &[e(1, false), e(2, true), timers(3), e(3, false)]), 3);
        assert_eq!(already_played(&trace, &[]), 0);
    }

    #[test]
    fn no_gpio_is_one_clear_line_with_the_fix() {
        // This machine has no /dev/gpiomem (CI, a laptop): the real case.
        let cfg = Config::default();
        let e = open(&cfg, Some(Path::new("/etc/tactus/tactus.toml"))).err().unwrap();
        let no_board = e.downcast_ref::<NoBoard>().expect("a NoBoard error");
        let text = no_board.to_string();
        assert!(text.starts_with("no gpio-matrix board: no GPIO"), "{text}");
        assert!(text.contains("/etc/tactus/tactus.toml") && text.contains("tactus doctor"), "{text}");
        assert!(!text.contains('\n'), "one line: {text}");
    }
}
