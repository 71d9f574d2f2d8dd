//! Illegal moves (Article 7.5): a press that completes no legal move, a
//! press without a move, pieces displaced and not put back (7.4.1), and the
//! unsupervised policy under which an illegal move stands unless claimed
//! (A.5.2). Every ruling is an [`Irregularity`]; every penalty goes through
//! [`Session::penalise`].

use shakmaty::{Color, Position};

use super::Session;
use super::watch::Completion;
use crate::event::{Article, Attempt, EndReason, EventKind, Fix, Irregularity, Ms, Placed, Reason};
use crate::game::Ending;
use crate::pgn::Note;
use crate::policy::Supervision;
use crate::recognise;

impl Session {
    /// The press completed no legal move the board shows, and no piece is in
    /// the hand any more: a stuck sensor, a legal move with pieces knocked
    /// off (7.4.1), the clock pressed without a move (7.5.3), or an illegal
    /// move (7.5.1; under A.5.2 it may stand).
    pub(super) fn rule_press(&mut self, t: Ms) {
        let side = self.game.turn();
        if let Some((mv, sq)) = self.stuck_sensor() {
            self.sensors.faulty.add(sq);
            let reading = self.sensors.stable().contains(sq);
            self.emit(t, EventKind::SensorFault { sq, reading });
            match mv {
                Some(mv) => {
                    let seen = self.watch.seen.clone();
                    let board = self.board();
                    self.complete(t, Completion { mv, others: Vec::new(), seen, board, reply: None });
                }
                None => self.illegal_act(t, Article::A7_5_3, Reason::NoMove, None, Vec::new()),
            }
            return;
        }
        let board = self.board();
        let reference = self.game.occupancy();
        if board == reference {
            self.illegal_act(t, Article::A7_5_3, Reason::NoMove, None, Vec::new());
            return;
        }
        let us = self.game.position().us();
        if let Some((mv, missing)) = recognise::with_displaced(self.game.options(), us, board, &self.watch.seen) {
            let seen = self.watch.seen.clone();
            self.complete(t, Completion { mv, others: Vec::new(), seen, board, reply: None });
            let fix: Vec<Fix> = missing
                .into_iter()
                .filter_map(|sq| {
                    self.game.piece_at(sq).map(|piece| Fix { piece: Some(piece), from: None, to: Some(sq) })
                })
                .collect();
            let ply = self.game.ply() - 1;
            let ruling = Irregularity {
                article: Article::A7_4_1,
                side,
                ply,
                reason: Reason::Displaced,
                stands: false,
                attempt: None,
                touched: None,
                fix,
            };
            self.rule(t, ruling);
            if !self.finished() {
                self.phase = super::Phase::Restoring;
                self.check_board(t);
            }
            return;
        }
        let attempt = recognise::attempt(self.game.position(), board, &self.watch.seen);
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
            None => recognise::board_fix(self.game.position().board(), board).2,
        };
        if self.policy.supervision == Supervision::Unsupervised
            && let Some(a) = attempt
            && self.let_stand(t, a, reason)
        {
            return;
        }
        self.illegal_act(t, Article::A7_5_1, reason, attempt, fix);
    }

    /// Records a ruling: the event, and a comment in the game record at its ply.
    pub(super) fn rule(&mut self, t: Ms, ruling: Irregularity) {
        self.game.note(ruling.ply, Note::Ruling(ruling.clone()));
        self.emit(t, EventKind::Irregularity(ruling));
    }

    /// 7.5.1 / 7.5.3 under an arbiter: the position before stands, the
    /// offender moves again on their own time (the clock does not switch);
    /// the opponent gets two minutes (one in rapid and blitz, A.3); a second
    /// such act loses, unless the opponent cannot mate (7.5.5).
    fn illegal_act(&mut self, t: Ms, article: Article, reason: Reason, attempt: Option<Attempt>, fix: Vec<Fix>) {
        self.undo_press();
        let side = self.game.turn();
        let ply = self.game.ply();
        let seen = self.watch.seen.clone();
        let touched = self.watch.carried.or(self.watch.first_touched(&seen, true, self.sensors.faulty));
        let touched_piece = touched.and_then(|sq| self.game.piece_at(sq).map(|piece| Placed { sq, piece }));
        let stands = false;
        self.rule(t, Irregularity { article, side, ply, reason, stands, attempt, touched: touched_piece, fix });
        if self.count_illegal(t, side) {
            return;
        }
        let board = self.board();
        let promotion = self.watch.promotion;
        self.watch = super::Watch::new(&self.game, t, board);
        self.watch.carried = touched;
        self.watch.promotion = promotion;
        self.phase = if board != self.game.occupancy() { super::Phase::Restoring } else { super::Phase::Open };
        self.reread(t);
    }

    /// Counts an illegal act against `offender` (7.5.5): the first gives the
    /// opponent the penalty time; the second loses, or draws when the
    /// opponent cannot mate. Returns whether the game ended.
    pub(super) fn count_illegal(&mut self, t: Ms, offender: Color) -> bool {
        self.illegal[offender] += 1;
        let opponent = !offender;
        if self.illegal[offender] >= 2 {
            self.judge(t, offender, EndReason::IllegalMoves, Article::A7_5_5);
            return true;
        }
        self.penalise(t, Article::A7_5_5, opponent);
        false
    }

    /// Adds the penalty time of 7.5.5 and 9.5.3 to `beneficiary`: two
    /// minutes in standard play, one in rapid and blitz (A.3); without a
    /// clock, the standard two.
    pub(super) fn penalise(&mut self, t: Ms, article: Article, beneficiary: Color) {
        let ms = self.time_control.as_ref().map_or(120_000, |tc| tc.penalty_ms());
        if let Some(clock) = &mut self.clock {
            clock.add_time(t, beneficiary, ms);
        }
        self.added_ms[beneficiary] = self.added_ms[beneficiary].saturating_add(ms);
        self.game.note(self.game.ply(), Note::Penalty { article, side: beneficiary, ms: ms as i64 });
        self.emit(t, EventKind::Penalty { article, side: beneficiary, ms: ms as i64 });
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
        let offender = self.game.turn();
        let ply = self.game.ply();
        let Some((info, clock_ms, _)) = self.stand(t, a) else {
            return false;
        };
        self.emit(t, EventKind::Move { mv: info.clone(), correction: false });
        self.emit(
            t,
            EventKind::Complete { ply, side: offender, san: info.san, uci: info.uci, clock_ms, opponent_ms: None },
        );
        self.offer_after_move(t, offender);
        let ruling = Irregularity {
            article: Article::A7_5_1,
            side: offender,
            ply,
            reason,
            stands: true,
            attempt: Some(a),
            touched: None,
            fix: Vec::new(),
        };
        self.rule(t, ruling);
        self.new_ply(t);
        true
    }

    /// A.5.2: the illegal move `a` stands, pressed for now: the game goes on
    /// from the position it made, and the opponent may claim it before
    /// completing their own move. The move, and the clock readings of the
    /// press (the mover's, the opponent's); `None` when that position cannot
    /// exist.
    pub(super) fn stand(&mut self, t: Ms, a: Attempt) -> Option<(crate::event::MoveInfo, Option<i64>, Option<i64>)> {
        let before = self.game.clone();
        let offender = before.turn();
        let info = self.game.force(a)?;
        let (clock_ms, opponent_ms) = self.take_press(t, offender);
        if let Some(last) = self.game.played.last_mut() {
            last.clock_ms = clock_ms;
        }
        self.claimable = Some(super::Claimable { before, offender });
        Some((info, clock_ms, opponent_ms))
    }

    /// The game ends: the clocks stop, nothing more is announced.
    pub(super) fn end(&mut self, t: Ms, ending: Ending) {
        self.end_with(t, ending, false);
    }

    /// The game ends; `undetermined`: the mate search did not settle the
    /// result (6.9, 7.5.5), which the arbiter is told.
    pub(super) fn end_with(&mut self, t: Ms, ending: Ending, undetermined: bool) {
        self.game.end(ending);
        if let Some(clock) = &mut self.clock {
            clock.pause(t);
        }
        self.stop();
        self.emit(
            t,
            EventKind::GameOver { result: ending.result, reason: ending.reason, article: ending.article, undetermined },
        );
    }
}
