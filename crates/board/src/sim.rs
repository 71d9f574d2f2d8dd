//! The simulated board: a trace file played at a speed factor, or lifts,
//! places and presses typed at a terminal. A first-class backend — how
//! newcomers try tactus without hardware and how tests drive the daemon.
//!
//! # Playing a trace
//!
//! Every line after the header — edges, presses, inputs, the end — is sent at
//! `start + t / speed`, stamped with exactly that instant (not the instant
//! the thread woke up), so [`Timebase::ms`] gives back the trace's `t`
//! exactly. An infinite speed plays as fast as the receiver takes it, stamped
//! at `start + t` (unscaled). After the `end` line, or the last line of a
//! trace without one, [`Sense::End`] is sent and `run` returns.
//!
//! # Typing
//!
//! One command a line, stamped when it is read; one not understood is
//! answered on the feedback stream and sent as [`Sense::NotUnderstood`]:
//!
//! ```text
//! e2-          lift from e2          e2+          place on e2
//! e2 e4        a move: lift e2, place e4 (also e2e4, e2-e4)
//! e4xd5        a capture: lift e4, lift d5, place d5
//! e1- g1+ h1- f1+   any lifts and places, in order
//! w, b         press White's / Black's clock (also white, black)
//! promote n    the promotion selector (q, r, b, n)
//! request time       (or position, last_move)
//! pause, resume
//! clock off, clock on    no clock to press (unplugged), and plugged in again
//! claim black illegal   (threefold, fifty)
//! result 1-0 resignation   (0-1, 1/2-1/2; agreement, arbiter)
//! end          stop (so does the end of input)
//! help
//! ```
//!
//! The edges of one line are spaced by a gap (200 ms), slept in real time, so
//! the core sees a hand's rhythm: a captured piece's lift is not mistaken for
//! contact bounce.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use shakmaty::{Color, Role, Square};
use tactus_trace::{
    Entry, GameResult, Header, Input, Ms, OffBoardReason, Record, Request, TraceError, TraceReader, UnknownWord,
};
use tokio_util::sync::CancellationToken;

use crate::{Board, BoardError, Sense, Sensed, SystemClock, TimeSource};

/// Maps trace time to instants and back: `at = start + played(t) / speed`,
/// where `played` is trace time less what the [`Warp`] skips.
#[derive(Debug, Clone, PartialEq)]
pub struct Timebase {
    pub start: Instant,
    /// The speed factor; infinite: as fast as possible, unscaled stamps.
    pub speed: f64,
    pub warp: Warp,
}

impl Timebase {
    fn factor(&self) -> f64 {
        if self.speed.is_finite() { self.speed } else { 1.0 }
    }

    /// The instant at which trace time `t` is played.
    pub fn at(&self, t: Ms) -> Instant {
        self.start + Duration::from_nanos((self.warp.played(t) as f64 * 1e6 / self.factor()).round() as u64)
    }

    /// The trace time of `at`, to the nearest millisecond: exactly `t` for an
    /// instant from [`Timebase::at`].
    pub fn ms(&self, at: Instant) -> Ms {
        let ns = at.saturating_duration_since(self.start).as_nanos() as f64;
        self.warp.recorded((ns * self.factor() / 1e6).round() as Ms)
    }
}

/// Long quiets in a recording, shortened: where trace time jumps ahead
/// while the board plays on. A recorded think of a minute played back as
/// a few seconds — the game's clocks still charged the whole minute, at
/// the move — so a newcomer watching `tactus demo` does not think it hung.
/// Empty (the default): the recording plays as it was recorded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Warp {
    /// `(from, to)` in trace time, in order: trace time reaches `from` and
    /// goes on from `to` at once.
    jumps: Arc<[(Ms, Ms)]>,
}

impl Warp {
    /// Every quiet between `entries`, and before the first after `from`,
    /// longer than `longest` is shortened to `longest`: trace time jumps to
    /// the entry that ends it.
    pub fn shortening(entries: &[Entry], from: Ms, longest: Ms) -> Warp {
        let mut last = from;
        let mut jumps = Vec::new();
        for e in entries.iter().filter(|e| e.t >= from) {
            if e.t - last > longest {
                jumps.push((last + longest, e.t));
            }
            last = last.max(e.t);
        }
        Warp { jumps: jumps.into() }
    }

