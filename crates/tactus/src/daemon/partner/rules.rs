//! The partner's rules, pure: what the partner board says and what the
//! game commits go in; what the game takes (inputs, notices) and what goes
//! to the partner (messages of the game) come out. No clock, no network —
//! the shell (`mod.rs`) feeds it the link's news and the game's steps.
//!
//! **Which game.** Each board draws a number for its game; the pair's game
//! is White's board's number and Black's ([`PairGame`]), agreed at the
//! handshake and journaled (`Input::PairGame`), so that a board restarted
//! goes on with it. A message counts only if it names that game:
//!
//! ```text
//!   seat (new game) ──▶ Alone { mine } ── the partner's hello naming us or no one ──▶ Agreeing
//!   seat (recovered, the journal's pair_game) ────────────────────────────────────▶ Agreed
//!   Agreeing ── its pair_game input on disk ──▶ Agreed: the hello answered, moves sent from its ply
//!   Agreed ── a hello naming another game of the partner's:
//!               no partner move here yet ──▶ Agreeing (the partner began anew before moving)
//!               else ──▶ refused: `other_game`, said once; nothing of it is taken
//! ```
//!
//! Nothing goes to the partner under a game not on disk here; what this
//! board says before (a ruling, a press) waits, bounded, and a move is sent
//! from the partner's ply once it is agreed. A hello whose seat does not
//! fit — the same side, another time control, the table's clock at both
//! boards or neither — is refused until a hello that fits: said once on
//! both boards, with what to change.
//!
//! **The time.** Each player's time is kept by their own board's clock;
//! the partner's move completes here with the time its board kept
//! (`partner_clock` before the move), so both boards write the same time
//! for every move. At one table with one clock ([`Table`]), its presses
//! carry the times instead.
//!
//! **A restart.** A board recovered in the middle of the game says how the
//! game goes on: the partner's move it was carrying out, again, with the
//! steps left; who is on move; whether the clocks run.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use shakmaty::Color;
use shakmaty::uci::UciMove;
use tactus_core::{Article, Device, EndReason, EventKind, Irregularity, Pair, Restarted, Session};
use tactus_net::{FromPartner, PairGame, PairMessage, Seat};
use tactus_trace::{Claim, Entry, Input, OffBoardReason, Record, Request, TableClock};

/// Moves for later plies held until their turn (a partner never is more
/// than a move ahead; a flood is not kept).
const PENDING_KEPT: usize = 16;

/// Messages of this board's held while the game is not agreed.
const HELD_KEPT: usize = 64;

/// Games refused, remembered so that each is logged once.
const REFUSED_KEPT: usize = 16;

/// How long the partner's latest moves waited, kept for the summary.
const WAITS_KEPT: usize = 1024;

/// How this board is set to play with its partner.
#[derive(Debug, Clone)]
pub struct Setup {
    /// This board's name, and the partner board's.
    pub board: String,
    pub partner: String,
    /// The side this board's player has.
    pub side: Color,
    /// One clock at the table: where it is.
    pub table: Option<TableClock>,
}

/// What the rules give the game.
#[derive(Debug, Clone, PartialEq)]
pub enum Said {
    /// Inputs, journaled and taken in order.
    Inputs(Vec<Input>),
    /// Said and shown, not journaled.
    Notice(EventKind),
}

/// The game the two boards play (the module doc's diagram).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binding {
    Alone {
        mine: u64,
    },
    /// The partner's number known, its `pair_game` on its way to disk; the
    /// partner's hello to answer once it is there.
    Agreeing {
        game: PairGame,
        hello: Option<HelloDue>,
    },
    Agreed {
        game: PairGame,
    },
}

/// A hello of the partner's to act on: its ply, and whether it wants an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct HelloDue {
    ply: u32,
    answer: bool,
}

/// Why the partner's board and this one cannot play one game now.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mismatch {
    SameSide,
    TimeControl { theirs: Option<String> },
    TableClock { theirs: Option<TableClock> },
    OtherGame,
}

/// Where the game's time is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Table {
    /// Each board keeps its own player's clock (or none): the partner's
    /// time comes with its move.
    Own,
    /// One clock at the table, attached here: the partner's player's
    /// presses go to the partner board. `due`: what the game takes next
    /// about it (the clock lost or back, a press the partner ruled as no move).
    Here { due: Option<Input> },
    /// One clock at the table, attached to the partner board.
    Partner(Remote),
}

