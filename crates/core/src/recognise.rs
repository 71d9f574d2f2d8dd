//! From occupancy to moves. Sensors say only *occupied* or *empty*, so a move
//! is recognised by the board it leaves behind plus the lifts that board
//! cannot show: a captured piece's square reads occupied before and after,
//! and in Chess960 a king and rook may trade squares. What occupancy cannot
//! tell at all — which piece a pawn promoted to — comes from the promotion
//! selector.

use shakmaty::attacks;
use shakmaty::{Bitboard, Board, CastlingSide, Chess, Color, Move, Piece, Position, Role, Square};

use crate::Ms;
use crate::debounce::Change;
use crate::event::{Attempt, Fix, Placed, Reason};
use crate::game::LegalMove;

/// What the sensors showed during one ply, beyond the current occupancy.
#[derive(Debug, Clone)]
pub struct Observed {
    /// Squares of the position seen empty (debounced).
    lifted: Bitboard,
    /// Squares with any raw off-edge: weaker evidence, for lifts shorter
    /// than the debounce window.
    raw_off: Bitboard,
    /// When each square's first lift began, and in what order it was seen.
    lift_at: [(Ms, u16); 64],
    next_seq: u16,
    /// When each square was last set down on.
    placed_at: [Ms; 64],
    /// When each square first read empty (any edge), and last read occupied
    /// (any edge): a square must be set down on after it was emptied.
    first_off: [Ms; 64],
    last_on: [Ms; 64],
}

impl Default for Observed {
    fn default() -> Self {
        Observed {
            lifted: Bitboard::EMPTY,
            raw_off: Bitboard::EMPTY,
            lift_at: [(0, 0); 64],
            next_seq: 1,
            placed_at: [0; 64],
            first_off: [Ms::MAX; 64],
            last_on: [0; 64],
        }
    }
}

impl Observed {
    /// Records a debounced change; true for the first lift of a square that
    /// holds a piece in `reference` (a touch).
    pub fn change(&mut self, c: Change, reference: Bitboard) -> bool {
        let i = c.sq as usize;
        if c.on {
            self.placed_at[i] = c.t;
            self.last_on[i] = self.last_on[i].max(c.t);
            return false;
        }
        self.first_off[i] = self.first_off[i].min(c.since);
        if !reference.contains(c.sq) || self.lifted.contains(c.sq) {
            return false;
        }
        self.lifted.add(c.sq);
        self.lift_at[c.sq as usize] = (c.since, self.next_seq);
        self.next_seq = self.next_seq.saturating_add(1);
        true
    }

    /// A raw edge: the square read empty (`on` false) or occupied at `t`.
    pub fn raw(&mut self, t: Ms, sq: Square, on: bool) {
        let i = sq as usize;
        if on {
            self.last_on[i] = self.last_on[i].max(t);
        } else {
            self.raw_off.add(sq);
            self.first_off[i] = self.first_off[i].min(t);
        }
    }

    /// Was the square set down on after it was first emptied?
    pub fn set_down_after_lift(&self, sq: Square) -> bool {
        self.last_on[sq as usize] > self.first_off[sq as usize]
    }

    /// Squares of the position already empty when watching began (a piece
    /// lifted before, in the hand): evidence that they were lifted, but no
    /// touch of this ply.
    pub fn already_off(&mut self, squares: Bitboard, t: Ms) {
        self.raw_off |= squares;
        for sq in squares {
            self.first_off[sq as usize] = self.first_off[sq as usize].min(t);
        }
    }

    pub fn lifted(&self) -> Bitboard {
        self.lifted
    }

    /// Every lift seen, debounced or raw.
    pub fn evidence(&self) -> Bitboard {
        self.lifted | self.raw_off
    }

    /// The square of `among` lifted first.
    pub fn first_of(&self, among: Bitboard) -> Option<Square> {
        (self.lifted & among).into_iter().min_by_key(|sq| self.lift_at[*sq as usize])
    }

    /// The square of `among` lifted first at or after `since`.
    pub fn first_of_since(&self, among: Bitboard, since: Ms) -> Option<Square> {
        (self.lifted & among)
            .into_iter()
            .filter(|sq| self.lift_at[*sq as usize].0 >= since)
            .min_by_key(|sq| self.lift_at[*sq as usize])
    }

    /// When the square was last set down on (debounced; 0 if never).
    pub fn placed_at(&self, sq: Square) -> Ms {
        self.placed_at[sq as usize]
    }

    /// When the first lift of a square began (0 if it was not lifted).
    pub fn lift_time(&self, sq: Square) -> Ms {
        self.lift_at[sq as usize].0
    }

    /// Was `a` first lifted before `b`?
    pub fn lifted_before(&self, a: Square, b: Square) -> bool {
        self.lifted.contains(a) && self.lifted.contains(b) && self.lift_at[a as usize] < self.lift_at[b as usize]
    }

