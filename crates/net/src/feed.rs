//! The games of a hall as the core's events describe them, and their PGN.
//!
//! Pure: no I/O, no clock. A [`BoardFeed`] is built only from core events
//! (and the tags and spoken lines the daemon reports), so the daemon, the
//! MQTT retained state and the relay all hold the same thing and render the
//! same PGN.

use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position, Role, Square};
use tactus_core::pgn;
use tactus_core::{Article, EndReason, EngineEval, Event, EventKind, serde_chess};
use tactus_trace::{Federation, GameResult, Header, Ms, Pairing};

use crate::players::{self, Title};
use crate::teams::{BoardTeams, Games, MatchScore, TeamMatch};
use crate::wire::{opt_result, uci_text};

/// Spoken lines kept per board: enough for the page, bounded for MQTT.
pub const SPOKEN_KEPT: usize = 50;

const STANDARD_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The game's tags, from the trace header (`tactus_trace::Header`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tags {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<String>,
    /// What the board's config says of each player beyond the name, for
    /// the broadcasts that show it (Lichess's matches a player by FIDE ID).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_fide_id: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_title: Option<Title>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_elo: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_fide_id: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_title: Option<Title>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_elo: Option<u16>,
    /// Each player's federation, from the round's pairing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_federation: Option<Federation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_federation: Option<Federation>,
    /// The board's number in the round, from the round's pairing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<u32>,
    /// The game is played on two boards (two boards, one game): this
    /// board's side and its partner board, for the relay to show one game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<Paired>,
}

impl Tags {
    /// The round's pairing decides who plays, in which round and on which
    /// board, over what the board's config and trace said; the event too,
    /// where the pairing names one.
    pub fn paired(self, p: &Pairing) -> Tags {
        Tags {
            white: Some(p.white.name.clone()),
            black: Some(p.black.name.clone()),
            event: p.tournament.clone().or(self.event),
            round: Some(p.round.to_string()),
            board: Some(p.board),
            white_fide_id: p.white.fide_id,
            white_title: p.white.title,
            white_elo: p.white.elo,
            white_federation: p.white.federation,
            black_fide_id: p.black.fide_id,
            black_title: p.black.title,
            black_elo: p.black.elo,
            black_federation: p.black.federation,
            ..self
        }
    }
}

/// A board's place in a game played on two boards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paired {
    /// The partner board's id in the hall.
    pub with: String,
    /// The side this board's player has; its board keeps that side's clock.
    #[serde(with = "serde_chess::color")]
    pub plays: Color,
}

impl From<&Header> for Tags {
    fn from(h: &Header) -> Tags {
        Tags {
            white: h.white.clone(),
            black: h.black.clone(),
            event: h.event.clone(),
            site: h.site.clone(),
            round: h.round.clone(),
            date: h.date.clone(),
            time_control: h.time_control.clone(),
            ..Tags::default()
        }
    }
}

/// One completed move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedMove {
    pub ply: u32,
    /// How the record names it, worked out on the feed's own position.
    pub san: MoveName,
    /// As the board made it; a move whose UCI could not be read at all
    /// (only a daemon's own events get this far with one) is the null move.
    #[serde(with = "uci_text")]
    pub uci: UciMove,
    /// The mover's time after the press.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<i64>,
    /// An illegal move that stood (A.5.2), or a move after one: these go
    /// into a PGN comment, as the movetext could not be replayed from the start.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub off_record: bool,
}

/// How a record names a move (`san` on the wire, in the page and the PGN).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveName {
    /// Legal where it was made: its SAN, check and mate marked.
    San(SanPlus),
    /// An illegal move that stood (A.5.2), as the board showed it: the piece
    /// and its squares (`Ke1-e3`, `Qd1xd7`), as the core writes one.
    Stood { role: Role, from: Square, to: Square, capture: bool },
    /// Neither: the name its board gave a move this feed cannot play (its
    /// UCI unreadable, or its position gone), cleaned and cut.
    Told(String),
}

impl MoveName {
    /// A name read from text (an event's, a board's state): SAN if it is
    /// SAN, an illegal move that stood if it is one, else the text cleaned.
    pub fn read(text: &str) -> MoveName {
        if let Ok(san) = text.parse::<SanPlus>() {
            return MoveName::San(san);
        }
        stood(text).unwrap_or_else(|| MoveName::Told(clean(text, MAX_WORD)))
    }
}

/// `Ke1-e3` or `Qd1xd7`: a piece, its square, `-` or `x`, the square it went to.
fn stood(text: &str) -> Option<MoveName> {
    let (role, rest) = text.split_at_checked(1)?;
    let role = Role::from_char(role.chars().next()?).filter(|_| role.chars().all(|c| c.is_ascii_uppercase()))?;
    let (from, rest) = rest.split_at_checked(2)?;
    let (sep, to) = rest.split_at_checked(1)?;
    let from = Square::from_ascii(from.as_bytes()).ok()?;
    let to = Square::from_ascii(to.as_bytes()).ok()?;
    let capture = match sep {
        "-" => false,
        "x" => true,
        _ => return None,
    };
    Some(MoveName::Stood { role, from, to, capture })
}

