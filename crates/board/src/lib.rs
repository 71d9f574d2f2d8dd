//! Sensor boards for tactus: where raw square edges, and on a simulated board
//! clock presses and inputs, come from — each stamped with a monotonic clock
//! where it was sensed.
//!
//! Three backends sit behind one trait, [`Board`]:
//!
//! - [`Scanner`] over a [`Matrix`]: [`GpioMatrix`] (an 8 × 8 reed or hall
//!   matrix on 16 GPIOs, rows driven, columns read with pull-ups, one diode per
//!   switch) or [`Mcp23017Matrix`] (the same through an I²C port expander, or 64
//!   hall sensors on four expanders). The scanner reads whole frames at the scan
//!   rate, sleeping between ticks, turns them into edges, and masks a square
//!   whose sensor chatters or whose wires are faulty — reporting it as a
//!   [`Fault`] — instead of passing its flicker on as moves;
//! - [`SimBoard`]: a trace file played at a speed factor, or lifts and places
//!   typed at a terminal. How newcomers and tests run tactus.
//!
//! What the board layer detects, and what it leaves to the daemon, is in
//! [`scan`]'s documentation. The wiring is in `hardware/` at the repository root.

#![forbid(unsafe_code)]

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};

use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

use shakmaty::{Bitboard, Color, Piece, Square};
use tactus_trace::{Ms, TraceError};

mod lines;
pub mod mcp23017;
pub mod scan;
pub mod sim;

#[cfg(target_os = "linux")]
pub mod gpio;

#[cfg(target_os = "linux")]
pub use gpio::{GpioConfig, GpioMatrix, PinError, PinTable};
pub use lines::{Lines, scan_lines};
pub use mcp23017::{Mcp23017Config, Mcp23017Matrix, Mcp23017Wiring};
pub use scan::{ScanConfig, Scanner};
pub use sim::{SimBoard, Timebase, Warp};

/// What a board senses, timestamped with a monotonic clock where it was sensed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sensed {
    pub at: Instant,
    pub what: Sense,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sense {
    /// A raw sensor edge: the square now reads occupied (`on`) or empty. Raw:
    /// not debounced (the core does that), but never from a masked square.
    /// `piece`: which piece was put down, from a trace recorded on a board
    /// that knows (a sensor matrix does not).
    Edge { sq: Square, on: bool, piece: Option<Piece> },
    /// A clock press (simulated boards: traces and typed input carry them).
    Clock(Color),
    /// A button, selector or arbiter input (simulated boards).
    Input(tactus_trace::Input),
    /// A sensor or wiring fault, or its end.
    Fault(Fault),
    /// A typed command that was not understood (the simulated board), as
    /// typed: answered on the feedback stream, and to be said.
    NotUnderstood(String),
    /// The board has nothing more to say: the trace's `end` line, or its last
    /// line, or the end of typed input. A scanner never sends it.
    End,
    /// A board playing a recording knows its next line: nothing is sensed
    /// before `next`. The daemon's timers may run up to that instant and no
    /// further until the board speaks again, so that a thread scheduled late
    /// never lets a timer overtake an edge the recording holds before it. A
    /// live board cannot promise this and never sends it.
    Quiet { next: Instant },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The square's wires are electrically faulty (its column reads closed with
    /// no row driven: a short to ground, a broken pull-up) and have been for
    /// `since_ms` ms; `reading` is what the sensor reads. The square is masked.
    Stuck { sq: Square, reading: bool, since_ms: Ms },
    /// The square's sensor flickers: `edges_per_s` edges a second over the
    /// chatter window. The square is masked at its last steady reading.
    Chatter { sq: Square, edges_per_s: u32 },
    /// A masked square reads steadily again and is no longer masked; an edge to
    /// its current reading follows if that differs from the masked one.
    Recovered { sq: Square },
    /// The matrix could not be read (I²C error, a disconnected expander). The
    /// scanner keeps trying; [`Fault::IoRecovered`] follows when it reads again.
    Io(String),
    /// Reading works again after [`Fault::Io`].
    IoRecovered,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Stuck { sq, reading, since_ms } => write!(
                f,
                "{sq}: wiring fault, reads {} with no row driven for {since_ms} ms; masked",
                if *reading { "occupied" } else { "empty" }
            ),
            Fault::Chatter { sq, edges_per_s } => {
                write!(f, "{sq}: sensor chatters ({edges_per_s} edges/s); masked at its last steady reading")
            }
            Fault::Recovered { sq } => write!(f, "{sq}: sensor reads steadily again; no longer masked"),
            Fault::Io(e) => write!(f, "board: {e}"),
            Fault::IoRecovered => write!(f, "board: reading again"),
        }
    }
}

