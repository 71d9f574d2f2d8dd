//! What the board shows: the sensors debounced, a stuck sensor masked, the
//! move announced once the board has held still on it (4.7; aloud, D.2), a
//! correction when a piece set down goes on, and a report with the fix when
//! the board has been wrong for a while.

use shakmaty::{Bitboard, Move, Position, Square};

use super::opponent::Telling;
use super::watch::Shown;
use super::{Phase, Session};
use crate::debounce::{Change, Debouncer};
use crate::event::{Article, EventKind, Ms};
use crate::game::describe;
use crate::recognise;

/// The square sensors, debounced, and what is known about their health.
#[derive(Debug, Clone)]
pub(super) struct Sensors {
    deb: Debouncer,
    /// Sensors found stuck (reading against the game while everything else
    /// showed a legal move); believed again when they change.
    pub faulty: Bitboard,
    /// When each square's reading last changed.
    pub last_change: [Ms; 64],
}

impl Sensors {
    pub fn new(debounce_ms: Ms, occupancy: Bitboard) -> Sensors {
        Sensors { deb: Debouncer::new(debounce_ms, occupancy), faulty: Bitboard::EMPTY, last_change: [0; 64] }
    }

    pub fn stable(&self) -> Bitboard {
        self.deb.stable()
    }

    pub fn next_deadline(&self) -> Option<Ms> {
        self.deb.next_deadline()
    }

    pub fn pop_due(&mut self, t: Ms) -> Option<Change> {
        self.deb.pop_due(t)
    }

    /// No raw reading waits to be accepted.
    pub fn idle(&self) -> bool {
        self.deb.next_deadline().is_none()
    }
}

/// Whether the board is to be reported as wrong.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct BoardCheck {
    /// When to report it, if it stays as it is.
    pub due: Option<Ms>,
    /// A report is out that the board has not yet answered with `board_ok`.
    pub reported: bool,
}

impl Session {
    /// What the board is taken to show: the sensors' readings, but for a
    /// sensor found stuck, which is taken to show what the game says.
    pub(super) fn board(&self) -> Bitboard {
        let faulty = self.sensors.faulty;
        (self.sensors.stable() & !faulty) | (self.game.occupancy() & faulty)
    }

    pub(super) fn on_edge(&mut self, t: Ms, sq: Square, on: bool) {
        self.sensors.deb.edge(t, sq, on);
        // A lift shorter than the debounce window is still evidence.
        self.watch.raw(t, sq, on);
    }

    /// Accepts every pending reading now: nothing more will come.
    pub(super) fn flush(&mut self, t: Ms) {
        self.advance(t);
        let changes: Vec<Change> = self.sensors.deb.flush(t).collect();
        for change in changes {
            self.on_change(change);
        }
    }

    pub(super) fn on_change(&mut self, c: Change) {
        if self.finished() {
            return;
        }
        self.sensors.last_change[c.sq as usize] = c.t;
        if self.sensors.faulty.contains(c.sq) {
            // It reads again: believed again.
            self.sensors.faulty.discard(c.sq);
            self.emit(c.t, EventKind::SensorOk { sq: c.sq });
        }
        let board = self.board();
        let touch = self.watch.change(c, board, self.sensors.faulty);
        match self.phase {
            Phase::Restoring if board == self.game.occupancy() => {
                // The position is back (7.5.1): the replacing move starts
                // from a clean slate, but the touched piece still binds.
                self.renew_watch(c.t);
                self.report_board_ok(c.t);
            }
            Phase::SettingBack { .. } if self.is_set_back() => self.set_back(c.t),
            Phase::Restoring | Phase::SettingBack { .. } => {}
            // The player's hands carry out the engine's move: followed by
            // the guide, bound by no touch rule.
            Phase::Carrying(_) => self.follow_carrying(c.sq, c.on),
            _ => {
                if let Some(touch) = touch {
                    let ply = self.ply_ahead(touch.ahead);
                    self.emit(c.t, EventKind::Touch { sq: touch.sq, piece: touch.piece, ply, binding: touch.binding });
                }
            }
        }
        self.settle_at = Some(c.t + self.policy.settle_ms);
        self.check_board(c.t);
        // The opponent taking hold of a piece settles a waiting press at once.
        self.resolve_press(c.t, false);
    }