    /// Rook first, then king (4.4.2): the rook lifted and set down again
    /// before the king was lifted. Both lifted before either lands is one
    /// castling with two hands (in Chess960, Guidelines II.3.2.1).
    pub fn rook_first(&self, rook: Square, rook_to: Square, king: Square) -> bool {
        let king_up = self.lift_at[king as usize].0;
        self.lifted_before(rook, king) && self.placed_at[rook_to as usize] <= king_up
    }

    /// Was `a` first lifted before `b`, or `b` not lifted at all?
    pub fn touched_before(&self, a: Square, b: Square) -> bool {
        !self.lifted.contains(b) || self.lifted_before(a, b)
    }
}

/// The move the board shows, and any others that fit it equally well.
#[derive(Debug, Clone, Default)]
pub struct Decision {
    pub chosen: Option<Move>,
    pub others: Vec<Move>,
}

/// The square a move's piece lands on (the king's, for castling).
pub fn destination(mv: Move) -> Square {
    match mv {
        Move::Normal { to, .. } | Move::EnPassant { to, .. } | Move::Put { to, .. } => to,
        Move::Castle { king, rook } => {
            Square::from_coords(CastlingSide::from_king_side(king < rook).king_to_file(), king.rank())
        }
    }
}

/// The square the rook lands on in a castling move.
pub fn rook_destination(mv: Move) -> Square {
    match mv {
        Move::Castle { king, rook } => {
            Square::from_coords(CastlingSide::from_king_side(king < rook).rook_to_file(), king.rank())
        }
        other => destination(other),
    }
}

/// Squares of the pieces a move moves (king and rook, for castling).
pub fn moving_squares(mv: Move) -> Bitboard {
    match mv {
        Move::Normal { from, .. } | Move::EnPassant { from, .. } => Bitboard::from(from),
        Move::Castle { king, rook } => Bitboard::from(king) | Bitboard::from(rook),
        Move::Put { .. } => Bitboard::EMPTY,
    }
}

/// Every square a move changes: where its pieces leave and land, and where
/// the piece it captures stood.
pub fn squares(mv: Move) -> Bitboard {
    let mut squares = moving_squares(mv);
    squares.add(destination(mv));
    squares.add(rook_destination(mv));
    if let Some(sq) = captured_square(mv) {
        squares.add(sq);
    }
    squares
}

/// Where the captured piece stood.
pub fn captured_square(mv: Move) -> Option<Square> {
    match mv {
        Move::Normal { to, capture: Some(_), .. } => Some(to),
        Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
        _ => None,
    }
}

/// Whether both king and rook leave their squares in a castling move.
pub fn castling_moves_both(mv: Move) -> bool {
    match mv {
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            king.file() != side.king_to_file() && rook.file() != side.rook_to_file()
        }
        _ => false,
    }
}

/// The legal moves that leave exactly this occupancy and whose hidden lifts
/// were seen. Where several fit, the one that explains the most of the
/// mover's lifts wins (a Chess960 castling over a rook move that would leave
/// the king's lift unexplained), then the one whose destination was set down
/// on last (the capturing piece lands last). Moves that explain the lifts
/// equally well are reported whatever the order of placing said.
/// Squares in `mask` (sensors found stuck) are not compared.
pub fn decide(
    options: &[LegalMove],
    us: Bitboard,
    occupancy: Bitboard,
    mask: Bitboard,
    seen: &Observed,
    promotion: Role,
) -> Decision {
    let fits = |evidence: Bitboard| -> Vec<Move> {
        options
            .iter()
            .filter(|o| ((o.after ^ occupancy) & !mask).is_empty() && o.mv.promotion().is_none_or(|r| r == promotion))
            .filter(|o| (o.lifted & !mask).is_subset(evidence))
            // A square emptied and occupied again by the move (a capture's
            // target) was set down on after it was emptied: a captured piece
            // merely taken off is not yet the capture.
            .filter(|o| (o.lifted & o.after & !mask).into_iter().all(|sq| seen.set_down_after_lift(sq)))
            .filter(|o| castled_in_order(o.mv, seen, mask))
            .map(|o| o.mv)
            .collect()
    };
    let mut fit = fits(seen.lifted);
    if fit.is_empty() {
        fit = fits(seen.lifted | seen.raw_off);
    }
    let unexplained = |mv: Move| (seen.lifted & us & !moving_squares(mv)).count();
    fit.sort_by_key(|mv| (unexplained(*mv), std::cmp::Reverse(seen.placed_at[destination(*mv) as usize])));
    let best = fit.first().map(|mv| unexplained(*mv));
    let mut fit = fit.into_iter();
    let chosen = fit.next();
    Decision { chosen, others: fit.filter(|mv| Some(unexplained(*mv)) == best).collect() }
}

/// In a castling, king and rook each land after they were lifted: a rook
/// square set down on before the rook was ever taken up was the king (or
/// another piece), not the castling.
fn castled_in_order(mv: Move, seen: &Observed, mask: Bitboard) -> bool {
    let Move::Castle { king, rook } = mv else { return true };
    let lands_after = |from: Square, to: Square| {
        from == to
            || mask.contains(to)
            || !seen.lifted.contains(from)
            || seen.placed_at[to as usize] > seen.lift_time(from)
    };
    lands_after(king, destination(mv)) && lands_after(rook, rook_destination(mv))
}

