//! The UCI protocol as text, without I/O: the commands tactus sends and the
//! lines engines answer.
//!
//! Written from the protocol's description ("Description of the universal
//! chess interface (UCI)", Stefan Meyer-Kahlen, April 2004). Parsing is
//! lenient where the description asks for it: unknown tokens are skipped,
//! any amount of white space separates tokens, and a line that means nothing
//! to us is [`Message::Other`], never an error.
//!
//! What an engine writes is a stranger's data: an option that cannot be
//! taken as written is brought into shape or refused, with the reason
//! ([`Message::OptionFault`]), and no value, however large, negative or
//! malformed, makes the parser or what uses its results panic.

use std::fmt;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode};

use crate::line::Line;

/// At most this many moves of a principal variation are kept: an engine
/// printing an endless `pv` must not grow memory.
pub const MAX_PV: usize = 64;
/// At most this many combo choices are kept per option.
pub const MAX_COMBO_CHOICES: usize = 64;

/// A line an engine wrote, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    IdName(String),
    IdAuthor(String),
    UciOk,
    ReadyOk,
    Option(UciOption),
    /// An option line that could not be taken as written: `kept` is what
    /// was made of it (a default brought into range, choices capped), none
    /// if it is refused (bounds upside down or no numbers, a type we do not
    /// know).
    OptionFault {
        name: String,
        reason: String,
        kept: Option<UciOption>,
    },
    BestMove {
        best: Best,
        ponder: Option<UciMove>,
    },
    Info(Box<Info>),
    /// Anything else (`copyprotection`, `registration`, words we do not
    /// know, garbage): the protocol says to ignore it.
    Other,
}

/// What followed `bestmove`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Best {
    Move(UciMove),
    /// `bestmove (none)` or `bestmove 0000`: the engine sees no legal move.
    NoMove,
    /// Something that is not a move in UCI notation (kept, shortened, for
    /// the error message).
    Garbled(String),
}

/// An option the engine offers (`option name … type …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UciOption {
    pub name: String,
    pub kind: OptionKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionKind {
    Check { default: bool },
    Spin(Spin),
    Combo { default: String, choices: Vec<String> },
    Button,
    String { default: String },
}

/// A `spin` option's bounds and default, `min <= default <= max`: made by
/// [`Spin::new`] only, so a range upside down never reaches a clamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spin {
    min: i64,
    default: i64,
    max: i64,
}

impl Spin {
    /// The option's range, none when `min > max`; the default is brought
    /// within it.
    pub fn new(min: i64, max: i64, default: i64) -> Option<Spin> {
        (min <= max).then(|| Spin { min, default: default.clamp(min, max), max })
    }

    pub fn min(self) -> i64 {
        self.min
    }

    pub fn max(self) -> i64 {
        self.max
    }

    pub fn default(self) -> i64 {
        self.default
    }

    /// `value` brought within the range.
    pub fn clamp(self, value: i64) -> i64 {
        value.clamp(self.min, self.max)
    }

    pub fn contains(self, value: i64) -> bool {
        (self.min..=self.max).contains(&value)
    }
}

/// An engine's evaluation, from the side to move's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (not plies); negative: the side to move is
    /// mated.
    Mate(i32),
}

impl Score {
    /// One scale for comparing scores: mates beyond any centipawn value,
    /// a quicker mate better than a slower one.
    pub fn to_cp(self) -> i32 {
        const MATE: i32 = 100_000;
        match self {
            Score::Cp(cp) => cp.clamp(-MATE / 2, MATE / 2),
            Score::Mate(n) if n > 0 => MATE - n.min(1000),
            Score::Mate(n) => -MATE - n.max(-1000),
        }
    }

    /// The same evaluation seen by the other side.
    pub fn negate(self) -> Score {
        match self {
            Score::Cp(cp) => Score::Cp(cp.saturating_neg()),
            Score::Mate(n) => Score::Mate(n.saturating_neg()),
        }
    }
}

/// Whether a score is exact or only a bound found while searching.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Bound {
    #[default]
    Exact,
    Lower,
    Upper,
}

