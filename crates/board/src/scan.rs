//! The generic scanner: frames from a [`Matrix`] at the scan rate, turned into
//! timestamped edges.
//!
//! # Timing
//!
//! Frames are read at ticks `start + k × period` (period = 1 / `rate_hz`,
//! default 100 Hz); between ticks the thread sleeps — it never spins. A tick
//! missed because a read stalled is skipped, not made up in a burst. Every edge
//! of a frame carries the instant its read began: an edge is known to at most
//! one period.
//!
//! # What the board layer detects
//!
//! Edges are raw: contact bounce and a piece brushing a square are the core's
//! to debounce. The scanner only withholds readings it can tell are not a
//! piece:
//!
//! - **Chatter.** A square with more than `chatter_edges` edges within
//!   `chatter_window` (default: more than 16 in 1 s; a move makes two, a slid
//!   piece two per square crossed, a bouncing reed a few that mostly fall
//!   between scans) is masked: [`Fault::Chatter`] is sent and, if what was
//!   passed on differs from the square's last *steady* reading (one held for
//!   `steady`, 250 ms), an edge back to that reading — so the flicker ends as
//!   it began. While masked nothing from the square is passed on. Once its
//!   reading has held for `recover_after` (2 s) the mask lifts:
//!   [`Fault::Recovered`], then an edge to the current reading if it differs.
//!   A magnet at the edge of a reed's pull-in range, a cracked reed, a loose
//!   wire: all chatter.
//! - **Wiring faults** ([`Matrix::faulty`]): a column that reads closed with no
//!   row driven is shorted to ground or lost its pull-up; its eight squares
//!   read closed whatever stands on them. They are masked at once; after
//!   `stuck_after` (500 ms) [`Fault::Stuck`] is reported for each, and they
//!   recover as chattering squares do. A fault shorter than `stuck_after` is
//!   not reported: the squares resume, with an edge if their reading changed.
//! - **I/O errors** (an I²C expander not answering): [`Fault::Io`] once per
//!   run of errors, retries every `io_retry`, and [`Fault::IoRecovered`].
//!
//! A sensor stuck *closed or open* with sound wiring — a reed welded shut, a
//! broken reed, a magnet fallen out of a piece — reads like a piece that
//! stays or a square that stays empty. Only comparing the readings with the
//! game can tell (a move that never completes on that square, an occupied
//! square the position says is empty): that is the daemon's, which reports it
//! with [`Fault::Stuck`] too.

use std::collections::VecDeque;
use std::sync::mpsc::SyncSender;
use std::time::{Duration, Instant};

use shakmaty::{Bitboard, Square};
use tokio_util::sync::CancellationToken;

use crate::{Board, BoardError, Fault, Matrix, Sense, Sensed, SystemClock, TimeSource};

/// How a [`Scanner`] scans, and when it calls a square faulty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanConfig {
    /// Frames per second, 1–2000; default 100.
    pub rate_hz: u32,
    /// A square with more edges than this within `chatter_window` is masked.
    pub chatter_edges: u32,
    pub chatter_window: Duration,
    /// A reading held this long is a square's steady reading, which a
    /// chattering square is masked at.
    pub steady: Duration,
    /// A masked square whose reading holds this long is unmasked.
    pub recover_after: Duration,
    /// A wiring fault lasting this long is reported as [`Fault::Stuck`].
    pub stuck_after: Duration,
    /// Time between reads while the matrix cannot be read.
    pub io_retry: Duration,
}

impl Default for ScanConfig {
    fn default() -> Self {
        ScanConfig {
            rate_hz: 100,
            chatter_edges: 16,
            chatter_window: Duration::from_secs(1),
            steady: Duration::from_millis(250),
            recover_after: Duration::from_secs(2),
            stuck_after: Duration::from_millis(500),
            io_retry: Duration::from_millis(500),
        }
    }
}

impl ScanConfig {
    pub fn validate(&self) -> Result<(), BoardError> {
        if !(1..=2000).contains(&self.rate_hz) {
            return Err(BoardError::Config(format!(
                "scan rate {} Hz: must be 1 to 2000 (100 is the default; the core debounces at 10 ms)",
                self.rate_hz
            )));
        }
        if self.chatter_edges < 2 || self.chatter_window.is_zero() {
            return Err(BoardError::Config(
                "chatter detection needs at least 2 edges in a window longer than 0 s (a move makes 2)".into(),
            ));
        }
        Ok(())
    }

