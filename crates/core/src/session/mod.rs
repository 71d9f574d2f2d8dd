//! One game on one board: debounced sensor changes, clock presses and inputs
//! in; the events of the Laws out. Pure and deterministic: every input
//! carries its time, and the timers are deadlines the driver reports back
//! through [`Session::advance`] — so replay, recovery and tests are one path.
//!
//! The modules follow the Laws:
//!
//! | module | articles |
//! |---|---|
//! | `board` | what the board shows: debounced squares, stuck sensors, the move announced once it stands still (4.7), the board reported when it is wrong |
//! | `watch` | a ply as the board shows it, and the reply made before the press (1.3, 6.2.2) |
//! | `touch` | touch-move and castling with the rook first (4.3, 4.4), pieces displaced (7.4) |
//! | `press` | the press that completes a move (6.2.1), also a few ms before the piece lands, also after the opponent's reply |
//! | `illegal` | illegal moves and presses without a move (7.5), the A.5.2 policy |
//! | `clock` | flag fall (6.9), stopping and setting the clocks (6.10, 6.11), time warnings |
//! | `take_back` | against the engine: the board set back to an earlier position takes the moves since back; online, it asks the server, whose take-back the board is guided to |
//! | `table` | two boards at one table, one clock: the partner's press hands it over before their move arrives (6.2.1, D.2.5) |
//! | `claims` | draw claims (9.2, 9.3, 9.5), draw offers (9.1.2), illegal-move claims (A.5.2), results off the board, requests |
//!
//! The ply of the player to move goes through these phases:
//!
//! ```text
//!             board shows a legal move, held still: announced
//!   ┌──────┐  press, board held still on a move ───────────────▶ completed → next ply: Open
//!   │ Open │  press, a piece still in the hand ──▶ ┌─────────┐
//!   └──────┘                                       │ Pressed │ ─ lands within the grace ─▶ completed
//!      ▲  press, no legal move (7.5.1, 7.5.3)      └─────────┘ ─ grace over, no move ───┐
//!      │        ▼                                                                       │
//!   ┌───────────┐ ◀──────────────────────────────────────────────────────────────────────┘
//!   │ Restoring │  board back to the position
//!   └───────────┘
//!   engine on move: its choice (Input::Opponent) ──▶ Carrying ── board holds still on it ──▶ completed
//!   player on move, their move made on the website (Input::WebsiteMove) ──▶ Carrying (as above)
//!   online: moves taken back by the server (Input::TakeBack) ──▶ SettingBack ── board shows the position ──▶ Open
//!   no clock at the board (Input::ClockConnected): Open ── board holds still on a move (4.7) ──▶ completed
//!   any phase ── mate, stalemate, dead position, flag, 7.5.5, result, end of record ──▶ Over
//! ```
//!
//! While the mover has not pressed, the board may already show the
//! opponent's reply (`watch`): the press completes the mover's move and the
//! reply goes on as the opponent's ply, touches and all.

mod board;
mod claims;
mod clock;
mod illegal;
mod mate;
mod opponent;
mod press;
mod table;
mod take_back;
mod touch;
mod watch;

use shakmaty::ByColor;
use tactus_clock::{Clock, TimeControl};
use tactus_trace::{Entry, Header, Input, Record};

use crate::event::{Event, EventKind, Ms};
use crate::game::{Game, SetupError};
use crate::policy::Policy;

use board::{BoardCheck, Sensors};
use claims::Claimable;
pub use mate::{MateQuestion, search as search_mate};
use opponent::Reported;
use press::Pressed;
use watch::Watch;

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error("time_control {text:?}: {why}")]
    TimeControl { text: String, why: String },
}