/// The table's clock at the partner board, as this board knows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Remote {
    /// This board's player's press there (its ply, the time that clock
    /// read), waiting for this board's game to reach its ply.
    press: Option<(u32, i64)>,
    /// The partner board cannot be reached.
    away: bool,
    /// The clock is unplugged there.
    unplugged: bool,
}

impl Remote {
    /// Whether presses come from the table: moves complete by them here.
    fn presses(&self) -> bool {
        !self.away && !self.unplugged
    }
}

impl Table {
    fn of(table: Option<TableClock>) -> Table {
        match table {
            None => Table::Own,
            Some(TableClock::Here) => Table::Here { due: None },
            Some(TableClock::Partner) => Table::Partner(Remote::default()),
        }
    }

    fn clock(&self) -> Option<TableClock> {
        match self {
            Table::Own => None,
            Table::Here { .. } => Some(TableClock::Here),
            Table::Partner(_) => Some(TableClock::Partner),
        }
    }
}

/// What the partner's board gave this board, not to be sent back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Echo {
    None,
    /// Time given, or a claim ruled, because the partner's board did: its
    /// step here is not sent back.
    Taken(Input),
    /// A claim the partner's board ruled was ruled here too, and gave its
    /// penalty here: the partner's ruling of that penalty, which comes
    /// next, is not given again.
    ClaimPenalised,
}

/// A move of the partner's, waiting for this board to be ready for it.
#[derive(Debug, Clone)]
struct Pending {
    uci: UciMove,
    /// The mover's time after it, as the partner's clock kept it.
    clock_ms: Option<i64>,
    /// When it arrived, for the summary.
    at: Instant,
}

pub struct PartnerRules {
    setup: Setup,
    binding: Binding,
    mismatch: Option<Mismatch>,
    table: Table,
    echo: Echo,
    pending: BTreeMap<u32, Pending>,
    /// For the game, in order.
    said: VecDeque<Said>,
    /// For the partner, under the agreed game.
    sends: Vec<(PairGame, PairMessage)>,
    /// This board's messages while the game is not agreed.
    held: VecDeque<PairMessage>,
    /// Games whose messages were refused (logged once each), and how many.
    refused_games: VecDeque<PairGame>,
    refused: u64,
    /// How long the partner's latest moves waited for this board.
    waits: VecDeque<Duration>,
}

impl PartnerRules {
    pub fn new(setup: Setup) -> PartnerRules {
        let table = Table::of(setup.table);
        PartnerRules {
            setup,
            binding: Binding::Alone { mine: 0 },
            mismatch: None,
            table,
            echo: Echo::None,
            pending: BTreeMap::new(),
            said: VecDeque::new(),
            sends: Vec::new(),
            held: VecDeque::new(),
            refused_games: VecDeque::new(),
            refused: 0,
            waits: VecDeque::new(),
        }
    }

    /// The side the partner board's player has.
    pub fn side(&self) -> Color {
        !self.setup.side
    }

    /// The game is under way here: new (`fresh`, a number drawn for it), or
    /// recovered from the journal (`recovered`). The partner hears where
    /// it stands and how this board is set, and sends again what it lacks;
    /// a recovered game says how it goes on.
    pub fn seat(&mut self, session: &Session, fresh: u64, recovered: bool) {
        self.pending.clear();
        self.echo = Echo::None;
        self.held.clear();
        self.mismatch = None;
        self.table = Table::of(self.setup.table);
        self.binding = match session.pair_game() {
            Some(g) => Binding::Agreed { game: PairGame { white: g.white, black: g.black } },
            None => Binding::Alone { mine: fresh },
        };
        let hello = PairMessage::Hello { ply: session.game().ply(), answer: false, seat: Some(self.seat_of(session)) };
        self.sends.push((self.game(), hello));
        if recovered && !session.finished() {
            self.goes_on(session);
        }
    }

    /// How this board is set to play.
    fn seat_of(&self, session: &Session) -> Seat {
        Seat { plays: self.setup.side, time_control: session.time_control().cloned(), table_clock: self.table.clock() }
    }

    /// The game as this board names it now (the partner's number 0 until known).
    fn game(&self) -> PairGame {
        match self.binding {
            Binding::Alone { mine } => PairGame::default().with(self.setup.side, mine),
            Binding::Agreeing { game, .. } | Binding::Agreed { game } => game,
        }
    }

