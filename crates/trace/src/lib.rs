//! The sensor trace format, versions 1 and 2 (`docs/trace-format.md`): the
//! raw record of one game on a sensor board; version 2 adds what a board
//! that knows its pieces (a DGT e-Board) says, which piece was put down. It
//! is the daemon's journal, the replay input, the recovery format and the
//! test fixture format, so the reader is strict — every error names its line
//! — and never panics, whatever the bytes.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, BufRead, Write};

use serde::Deserialize;
use shakmaty::uci::UciMove;
use shakmaty::{Color, File, Piece, Rank, Role, Square};

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
    /// The header's `debounce_ms`: how long a reading must hold.
    pub const DEBOUNCE_MS: Range<Ms> = Range { values: 0..=1_000, means: "ms, a second at most" };
    /// The header's `settle_ms`: how long a board holds still before its
    /// move is announced.
    pub const SETTLE_MS: Range<Ms> = Range { values: 0..=10_000, means: "ms, ten seconds at most" };
    /// The header's `press_grace_ms`: how long a press waits for a piece
    /// still in the hand.
    pub const PRESS_GRACE_MS: Range<Ms> = Range { values: 0..=10_000, means: "ms, ten seconds at most" };

    impl<T: PartialOrd + Copy + std::fmt::Display> Range<T> {
        /// The value if it is in the range, else what is wrong with it.
        pub fn check(&self, field: &str, v: T) -> Result<T, String> {
            if self.values.contains(&v) {
                Ok(v)
            } else {
                Err(format!(
                    "{field} {v} is out of range: {} to {} {}",
                    self.values.start(),
                    self.values.end(),
                    self.means
                ))
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Variant {
    #[default]
    Standard,
    Chess960,
}

impl Variant {
    pub fn as_str(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
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
    /// `arbiter` or `unsupervised` (A.5.2), its debounce and settle times,
    /// and how long a press waits for the piece still in the hand to land.
    pub supervision: Option<String>,
    pub debounce_ms: Option<Ms>,
    pub settle_ms: Option<Ms>,
    pub press_grace_ms: Option<Ms>,
    /// `asked`: the recording daemon searched who can still mate off its
    /// game loop and journaled each answer as a `verdict` input; a replay
    /// takes those answers. Absent: the core searches when asked.
    pub mate_search: Option<String>,
    /// The side a UCI engine plays: its moves come as `opponent` inputs and
    /// are completed when the board shows them, without a press.
    pub engine: Option<Color>,
    /// A different legal move made for the engine's side is taken as the
    /// player's override instead of being refused with a fix.
    pub engine_override: bool,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// The game's timers due by `t` ran here, and what they led to was
    /// announced (a move once the board held still, the engine's move
    /// completed by the board holding still): the journal says how far the
    /// game went after its last input.
    Timers,
    /// The recording stops here.
    End,
}

/// Inputs other than sensors and levers. Everything the core reacts to is in
/// the trace, so a replay reproduces the live game exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// The promotion selector: the next promotion is to this piece.
    Promote(Role),
    /// A player claims (A.5.2 illegal move, 9.2 threefold, 9.3 fifty moves).
    Claim { side: Color, claim: Claim },
    /// The arbiter stops the clocks (6.11).
    Pause,
    /// The clocks run again; also how players resume a recovered game.
    Resume,
    /// The arbiter sets both clocks (6.10.2, 7.1).
    SetClock { white_ms: Ms, black_ms: Ms },
    /// The arbiter sets the move counter (6.10.2, 7.1).
    SetMoves { white_moves: u32, black_moves: u32 },
    /// The arbiter adds time to one side (7.5.5, 9.5.3, 12.9.2).
    AddTime { side: Color, ms: Ms },
    /// Guidelines III.4: a 5-second increment for both from now on.
    Increment { ms: Ms },
    /// A result decided off the board: resignation, agreement, arbiter.
    Result { result: GameResult, reason: OffBoardReason },
    /// A player asks a question: the times and move count (D.2.6.1,
    /// D.2.10.4), the position, where pieces stand, the last move.
    Request(Request),
    /// The full search's answer to the game's question whether `side` can
    /// still checkmate, in the position after ply `ply` (5.2.2, 6.9,
    /// 7.5.5). The daemon searches off the game loop and journals the
    /// answer, so a replay rules as the live game did.
    Verdict { ply: u32, side: Color, verdict: MateVerdict },
    /// The engine's choice for ply `ply` (the header's `engine` side), to
    /// be carried out on the board. Journaled, so a game against the engine
    /// replays exactly.
    Opponent { ply: u32, uci: UciMove, eval: Option<Eval> },
    /// The engine's level was set at the board (0 to 10).
    EngineLevel(u8),
    /// The engine's suggestion for ply `ply`, as asked for (`request hint`).
    Hint { ply: u32, uci: UciMove },
    /// `side` offers a draw (9.1.2), or accepts the opponent's offer that
    /// stands: the engine with its move, or a player.
    DrawOffer { side: Color },
    /// Whether a clock whose press completes a move is at the board (a DGT
    /// clock plugged into a DGT board, or unplugged); without one, a move
    /// is complete once the board holds still on it.
    ClockConnected(bool),
}

/// How the engine saw the position when it chose: its score, from White's
/// point of view, and the line it expected (its first [`PV_MAX`] moves).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eval {
    pub score: Score,
    pub pv: [Option<UciMove>; PV_MAX],
}

/// The most moves of an engine's line a trace keeps.
pub const PV_MAX: usize = 8;

/// An engine's score, from White's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Centipawns: positive, White is better.
    Cp(i32),
    /// Mate in this many moves: positive, White mates.
    Mate(i32),
}

impl Eval {
    /// The line's moves, in order.
    pub fn line(&self) -> impl Iterator<Item = UciMove> + '_ {
        self.pv.iter().map_while(|m| *m)
    }
}

