//! `[engine]`, `[pair]` and `[lichess]`, and the one opponent they name:
//! an [`OpponentPlan`], made once the flags are on top, so that a board
//! configured with two opponents does not start and the daemon seats the
//! one it is given.

use std::path::PathBuf;

use serde::{Deserialize, Deserializer};
use shakmaty::Color;
use tactus_lichess::api::SeekSpec;
use tactus_lichess::broadcast::{PushOptions, RoundSpec};
use tactus_lichess::clock::{Clock, ClockError};
use tactus_trace::TableClock;

use super::hall::HallAccess;
use super::keys::{Key, key};
use super::ranged::{BookPlies, EngineLevel, ThinkMs};
use super::values::{BoardId, LichessUrl, PlainName, TimeControlText, parsed, plain_name_or_empty};
use super::{ClockKind, Config, KeyError};

/// A side of the board, as a key or a flag names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    White,
    #[default]
    Black,
}

impl Side {
    pub fn color(self) -> Color {
        match self {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

/// A UCI engine as the opponent.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EngineSettings {
    /// The engine's program; none: no engine plays.
    pub path: Option<PathBuf>,
    pub plays: Side,
    /// 0 (first games: loses to a beginner) to 10 (full strength).
    pub level: EngineLevel,
    /// A Polyglot opening book.
    pub book: Option<PathBuf>,
    /// The book is used for this many plies of the game.
    pub book_plies: BookPlies,
    /// Syzygy tablebases, for an engine that offers `SyzygyPath`.
    pub syzygy: Option<PathBuf>,
    /// Thinking time per move at full strength when the game has no clock (ms).
    pub think_ms: ThinkMs,
    /// A different legal move made for the engine's side is the player's
    /// own choice for it, not a slip to fix.
    pub accept_other_moves: bool,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            path: None,
            plays: Side::Black,
            level: const { EngineLevel::of(3) },
            book: None,
            book_plies: const { BookPlies::of(20) },
            syzygy: None,
            think_ms: const { ThinkMs::of(2000) },
            accept_other_moves: false,
        }
    }
}

/// One game on two boards (Appendix D two-board play; a remote match):
/// this board plays one side, the partner board of the same hall the other.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct PairConfig {
    /// The partner board's name in the hall; none: this board plays alone.
    #[serde(deserialize_with = "plain_name_or_empty")]
    pub with: Option<PlainName>,
    /// The side this board's player has.
    pub plays: Option<Side>,
    /// Where the chess clock is: each board its own (or none), or one at
    /// the table attached to this board or to the partner's.
    pub clock: PairClock,
}

/// The chess clock of a game on two boards (`[pair] clock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum PairClock {
    /// Each board keeps its player's time, with its own clock or none.
    #[default]
    Own,
    /// One clock at the table, attached to this board.
    Here,
    /// One clock at the table, attached to the partner board.
    Partner,
}

/// Lichess: the account's token; for `tactus run`, the games the board plays
/// online (the Board API); for a relay, the broadcast rounds it pushes the
/// hall to.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct LichessConfig {
    /// Lichess's address; a test server's `http://127.0.0.1:PORT`.
    #[serde(deserialize_with = "parsed")]
    pub url: LichessUrl,
    /// The account's personal access token, in a file only the service may
    /// read (mode 600). A broadcast needs the scope `study:write`.
    pub token_file: Option<PathBuf>,
    /// `tactus relay`: the broadcast rounds the hall goes to, each `ID`
    /// (boards 1 to 100) or `ID=FIRST-LAST`, no two sharing a board.
    #[serde(deserialize_with = "rounds")]
    pub broadcast: Vec<RoundSpec>,
    /// `tactus run`: challenge this player at start, with `[game]
    /// time_control`'s clock.
    pub challenge: Option<String>,
    /// `tactus run`: the players whose challenges are accepted at once.
    pub accept_from: Vec<String>,
    /// `tactus run`: seek an opponent at start, with `[game]
    /// time_control`'s clock (the Board API seeks rapid and slower).
    pub seek: bool,
}

impl LichessConfig {
    /// The key that asks for online games, if any does.
    pub fn asking(&self) -> Option<Key> {
        if self.challenge.is_some() {
            Some(key!(lichess.challenge))
        } else if self.seek {
            Some(key!(lichess.seek))
        } else {
            (!self.accept_from.is_empty()).then_some(key!(lichess.accept_from))
        }
    }
}