/// An `info` line: what the engine reports while it searches.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Info {
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    pub multipv: Option<u32>,
    pub score: Option<Score>,
    pub bound: Bound,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    pub time_ms: Option<u64>,
    /// The principal variation, at most [`MAX_PV`] moves, cut at the first
    /// token that is not a move.
    pub pv: Vec<UciMove>,
    /// `info string …`: free text.
    pub string: Option<String>,
}

/// The times of a game clock, for `go wtime … btime …`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockTimes {
    pub white_ms: u64,
    pub black_ms: u64,
    pub white_inc_ms: u64,
    pub black_inc_ms: u64,
    /// Moves until the next time control, if the control has one.
    pub moves_to_go: Option<u32>,
}

impl ClockTimes {
    /// The clocks after the side `turn` has spent `spent` more before the
    /// engine is asked (a restart, a retry). Never below 1 ms: some engines
    /// read `wtime 0` as no clock.
    pub fn after(mut self, turn: Color, spent: Duration) -> ClockTimes {
        let spent = u64::try_from(spent.as_millis()).unwrap_or(u64::MAX);
        let own = turn.fold_wb(&mut self.white_ms, &mut self.black_ms);
        *own = own.saturating_sub(spent).max(1);
        self
    }
}

/// The limits of one search (`go …`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Go {
    pub clock: Option<ClockTimes>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime_ms: Option<u64>,
}

impl Go {
    /// Whether anything bounds the search (a bare `go` searches until
    /// `stop` in most engines).
    pub fn is_bounded(&self) -> bool {
        self.clock.is_some() || self.depth.is_some() || self.nodes.is_some() || self.movetime_ms.is_some()
    }
}

/// What comes after `position`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    StartPos,
    Fen(String),
}

/// A command tactus sends to an engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Uci,
    IsReady,
    UciNewGame,
    /// Built with [`Command::set_option`], which refuses names and values
    /// that would break the line.
    SetOption {
        name: String,
        value: Option<String>,
    },
    Position {
        start: Start,
        moves: Vec<UciMove>,
    },
    Go(Go),
    Stop,
    Quit,
}

/// A `setoption` that cannot be written as one unambiguous line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadOption {
    #[error("option name {0:?} is empty, holds a line break or the word \"value\"")]
    Name(String),
    #[error("value {value:?} of option {name:?} holds a line break")]
    Value { name: String, value: String },
}

impl Command {
    pub fn set_option(name: &str, value: Option<&str>) -> Result<Command, BadOption> {
        let breaks = |s: &str| s.contains(['\n', '\r']);
        if name.trim().is_empty() || breaks(name) || name.split_whitespace().any(|t| t == "value") {
            return Err(BadOption::Name(name.to_owned()));
        }
        if let Some(v) = value
            && breaks(v)
        {
            return Err(BadOption::Value { name: name.to_owned(), value: v.to_owned() });
        }
        Ok(Command::SetOption { name: name.trim().to_owned(), value: value.map(str::to_owned) })
    }