/// The words a trace (and the arbiter's page) spells these values with,
/// in one place: `as_str` writes them, `FromStr` reads them back, and the
/// error lists the choices.
macro_rules! spelled {
    ($(#[$meta:meta])* $name:ident, $what:literal { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                $name::ALL.iter().copied().find(|v| v.as_str() == s).ok_or_else(|| {
                    let choices: Vec<&str> = $name::ALL.iter().map(|v| v.as_str()).collect();
                    format!("unknown {} {s:?} (one of {})", $what, choices.join(", "))
                })
            }
        }
    };
}

spelled!(
    /// A kind of board that knows which piece stands on each square.
    BoardKind, "board" { Dgt = "dgt" }
);

spelled!(Claim, "claim" { Illegal = "illegal", Threefold = "threefold", Fifty = "fifty" });

spelled!(
    /// Whether a side can checkmate by any series of legal moves.
    MateVerdict, "verdict" { CanMate = "can_mate", CannotMate = "cannot_mate", Undetermined = "undetermined" }
);

spelled!(GameResult, "result" { WhiteWins = "1-0", BlackWins = "0-1", Draw = "1/2-1/2" });

impl GameResult {
    pub fn win_for(side: Color) -> GameResult {
        match side {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

spelled!(OffBoardReason, "reason" { Resignation = "resignation", Agreement = "agreement", Arbiter = "arbiter" });

/// A question a player asks at the board (D.2.6.1, D.2.10.4): the core
/// answers each with an event (docs/events.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// Both times and the number of completed moves.
    Time,
    /// The whole position.
    Position,
    /// The last move again.
    LastMove,
    /// Where one side's pieces stand: every piece, or one kind.
    Pieces { side: Color, role: Option<Role> },
    /// What stands on one rank, a to h.
    Rank(Rank),
    /// What stands on one file, 1 to 8.
    File(File),
    /// What stands on one square.
    Square(Square),
    /// Moves left to the next time control, and the time it adds.
    MovesToControl,
    /// The engine's suggestion for the player to move (a game against an
    /// engine); answered by a `hint` input.
    Hint,
}

impl Request {
    /// The kinds of question, as `what` spells them.
    pub const KINDS: &'static [&'static str] =
        &["time", "position", "last_move", "pieces", "rank", "file", "square", "moves_to_control", "hint"];

    /// The `what` of the question.
    pub fn as_str(self) -> &'static str {
        match self {
            Request::Time => "time",
            Request::Position => "position",
            Request::LastMove => "last_move",
            Request::Pieces { .. } => "pieces",
            Request::Rank(_) => "rank",
            Request::File(_) => "file",
            Request::Square(_) => "square",
            Request::MovesToControl => "moves_to_control",
            Request::Hint => "hint",
        }
    }

