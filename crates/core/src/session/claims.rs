//! Claims and results: a claim of an illegal move that stood (A.5.2), draw
//! claims (9.2, 9.3) and an incorrect one (9.5.3), draw offers (9.1.2),
//! results off the board (5.1.2, 5.2.3, 12), and a player's requests for the times, the position
//! and the last move (D.2.6).

use shakmaty::{Color, Position};
use tactus_trace::{Claim, GameResult, OffBoardReason, Request};

use super::Session;
use crate::event::{Article, EndReason, EventKind, Ms};
use crate::game::{Ending, Game};

/// A standing illegal move under A.5.2 that the opponent may still claim.
#[derive(Debug, Clone)]
pub(super) struct Claimable {
    pub before: Game,
    pub offender: Color,
}

impl Session {
    pub(super) fn on_claim(&mut self, t: Ms, side: Color, claim: Claim) {
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
                if self.count_illegal(t, offender) {
                    return;
                }
                // The offender moves again, on their own time (7.1).
                if let Some(clock) = &mut self.clock {
                    clock.hand_over(t, offender);
                }
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
                    self.penalise(t, Article::A9_5_3, !side);
                }
            }
        }
    }

    /// 9.1.2: `side` offers a draw — or accepts the opponent's offer that
    /// stands, which ends the game by agreement (5.2.3).
    pub(super) fn on_draw_offer(&mut self, t: Ms, side: Color) {
        if self.draw_offer == Some(!side) {
            self.draw_offer = None;
            self.on_result(t, GameResult::Draw, OffBoardReason::Agreement);
            return;
        }
        self.draw_offer = Some(side);
        self.emit(t, EventKind::DrawOffer { side });
    }

    /// 9.1.2.3: a move of the side an offer was made to declines it; the
    /// offerer's own move (the offer comes with the move) does not.
    pub(super) fn offer_after_move(&mut self, t: Ms, mover: Color) {
        if self.draw_offer == Some(!mover) {
            self.draw_offer = None;
            self.emit(t, EventKind::DrawDeclined { side: mover });
        }
    }

    pub(super) fn on_result(&mut self, t: Ms, result: GameResult, reason: OffBoardReason) {
        let (reason, article) = match reason {
            OffBoardReason::Resignation => (EndReason::Resignation, Article::A5_1_2),
            OffBoardReason::Agreement => (EndReason::Agreement, Article::A5_2_3),
            OffBoardReason::Arbiter => (EndReason::Arbiter, Article::A12),
        };
        self.end(t, Ending { result, reason, article });
    }

    /// A player's question (D.2.6): the times, the position, the last move,
    /// pieces, a rank, a file, a square, the moves to the time control.
    pub(super) fn on_request(&mut self, t: Ms, what: Request) {
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
}