    /// After a restart: the partner's move being carried out said again
    /// (with the steps left), and how the game goes on.
    fn goes_on(&mut self, session: &Session) {
        let carrying = session.carrying_move();
        if carrying {
            self.said.push_back(Said::Inputs(vec![Input::Request(Request::LastMove)]));
        }
        // Each board's own clock runs on after a restart (while the move is
        // carried out, once it stands), unless the arbiter had stopped it;
        // the table's waits for its next press.
        let clocks = session.clock().map(|c| match self.table {
            Table::Own if carrying || c.running().is_some() => Restarted::Run,
            Table::Own => Restarted::Stopped,
            Table::Here { .. } | Table::Partner(_) => Restarted::AtTable,
        });
        let to_move = session.game().turn();
        self.said.push_back(Said::Notice(EventKind::Pair(Pair::GoesOn { to_move, carrying, clocks })));
    }

    /// What goes to the partner now.
    pub fn take_sends(&mut self) -> Vec<(PairGame, PairMessage)> {
        std::mem::take(&mut self.sends)
    }

    /// What the game takes next: what was said, in order, then the table's
    /// news, then the partner's move or press once the game is ready for it.
    pub fn next(&mut self, session: &Session, now: Instant) -> Option<Said> {
        if let Some(said) = self.said.pop_front() {
            return Some(said);
        }
        if let Table::Here { due } = &mut self.table
            && let Some(input) = due.take()
        {
            return Some(Said::Inputs(vec![input]));
        }
        // Presses from the table complete moves here while they can come.
        if let Table::Partner(remote) = &self.table
            && remote.presses() != session.presses_complete()
            && !session.finished()
        {
            return Some(Said::Inputs(vec![Input::ClockConnected(remote.presses())]));
        }
        self.due(session, now).map(Said::Inputs)
    }

    /// Sends `msg` under the agreed game, or holds it until there is one.
    /// A move and a standing offer need no holding: they go from the
    /// partner's ply once it is agreed.
    fn send(&mut self, msg: PairMessage) {
        match self.binding {
            Binding::Agreed { game } if self.mismatch.is_none() => self.sends.push((game, msg)),
            _ if matches!(msg, PairMessage::Move { .. } | PairMessage::DrawOffer { .. }) => {}
            _ => {
                if self.held.len() >= HELD_KEPT {
                    self.held.pop_front();
                }
                self.held.push_back(msg);
            }
        }
    }

    /// Takes what the link says: the partner's move is held for its turn;
    /// what is for the game now is queued.
    pub fn heard(&mut self, from: FromPartner, session: &Session, at: Instant) {
        let partner = self.setup.partner.clone();
        match from {
            FromPartner::Away => {
                tracing::warn!("the partner board {partner} cannot be reached");
                // The table's clock with it: the game goes on timed here.
                if let Table::Partner(remote) = &mut self.table {
                    remote.away = true;
                }
                let lost = EventKind::DeviceLost {
                    device: Device::Partner,
                    why: tactus_core::Lost::Connection,
                    diagnostic: Some(format!("board {partner}")),
                };
                self.said.push_back(Said::Notice(lost));
            }
            FromPartner::Back => {
                tracing::info!("the partner board {partner} is back");
                if let Table::Partner(remote) = &mut self.table {
                    remote.away = false;
                }
                self.said.push_back(Said::Notice(EventKind::DeviceBack { device: Device::Partner }));
            }
            FromPartner::Twin => {
                let board = self.setup.board.clone();
                self.said.push_back(Said::Notice(EventKind::Pair(Pair::Twin { board })));
            }
            FromPartner::Message { game, msg: PairMessage::Hello { ply, answer, seat } } => {
                self.hello(game, HelloDue { ply, answer }, seat, session);
            }
            FromPartner::Message { game, msg } => {
                if self.counts(game) {
                    self.message(msg, session, at);
                } else {
                    self.refuse(game, &msg);
                }
            }
        }
    }

    /// Whether a message of `game` counts: the game agreed (or being
    /// journaled), and no mismatch standing.
    fn counts(&self, game: PairGame) -> bool {
        self.mismatch.is_none()
            && matches!(self.binding, Binding::Agreeing { game: g, .. } | Binding::Agreed { game: g } if g == game)
    }

