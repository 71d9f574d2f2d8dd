//! Touch-move (Article 4.3), castling with the rook first (4.4.2), and own
//! pieces knocked over and put back (7.4.1 when they are not): judged on
//! what the board showed while the move was being made.

use shakmaty::{Bitboard, Move, Position, Square};

use super::Session;
use crate::event::{Article, Irregularity, Placed, Reason};
use crate::recognise::{self, Observed};

impl Session {
    /// The first own (or opponent) piece lifted in the ply; a square whose
    /// sensor was found stuck was never touched. The piece touched in an
    /// illegal attempt binds the replacing move before any other (7.5.1).
    fn first_touched(&self, seen: &Observed, own: bool) -> Option<Square> {
        let first = self.watch.first_touched(seen, own, self.sensors.faulty);
        if own { self.watch.carried.or(first) } else { first }
    }

    /// Own pieces lifted and put back that were neither the touched piece
    /// nor part of the move: knocked over and restored, no irregularity.
    pub(super) fn displaced(&self, mv: Move, seen: &Observed, board: Bitboard) -> Vec<Placed> {
        let own = self.game.position().us();
        let moving = recognise::moving_squares(mv);
        let touched = self.first_touched(seen, true);
        (seen.lifted() & own & board & !moving)
            .into_iter()
            .filter(|sq| Some(*sq) != touched)
            .filter_map(|sq| self.game.piece_at(sq).map(|piece| Placed { sq, piece }))
            .collect()
    }

    /// Articles 4.3 and 4.4.2 for the move being completed.
    pub(super) fn touch_rulings(&self, mv: Move, seen: &Observed) -> Vec<Irregularity> {
        let mut rulings = Vec::new();
        let options = self.game.options();
        let moving = recognise::moving_squares(mv);
        let placed = |sq: Square| self.game.piece_at(sq).map(|piece| Placed { sq, piece });
        let own = self.first_touched(seen, true);
        let takes = recognise::captured_square(mv);
        // A piece taken off as part of the move, after the mover's own piece
        // was lifted, is the capture being carried out, not a touch that binds.
        let opp = self
            .first_touched(seen, false)
            .filter(|&p| takes != Some(p) || !moving.into_iter().any(|sq| seen.lifted_before(sq, p)));
        // Castling is a move of the king (3.8.2): a rook touched first cannot
        // castle (4.4.2), so castling is no way for a touched rook to move.
        let can_move = |sq: Square| {
            options.iter().any(|o| match o.mv {
                Move::Castle { king, .. } => king == sq,
                mv => recognise::moving_squares(mv).contains(sq),
            })
        };
        let can_take = |sq: Square| options.iter().any(|o| recognise::captured_square(o.mv) == Some(sq));
        let moves_it = |sq: Square| moving.contains(sq);
        let side = self.game.turn();
        let ply = self.game.ply();
        let ruling = |article, reason, touched| Irregularity {
            article,
            side,
            ply,
            reason,
            stands: false,
            attempt: None,
            touched,
            fix: Vec::new(),
        };
        let breach_own = |o: Square| ruling(Article::A4_3_1, Reason::TouchMove, placed(o));
        let breach_opp = |p: Square| ruling(Article::A4_3_2, Reason::TouchMove, placed(p));
        match (own, opp) {
            (Some(o), None) if can_move(o) && !moves_it(o) => rulings.push(breach_own(o)),
            (None, Some(p)) if can_take(p) && takes != Some(p) => rulings.push(breach_opp(p)),
            (Some(o), Some(p)) => {
                let with_it = options.iter().any(|x| {
                    recognise::moving_squares(x.mv).contains(o) && recognise::captured_square(x.mv) == Some(p)
                });
                if with_it {
                    if !(moves_it(o) && takes == Some(p)) {
                        rulings.push(ruling(Article::A4_3_3, Reason::TouchMove, placed(o)));
                    }
                } else {
                    // 4.3.3: else the first touched that can move or be captured.
                    let own_first = self.watch.carried == Some(o) || seen.touched_before(o, p);
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
            && seen.rook_first(rook, recognise::rook_destination(mv), king)
        {
            rulings.push(ruling(Article::A4_4_2, Reason::RookFirst, placed(rook)));
        }
        rulings
    }
}
