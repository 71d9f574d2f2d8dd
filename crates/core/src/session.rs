//! One game on one board: debounced sensor changes, clock presses and inputs
//! in; the Article 4, 6, 7 and 9 events out. Pure and deterministic: every
//! input carries its time, and the timers (debounce, settle, flag, board
//! mismatch) are deadlines the driver reports back through `advance`.

use shakmaty::{Bitboard, Color, Move, Position, Role, Square};
use tactus_clock::{Clock, TimeControl};
use tactus_trace::{Claim, Entry, GameResult, Header, Input, OffBoardReason, Record, Request};

use crate::debounce::{Change, Debouncer};
use crate::event::*;
use crate::game::{Ending, Game, SetupError};
use crate::policy::{Policy, Supervision};
use crate::recognise::{self, Observed};

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error("time_control {text:?}: {why}")]
    TimeControl { text: String, why: String },
}

/// What the board has shown since the ply began.
#[derive(Debug, Clone)]
struct Ply {
    seen: Observed,
    /// The first own and first opponent piece lifted (4.3).
    first_own: Option<Square>,
    first_opp: Option<Square>,
    /// The piece touched in an illegal attempt: 4.3 binds the replacing move (7.5.1).
    carried: Option<Square>,
    /// The move last announced in this ply.
    announced: Option<Move>,
    /// A pending announcement: at `deadline`, announce `mv` (or withdraw).
    settle: Option<(Ms, Option<Move>)>,
    /// After an illegal move, until the board is back to the position.
    restoring: bool,
    /// When the ply began: the press that completed the move before.
    started: Ms,
}

impl Ply {
    fn new() -> Ply {
        Ply {
            seen: Observed::default(),
            first_own: None,
            first_opp: None,
            carried: None,
            announced: None,
            settle: None,
            restoring: false,
            started: 0,
        }
    }
}

/// A standing illegal move under A.5.2 that the opponent may still claim.
#[derive(Debug, Clone)]
struct Claimable {
    before: Game,
    offender: Color,
}

pub struct Session {
    policy: Policy,
    game: Game,
    time_control: Option<TimeControl>,
    clock: Option<Clock>,
    deb: Debouncer,
    ply: Ply,
    illegal: [u8; 2],
    promotion: Role,
    mismatch: Option<Ms>,
    mismatch_reported: bool,
    claimable: Option<Claimable>,
    /// Sensors found stuck (reading against the game while everything else
    /// showed a legal move), and when each square's reading last changed.
    faulty: Bitboard,
    last_change: [Ms; 64],
    /// The latest time the session has seen.
    now: Ms,
    /// Time-warning thresholds already given, White's and Black's.
    warned: [Vec<Ms>; 2],
    finished: bool,
    out: Vec<Event>,
}