    /// A message of another game (one before this, or a partner in
    /// another): nothing of it is taken; logged once for each game.
    fn refuse(&mut self, game: PairGame, msg: &PairMessage) {
        self.refused += 1;
        if self.refused_games.contains(&game) {
            return;
        }
        if self.refused_games.len() >= REFUSED_KEPT {
            self.refused_games.pop_front();
        }
        self.refused_games.push_back(game);
        let kind = serde_json::to_value(msg).ok().and_then(|v| v["kind"].as_str().map(str::to_string));
        tracing::warn!(
            "the partner board {} sent a message ({}) of another game ({:x}/{:x}; this board's is {:x}/{:x}): refused, \
             and its others too",
            self.setup.partner,
            kind.as_deref().unwrap_or("?"),
            game.white,
            game.black,
            self.game().white,
            self.game().black,
        );
    }

    /// The partner's hello: its seat checked, its game agreed, and once
    /// that is on disk, answered.
    fn hello(&mut self, game: PairGame, hello: HelloDue, seat: Option<Seat>, session: &Session) {
        let side = self.setup.side;
        let mismatch = seat.as_ref().and_then(|seat| self.misfit(seat, session)).or_else(|| {
            let mine = game.of(side);
            // It names a game of this board's that is not this one.
            (mine != 0 && mine != self.game().of(side)).then_some(Mismatch::OtherGame)
        });
        let theirs = game.of(!side);
        let mismatch = mismatch.or_else(|| {
            let agreed = match self.binding {
                Binding::Alone { .. } => return None,
                Binding::Agreeing { game, .. } | Binding::Agreed { game } => game.of(!side),
            };
            // A partner begun anew: taken while it has no move in this game.
            (agreed != theirs && self.partner_moved(session)).then_some(Mismatch::OtherGame)
        });
        if let Some(why) = mismatch {
            return self.mismatched(why, session, hello);
        }
        if self.mismatch.take().is_some() {
            let partner = self.setup.partner.clone();
            tracing::info!("the partner board {partner} fits this one now: the game goes on");
            self.said.push_back(Said::Notice(EventKind::Pair(Pair::Agreed { partner })));
        }
        match self.binding {
            Binding::Agreed { game } if game.of(!side) == theirs => self.answer(hello, session),
            Binding::Agreeing { game, hello: due } if game.of(!side) == theirs => {
                let merged = match due {
                    Some(due) => HelloDue { ply: hello.ply, answer: hello.answer && due.answer },
                    None => hello,
                };
                self.binding = Binding::Agreeing { game, hello: Some(merged) };
            }
            _ => {
                let mine = self.game().of(side);
                let game = PairGame::default().with(side, mine).with(!side, theirs);
                tracing::info!("playing with board {} the game {:x}/{:x}", self.setup.partner, game.white, game.black);
                self.binding = Binding::Agreeing { game, hello: Some(hello) };
                let input = Input::PairGame { white: game.white, black: game.black };
                self.said.push_back(Said::Inputs(vec![input]));
            }
        }
    }

    /// Why the partner's seat does not fit this board's, if it does not.
    fn misfit(&self, seat: &Seat, session: &Session) -> Option<Mismatch> {
        if seat.plays == self.setup.side {
            return Some(Mismatch::SameSide);
        }
        if seat.time_control.as_ref() != session.time_control() {
            return Some(Mismatch::TimeControl { theirs: seat.time_control.as_ref().map(ToString::to_string) });
        }
        let fits = matches!(
            (self.table.clock(), seat.table_clock),
            (None, None)
                | (Some(TableClock::Here), Some(TableClock::Partner))
                | (Some(TableClock::Partner), Some(TableClock::Here))
        );
        (!fits).then_some(Mismatch::TableClock { theirs: seat.table_clock })
    }