impl std::fmt::Display for MoveName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveName::San(san) => write!(f, "{san}"),
            MoveName::Stood { role, from, to, capture } => {
                write!(f, "{}{from}{}{to}", role.upper_char(), if *capture { 'x' } else { '-' })
            }
            MoveName::Told(text) => f.write_str(text),
        }
    }
}

impl Serialize for MoveName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Any text: a board's name for a move is worked out again, never trusted.
impl<'de> Deserialize<'de> for MoveName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(MoveName::read(&Cow::<str>::deserialize(d)?))
    }
}

/// The clock readings as of the last event that told them; the page
/// interpolates from `at_t` (game time) or `at_unix_ms` (when the server took
/// the reading).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    pub white_ms: Option<i64>,
    pub black_ms: Option<i64>,
    #[serde(with = "serde_chess::opt_color", default)]
    pub running: Option<Color>,
    pub at_t: Ms,
    #[serde(default)]
    pub at_unix_ms: Option<u64>,
}

impl Clocks {
    fn side(&self, side: Color) -> Option<i64> {
        match side {
            Color::White => self.white_ms,
            Color::Black => self.black_ms,
        }
    }

    fn side_mut(&mut self, side: Color) -> &mut Option<i64> {
        match side {
            Color::White => &mut self.white_ms,
            Color::Black => &mut self.black_ms,
        }
    }

    /// Brings the running clock's reading forward to `t`.
    fn advance(&mut self, t: Ms) {
        if t <= self.at_t {
            return;
        }
        let elapsed = i64::try_from(t - self.at_t).unwrap_or(i64::MAX);
        if let Some(side) = self.running
            && let Some(ms) = self.side_mut(side)
        {
            *ms = ms.saturating_sub(elapsed).max(0);
        }
        self.at_t = t;
    }
}

/// A core event as a board tells it: the event's data, and the board's
/// words for it (`tactus_speech::Scribe`, in the board's language) when it
/// is one the page shows as a ruling or a note. A relay passes the words on
/// as the board sent them (cleaned and capped, `vet`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Told {
    #[serde(flatten)]
    pub event: Event,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// An event with no words: one the page does not show as a ruling or a
/// note, or one from a board that sent none.
impl From<Event> for Told {
    fn from(event: Event) -> Told {
        Told { event, text: None }
    }
}

/// A line the daemon spoke.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spoken {
    pub t: Ms,
    pub text: String,
}

/// A ruling made where the arbiter acted that the core does not see (a
/// rejected claim). It stays with the hall that recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArbiterNote {
    pub t: Ms,
    pub text: String,
}

/// One board's game as its events tell it. Also the MQTT retained state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardFeed {
    pub id: String,
    /// Which run of the board's publisher this feed comes from (0 locally);
    /// `seq` counts the updates applied within it.
    #[serde(default)]
    pub epoch: u64,
    #[serde(default)]
    pub seq: u64,
    #[serde(default)]
    pub tags: Tags,
    pub start_fen: String,
    #[serde(default)]
    pub chess960: bool,
    /// The position now.
    pub fen: String,
    #[serde(default)]
    pub moves: Vec<FeedMove>,
    #[serde(default)]
    pub clocks: Clocks,
    #[serde(default)]
    pub paused: bool,
    #[serde(default, with = "opt_result")]
    pub result: Option<GameResult>,
    #[serde(default)]
    pub end_reason: Option<EndReason>,
    /// The board's words for how the game ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_text: Option<String>,
    /// `irregularity`, `penalty`, `claimable` and `observation` events, for
    /// the arbiter, each with the board's words for it.
    #[serde(default)]
    pub irregularities: Vec<Told>,
    /// The last [`SPOKEN_KEPT`] spoken lines.
    #[serde(default)]
    pub spoken: VecDeque<Spoken>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arbiter_notes: Vec<ArbiterNote>,
    /// The time of the latest event.
    #[serde(default)]
    pub last_t: Ms,
    /// The position before the first illegal move that stood, to go back to
    /// when the opponent's claim is upheld. Worked out from the moves, by
    /// whoever holds the feed: never sent.
    #[serde(skip)]
    pub fen_before_illegal: Option<String>,
    /// The engine's view at its last move, in a game against an engine that
    /// no arbiter supervises.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<EngineView>,
}

/// The engine's view at its last move: after `san` (ply `ply`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineView {
    pub ply: u32,
    pub san: MoveName,
    #[serde(flatten)]
    pub eval: EngineEval,
}