fn rounds<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<RoundSpec>, D::Error> {
    let rounds = Vec::<String>::deserialize(d)?
        .iter()
        .map(|r| r.parse())
        .collect::<Result<Vec<RoundSpec>, _>>()
        .map_err(serde::de::Error::custom)?;
    if !rounds.is_empty() {
        PushOptions::new(rounds.clone()).map_err(serde::de::Error::custom)?;
    }
    Ok(rounds)
}

/// Who plays the other side, as the configuration names it: at most one.
#[derive(Debug, Clone, PartialEq)]
pub enum OpponentPlan {
    /// Two people play at the board.
    None,
    /// A UCI engine on this machine (`[engine] path`).
    Engine(EnginePlan),
    /// A player on Lichess, through the Board API (`[lichess] token_file`).
    Lichess(LichessPlan),
    /// The player of the partner board of the same hall (`[pair] with`).
    Partner(PartnerPlan),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnginePlan {
    pub path: PathBuf,
    pub side: Color,
    pub level: tactus_engine::Level,
    pub book: Option<PathBuf>,
    pub book_plies: u32,
    pub syzygy: Option<PathBuf>,
    pub think_ms: u64,
    /// A different legal move made for its side is the player's choice.
    pub accept_other_moves: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LichessPlan {
    pub url: LichessUrl,
    pub token_file: PathBuf,
    /// The players whose challenges are accepted at once.
    pub accept_from: Vec<String>,
    /// Challenge this player at start, with this clock.
    pub challenge: Option<(String, Clock)>,
    /// Seek an opponent at start.
    pub seek: Option<SeekSpec>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartnerPlan {
    /// The partner board's name in the hall.
    pub partner: PlainName,
    /// This board's own name there.
    pub board: PlainName,
    /// The side this board's player has.
    pub side: Color,
    /// One clock at the table between the boards: where it is.
    pub table_clock: Option<TableClock>,
    pub hall: HallAccess,
}

impl OpponentPlan {
    /// The side whose moves are guided onto the board and completed when
    /// it shows them: an engine's or the partner board's (an online game's
    /// side comes with the game).
    pub fn guided_side(&self) -> Option<Color> {
        match self {
            OpponentPlan::Engine(engine) => Some(engine.side),
            OpponentPlan::Partner(pair) => Some(!pair.side),
            OpponentPlan::None | OpponentPlan::Lichess(_) => None,
        }
    }

    pub fn partner(&self) -> Option<&PartnerPlan> {
        match self {
            OpponentPlan::Partner(pair) => Some(pair),
            _ => None,
        }
    }

    /// One clock at the table of two boards: where it is.
    pub fn table_clock(&self) -> Option<TableClock> {
        self.partner().and_then(|pair| pair.table_clock)
    }

    /// A different legal move made for the guided side is the player's choice.
    pub fn takes_other_moves(&self) -> bool {
        matches!(self, OpponentPlan::Engine(engine) if engine.accept_other_moves)
    }
}

impl Config {
    /// The one opponent the configuration names. A Lichess table that asks
    /// for games without a token names none: `tactus doctor` says what it
    /// lacks, and the daemon's [`super::Plan`] refuses it.
    pub fn opponent(&self) -> Result<OpponentPlan, KeyError> {
        let named: Vec<(Key, &str)> = [
            (self.pair.with.is_some(), key!(pair.with), "its partner board"),
            (self.engine.path.is_some(), key!(engine.path), "an engine"),
            (self.lichess.token_file.is_some(), key!(lichess.token_file), "a player on Lichess"),
        ]
        .into_iter()
        .filter_map(|(named, key, who)| named.then_some((key, who)))
        .collect();
        if let [(first, one), (second, other), ..] = named[..] {
            return Err(KeyError::new(
                second,
                format!("this board plays one opponent: {one} ({}) or {other}, not both", first.in_file()),
            ));
        }
        let (challenge, seek) = self.lichess_asks()?;
        if let Some(partner) = &self.pair.with {
            return self.partner(partner).map(OpponentPlan::Partner);
        }
        if let Some(path) = &self.engine.path {
            let e = &self.engine;
            return Ok(OpponentPlan::Engine(EnginePlan {
                path: path.clone(),
                side: e.plays.color(),
                level: tactus_engine::Level::new(e.level.get()).expect("the engine's levels (ranged.rs tests it)"),
                book: e.book.clone(),
                book_plies: e.book_plies.get(),
                syzygy: e.syzygy.clone(),
                think_ms: e.think_ms.get(),
                accept_other_moves: e.accept_other_moves,
            }));
        }
        Ok(match &self.lichess.token_file {
            Some(token_file) => OpponentPlan::Lichess(LichessPlan {
                url: self.lichess.url.clone(),
                token_file: token_file.clone(),
                accept_from: self.lichess.accept_from.clone(),
                challenge,
                seek,
            }),
            None => OpponentPlan::None,
        })
    }

    /// What `[lichess]` asks for at start, with the game's clock as Lichess
    /// takes it.
    #[allow(clippy::type_complexity)]
    fn lichess_asks(&self) -> Result<(Option<(String, Clock)>, Option<SeekSpec>), KeyError> {
        let l = &self.lichess;
        if l.challenge.is_none() && !l.seek {
            return Ok((None, None));
        }
        let tc = &self.game.time_control;
        let clock = lichess_clock(tc)?;
        let seek = match l.seek {
            false => None,
            true => Some(clock.seek().map_err(|e| {
                KeyError::new(key!(lichess.seek), format!("{e}; [game] time_control is {:?}", tc.text()))
            })?),
        };
        Ok((l.challenge.clone().map(|who| (who, clock)), seek))
    }

    /// A pair needs the hall's broker, its key and this board's name, and a
    /// side.
    fn partner(&self, partner: &PlainName) -> Result<PartnerPlan, KeyError> {
        let needs = |key: Key, what: &str| {
            KeyError::new(key, format!("playing one game with board {:?} needs {what}", partner.as_str()))
        };
        let side = self
            .pair
            .plays
            .ok_or_else(|| needs(key!(pair.plays), "the side this board plays: \"white\" or \"black\" (--plays)"))?;
        let hall = self.mqtt.access().ok_or_else(|| needs(key!(mqtt.broker), "the hall's broker (--mqtt)"))?;
        if self.mqtt.hall.is_none() {
            return Err(needs(key!(mqtt.hall), "the hall's name (--hall)"));
        }
        if self.mqtt.hall_key_file.is_none() {
            return Err(needs(key!(mqtt.hall_key_file), "the hall key, which seals every move (--hall-key)"));
        }
        let BoardId::Named(board) = &self.mqtt.board_id else {
            return Err(needs(key!(mqtt.board_id), "this board's own name (--board-id)"));
        };
        if board == partner {
            return Err(KeyError::new(key!(pair.with), format!("{:?} is this board itself", partner.as_str())));
        }
        let table_clock = match self.pair.clock {
            PairClock::Own => None,
            PairClock::Here => Some(TableClock::Here),
            PairClock::Partner if self.clock.device != ClockKind::None => {
                return Err(KeyError::new(
                    key!(pair.clock),
                    "the clock is at the partner board, yet this board has one ([clock] device)",
                ));
            }
            PairClock::Partner => Some(TableClock::Partner),
        };
        Ok(PartnerPlan { partner: partner.clone(), board: board.clone(), side: side.color(), table_clock, hall })
    }
}

/// The clock of a challenge or a seek, from the game's time control
/// (`"1800+5"`): one period with an increment, as Lichess plays.
fn lichess_clock(tc: &TimeControlText) -> Result<Clock, KeyError> {
    use tactus_clock::{Bonus, System};
    let refuse =
        |why: &dyn std::fmt::Display| KeyError::new(key!(game.time_control), format!("{:?}: {why}", tc.text()));
    let one_period = "Lichess plays one period for the game, like 1800+5";
    let Some(clock) = tc.clock() else { return Err(refuse(&"a game on Lichess needs a clock, like 1800+5")) };
    let (limit_ms, increment_ms) = match clock.system() {
        System::Periods { periods, byoyomi: None } => match periods.as_slice() {
            [p] if p.moves.is_none() => match p.bonus {
                Bonus::None => (p.time_ms, 0),
                Bonus::Increment(ms) => (p.time_ms, ms),
                Bonus::Bronstein(_) | Bonus::Delay(_) => {
                    return Err(refuse(&"Lichess plays with an increment, not a delay"));
                }
            },
            _ => return Err(refuse(&one_period)),
        },
        _ => return Err(refuse(&one_period)),
    };
    Clock::new(limit_ms, increment_ms).map_err(|e: ClockError| refuse(&e))
}