/// Where the ply of the player to move stands.
#[derive(Debug, Clone)]
enum Phase {
    /// The player thinks or moves; the board may show a move, or more.
    Open,
    /// An illegal act was ruled (7.5.1, 7.5.3): the position is being put
    /// back; lifts until then are repairs, not touches.
    Restoring,
    /// The clock was pressed while a piece was still in the hand: the press
    /// completes the move that stands still before the grace runs out.
    Pressed(Pressed),
    /// A flag fell (6.9) or a second illegal move was made (7.5.5), and
    /// whether the opponent can mate waits for the full search (`mate`):
    /// the clocks are stopped and only the answer (or the arbiter) counts.
    Judging,
    /// The engine on move has chosen (`opponent`), or the player's own move
    /// was made on the online server's website (`website_move`): the player
    /// carries it out on the board, both clocks stopped; it completes when
    /// the board shows it.
    Carrying(Box<opponent::Carrying>),
    /// The online server took moves back (`take_back`): the board is being
    /// set back to the game's position, and nothing on it is a move while
    /// it still shows the first move taken back (`undone`) — it is set back
    /// once it shows the position, or another move from it. A move to carry
    /// out that comes meanwhile (`held`) is taken then.
    SettingBack { undone: shakmaty::Move, held: Option<Input> },
    /// The game ended, or the recording stopped: later inputs change nothing.
    Over,
}

/// What completes the move of the player to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CompletedBy {
    /// A clock is at the board: its press completes the move (6.2.1).
    Press,
    /// No clock to press (a DGT board without its clock): the move made
    /// (4.7) is complete once the board has held still on it.
    HeldStill,
}

/// The timers, in the order they run when due at the same instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Timer {
    /// A square's reading has held for the debounce window.
    Debounce,
    /// The board has held still: announce what it shows.
    Settle,
    /// A press waited for the piece in the hand long enough.
    PressGrace,
    /// The board has differed from the game too long: report it.
    Mismatch,
    /// The running side's time reached a warning threshold.
    Warning,
    /// The running side's time is up (6.9).
    Flag,
}

pub struct Session {
    policy: Policy,
    game: Game,
    time_control: Option<TimeControl>,
    clock: Option<Clock>,
    sensors: Sensors,
    watch: Watch,
    phase: Phase,
    /// Until the board says there is no clock to press, the press.
    completed_by: CompletedBy,
    /// When the board will have held still long enough to announce.
    settle_at: Option<Ms>,
    check: BoardCheck,
    /// Illegal acts ruled against each side (7.5.5).
    illegal: ByColor<u8>,
    claimable: Option<Claimable>,
    /// Time-warning thresholds already given to each side.
    warned: ByColor<Vec<Ms>>,
    /// What the game waits for the full mate search to say (`mate`).
    question: Option<mate::Question>,
    /// A structure in which a mate was shown possible (`mate`).
    alive: Option<mate::Structure>,
    /// The clocks as each ply found them, for taking moves back.
    clocks_at: Vec<take_back::ClockAt>,
    /// Times moves were taken back.
    take_backs: u32,
    /// Online: the take-back the board asked for, `(from, to)` plies, until
    /// the board shows a move or the position again (asked once).
    asked_back: Option<(u32, u32)>,
    /// Time the arbiter has added to each side (penalties, 7.5.5, 9.5.3,
    /// 12): a take-back keeps it.
    added_ms: ByColor<u64>,
    /// The engine's level as last set at the board.
    engine_level: Option<u8>,
    /// One clock at a table of two boards: the partner's press that handed
    /// it over before their move arrived (`table`).
    handed: Option<table::Handed>,
    /// Online, the server's clock stands (from the start, until its state
    /// says it runs: Lichess's, until each side has moved): its times, which
    /// a move leaves as they are.
    server_stands: Option<(Ms, Ms)>,
    /// The presser's time as the table's clock read it, while its press
    /// from the partner board is taken (`table`).
    reading: Option<(shakmaty::Color, u64)>,
    /// Two boards, one game: the partner's time after its move of this ply,
    /// as the partner board's clock kept it, for that move's completion
    /// here (`PartnerClock` before the move): both boards write the same
    /// time for it.
    reported: Option<Reported>,
    /// Two boards, one game: the game the two boards agreed to play, as
    /// each names it (`Input::PairGame`).
    pair_game: Option<ByColor<u64>>,
    /// The side whose draw offer stands (9.1.2.3).
    draw_offer: Option<shakmaty::Color>,
    /// The latest time the session has seen.
    now: Ms,
    out: Vec<Event>,
}