    /// The partner's hello does not fit: said once (and logged with what to
    /// change), answered so that the partner board says it too.
    fn mismatched(&mut self, why: Mismatch, session: &Session, hello: HelloDue) {
        if self.mismatch.as_ref() != Some(&why) {
            let partner = self.setup.partner.clone();
            let ours_tc = session.time_control().map(ToString::to_string);
            let (notice, log) = match &why {
                Mismatch::SameSide => (
                    Pair::SameSide { partner: partner.clone(), side: self.setup.side },
                    format!(
                        "board {partner} plays {:?} too: set [pair] plays (--plays) to the other side on one of the two",
                        self.setup.side
                    ),
                ),
                Mismatch::TimeControl { theirs } => (
                    Pair::TimeControl { partner: partner.clone(), ours: ours_tc.clone(), theirs: theirs.clone() },
                    format!(
                        "board {partner} plays with the time control {theirs:?}, this board {ours_tc:?}: give both the same ([game] time_control, --time-control)"
                    ),
                ),
                Mismatch::TableClock { theirs } => (
                    Pair::TableClock { partner: partner.clone(), ours: self.table.clock(), theirs: *theirs },
                    format!(
                        "board {partner} has [pair] clock {theirs:?}, this board {:?}: \"here\" at the board with the table's clock and \"partner\" at the other, or \"own\" at both",
                        self.table.clock()
                    ),
                ),
                Mismatch::OtherGame => (
                    Pair::OtherGame { partner: partner.clone() },
                    format!(
                        "board {partner} plays another game than this board's (at ply {}): finish or set aside one of the two",
                        session.game().ply()
                    ),
                ),
            };
            tracing::error!("pair: {log}; until then nothing of board {partner} is taken");
            self.said.push_back(Said::Notice(EventKind::Pair(notice)));
            self.mismatch = Some(why);
        }
        if !hello.answer {
            let seat = self.seat_of(session);
            self.sends
                .push((self.game(), PairMessage::Hello { ply: session.game().ply(), answer: true, seat: Some(seat) }));
        }
    }

    /// Whether the partner's side has a move in this game.
    fn partner_moved(&self, session: &Session) -> bool {
        let game = session.game();
        let first = game.ply() - game.played.len() as u32;
        (first..game.ply()).any(|ply| ply_side(ply) != self.setup.side)
    }

    /// The game's `pair_game` is on disk (or the game took a step): this
    /// board's completed move goes to the partner, and its rulings, to be
    /// said there too.
    pub fn committed(&mut self, session: &Session, entry: Option<&Entry>) {
        if let Some(&Entry { record: Record::Input(Input::PairGame { white, black }), .. }) = entry
            && let Binding::Agreeing { game, hello } = self.binding
            && game == (PairGame { white, black })
        {
            self.binding = Binding::Agreed { game };
            if let Some(hello) = hello {
                self.answer(hello, session);
            }
            return;
        }
        // The table's clock here unplugged or back: the partner hears it.
        if let (Table::Here { .. }, Some(&Entry { record: Record::Input(Input::ClockConnected(connected)), .. })) =
            (&self.table, entry)
        {
            self.send(PairMessage::TableClock { connected });
        }
        // The arbiter stopped or restarted the table's clock here (6.11):
        // the partner board's clocks with it.
        if let (Table::Here { .. }, Some(Entry { record: Record::Input(input @ (Input::Pause | Input::Resume)), .. })) =
            (&self.table, entry)
        {
            self.send(PairMessage::TableClockStopped { stopped: *input == Input::Pause });
        }
        // The partner's player pressed the table's clock here: sent on,
        // unless the clock stays stopped (6.11) for it.
        if let (Table::Here { .. }, Some(&Entry { t, record: Record::Clock(side) })) = (&self.table, entry)
            && side == !self.setup.side
            && session.clock().is_none_or(|c| c.running().is_some())
        {
            let clock_ms = session.clock().map_or(0, |c| c.remaining(side, t));
            self.send(PairMessage::Press { ply: session.game().ply(), clock_ms });
        }
        if let (Echo::Taken(echo), Some(entry)) = (self.echo, entry)
            && entry.record == Record::Input(echo)
        {
            let penalised = matches!(echo, Input::Claim { .. })
                && session.pending().iter().any(|e| matches!(e.kind, EventKind::Penalty { .. }));
            self.echo = if penalised { Echo::ClaimPenalised } else { Echo::None };
            return;
        }
        // The partner rules the claim itself (`message`), before it hears
        // what it led to here.
        if let Some(claim) = self.ruled_claim(session, entry) {
            self.send(claim);
        }
        for event in session.pending() {
            match &event.kind {
                EventKind::DrawOffer { side, .. } if *side == self.setup.side => {
                    self.send(PairMessage::DrawOffer { ply: session.game().ply() });
                }
                EventKind::Complete { ply, side, san, uci, clock_ms, .. } if *side == self.setup.side => {
                    // An illegal move that stood (A.5.2) has no SAN: its UCI says it.
                    match uci.parse() {
                        Ok(uci) => {
                            self.send(PairMessage::Move { ply: *ply, uci, san: san.parse().ok(), clock_ms: *clock_ms });
                        }
                        Err(_) => tracing::error!("the move {san} ({uci}) of ply {ply} cannot be sent to the partner"),
                    }
                }
                EventKind::Irregularity(_) | EventKind::Penalty { .. } => {
                    self.send(PairMessage::Ruling { event: event.clone() });
                }
                EventKind::GameOver { result, reason, .. } => {
                    if let Some(reason) = off_board(*reason) {
                        self.send(PairMessage::Over { result: *result, reason });
                    }
                }
                _ => {}
            }
        }
    }