    /// Where trace time jumps: `(from, to)`, in order.
    pub fn jumps(&self) -> &[(Ms, Ms)] {
        &self.jumps
    }

    /// The time played up to trace time `t`: `t` less what was skipped
    /// (within a jump, where it began).
    pub fn played(&self, t: Ms) -> Ms {
        let mut skipped = 0;
        for &(from, to) in self.jumps.iter() {
            if t >= to {
                skipped += to - from;
            } else {
                return t.min(from) - skipped;
            }
        }
        t - skipped
    }

    /// The trace time reached when `played` has been played: a jump is
    /// taken as soon as its `from` is reached.
    pub fn recorded(&self, played: Ms) -> Ms {
        let mut t = played;
        for &(from, to) in self.jumps.iter() {
            if t < from {
                break;
            }
            t += to - from;
        }
        t
    }
}

enum Source {
    Trace(Vec<Entry>),
    Typed { reader: Box<dyn BufRead + Send>, feedback: Box<dyn Write + Send>, gap: Duration },
}

/// The simulated board.
pub struct SimBoard {
    source: Source,
    header: Option<Header>,
    timebase: Timebase,
    clock: Box<dyn TimeSource>,
}

fn check_speed(speed: f64) -> Result<(), BoardError> {
    if speed > 0.0 {
        Ok(())
    } else {
        Err(BoardError::Config(format!(
            "simulation speed {speed}: must be above 0 (1 is real time, 20 twenty times faster, 0.5 slow motion)"
        )))
    }
}

impl SimBoard {
    /// Plays the trace file at `path`, `speed` times faster than it was
    /// recorded. The whole trace is read now: a bad line is an error here.
    pub fn from_trace(path: impl AsRef<Path>, speed: f64) -> Result<Self, BoardError> {
        let path = path.as_ref();
        check_speed(speed)?;
        let file = File::open(path).map_err(|e| {
            BoardError::Io(format!("cannot open the simulation trace {}: {e} (--sim-trace FILE)", path.display()))
        })?;
        let trace_error = |error: TraceError| BoardError::Trace { path: path.to_path_buf(), error };
        let (header, reader) = TraceReader::new(BufReader::new(file)).map_err(trace_error)?;
        let entries = reader.collect::<Result<Vec<_>, _>>().map_err(trace_error)?;
        SimBoard::from_entries(header, entries, speed)
    }

    /// Plays entries already read.
    pub fn from_entries(header: Header, entries: Vec<Entry>, speed: f64) -> Result<Self, BoardError> {
        check_speed(speed)?;
        Ok(SimBoard {
            source: Source::Trace(entries),
            header: Some(header),
            timebase: Timebase { start: Instant::now(), speed, warp: Warp::default() },
            clock: Box::new(SystemClock),
        })
    }

    /// Takes commands typed at a terminal (or piped in), one a line; mistakes
    /// and `help` are answered on standard error.
    pub fn from_reader(reader: impl BufRead + Send + 'static) -> Self {
        SimBoard {
            source: Source::Typed {
                reader: Box::new(reader),
                feedback: Box::new(std::io::stderr()),
                gap: Duration::from_millis(200),
            },
            header: None,
            timebase: Timebase { start: Instant::now(), speed: 1.0, warp: Warp::default() },
            clock: Box::new(SystemClock),
        }
    }

    /// Where typed input's mistakes and help go.
    pub fn with_feedback(mut self, out: impl Write + Send + 'static) -> Self {
        if let Source::Typed { feedback, .. } = &mut self.source {
            *feedback = Box::new(out);
        }
        self
    }

    /// The time between the edges of one typed line (default 200 ms).
    pub fn with_gap(mut self, new: Duration) -> Self {
        if let Source::Typed { gap, .. } = &mut self.source {
            *gap = new;
        }
        self
    }

    /// Trace time 0 is played at `start` (default: when the board was made).
    pub fn with_start(mut self, start: Instant) -> Self {
        self.timebase.start = start;
        self
    }

    /// Plays the recording with its long quiets shortened.
    pub fn with_warp(mut self, warp: Warp) -> Self {
        self.timebase.warp = warp;
        self
    }

    /// Reads time from `clock`, and starts at its present time.
    pub fn with_clock(mut self, clock: impl TimeSource + 'static) -> Self {
        self.timebase.start = clock.now();
        self.clock = Box::new(clock);
        self
    }