    /// `position startpos|fen … moves …` for a game: `startpos` when the game
    /// began from the standard start in standard chess; castling written
    /// king-takes-rook in Chess960 (the engine has `UCI_Chess960` set).
    pub fn position(line: &Line) -> Command {
        let mode = line.castling_mode();
        let start = if mode == CastlingMode::Standard && *line.initial() == Chess::default() {
            Start::StartPos
        } else {
            Start::Fen(Fen::from_position(line.initial(), EnPassantMode::Legal).to_string())
        };
        let moves = line.moves().iter().map(|m| m.to_uci(mode)).collect();
        Command::Position { start, moves }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Uci => f.write_str("uci"),
            Command::IsReady => f.write_str("isready"),
            Command::UciNewGame => f.write_str("ucinewgame"),
            Command::Stop => f.write_str("stop"),
            Command::Quit => f.write_str("quit"),
            Command::SetOption { name, value: None } => write!(f, "setoption name {name}"),
            Command::SetOption { name, value: Some(v) } => write!(f, "setoption name {name} value {v}"),
            Command::Position { start, moves } => {
                match start {
                    Start::StartPos => f.write_str("position startpos")?,
                    Start::Fen(fen) => write!(f, "position fen {fen}")?,
                }
                if !moves.is_empty() {
                    f.write_str(" moves")?;
                    for m in moves {
                        write!(f, " {m}")?;
                    }
                }
                Ok(())
            }
            Command::Go(go) => {
                f.write_str("go")?;
                if let Some(c) = go.clock {
                    write!(
                        f,
                        " wtime {} btime {} winc {} binc {}",
                        c.white_ms, c.black_ms, c.white_inc_ms, c.black_inc_ms
                    )?;
                    if let Some(n) = c.moves_to_go {
                        write!(f, " movestogo {n}")?;
                    }
                }
                if let Some(d) = go.depth {
                    write!(f, " depth {d}")?;
                }
                if let Some(n) = go.nodes {
                    write!(f, " nodes {n}")?;
                }
                if let Some(t) = go.movetime_ms {
                    write!(f, " movetime {t}")?;
                }
                Ok(())
            }
        }
    }
}

const COMMAND_WORDS: [&str; 8] =
    ["id", "uciok", "readyok", "bestmove", "copyprotection", "registration", "info", "option"];

/// Parses one line an engine wrote. Never fails: what we do not understand
/// is [`Message::Other`].
pub fn parse_line(line: &str) -> Message {
    let mut tokens = line.split_whitespace().skip_while(|t| !COMMAND_WORDS.contains(t));
    let Some(word) = tokens.next() else { return Message::Other };
    let rest: Vec<&str> = tokens.collect();
    match word {
        "uciok" => Message::UciOk,
        "readyok" => Message::ReadyOk,
        "id" => match rest.split_first() {
            Some((&"name", name)) => Message::IdName(name.join(" ")),
            Some((&"author", author)) => Message::IdAuthor(author.join(" ")),
            _ => Message::Other,
        },
        "bestmove" => parse_bestmove(&rest),
        "info" => Message::Info(Box::new(parse_info(&rest))),
        "option" => parse_option(&rest).unwrap_or(Message::Other),
        _ => Message::Other,
    }
}

fn parse_bestmove(rest: &[&str]) -> Message {
    let best = match rest.first() {
        None | Some(&"(none)") => Best::NoMove,
        Some(text) => match text.parse::<UciMove>() {
            Ok(UciMove::Null) => Best::NoMove,
            Ok(m) => Best::Move(m),
            Err(_) => Best::Garbled(text.chars().take(32).collect()),
        },
    };
    let ponder = match rest.get(1..3) {
        Some(["ponder", m]) => m.parse::<UciMove>().ok().filter(|m| *m != UciMove::Null),
        _ => None,
    };
    Message::BestMove { best, ponder }
}

const INFO_WORDS: [&str; 20] = [
    "depth",
    "seldepth",
    "time",
    "nodes",
    "pv",
    "multipv",
    "score",
    "currmove",
    "currmovenumber",
    "hashfull",
    "nps",
    "tbhits",
    "sbhits",
    "cpuload",
    "string",
    "refutation",
    "currline",
    "wdl",
    "lowerbound",
    "upperbound",
];