/// Whether an event changes a [`BoardFeed`]; the others (touches, announced
/// moves, requests) are only passed on live.
pub fn changes_feed(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Start { .. }
            | EventKind::Complete { .. }
            | EventKind::GameOver { .. }
            | EventKind::Irregularity(_)
            | EventKind::Penalty { .. }
            | EventKind::Claimable { .. }
            | EventKind::Observation { .. }
            | EventKind::Paused
            | EventKind::Resumed
            | EventKind::ClockSet { .. }
            | EventKind::Time { .. }
            | EventKind::TimeWarning { .. }
            | EventKind::OpponentMove { .. }
            | EventKind::TakeBack { .. }
            | EventKind::Pairing(_)
    )
}

/// Whether an event changes the game's PGN.
fn changes_pgn(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Start { .. }
            | EventKind::Complete { .. }
            | EventKind::GameOver { .. }
            | EventKind::Irregularity(_)
            | EventKind::TakeBack { .. }
            | EventKind::Pairing(_)
    ) || matches!(kind, EventKind::Penalty { article: Article::A7_5_5, .. })
}

fn mode(chess960: bool) -> CastlingMode {
    if chess960 { CastlingMode::Chess960 } else { CastlingMode::Standard }
}

pub(crate) fn parse_position(fen: &str, chess960: bool) -> Option<Chess> {
    let fen: Fen = fen.parse().ok()?;
    fen.into_position(mode(chess960)).ok()
}

pub(crate) fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

impl BoardFeed {
    /// A board before its `start` event: the standard start, no clocks.
    pub fn new(id: impl Into<String>) -> BoardFeed {
        BoardFeed {
            id: id.into(),
            epoch: 0,
            seq: 0,
            tags: Tags::default(),
            start_fen: STANDARD_FEN.to_string(),
            chess960: false,
            fen: STANDARD_FEN.to_string(),
            moves: Vec::new(),
            clocks: Clocks::default(),
            paused: false,
            result: None,
            end_reason: None,
            end_text: None,
            irregularities: Vec::new(),
            spoken: VecDeque::new(),
            arbiter_notes: Vec::new(),
            last_t: 0,
            fen_before_illegal: None,
            engine: None,
        }
    }

    /// The side to move now.
    pub fn turn(&self) -> Color {
        parse_position(&self.fen, self.chess960).map_or(Color::White, |p| p.turn())
    }

