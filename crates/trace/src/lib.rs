//! The sensor trace format, versions 1 and 2 (`docs/trace-format.md`): the
//! raw record of one game on a sensor board; version 2 adds what a board
//! that knows its pieces (a DGT e-Board) says, which piece was put down. It
//! is the daemon's journal, the replay input, the recovery format and the
//! test fixture format, so the reader is strict — every error names its line
//! — and never panics, whatever the bytes.

use std::fmt;
use std::io::{self, BufRead, Write};

use serde::Deserialize;
use shakmaty::{Color, Piece, Role, Square};

mod error;
mod input;
mod pairing;
mod words;

pub use error::FieldError;
pub use input::{Eval, Input, PV_MAX, Request, Score};
use input::{Fields, side_of, side_str};
pub use pairing::{
    Federation, MAX_BOARD, MAX_ELO, MAX_FIDE_ID, MAX_NAME, MAX_ROUND, MAX_TOURNAMENT, NotAFederation, NotATitle,
    Pairing, PairingError, Player, Title,
};
pub use words::{
    BoardKind, Claim, GameResult, MateSearch, MateVerdict, OffBoardReason, OnlineAsk, Supervision, TableClock,
    UnknownWord, Variant, Word,
};

/// Milliseconds since the start of the trace.
pub type Ms = u64;

/// The newest format version this crate reads and writes. It reads every
/// version from 1; it writes 2 only for a board that knows its pieces
/// ([`Header::version`]), so a trace without identities stays version 1.
pub const VERSION: u32 = 2;

/// The range of every number a trace carries (`docs/trace-format.md`):
/// what a game can need, so that nothing read overflows the arithmetic
/// after it, or turns negative where events carry signed numbers. A value
/// outside is an error that names its line.
pub mod range {
    use super::Ms;
    use crate::FieldError;
    use std::ops::RangeInclusive;

    /// A number's range, and what it stands for, for the error.
    #[derive(Debug, Clone)]
    pub struct Range<T> {
        pub values: RangeInclusive<T>,
        /// The unit and why the range is what it is: `ms, what a clock shows (9:59:59)`.
        pub means: &'static str,
    }

    /// `t`: milliseconds since the start, about 31 years at most (the time
    /// controls' own limit of 10⁹ seconds).
    pub const T: Range<Ms> = Range { values: 0..=1_000_000_000_000, means: "ms since the start, about 31 years" };
    /// `set_clock`: what a chess clock can show, 9:59:59.
    pub const CLOCK_MS: Range<Ms> = Range { values: 0..=35_999_000, means: "ms, what a clock shows (9:59:59)" };
    /// `add_time`: one addition, at most an hour (FIDE's are minutes).
    pub const ADDED_MS: Range<Ms> = Range { values: 1..=3_600_000, means: "ms, one addition of at most an hour" };
    /// `increment`: a move's increment, at most an hour.
    pub const INCREMENT_MS: Range<Ms> = Range { values: 0..=3_600_000, means: "ms a move, at most an hour" };
    /// `set_moves`: completed moves of a side; the 75-move rule (9.6.2)
    /// ends any game before 9,000.
    pub const MOVES: Range<u64> = Range { values: 0..=10_000, means: "moves, more than any game has" };
    /// `ply` (`verdict`, `opponent`, `hint`): half-moves, twice the moves.
    pub const PLY: Range<u64> = Range { values: 0..=20_000, means: "half-moves, more than any game has" };
    /// `level` (`engine_level`): the engine's levels.
    pub const LEVEL: Range<u64> = Range { values: 0..=10, means: "the engine's levels" };
    /// The header's `debounce_ms`: how long a reading must hold.
    pub const DEBOUNCE_MS: Range<Ms> = Range { values: 0..=1_000, means: "ms, a second at most" };
    /// The header's `settle_ms`: how long a board holds still before its
    /// move is announced.
    pub const SETTLE_MS: Range<Ms> = Range { values: 0..=10_000, means: "ms, ten seconds at most" };
    /// The header's `press_grace_ms`: how long a press waits for a piece
    /// still in the hand.
    pub const PRESS_GRACE_MS: Range<Ms> = Range { values: 0..=10_000, means: "ms, ten seconds at most" };
    /// `pair_game`: the number a board draws for its game of two boards,
    /// never 0 (not known yet), and within what any JSON reader reads exactly.
    pub const PAIR_GAME: Range<u64> = Range { values: 1..=(1 << 53) - 1, means: "a game's number, 1 to 2^53 - 1" };