    /// The trace's header (start position, time control, players); `None` for
    /// typed input.
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    pub fn timebase(&self) -> Timebase {
        self.timebase.clone()
    }
}

/// Sleeps until `at` in slices, so that `stop` is seen within 50 ms. False if stopped.
fn wait(clock: &mut dyn TimeSource, at: Instant, stop: &CancellationToken) -> bool {
    loop {
        if stop.is_cancelled() {
            return false;
        }
        let now = clock.now();
        if now >= at {
            return true;
        }
        clock.sleep_until(at.min(now + Duration::from_millis(50)));
    }
}

impl Board for SimBoard {
    fn name(&self) -> &str {
        "sim"
    }

    fn run(self: Box<Self>, tx: SyncSender<Sensed>, stop: CancellationToken) -> Result<(), BoardError> {
        let SimBoard { source, timebase, mut clock, .. } = *self;
        match source {
            Source::Trace(entries) => play(entries, timebase, &mut *clock, &tx, &stop),
            Source::Typed { reader, feedback, gap } => typed(reader, feedback, gap, timebase, &mut *clock, &tx, &stop),
        }
    }
}

fn play(
    entries: Vec<Entry>,
    tb: Timebase,
    clock: &mut dyn TimeSource,
    tx: &SyncSender<Sensed>,
    stop: &CancellationToken,
) -> Result<(), BoardError> {
    let mut last = tb.start;
    for e in entries {
        let at = tb.at(e.t);
        if at > last && tx.send(Sensed { at: last, what: Sense::Quiet { next: at } }).is_err() {
            return Ok(());
        }
        if tb.speed.is_finite() {
            if !wait(clock, at, stop) {
                return Ok(());
            }
        } else if stop.is_cancelled() {
            return Ok(());
        }
        let what = match e.record {
            Record::Edge { sq, on, piece } => Sense::Edge { sq, on, piece },
            Record::Clock(side) => Sense::Clock(side),
            Record::Input(input) => Sense::Input(input),
            // A journal played as a trace: where its game's timers had run
            // is no sensing; the daemon's own timers run. Its pairing came
            // from the hall, not the board: the hall sends one again.
            Record::Timers | Record::Pairing(_) => continue,
            Record::End => Sense::End,
        };
        let end = what == Sense::End;
        if tx.send(Sensed { at, what }).is_err() || end {
            return Ok(());
        }
        last = at;
    }
    let _ = tx.send(Sensed { at: last, what: Sense::End });
    Ok(())
}

enum Typed {
    Senses(Vec<Sense>),
    Help,
}

const HELP: &str = "\
e2-  lift from e2    e2+  place on e2    e2 e4  a move    e4xd5  a capture    e1- g1+ h1- f1+  in order
w, b  press a clock    promote q|r|b|n    board  the position    pause    resume    clock off|on
request time | board | last | control | hint | pieces white|black [k|q|r|b|n|p] | rank 4 | file e | square d5
level 0-10  the engine's level    hint  the engine's suggestion
draw white|black  offer or accept a draw    online abort|draw_no|takeback_no|takeback_yes|accept|decline|claim_victory    claim white|black illegal|threefold|fifty    result 1-0|0-1|1/2-1/2 [resignation|agreement|arbiter]    end";

fn square(word: &str) -> Option<Square> {
    Square::from_ascii(word.as_bytes()).ok()
}

/// A typed line that is not a command (`help` lists them): what was wrong
/// with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum Untyped {
    #[error("a side is white or black, not {0:?}")]
    Side(String),
    #[error("a piece is k, q, r, b, n or p, not {0:?}")]
    Piece(String),
    #[error("request pieces white|black [k|q|r|b|n|p]")]
    Pieces,
    #[error("a rank is 1 … 8, not {0:?}")]
    Rank(String),
    #[error("a file is a … h, not {0:?}")]
    File(String),
    #[error("{0:?} is not a square (a1 … h8)")]
    Square(String),
    #[error("request time | board | last | control | hint | pieces white|black [piece] | rank 4 | file e | square d5")]
    Request,
    #[error("a pawn promotes to q, r, b or n, not {0:?}")]
    Promotion(String),
    #[error("the engine's level is 0 … 10, not {0:?}")]
    Level(String),
    #[error(transparent)]
    Word(#[from] UnknownWord),
    #[error("the reason is resignation, agreement or arbiter")]
    Reason,
    #[error("{0:?}: a move is two squares, like e2e4, e2-e4 or e4xd5")]
    Move(String),
    #[error("{0:?}: not understood; type help")]
    Unknown(String),
}