    /// Applies one core event, with the board's words for it if it has
    /// any; every event counts in `seq`.
    pub fn apply(&mut self, ev: &Event, text: Option<&str>) {
        let told = || Told { event: ev.clone(), text: text.map(str::to_string) };
        self.seq += 1;
        self.last_t = self.last_t.max(ev.t);
        let t = ev.t;
        match &ev.kind {
            EventKind::Start { fen, chess960, time_control, white_ms, black_ms } => {
                self.start_fen = fen.clone();
                self.fen = fen.clone();
                self.chess960 = *chess960;
                self.moves.clear();
                self.result = None;
                self.end_reason = None;
                self.end_text = None;
                self.irregularities.clear();
                self.spoken.clear();
                self.arbiter_notes.clear();
                self.fen_before_illegal = None;
                self.engine = None;
                self.paused = false;
                if self.tags.time_control.is_none() {
                    self.tags.time_control = time_control.clone();
                }
                let timed = white_ms.is_some() || black_ms.is_some();
                self.clocks = Clocks {
                    white_ms: *white_ms,
                    black_ms: *black_ms,
                    running: timed.then(|| self.turn()),
                    at_t: t,
                    at_unix_ms: None,
                };
            }
            EventKind::Complete { ply, side, san, uci, clock_ms, opponent_ms } => {
                // A repeated event (a replay, a re-sent message) is not a new move.
                if self.moves.last().is_some_and(|m| m.ply >= *ply) {
                    return;
                }
                // The record's SAN is worked out here from the UCI on this
                // feed's own position, never taken from the event.
                let uci = uci.parse().unwrap_or(UciMove::Null);
                let (name, off_record) = self.play(uci, || MoveName::read(san));
                let mv = FeedMove { ply: *ply, san: name, uci, clock_ms: *clock_ms, off_record };
                self.moves.push(mv);
                self.clocks.advance(t);
                if clock_ms.is_some() {
                    *self.clocks.side_mut(*side) = *clock_ms;
                }
                if opponent_ms.is_some() {
                    *self.clocks.side_mut(!*side) = *opponent_ms;
                }
                if self.clocks.running.is_some() {
                    self.clocks.running = Some(!*side);
                }
            }
            EventKind::GameOver { result, reason, .. } => {
                self.clocks.advance(t);
                self.clocks.running = None;
                self.result = Some(*result);
                self.end_reason = Some(*reason);
                self.end_text = text.map(str::to_string);
            }
            EventKind::Irregularity(_) | EventKind::Claimable { .. } | EventKind::Observation { .. } => {
                self.irregularities.push(told());
            }
            EventKind::Penalty { article, side, ms } => {
                self.irregularities.push(told());
                self.clocks.advance(t);
                if let Some(v) = self.clocks.side_mut(*side) {
                    *v = v.saturating_add(*ms);
                }
                // A.5.2: the claim against an illegal move that stood is upheld;
                // the position before it stands and the offender moves again.
                if *article == Article::A7_5_5
                    && let Some(first) = self.moves.iter().position(|m| m.off_record)
                    && let Some(fen) = self.fen_before_illegal.take()
                {
                    self.moves.truncate(first);
                    self.fen = fen;
                    if self.clocks.running.is_some() {
                        self.clocks.running = Some(self.turn());
                    }
                }
            }
            EventKind::Paused => {
                self.clocks.advance(t);
                self.clocks.running = None;
                self.paused = true;
            }
            EventKind::Resumed => {
                self.clocks.advance(t);
                self.paused = false;
                let timed = self.clocks.white_ms.is_some() || self.clocks.black_ms.is_some();
                if timed && self.result.is_none() {
                    self.clocks.running = Some(self.turn());
                }
            }
            EventKind::ClockSet { white_ms, black_ms } => {
                self.clocks.advance(t);
                self.clocks.white_ms = Some(*white_ms);
                self.clocks.black_ms = Some(*black_ms);
            }
            EventKind::Time { white_ms, black_ms, running, .. } => {
                self.clocks.white_ms = Some(*white_ms);
                self.clocks.black_ms = Some(*black_ms);
                self.clocks.running = *running;
                self.clocks.at_t = self.clocks.at_t.max(t);
            }
            EventKind::TimeWarning { side, remaining_ms } => {
                self.clocks.advance(t);
                *self.clocks.side_mut(*side) = Some(*remaining_ms);
            }
            EventKind::TakeBack { ply, white_ms, black_ms, .. } => {
                // The record from the start up to the ply now to be made,
                // played again on this feed's own position.
                let kept: Vec<FeedMove> = self.moves.iter().filter(|m| m.ply < *ply).cloned().collect();
                self.fen = self.start_fen.clone();
                self.fen_before_illegal = None;
                self.moves.clear();
                for m in kept {
                    let (name, off_record) = self.play(m.uci, || m.san.clone());
                    self.moves.push(FeedMove { san: name, off_record, ..m });
                }
                // Rulings about the plies taken back go with them.
                self.irregularities.retain(|told| match &told.event.kind {
                    EventKind::Irregularity(i) => i.ply < *ply,
                    EventKind::Claimable { ply: p, .. } | EventKind::Observation { ply: p, .. } => *p < *ply,
                    _ => true,
                });
                self.engine = None;
                self.clocks.advance(t);
                if white_ms.is_some() {
                    self.clocks.white_ms = *white_ms;
                }
                if black_ms.is_some() {
                    self.clocks.black_ms = *black_ms;
                }
                if self.clocks.running.is_some() {
                    self.clocks.running = Some(self.turn());
                }
            }
            EventKind::Pairing(p) => self.tags = std::mem::take(&mut self.tags).paired(p),
            EventKind::OpponentMove { mv, eval, .. } => {
                self.engine = eval.as_ref().map(|eval| EngineView {
                    ply: mv.ply,
                    san: MoveName::read(&mv.san),
                    eval: eval.clone(),
                });
            }
            _ => {}
        }
    }

    /// Plays a completed move on `fen`: its name (SAN when legal there) and
    /// whether it goes off the record: it is not legal there (an illegal move
    /// that stood, put on the board from its UCI as the players go on from
    /// it), or one such move came before. `fallback` names a move that
    /// cannot be played at all (only a daemon's own events get this far with
    /// one).
    pub(crate) fn play(&mut self, uci: UciMove, fallback: impl FnOnce() -> MoveName) -> (MoveName, bool) {
        let Some(pos) = parse_position(&self.fen, self.chess960) else {
            self.fen_before_illegal.get_or_insert_with(|| self.fen.clone());
            return (fallback(), true);
        };
        match name_move(&pos, uci) {
            Some(Named { name, next, legal }) => {
                if !legal {
                    self.fen_before_illegal.get_or_insert_with(|| self.fen.clone());
                }
                self.fen = fen_of(&next);
                (name, self.fen_before_illegal.is_some())
            }
            None => {
                self.fen_before_illegal.get_or_insert_with(|| self.fen.clone());
                (fallback(), true)
            }
        }
    }

    /// A change as it goes out live once this feed has applied it: the SAN
    /// of a move is this feed's, worked out on its own position, not the
    /// sender's.
    pub fn outgoing(&self, change: &Change) -> Change {
        let Change::Event(told) = change else { return change.clone() };
        let mut told = told.clone();
        match &mut told.event.kind {
            EventKind::Complete { ply, san, .. } => {
                if let Some(m) = self.moves.iter().rev().find(|m| m.ply == *ply) {
                    *san = m.san.to_string();
                }
            }
            EventKind::Move { mv, .. } => {
                // A move made but not completed: on the position now.
                let named = mv.uci.parse().ok().and_then(|uci| {
                    let pos = parse_position(&self.fen, self.chess960)?;
                    name_move(&pos, uci)
                });
                if let Some(named) = named {
                    mv.san = named.name.to_string();
                }
            }
            EventKind::LastMove { mv } => {
                if let Some(m) = self.moves.last().filter(|m| mv.uci.parse::<UciMove>().is_ok_and(|u| u == m.uci)) {
                    mv.san = m.san.to_string();
                }
            }
            _ => {}
        }
        Change::Event(told)
    }