    /// How a board rules in time when nothing says otherwise: a header
    /// without `debounce_ms`, `settle_ms` or `press_grace_ms` means these
    /// (`docs/trace-format.md`), and so does a configuration without them.
    pub const DEFAULT_DEBOUNCE_MS: Ms = 10;
    /// See [`DEFAULT_DEBOUNCE_MS`].
    pub const DEFAULT_SETTLE_MS: Ms = 100;
    /// See [`DEFAULT_DEBOUNCE_MS`].
    pub const DEFAULT_PRESS_GRACE_MS: Ms = 250;

    impl Range<u64> {
        /// The value of `key` if it is in the range, else what is wrong with it.
        pub fn check(&self, key: &'static str, v: u64) -> Result<u64, FieldError> {
            if self.values.contains(&v) {
                Ok(v)
            } else {
                let (lo, hi) = (*self.values.start(), *self.values.end());
                Err(FieldError::OutOfRange { key, value: v, lo, hi, means: self.means })
            }
        }
    }
}

/// Line 1 of a trace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Header {
    pub variant: Variant,
    /// Position at `t = 0`; `None` is the standard start.
    pub start_fen: Option<String>,
    /// PGN `TimeControl` syntax (extended); `None`: no clock.
    pub time_control: Option<String>,
    pub white: Option<String>,
    pub black: Option<String>,
    pub event: Option<String>,
    pub site: Option<String>,
    pub round: Option<String>,
    pub date: Option<String>,
    /// How the recording board ruled, so that a replay rules the same:
    /// who supervised (A.5.2), its debounce and settle times, and how long
    /// a press waits for the piece still in the hand to land.
    pub supervision: Option<Supervision>,
    pub debounce_ms: Option<Ms>,
    pub settle_ms: Option<Ms>,
    pub press_grace_ms: Option<Ms>,
    /// `Asked`: the recording daemon searched who can still mate off its
    /// game loop and journaled each answer as a `verdict` input; a replay
    /// takes those answers. `Inline` (written as nothing): the core
    /// searches when asked.
    pub mate_search: MateSearch,
    /// The side a UCI engine plays: its moves come as `opponent` inputs and
    /// are completed when the board shows them, without a press.
    pub engine: Option<Color>,
    /// A different legal move made for the engine's side is taken as the
    /// player's override instead of being refused with a fix.
    pub engine_override: bool,
    /// The `engine` side is a player on a partner board (two boards, one
    /// game), whose clock that board keeps: its flag is ruled there, not here.
    pub partner: bool,
    /// The `engine` side is a player on an online server (Lichess) that
    /// judges take-backs: the board set back asks for one, and only the
    /// server's `take_back` input takes moves back.
    pub online: bool,
    /// The online server's clock is the game's (`online` games journaled
    /// since `server_clock` inputs exist): its times come as `server_clock`
    /// inputs, its move hands the clock to the player when it comes, and
    /// the board adds no increment of its own to the opponent's move. A
    /// journal without it replays as it was recorded.
    pub server_clock: bool,
    /// Two boards at one table with one clock between them: where the clock
    /// is (`docs/two-boards.md`). `Partner`: no flag is ruled here.
    pub table_clock: Option<TableClock>,
    /// The kind of board that recorded the trace, when it knows which piece
    /// is put down (version 2): its edges may carry the piece.
    pub board: Option<BoardKind>,
}

impl Header {
    /// The format version a trace with this header is written in: 2 when
    /// its board knows its pieces, else 1 (a version 1 trace has no
    /// identities, and reads exactly as before version 2 existed).
    pub fn version(&self) -> u32 {
        if self.board.is_some() { 2 } else { 1 }
    }
}

/// What happened at one instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// A raw sensor edge: the square now reads occupied (`on`) or empty.
    /// A board that knows its pieces says which was put down (`piece`,
    /// version 2); only a placement has one: an edge with `on` false and a
    /// piece is not written with it, and is an error when read.
    Edge { sq: Square, on: bool, piece: Option<Piece> },
    /// The clock button on this side was pressed (6.2.1).
    Clock(Color),
    /// A button, selector or arbiter input.
    Input(Input),
    /// The round's pairing for this board, from the hall (a relay given the
    /// pairing program's file): it decides over the header's players,
    /// event and round from here on.
    Pairing(Box<Pairing>),
    /// The game's timers due by `t` ran here, and what they led to was
    /// announced (a move once the board held still, the engine's move
    /// completed by the board holding still): the journal says how far the
    /// game went after its last input.
    Timers,
    /// The recording stops here.
    End,
}