impl Session {
    /// A game from a trace header; White's clock starts at `t = 0` (6.6).
    pub fn new(header: &Header, policy: Policy) -> Result<Session, StartError> {
        let game = Game::new(header.variant, header.start_fen.as_deref())?;
        let time_control = match header.time_control.as_deref() {
            None => None,
            Some(text) => TimeControl::parse(text)
                .map_err(|e| StartError::TimeControl { text: text.into(), why: e.to_string() })?,
        };
        let mut clock = time_control.clone().map(Clock::new);
        if let Some(clock) = &mut clock {
            clock.start(0, game.turn());
        }
        let occupancy = game.occupancy();
        let mut session = Session {
            sensors: Sensors::new(policy.debounce_ms, occupancy),
            watch: Watch::new(&game, 0, occupancy),
            policy,
            game,
            time_control,
            clock,
            phase: Phase::Open,
            completed_by: CompletedBy::Press,
            settle_at: None,
            check: BoardCheck::default(),
            illegal: ByColor::new_with(|_| 0),
            claimable: None,
            warned: ByColor::new_with(|_| Vec::new()),
            question: None,
            alive: None,
            clocks_at: Vec::new(),
            take_backs: 0,
            asked_back: None,
            added_ms: ByColor::new_with(|_| 0),
            engine_level: None,
            draw_offer: None,
            handed: None,
            server_stands: None,
            reading: None,
            reported: None,
            pair_game: None,
            now: 0,
            out: Vec::new(),
        };
        let times = session.times(0);
        // The server's clock stands until its state says it runs.
        if session.policy.server_clock
            && let Some(t) = times
        {
            session.server_stands = Some((t.white.max(0) as Ms, t.black.max(0) as Ms));
        }
        session.emit(
            0,
            EventKind::Start {
                fen: session.game.fen(),
                chess960: session.game.mode == shakmaty::CastlingMode::Chess960,
                time_control: header.time_control.clone(),
                white_ms: times.map(|c| c.white),
                black_ms: times.map(|c| c.black),
            },
        );
        session.keep_clock(0);
        session.check_start();
        Ok(session)
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn clock(&self) -> Option<&Clock> {
        self.clock.as_ref()
    }

    pub fn time_control(&self) -> Option<&TimeControl> {
        self.time_control.as_ref()
    }

    /// The debounced occupancy the core believes the board shows.
    pub fn occupancy(&self) -> shakmaty::Bitboard {
        self.sensors.stable()
    }

    /// The moves standing on the board beyond the game's position, in order:
    /// the mover's move before the press completes it, and a reply made on
    /// top of it. What the board shows is this position, less the pieces in
    /// the air ([`Session::occupancy`]).
    pub fn moves_on_board(&self) -> Vec<shakmaty::Move> {
        self.watch.standing()
    }

    /// Squares whose sensors are taken to be stuck, until they change.
    pub fn faulty(&self) -> shakmaty::Bitboard {
        self.sensors.faulty
    }

    /// A flag fell or a second illegal move was made, and the result waits
    /// for the answer to [`Session::mate_question`].
    pub fn judging(&self) -> bool {
        matches!(self.phase, Phase::Judging)
    }

    /// The engine's level as last set at the board in this game (a
    /// recovered game's engine is set to it again).
    pub fn engine_level(&self) -> Option<u8> {
        self.engine_level
    }

    /// The side whose draw offer stands (9.1.2.3): not yet accepted, nor
    /// declined by the opponent's move.
    pub fn draw_offered(&self) -> Option<shakmaty::Color> {
        self.draw_offer
    }

    /// Two boards, one game: the game this board and its partner agreed to
    /// play, as each names it (White's board's number, and Black's).
    pub fn pair_game(&self) -> Option<ByColor<u64>> {
        self.pair_game
    }

    /// The game is over or the recording ended: later inputs change nothing.
    pub fn finished(&self) -> bool {
        matches!(self.phase, Phase::Over)
    }

    /// The events produced and not yet drained: what the latest input led to.
    pub fn pending(&self) -> &[Event] {
        &self.out
    }

    /// Events produced since the last call.
    pub fn drain(&mut self) -> std::vec::Drain<'_, Event> {
        self.out.drain(..)
    }