    /// Records a spoken line (the last [`SPOKEN_KEPT`] are kept).
    pub fn spoken(&mut self, t: Ms, text: &str) {
        self.seq += 1;
        self.last_t = self.last_t.max(t);
        self.spoken.push_back(Spoken { t, text: text.to_string() });
        while self.spoken.len() > SPOKEN_KEPT {
            self.spoken.pop_front();
        }
    }

    /// Sets the game's tags.
    pub fn set_tags(&mut self, tags: Tags) {
        self.seq += 1;
        self.tags = tags;
    }

    /// The game in PGN, with the team tags when the board is in a match.
    pub fn pgn(&self, team: Option<&BoardTeams>) -> String {
        let mut out = String::with_capacity(256 + self.moves.len() * 24);
        let result = GameResult::pgn(self.result);
        let t = &self.tags;
        let mut extra: Vec<(&str, String)> =
            players::pgn_tags(Color::White, t.white_title, t.white_elo, t.white_fide_id, t.white_federation)
                .chain(players::pgn_tags(Color::Black, t.black_title, t.black_elo, t.black_fide_id, t.black_federation))
                .collect();
        match team {
            Some(team) => extra.extend([
                ("WhiteTeam", team.white_team.clone()),
                ("BlackTeam", team.black_team.clone()),
                ("Board", team.board.to_string()),
                ("MatchScore", team.score_text.clone()),
            ]),
            None => extra.extend(t.board.map(|n| ("Board", n.to_string()))),
        }
        let tags = pgn::Tags {
            event: self.tags.event.as_deref(),
            site: self.tags.site.as_deref(),
            date: self.tags.date.as_deref(),
            round: self.tags.round.as_deref(),
            white: self.tags.white.as_deref(),
            black: self.tags.black.as_deref(),
            result,
            extra,
            chess960: self.chess960,
            setup_fen: (self.chess960 || self.start_fen != STANDARD_FEN).then(|| self.start_fen.clone()),
            time_control: self.tags.time_control.as_deref(),
            end: self.end_reason,
            ply_count: None,
        };
        pgn::write_tags(&mut out, &tags);
        let start = parse_position(&self.start_fen, self.chess960);
        let number = start.as_ref().map_or(1, |p| p.fullmoves().get());
        let turn = start.as_ref().map_or(Color::White, |p| p.turn());
        let names: Vec<String> = self.moves.iter().map(|m| m.san.to_string()).collect();
        let moves = self.moves.iter().zip(&names).map(|(m, san)| pgn::Written {
            san,
            clock_ms: m.clock_ms,
            before: Vec::new(),
            comments: self.rulings_at(m.ply).collect(),
            stood_illegal: m.off_record,
        });
        pgn::write_movetext(&mut out, number, turn, moves, &[], result);
        out
    }

    /// The rulings about a ply, as comment text: the article, and the
    /// board's words for the ruling.
    fn rulings_at(&self, ply: u32) -> impl Iterator<Item = String> + '_ {
        self.irregularities.iter().filter_map(move |told| match &told.event.kind {
            EventKind::Irregularity(i) if i.ply == ply => {
                let text = told.text.as_deref().unwrap_or_default();
                Some(format!("{} {text}", i.article.as_str()).trim_end().replace(['{', '}'], ""))
            }
            _ => None,
        })
    }
}

/// A move named on a position, and the position after it.
struct Named {
    /// SAN when legal; otherwise the piece and its squares.
    name: MoveName,
    next: Chess,
    legal: bool,
}

/// Plays a move given in UCI on `pos`: legally if it can, otherwise as the
/// board shows it (the piece on `from` goes to `to`). `None` when no such
/// move or position can be.
fn name_move(pos: &Chess, uci: UciMove) -> Option<Named> {
    if let Ok(m) = uci.to_move(pos) {
        let mut next = pos.clone();
        let san = SanPlus::from_move_and_play_unchecked(&mut next, m);
        return Some(Named { name: MoveName::San(san), next, legal: true });
    }
    let UciMove::Normal { from, to, .. } = uci else {
        return None;
    };
    let piece = pos.board().piece_at(from)?;
    let (next, captured) = tactus_core::game::play_anyway(pos, from, to)?;
    let name = MoveName::Stood { role: piece.role, from, to, capture: captured.is_some() };
    Some(Named { name, next, legal: false })
}

/// The longest name of a move, a result or a clock text kept from a board.
const MAX_WORD: usize = 32;

/// Text from a board made safe to show and to write into PGN: no control
/// characters (a newline ends a PGN tag), at most `max` characters.
pub(crate) fn clean(text: &str, max: usize) -> String {
    text.chars().map(|c| if c.is_control() { ' ' } else { c }).take(max).collect::<String>().trim().to_string()
}

