//! The inputs a trace records, described once: the `inputs!` table below
//! holds every kind — its `input` word, its fields' keys in the order they
//! are written, and how each is read and written. The enum, the writer, the
//! reader and the list of kinds that `docs/trace-format.md` is checked
//! against (`tests/docs.rs`) all come from it: a new input is one row here
//! and one in the docs.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use shakmaty::uci::UciMove;
use shakmaty::{Color, File, Rank, Role, Square};

use crate::Ms;
use crate::error::FieldError;
use crate::range::{self, Range};
use crate::words::{Claim, GameResult, MateVerdict, OffBoardReason, OnlineAsk, Word};

/// The fields of one line, by key. `null` counts as absent, as it always
/// did; a key given twice is an error, as for any strict reader.
pub(crate) struct Fields {
    map: serde_json::Map<String, Value>,
    /// The `input` word, for errors that name what needs a field.
    pub(crate) input: &'static str,
}

impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = serde_json::Map<String, Value>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut map = serde_json::Map::new();
                while let Some((key, value)) = access.next_entry::<String, Value>()? {
                    if map.contains_key(&key) {
                        return Err(serde::de::Error::custom(format!("duplicate field `{key}`")));
                    }
                    map.insert(key, value);
                }
                Ok(map)
            }
        }
        Ok(Fields { map: d.deserialize_map(Object)?, input: "" })
    }
}

impl Fields {
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// How many keys the line has.
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    pub(crate) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// A string field, if given.
    pub(crate) fn str(&self, key: &'static str) -> Result<Option<&str>, FieldError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(FieldError::NotString { key, found: other.to_string() }),
        }
    }

    /// A `true` or `false` field, if given.
    pub(crate) fn bool(&self, key: &'static str) -> Result<Option<bool>, FieldError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(FieldError::NotFlag { key, found: other.to_string() }),
        }
    }

    /// What the input lacks: `"ms"`, and what it takes.
    fn needs<T>(&self, key: &'static str, wants: impl Into<String>) -> Result<T, FieldError> {
        Err(FieldError::Missing { input: self.input, key, wants: wants.into() })
    }
}

/// A whole number in its range: `t`, and the numbers of inputs and header.
pub(crate) fn number(field: &'static str, v: &Value, range: &Range<u64>) -> Result<u64, FieldError> {
    match v.as_u64() {
        Some(n) => range.check(field, n),
        None => Err(FieldError::NotWholeNumber { key: field, means: range.means, found: v.to_string() }),
    }
}