/// A source of [`Sensed`] values.
pub trait Board: Send {
    /// A short name for logs: `gpio-matrix`, `mcp23017`, `sim`.
    fn name(&self) -> &str;
    /// Senses until `stop` is cancelled, the receiver hangs up, or (simulated boards)
    /// the input ends. Blocks: run it on its own thread. Errors are the ones
    /// that end the board for good; passing faults are sent as [`Sense::Fault`].
    fn run(self: Box<Self>, tx: SyncSender<Sensed>, stop: CancellationToken) -> Result<(), BoardError>;
}

/// A sensor matrix that can be read as a whole frame.
pub trait Matrix: Send {
    /// A short name for logs (the scanner's [`Board::name`]).
    fn name(&self) -> &str {
        "matrix"
    }
    /// The occupied squares now.
    fn read(&mut self) -> Result<Bitboard, BoardError>;
    /// The squares whose reading the last [`Matrix::read`] found electrically
    /// unreliable (none, unless the matrix can test its wires).
    fn faulty(&self) -> Bitboard {
        Bitboard::EMPTY
    }
}

impl<M: Matrix + ?Sized> Matrix for Box<M> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn read(&mut self) -> Result<Bitboard, BoardError> {
        (**self).read()
    }
    fn faulty(&self) -> Bitboard {
        (**self).faulty()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    /// The hardware is not there: no GPIO, no I²C bus, no expander answering.
    #[error("{0}")]
    Unavailable(String),
    /// The device is there but this user may not open it.
    #[error("{0}")]
    Permission(String),
    /// A pin table, address, square map, rate or speed that cannot work.
    #[error("{0}")]
    Config(String),
    /// A trace file that cannot be read.
    #[error("{}: {error}", path.display())]
    Trace { path: PathBuf, error: TraceError },
    /// Reading or writing the hardware failed.
    #[error("{0}")]
    Io(String),
}

/// Whole milliseconds from `start` to `at` (0 if `at` is earlier): the trace's
/// `t` of a live sensing.
pub fn ms_since(start: Instant, at: Instant) -> Ms {
    at.saturating_duration_since(start).as_millis() as Ms
}

/// Maps matrix wires to squares: `(row, col)` → square. The calibration
/// result; the default puts row 0 on rank 1 and column 0 on file a, so wire
/// index `row * 8 + col` is a1, b1 … h8 in order.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SquareMap {
    squares: [Square; 64],
}

impl Default for SquareMap {
    fn default() -> Self {
        SquareMap { squares: std::array::from_fn(|i| Square::new(i as u32)) }
    }
}

impl fmt::Debug for SquareMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SquareMap({self})")
    }
}

impl SquareMap {
    /// From the square on each wire, in wire order `(0,0), (0,1) … (7,7)`;
    /// each square exactly once.
    pub fn from_squares(squares: [Square; 64]) -> Result<Self, BoardError> {
        let mut seen = Bitboard::EMPTY;
        for (i, sq) in squares.iter().enumerate() {
            if seen.contains(*sq) {
                return Err(BoardError::Config(format!(
                    "square map: {sq} appears twice (again on row {}, column {}); each square must be on exactly one wire",
                    i / 8,
                    i % 8
                )));
            }
            seen.add(*sq);
        }
        Ok(SquareMap { squares })
    }

    /// The square on row `row`, column `col` (each 0–7).
    pub fn square(&self, row: usize, col: usize) -> Square {
        self.squares[row * 8 + col]
    }

    /// The `(row, col)` wires of a square.
    pub fn wires(&self, sq: Square) -> (usize, usize) {
        let i = self.squares.iter().position(|s| *s == sq).expect("a square map holds every square");
        (i / 8, i % 8)
    }

    /// The same wiring with the board turned round (h8 where a1 was).
    pub fn rotated(&self) -> Self {
        SquareMap { squares: self.squares.map(|sq| sq.rotate_180()) }
    }

    /// Turns a raw frame, bit `row * 8 + col` set for a closed sensor, into
    /// occupied squares.
    pub fn map_bits(&self, raw: u64) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        let mut bits = raw;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            bb.add(self.squares[i]);
        }
        bb
    }
}

/// 64 square names separated by white space, in wire order.
impl fmt::Display for SquareMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, sq) in self.squares.iter().enumerate() {
            if i > 0 {
                f.write_str(if i % 8 == 0 { "  " } else { " " })?;
            }
            write!(f, "{sq}")?;
        }
        Ok(())
    }
}

impl FromStr for SquareMap {
    type Err = BoardError;