/// One update of a board: what the daemon reports and MQTT carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Event(Told),
    Spoken(Spoken),
    Tags(Tags),
}

impl Change {
    /// Whether the change is kept in the feed (and so in the retained state).
    pub fn changes_feed(&self) -> bool {
        match self {
            Change::Event(told) => changes_feed(&told.event.kind),
            Change::Spoken(_) | Change::Tags(_) => true,
        }
    }

    fn changes_pgn(&self) -> bool {
        match self {
            Change::Event(told) => changes_pgn(&told.event.kind),
            Change::Spoken(_) => false,
            Change::Tags(_) => true,
        }
    }

    fn changes_score(&self) -> bool {
        let Change::Event(told) = self else { return false };
        matches!(told.event.kind, EventKind::GameOver { .. } | EventKind::Start { .. })
    }
}

impl BoardFeed {
    /// Applies one change; every change counts in `seq`.
    pub fn change(&mut self, change: &Change) {
        match change {
            Change::Event(told) => self.apply(&told.event, told.text.as_deref()),
            Change::Spoken(s) => self.spoken(s.t, &s.text),
            Change::Tags(tags) => self.set_tags(tags.clone()),
        }
    }
}

/// What a change did to a hall, for the live layer to pass on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Applied in order.
    InOrder,
    /// Already seen (a duplicate, or older than what the hall holds): nothing changed.
    Stale,
    /// The board jumped (a snapshot replaced it, or changes were missed):
    /// subscribers should fetch the board again.
    Reset,
}

struct Board {
    feed: BoardFeed,
    /// The game's PGN, rendered when it changes: `/games.pgn` is polled far
    /// more often than a game changes.
    pgn: String,
}

/// Whether what a hall holds can be trusted to come from its boards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trust {
    /// The daemon's own board.
    OwnBoard,
    /// A relay that takes only what carries the hall key's seal.
    HallKey,
    /// A relay without a hall key: anyone on the broker could have sent it.
    None,
}

/// The games of one hall: one board in the daemon, many in the relay.
pub struct Hall {
    name: String,
    boards: BTreeMap<String, Board>,
    matches: Vec<TeamMatch>,
    trust: Trust,
}

impl Hall {
    pub fn new(name: impl Into<String>) -> Hall {
        Hall { name: name.into(), boards: BTreeMap::new(), matches: Vec::new(), trust: Trust::OwnBoard }
    }

    /// A relay's hall: its boards come from the broker, sealed with the
    /// hall key or not.
    pub fn trusting(mut self, hall_key: bool) -> Hall {
        self.trust = if hall_key { Trust::HallKey } else { Trust::None };
        self
    }

    pub fn trust(&self) -> Trust {
        self.trust
    }

    /// How many boards the hall holds.
    pub fn len(&self) -> usize {
        self.boards.len()
    }

    pub fn is_empty(&self) -> bool {
        self.boards.is_empty()
    }