    /// A question typed as words: `time`, `position`, `last_move`,
    /// `moves_to_control`, `pieces white` (every white piece), `pieces black
    /// n` (the black knights), `rank 4`, `file e`, `square d5`. For typed
    /// commands on the sim board and the arbiter's console.
    pub fn from_words(words: &[&str]) -> Result<Request, String> {
        let usage = || {
            "ask for time, position, last_move, moves_to_control, hint, pieces white|black [k|q|r|b|n|p], \
             rank 1-8, file a-h or square a1-h8"
                .to_owned()
        };
        match words {
            [] => Err(usage()),
            ["pieces", side] => Ok(Request::Pieces { side: side_word(side)?, role: None }),
            ["pieces", side, role] => Ok(Request::Pieces { side: side_word(side)?, role: Some(role_word(role)?) }),
            ["rank", rank] => rank_word(rank).map(Request::Rank),
            ["file", file] => file_word(file).map(Request::File),
            ["square", sq] => square_word(sq).map(Request::Square),
            [what] => what.parse(),
            _ => Err(usage()),
        }
    }
}

/// The questions that need nothing more than their name.
impl std::str::FromStr for Request {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "time" => Ok(Request::Time),
            "position" => Ok(Request::Position),
            "last_move" => Ok(Request::LastMove),
            "moves_to_control" => Ok(Request::MovesToControl),
            "hint" => Ok(Request::Hint),
            "pieces" => Err("request pieces needs a side (and may name a piece: pieces white n)".into()),
            "rank" | "file" | "square" => Err(format!("request {s} needs which {s} (rank 4, file e, square d5)")),
            other => Err(format!("unknown request {other:?} (one of {})", Request::KINDS.join(", "))),
        }
    }
}

fn side_word(text: &str) -> Result<Color, String> {
    match text {
        "white" => Ok(Color::White),
        "black" => Ok(Color::Black),
        other => Err(format!("side must be \"white\" or \"black\", not {other:?}")),
    }
}

fn role_word(text: &str) -> Result<Role, String> {
    let mut chars = text.chars();
    match (chars.next().and_then(Role::from_char), chars.next()) {
        (Some(role), None) => Ok(role),
        _ => Err(format!("a piece is one of k, q, r, b, n, p, not {text:?}")),
    }
}

fn rank_word(text: &str) -> Result<Rank, String> {
    match text.as_bytes() {
        [c @ b'1'..=b'8'] => Ok(Rank::new(u32::from(c - b'1'))),
        _ => Err(format!("a rank is 1 to 8, not {text:?}")),
    }
}

fn file_word(text: &str) -> Result<File, String> {
    match text.as_bytes() {
        [c @ b'a'..=b'h'] => Ok(File::new(u32::from(c - b'a'))),
        _ => Err(format!("a file is a to h, not {text:?}")),
    }
}

fn square_word(text: &str) -> Result<Square, String> {
    Square::from_ascii(text.as_bytes()).map_err(|_| format!("{text:?} is not a square (a1 … h8)"))
}

/// One line after the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

#[derive(Deserialize)]
struct RawHeader {
    tactus_trace: Option<serde_json::Value>,
    variant: Option<String>,
    start_fen: Option<String>,
    time_control: Option<String>,
    white: Option<String>,
    black: Option<String>,
    event: Option<String>,
    site: Option<String>,
    round: Option<String>,
    date: Option<String>,
    supervision: Option<String>,
    debounce_ms: Option<serde_json::Number>,
    settle_ms: Option<serde_json::Number>,
    press_grace_ms: Option<serde_json::Number>,
    mate_search: Option<String>,
    engine: Option<String>,
    engine_override: Option<bool>,
    /// Any value: version 1 does not know the field, and ignores it.
    board: Option<serde_json::Value>,
}