    /// Time between frames.
    pub fn period(&self) -> Duration {
        Duration::from_secs(1) / self.rate_hz.max(1)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mask {
    None,
    Chatter,
    Faulty { since: Instant, reported: bool, clear_since: Option<Instant> },
}

#[derive(Debug, Clone)]
struct SquareState {
    /// The last reading.
    raw: bool,
    /// When `raw` last changed.
    changed: Instant,
    /// The last reading that held for `steady`.
    steady: bool,
    /// What was last passed on.
    passed: bool,
    /// Times of the edges within the chatter window.
    edges: VecDeque<Instant>,
    mask: Mask,
}

/// Reads a [`Matrix`] at the scan rate and sends its edges and faults.
pub struct Scanner<M: Matrix> {
    matrix: M,
    config: ScanConfig,
    clock: Box<dyn TimeSource>,
    initial: Option<Bitboard>,
    squares: Vec<SquareState>,
}

impl<M: Matrix> Scanner<M> {
    pub fn new(matrix: M, config: ScanConfig) -> Result<Self, BoardError> {
        config.validate()?;
        Ok(Scanner { matrix, config, clock: Box::new(SystemClock), initial: None, squares: Vec::new() })
    }

    /// Reads time from `clock` (tests: a [`crate::ManualClock`]).
    pub fn with_clock(mut self, clock: impl TimeSource + 'static) -> Self {
        self.clock = Box::new(clock);
        self
    }

    /// The occupancy the receiver already assumes (say, the game's position):
    /// the first frame sends edges only where it differs. Without it, the
    /// first frame sends one edge for each of the 64 squares, so the receiver
    /// learns the whole board.
    pub fn assuming(mut self, occupied: Bitboard) -> Self {
        self.initial = Some(occupied);
        self
    }

    pub fn config(&self) -> &ScanConfig {
        &self.config
    }

    pub fn matrix(&self) -> &M {
        &self.matrix
    }

    /// Squares masked now.
    pub fn masked(&self) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for (i, s) in self.squares.iter().enumerate() {
            if s.mask != Mask::None {
                bb.add(Square::new(i as u32));
            }
        }
        bb
    }

    /// One frame, read at `at`: appends what it means to `out`. The run loop
    /// calls this; tests and callers that have frames of their own may too.
    pub fn step(&mut self, at: Instant, frame: Bitboard, faulty: Bitboard, out: &mut Vec<Sensed>) {
        if self.squares.is_empty() {
            self.squares = (0..64)
                .map(|i| {
                    let sq = Square::new(i);
                    let raw = frame.contains(sq);
                    SquareState {
                        raw,
                        changed: at,
                        steady: raw,
                        passed: self.initial.map_or(!raw, |b| b.contains(sq)),
                        edges: VecDeque::new(),
                        mask: Mask::None,
                    }
                })
                .collect();
        }
        let c = &self.config;
        for (i, s) in self.squares.iter_mut().enumerate() {
            let sq = Square::new(i as u32);
            let reading = frame.contains(sq);
            let is_faulty = faulty.contains(sq);
            if reading != s.raw {
                s.raw = reading;
                s.changed = at;
                s.edges.push_back(at);
            }
            while s.edges.front().is_some_and(|t| at.duration_since(*t) >= c.chatter_window) {
                s.edges.pop_front();
            }
            if at.duration_since(s.changed) >= c.steady {
                s.steady = s.raw;
            }
            let mut fault = |what: Fault| out.push(Sensed { at, what: Sense::Fault(what) });
            match s.mask {
                Mask::None | Mask::Chatter if is_faulty => {
                    s.mask = Mask::Faulty { since: at, reported: false, clear_since: None };
                }
                Mask::None => {
                    if s.edges.len() > c.chatter_edges as usize {
                        s.mask = Mask::Chatter;
                        let per_s = s.edges.len() as f64 / c.chatter_window.as_secs_f64();
                        fault(Fault::Chatter { sq, edges_per_s: per_s.round() as u32 });
                        if s.passed != s.steady {
                            s.passed = s.steady;
                            out.push(Sensed { at, what: Sense::Edge { sq, on: s.steady, piece: None } });
                        }
                    } else if s.raw != s.passed {
                        s.passed = s.raw;
                        out.push(Sensed { at, what: Sense::Edge { sq, on: s.raw, piece: None } });
                    }
                }
                Mask::Chatter => {
                    if at.duration_since(s.changed) >= c.recover_after {
                        s.mask = Mask::None;
                        s.edges.clear();
                        fault(Fault::Recovered { sq });
                        if s.raw != s.passed {
                            s.passed = s.raw;
                            out.push(Sensed { at, what: Sense::Edge { sq, on: s.raw, piece: None } });
                        }
                    }
                }
                Mask::Faulty { since, reported, clear_since } => {
                    if is_faulty {
                        let lasted = at.duration_since(since);
                        if !reported && lasted >= c.stuck_after {
                            fault(Fault::Stuck { sq, reading: s.raw, since_ms: lasted.as_millis() as u64 });
                        }
                        s.mask =
                            Mask::Faulty { since, reported: reported || lasted >= c.stuck_after, clear_since: None };
                        continue;
                    }
                    let clear = clear_since.unwrap_or(at);
                    let recovered = !reported || at.duration_since(clear) >= c.recover_after;
                    if !recovered {
                        s.mask = Mask::Faulty { since, reported, clear_since: Some(clear) };
                        continue;
                    }
                    s.mask = Mask::None;
                    s.edges.clear();
                    if reported {
                        fault(Fault::Recovered { sq });
                    }
                    if s.raw != s.passed {
                        s.passed = s.raw;
                        out.push(Sensed { at, what: Sense::Edge { sq, on: s.raw, piece: None } });
                    }
                }
            }
        }
    }
}

impl<M: Matrix> Board for Scanner<M> {
    fn name(&self) -> &str {
        self.matrix.name()
    }

