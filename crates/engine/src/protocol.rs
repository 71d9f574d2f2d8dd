//! The UCI protocol as text, without I/O: the commands tactus sends and the
//! lines engines answer.
//!
//! Written from the protocol's description ("Description of the universal
//! chess interface (UCI)", Stefan Meyer-Kahlen, April 2004). Parsing is
//! lenient where the description asks for it: unknown tokens are skipped,
//! any amount of white space separates tokens, and a line that means nothing
//! to us is [`Message::Other`], never an error.

use std::fmt;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode};

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
    Spin { default: i64, min: i64, max: i64 },
    Combo { default: String, choices: Vec<String> },
    Button,
    String { default: String },
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
        "option" => parse_option(&rest).map_or(Message::Other, Message::Option),
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

fn parse_option(rest: &[&str]) -> Option<UciOption> {
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
    let default = field("default").unwrap_or("");
    let int = |key: &str| field(key).and_then(|v| v.parse::<i64>().ok());
    let kind = match field("type")? {
        "check" => OptionKind::Check { default: default == "true" },
        "spin" => {
            let (min, max) = (int("min")?, int("max")?);
            OptionKind::Spin { default: int("default").unwrap_or(min).clamp(min.min(max), max.max(min)), min, max }
        }
        "combo" => OptionKind::Combo {
            default: default.to_owned(),
            choices: fields
                .iter()
                .filter(|(k, _)| *k == "var")
                .map(|(_, v)| v.clone())
                .take(MAX_COMBO_CHOICES)
                .collect(),
        },
        "button" => OptionKind::Button,
        "string" => {
            OptionKind::String { default: if default == "<empty>" { String::new() } else { default.to_owned() } }
        }
        _ => return None,
    };
    Some(UciOption { name, kind })
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
                kind: OptionKind::Spin { default: 20, min: 0, max: 20 }
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
        // A spin without bounds, a type we do not know, no name: ignored.
        assert_eq!(parse_line("option name Hash type spin default 16"), Message::Other);
        assert_eq!(parse_line("option name X type colour default red"), Message::Other);
        assert_eq!(parse_line("option type check default true"), Message::Other);
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