    /// Answers the partner's hello under the agreed game: this board's
    /// moves from its ply, its standing offer, the table's press and
    /// clock, what was held, and a hello back if it wants one.
    fn answer(&mut self, hello: HelloDue, session: &Session) {
        // The hello first: a partner that has not agreed yet takes what
        // follows once it has.
        if !hello.answer {
            let seat = self.seat_of(session);
            self.send(PairMessage::Hello { ply: session.game().ply(), answer: true, seat: Some(seat) });
        }
        self.send_from(hello.ply, session);
        // The press whose move the partner has not sent yet: it may not
        // have taken it before it restarted.
        if let Table::Here { .. } = self.table {
            if let Some((handed, Some(clock_ms))) = session.handed()
                && handed >= hello.ply
            {
                self.send(PairMessage::Press { ply: handed, clock_ms });
            }
            self.send(PairMessage::TableClock { connected: session.presses_complete() });
        }
        while let Some(msg) = self.held.pop_front() {
            self.send(msg);
        }
    }

    /// Sends again this board's moves from ply `from` on, and its player's
    /// draw offer if it stands.
    fn send_from(&mut self, from: u32, session: &Session) {
        let game = session.game();
        let first = game.ply() - game.played.len() as u32;
        for (i, played) in game.played.iter().enumerate() {
            let ply = first + i as u32;
            if ply >= from && ply_side(ply) == self.setup.side {
                let info = &played.info;
                let Ok(uci) = info.uci.parse() else { continue };
                self.send(PairMessage::Move { ply, uci, san: info.san.parse().ok(), clock_ms: played.clock_ms });
            }
        }
        // An offer of this board's player that stands may not have reached
        // the partner before a restart here: told again. One the partner
        // has passed since was declined there; one it holds is not taken twice.
        if session.draw_offered() == Some(self.setup.side) && !session.finished() {
            self.send(PairMessage::DrawOffer { ply: game.ply() });
        }
    }