/// One line after the header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub t: Ms,
    pub record: Record,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based line number in the file.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TraceError {}

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, TraceError> {
    Err(TraceError { line, message: message.into() })
}

/// The header's version, read before anything else in it: a field a newer
/// version spells otherwise is that version's, not an error of this one.
#[derive(Deserialize)]
struct RawVersion {
    tactus_trace: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct RawHeader {
    variant: Option<Variant>,
    start_fen: Option<String>,
    time_control: Option<String>,
    white: Option<String>,
    black: Option<String>,
    event: Option<String>,
    site: Option<String>,
    round: Option<String>,
    date: Option<String>,
    supervision: Option<Supervision>,
    debounce_ms: Option<serde_json::Value>,
    settle_ms: Option<serde_json::Value>,
    press_grace_ms: Option<serde_json::Value>,
    mate_search: Option<MateSearch>,
    engine: Option<String>,
    engine_override: Option<bool>,
    partner: Option<bool>,
    online: Option<bool>,
    server_clock: Option<bool>,
    table_clock: Option<TableClock>,
    /// Any value: version 1 does not know the field, and ignores it.
    board: Option<serde_json::Value>,
}

/// Parses the header line (line 1).
pub fn parse_header(text: &str) -> Result<Header, TraceError> {
    read_header(text).map(|(header, _)| header)
}

/// The header line, and the format version it declares.
fn read_header(text: &str) -> Result<(Header, u32), TraceError> {
    let raw: RawVersion = match serde_json::from_str(text) {
        Ok(raw) => raw,
        Err(e) => return err(1, format!("the header is not a JSON object: {e}")),
    };
    let version = match raw.tactus_trace.as_ref().and_then(|v| v.as_u64()) {
        Some(v) if (1..=u64::from(VERSION)).contains(&v) => v as u32,
        Some(v) => {
            return err(
                1,
                format!("trace format version {v} is not supported (this build reads versions 1 to {VERSION})"),
            );
        }
        None => {
            return err(1, "the header must start the file and carry \"tactus_trace\": 1 or 2");
        }
    };
    // An unknown word (a variant, a supervision) is an error, never a default.
    let raw: RawHeader = serde_json::from_str(text).or_else(|e| err(1, format!("the header: {e}")))?;
    // A clock that cannot be played is no game to replay (the config
    // refuses the same times).
    if let Some(tc) = raw.time_control.as_deref()
        && let Err(e) = tactus_clock::TimeControl::parse(tc)
    {
        return err(1, format!("time_control {tc:?}: {e}"));
    }
    let ms = |field: &'static str, v: Option<serde_json::Value>, range: &range::Range<Ms>| {
        v.map(|v| input::number(field, &v, range)).transpose().or_else(|e| err(1, e.to_string()))
    };
    let header = Header {
        variant: raw.variant.unwrap_or_default(),
        start_fen: raw.start_fen,
        time_control: raw.time_control,
        white: raw.white,
        black: raw.black,
        event: raw.event,
        site: raw.site,
        round: raw.round,
        date: raw.date,
        supervision: raw.supervision,
        debounce_ms: ms("debounce_ms", raw.debounce_ms, &range::DEBOUNCE_MS)?,
        settle_ms: ms("settle_ms", raw.settle_ms, &range::SETTLE_MS)?,
        press_grace_ms: ms("press_grace_ms", raw.press_grace_ms, &range::PRESS_GRACE_MS)?,
        mate_search: raw.mate_search.unwrap_or_default(),
        engine: raw.engine.map(|side| side_of("engine", &side)).transpose().or_else(|e| err(1, e.to_string()))?,
        engine_override: raw.engine_override.unwrap_or(false),
        partner: raw.partner.unwrap_or(false),
        online: raw.online.unwrap_or(false),
        server_clock: raw.server_clock.unwrap_or(false),
        table_clock: raw.table_clock,
        // Version 1 knows no `board`: ignored there, as any unknown field.
        board: match raw.board {
            Some(serde_json::Value::String(board)) if version >= 2 => {
                Some(board.parse().or_else(|e: UnknownWord| err(1, e.to_string()))?)
            }
            Some(other) if version >= 2 => return err(1, format!("board must be a string (\"dgt\"), not {other}")),
            _ => None,
        },
    };
    Ok((header, version))
}