fn idx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
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
            deb: Debouncer::new(policy.debounce_ms, occupancy),
            policy,
            game,
            time_control,
            clock,
            ply: Ply::new(),
            illegal: [0; 2],
            promotion: Role::Queen,
            mismatch: None,
            mismatch_reported: false,
            claimable: None,
            faulty: Bitboard::EMPTY,
            last_change: [0; 64],
            now: 0,
            warned: [Vec::new(), Vec::new()],
            finished: false,
            out: Vec::new(),
        };
        let (white_ms, black_ms) = session.times(0);
        session.emit(
            0,
            EventKind::Start {
                fen: session.game.fen(),
                chess960: session.game.mode == shakmaty::CastlingMode::Chess960,
                time_control: header.time_control.clone(),
                white_ms,
                black_ms,
            },
        );
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
    pub fn occupancy(&self) -> Bitboard {
        self.deb.stable()
    }

    /// What the board is taken to show: the sensors' readings, but for a
    /// sensor found stuck, which is taken to show what the game says.
    fn board(&self) -> Bitboard {
        (self.deb.stable() & !self.faulty) | (self.game.occupancy() & self.faulty)
    }

    /// Squares whose sensors are taken to be stuck, until they change.
    pub fn faulty(&self) -> Bitboard {
        self.faulty
    }

    /// The game is over or the recording ended: later inputs change nothing.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Events produced since the last call.
    pub fn drain(&mut self) -> std::vec::Drain<'_, Event> {
        self.out.drain(..)
    }

    /// The earliest time at which `advance` has work to do.
    pub fn next_deadline(&self) -> Option<Ms> {
        if self.finished {
            return None;
        }
        let flag = self.clock.as_ref().and_then(|c| c.flag_deadline()).map(|(_, t)| t);
        let timers =
            [self.deb.next_deadline(), self.ply.settle.map(|(t, _)| t), flag, self.mismatch, self.warning_deadline()];
        timers.into_iter().flatten().min()
    }

    /// Runs every timer due by `t`, in time order.
    pub fn advance(&mut self, t: Ms) {
        while let Some(due) = self.next_deadline().filter(|&d| d <= t) {
            // Which timer is due is decided at the time it was set for.
            let warning = self.warning_deadline();
            self.now = self.now.max(due);
            if let Some(change) = self.deb.pop_due(due) {
                self.on_change(change);
            } else if self.ply.settle.is_some_and(|(d, _)| d == due) {
                self.on_settled(due);
            } else if self.mismatch == Some(due) {
                self.on_mismatch(due);
            } else if warning == Some(due) {
                self.on_warning(due);
            } else {
                self.on_flag(due);
            }
        }
    }

    /// One line of a trace.
    pub fn handle(&mut self, entry: Entry) {
        self.advance(entry.t);
        self.now = self.now.max(entry.t);
        if self.finished {
            return;
        }
        let t = entry.t;
        match entry.record {
            Record::Edge { sq, on } => {
                self.deb.edge(t, sq, on);
                if !on {
                    self.ply.seen.raw_off(sq);
                }
            }
            Record::Clock(side) => {
                self.flush(t);
                self.on_press(t, side);
                self.rearm_warnings(t);
            }
            Record::Input(input) => {
                self.on_input(t, input);
                self.rearm_warnings(t);
            }
            Record::End => {
                self.flush(t);
                // 6.2.1: a move that ends the game is complete at once, press or not.
                if let Some(mv) = self.decide().chosen
                    && self.ends_game(mv)
                {
                    self.complete(t, mv, Vec::new());
                }
                self.finished = true;
            }
        }
    }

    fn emit(&mut self, t: Ms, kind: EventKind) {
        self.out.push(Event { t, kind });
    }

    fn times(&self, t: Ms) -> (Option<i64>, Option<i64>) {
        match &self.clock {
            Some(c) => (Some(c.remaining(Color::White, t)), Some(c.remaining(Color::Black, t))),
            None => (None, None),
        }
    }

    fn flush(&mut self, t: Ms) {
        self.advance(t);
        let changes: Vec<Change> = self.deb.flush(t).collect();
        for change in changes {
            self.on_change(change);
        }
    }

    // ----- the board -------------------------------------------------------

    fn on_change(&mut self, c: Change) {
        if self.finished {
            return;
        }
        self.last_change[c.sq as usize] = c.t;
        if self.faulty.contains(c.sq) {
            // It reads again: believed again.
            self.faulty.discard(c.sq);
            self.emit(c.t, EventKind::SensorOk { sq: c.sq });
        }
        let reference = self.game.occupancy();
        let first_lift = self.ply.seen.change(c, reference);
        if first_lift && !self.ply.restoring {
            self.on_touch(c.t, c.sq);
        }
        let occupancy = self.board();
        if self.ply.restoring && occupancy == reference {
            // The players have put the position back (7.5.1): the replacing
            // move starts from a clean slate, but the touched piece still binds.
            let carried = self.ply.carried;
            self.ply = Ply { carried, ..Ply::new() };
            self.report_board_ok(c.t);
        }
        self.reconsider(c.t);
    }

    fn on_touch(&mut self, t: Ms, sq: Square) {
        let Some(piece) = self.game.piece_at(sq) else {
            return;
        };
        let binding = if piece.color == self.game.turn() {
            self.ply.first_own.is_none().then(|| {
                self.ply.first_own = Some(sq);
                Article::A4_3_1
            })
        } else {
            self.ply.first_opp.is_none().then(|| {
                self.ply.first_opp = Some(sq);
                Article::A4_3_2
            })
        };
        self.emit(t, EventKind::Touch { sq, piece, ply: self.game.ply(), binding });
    }

    /// What move, if any, the board shows now.
    fn decide(&self) -> recognise::Decision {
        recognise::decide(
            self.game.options(),
            self.game.position().us(),
            self.board(),
            self.faulty,
            &self.ply.seen,
            self.promotion,
        )
    }

    fn reconsider(&mut self, t: Ms) {
        let decision = self.decide();
        let occupancy = self.board();
        let reference = self.game.occupancy();
        self.ply.settle = match decision.chosen {
            Some(mv) => Some((t + self.policy.settle_ms, Some(mv))),
            None if occupancy == reference && self.ply.announced.is_some() => Some((t + self.policy.settle_ms, None)),
            None => None,
        };
        // A board that is neither the position nor a move, with pieces where
        // none belong (or still wrong after an illegal move), gets reported.
        let wrong = decision.chosen.is_none()
            && occupancy != reference
            && (self.ply.restoring || !(occupancy & !reference).is_empty());
        if wrong {
            // The ruling after an illegal move already says how to restore;
            // only a board still wrong after a while is reported again.
            self.mismatch = Some(t + self.policy.mismatch_ms);
        } else {
            self.mismatch = None;
            if self.mismatch_reported && (occupancy == reference || decision.chosen.is_some()) {
                self.report_board_ok(t);
            }
        }
    }

    fn on_settled(&mut self, t: Ms) {
        let Some((_, shown)) = self.ply.settle.take() else {
            return;
        };
        if shown == self.ply.announced {
            return;
        }
        match shown {
            Some(mv) => self.announce(t, mv),
            None => {
                if let Some(old) = self.ply.announced.take() {
                    let san = self.game.describe(old).san;
                    self.emit(t, EventKind::Withdrawn { ply: self.game.ply(), san });
                }
            }
        }
    }

    fn announce(&mut self, t: Ms, mv: Move) {
        let info = self.game.describe(mv);
        let previous = self.ply.announced.replace(mv);
        if let Some(old) = previous {
            let first = self.game.describe(old).san;
            self.emit(
                t,
                EventKind::Observation {
                    article: Article::A4_7,
                    side: info.side,
                    ply: info.ply,
                    detail: format!(
                        "the board showed {first}, then {}: a piece released on a square may not move on (4.7) — or it was a slow slide",
                        info.san
                    ),
                    first,
                    then: info.san.clone(),
                },
            );
        }
        self.emit(t, EventKind::Move { mv: info, correction: previous.is_some() });
    }

    fn on_mismatch(&mut self, t: Ms) {
        self.mismatch = None;
        let (missing, extra, fix) = recognise::board_fix(self.game.position().board(), self.board());
        self.mismatch_reported = true;
        self.emit(t, EventKind::BoardMismatch { missing, extra, fix });
    }

    fn report_board_ok(&mut self, t: Ms) {
        if self.mismatch_reported {
            self.mismatch_reported = false;
            self.emit(t, EventKind::BoardOk);
        }
    }

    // ----- the clock ---------------------------------------------------------

    fn on_flag(&mut self, t: Ms) {
        let Some(clock) = &mut self.clock else { return };
        let Some(side) = clock.flag(t) else { return };
        // A mate on the board before the flag fell ends the game first (5.1.1).
        if let Some(mv) = self.ply.announced
            && side == self.game.turn()
            && self.ends_game(mv)
        {
            self.complete(t, mv, Vec::new());
            return;
        }
        let opponent = !side;
        let result = if self.game.can_mate(opponent) { GameResult::win_for(opponent) } else { GameResult::Draw };
        self.end(t, Ending { result, reason: EndReason::FlagFall, article: Article::A6_9 });
    }

    /// When the running side's time reaches the next warning threshold.
    fn warning_deadline(&self) -> Option<Ms> {
        let clock = self.clock.as_ref()?;
        let side = clock.running()?;
        let left = clock.remaining(side, self.now);
        let warned = &self.warned[idx(side)];
        let next = self.policy.time_warnings.iter().filter(|w| (**w as i64) < left && !warned.contains(w)).max()?;
        Some(self.now + (left - *next as i64) as Ms)
    }

    fn on_warning(&mut self, t: Ms) {
        let Some(clock) = &self.clock else { return };
        let Some(side) = clock.running() else { return };
        let left = clock.remaining(side, t);
        let warned = &mut self.warned[idx(side)];
        let crossed: Vec<Ms> =
            self.policy.time_warnings.iter().copied().filter(|w| left <= *w as i64 && !warned.contains(w)).collect();
        if crossed.is_empty() {
            return;
        }
        warned.extend(crossed);
        self.emit(t, EventKind::TimeWarning { side, remaining_ms: left });
    }

    /// Two minutes in standard play, one in rapid and blitz (7.5.5, 9.5.3,
    /// A.3); without a clock, the standard two.
    fn penalty_ms(&self) -> u64 {
        self.time_control.as_ref().map_or(120_000, |tc| tc.penalty_ms())
    }

    /// A warning is armed again once its side's time is well above it: a
    /// new period, an increment that adds up, time added by the arbiter.
    fn rearm_warnings(&mut self, t: Ms) {
        let Some(clock) = &self.clock else { return };
        for side in [Color::White, Color::Black] {
            let left = clock.remaining(side, t);
            self.warned[idx(side)].retain(|w| left <= 2 * *w as i64);
        }
    }

    fn ends_game(&self, mv: Move) -> bool {
        let mut after = self.game.position().clone();
        after.play_unchecked(mv);
        after.is_checkmate() || after.is_stalemate() || after.is_insufficient_material()
    }

    fn on_press(&mut self, t: Ms, side: Color) {
        let paused = self.clock.as_ref().is_some_and(|c| c.running().is_none());
        if side != self.game.turn() {
            // A stopped clock is started the usual way: the player not to
            // move presses, starting the opponent's time (a game resumed after
            // a pause or a power cut). Otherwise that clock is already stopped
            // and pressing it again changes nothing.
            if paused {
                self.on_input(t, Input::Resume);
            }
            return;
        }
        if paused {
            return; // stopped by the arbiter (6.11)
        }
        let decision = self.decide();
        if let Some(mv) = decision.chosen {
            self.complete(t, mv, decision.others);
            return;
        }
        if let Some((mv, sq)) = self.stuck_sensor() {
            self.faulty.add(sq);
            let reading = self.deb.stable().contains(sq);
            self.emit(t, EventKind::SensorFault { sq, reading });
            match mv {
                Some(mv) => self.complete(t, mv, Vec::new()),
                None => self.illegal_act(t, Article::A7_5_3, Reason::NoMove, None, Vec::new()),
            }
            return;
        }
        let occupancy = self.board();
        let reference = self.game.occupancy();
        if occupancy == reference {
            self.illegal_act(t, Article::A7_5_3, Reason::NoMove, None, Vec::new());
            return;
        }
        if let Some((mv, missing)) =
            recognise::with_displaced(self.game.options(), self.game.position().us(), occupancy, &self.ply.seen)
        {
            self.complete(t, mv, Vec::new());
            let fix: Vec<Fix> = missing
                .into_iter()
                .filter_map(|sq| {
                    self.game.piece_at(sq).map(|piece| Fix { piece: Some(piece), from: None, to: Some(sq) })
                })
                .collect();
            let detail = format!(
                "pieces displaced and not put back: {}",
                fix.iter().filter_map(|f| f.to).map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
            );
            self.rule(t, side, self.game.ply() - 1, Article::A7_4_1, Reason::Displaced, detail, None, None, fix);
            self.ply.restoring = true;
            self.reconsider(t);
            return;
        }
        let attempt = recognise::attempt(self.game.position(), occupancy, &self.ply.seen);
        let (reason, attempt) = match attempt {
            Some((reason, attempt)) => (reason, Some(attempt)),
            None => (Reason::Unrecognised, None),
        };
        let fix = match attempt {
            Some(a) => {
                let mut fix = vec![Fix { piece: Some(a.piece), from: Some(a.to), to: Some(a.from) }];
                if let Some(captured) = self.game.piece_at(a.to) {
                    fix.push(Fix { piece: Some(captured), from: None, to: Some(a.to) });
                }
                fix
            }
            None => recognise::board_fix(self.game.position().board(), occupancy).2,
        };
        if self.policy.supervision == Supervision::Unsupervised
            && let Some(a) = attempt
            && self.let_stand(t, a, reason)
        {
            return;
        }
        self.illegal_act(t, Article::A7_5_1, reason, attempt, fix);
    }

    /// A sensor that reads against the game although nobody touched its
    /// square since before this move began, while every other square shows
    /// a legal move (or no move at all): a stuck reed or a lost magnet, not
    /// an illegal move. Found only when exactly one square explains it.
    fn stuck_sensor(&self) -> Option<(Option<Move>, Square)> {
        let readings = self.deb.stable();
        // Its reading changed well before the hands began this move (a
        // piece knocked off while moving is displaced, not a dead sensor).
        let stale = |sq: Square| {
            let began = self.ply.seen.first_of(!Bitboard::from(sq)).map(|other| self.ply.seen.lift_time(other));
            began.is_some_and(|began| self.last_change[sq as usize] + self.policy.stuck_ms <= began)
        };
        let evidence = self.ply.seen.evidence();
        let mut found = self.game.options().iter().filter_map(|o| {
            let differ = (o.after ^ readings) & !self.faulty;
            let sq = differ.single_square()?;
            let untouched = !recognise::moving_squares(o.mv).contains(sq)
                && recognise::captured_square(o.mv) != Some(sq)
                && recognise::destination(o.mv) != sq;
            (untouched
                && stale(sq)
                && o.lifted.is_subset(evidence)
                && o.mv.promotion().is_none_or(|r| r == self.promotion))
            .then_some((Some(o.mv), sq))
        });
        let first = found.next();
        if first.is_some() {
            return if found.next().is_none() { first } else { None };
        }
        // No move at all, and one square off that was already off before
        // this move began (a piece lifted now and held is not a dead sensor).
        let sq = ((self.game.occupancy() ^ readings) & !self.faulty).single_square()?;
        (self.last_change[sq as usize] < self.ply.started).then_some((None, sq))
    }

    /// A.5.2: the illegal move stands, for now; the opponent may claim before
    /// completing their own move. Returns false when the position it makes
    /// cannot exist (a king left in check could be taken): then it is ruled
    /// at once, as an arbiter would.
    fn let_stand(&mut self, t: Ms, a: Attempt, reason: Reason) -> bool {
        if reason == Reason::CastlingNotAllowed {
            // King and rook both moved: no one-piece move can stand for it.
            return false;
        }
        let before = self.game.clone();
        let offender = before.turn();
        let ply = before.ply();
        let Some(info) = self.game.force(a) else {
            return false;
        };
        let clock_ms = self.press_clock(t, offender);
        if let Some(last) = self.game.played.last_mut() {
            last.clock_ms = clock_ms;
        }
        self.claimable = Some(Claimable { before, offender });
        let detail = format!("illegal move {} stands unless the opponent claims before moving (A.5.2)", info.san);
        self.emit(t, EventKind::Move { mv: info.clone(), correction: false });
        self.emit(
            t,
            EventKind::Complete { ply, side: offender, san: info.san, uci: info.uci, clock_ms, opponent_ms: None },
        );
        self.rule(t, offender, ply, Article::A7_5_1, reason, detail, Some(a), None, Vec::new());
        self.new_ply(t);
        true
    }

    fn press_clock(&mut self, t: Ms, side: Color) -> Option<i64> {
        let clock = self.clock.as_mut()?;
        clock.press(t, side).ok().map(|p| p.remaining_ms)
    }

    fn complete(&mut self, t: Ms, mv: Move, others: Vec<Move>) {
        if self.ply.announced != Some(mv) {
            self.announce(t, mv);
        }
        let side = self.game.turn();
        let ply = self.game.ply();
        if !others.is_empty() {
            let chosen = self.game.describe(mv).san;
            let mut candidates = vec![chosen.clone()];
            candidates.extend(others.iter().map(|m| self.game.describe(*m).san));
            self.emit(t, EventKind::Ambiguous { ply, candidates, chosen });
        }
        let rulings = self.touch_rulings(mv);
        let displaced = self.displaced(mv);
        for sq in displaced {
            if let Some(piece) = self.game.piece_at(sq) {
                self.emit(t, EventKind::Displaced { sq, piece, ply });
            }
        }
        let clock_ms = self.press_clock(t, side);
        let opponent_ms = self.clock.as_ref().map(|c| c.remaining(!side, t));
        self.claimable = None;
        let (info, claim) = self.game.play(mv, clock_ms);
        self.emit(t, EventKind::Complete { ply, side, san: info.san, uci: info.uci, clock_ms, opponent_ms });
        for (article, reason, detail, touched) in rulings {
            self.rule(t, side, ply, article, reason, detail, None, touched, Vec::new());
        }
        if let Some(ending) = self.game.ending {
            self.end(t, ending);
            return;
        }
        if let Some(claim) = claim {
            let article = match claim {
                ClaimKind::Threefold => Article::A9_2,
                ClaimKind::Fifty => Article::A9_3,
            };
            self.emit(t, EventKind::Claimable { claim, article, side: !side, ply: ply + 1 });
        }
        self.new_ply(t);
    }

    fn new_ply(&mut self, t: Ms) {
        self.ply = Ply { started: t, ..Ply::new() };
        self.promotion = Role::Queen;
        self.ply.restoring = self.board() != self.game.occupancy();
        self.reconsider(t);
    }

    /// The first own (or opponent) piece lifted this ply; a square whose
    /// sensor was found stuck was never touched.
    fn first_touched(&self, own: bool) -> Option<Square> {
        let pos = self.game.position();
        let side = if own { pos.us() } else { pos.them() };
        self.ply.seen.first_of(side & !self.faulty)
    }

    /// Own pieces lifted and put back that were neither the touched piece
    /// nor part of the move: knocked over and restored, no irregularity.
    fn displaced(&self, mv: Move) -> Vec<Square> {
        let own = self.game.position().us();
        let moving = recognise::moving_squares(mv);
        let touched = self.ply.carried.or(self.first_touched(true));
        (self.ply.seen.lifted() & own & self.board() & !moving).into_iter().filter(|sq| Some(*sq) != touched).collect()
    }

    /// Article 4.3 and 4.4.2 for the move being completed.
    #[allow(clippy::type_complexity)]
    fn touch_rulings(&self, mv: Move) -> Vec<(Article, Reason, String, Option<Placed>)> {
        let mut rulings = Vec::new();
        let options = self.game.options();
        let moving = recognise::moving_squares(mv);
        let placed = |sq: Square| self.game.piece_at(sq).map(|piece| Placed { sq, piece });
        let own = self.ply.carried.or(self.first_touched(true));
        let takes = recognise::captured_square(mv);
        // A piece taken off as part of the move, after the mover's own piece
        // was lifted, is the capture being carried out, not a touch that binds.
        let opp = self
            .first_touched(false)
            .filter(|&p| takes != Some(p) || !moving.into_iter().any(|sq| self.ply.seen.lifted_before(sq, p)));
        let can_move = |sq: Square| options.iter().any(|o| recognise::moving_squares(o.mv).contains(sq));
        let can_take = |sq: Square| options.iter().any(|o| recognise::captured_square(o.mv) == Some(sq));
        let moves_it = |sq: Square| moving.contains(sq);
        let breach_own = |o: Square| {
            (
                Article::A4_3_1,
                Reason::TouchMove,
                format!("the piece on {o} was touched first and could move; another piece was moved (4.3.1)"),
                placed(o),
            )
        };
        let breach_opp = |p: Square| {
            (
                Article::A4_3_2,
                Reason::TouchMove,
                format!("the opponent's piece on {p} was touched and could be captured; it was not (4.3.2)"),
                placed(p),
            )
        };
        match (own, opp) {
            (Some(o), None) if can_move(o) && !moves_it(o) => rulings.push(breach_own(o)),
            (None, Some(p)) if can_take(p) && takes != Some(p) => rulings.push(breach_opp(p)),
            (Some(o), Some(p)) => {
                let with_it = options.iter().any(|x| {
                    recognise::moving_squares(x.mv).contains(o) && recognise::captured_square(x.mv) == Some(p)
                });
                if with_it {
                    if !(moves_it(o) && takes == Some(p)) {
                        rulings.push((
                            Article::A4_3_3,
                            Reason::TouchMove,
                            format!(
                                "the pieces on {o} and {p} were touched: the first had to capture the second (4.3.3)"
                            ),
                            placed(o),
                        ));
                    }
                } else {
                    // 4.3.3: else the first touched that can move or be captured.
                    let own_first = self.ply.carried == Some(o) || self.ply.seen.touched_before(o, p);
                    let own_bound = can_move(o) && (own_first || !can_take(p));
                    if own_bound && !moves_it(o) {
                        rulings.push(breach_own(o));
                    } else if !own_bound && can_take(p) && takes != Some(p) {
                        rulings.push(breach_opp(p));
                    }
                }
            }
            _ => {}
        }
        if let Move::Castle { king, rook } = mv
            && recognise::castling_moves_both(mv)
            && self.ply.seen.rook_first(rook, recognise::rook_destination(mv), king)
        {
            rulings.push((
                Article::A4_4_2,
                Reason::RookFirst,
                "the rook was touched before the king; the opponent may claim (4.4.2)".to_string(),
                placed(rook),
            ));
        }
        rulings
    }

    #[allow(clippy::too_many_arguments)]
    fn rule(
        &mut self,
        t: Ms,
        side: Color,
        ply: u32,
        article: Article,
        reason: Reason,
        detail: String,
        attempt: Option<Attempt>,
        touched: Option<Placed>,
        fix: Vec<Fix>,
    ) {
        if let Some(last) = self.game.played.last_mut()
            && last.info.ply == ply
        {
            last.comments.push(format!("{} {}", article.as_str(), detail));
        }
        self.emit(
            t,
            EventKind::Irregularity(Irregularity { article, side, ply, reason, detail, attempt, touched, fix }),
        );
    }

    /// 7.5.1 / 7.5.3 under an arbiter: the position before stands, the
    /// offender moves again on their own time (the clock does not switch);
    /// the opponent gets two minutes (one in rapid and blitz, A.3); a second
    /// such act loses, unless the opponent cannot mate (7.5.5).
    fn illegal_act(&mut self, t: Ms, article: Article, reason: Reason, attempt: Option<Attempt>, fix: Vec<Fix>) {
        let side = self.game.turn();
        let ply = self.game.ply();
        let detail = match (reason, attempt) {
            (Reason::NoMove, _) => "the clock was pressed without a move (7.5.3)".to_string(),
            (_, Some(a)) => format!(
                "illegal move {}{}-{}: {} (7.5.1)",
                a.piece.role.upper_char(),
                a.from,
                a.to,
                match reason {
                    Reason::LeavesKingInCheck => "leaves king in check",
                    Reason::CastlingNotAllowed => "castling not allowed",
                    _ => "not a move of that piece",
                }
            ),
            (_, None) => "the board matches no legal move (7.5.1)".to_string(),
        };
        let touched = self.ply.carried.or(self.first_touched(true));
        let touched_piece = touched.and_then(|sq| self.game.piece_at(sq).map(|piece| Placed { sq, piece }));
        self.rule(t, side, ply, article, reason, detail, attempt, touched_piece, fix);
        self.illegal[idx(side)] += 1;
        let opponent = !side;
        if self.illegal[idx(side)] >= 2 {
            let result = if self.game.can_mate(opponent) { GameResult::win_for(opponent) } else { GameResult::Draw };
            self.end(t, Ending { result, reason: EndReason::IllegalMoves, article: Article::A7_5_5 });
            return;
        }
        let ms = self.penalty_ms();
        if let Some(clock) = &mut self.clock {
            clock.add_time(t, opponent, ms);
        }
        self.emit(t, EventKind::Penalty { article: Article::A7_5_5, side: opponent, ms: ms as i64 });
        let occupancy = self.board();
        self.ply = Ply { carried: touched, restoring: occupancy != self.game.occupancy(), ..Ply::new() };
        self.reconsider(t);
    }

    fn end(&mut self, t: Ms, ending: Ending) {
        self.game.end(ending);
        if let Some(clock) = &mut self.clock {
            clock.pause(t);
        }
        self.finished = true;
        self.ply.settle = None;
        self.mismatch = None;
        self.emit(
            t,
            EventKind::GameOver {
                result: ending.result.as_str().to_string(),
                reason: ending.reason,
                article: ending.article,
            },
        );
    }

    // ----- inputs ------------------------------------------------------------

    fn on_input(&mut self, t: Ms, input: Input) {
        match input {
            Input::Promote(role) => {
                self.promotion = role;
                self.reconsider(t);
            }
            Input::Claim { side, claim } => self.on_claim(t, side, claim),
            Input::Pause => {
                if let Some(c) = &mut self.clock {
                    c.pause(t);
                }
                self.emit(t, EventKind::Paused);
            }
            Input::Resume => {
                if let Some(c) = &mut self.clock {
                    c.resume(t);
                }
                self.emit(t, EventKind::Resumed);
            }
            Input::SetClock { white_ms, black_ms } => {
                if let Some(c) = &mut self.clock {
                    c.set_times(t, white_ms, black_ms);
                }
                self.emit(t, EventKind::ClockSet { white_ms: white_ms as i64, black_ms: black_ms as i64 });
            }
            Input::SetMoves { white_moves, black_moves } => {
                if let Some(c) = &mut self.clock {
                    c.set_moves(white_moves, black_moves);
                }
                let (w, b) = self.times(t);
                self.emit(t, EventKind::ClockSet { white_ms: w.unwrap_or(0), black_ms: b.unwrap_or(0) });
            }
            Input::AddTime { side, ms } => {
                if let Some(c) = &mut self.clock {
                    c.add_time(t, side, ms);
                }
                self.emit(t, EventKind::Penalty { article: Article::A12, side, ms: ms as i64 });
            }
            Input::Increment { ms } => {
                if let Some(c) = &mut self.clock {
                    c.switch_to_increment(t, ms);
                }
                let (w, b) = self.times(t);
                self.emit(t, EventKind::ClockSet { white_ms: w.unwrap_or(0), black_ms: b.unwrap_or(0) });
            }
            Input::Result { result, reason } => {
                let (reason, article) = match reason {
                    OffBoardReason::Resignation => (EndReason::Resignation, Article::A5_1_2),
                    OffBoardReason::Agreement => (EndReason::Agreement, Article::A5_2_3),
                    OffBoardReason::Arbiter => (EndReason::Arbiter, Article::A12),
                };
                self.end(t, Ending { result, reason, article });
            }
            Input::Request(what) => self.on_request(t, what),
        }
    }

    fn on_request(&mut self, t: Ms, what: Request) {
        let (w, b) = self.times(t);
        let (white_moves, black_moves, running) = match &self.clock {
            Some(c) => (c.moves(Color::White), c.moves(Color::Black), c.running()),
            None => {
                let n = self.game.played.len() as u32;
                let white_first = self.game.start().turn() == Color::White;
                let (a, b) = (n.div_ceil(2), n / 2);
                if white_first { (a, b, None) } else { (b, a, None) }
            }
        };
        let clocks = crate::query::Clocks {
            white_ms: w.unwrap_or(0),
            black_ms: b.unwrap_or(0),
            white_moves,
            black_moves,
            running,
            control: self.time_control.as_ref(),
        };
        let last = self.game.played.last().map(|p| &p.info);
        if let Some(kind) = crate::query::answer(self.game.position(), last, &clocks, what) {
            self.emit(t, kind);
        }
    }

    fn on_claim(&mut self, t: Ms, side: Color, claim: Claim) {
        match claim {
            Claim::Illegal => {
                // A.5.2: only before the claimant completes their own move.
                let Some(c) = self.claimable.take() else {
                    return;
                };
                if side == c.offender {
                    self.claimable = Some(c);
                    return;
                }
                self.game = c.before;
                let offender = c.offender;
                self.illegal[idx(offender)] += 1;
                if self.illegal[idx(offender)] >= 2 {
                    let result = if self.game.can_mate(side) { GameResult::win_for(side) } else { GameResult::Draw };
                    self.end(t, Ending { result, reason: EndReason::IllegalMoves, article: Article::A7_5_5 });
                    return;
                }
                let ms = self.penalty_ms();
                if let Some(clock) = &mut self.clock {
                    clock.add_time(t, side, ms);
                    // The offender moves again, on their own time (7.1).
                    clock.hand_over(t, offender);
                }
                self.emit(t, EventKind::Penalty { article: Article::A7_5_5, side, ms: ms as i64 });
                self.new_ply(t);
            }
            Claim::Threefold | Claim::Fifty => {
                let valid = side == self.game.turn()
                    && match claim {
                        Claim::Threefold => self.game.repetitions() >= 3,
                        _ => self.game.position().halfmoves() >= 100,
                    };
                if valid {
                    let (reason, article) = match claim {
                        Claim::Threefold => (EndReason::ThreefoldRepetition, Article::A9_2),
                        _ => (EndReason::FiftyMoves, Article::A9_3),
                    };
                    self.end(t, Ending { result: GameResult::Draw, reason, article });
                } else {
                    // 9.5.3: an incorrect claim costs what an illegal move does (A.3).
                    let ms = self.penalty_ms();
                    if let Some(clock) = &mut self.clock {
                        clock.add_time(t, !side, ms);
                    }
                    self.emit(t, EventKind::Penalty { article: Article::A9_5_3, side: !side, ms: ms as i64 });
                }
            }
        }
    }
}