    /// The team matches played in the hall. Their boards are listed from the
    /// start, so the page shows every board of a match before it begins.
    pub fn with_matches(mut self, matches: Vec<TeamMatch>) -> Hall {
        self.matches = matches;
        let ids: Vec<String> = self.matches.iter().flat_map(|m| m.boards().to_vec()).collect();
        for id in &ids {
            self.board_mut(id);
        }
        let ids: Vec<String> = self.boards.keys().cloned().collect();
        for id in ids {
            self.render(&id);
        }
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn matches(&self) -> &[TeamMatch] {
        &self.matches
    }

    fn board_mut(&mut self, id: &str) -> &mut Board {
        let teams = if self.boards.contains_key(id) { None } else { self.game_teams(id) };
        self.boards.entry(id.to_string()).or_insert_with(|| {
            let feed = BoardFeed::new(id);
            let pgn = feed.pgn(teams.as_ref());
            Board { feed, pgn }
        })
    }

    /// Applies one core event of a board, with the board's words for it if
    /// it has any (the board is added on its first).
    pub fn apply(&mut self, board: &str, ev: &Event, text: Option<&str>) {
        self.board_mut(board).feed.apply(ev, text);
        if changes_pgn(&ev.kind) {
            self.rendered(board, matches!(ev.kind, EventKind::GameOver { .. } | EventKind::Start { .. }));
        }
    }

    /// Applies a change of any kind.
    pub fn change(&mut self, board: &str, change: &Change) {
        self.board_mut(board).feed.change(change);
        if change.changes_pgn() {
            self.rendered(board, change.changes_score());
        }
    }

    /// Applies a board's change numbered `seq` in run `epoch` (from MQTT):
    /// duplicates and older changes are skipped, a newer run starts afresh,
    /// and after a gap the change is applied and a reset reported (the
    /// board's next retained state fills the gap).
    pub fn change_numbered(&mut self, board: &str, epoch: u64, seq: u64, change: &Change) -> Applied {
        let b = self.board_mut(board);
        let applied = if epoch > b.feed.epoch {
            let notes = std::mem::take(&mut b.feed.arbiter_notes);
            b.feed = BoardFeed { epoch, arbiter_notes: notes, ..BoardFeed::new(board) };
            Applied::Reset
        } else if epoch < b.feed.epoch || seq <= b.feed.seq {
            return Applied::Stale;
        } else if seq == b.feed.seq + 1 {
            Applied::InOrder
        } else {
            Applied::Reset
        };
        b.feed.change(change);
        b.feed.seq = seq;
        if change.changes_pgn() || applied == Applied::Reset {
            self.rendered(board, change.changes_score() || applied == Applied::Reset);
        }
        applied
    }

    /// Replaces a board with a snapshot of it (MQTT retained state) unless
    /// the hall holds the same or something newer. Arbiter notes made here
    /// stay.
    pub fn replace(&mut self, mut feed: BoardFeed) -> Applied {
        let id = feed.id.clone();
        let b = self.board_mut(&id);
        let (have, got) = ((b.feed.epoch, b.feed.seq), (feed.epoch, feed.seq));
        if got < have {
            return Applied::Stale;
        }
        if feed.epoch == b.feed.epoch {
            feed.arbiter_notes.clone_from(&b.feed.arbiter_notes);
        }
        // The reading's wall-clock time is where it was taken, not compared.
        feed.clocks.at_unix_ms = b.feed.clocks.at_unix_ms;
        if got == have && feed == b.feed {
            return Applied::Stale;
        }
        b.feed = feed;
        self.rendered(&id, true);
        Applied::Reset
    }

    /// Records a spoken line.
    pub fn spoken(&mut self, board: &str, t: Ms, text: &str) {
        self.board_mut(board).feed.spoken(t, text);
    }

    /// Sets a board's tags.
    pub fn set_tags(&mut self, board: &str, tags: Tags) {
        self.board_mut(board).feed.set_tags(tags);
        self.render(board);
    }

    /// Records an arbiter's ruling the core does not see; `None` when there
    /// is no such board.
    pub fn note(&mut self, board: &str, text: &str) -> Option<ArbiterNote> {
        let b = self.boards.get_mut(board)?;
        let note = ArbiterNote { t: b.feed.last_t, text: text.to_string() };
        b.feed.arbiter_notes.push(note.clone());
        Some(note)
    }

    /// Stamps the wall-clock time of a board's clock reading.
    pub fn stamp(&mut self, board: &str, unix_ms: u64) {
        if let Some(b) = self.boards.get_mut(board) {
            b.feed.clocks.at_unix_ms = Some(unix_ms);
        }
    }

    pub fn feed(&self, board: &str) -> Option<&BoardFeed> {
        self.boards.get(board).map(|b| &b.feed)
    }

    /// Whether a team match lists the board: it is in the hall from the start.
    pub fn listed(&self, board: &str) -> bool {
        self.matches.iter().any(|m| m.boards().iter().any(|b| b == board))
    }

    /// Stops showing a board (a relay making room for another); a board a
    /// team match lists stays. Whether it was removed.
    pub fn remove(&mut self, board: &str) -> bool {
        !self.listed(board) && self.boards.remove(board).is_some()
    }

    pub fn feeds(&self) -> impl Iterator<Item = &BoardFeed> {
        self.boards.values().map(|b| &b.feed)
    }

    /// Every game of the hall, board by board; the two boards of a pair as
    /// one game, where White's board is.
    pub fn games_pgn(&self) -> String {
        let mut out = String::with_capacity(self.boards.values().map(|b| b.pgn.len()).sum());
        for (id, b) in &self.boards {
            match self.pair_of(id) {
                Some((white, black)) if white.id == *id => {
                    out.push_str(&fold(white, black).pgn(self.pair_teams(white, black).as_ref()));
                }
                Some(_) => {}
                None => out.push_str(&b.pgn),
            }
        }
        out
    }

    pub fn game_pgn(&self, board: &str) -> Option<String> {
        if let Some((white, black)) = self.pair_named(board) {
            return Some(fold(white, black).pgn(self.pair_teams(white, black).as_ref()));
        }
        self.boards.get(board).map(|b| b.pgn.clone())
    }

    /// The two boards of a pair, White's first, when `board` is one of them
    /// and both name each other with opposite sides; a board that names a
    /// partner alone (its partner not yet heard) is shown as its own game.
    fn pair_of(&self, board: &str) -> Option<(&BoardFeed, &BoardFeed)> {
        let a = self.feed(board)?;
        let pa = a.tags.pair.as_ref()?;
        let b = self.feed(&pa.with)?;
        let pb = b.tags.pair.as_ref()?;
        (pb.with == board && pb.plays != pa.plays).then_some(if pa.plays == Color::White { (a, b) } else { (b, a) })
    }

    /// The pair a folded game's id (`W+B`, White's board first) names.
    fn pair_named(&self, id: &str) -> Option<(&BoardFeed, &BoardFeed)> {
        let (white, _) = id.split_once('+')?;
        self.pair_of(white).filter(|(w, b)| pair_id(w, b) == id)
    }

    /// A pair's place in a team match that lists either of its boards.
    fn pair_teams(&self, white: &BoardFeed, black: &BoardFeed) -> Option<BoardTeams> {
        self.game_teams(&pair_id(white, black))
    }

    /// The id of the game the board plays, when it is one of a pair: the
    /// pages follow the pair's game, not its boards.
    pub fn paired_game(&self, board: &str) -> Option<String> {
        self.pair_of(board).map(|(white, black)| pair_id(white, black))
    }

    /// The hall's games as the page shows them, each with its place in a
    /// team match: a board's game, or the two boards of a pair as one.
    pub fn games(&self) -> Vec<(Cow<'_, BoardFeed>, Option<BoardTeams>)> {
        let mut games = Vec::with_capacity(self.boards.len());
        for (id, b) in &self.boards {
            match self.pair_of(id) {
                Some((white, black)) if white.id == *id => {
                    games.push((Cow::Owned(fold(white, black)), self.pair_teams(white, black)));
                }
                Some(_) => {}
                None => games.push((Cow::Borrowed(&b.feed), self.game_teams(id))),
            }
        }
        games
    }

    /// One game as the page shows it: a board's, or a pair's by its `W+B` id.
    pub fn game(&self, id: &str) -> Option<(Cow<'_, BoardFeed>, Option<BoardTeams>)> {
        if let Some((white, black)) = self.pair_named(id) {
            return Some((Cow::Owned(fold(white, black)), self.pair_teams(white, black)));
        }
        self.feed(id).map(|f| (Cow::Borrowed(f), self.game_teams(id)))
    }

    /// A game's place in a team match (a board's game, or a pair's), if it
    /// has one.
    fn game_teams(&self, game: &str) -> Option<BoardTeams> {
        self.matches.iter().find_map(|m| m.board_teams(game, self))
    }

    /// The score of every match.
    pub fn scores(&self) -> Vec<MatchScore> {
        self.matches.iter().map(|m| m.score(self)).collect()
    }

    /// Re-renders a board whose PGN changed; when its result changed, the
    /// match score in the tags of the match's other games changed too.
    fn rendered(&mut self, board: &str, score_changed: bool) {
        let others = match self.matches.iter().find(|m| m.boards().iter().any(|b| b == board)) {
            Some(m) if score_changed => m.boards().to_vec(),
            _ => Vec::new(),
        };
        self.render(board);
        for id in others.iter().filter(|id| id.as_str() != board) {
            self.render(id);
        }
    }

    fn render(&mut self, board: &str) {
        let teams = self.game_teams(board);
        if let Some(b) = self.boards.get_mut(board) {
            b.pgn = b.feed.pgn(teams.as_ref());
        }
    }
}

impl Games for Hall {
    fn game_of<'a>(&'a self, board: &'a str) -> Cow<'a, str> {
        self.paired_game(board).map_or(Cow::Borrowed(board), Cow::Owned)
    }