    fn run(mut self: Box<Self>, tx: SyncSender<Sensed>, stop: CancellationToken) -> Result<(), BoardError> {
        let period = self.config.period();
        let mut out = Vec::with_capacity(64);
        let mut failing: Option<String> = None;
        let mut next = self.clock.now();
        while !stop.is_cancelled() {
            let at = self.clock.now();
            match self.matrix.read() {
                Ok(frame) => {
                    if failing.take().is_some() {
                        out.push(Sensed { at, what: Sense::Fault(Fault::IoRecovered) });
                    }
                    let faulty = self.matrix.faulty();
                    self.step(at, frame, faulty, &mut out);
                }
                Err(e) => {
                    let message = e.to_string();
                    if failing.as_ref() != Some(&message) {
                        out.push(Sensed { at, what: Sense::Fault(Fault::Io(message.clone())) });
                    }
                    failing = Some(message);
                    next = next.max(at + self.config.io_retry - period);
                }
            }
            for s in out.drain(..) {
                if tx.send(s).is_err() {
                    return Ok(());
                }
            }
            next += period;
            let now = self.clock.now();
            if next <= now {
                // A stalled read: skip the missed ticks rather than burst.
                next = now + period;
            }
            self.clock.sleep_until(next);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ManualClock;
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};

    const MS: Duration = Duration::from_millis(1);

    /// Frames scripted by time: from each `(ms, frame)` on, the matrix reads
    /// `frame`. Stops the scanner after `until` ms; records read times.
    struct Script {
        clock: ManualClock,
        start: Instant,
        frames: Vec<(u64, Bitboard)>,
        faulty: Vec<(u64, Bitboard)>,
        errors: Vec<(u64, u64)>,
        read_takes: Duration,
        stall_at: Option<u64>,
        until: u64,
        stop: CancellationToken,
        reads: Arc<Mutex<Vec<u64>>>,
    }

    impl Script {
        fn new(frames: Vec<(u64, Bitboard)>, until: u64) -> (Self, ManualClock, CancellationToken) {
            let start = Instant::now();
            let clock = ManualClock::new(start);
            let stop = CancellationToken::new();
            let s = Script {
                clock: clock.clone(),
                start,
                frames,
                faulty: vec![],
                errors: vec![],
                read_takes: Duration::ZERO,
                stall_at: None,
                until,
                stop: stop.clone(),
                reads: Arc::default(),
            };
            (s, clock, stop)
        }
        fn now_ms(&self) -> u64 {
            crate::ms_since(self.start, self.clock.now())
        }
        fn at(list: &[(u64, Bitboard)], t: u64) -> Bitboard {
            list.iter().rev().find(|(from, _)| *from <= t).map_or(Bitboard::EMPTY, |(_, b)| *b)
        }
    }

    impl Matrix for Script {
        fn read(&mut self) -> Result<Bitboard, BoardError> {
            let t = self.now_ms();
            self.reads.lock().unwrap().push(t);
            if t >= self.until {
                self.stop.cancel();
            }
            let stall = if self.stall_at == Some(t) { 25 * MS } else { Duration::ZERO };
            self.clock.advance(self.read_takes + stall);
            if self.errors.iter().any(|(from, to)| (*from..*to).contains(&t)) {
                return Err(BoardError::Io("I²C: no answer from 0x20".into()));
            }
            Ok(Script::at(&self.frames, t))
        }
        fn faulty(&self) -> Bitboard {
            Script::at(&self.faulty, self.now_ms().saturating_sub(self.read_takes.as_millis() as u64))
        }
    }

    fn run(
        script: Script,
        clock: ManualClock,
        stop: CancellationToken,
        initial: Option<Bitboard>,
    ) -> Vec<(u64, Sense)> {
        run_with(script, clock, stop, initial, ScanConfig::default())
    }

    fn run_with(
        script: Script,
        clock: ManualClock,
        stop: CancellationToken,
        initial: Option<Bitboard>,
        config: ScanConfig,
    ) -> Vec<(u64, Sense)> {
        let start = script.start;
        let mut scanner = Scanner::new(script, config).unwrap().with_clock(clock);
        if let Some(b) = initial {
            scanner = scanner.assuming(b);
        }
        let (tx, rx) = mpsc::sync_channel(4096);
        Box::new(scanner).run(tx, stop).unwrap();
        rx.try_iter().map(|s| (crate::ms_since(start, s.at), s.what)).collect()
    }

    fn bb(squares: &[Square]) -> Bitboard {
        squares.iter().copied().collect()
    }

    fn edge(sq: Square, on: bool) -> Sense {
        Sense::Edge { sq, on, piece: None }
    }

    #[test]
    fn reads_at_every_tick_without_drift_and_skips_missed_ticks() {
        let (mut script, clock, stop) = Script::new(vec![], 100);
        script.read_takes = 3 * MS; // a slow I²C frame: the period stays 10 ms
        script.stall_at = Some(40); // one read stalls 25 ms
        let reads = script.reads.clone();
        run(script, clock, stop, Some(Bitboard::EMPTY));
        assert_eq!(*reads.lock().unwrap(), vec![0, 10, 20, 30, 40, 78, 88, 98, 108]);
    }

    #[test]
    fn one_second_at_100_hz_is_100_reads() {
        let (script, clock, stop) = Script::new(vec![], 990);
        let reads = script.reads.clone();
        run(script, clock, stop, Some(Bitboard::EMPTY));
        assert_eq!(reads.lock().unwrap().len(), 100);
    }

    #[test]
    fn first_frame_reports_every_square_unless_an_occupancy_is_assumed() {
        let start = Bitboard::from_rank(shakmaty::Rank::First) | Bitboard::from_rank(shakmaty::Rank::Second);
        let (script, clock, stop) = Script::new(vec![(0, start)], 20);
        let got = run(script, clock, stop, None);
        assert_eq!(got.len(), 64);
        assert!(got.iter().all(|(t, _)| *t == 0));
        assert!(got.contains(&(0, edge(Square::E2, true))));
        assert!(got.contains(&(0, edge(Square::E4, false))));
        let (script, clock, stop) = Script::new(vec![(0, start), (15, start.without(Square::E2))], 30);
        let got = run(script, clock, stop, Some(start));
        assert_eq!(got, vec![(20, edge(Square::E2, false))], "edges stamped with the tick that saw them");
    }

    #[test]
    fn a_move_and_bounces_pass_as_raw_edges() {
        let b0 = bb(&[Square::E2]);
        let lifted = Bitboard::EMPTY;
        let placed = bb(&[Square::E4]);
        let frames = vec![(0, b0), (100, lifted), (300, placed), (310, lifted), (320, placed)];
        let (script, clock, stop) = Script::new(frames, 1000);
        let got = run(script, clock, stop, Some(b0));
        assert_eq!(
            got,
            vec![
                (100, edge(Square::E2, false)),
                (300, edge(Square::E4, true)),
                (310, edge(Square::E4, false)),
                (320, edge(Square::E4, true)),
            ]
        );
    }

    /// d5 is occupied, then flickers every 20 ms from t = 1000 to 1600, and
    /// settles empty at 1600 (the piece was taken away).
    fn flicker() -> Vec<(u64, Bitboard)> {
        let d5 = bb(&[Square::D5]);
        let mut frames = vec![(0, d5)];
        for k in 0..30 {
            frames.push((1000 + 20 * k, if k % 2 == 0 { Bitboard::EMPTY } else { d5 }));
        }
        frames.push((1600, Bitboard::EMPTY));
        frames
    }

    #[test]
    fn a_chattering_sensor_is_masked_then_recovers_at_its_current_reading() {
        let (script, clock, stop) = Script::new(flicker(), 4000);
        let got = run(script, clock, stop, Some(bb(&[Square::D5])));
        let edges: Vec<_> = got.iter().filter(|(_, s)| matches!(s, Sense::Edge { .. })).collect();
        let faults: Vec<_> = got.iter().filter(|(_, s)| matches!(s, Sense::Fault(_))).collect();
        // 16 edges pass (1000 … 1300), the 17th masks the square.
        assert_eq!(edges.len(), 16 + 1, "{got:?}");
        assert_eq!(edges[0], &(1000, edge(Square::D5, false)));
        assert_eq!(edges[15], &(1300, edge(Square::D5, true)));
        assert_eq!(faults[0], &(1320, Sense::Fault(Fault::Chatter { sq: Square::D5, edges_per_s: 17 })));
        // Quiet from 1600: recovered 2 s later, at the reading it has now.
        assert_eq!(faults[1], &(3600, Sense::Fault(Fault::Recovered { sq: Square::D5 })));
        assert_eq!(edges[16], &(3600, edge(Square::D5, false)));
        assert_eq!(faults.len(), 2);
    }

    #[test]
    fn a_chattering_sensor_is_masked_at_its_last_steady_reading() {
        let (script, clock, stop) = Script::new(flicker(), 2000);
        let config = ScanConfig { chatter_edges: 5, ..ScanConfig::default() };
        let got = run_with(script, clock, stop, Some(bb(&[Square::D5])), config);
        // Five edges pass, the last one "empty"; the sixth masks d5 and an edge
        // puts it back to occupied, the reading it held before the flicker.
        let t: Vec<_> = got.iter().map(|(t, _)| *t).collect();
        assert_eq!(t, vec![1000, 1020, 1040, 1060, 1080, 1100, 1100], "{got:?}");
        assert_eq!(got[4].1, edge(Square::D5, false));
        assert_eq!(got[5].1, Sense::Fault(Fault::Chatter { sq: Square::D5, edges_per_s: 6 }));
        assert_eq!(got[6].1, edge(Square::D5, true));
    }

    #[test]
    fn a_grounded_column_is_masked_reported_stuck_and_recovers() {
        let start = Bitboard::from_rank(shakmaty::Rank::First);
        let file_c = Bitboard::from_file(shakmaty::File::C);
        let (mut script, clock, stop) = Script::new(vec![(0, start), (1000, start | file_c), (2000, start)], 5000);
        script.faulty = vec![(1000, file_c), (2000, Bitboard::EMPTY)];
        let got = run(script, clock, stop, Some(start));
        let stuck: Vec<_> = got.iter().filter(|(_, s)| matches!(s, Sense::Fault(Fault::Stuck { .. }))).collect();
        assert_eq!(stuck.len(), 8, "{got:?}");
        assert!(stuck.contains(&&(1500, Sense::Fault(Fault::Stuck { sq: Square::C5, reading: true, since_ms: 500 }))));
        assert!(!got.iter().any(|(_, s)| matches!(s, Sense::Edge { .. })), "no edge from a faulty column: {got:?}");
        let recovered = got.iter().filter(|(t, s)| *t == 4000 && matches!(s, Sense::Fault(Fault::Recovered { .. })));
        assert_eq!(recovered.count(), 8);
    }

    #[test]
    fn a_short_wiring_blip_is_not_reported() {
        let file_c = Bitboard::from_file(shakmaty::File::C);
        let (mut script, clock, stop) =
            Script::new(vec![(0, Bitboard::EMPTY), (100, file_c), (200, Bitboard::EMPTY)], 600);
        script.faulty = vec![(100, file_c), (200, Bitboard::EMPTY)];
        assert_eq!(run(script, clock, stop, Some(Bitboard::EMPTY)), vec![]);
    }

    #[test]
    fn io_errors_are_reported_once_retried_slowly_and_recovered() {
        let e4 = bb(&[Square::E4]);
        let (mut script, clock, stop) = Script::new(vec![(0, Bitboard::EMPTY), (1200, e4)], 2000);
        script.errors = vec![(100, 1100)];
        let reads = script.reads.clone();
        let got = run(script, clock, stop, Some(Bitboard::EMPTY));
        assert_eq!(
            got,
            vec![
                (100, Sense::Fault(Fault::Io("I²C: no answer from 0x20".into()))),
                (1100, Sense::Fault(Fault::IoRecovered)),
                (1200, edge(Square::E4, true)),
            ]
        );
        let reads = reads.lock().unwrap();
        let during: Vec<_> = reads.iter().filter(|t| (100..1100).contains(*t)).collect();
        assert_eq!(during, vec![&100, &600], "retries every 500 ms while failing");
    }

    #[test]
    fn bad_rates_are_config_errors() {
        let (script, _, _) = Script::new(vec![], 0);
        let config = ScanConfig { rate_hz: 0, ..ScanConfig::default() };
        let e = Scanner::new(script, config).err().unwrap().to_string();
        assert!(e.contains("scan rate 0 Hz"), "{e}");
    }
}