    /// The earliest time at which `advance` has work to do.
    pub fn next_deadline(&self) -> Option<Ms> {
        self.next_timer().map(|(t, _)| t)
    }

    /// The next timer due, the first in [`Timer`] order among those due at
    /// the same instant.
    fn next_timer(&self) -> Option<(Ms, Timer)> {
        if matches!(self.phase, Phase::Over | Phase::Judging) {
            return None;
        }
        let grace = match &self.phase {
            Phase::Pressed(p) => Some(p.until),
            _ => None,
        };
        let flag = self
            .clock
            .as_ref()
            .and_then(|c| c.flag_deadline())
            .filter(|&(side, _)| !self.flag_kept_elsewhere(side))
            .map(|(_, t)| t);
        [
            (self.sensors.next_deadline(), Timer::Debounce),
            (self.settle_at, Timer::Settle),
            (grace, Timer::PressGrace),
            (self.check.due, Timer::Mismatch),
            (self.warning_deadline(), Timer::Warning),
            (flag, Timer::Flag),
        ]
        .into_iter()
        .filter_map(|(t, timer)| t.map(|t| (t, timer)))
        .min_by_key(|&(t, timer)| (t, timer as u8))
    }

    /// Runs every timer due by `t`, in time order.
    pub fn advance(&mut self, t: Ms) {
        while let Some((due, timer)) = self.next_timer().filter(|&(due, _)| due <= t) {
            self.now = self.now.max(due);
            match timer {
                Timer::Debounce => {
                    if let Some(change) = self.sensors.pop_due(due) {
                        self.on_change(change);
                    }
                }
                Timer::Settle => self.on_settled(due),
                Timer::PressGrace => self.on_grace(due),
                Timer::Mismatch => self.on_mismatch(due),
                Timer::Warning => self.on_warning(due),
                Timer::Flag => self.on_flag(due),
            }
        }
    }

    /// One line of a trace.
    pub fn handle(&mut self, entry: Entry) {
        self.advance(entry.t);
        self.now = self.now.max(entry.t);
        if let Record::Input(Input::PairGame { white, black }) = entry.record {
            // Whose messages count, not what happens in the game: kept in
            // any phase, said nowhere.
            self.pair_game = Some(ByColor { white, black });
            return;
        }
        let t = entry.t;
        match entry.record {
            Record::Pairing(pairing) => self.on_pairing(t, pairing),
            Record::Input(input) if self.finished() => self.after_the_end(t, input),
            _ if self.finished() => {}
            record if matches!(self.phase, Phase::Judging) => self.while_judging(t, record),
            Record::Edge { sq, on, .. } => self.on_edge(t, sq, on),
            Record::Clock(side) => {
                self.on_press(t, side);
                self.rearm_warnings(t);
            }
            Record::Input(input) => {
                // What changes the clock or ends the game settles a waiting
                // press first; the selector and questions do not.
                if !matches!(
                    input,
                    Input::Promote(_)
                        | Input::Request(_)
                        | Input::Verdict { .. }
                        | Input::Opponent { .. }
                        | Input::DrawOffer { .. }
                        | Input::TablePress { .. }
                ) {
                    self.resolve_press(t, true);
                }
                if !self.finished() {
                    self.on_input(t, input);
                    self.rearm_warnings(t);
                }
            }
            // The timers due by `t` ran above, as they did in the live game.
            Record::Timers => {}
            Record::End => self.on_end(t),
        }
    }

    fn emit(&mut self, t: Ms, kind: EventKind) {
        self.out.push(Event { t, kind });
    }

    /// Who plays, in which round, on which board: the record's from now on,
    /// in any phase; nothing on the board or the clock changes.
    fn on_pairing(&mut self, t: Ms, pairing: Box<tactus_trace::Pairing>) {
        self.game.pairing = Some((*pairing).clone());
        self.emit(t, EventKind::Pairing(pairing));
    }