    fn result(&self, game: &str) -> Option<GameResult> {
        match self.pair_named(game) {
            Some((white, black)) => white.result.or(black.result),
            None => self.feed(game).and_then(|f| f.result),
        }
    }
}

/// The id of a pair's game: both boards, White's first.
fn pair_id(white: &BoardFeed, black: &BoardFeed) -> String {
    format!("{}+{}", white.id, black.id)
}

/// The one game two paired boards play: the moves of the board that has
/// more of them (they agree; the other has yet to complete the last), each
/// side's time from the board that keeps it, the rulings of both.
fn fold(white: &BoardFeed, black: &BoardFeed) -> BoardFeed {
    let (base, other) = if black.moves.len() > white.moves.len() { (black, white) } else { (white, black) };
    let keeper = |side: Color| if side == Color::White { white } else { black };
    let mut game = base.clone();
    game.id = pair_id(white, black);
    game.tags.pair = None;
    game.tags.white = game.tags.white.or_else(|| other.tags.white.clone());
    game.tags.black = game.tags.black.or_else(|| other.tags.black.clone());
    if game.result.is_none() {
        game.result = other.result;
        game.end_reason.clone_from(&other.end_reason);
        game.end_text.clone_from(&other.end_text);
    }
    // The running clock as a board that runs it for the side to move reads
    // it (its keeper, or the board whose player just pressed); the other
    // side's time as its keeper stopped it.
    let turn = game.turn();
    let runs = |f: &&BoardFeed| f.clocks.running == Some(turn);
    let from = [keeper(turn), keeper(!turn)].into_iter().find(runs).unwrap_or(keeper(turn));
    game.clocks = from.clocks.clone();
    *game.clocks.side_mut(!turn) = keeper(!turn).clocks.side(!turn);
    game.irregularities = white.irregularities.iter().chain(&black.irregularities).cloned().collect();
    game.arbiter_notes = white.arbiter_notes.iter().chain(&black.arbiter_notes).cloned().collect();
    game.engine = None;
    game
}

#[cfg(test)]
mod tests;