    /// A fresh watch of the ply being made, keeping the piece that binds it
    /// and the promotion selector.
    pub(super) fn renew_watch(&mut self, t: Ms) {
        let (carried, promotion) = (self.watch.carried, self.watch.promotion);
        self.watch = super::Watch::new(&self.game, t, self.board());
        self.watch.carried = carried;
        self.watch.promotion = promotion;
        self.phase = Phase::Open;
        self.reread(t);
    }

    /// Reads the board again (the selector changed, or a new ply began).
    pub(super) fn reread(&mut self, t: Ms) {
        let board = self.board();
        self.watch.refresh(t, board, self.sensors.faulty);
        if self.shown_differs() {
            self.settle_at = Some(t + self.policy.settle_ms);
        }
        self.check_board(t);
    }

    /// Does the board show something other than what was announced?
    fn shown_differs(&self) -> bool {
        match self.watch.shown() {
            Shown::Hands => false,
            Shown::Position => self.watch.announced.is_some(),
            Shown::Moves(moves) => {
                moves.iter().enumerate().any(|(i, mv)| self.watch.level(i).is_none_or(|w| w.announced != Some(*mv)))
            }
        }
    }

    /// The board has held still: what it shows is announced; a move that
    /// replaces an announced one is a correction (D.2.8), a move taken back
    /// is withdrawn.
    pub(super) fn on_settled(&mut self, t: Ms) {
        self.settle_at = None;
        if matches!(self.phase, Phase::SettingBack { .. }) {
            // The positions taken back may look like moves: none is one.
            return;
        }
        let shown = self.watch.shown();
        if shown != Shown::Hands {
            self.watch.held_still();
            // The board left the position a take-back was asked for.
            self.asked_back = None;
        }
        if self.carrying() {
            // The engine's move (or another legal one) shown is carried on;
            // only a board that shows no move can be an earlier position.
            if !(shown == Shown::Hands && self.take_back_shown(t)) {
                self.carry_on(t, Telling::Settled);
            }
            return;
        }
        match shown {
            Shown::Hands => {
                if self.take_back_shown(t) {
                    return;
                }
            }
            Shown::Position => self.withdraw_from(t, 0),
            Shown::Moves(moves) => {
                for (ahead, mv) in moves.iter().enumerate() {
                    if self.watch.level(ahead).is_some_and(|w| w.announced != Some(*mv)) {
                        self.announce(t, ahead, *mv);
                    }
                }
                self.withdraw_from(t, moves.len());
            }
        }
        self.resolve_press(t, false);
        self.complete_made(t);
    }

    /// Withdraws what was announced for the plies from `ahead` on.
    fn withdraw_from(&mut self, t: Ms, ahead: usize) {
        let mut i = ahead;
        while let Some(w) = self.watch.level(i) {
            if let Some(old) = w.announced {
                let ply = self.ply_ahead(i);
                let san = describe(w.position(), self.game.mode, ply, old).san;
                if let Some(w) = self.watch.level_mut(i) {
                    w.announced = None;
                }
                self.emit(t, EventKind::Withdrawn { ply, san });
            }
            i += 1;
        }
    }