/// Parses one event line (line 2 and later) of a trace of the newest
/// version. `line` is the 1-based number used in errors.
pub fn parse_entry(line: usize, text: &str) -> Result<Entry, TraceError> {
    parse_entry_in(VERSION, line, text)
}

/// Parses one event line of a trace of format version `version`: in
/// version 1 an edge's `piece` is a field the version does not know,
/// ignored as it always was.
pub fn parse_entry_in(version: u32, line: usize, text: &str) -> Result<Entry, TraceError> {
    if let Some(mut entry) = fast_entry(text) {
        if let Record::Edge { piece, .. } = &mut entry.record
            && version < 2
        {
            *piece = None;
        }
        return Ok(entry);
    }
    parse_json_entry(version, line, text)
}

/// The lines that make up almost every trace, exactly as the writer writes
/// them — `{"t": 1034, "sq": "e2", "on": false}`, `{"t": 1300, "sq": "e4",
/// "on": true, "piece": "P"}`, `{"t": 2100, "clock": "white"}` and
/// `{"t": 2400, "timers": true}` — read
/// without a JSON parser. Anything else, even the same content spelled
/// differently, takes the general path.
fn fast_entry(text: &str) -> Option<Entry> {
    let rest = text.strip_prefix(r#"{"t": "#)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    // JSON forbids leading zeros; u64 holds 19 digits.
    if digits == 0 || digits > 18 || (digits > 1 && rest.starts_with('0')) {
        return None;
    }
    let t: Ms = rest[..digits].parse().ok().filter(|t| range::T.values.contains(t))?;
    let rest = &rest[digits..];
    let record = if let Some(rest) = rest.strip_prefix(r#", "sq": ""#) {
        let sq = Square::from_ascii(rest.get(..2)?.as_bytes()).ok()?;
        let (on, piece) = match rest.get(2..)? {
            r#"", "on": true}"# => (true, None),
            r#"", "on": false}"# => (false, None),
            placed => {
                let letter = placed.strip_prefix(r#"", "on": true, "piece": ""#)?.strip_suffix(r#""}"#)?;
                (true, Some(piece_of(letter)?))
            }
        };
        Record::Edge { sq, on, piece }
    } else {
        match rest {
            r#", "clock": "white"}"# => Record::Clock(Color::White),
            r#", "clock": "black"}"# => Record::Clock(Color::Black),
            r#", "timers": true}"# => Record::Timers,
            _ => return None,
        }
    };
    Some(Entry { t, record })
}

/// The piece a FEN letter names: `K`, `Q`, `R`, `B`, `N`, `P` for White's,
/// the same in lower case for Black's.
fn piece_of(letter: &str) -> Option<Piece> {
    let mut chars = letter.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => {
            let role = Role::from_char(c)?;
            Some(role.of(if c.is_ascii_uppercase() { Color::White } else { Color::Black }))
        }
        _ => None,
    }
}

fn parse_json_entry(version: u32, line: usize, text: &str) -> Result<Entry, TraceError> {
    let mut fields: Fields = match serde_json::from_str(text) {
        Ok(fields) => fields,
        Err(e) => return err(line, format!("not a JSON object: {e}")),
    };
    let at = |e: FieldError| TraceError { line, message: e.to_string() };
    let t = match fields.get("t") {
        Some(v) => input::number("t", v, &range::T).map_err(at)?,
        None => return err(line, "missing t"),
    };
    // `sq` names the square of a sensor edge, or of a question about a
    // square (`"input": "request", "what": "square"`).
    let edge = fields.has("sq") && (!fields.has("input") || fields.has("on"));
    let kinds = [
        edge,
        fields.has("clock"),
        fields.has("input"),
        fields.has("timers"),
        fields.has("end"),
        fields.has("pairing"),
    ];
    match kinds.iter().filter(|k| **k).count() {
        0 => {
            return err(
                line,
                "unknown kind of line: expected one of \"sq\", \"clock\", \"input\", \"timers\", \"end\" or \"pairing\"",
            );
        }
        1 => {}
        _ => {
            return err(
                line,
                "a line has exactly one of \"sq\", \"clock\", \"input\", \"timers\", \"end\" or \"pairing\"",
            );
        }
    }
    let record = if edge {
        let sq = fields.str("sq").map_err(at)?.unwrap_or_default();
        let sq = input::square_word(sq).map_err(at)?;
        let Some(on) = fields.bool("on").map_err(at)? else {
            return err(line, "a sensor edge needs \"on\": true or false");
        };
        // Version 1 has no identities: an edge's `piece` is unknown there.
        let piece = if version < 2 { None } else { fields.str("piece").map_err(at)? };
        let piece = match piece {
            None => None,
            Some(_) if !on => {
                return err(line, "\"piece\" is the piece put down: an edge with \"on\": false has none");
            }
            Some(letter) => Some(piece_of(letter).map_or_else(
                || {
                    err(
                        line,
                        format!("{letter:?} is not a piece (K, Q, R, B, N, P for White; k, q, r, b, n, p for Black)"),
                    )
                },
                Ok,
            )?),
        };
        Record::Edge { sq, on, piece }
    } else if let Some(side) = fields.str("clock").map_err(at)? {
        Record::Clock(side_of("clock", side).map_err(at)?)
    } else if let Some(pairing) = fields.get("pairing") {
        if fields.len() > 2 {
            return err(line, "a pairing line has \"t\" and \"pairing\" only");
        }
        Record::Pairing(Box::new(Pairing::read(pairing).map_err(at)?))
    } else if fields.has("end") {
        if fields.bool("end").map_err(at)? != Some(true) {
            return err(line, "\"end\" can only be true");
        }
        Record::End
    } else if fields.has("timers") {
        if fields.bool("timers").map_err(at)? != Some(true) {
            return err(line, "\"timers\" can only be true");
        }
        Record::Timers
    } else {
        let name = fields.str("input").map_err(at)?.unwrap_or_default().to_owned();
        if fields.has("sq") && !(name == "request" && fields.str("what").ok().flatten() == Some("square")) {
            return err(line, "\"sq\" belongs to a sensor edge or to a request for a square");
        }
        Record::Input(Input::read(&name, &mut fields).map_err(at)?)
    };
    Ok(Entry { t, record })
}

/// Reads a whole trace: the header, then entries in non-decreasing time, up to
/// and including an `end` line (anything after it is ignored, as the spec says).
pub struct TraceReader<R> {
    src: R,
    buf: String,
    version: u32,
    line: usize,
    last_t: Ms,
    ended: bool,
}

impl<R: BufRead> TraceReader<R> {
    /// Reads the header; the entries follow from the iterator.
    pub fn new(mut src: R) -> Result<(Header, Self), TraceError> {
        let mut buf = String::new();
        let mut line = 0;
        loop {
            buf.clear();
            line += 1;
            match src.read_line(&mut buf) {
                Ok(0) => return err(line, "empty trace: the first line must be the header"),
                Ok(_) if buf.trim().is_empty() => continue,
                Ok(_) => break,
                Err(e) => return err(line, format!("cannot read: {e}")),
            }
        }
        let (header, version) = read_header(buf.trim())?;
        Ok((header, TraceReader { src, buf, version, line, last_t: 0, ended: false }))
    }

    /// The format version the header declares.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The number of the last line read.
    pub fn line(&self) -> usize {
        self.line
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<Entry, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.ended {
            return None;
        }
        loop {
            self.buf.clear();
            self.line += 1;
            match self.src.read_line(&mut self.buf) {
                Ok(0) => {
                    self.ended = true;
                    return None;
                }
                Ok(_) => {}
                Err(e) => {
                    self.ended = true;
                    return Some(err(self.line, format!("cannot read: {e}")));
                }
            }
            let text = self.buf.trim();
            if text.is_empty() {
                continue;
            }
            let entry = match parse_entry_in(self.version, self.line, text) {
                Ok(entry) => entry,
                Err(e) => {
                    self.ended = true;
                    return Some(Err(e));
                }
            };
            if entry.t < self.last_t {
                self.ended = true;
                return Some(err(self.line, format!("time goes backwards: t = {} after t = {}", entry.t, self.last_t)));
            }
            self.last_t = entry.t;
            if entry.record == Record::End {
                self.ended = true;
            }
            return Some(Ok(entry));
        }
    }
}

/// Reads a whole trace held in memory.
pub fn read_str(text: &str) -> Result<(Header, Vec<Entry>), TraceError> {
    let (header, reader) = TraceReader::new(text.as_bytes())?;
    let entries = reader.collect::<Result<Vec<_>, _>>()?;
    Ok((header, entries))
}

/// Writes traces. Each entry is one line; the daemon flushes and syncs after
/// the writes that matter, so the writer does no buffering of its own.
pub struct TraceWriter<W> {
    out: W,
    line: String,
    /// The version of the header written (1 until one is).
    version: u32,
}

impl<W: Write> TraceWriter<W> {
    pub fn new(out: W) -> Self {
        TraceWriter { out, line: String::with_capacity(96), version: 1 }
    }

    /// A writer going on with a trace whose header, `header`, is written
    /// already (a journal resumed): its entries in that header's version.
    pub fn appending(out: W, header: &Header) -> Self {
        TraceWriter { version: header.version(), ..TraceWriter::new(out) }
    }

    /// Writes the header, in the version it calls for ([`Header::version`]):
    /// version 2 only for a board that knows its pieces.
    pub fn write_header(&mut self, h: &Header) -> io::Result<()> {
        self.version = h.version();
        let mut obj = serde_json::Map::new();
        obj.insert("tactus_trace".into(), self.version.into());
        obj.insert("variant".into(), h.variant.as_str().into());
        let fields = [
            ("start_fen", &h.start_fen),
            ("time_control", &h.time_control),
            ("white", &h.white),
            ("black", &h.black),
            ("event", &h.event),
            ("site", &h.site),
            ("round", &h.round),
            ("date", &h.date),
        ];
        for (k, v) in fields {
            if let Some(v) = v {
                obj.insert(k.into(), v.clone().into());
            }
        }
        if let Some(supervision) = h.supervision {
            obj.insert("supervision".into(), supervision.as_str().into());
        }
        // Inline, the default, is written as nothing: as before it had a name.
        if h.mate_search != MateSearch::Inline {
            obj.insert("mate_search".into(), h.mate_search.as_str().into());
        }
        if let Some(side) = h.engine {
            obj.insert("engine".into(), side_str(side).into());
        }
        if h.engine_override {
            obj.insert("engine_override".into(), true.into());
        }
        if h.partner {
            obj.insert("partner".into(), true.into());
        }
        if h.online {
            obj.insert("online".into(), true.into());
        }
        if h.server_clock {
            obj.insert("server_clock".into(), true.into());
        }
        if let Some(table) = h.table_clock {
            obj.insert("table_clock".into(), table.as_str().into());
        }
        if let Some(board) = h.board {
            obj.insert("board".into(), board.as_str().into());
        }
        for (k, v) in [("debounce_ms", h.debounce_ms), ("settle_ms", h.settle_ms), ("press_grace_ms", h.press_grace_ms)]
        {
            if let Some(v) = v {
                obj.insert(k.into(), v.into());
            }
        }
        serde_json::to_writer(&mut self.out, &obj)?;
        self.out.write_all(b"\n")
    }

    /// Writes one entry. A trace of version 1 (a header without `board`)
    /// has no identities: an edge's piece is not written in it.
    pub fn write_entry(&mut self, e: &Entry) -> io::Result<()> {
        self.line.clear();
        match e.record {
            Record::Edge { sq, on, piece: Some(_) } if self.version < 2 => {
                format_entry(&mut self.line, &Entry { t: e.t, record: Record::Edge { sq, on, piece: None } });
            }
            _ => format_entry(&mut self.line, e),
        }
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Appends the JSON text of one entry (no newline), as the newest version
/// has it. Hand-formatted: every string written is from a fixed vocabulary,
/// so no escaping is needed. An edge's piece is written only on a placement
/// (`on`): the format has none on an edge that empties a square. An input
/// is written by its row of the table in `input.rs`.
pub fn format_entry(s: &mut String, e: &Entry) {
    use std::fmt::Write as _;
    let t = e.t;
    let _ = match &e.record {
        Record::Edge { sq, on: true, piece: Some(piece) } => {
            write!(s, r#"{{"t": {t}, "sq": "{sq}", "on": true, "piece": "{}"}}"#, piece.char())
        }
        Record::Edge { sq, on, .. } => write!(s, r#"{{"t": {t}, "sq": "{sq}", "on": {on}}}"#),
        Record::Clock(c) => write!(s, r#"{{"t": {t}, "clock": "{}"}}"#, side_str(*c)),
        Record::Timers => write!(s, r#"{{"t": {t}, "timers": true}}"#),
        Record::End => write!(s, r#"{{"t": {t}, "end": true}}"#),
        Record::Input(input) => {
            let _ = write!(s, r#"{{"t": {t}, "input": "{}""#, input.as_str());
            input.write_fields(s);
            write!(s, "}}")
        }
        Record::Pairing(pairing) => {
            pairing.write(t, s);
            Ok(())
        }
    };
}

#[cfg(test)]
mod tests;