fn side(word: Option<&str>) -> Result<Color, Untyped> {
    match word {
        Some("w" | "white") => Ok(Color::White),
        Some("b" | "black") => Ok(Color::Black),
        other => Err(Untyped::Side(other.unwrap_or("").to_owned())),
    }
}

/// A question typed after `request` (docs/user-guide.md, "Buttons, typed commands and questions").
fn typed_request(words: &[&str]) -> Result<Request, Untyped> {
    Ok(match words {
        [] | ["time"] => Request::Time,
        ["board" | "position"] => Request::Position,
        ["last" | "move" | "last_move"] => Request::LastMove,
        ["control" | "moves_to_control"] => Request::MovesToControl,
        ["hint"] => Request::Hint,
        ["pieces", who, rest @ ..] => {
            let role = match rest {
                [] => None,
                [piece] => match Role::from_char(piece.chars().next().unwrap_or(' ')) {
                    Some(role) if piece.len() == 1 => Some(role),
                    _ => return Err(Untyped::Piece((*piece).to_owned())),
                },
                _ => return Err(Untyped::Pieces),
            };
            Request::Pieces { side: side(Some(who))?, role }
        }
        ["rank", n] => match n.parse::<u32>() {
            Ok(n @ 1..=8) => Request::Rank(shakmaty::Rank::new(n - 1)),
            _ => return Err(Untyped::Rank((*n).to_owned())),
        },
        ["file", f] => match f.as_bytes() {
            [c @ b'a'..=b'h'] => Request::File(shakmaty::File::new(u32::from(c - b'a'))),
            _ => return Err(Untyped::File((*f).to_owned())),
        },
        ["square", sq] => Request::Square(square(sq).ok_or_else(|| Untyped::Square((*sq).to_owned()))?),
        _ => return Err(Untyped::Request),
    })
}

fn parse_typed(line: &str) -> Result<Typed, Untyped> {
    let line = line.split('#').next().unwrap_or("").trim().to_ascii_lowercase();
    let words: Vec<&str> = line.split_whitespace().collect();
    let input = |i: Input| Ok(Typed::Senses(vec![Sense::Input(i)]));
    let lift = |sq| Sense::Edge { sq, on: false, piece: None };
    let place = |sq| Sense::Edge { sq, on: true, piece: None };
    match words.as_slice() {
        [] => Ok(Typed::Senses(vec![])),
        ["help" | "?"] => Ok(Typed::Help),
        ["end" | "quit" | "exit"] => Ok(Typed::Senses(vec![Sense::End])),
        [w @ ("w" | "white" | "b" | "black")] => Ok(Typed::Senses(vec![Sense::Clock(side(Some(w))?)])),
        ["promote", piece] => match Role::from_char(piece.chars().next().unwrap_or(' ')) {
            Some(role @ (Role::Queen | Role::Rook | Role::Bishop | Role::Knight)) if piece.len() == 1 => {
                input(Input::Promote(role))
            }
            _ => Err(Untyped::Promotion((*piece).to_owned())),
        },
        ["request", rest @ ..] => input(Input::Request(typed_request(rest)?)),
        // The position, read out (and drawn, on a terminal).
        ["board"] => input(Input::Request(Request::Position)),
        ["pause"] => input(Input::Pause),
        ["hint"] => input(Input::Request(Request::Hint)),
        ["level", n] => match n.parse::<u8>() {
            Ok(level @ 0..=10) => input(Input::EngineLevel(level)),
            _ => Err(Untyped::Level((*n).to_owned())),
        },
        ["resume"] => input(Input::Resume),
        ["clock", "off"] => input(Input::ClockConnected(false)),
        ["clock", "on"] => input(Input::ClockConnected(true)),
        ["claim", who, what] => input(Input::Claim { side: side(Some(who))?, claim: what.parse()? }),
        ["draw", who] => input(Input::DrawOffer { side: side(Some(who))? }),
        ["online", ask] => input(Input::Online(ask.parse()?)),
        ["result", result, reason @ ..] => {
            let result = match *result {
                "draw" => GameResult::Draw,
                other => other.parse()?,
            };
            let reason = match reason {
                [] => OffBoardReason::Arbiter,
                ["resigns"] => OffBoardReason::Resignation,
                [why] => why.parse()?,
                _ => return Err(Untyped::Reason),
            };
            input(Input::Result { result, reason })
        }
        [from, to] if square(from).is_some() && square(to).is_some() => {
            Ok(Typed::Senses(vec![lift(square(from).unwrap_or(Square::A1)), place(square(to).unwrap_or(Square::A1))]))
        }
        [one] if one.len() == 4 || (one.len() == 5 && matches!(one.as_bytes()[2], b'-' | b'x')) => {
            let (from, to) = (&one[..2], &one[one.len() - 2..]);
            let (Some(from), Some(to)) = (square(from), square(to)) else {
                return Err(Untyped::Move((*one).to_owned()));
            };
            if one.as_bytes()[2] == b'x' {
                Ok(Typed::Senses(vec![lift(from), lift(to), place(to)]))
            } else {
                Ok(Typed::Senses(vec![lift(from), place(to)]))
            }
        }
        words => {
            let mut senses = Vec::with_capacity(words.len());
            for w in words {
                let (sq, on) = match (w.strip_suffix('-'), w.strip_suffix('+')) {
                    (Some(sq), _) => (sq, false),
                    (_, Some(sq)) => (sq, true),
                    _ => return Err(Untyped::Unknown((*w).to_owned())),
                };
                let Some(sq) = square(sq) else {
                    return Err(Untyped::Square(sq.to_owned()));
                };
                senses.push(Sense::Edge { sq, on, piece: None });
            }
            Ok(Typed::Senses(senses))
        }
    }
}