    fn announce(&mut self, t: Ms, ahead: usize, mv: Move) {
        let Some(w) = self.watch.level_mut(ahead) else { return };
        let previous = w.announced.replace(mv);
        let pos = w.position().clone();
        let ply = self.ply_ahead(ahead);
        // The ply being made is described by the game, which keeps the
        // description for the move's completion.
        let info = if ahead == 0 { self.game.describe(mv) } else { describe(&pos, self.game.mode, ply, mv) };
        if let Some(old) = previous {
            let first = describe(&pos, self.game.mode, ply, old).san;
            self.emit(
                t,
                EventKind::Observation {
                    article: Article::A4_7,
                    side: info.side,
                    ply: info.ply,
                    first,
                    then: info.san.clone(),
                },
            );
        }
        self.emit(t, EventKind::Move { mv: info, correction: previous.is_some() });
    }

    /// A board that is neither the position nor a move, with pieces where
    /// none belong (or still wrong after an illegal move), is reported after
    /// a while; a board that agrees again is said to.
    pub(super) fn check_board(&mut self, t: Ms) {
        if self.carrying() {
            // Measured against the engine's move instead (`opponent`).
            self.check.due = None;
            return;
        }
        let board = self.board();
        let shown = self.watch.shown();
        let reference = self.watch.deepest().position().board().occupied();
        let agrees = shown != Shown::Hands;
        let restoring = matches!(self.phase, Phase::Restoring | Phase::SettingBack { .. });
        let wrong = !agrees && board != reference && (restoring || !(board & !reference).is_empty());
        if wrong {
            self.check.due = Some(t + self.policy.mismatch_ms);
        } else {
            self.check.due = None;
            if agrees {
                self.report_board_ok(t);
            }
        }
    }

    pub(super) fn on_mismatch(&mut self, t: Ms) {
        self.check.due = None;
        if self.carrying() {
            // A slip that waited to be told (`Telling::Settled`).
            return self.carry_on(t, Telling::Waited);
        }
        if matches!(self.phase, Phase::SettingBack { .. }) {
            return self.tell_setting_back(t);
        }
        let deepest = self.watch.deepest().position().board().clone();
        let (missing, extra, fix) = recognise::board_fix(&deepest, self.board());
        self.check.reported = true;
        self.emit(t, EventKind::BoardMismatch { missing, extra, fix });
    }

    pub(super) fn report_board_ok(&mut self, t: Ms) {
        if self.check.reported {
            self.check.reported = false;
            self.emit(t, EventKind::BoardOk);
        }
    }

    /// A sensor that reads against the game although nobody touched its
    /// square since before this move began, while every other square shows
    /// a legal move (or no move at all): a stuck reed or a lost magnet, not
    /// an illegal move. Found only when exactly one square explains it.
    pub(super) fn stuck_sensor(&self) -> Option<(Option<Move>, Square)> {
        let readings = self.sensors.stable();
        let faulty = self.sensors.faulty;
        let seen = &self.watch.seen;
        // Its reading changed well before the hands began this move (a
        // piece knocked off while moving is displaced, not a dead sensor).
        let stale = |sq: Square| {
            let began = seen.first_of(!Bitboard::from(sq)).map(|other| seen.lift_time(other));
            began.is_some_and(|began| self.sensors.last_change[sq as usize] + self.policy.stuck_ms <= began)
        };
        let evidence = seen.evidence();
        let mut found = self.game.options().iter().filter_map(|o| {
            let differ = (o.after ^ readings) & !faulty;
            let sq = differ.single_square()?;
            let untouched = !recognise::moving_squares(o.mv).contains(sq)
                && recognise::captured_square(o.mv) != Some(sq)
                && recognise::destination(o.mv) != sq;
            (untouched
                && stale(sq)
                && o.lifted.is_subset(evidence)
                && o.mv.promotion().is_none_or(|r| r == self.watch.promotion))
            .then_some((Some(o.mv), sq))
        });
        let first = found.next();
        if first.is_some() {
            return if found.next().is_none() { first } else { None };
        }
        // No move at all, and one square off that was already off before
        // this move began (a piece lifted now and held is not a dead sensor).
        let sq = ((self.game.occupancy() ^ readings) & !faulty).single_square()?;
        (self.sensors.last_change[sq as usize] < self.watch.started).then_some((None, sq))
    }
}