    /// A message of the agreed game.
    fn message(&mut self, msg: PairMessage, session: &Session, at: Instant) {
        let partner = self.setup.partner.clone();
        let side = self.setup.side;
        match msg {
            PairMessage::Hello { .. } => {}
            PairMessage::Move { ply, uci, san, clock_ms } => {
                let game = session.game();
                if ply < game.ply() {
                    // Played already: sent again after a restart. One that
                    // differs is the boards' disagreement, for the arbiter.
                    let first = game.ply() - game.played.len() as u32;
                    let ours = ply.checked_sub(first).and_then(|i| game.played.get(i as usize));
                    if ours.is_some_and(|p| p.info.uci != uci.to_string()) {
                        let said = san.map_or_else(|| uci.to_string(), |san| san.to_string());
                        tracing::warn!(
                            "the partner board {partner} played {said} at ply {ply}; this board has another move there"
                        );
                    }
                    return;
                }
                if ply_side(ply) == side {
                    tracing::warn!(
                        "the partner board {partner} sent a move for this board's side (ply {ply}): ignored"
                    );
                    return;
                }
                if self.pending.len() < PENDING_KEPT || self.pending.contains_key(&ply) {
                    self.pending.entry(ply).or_insert(Pending { uci, clock_ms, at });
                }
            }
            PairMessage::Ruling { event } => match event.kind {
                // Given here already, ruling the claim it is for.
                EventKind::Penalty { .. } if self.echo == Echo::ClaimPenalised => self.echo = Echo::None,
                // Time the partner's board gave a player is given here too.
                EventKind::Penalty { side, ms, .. } => {
                    if let Some(ms) = u64::try_from(ms)
                        .ok()
                        .filter(|&ms| (1..=*tactus_trace::range::ADDED_MS.values.end()).contains(&ms))
                    {
                        let input = Input::AddTime { side, ms };
                        self.echo = Echo::Taken(input);
                        self.said.push_back(Said::Inputs(vec![input]));
                    }
                }
                // Said, not ruled again: the fix is for the partner's board.
                EventKind::Irregularity(irregularity) => {
                    // A press at the table's clock here that completed no
                    // move there: the clock goes back to before it.
                    let no_move = matches!(irregularity.article, Article::A7_5_1 | Article::A7_5_3);
                    if let Table::Here { due } = &mut self.table
                        && no_move
                        && !irregularity.stands
                        && irregularity.side == !side
                        && session.handed().is_some_and(|(ply, _)| ply == irregularity.ply)
                    {
                        *due = Some(Input::PressRuled { ply: irregularity.ply });
                    }
                    let said = EventKind::Irregularity(Irregularity { fix: Vec::new(), ..irregularity });
                    self.said.push_back(Said::Notice(said));
                }
                _ => {}
            },
            PairMessage::Press { ply, clock_ms } => match &mut self.table {
                Table::Partner(remote) => {
                    if ply >= session.game().ply() {
                        remote.press = Some((ply, clock_ms));
                    }
                }
                _ => tracing::warn!("the partner board {partner} sent a press of its clock; this board has its own"),
            },
            PairMessage::TableClock { connected } => {
                let Table::Partner(remote) = &mut self.table else { return };
                if remote.unplugged != connected {
                    return;
                }
                remote.unplugged = !connected;
                self.said.push_back(Said::Notice(if connected {
                    tracing::info!("the clock at board {partner} is back");
                    EventKind::DeviceBack { device: Device::Clock }
                } else {
                    tracing::warn!("the clock at board {partner} is unplugged; the game goes on timed by the boards");
                    EventKind::DeviceLost {
                        device: Device::Clock,
                        why: tactus_core::Lost::Unplugged,
                        diagnostic: Some(format!("at board {partner}")),
                    }
                }));
            }
            PairMessage::TableClockStopped { stopped } => {
                let runs = session.clock().is_some_and(|c| c.running().is_some());
                if matches!(self.table, Table::Partner(_)) && !session.finished() && runs == stopped {
                    self.said.push_back(Said::Inputs(vec![if stopped { Input::Pause } else { Input::Resume }]));
                }
            }
            PairMessage::Over { result, reason } => {
                if !session.finished() {
                    self.said.push_back(Said::Inputs(vec![Input::Result { result, reason }]));
                }
            }
            // The partner's player offers a draw (9.1.2): the offer stands
            // here too, for this board's player to accept by offering in
            // turn or to decline by moving. One the game here has passed was
            // declined by the move made since (9.1.2.3).
            PairMessage::DrawOffer { ply } => {
                if !session.finished() && ply >= session.game().ply() && session.draw_offered() != Some(!side) {
                    self.said.push_back(Said::Inputs(vec![Input::DrawOffer { side: !side }]));
                }
            }
            // A claim the partner's board ruled is ruled here too, at the
            // same ply, the same way: a draw for the same reason, an
            // illegal move that stood here taken back and counted (A.5.2,
            // 7.5.5), an incorrect claim's penalty (9.5.3). What it leads to
            // here is the partner's already: not sent back.
            PairMessage::Claim { .. } if session.finished() => {}
            PairMessage::Claim { ply, side: claimant, claim } => {
                if claimant == side || ply != session.game().ply() {
                    tracing::warn!(
                        "the partner board {partner} ruled a claim ({claim}) at ply {ply}; this board's game is at ply {}: not taken",
                        session.game().ply()
                    );
                    return;
                }
                let input = Input::Claim { side: claimant, claim };
                self.echo = Echo::Taken(input);
                self.said.push_back(Said::Inputs(vec![input]));
            }
        }
    }

    /// What this board is ready for: this board's player's press at the
    /// table at its ply; the partner's move at its turn and ply, with no
    /// move of its being carried out already — with the time its board
    /// kept, or at one table after the press that completed it there.
    fn due(&mut self, session: &Session, now: Instant) -> Option<Vec<Input>> {
        let ply = session.game().ply();
        let side = self.setup.side;
        if let Table::Partner(remote) = &mut self.table
            && let Some((pressed, ms)) = remote.press
            && pressed <= ply
        {
            remote.press = None;
            // Once: a press already waiting for the piece is this one.
            let stopped = session.clock().is_some_and(|c| c.running().is_none());
            let counts = !session.awaits_engine() || stopped;
            if pressed == ply && counts && !session.press_waiting() {
                return Some(vec![Input::TablePress { side, ms: clock_reading(ms) }]);
            }
        }
        if !session.awaits_engine() {
            return None;
        }
        self.pending.retain(|&p, _| p >= ply);
        let pending = self.pending.remove(&ply)?;
        if self.waits.len() >= WAITS_KEPT {
            self.waits.pop_front();
        }
        self.waits.push_back(now.saturating_duration_since(pending.at));
        let opponent = Input::Opponent { ply, uci: pending.uci, eval: None };
        Some(match (&self.table, pending.clock_ms) {
            (Table::Partner(_), Some(ms)) => vec![Input::TablePress { side: !side, ms: clock_reading(ms) }, opponent],
            (_, Some(ms)) => vec![Input::PartnerClock { side: !side, ms: clock_reading(ms) }, opponent],
            (_, None) => vec![opponent],
        })
    }