fn typed(
    reader: Box<dyn BufRead + Send>,
    mut feedback: Box<dyn Write + Send>,
    gap: Duration,
    tb: Timebase,
    clock: &mut dyn TimeSource,
    tx: &SyncSender<Sensed>,
    stop: &CancellationToken,
) -> Result<(), BoardError> {
    // A blocking read cannot watch `stop`: lines come from a thread of their
    // own (left blocked on the terminal if the board is stopped first).
    let (lines_tx, lines) = mpsc::sync_channel(64);
    std::thread::Builder::new()
        .name("sim-typed-input".into())
        .spawn(move || {
            for line in reader.lines() {
                let failed = line.is_err();
                if lines_tx.send(line).is_err() || failed {
                    break;
                }
            }
        })
        .map_err(|e| BoardError::Io(format!("cannot start the typed-input thread: {e}")))?;
    let mut last = tb.start;
    while !stop.is_cancelled() {
        let line = match lines.recv_timeout(Duration::from_millis(50)) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => return Err(BoardError::Io(format!("typed input: {e}"))),
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => {
                let _ = tx.send(Sensed { at: clock.now().max(last), what: Sense::End });
                return Ok(());
            }
        };
        let senses = match parse_typed(&line) {
            Ok(Typed::Senses(senses)) => senses,
            Ok(Typed::Help) => {
                let _ = writeln!(feedback, "{HELP}");
                continue;
            }
            Err(e) => {
                let _ = writeln!(feedback, "? {e}");
                let typed = Sense::NotUnderstood(line.trim().to_owned());
                if tx.send(Sensed { at: clock.now().max(last), what: typed }).is_err() {
                    return Ok(());
                }
                continue;
            }
        };
        let mut at = clock.now().max(last);
        for (i, what) in senses.into_iter().enumerate() {
            if i > 0 {
                at += gap;
                if !wait(clock, at, stop) {
                    return Ok(());
                }
            }
            let end = what == Sense::End;
            if tx.send(Sensed { at, what }).is_err() || end {
                return Ok(());
            }
        }
        last = at;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;
    use std::sync::Mutex;

    use super::*;
    use crate::ManualClock;
    use tactus_trace::Claim;

    const TRACE: &str = r#"{"tactus_trace": 1, "time_control": "180+2", "white": "A", "black": "B"}
{"t": 0, "sq": "e2", "on": false}
{"t": 3, "sq": "e2", "on": true}
{"t": 5, "sq": "e2", "on": false}
{"t": 1034, "sq": "e4", "on": true}
{"t": 2050, "input": "promote", "piece": "n"}
{"t": 2100, "clock": "white"}
{"t": 3600000, "end": true}
{"t": 3600001, "sq": "e4", "on": false}
"#;

    /// Everything a trace's board sends, its promises of quiet included.
    fn play_all(text: &str, speed: f64) -> (Timebase, Vec<Sensed>) {
        let (header, entries) = tactus_trace::read_str(text).unwrap();
        let clock = ManualClock::new(Instant::now());
        let board = SimBoard::from_entries(header, entries, speed).unwrap().with_clock(clock);
        let tb = board.timebase();
        let (tx, rx) = mpsc::sync_channel(4096);
        Box::new(board).run(tx, CancellationToken::new()).unwrap();
        (tb, rx.try_iter().collect())
    }

    /// What a trace's board senses.
    fn play_trace(text: &str, speed: f64) -> (Timebase, Vec<Sensed>) {
        let (tb, all) = play_all(text, speed);
        (tb, all.into_iter().filter(|s| !matches!(s.what, Sense::Quiet { .. })).collect())
    }

    #[test]
    fn a_trace_promises_quiet_until_each_next_line() {
        for speed in [1.0, 1000.0, f64::INFINITY] {
            let (tb, all) = play_all(TRACE, speed);
            let mut promised = None;
            for s in &all {
                match s.what {
                    Sense::Quiet { next } => promised = Some(next),
                    _ => {
                        // Every line after the first instant was promised,
                        // to the instant it is sensed at.
                        if s.at > tb.start {
                            assert_eq!(promised, Some(s.at), "speed {speed}: {:?}", s.what);
                        }
                    }
                }
            }
            let quiets = all.iter().filter(|s| matches!(s.what, Sense::Quiet { .. })).count();
            assert_eq!(quiets, 6, "one for each line at a later instant than the one before (speed {speed})");
        }
    }

    #[test]
    fn a_trace_plays_every_line_at_its_time_over_the_speed() {
        for speed in [1.0, 2.0, 3.0, 7.5, 20.0, 0.5, f64::INFINITY] {
            let (tb, got) = play_trace(TRACE, speed);
            let ts: Vec<Ms> = got.iter().map(|s| tb.ms(s.at)).collect();
            assert_eq!(ts, vec![0, 3, 5, 1034, 2050, 2100, 3600000], "speed {speed}");
            let what: Vec<_> = got.iter().map(|s| s.what.clone()).collect();
            assert_eq!(what[3], Sense::Edge { sq: Square::E4, on: true, piece: None });
            assert_eq!(what[4], Sense::Input(Input::Promote(Role::Knight)));
            assert_eq!(what[5], Sense::Clock(Color::White));
            assert_eq!(what[6], Sense::End, "nothing after the end line");
        }
        let (tb, got) = play_trace(TRACE, 4.0);
        assert_eq!(got[3].at - tb.start, Duration::from_micros(258_500), "1034 ms at speed 4");
    }

    #[test]
    fn a_trace_from_a_board_that_knows_its_pieces_plays_them() {
        let trace =
            "{\"tactus_trace\": 2, \"board\": \"dgt\"}\n{\"t\": 5, \"sq\": \"e4\", \"on\": true, \"piece\": \"P\"}\n";
        let (_, got) = play_trace(trace, f64::INFINITY);
        let pawn = Some(Role::Pawn.of(Color::White));
        assert_eq!(got[0].what, Sense::Edge { sq: Square::E4, on: true, piece: pawn });
    }

    #[test]
    fn timebase_round_trips_every_millisecond() {
        let start = Instant::now();
        for speed in [1.0, 3.0, 7.0, 13.7, 1000.0, 0.3] {
            let tb = Timebase { start, speed, warp: Warp::default() };
            for t in (0..5000).chain([3_600_000, 86_400_000]) {
                assert_eq!(tb.ms(tb.at(t)), t, "t {t} speed {speed}");
            }
        }
    }

    #[test]
    fn a_warp_skips_long_quiets_and_keeps_every_entrys_time() {
        let e = |t| Entry { t, record: Record::Clock(Color::White) };
        let entries = [e(16_000), e(17_000), e(77_000), e(78_000)];
        let warp = Warp::shortening(&entries, 0, 2000);
        assert_eq!(warp.jumps(), [(2000, 16_000), (19_000, 77_000)]);
        // Played: 2 s to the first entry, 1 s, 2 s, 1 s.
        let played: Vec<Ms> = entries.iter().map(|e| warp.played(e.t)).collect();
        assert_eq!(played, [2000, 3000, 5000, 6000]);
        // Within a quiet it stands where the jump is taken.
        assert_eq!((warp.played(1000), warp.played(10_000), warp.played(18_500)), (1000, 2000, 4500));
        assert_eq!((warp.recorded(1999), warp.recorded(2000), warp.recorded(5000)), (1999, 16_000, 77_000));
        let start = Instant::now();
        for speed in [1.0, 3.0, 13.7] {
            let tb = Timebase { start, speed, warp: warp.clone() };
            for t in entries.iter().map(|e| e.t).chain(0..2000).chain(16_000..19_000) {
                assert_eq!(tb.ms(tb.at(t)), t, "t {t} speed {speed}");
            }
        }
        // From a later start (a recovered game) the quiet before counts from there.
        assert_eq!(Warp::shortening(&entries, 76_000, 2000).jumps(), []);
    }

    #[test]
    fn a_trace_without_an_end_line_still_ends() {
        let (tb, got) = play_trace("{\"tactus_trace\": 1}\n{\"t\": 40, \"clock\": \"black\"}\n", 1.0);
        assert_eq!(got.len(), 2);
        assert_eq!((tb.ms(got[1].at), &got[1].what), (40, &Sense::End));
    }

    /// A stop signal already given.
    fn stopped() -> CancellationToken {
        let stop = CancellationToken::new();
        stop.cancel();
        stop
    }

    #[test]
    fn stop_ends_a_trace_early() {
        let (header, entries) = tactus_trace::read_str(TRACE).unwrap();
        let board = SimBoard::from_entries(header, entries, 1.0).unwrap().with_clock(ManualClock::new(Instant::now()));
        let (tx, rx) = mpsc::sync_channel(4096);
        Box::new(board).run(tx, stopped()).unwrap();
        assert_eq!(rx.try_iter().count(), 0);
    }

    #[test]
    fn trace_files_errors_name_the_file_and_line() {
        let dir = std::env::temp_dir().join(format!("tactus-board-sim-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.jsonl");
        std::fs::write(&good, TRACE).unwrap();
        let board = SimBoard::from_trace(&good, 10.0).unwrap();
        assert_eq!(board.header().unwrap().time_control.as_deref(), Some("180+2"));
        let bad = dir.join("bad.jsonl");
        std::fs::write(&bad, "{\"tactus_trace\": 1}\n{\"t\": 5, \"sq\": \"e9\", \"on\": true}\n").unwrap();
        let e = SimBoard::from_trace(&bad, 1.0).err().unwrap().to_string();
        assert!(e.starts_with(&format!("{}: line 2: ", bad.display())), "{e}");
        let e = SimBoard::from_trace(dir.join("missing.jsonl"), 1.0).err().unwrap().to_string();
        assert!(e.contains("cannot open the simulation trace"), "{e}");
        let e = SimBoard::from_trace(&good, 0.0).err().unwrap().to_string();
        assert!(e.contains("speed 0: must be above 0"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn type_in(text: &'static str) -> (Vec<(u64, Sense)>, String) {
        let start = Instant::now();
        let out = Shared::default();
        let board =
            SimBoard::from_reader(Cursor::new(text)).with_feedback(out.clone()).with_clock(ManualClock::new(start));
        let (tx, rx) = mpsc::sync_channel(4096);
        Box::new(board).run(tx, CancellationToken::new()).unwrap();
        let got = rx.try_iter().map(|s| (crate::ms_since(start, s.at), s.what)).collect();
        let feedback = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        (got, feedback)
    }

    #[test]
    fn every_question_can_be_typed() {
        let asked = |line: &str| match parse_typed(line) {
            Ok(Typed::Senses(s)) => match s.as_slice() {
                [Sense::Input(Input::Request(r))] => Ok(*r),
                other => panic!("{line}: {other:?}"),
            },
            Ok(Typed::Help) => panic!("{line}: help"),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(asked("request"), Ok(Request::Time));
        assert_eq!(asked("request board"), Ok(Request::Position));
        assert_eq!(asked("request last"), Ok(Request::LastMove));
        assert_eq!(asked("request control"), Ok(Request::MovesToControl));
        assert_eq!(asked("request pieces black"), Ok(Request::Pieces { side: Color::Black, role: None }));
        assert_eq!(
            asked("request pieces white N"),
            Ok(Request::Pieces { side: Color::White, role: Some(Role::Knight) })
        );
        assert_eq!(asked("request rank 4"), Ok(Request::Rank(shakmaty::Rank::Fourth)));
        assert_eq!(asked("request file e"), Ok(Request::File(shakmaty::File::E)));
        assert_eq!(asked("request square D5"), Ok(Request::Square(Square::D5)));
        assert_eq!(asked("request rank 9"), Err("a rank is 1 … 8, not \"9\"".into()));
        assert_eq!(asked("request pieces white x"), Err("a piece is k, q, r, b, n or p, not \"x\"".into()));
        assert!(asked("request weather").unwrap_err().starts_with("request time | board"));
    }

    #[test]
    fn draw_offers_a_draw_for_a_side() {
        let want = vec![Sense::Input(Input::DrawOffer { side: Color::Black })];
        assert!(matches!(parse_typed("draw black"), Ok(Typed::Senses(s)) if s == want));
        assert!(matches!(parse_typed("draw grey"), Err(e) if e.to_string().contains("white or black")));
    }

    #[test]
    fn board_asks_for_the_position() {
        let want = vec![Sense::Input(Input::Request(Request::Position))];
        assert!(matches!(parse_typed("board"), Ok(Typed::Senses(s)) if s == want));
    }

    #[test]
    fn typed_commands_become_senses_with_a_hands_rhythm() {
        let (got, feedback) = type_in(
            "e2 e4\nw\n# a comment\n\ne7-\ne7+\nd7d5\ne4xd5\nB\ne1- g1+ h1- f1+\npromote n\nrequest time\n\
             claim black threefold\nresult 1/2-1/2 agreement\npause\nresume\nend\ne2-\n",
        );
        let edge = |sq, on| Sense::Edge { sq, on, piece: None };
        let expected = vec![
            (0, edge(Square::E2, false)),
            (200, edge(Square::E4, true)),
            (200, Sense::Clock(Color::White)),
            (200, edge(Square::E7, false)),
            (200, edge(Square::E7, true)),
            (200, edge(Square::D7, false)),
            (400, edge(Square::D5, true)),
            (400, edge(Square::E4, false)),
            (600, edge(Square::D5, false)),
            (800, edge(Square::D5, true)),
            (800, Sense::Clock(Color::Black)),
            (800, edge(Square::E1, false)),
            (1000, edge(Square::G1, true)),
            (1200, edge(Square::H1, false)),
            (1400, edge(Square::F1, true)),
            (1400, Sense::Input(Input::Promote(Role::Knight))),
            (1400, Sense::Input(Input::Request(Request::Time))),
            (1400, Sense::Input(Input::Claim { side: Color::Black, claim: Claim::Threefold })),
            (1400, Sense::Input(Input::Result { result: GameResult::Draw, reason: OffBoardReason::Agreement })),
            (1400, Sense::Input(Input::Pause)),
            (1400, Sense::Input(Input::Resume)),
            (1400, Sense::End),
        ];
        assert_eq!(got, expected);
        assert_eq!(feedback, "");
    }

    #[test]
    fn typing_mistakes_are_answered_and_skipped_and_input_end_ends() {
        let (got, feedback) = type_in("e9-\nfly\npromote k\nclaim grey fifty\nhelp\ne2-\n");
        let not_understood: Vec<&Sense> =
            got.iter().map(|(_, s)| s).filter(|s| matches!(s, Sense::NotUnderstood(_))).collect();
        assert_eq!(
            not_understood,
            ["e9-", "fly", "promote k", "claim grey fifty"]
                .map(|t| Sense::NotUnderstood(t.into()))
                .iter()
                .collect::<Vec<_>>(),
            "each mistake is sent on, to be said"
        );
        let got: Vec<_> = got.into_iter().filter(|(_, s)| !matches!(s, Sense::NotUnderstood(_))).collect();
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].1, Sense::End);
        assert!(feedback.contains("? \"e9\" is not a square"), "{feedback}");
        assert!(feedback.contains("? \"fly\": not understood; type help"), "{feedback}");
        assert!(feedback.contains("? a pawn promotes to q, r, b or n, not \"k\""), "{feedback}");
        assert!(feedback.contains("? a side is white or black, not \"grey\""), "{feedback}");
        assert!(feedback.contains("promote q|r|b|n"), "help was printed: {feedback}");
    }
}