    /// 64 square names separated by white space (or commas), in wire order.
    fn from_str(s: &str) -> Result<Self, BoardError> {
        let names: Vec<&str> = s.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).collect();
        if names.len() != 64 {
            return Err(BoardError::Config(format!(
                "square map: expected 64 square names in wire order (row 0 column 0 first), found {}",
                names.len()
            )));
        }
        let mut squares = [Square::A1; 64];
        for (i, name) in names.iter().enumerate() {
            squares[i] = Square::from_ascii(name.as_bytes()).map_err(|_| {
                BoardError::Config(format!("square map: {name:?} (row {}, column {}) is not a square", i / 8, i % 8))
            })?;
        }
        SquareMap::from_squares(squares)
    }
}

/// Time for the board loops: the real monotonic clock, or a manual one that
/// makes tests deterministic.
pub trait TimeSource: Send {
    fn now(&self) -> Instant;
    /// Returns at `deadline` (or at once if it has passed). Never busy-waits.
    fn sleep_until(&mut self, deadline: Instant);
}

/// `Instant::now()` and `thread::sleep`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl TimeSource for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
    fn sleep_until(&mut self, deadline: Instant) {
        let now = Instant::now();
        if deadline > now {
            std::thread::sleep(deadline - now);
        }
    }
}

/// A clock that only moves when slept on or advanced: sleeping jumps to the
/// deadline at once. Clones share one time, so a test's fake matrix can see
/// the time its scanner sleeps to.
#[derive(Debug, Clone)]
pub struct ManualClock {
    now: Arc<Mutex<Instant>>,
}

impl ManualClock {
    pub fn new(start: Instant) -> Self {
        ManualClock { now: Arc::new(Mutex::new(start)) }
    }
    pub fn advance(&self, by: Duration) {
        *self.now.lock().unwrap_or_else(|e| e.into_inner()) += by;
    }
}

impl TimeSource for ManualClock {
    fn now(&self) -> Instant {
        *self.now.lock().unwrap_or_else(|e| e.into_inner())
    }
    fn sleep_until(&mut self, deadline: Instant) {
        let mut now = self.now.lock().unwrap_or_else(|e| e.into_inner());
        if deadline > *now {
            *now = deadline;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_map_is_a1_to_h8_in_order() {
        let m = SquareMap::default();
        assert_eq!(m.square(0, 0), Square::A1);
        assert_eq!(m.square(0, 7), Square::H1);
        assert_eq!(m.square(1, 0), Square::A2);
        assert_eq!(m.square(7, 7), Square::H8);
        assert_eq!(m.wires(Square::E4), (3, 4));
        assert_eq!(m.map_bits(1 | 1 << 63), Bitboard::from(Square::A1) | Bitboard::from(Square::H8));
    }

    #[test]
    fn rotated_map_turns_the_board_round() {
        let m = SquareMap::default().rotated();
        assert_eq!(m.square(0, 0), Square::H8);
        assert_eq!(m.square(7, 7), Square::A1);
        assert_eq!(m.square(1, 4), Square::D7);
    }

    #[test]
    fn map_round_trips_through_text_and_rejects_bad_maps() {
        let m = SquareMap::default().rotated();
        assert_eq!(m.to_string().parse::<SquareMap>().unwrap(), m);
        let e = "a1 b1".parse::<SquareMap>().unwrap_err().to_string();
        assert!(e.contains("found 2"), "{e}");
        let twice = SquareMap::default().to_string().replacen("b1", "a1", 1);
        let e = twice.parse::<SquareMap>().unwrap_err().to_string();
        assert!(e.contains("a1 appears twice"), "{e}");
        let bad = SquareMap::default().to_string().replacen("c1", "z9", 1);
        assert!(bad.parse::<SquareMap>().unwrap_err().to_string().contains("\"z9\" (row 0, column 2)"));
    }

    #[test]
    fn ms_since_floors_and_saturates() {
        let s = Instant::now();
        assert_eq!(ms_since(s, s + Duration::from_micros(1999)), 1);
        assert_eq!(ms_since(s + Duration::from_millis(5), s), 0);
    }

    #[test]
    fn manual_clock_jumps_on_sleep_and_clones_share_time() {
        let s = Instant::now();
        let mut c = ManualClock::new(s);
        let c2 = c.clone();
        c.sleep_until(s + Duration::from_millis(10));
        assert_eq!(c2.now(), s + Duration::from_millis(10));
        c.sleep_until(s);
        assert_eq!(c.now(), s + Duration::from_millis(10));
        c2.advance(Duration::from_millis(1));
        assert_eq!(c.now(), s + Duration::from_millis(11));
    }
}