/// Every field any line kind uses; unknown fields are ignored (the spec's
/// forward compatibility), and which kind a line is follows from which of the
/// kind fields (`sq`, `clock`, `input`, `end`) it has.
#[derive(Deserialize)]
struct RawLine<'a> {
    t: Option<serde_json::Number>,
    #[serde(borrow)]
    sq: Option<Cow<'a, str>>,
    on: Option<bool>,
    #[serde(borrow)]
    clock: Option<Cow<'a, str>>,
    #[serde(borrow)]
    input: Option<Cow<'a, str>>,
    end: Option<bool>,
    #[serde(borrow)]
    piece: Option<Cow<'a, str>>,
    #[serde(borrow)]
    side: Option<Cow<'a, str>>,
    #[serde(borrow)]
    claim: Option<Cow<'a, str>>,
    #[serde(borrow)]
    result: Option<Cow<'a, str>>,
    #[serde(borrow)]
    reason: Option<Cow<'a, str>>,
    #[serde(borrow)]
    what: Option<Cow<'a, str>>,
    #[serde(borrow)]
    role: Option<Cow<'a, str>>,
    rank: Option<serde_json::Value>,
    #[serde(borrow)]
    file: Option<Cow<'a, str>>,
    #[serde(borrow)]
    verdict: Option<Cow<'a, str>>,
    ply: Option<serde_json::Number>,
    #[serde(borrow)]
    uci: Option<Cow<'a, str>>,
    level: Option<serde_json::Number>,
    cp: Option<serde_json::Number>,
    mate: Option<serde_json::Number>,
    pv: Option<Vec<String>>,
    white_ms: Option<serde_json::Number>,
    black_ms: Option<serde_json::Number>,
    white_moves: Option<serde_json::Number>,
    black_moves: Option<serde_json::Number>,
    ms: Option<serde_json::Number>,
    connected: Option<bool>,
    timers: Option<bool>,
}

/// Parses the header line (line 1).
pub fn parse_header(text: &str) -> Result<Header, TraceError> {
    read_header(text).map(|(header, _)| header)
}