    /// The recording stops: what the sensors read stands, a waiting press is
    /// settled, and a move that ends the game is complete at once (6.2.1).
    fn on_end(&mut self, t: Ms) {
        self.flush(t);
        self.resolve_press(t, true);
        if !self.finished()
            && let watch::Shown::Moves(moves) = self.watch.shown()
            && self.game.ends_game(moves[0])
            && let Some(c) = self.watch.take_shown().or_else(|| self.watch.take_made())
        {
            self.complete(t, c);
        }
        self.stop();
    }

    /// While the result waits for the mate search: its answer or the
    /// arbiter's result; nothing else counts. Not the end of a recording
    /// either: the answer journaled after it is what the live game ruled.
    fn while_judging(&mut self, t: Ms, record: Record) {
        match record {
            Record::Input(Input::Verdict { ply, side, verdict }) => self.on_verdict(t, ply, side, verdict),
            Record::Input(Input::Result { result, reason }) => self.on_result(t, result, reason),
            Record::Input(Input::Request(what)) => self.on_request(t, what),
            _ => {}
        }
    }

    /// Nothing more happens in this session.
    fn stop(&mut self) {
        self.phase = Phase::Over;
        self.question = None;
        self.settle_at = None;
        self.check = BoardCheck::default();
    }

    /// The game is over: questions are still answered, until a new game;
    /// what a player presses is told it changes nothing. The engine's own
    /// inputs are its late answers, dropped.
    fn after_the_end(&mut self, t: Ms, input: Input) {
        match input {
            Input::Request(what) => self.on_request(t, what),
            // A press: as the clock's own, it changes nothing now.
            Input::Verdict { .. }
            | Input::Opponent { .. }
            | Input::Hint { .. }
            | Input::Online(_)
            | Input::TakeBack { .. }
            | Input::WebsiteMove { .. }
            | Input::TablePress { .. }
            | Input::PressRuled { .. }
            | Input::PairGame { .. } => {}
            _ => self.emit(t, EventKind::NotNow { why: crate::event::NotNow::GameOver }),
        }
    }

    fn on_input(&mut self, t: Ms, input: Input) {
        match input {
            Input::Promote(role) => {
                self.watch.select_promotion(role);
                self.emit(t, EventKind::PromotionChoice { role });
                self.reread(t);
            }
            Input::Claim { side, claim } => self.on_claim(t, side, claim),
            Input::Result { result, reason } => self.on_result(t, result, reason),
            Input::Request(tactus_trace::Request::LastMove) if self.carrying() => self.repeat_opponent_move(t),
            Input::Request(what) => self.on_request(t, what),
            Input::Verdict { ply, side, verdict } => self.on_verdict(t, ply, side, verdict),
            Input::Opponent { ply, uci, eval } => self.on_opponent(t, ply, uci, eval),
            Input::WebsiteMove { ply, uci } => self.on_website_move(t, ply, uci),
            Input::TakeBack { ply } => self.on_take_back(t, ply),
            Input::Hint { ply, uci } => self.on_hint(t, ply, uci),
            Input::DrawOffer { side } => self.on_draw_offer(t, side),
            Input::EngineLevel(level) => {
                self.engine_level = Some(level);
                self.emit(t, EventKind::EngineLevel { level });
            }
            Input::ClockConnected(connected) => self.on_clock_connected(t, connected),
            Input::TablePress { side, ms } => self.on_table_press(t, side, ms),
            Input::PressRuled { ply } => self.on_press_ruled(ply),
            // Taken in `handle`, in any phase.
            Input::PairGame { .. } => {}
            // Declined at the board: said at once, as a move would (9.1.2.3).
            Input::Online(tactus_trace::OnlineAsk::DrawNo) => self.decline_offer(t),
            // The daemon's to send; the server's answer comes as inputs.
            Input::Online(_) => {}
            Input::Pause
            | Input::Resume
            | Input::SetClock { .. }
            | Input::PartnerClock { .. }
            | Input::ServerClock { .. }
            | Input::SetMoves { .. }
            | Input::AddTime { .. }
            | Input::Increment { .. } => self.on_clock_input(t, input),
        }
    }

    /// The ply of `side` that the board is at, counted from the ply being made.
    fn ply_ahead(&self, ahead: usize) -> u32 {
        self.game.ply() + ahead as u32
    }
}