/// How one field of an input line is written, and read back.
pub(crate) trait WireField<T> {
    /// Appends `, "key": value`; nothing for a value the line leaves out.
    fn write(v: &T, key: &str, out: &mut String);
    /// The field `key` of the line.
    fn read(fields: &Fields, key: &'static str) -> Result<T, FieldError>;
}

/// `"white"` or `"black"`.
pub(crate) struct WireSide;

pub(crate) fn side_str(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

pub(crate) fn side_of(field: &'static str, text: &str) -> Result<Color, FieldError> {
    match text {
        "white" => Ok(Color::White),
        "black" => Ok(Color::Black),
        other => Err(FieldError::NotSide { key: field, found: other.to_owned() }),
    }
}

impl WireField<Color> for WireSide {
    fn write(v: &Color, key: &str, out: &mut String) {
        push(out, key, format_args!("\"{}\"", side_str(*v)));
    }
    fn read(fields: &Fields, key: &'static str) -> Result<Color, FieldError> {
        match fields.str(key)? {
            Some(text) => side_of(key, text),
            None => fields.needs(key, "\"white\" or \"black\""),
        }
    }
}

/// One word of a fixed vocabulary ([`Word`]).
pub(crate) struct WireWord;

impl<T: Word> WireField<T> for WireWord {
    fn write(v: &T, key: &str, out: &mut String) {
        push(out, key, format_args!("\"{}\"", v.as_str()));
    }
    fn read(fields: &Fields, key: &'static str) -> Result<T, FieldError> {
        match fields.str(key)? {
            Some(text) => Ok(text.parse::<T>()?),
            None => {
                let choices: Vec<&str> = T::ALL.iter().map(|v| v.as_str()).collect();
                fields.needs(key, format!("one of {}", choices.join(", ")))
            }
        }
    }
}

/// A word that may be left out for its default (a result's reason: the
/// arbiter's).
pub(crate) struct WireWordOr;

impl<T: Word + Default> WireField<T> for WireWordOr {
    fn write(v: &T, key: &str, out: &mut String) {
        <WireWord as WireField<T>>::write(v, key, out);
    }
    fn read(fields: &Fields, key: &'static str) -> Result<T, FieldError> {
        match fields.str(key)? {
            Some(text) => Ok(text.parse::<T>()?),
            None => Ok(T::default()),
        }
    }
}

/// A range of [`range`], as a type.
pub(crate) trait Ranged {
    const RANGE: Range<u64>;
}

macro_rules! ranged {
    ($($name:ident = $range:path),+ $(,)?) => {
        $(pub(crate) struct $name; impl Ranged for $name { const RANGE: Range<u64> = $range; })+
    };
}

ranged!(
    ClockMsRange = range::CLOCK_MS,
    AddedMsRange = range::ADDED_MS,
    IncrementMsRange = range::INCREMENT_MS,
    MovesRange = range::MOVES,
    PlyRange = range::PLY,
    LevelRange = range::LEVEL,
    PairGameRange = range::PAIR_GAME,
);

/// A whole number in the range `R`.
pub(crate) struct WireNumber<R>(std::marker::PhantomData<R>);

fn read_number<R: Ranged>(fields: &Fields, key: &'static str) -> Result<u64, FieldError> {
    match fields.get(key) {
        Some(v) => number(key, v, &R::RANGE),
        None => {
            fields.needs(key, format!("{} to {} {}", R::RANGE.values.start(), R::RANGE.values.end(), R::RANGE.means))
        }
    }
}

impl<R: Ranged> WireField<u64> for WireNumber<R> {
    fn write(v: &u64, key: &str, out: &mut String) {
        push(out, key, format_args!("{v}"));
    }
    fn read(fields: &Fields, key: &'static str) -> Result<u64, FieldError> {
        read_number::<R>(fields, key)
    }
}

// The ranges of counts are far inside a u32, and the levels' inside a u8.
impl<R: Ranged> WireField<u32> for WireNumber<R> {
    fn write(v: &u32, key: &str, out: &mut String) {
        push(out, key, format_args!("{v}"));
    }
    fn read(fields: &Fields, key: &'static str) -> Result<u32, FieldError> {
        let v = read_number::<R>(fields, key)?;
        u32::try_from(v).map_err(|_| FieldError::TooLarge { key, value: v })
    }
}

impl<R: Ranged> WireField<u8> for WireNumber<R> {
    fn write(v: &u8, key: &str, out: &mut String) {
        push(out, key, format_args!("{v}"));
    }
    fn read(fields: &Fields, key: &'static str) -> Result<u8, FieldError> {
        let v = read_number::<R>(fields, key)?;
        u8::try_from(v).map_err(|_| FieldError::TooLarge { key, value: v })
    }
}

/// `true` or `false`.
pub(crate) struct WireFlag;

impl WireField<bool> for WireFlag {
    fn write(v: &bool, key: &str, out: &mut String) {
        push(out, key, format_args!("{v}"));
    }
    fn read(fields: &Fields, key: &'static str) -> Result<bool, FieldError> {
        match fields.bool(key)? {
            Some(b) => Ok(b),
            None => fields.needs(key, "true or false"),
        }
    }
}

/// The piece a pawn promotes to: `q`, `r`, `b` or `n` (either case read).
pub(crate) struct WirePromotion;

impl WireField<Role> for WirePromotion {
    fn write(v: &Role, key: &str, out: &mut String) {
        push(out, key, format_args!("\"{}\"", v.char()));
    }
    fn read(fields: &Fields, key: &'static str) -> Result<Role, FieldError> {
        match fields.str(key)? {
            Some("q" | "Q") => Ok(Role::Queen),
            Some("r" | "R") => Ok(Role::Rook),
            Some("b" | "B") => Ok(Role::Bishop),
            Some("n" | "N") => Ok(Role::Knight),
            Some(other) => Err(FieldError::NotPromotion(other.to_owned())),
            None => fields.needs(key, "q, r, b or n"),
        }
    }
}

/// A move in UCI notation.
pub(crate) struct WireUci;

impl WireField<UciMove> for WireUci {
    fn write(v: &UciMove, key: &str, out: &mut String) {
        push(out, key, format_args!("\"{v}\""));
    }
    fn read(fields: &Fields, key: &'static str) -> Result<UciMove, FieldError> {
        match fields.str(key)? {
            Some(text) => text.parse().map_err(|_| FieldError::NotUci { key, found: text.to_owned() }),
            None => fields.needs(key, "a move in UCI notation"),
        }
    }
}

/// The engine's score (`cp` or `mate`) and line (`pv`), if given: fields of
/// the line itself, not one field.
pub(crate) struct WireEval;

impl WireField<Option<Eval>> for WireEval {
    fn write(v: &Option<Eval>, _: &str, out: &mut String) {
        let Some(eval) = v else { return };
        match eval.score {
            Score::Cp(cp) => push(out, "cp", format_args!("{cp}")),
            Score::Mate(n) => push(out, "mate", format_args!("{n}")),
        }
        out.push_str(r#", "pv": ["#);
        for (i, m) in eval.line().enumerate() {
            use std::fmt::Write as _;
            let _ = write!(out, r#"{}"{m}""#, if i > 0 { ", " } else { "" });
        }
        out.push(']');
    }
    fn read(fields: &Fields, _: &'static str) -> Result<Option<Eval>, FieldError> {
        let int = |key: &'static str, v: &Value| -> Result<i32, FieldError> {
            let found = || FieldError::NotInteger { key, found: v.to_string() };
            v.as_i64().and_then(|v| i32::try_from(v).ok()).ok_or_else(found)
        };
        let score = match (fields.get("cp"), fields.get("mate")) {
            (None, None) => return Ok(None),
            (Some(cp), None) => Score::Cp(int("cp", cp)?),
            (None, Some(mate)) => Score::Mate(int("mate", mate)?),
            (Some(_), Some(_)) => return Err(FieldError::TwoScores),
        };
        let moves: &[Value] = match fields.get("pv") {
            None => &[],
            Some(Value::Array(moves)) => moves,
            Some(other) => return Err(FieldError::PvNotList(other.to_string())),
        };
        // The line is kept to its first moves; the rest is not read.
        let mut pv = [None; PV_MAX];
        for (slot, m) in pv.iter_mut().zip(moves) {
            let parsed = m.as_str().and_then(|text| text.parse().ok());
            *slot = Some(parsed.ok_or_else(|| FieldError::PvNotUci(m.to_string()))?);
        }
        Ok(Some(Eval { score, pv }))
    }
}

/// A question: `what` (the times when left out) and the fields its kind
/// needs.
pub(crate) struct WireRequest;

impl WireField<Request> for WireRequest {
    fn write(r: &Request, key: &str, out: &mut String) {
        push(out, key, format_args!("\"{}\"", r.as_str()));
        match *r {
            Request::Pieces { side, role } => {
                <WireSide as WireField<Color>>::write(&side, "side", out);
                if let Some(role) = role {
                    push(out, "role", format_args!("\"{}\"", role.char()));
                }
            }
            Request::Rank(rank) => push(out, "rank", format_args!("{}", rank.char())),
            Request::File(file) => push(out, "file", format_args!("\"{}\"", file.char())),
            Request::Square(sq) => push(out, "sq", format_args!("\"{sq}\"")),
            Request::Time | Request::Position | Request::LastMove | Request::MovesToControl | Request::Hint => {}
        }
    }
    fn read(fields: &Fields, key: &'static str) -> Result<Request, FieldError> {
        let what = fields.str(key)?.unwrap_or("time");
        let field = |key: &'static str| -> Result<String, FieldError> {
            fields.str(key)?.map(str::to_owned).ok_or_else(|| FieldError::RequestNeeds { what: what.to_owned(), key })
        };
        let words: Vec<String> = match what {
            "pieces" => {
                let mut words = vec![what.to_owned(), field("side")?];
                words.extend(fields.str("role")?.map(|r| r.to_ascii_lowercase()));
                words
            }
            "rank" => {
                let rank = match fields.get("rank") {
                    Some(Value::Number(n)) => n.to_string(),
                    Some(other) => return Err(FieldError::RankNotNumber(other.to_string())),
                    None => return Err(FieldError::RequestNeeds { what: what.to_owned(), key: "rank" }),
                };
                vec![what.to_owned(), rank]
            }
            "file" => vec![what.to_owned(), field("file")?],
            "square" => vec![what.to_owned(), field("sq")?],
            other => vec![other.to_owned()],
        };
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        Request::from_words(&words)
    }
}

/// Appends `, "key": value`.
fn push(out: &mut String, key: &str, value: std::fmt::Arguments) {
    use std::fmt::Write as _;
    let _ = write!(out, r#", "{key}": {value}"#);
}

/// The table of inputs. Each row: the `input` word, then the variant with
/// its fields — `name: Type as Codec`, the key being the field's name, or
/// for a one-field variant `("key": Type as Codec)`. Fields are written in
/// the order given.
macro_rules! inputs {
    ($(
        $(#[$meta:meta])*
        $word:literal => $variant:ident $(($key:literal: $ty:ty as $codec:ty))? $({ $($field:ident: $fty:ty as $fcodec:ty),+ $(,)? })?
    ),+ $(,)?) => {
        /// Inputs other than sensors and levers. Everything the core reacts
        /// to is in the trace, so a replay reproduces the live game exactly.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Input {
            $($(#[$meta])* $variant $(($ty))? $({ $($field: $fty),+ })?),+
        }

        impl Input {
            /// Every kind, as `input` spells it.
            pub const KINDS: &'static [&'static str] = &[$($word),+];

            /// The `input` word of this one.
            pub fn as_str(&self) -> &'static str {
                match self {
                    $(Input::$variant { .. } => $word),+
                }
            }

            /// Appends the fields after `"input": "…"`, each `, "key": value`.
            pub(crate) fn write_fields(&self, out: &mut String) {
                $(input_shape!(write self out $variant $(($key: $ty as $codec))? $({ $($field: $fty as $fcodec),+ })?);)+
            }

            /// The input named `word`, from the line's fields.
            pub(crate) fn read(word: &str, fields: &mut Fields) -> Result<Input, FieldError> {
                match word {
                    $($word => {
                        fields.input = $word;
                        Ok(input_shape!(read fields $variant $(($key: $ty as $codec))? $({ $($field: $fty as $fcodec),+ })?))
                    })+
                    other => Err(FieldError::UnknownInput(other.to_owned())),
                }
            }
        }
    };
}

/// One row of the table, by its shape: no fields, one, or named ones.
macro_rules! input_shape {
    (write $s:ident $out:ident $variant:ident) => {};
    (write $s:ident $out:ident $variant:ident ($key:literal: $ty:ty as $codec:ty)) => {
        if let Input::$variant(v) = $s {
            <$codec as WireField<$ty>>::write(v, $key, $out);
        }
    };
    (write $s:ident $out:ident $variant:ident { $($field:ident: $fty:ty as $fcodec:ty),+ }) => {
        if let Input::$variant { $($field),+ } = $s {
            $(<$fcodec as WireField<$fty>>::write($field, stringify!($field), $out);)+
        }
    };
    (read $f:ident $variant:ident) => {
        Input::$variant
    };
    (read $f:ident $variant:ident ($key:literal: $ty:ty as $codec:ty)) => {
        Input::$variant(<$codec as WireField<$ty>>::read($f, $key)?)
    };
    (read $f:ident $variant:ident { $($field:ident: $fty:ty as $fcodec:ty),+ }) => {
        Input::$variant { $($field: <$fcodec as WireField<$fty>>::read($f, stringify!($field))?),+ }
    };
}

inputs! {
    /// The promotion selector: the next promotion is to this piece.
    "promote" => Promote("piece": Role as WirePromotion),
    /// A player claims (A.5.2 illegal move, 9.2 threefold, 9.3 fifty moves).
    "claim" => Claim { side: Color as WireSide, claim: Claim as WireWord },
    /// The arbiter stops the clocks (6.11).
    "pause" => Pause,
    /// The clocks run again; also how players resume a recovered game.
    "resume" => Resume,
    /// The arbiter sets both clocks (6.10.2, 7.1).
    "set_clock" => SetClock { white_ms: Ms as WireNumber<ClockMsRange>, black_ms: Ms as WireNumber<ClockMsRange> },
    /// The arbiter sets the move counter (6.10.2, 7.1).
    "set_moves" => SetMoves { white_moves: u32 as WireNumber<MovesRange>, black_moves: u32 as WireNumber<MovesRange> },
    /// Two boards, one game: the time `side` had after its move, as the
    /// partner board that keeps that player's clock reported it; this
    /// board's clock shows it from now on (a network delay costs no one time).
    "partner_clock" => PartnerClock { side: Color as WireSide, ms: Ms as WireNumber<ClockMsRange> },
    /// An online game whose header says `server_clock`: both clocks as the
    /// server had them when its state came (its `gameState`), and whether
    /// its clock runs (Lichess's starts once each side has moved). This
    /// board's clocks show them from now on, unsaid.
    "server_clock" => ServerClock { white_ms: Ms as WireNumber<ClockMsRange>, black_ms: Ms as WireNumber<ClockMsRange>, running: bool as WireFlag },
    /// Two boards at one table, the clock at the partner board
    /// (`table_clock: partner`): `side` pressed it there, and had `ms` after
    /// the press as that clock kept it. A press as any other (6.2.1): of
    /// this board's player, it completes their move; of the partner's
    /// player, it hands the clock over before their move arrives.
    "table_press" => TablePress { side: Color as WireSide, ms: Ms as WireNumber<ClockMsRange> },
    /// Two boards at one table, the clock at this board (`table_clock:
    /// here`): the partner board ruled the press of ply `ply`, which handed
    /// the clock over here, as no move (7.5.1, 7.5.3). The clock is as it
    /// was before that press.
    "press_ruled" => PressRuled { ply: u32 as WireNumber<PlyRange> },
    /// Two boards, one game: the game this board and its partner agreed
    /// to play, as each names it — the number White's board drew for it,
    /// and Black's. A partner's message counts only for this game, so
    /// nothing of an earlier game reaches this one; journaled, so a board
    /// restarted goes on with the same game.
    "pair_game" => PairGame { white: u64 as WireNumber<PairGameRange>, black: u64 as WireNumber<PairGameRange> },
    /// The arbiter adds time to one side (7.5.5, 9.5.3, 12.9.2).
    "add_time" => AddTime { side: Color as WireSide, ms: Ms as WireNumber<AddedMsRange> },
    /// Guidelines III.4: a 5-second increment for both from now on.
    "increment" => Increment { ms: Ms as WireNumber<IncrementMsRange> },
    /// A result decided off the board: resignation, agreement, arbiter.
    "result" => Result { result: GameResult as WireWord, reason: OffBoardReason as WireWordOr },
    /// A player asks a question: the times and move count (D.2.6.1,
    /// D.2.10.4), the position, where pieces stand, the last move.
    "request" => Request("what": Request as WireRequest),
    /// The full search's answer to the game's question whether `side` can
    /// still checkmate, in the position after ply `ply` (5.2.2, 6.9,
    /// 7.5.5). The daemon searches off the game loop and journals the
    /// answer, so a replay rules as the live game did.
    "verdict" => Verdict { ply: u32 as WireNumber<PlyRange>, side: Color as WireSide, verdict: MateVerdict as WireWord },
    /// The engine's choice for ply `ply` (the header's `engine` side), to
    /// be carried out on the board. Journaled, so a game against the engine
    /// replays exactly.
    "opponent" => Opponent { ply: u32 as WireNumber<PlyRange>, uci: UciMove as WireUci, eval: Option<Eval> as WireEval },
    /// The engine's suggestion for ply `ply`, as asked for (`request hint`).
    "hint" => Hint { ply: u32 as WireNumber<PlyRange>, uci: UciMove as WireUci },
    /// The engine's level was set at the board (0 to 10).
    "engine_level" => EngineLevel("level": u8 as WireNumber<LevelRange>),
    /// `side` offers a draw (9.1.2), or accepts the opponent's offer that
    /// stands: the engine with its move, or a player.
    "draw_offer" => DrawOffer { side: Color as WireSide },
    /// Whether a clock whose press completes a move is at the board (a DGT
    /// clock plugged into a DGT board, or unplugged); without one, a move
    /// is complete once the board holds still on it.
    "clock_connected" => ClockConnected("connected": bool as WireFlag),
    /// A player's answer or request to the online game's server, made at
    /// the board: journaled, changing nothing in the game itself.
    "online" => Online("ask": OnlineAsk as WireWord),
    /// The online game's server took moves back (a takeback agreed there,
    /// or the board's move refused): the game goes back to the position
    /// where `ply` is to be made, whichever side is to move there, and the
    /// board is guided back to it.
    "take_back" => TakeBack { ply: u32 as WireNumber<PlyRange> },
    /// The board's own side's move of `ply`, made elsewhere (on the online
    /// server's website): carried out on the board as an opponent's move
    /// is, and sent nowhere — the server has it.
    "website_move" => WebsiteMove { ply: u32 as WireNumber<PlyRange>, uci: UciMove as WireUci },
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
    pub fn from_words(words: &[&str]) -> Result<Request, FieldError> {
        match words {
            [] => Err(FieldError::NotAQuestion),
            ["pieces", side] => Ok(Request::Pieces { side: side_of("side", side)?, role: None }),
            ["pieces", side, role] => {
                Ok(Request::Pieces { side: side_of("side", side)?, role: Some(role_word(role)?) })
            }
            ["rank", rank] => rank_word(rank).map(Request::Rank),
            ["file", file] => file_word(file).map(Request::File),
            ["square", sq] => square_word(sq).map(Request::Square),
            [what] => what.parse(),
            _ => Err(FieldError::NotAQuestion),
        }
    }
}

/// The questions that need nothing more than their name.
impl std::str::FromStr for Request {
    type Err = FieldError;
    fn from_str(s: &str) -> Result<Self, FieldError> {
        match s {
            "time" => Ok(Request::Time),
            "position" => Ok(Request::Position),
            "last_move" => Ok(Request::LastMove),
            "moves_to_control" => Ok(Request::MovesToControl),
            "hint" => Ok(Request::Hint),
            "pieces" => Err(FieldError::PiecesNeedSide),
            "rank" | "file" | "square" => Err(FieldError::NeedsWhich(s.to_owned())),
            other => Err(FieldError::UnknownRequest { found: other.to_owned() }),
        }
    }
}

fn role_word(text: &str) -> Result<Role, FieldError> {
    let mut chars = text.chars();
    match (chars.next().and_then(Role::from_char), chars.next()) {
        (Some(role), None) => Ok(role),
        _ => Err(FieldError::NotRole(text.to_owned())),
    }
}

fn rank_word(text: &str) -> Result<Rank, FieldError> {
    match text.as_bytes() {
        [c @ b'1'..=b'8'] => Ok(Rank::new(u32::from(c - b'1'))),
        _ => Err(FieldError::NotRank(text.to_owned())),
    }
}

fn file_word(text: &str) -> Result<File, FieldError> {
    match text.as_bytes() {
        [c @ b'a'..=b'h'] => Ok(File::new(u32::from(c - b'a'))),
        _ => Err(FieldError::NotFile(text.to_owned())),
    }
}

pub(crate) fn square_word(text: &str) -> Result<Square, FieldError> {
    Square::from_ascii(text.as_bytes()).map_err(|_| FieldError::NotSquare(text.to_owned()))
}