    /// A claim of this board's player that the game here ruled, as the
    /// partner is told of it: a draw by 9.2 or 9.3 or an incorrect claim
    /// (9.5.3), or an illegal move that stood taken back (A.5.2). A claim
    /// of nothing (no illegal move stands) is not sent.
    fn ruled_claim(&self, session: &Session, entry: Option<&Entry>) -> Option<PairMessage> {
        let Record::Input(Input::Claim { side, claim }) = entry?.record else { return None };
        if side != self.setup.side {
            return None;
        }
        let ruled = |f: fn(&EventKind) -> bool| session.pending().iter().any(|e| f(&e.kind));
        let ply = match claim {
            // Counted (7.5.5): the game is back before the illegal move,
            // one ply earlier than where the claimant was to move.
            Claim::Illegal => {
                let counted = session.judging()
                    || ruled(|k| {
                        matches!(
                            k,
                            EventKind::Penalty { article: Article::A7_5_5, .. }
                                | EventKind::GameOver { reason: EndReason::IllegalMoves, .. }
                        )
                    });
                counted.then(|| session.game().ply() + 1)?
            }
            Claim::Threefold | Claim::Fifty => {
                let judged = ruled(|k| {
                    matches!(
                        k,
                        EventKind::GameOver { reason: EndReason::ThreefoldRepetition | EndReason::FiftyMoves, .. }
                            | EventKind::Penalty { article: Article::A9_5_3, .. }
                    )
                });
                judged.then(|| session.game().ply())?
            }
        };
        Some(PairMessage::Claim { ply, side, claim })
    }

    /// The table's clock here (on a serial line) was lost or is back: the
    /// game goes on timed by the boards, or with its presses again.
    pub fn noticed(&mut self, kind: &EventKind) {
        let Table::Here { due } = &mut self.table else { return };
        match kind {
            EventKind::DeviceLost { device: Device::Clock, .. } => *due = Some(Input::ClockConnected(false)),
            EventKind::DeviceBack { device: Device::Clock } => *due = Some(Input::ClockConnected(true)),
            _ => {}
        }
    }

    /// How long the partner's latest moves waited here (at most the last
    /// [`WAITS_KEPT`]), and how many messages of another game were refused.
    pub fn summary(&self) -> (Vec<Duration>, u64) {
        (self.waits.iter().copied().collect(), self.refused)
    }
}

/// How a game that ended here is told to the partner: the reasons its
/// board cannot see for itself (a mate, a draw by the position, it
/// reaches by itself).
fn off_board(reason: EndReason) -> Option<OffBoardReason> {
    match reason {
        EndReason::Resignation => Some(OffBoardReason::Resignation),
        EndReason::Agreement => Some(OffBoardReason::Agreement),
        EndReason::Arbiter
        | EndReason::FlagFall
        | EndReason::IllegalMoves
        | EndReason::ThreefoldRepetition
        | EndReason::FiftyMoves => Some(OffBoardReason::Arbiter),
        EndReason::Checkmate
        | EndReason::Stalemate
        | EndReason::InsufficientMaterial
        | EndReason::DeadPosition
        | EndReason::FivefoldRepetition
        | EndReason::SeventyFiveMoves => None,
    }
}

/// A time a partner board's clock read, as a clock shows it.
fn clock_reading(ms: i64) -> u64 {
    u64::try_from(ms).unwrap_or(0).min(*tactus_trace::range::CLOCK_MS.values.end())
}

/// The side that makes ply `ply` (1 = White's first move).
fn ply_side(ply: u32) -> Color {
    if ply % 2 == 1 { Color::White } else { Color::Black }
}

#[cfg(test)]
mod tests;