fn parse_info(rest: &[&str]) -> Info {
    let mut info = Info::default();
    let mut i = 0;
    let number = |i: usize| rest.get(i + 1).and_then(|t| t.parse::<u64>().ok());
    while i < rest.len() {
        match rest[i] {
            "depth" => info.depth = number(i).and_then(|n| u32::try_from(n).ok()),
            "seldepth" => info.seldepth = number(i).and_then(|n| u32::try_from(n).ok()),
            "multipv" => info.multipv = number(i).and_then(|n| u32::try_from(n).ok()),
            "nodes" => info.nodes = number(i),
            "nps" => info.nps = number(i),
            "time" => info.time_ms = number(i),
            "score" => {
                let value = rest.get(i + 2).and_then(|t| t.parse::<i32>().ok());
                info.score = match (rest.get(i + 1), value) {
                    (Some(&"cp"), Some(v)) => Some(Score::Cp(v)),
                    (Some(&"mate"), Some(v)) => Some(Score::Mate(v)),
                    _ => None,
                };
                i += 3;
                continue;
            }
            "lowerbound" => info.bound = Bound::Lower,
            "upperbound" => info.bound = Bound::Upper,
            "string" => {
                info.string = Some(rest[i + 1..].join(" "));
                break;
            }
            "pv" => {
                info.pv = rest[i + 1..]
                    .iter()
                    .map_while(|t| t.parse::<UciMove>().ok().filter(|m| *m != UciMove::Null))
                    .take(MAX_PV)
                    .collect();
                i += 1 + info.pv.len();
                // Skip the rest of an over-long pv.
                while i < rest.len() && !INFO_WORDS.contains(&rest[i]) {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    info
}

/// A value from an engine as a message shows it: quoted, and cut short.
fn shown(value: &str) -> String {
    const SHOWN: usize = 32;
    let mut out: String = value.chars().take(SHOWN).collect();
    if value.chars().nth(SHOWN).is_some() {
        out.push('…');
    }
    format!("{out:?}")
}

fn parse_option(rest: &[&str]) -> Option<Message> {
    const KEYS: [&str; 6] = ["name", "type", "default", "min", "max", "var"];
    // Split into (key, value) fields; a value runs to the next key word.
    let mut fields: Vec<(&str, String)> = Vec::new();
    for token in rest {
        if KEYS.contains(token) {
            fields.push((token, String::new()));
        } else if let Some((_, value)) = fields.last_mut() {
            if !value.is_empty() {
                value.push(' ');
            }
            value.push_str(token);
        }
    }
    let field = |key: &str| fields.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str());
    let name = field("name").filter(|n| !n.is_empty())?.to_owned();
    let refused = |reason: String| Some(Message::OptionFault { name: name.clone(), reason, kept: None });
    // What was changed to take the option: said with it.
    let mut amended: Vec<String> = Vec::new();
    let default = field("default");
    let kind = match field("type").unwrap_or("") {
        "check" => OptionKind::Check {
            default: match default {
                None | Some("false") => false,
                Some("true") => true,
                Some(other) => {
                    amended.push(format!("default {} is neither true nor false: taken as false", shown(other)));
                    false
                }
            },
        },
        "spin" => {
            let bound = |key: &str| match field(key) {
                None | Some("") => Err(format!("has no {key}")),
                Some(v) => v.parse::<i64>().map_err(|_| format!("{key} {} is not a whole number of 64 bits", shown(v))),
            };
            let (min, max) = match (bound("min"), bound("max")) {
                (Ok(min), Ok(max)) => (min, max),
                (Err(reason), _) | (_, Err(reason)) => return refused(reason),
            };
            let Some(spin) = Spin::new(min, max, min) else {
                return refused(format!("min {min} is above max {max}"));
            };
            let default = match default.map(|v| (v, v.parse::<i64>())) {
                None => min,
                Some((_, Ok(n))) if spin.contains(n) => n,
                Some((_, Ok(n))) => {
                    amended.push(format!("default {n} is outside {min} to {max}: taken as {}", spin.clamp(n)));
                    spin.clamp(n)
                }
                Some((v, Err(_))) => {
                    amended.push(format!("default {} is not a whole number: taken as {min}", shown(v)));
                    min
                }
            };
            OptionKind::Spin(Spin { default, ..spin })
        }
        "combo" => {
            let vars = fields.iter().filter(|(k, _)| *k == "var");
            let offered = vars.clone().count();
            if offered > MAX_COMBO_CHOICES {
                amended.push(format!("{offered} choices: the first {MAX_COMBO_CHOICES} kept"));
            }
            OptionKind::Combo {
                default: default.unwrap_or("").to_owned(),
                choices: vars.map(|(_, v)| v.clone()).take(MAX_COMBO_CHOICES).collect(),
            }
        }
        "button" => OptionKind::Button,
        "string" => OptionKind::String {
            default: match default {
                None | Some("<empty>") => String::new(),
                Some(text) => text.to_owned(),
            },
        },
        other => return refused(format!("type {} is not one of check, spin, combo, button, string", shown(other))),
    };
    let option = UciOption { name, kind };
    Some(if amended.is_empty() {
        Message::Option(option)
    } else {
        Message::OptionFault { name: option.name.clone(), reason: amended.join("; "), kept: Some(option) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Position, Square};

    fn mv(s: &str) -> UciMove {
        s.parse().unwrap()
    }

    #[test]
    fn handshake_lines() {
        assert_eq!(parse_line("id name Stockfish 15.1"), Message::IdName("Stockfish 15.1".into()));
        assert_eq!(
            parse_line("id author the Stockfish developers"),
            Message::IdAuthor("the Stockfish developers".into())
        );
        assert_eq!(parse_line("uciok"), Message::UciOk);
        assert_eq!(parse_line("  readyok  "), Message::ReadyOk);
        // "joho debug on" in the description: unknown leading tokens are skipped.
        assert_eq!(parse_line("xyz uciok"), Message::UciOk);
        assert_eq!(parse_line(""), Message::Other);
        assert_eq!(parse_line("Stockfish 15.1 by the Stockfish developers"), Message::Other);
        assert_eq!(parse_line("\u{fffd}\u{fffd} garbage"), Message::Other);
    }

    #[test]
    fn options_of_every_type() {
        let spin = parse_line("option name Skill Level type spin default 20 min 0 max 20");
        assert_eq!(
            spin,
            Message::Option(UciOption {
                name: "Skill Level".into(),
                kind: OptionKind::Spin(Spin::new(0, 20, 20).unwrap())
            })
        );
        assert_eq!(
            parse_line("option name UCI_Chess960 type check default false"),
            Message::Option(UciOption { name: "UCI_Chess960".into(), kind: OptionKind::Check { default: false } })
        );
        assert_eq!(
            parse_line("option name Clear Hash type button"),
            Message::Option(UciOption { name: "Clear Hash".into(), kind: OptionKind::Button })
        );
        assert_eq!(
            parse_line("option name SyzygyPath type string default <empty>"),
            Message::Option(UciOption {
                name: "SyzygyPath".into(),
                kind: OptionKind::String { default: String::new() }
            })
        );
        assert_eq!(
            parse_line("option name Style type combo default Normal var Solid var Normal var Risky Play"),
            Message::Option(UciOption {
                name: "Style".into(),
                kind: OptionKind::Combo {
                    default: "Normal".into(),
                    choices: vec!["Solid".into(), "Normal".into(), "Risky Play".into()]
                }
            })
        );
        // No name: nothing to name in a message, ignored.
        assert_eq!(parse_line("option type check default true"), Message::Other);
    }

    /// The option's name, the reason, and what was kept of it.
    fn fault(line: &str) -> (String, String, Option<OptionKind>) {
        match parse_line(line) {
            Message::OptionFault { name, reason, kept } => (name, reason, kept.map(|o| o.kind)),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn options_that_cannot_be_taken_as_written_are_refused_with_the_reason() {
        let (name, reason, kept) = fault("option name Skill Level type spin default 10 min 20 max 0");
        assert_eq!((name.as_str(), kept), ("Skill Level", None));
        assert_eq!(reason, "min 20 is above max 0");
        for (line, why) in [
            ("option name Hash type spin default 16", "has no min"),
            ("option name Hash type spin default 16 min 1", "has no max"),
            (
                "option name Hash type spin min 1 max 99999999999999999999",
                "max \"99999999999999999999\" is not a whole number",
            ),
            ("option name Threads type spin min one max 4", "min \"one\" is not a whole number"),
            ("option name X type colour default red", "type \"colour\" is not one of"),
            ("option name X default red", "type \"\" is not one of"),
        ] {
            let (_, reason, kept) = fault(line);
            assert!(reason.contains(why), "{line}: {reason}");
            assert_eq!(kept, None, "{line}");
        }
        // A huge token is cut short in the message.
        let (_, reason, _) = fault(&format!("option name X type spin min {} max 1", "9".repeat(1000)));
        assert!(reason.len() < 100, "{reason}");
    }

    #[test]
    fn options_with_a_value_out_of_shape_are_kept_in_shape_with_the_reason() {
        let spin = |min, max, default| Some(OptionKind::Spin(Spin::new(min, max, default).unwrap()));
        let (_, reason, kept) = fault("option name Contempt type spin default -100000 min -100 max 100");
        assert_eq!(
            (reason.as_str(), kept),
            ("default -100000 is outside -100 to 100: taken as -100", spin(-100, 100, -100))
        );
        let (_, reason, kept) = fault("option name Contempt type spin default lots min 0 max 100");
        assert_eq!((reason.as_str(), kept), ("default \"lots\" is not a whole number: taken as 0", spin(0, 100, 0)));
        let (_, reason, kept) = fault("option name Ponder type check default maybe");
        assert_eq!(kept, Some(OptionKind::Check { default: false }), "{reason}");
        let vars: String = (0..100).map(|i| format!(" var v{i}")).collect();
        let (_, reason, kept) = fault(&format!("option name Many type combo default v0{vars}"));
        assert_eq!(reason, format!("100 choices: the first {MAX_COMBO_CHOICES} kept"));
        assert!(matches!(kept, Some(OptionKind::Combo { choices, .. }) if choices.len() == MAX_COMBO_CHOICES));
        // Bounds at the ends of 64 bits are a range like any other.
        assert_eq!(
            parse_line("option name Wide type spin default 0 min -9223372036854775808 max 9223372036854775807"),
            Message::Option(UciOption {
                name: "Wide".into(),
                kind: OptionKind::Spin(Spin::new(i64::MIN, i64::MAX, 0).unwrap())
            })
        );
    }

    #[test]
    fn bestmove_and_its_oddities() {
        assert_eq!(
            parse_line("bestmove e2e4 ponder e7e5"),
            Message::BestMove { best: Best::Move(mv("e2e4")), ponder: Some(mv("e7e5")) }
        );
        assert_eq!(parse_line("bestmove e7e8q"), Message::BestMove { best: Best::Move(mv("e7e8q")), ponder: None });
        assert_eq!(parse_line("bestmove (none)"), Message::BestMove { best: Best::NoMove, ponder: None });
        assert_eq!(parse_line("bestmove 0000"), Message::BestMove { best: Best::NoMove, ponder: None });
        assert_eq!(parse_line("bestmove"), Message::BestMove { best: Best::NoMove, ponder: None });
        assert_eq!(
            parse_line("bestmove Nf3 ponder zz"),
            Message::BestMove { best: Best::Garbled("Nf3".into()), ponder: None }
        );
    }

    #[test]
    fn info_lines() {
        let Message::Info(info) = parse_line(
            "info depth 12 seldepth 17 multipv 2 score cp -35 upperbound nodes 123456 nps 800000 hashfull 12 tbhits 0 time 154 pv d7d5 e4d5 d8d5",
        ) else {
            panic!("not info")
        };
        assert_eq!(info.depth, Some(12));
        assert_eq!(info.seldepth, Some(17));
        assert_eq!(info.multipv, Some(2));
        assert_eq!(info.score, Some(Score::Cp(-35)));
        assert_eq!(info.bound, Bound::Upper);
        assert_eq!(info.nodes, Some(123_456));
        assert_eq!(info.nps, Some(800_000));
        assert_eq!(info.time_ms, Some(154));
        assert_eq!(info.pv, vec![mv("d7d5"), mv("e4d5"), mv("d8d5")]);

        let Message::Info(mate) = parse_line("info depth 30 score mate -3 pv h7h8 g1g2") else { panic!() };
        assert_eq!(mate.score, Some(Score::Mate(-3)));
        let Message::Info(text) = parse_line("info string NNUE evaluation using nn.nnue enabled") else { panic!() };
        assert_eq!(text.string.as_deref(), Some("NNUE evaluation using nn.nnue enabled"));
        // A pv that turns into garbage stops at the garbage; numbers that do not parse are left out.
        let Message::Info(odd) = parse_line("info depth x pv e2e4 hello nodes 5") else { panic!() };
        assert_eq!(odd.depth, None);
        assert_eq!(odd.pv, vec![mv("e2e4")]);
        assert_eq!(odd.nodes, Some(5));
    }

    #[test]
    fn endless_pv_is_capped() {
        let line = format!("info depth 1 pv {}", "e2e4 e7e5 ".repeat(1000));
        let Message::Info(info) = parse_line(&line) else { panic!() };
        assert_eq!(info.pv.len(), MAX_PV);
    }

    #[test]
    fn scores_compare_on_one_scale() {
        assert!(Score::Mate(1).to_cp() > Score::Mate(5).to_cp());
        assert!(Score::Mate(5).to_cp() > Score::Cp(5000).to_cp());
        assert!(Score::Cp(-5000).to_cp() > Score::Mate(-5).to_cp());
        assert!(Score::Mate(-5).to_cp() > Score::Mate(-1).to_cp());
        assert_eq!(Score::Mate(-2).negate(), Score::Mate(2));
    }

    #[test]
    fn commands_as_text() {
        assert_eq!(Command::Uci.to_string(), "uci");
        assert_eq!(
            Command::set_option("Skill Level", Some("3")).unwrap().to_string(),
            "setoption name Skill Level value 3"
        );
        assert_eq!(Command::set_option("Clear Hash", None).unwrap().to_string(), "setoption name Clear Hash");
        assert!(Command::set_option("evil value x", Some("1")).is_err());
        assert!(Command::set_option("Hash", Some("1\nquit")).is_err());
        assert!(Command::set_option("", Some("1")).is_err());
        let go = Go {
            clock: Some(ClockTimes {
                white_ms: 300_000,
                black_ms: 290_500,
                white_inc_ms: 2000,
                black_inc_ms: 2000,
                moves_to_go: Some(12),
            }),
            depth: Some(3),
            nodes: Some(500),
            movetime_ms: None,
        };
        assert_eq!(
            Command::Go(go).to_string(),
            "go wtime 300000 btime 290500 winc 2000 binc 2000 movestogo 12 depth 3 nodes 500"
        );
        assert_eq!(Command::Go(Go { movetime_ms: Some(100), ..Go::default() }).to_string(), "go movetime 100");
        assert!(!Go::default().is_bounded());
    }

    #[test]
    fn position_commands() {
        let mut line = Line::new(Chess::default());
        assert_eq!(Command::position(&line).to_string(), "position startpos");
        line.push_uci("e2e4").unwrap();
        line.push_uci("e7e5").unwrap();
        assert_eq!(Command::position(&line).to_string(), "position startpos moves e2e4 e7e5");

        let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
        let mut from_fen = Line::from_fen(fen, CastlingMode::Standard).unwrap();
        from_fen.push_uci("f1c4").unwrap();
        assert_eq!(Command::position(&from_fen).to_string(), format!("position fen {fen} moves f1c4"));

        // Standard castling is e1g1; in Chess960 it is king takes rook.
        let castle = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let mut std = Line::from_fen(castle, CastlingMode::Standard).unwrap();
        std.push_uci("e1g1").unwrap();
        assert!(Command::position(&std).to_string().ends_with("moves e1g1"));
        let mut c960 = Line::from_fen(castle, CastlingMode::Chess960).unwrap();
        c960.push_uci("e1h1").unwrap();
        assert!(Command::position(&c960).to_string().ends_with("moves e1h1"));
        assert_eq!(c960.position().board().king_of(shakmaty::Color::White), Some(Square::G1));
        // The standard start played as Chess960 (position 518) is sent as a FEN.
        let c518 =
            Line::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", CastlingMode::Chess960).unwrap();
        assert!(Command::position(&c518).to_string().starts_with("position fen rnbqkbnr/"));
    }
}