/// A legal move made, with one or two of the mover's other pieces knocked off
/// and not put back (7.4.1): the move stands; the pieces go back.
pub fn with_displaced(
    options: &[LegalMove],
    us: Bitboard,
    occupancy: Bitboard,
    seen: &Observed,
) -> Option<(Move, Bitboard)> {
    let mut found = options.iter().filter(|o| {
        let missing = o.after & !occupancy;
        occupancy.is_subset(o.after)
            && (1..=2).contains(&missing.count())
            && missing.is_subset(us & !moving_squares(o.mv))
            && o.lifted.is_subset(seen.lifted | seen.raw_off)
    });
    let first = found.next()?;
    if found.next().is_some() {
        return None;
    }
    Some((first.mv, first.after & !occupancy))
}

/// What an illegal move tried to do, read off the board: one of the mover's
/// pieces left `from` and stands on `to`.
pub fn attempt(pos: &Chess, occupancy: Bitboard, seen: &Observed) -> Option<(Reason, Attempt)> {
    let board = pos.board();
    let reference = board.occupied();
    let us = pos.us();
    let vacated = reference & !occupancy & us;
    let appeared = occupancy & !reference;
    let (from, to) = if vacated.count() == 2 && (vacated & pos.our(Role::King)).any() && appeared.count() == 2 {
        // Both king and rook moved: an attempt to castle.
        let king = (vacated & pos.our(Role::King)).first()?;
        let to = appeared.into_iter().max_by_key(|sq| (*sq as i32 - king as i32).abs())?;
        (king, to)
    } else if vacated.count() == 1 {
        let from = vacated.first()?;
        let to = if appeared.count() == 1 {
            appeared.first()?
        } else if appeared.is_empty() {
            // Onto an opponent's piece, taken off and replaced by the mover's.
            (seen.lifted & occupancy & pos.them()).into_iter().max_by_key(|sq| seen.placed_at[*sq as usize])?
        } else {
            return None;
        };
        (from, to)
    } else {
        return None;
    };
    let piece = board.piece_at(from)?;
    let reason = if piece.role == Role::King && from.rank() == to.rank() && from.distance(to) >= 2 {
        Reason::CastlingNotAllowed
    } else if reaches(pos, from, to, piece) {
        Reason::LeavesKingInCheck
    } else {
        Reason::NotAMoveOfThatPiece
    };
    Some((reason, Attempt { piece, from, to }))
}

/// Could the piece go from `from` to `to` if kings could be left in check?
fn reaches(pos: &Chess, from: Square, to: Square, piece: Piece) -> bool {
    let board = pos.board();
    let occupied = board.occupied();
    if pos.us().contains(to) {
        return false;
    }
    if piece.role != Role::Pawn {
        return attacks::attacks(from, piece, occupied).contains(to);
    }
    let step: i32 = if piece.color == Color::White { 8 } else { -8 };
    let one = from.offset(step);
    let two = from.offset(2 * step);
    let home = if piece.color == Color::White { shakmaty::Rank::Second } else { shakmaty::Rank::Seventh };
    let empty = |sq: Option<Square>| sq.is_some_and(|s| !occupied.contains(s));
    (Some(to) == one && empty(one))
        || (Some(to) == two && from.rank() == home && empty(one) && empty(two))
        || (attacks::pawn_attacks(piece.color, from).contains(to)
            && (pos.them().contains(to) || pos.maybe_ep_square() == Some(to)))
}

/// How the board differs from the position, and the fewest steps that put it
/// right: a piece standing where a missing one could have gone is moved back;
/// the rest are put back or taken off.
pub fn board_fix(board: &Board, occupancy: Bitboard) -> (Vec<Placed>, Vec<Square>, Vec<Fix>) {
    let occupied = board.occupied();
    let missing: Vec<Placed> = (occupied & !occupancy)
        .into_iter()
        .filter_map(|sq| board.piece_at(sq).map(|piece| Placed { sq, piece }))
        .collect();
    let extra: Vec<Square> = (occupancy & !occupied).into_iter().collect();
    let mut unpaired: Vec<Placed> = missing.clone();
    let mut fix = Vec::new();
    let mut leftover = Vec::new();
    for &e in &extra {
        let reach = unpaired
            .iter()
            .position(|p| attacks::attacks(p.sq, p.piece, occupied).contains(e) || p.sq.file() == e.file());
        match reach.or((!unpaired.is_empty()).then_some(0)) {
            Some(i) => {
                let p = unpaired.remove(i);
                fix.push(Fix { piece: Some(p.piece), from: Some(e), to: Some(p.sq) });
            }
            None => leftover.push(e),
        }
    }
    fix.extend(unpaired.iter().map(|p| Fix { piece: Some(p.piece), from: None, to: Some(p.sq) }));
    fix.extend(leftover.into_iter().map(|e| Fix { piece: None, from: Some(e), to: None }));
    (missing, extra, fix)
}