/// The header line, and the format version it declares.
fn read_header(text: &str) -> Result<(Header, u32), TraceError> {
    let raw: RawHeader = match serde_json::from_str(text) {
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
    if let Some(s) = raw.supervision.as_deref()
        && !["arbiter", "unsupervised"].contains(&s)
    {
        return err(1, format!("supervision {s:?}: arbiter or unsupervised"));
    }
    // A clock that cannot be played is no game to replay (the config
    // refuses the same times).
    if let Some(tc) = raw.time_control.as_deref()
        && let Err(e) = tactus_clock::TimeControl::parse(tc)
    {
        return err(1, format!("time_control {tc:?}: {e}"));
    }
    let variant = match raw.variant.as_deref() {
        None | Some("standard") => Variant::Standard,
        Some("chess960") => Variant::Chess960,
        Some(other) => {
            return err(1, format!("unknown variant {other:?} (expected \"standard\" or \"chess960\")"));
        }
    };
    let header = Header {
        variant,
        start_fen: raw.start_fen,
        time_control: raw.time_control,
        white: raw.white,
        black: raw.black,
        event: raw.event,
        site: raw.site,
        round: raw.round,
        date: raw.date,
        supervision: raw.supervision,
        debounce_ms: header_ms("debounce_ms", raw.debounce_ms.as_ref(), &range::DEBOUNCE_MS)?,
        settle_ms: header_ms("settle_ms", raw.settle_ms.as_ref(), &range::SETTLE_MS)?,
        press_grace_ms: header_ms("press_grace_ms", raw.press_grace_ms.as_ref(), &range::PRESS_GRACE_MS)?,
        mate_search: raw.mate_search,
        engine: match raw.engine.as_deref() {
            None => None,
            Some(side) => Some(color(1, "engine", side)?),
        },
        engine_override: raw.engine_override.unwrap_or(false),
        // Version 1 knows no `board`: ignored there, as any unknown field.
        board: match raw.board {
            Some(serde_json::Value::String(board)) if version >= 2 => Some(board.parse().or_else(|e| err(1, e))?),
            Some(other) if version >= 2 => return err(1, format!("board must be a string (\"dgt\"), not {other}")),
            _ => None,
        },
    };
    Ok((header, version))
}

fn color(line: usize, field: &str, text: &str) -> Result<Color, TraceError> {
    match text {
        "white" => Ok(Color::White),
        "black" => Ok(Color::Black),
        other => err(line, format!("{field} must be \"white\" or \"black\", not {other:?}")),
    }
}

/// A whole number in its range.
fn number(
    line: usize,
    field: &str,
    n: Option<&serde_json::Number>,
    range: &range::Range<u64>,
) -> Result<u64, TraceError> {
    match n {
        Some(n) => match n.as_u64() {
            Some(v) => range.check(field, v).or_else(|e| err(line, e)),
            None => err(line, format!("{field} must be a whole number ≥ 0 ({}), not {n}", range.means)),
        },
        None => err(line, format!("missing {field}")),
    }
}

/// A count (moves, plies) in its range.
fn count(
    line: usize,
    field: &str,
    n: Option<&serde_json::Number>,
    range: &range::Range<u64>,
) -> Result<u32, TraceError> {
    let v = number(line, field, n, range)?;
    // The ranges of counts are far inside a u32.
    u32::try_from(v).or_else(|_| err(line, format!("{field} {v} is out of range")))
}

/// One of the header's times, if given.
fn header_ms(field: &str, n: Option<&serde_json::Number>, range: &range::Range<Ms>) -> Result<Option<Ms>, TraceError> {
    n.map(|n| number(1, field, Some(n), range)).transpose()
}

fn need<'s>(line: usize, field: &str, v: &'s Option<Cow<'_, str>>) -> Result<&'s str, TraceError> {
    match v {
        Some(s) => Ok(s),
        None => err(line, format!("missing {field}")),
    }
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
    let raw: RawLine = match serde_json::from_str(text) {
        Ok(raw) => raw,
        Err(e) => return err(line, format!("not a JSON object: {e}")),
    };
    let t = number(line, "t", raw.t.as_ref(), &range::T)?;
    // `sq` names the square of a sensor edge, or of a question about a
    // square (`"input": "request", "what": "square"`).
    let edge = raw.sq.is_some() && (raw.input.is_none() || raw.on.is_some());
    let kinds = [edge, raw.clock.is_some(), raw.input.is_some(), raw.timers.is_some(), raw.end.is_some()];
    match kinds.iter().filter(|k| **k).count() {
        0 => {
            return err(
                line,
                "unknown kind of line: expected one of \"sq\", \"clock\", \"input\", \"timers\" or \"end\"",
            );
        }
        1 => {}
        _ => {
            return err(line, "a line has exactly one of \"sq\", \"clock\", \"input\", \"timers\" or \"end\"");
        }
    }
    let record = if let (true, Some(sq)) = (edge, &raw.sq) {
        let sq =
            Square::from_ascii(sq.as_bytes()).or_else(|_| err(line, format!("{sq:?} is not a square (a1 … h8)")))?;
        let Some(on) = raw.on else {
            return err(line, "a sensor edge needs \"on\": true or false");
        };
        let piece = match raw.piece.as_deref() {
            // Version 1 has no identities: an edge's `piece` is unknown there.
            Some(_) if version < 2 => None,
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
    } else if let Some(side) = &raw.clock {
        Record::Clock(color(line, "clock", side)?)
    } else if let Some(end) = raw.end {
        if !end {
            return err(line, "\"end\" can only be true");
        }
        Record::End
    } else if let Some(timers) = raw.timers {
        if !timers {
            return err(line, "\"timers\" can only be true");
        }
        Record::Timers
    } else {
        Record::Input(parse_input(line, &raw)?)
    };
    Ok(Entry { t, record })
}

fn parse_input(line: usize, raw: &RawLine) -> Result<Input, TraceError> {
    let name = need(line, "input", &raw.input)?;
    if raw.sq.is_some() && !(name == "request" && raw.what.as_deref() == Some("square")) {
        return err(line, "\"sq\" belongs to a sensor edge or to a request for a square");
    }
    Ok(match name {
        "promote" => {
            let piece = need(line, "piece", &raw.piece)?;
            let role = match piece {
                "q" | "Q" => Role::Queen,
                "r" | "R" => Role::Rook,
                "b" | "B" => Role::Bishop,
                "n" | "N" => Role::Knight,
                other => {
                    return err(line, format!("a pawn promotes to q, r, b or n, not {other:?}"));
                }
            };
            Input::Promote(role)
        }
        "claim" => {
            let side = color(line, "side", need(line, "side", &raw.side)?)?;
            let claim = need(line, "claim", &raw.claim)?.parse().or_else(|e| err(line, e))?;
            Input::Claim { side, claim }
        }
        "pause" => Input::Pause,
        "resume" => Input::Resume,
        "set_clock" => Input::SetClock {
            white_ms: number(line, "white_ms", raw.white_ms.as_ref(), &range::CLOCK_MS)?,
            black_ms: number(line, "black_ms", raw.black_ms.as_ref(), &range::CLOCK_MS)?,
        },
        "set_moves" => Input::SetMoves {
            white_moves: count(line, "white_moves", raw.white_moves.as_ref(), &range::MOVES)?,
            black_moves: count(line, "black_moves", raw.black_moves.as_ref(), &range::MOVES)?,
        },
        "add_time" => Input::AddTime {
            side: color(line, "side", need(line, "side", &raw.side)?)?,
            ms: number(line, "ms", raw.ms.as_ref(), &range::ADDED_MS)?,
        },
        "increment" => Input::Increment { ms: number(line, "ms", raw.ms.as_ref(), &range::INCREMENT_MS)? },
        "result" => {
            let result = need(line, "result", &raw.result)?.parse().or_else(|e| err(line, e))?;
            let reason = match raw.reason.as_deref() {
                None => OffBoardReason::Arbiter,
                Some(r) => r.parse().or_else(|e| err(line, e))?,
            };
            Input::Result { result, reason }
        }
        "request" => Input::Request(parse_request(line, raw)?),
        "verdict" => Input::Verdict {
            ply: ply(line, raw)?,
            side: color(line, "side", need(line, "side", &raw.side)?)?,
            verdict: need(line, "verdict", &raw.verdict)?.parse().or_else(|e| err(line, e))?,
        },
        "opponent" => Input::Opponent { ply: ply(line, raw)?, uci: uci(line, raw)?, eval: eval(line, raw)? },
        "hint" => Input::Hint { ply: ply(line, raw)?, uci: uci(line, raw)? },
        "draw_offer" => Input::DrawOffer { side: color(line, "side", need(line, "side", &raw.side)?)? },
        "clock_connected" => match raw.connected {
            Some(connected) => Input::ClockConnected(connected),
            None => return err(line, "clock_connected needs \"connected\": true or false"),
        },
        "engine_level" => {
            let level = raw.level.as_ref().and_then(|n| n.as_u64()).and_then(|n| u8::try_from(n).ok());
            match level {
                Some(level @ 0..=10) => Input::EngineLevel(level),
                _ => return err(line, "engine_level needs \"level\", 0 to 10"),
            }
        }
        other => return err(line, format!("unknown input {other:?}")),
    })
}

/// The engine's score (`cp` or `mate`) and line (`pv`), if given.
fn eval(line: usize, raw: &RawLine) -> Result<Option<Eval>, TraceError> {
    let int = |field: &str, n: &serde_json::Number| -> Result<i32, TraceError> {
        n.as_i64()
            .and_then(|v| i32::try_from(v).ok())
            .map_or_else(|| err(line, format!("{field} {n} is not a whole number")), Ok)
    };
    let score = match (&raw.cp, &raw.mate) {
        (None, None) => return Ok(None),
        (Some(cp), None) => Score::Cp(int("cp", cp)?),
        (None, Some(mate)) => Score::Mate(int("mate", mate)?),
        (Some(_), Some(_)) => return err(line, "a score is cp or mate, not both"),
    };
    let mut pv = [None; PV_MAX];
    for (i, text) in raw.pv.iter().flatten().take(PV_MAX).enumerate() {
        pv[i] = Some(text.parse().or_else(|_| err(line, format!("pv: {text:?} is not a move in UCI notation")))?);
    }
    Ok(Some(Eval { score, pv }))
}

fn uci(line: usize, raw: &RawLine) -> Result<UciMove, TraceError> {
    let text = need(line, "uci", &raw.uci)?;
    text.parse().or_else(|_| err(line, format!("uci {text:?} is not a move in UCI notation")))
}

fn ply(line: usize, raw: &RawLine) -> Result<u32, TraceError> {
    count(line, "ply", raw.ply.as_ref(), &range::PLY)
}

/// A question: `what` (default `time`) and what the kind needs.
fn parse_request(line: usize, raw: &RawLine) -> Result<Request, TraceError> {
    let what = raw.what.as_deref().unwrap_or("time");
    let field = |name: &str, v: &Option<Cow<'_, str>>| -> Result<String, TraceError> {
        match v {
            Some(s) => Ok(s.to_string()),
            None => err(line, format!("request {what} needs \"{name}\"")),
        }
    };
    let words: Vec<String> = match what {
        "pieces" => {
            let mut words = vec![what.to_owned(), field("side", &raw.side)?];
            words.extend(raw.role.as_ref().map(|r| r.to_ascii_lowercase()));
            words
        }
        "rank" => {
            let rank = match &raw.rank {
                Some(serde_json::Value::Number(n)) => n.to_string(),
                Some(other) => return err(line, format!("a rank is a number 1 to 8, not {other}")),
                None => return err(line, "request rank needs \"rank\""),
            };
            vec![what.to_owned(), rank]
        }
        "file" => vec![what.to_owned(), field("file", &raw.file)?],
        "square" => vec![what.to_owned(), field("sq", &raw.sq)?],
        other => vec![other.to_owned()],
    };
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    Request::from_words(&words).or_else(|e| err(line, e))
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
        for (k, v) in [("supervision", &h.supervision), ("mate_search", &h.mate_search)] {
            if let Some(v) = v {
                obj.insert(k.into(), v.clone().into());
            }
        }
        if let Some(side) = h.engine {
            obj.insert("engine".into(), side_str(side).into());
        }
        if h.engine_override {
            obj.insert("engine_override".into(), true.into());
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

fn side_str(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Appends the JSON text of one entry (no newline), as the newest version
/// has it. Hand-formatted: every string written is from a fixed vocabulary,
/// so no escaping is needed. An edge's piece is written only on a placement
/// (`on`): the format has none on an edge that empties a square.
pub fn format_entry(s: &mut String, e: &Entry) {
    use std::fmt::Write as _;
    let t = e.t;
    let _ = match e.record {
        Record::Edge { sq, on: true, piece: Some(piece) } => {
            write!(s, r#"{{"t": {t}, "sq": "{sq}", "on": true, "piece": "{}"}}"#, piece.char())
        }
        Record::Edge { sq, on, .. } => write!(s, r#"{{"t": {t}, "sq": "{sq}", "on": {on}}}"#),
        Record::Clock(c) => write!(s, r#"{{"t": {t}, "clock": "{}"}}"#, side_str(c)),
        Record::Timers => write!(s, r#"{{"t": {t}, "timers": true}}"#),
        Record::End => write!(s, r#"{{"t": {t}, "end": true}}"#),
        Record::Input(input) => match input {
            Input::Promote(role) => write!(s, r#"{{"t": {t}, "input": "promote", "piece": "{}"}}"#, role.char()),
            Input::Claim { side, claim } => write!(
                s,
                r#"{{"t": {t}, "input": "claim", "side": "{}", "claim": "{}"}}"#,
                side_str(side),
                claim.as_str()
            ),
            Input::Pause => write!(s, r#"{{"t": {t}, "input": "pause"}}"#),
            Input::Resume => write!(s, r#"{{"t": {t}, "input": "resume"}}"#),
            Input::SetClock { white_ms, black_ms } => {
                write!(s, r#"{{"t": {t}, "input": "set_clock", "white_ms": {white_ms}, "black_ms": {black_ms}}}"#)
            }
            Input::AddTime { side, ms } => {
                write!(s, r#"{{"t": {t}, "input": "add_time", "side": "{}", "ms": {ms}}}"#, side_str(side))
            }
            Input::SetMoves { white_moves, black_moves } => write!(
                s,
                r#"{{"t": {t}, "input": "set_moves", "white_moves": {white_moves}, "black_moves": {black_moves}}}"#
            ),
            Input::Increment { ms } => {
                write!(s, r#"{{"t": {t}, "input": "increment", "ms": {ms}}}"#)
            }
            Input::Result { result, reason } => write!(
                s,
                r#"{{"t": {t}, "input": "result", "result": "{}", "reason": "{}"}}"#,
                result.as_str(),
                reason.as_str()
            ),
            Input::Verdict { ply, side, verdict } => write!(
                s,
                r#"{{"t": {t}, "input": "verdict", "ply": {ply}, "side": "{}", "verdict": "{}"}}"#,
                side_str(side),
                verdict.as_str()
            ),
            Input::Opponent { ply, uci, eval } => {
                let _ = write!(s, r#"{{"t": {t}, "input": "opponent", "ply": {ply}, "uci": "{uci}""#);
                if let Some(eval) = eval {
                    let _ = match eval.score {
                        Score::Cp(cp) => write!(s, r#", "cp": {cp}"#),
                        Score::Mate(n) => write!(s, r#", "mate": {n}"#),
                    };
                    let _ = write!(s, r#", "pv": ["#);
                    for (i, m) in eval.line().enumerate() {
                        let _ = write!(s, r#"{}"{m}""#, if i > 0 { ", " } else { "" });
                    }
                    let _ = write!(s, "]");
                }
                write!(s, "}}")
            }
            Input::Hint { ply, uci } => write!(s, r#"{{"t": {t}, "input": "hint", "ply": {ply}, "uci": "{uci}"}}"#),
            Input::EngineLevel(level) => write!(s, r#"{{"t": {t}, "input": "engine_level", "level": {level}}}"#),
            Input::DrawOffer { side } => {
                write!(s, r#"{{"t": {t}, "input": "draw_offer", "side": "{}"}}"#, side_str(side))
            }
            Input::ClockConnected(connected) => {
                write!(s, r#"{{"t": {t}, "input": "clock_connected", "connected": {connected}}}"#)
            }
            Input::Request(r) => {
                let _ = write!(s, r#"{{"t": {t}, "input": "request", "what": "{}""#, r.as_str());
                match r {
                    Request::Pieces { side, role } => {
                        let _ = write!(s, r#", "side": "{}""#, side_str(side));
                        if let Some(role) = role {
                            let _ = write!(s, r#", "role": "{}""#, role.char());
                        }
                    }
                    Request::Rank(rank) => {
                        let _ = write!(s, r#", "rank": {}"#, rank.char());
                    }
                    Request::File(file) => {
                        let _ = write!(s, r#", "file": "{}""#, file.char());
                    }
                    Request::Square(sq) => {
                        let _ = write!(s, r#", "sq": "{sq}""#);
                    }
                    Request::Time | Request::Position | Request::LastMove | Request::MovesToControl | Request::Hint => {
                    }
                }
                write!(s, "}}")
            }
        },
    };
}

#[cfg(test)]
mod tests;
