//! What the `Irregular` profile's players do wrong, chosen so that the ruling
//! is unambiguous: illegal moves go to an empty square (no captured piece to
//! restore), never castle, never promote, and a piece touched by mistake
//! could never have made the capture that follows (which 4.3.3 would bind).

use rand::{Rng, rngs::SmallRng, seq::IndexedRandom};
use shakmaty::{Bitboard, Chess, File, Move, Position, Rank, Role, Square, attacks};

/// Per ply: an illegal move, a press without a move, a touch-move breach.
const ILLEGAL: f64 = 0.025;
const EMPTY_PRESS: f64 = 0.012;
const BREACH: f64 = 0.02;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Act {
    None,
    /// A piece with a legal move is lifted and put back, then the move is
    /// made with another piece (4.3.1).
    Breach {
        sq: Square,
    },
    /// The piece on `from` is carried to the empty square `to` and the clock
    /// pressed (7.5.1); after the restore the move is made. `breach`: with
    /// another piece, although the one moved had a legal move (4.3.1).
    Illegal {
        from: Square,
        to: Square,
        breach: bool,
    },
    /// The clock pressed without a move (7.5.3); then the move is made.
    EmptyPress,
}

/// The act, if any, that goes with the legal move `m` of `pos`.
pub(crate) fn pick(rng: &mut SmallRng, pos: &Chess, m: Move) -> Act {
    let r: f64 = rng.random();
    let act = if r < ILLEGAL {
        illegal(rng, pos, m)
    } else if r < ILLEGAL + EMPTY_PRESS {
        Some(Act::EmptyPress)
    } else if r < ILLEGAL + EMPTY_PRESS + BREACH {
        breach(rng, pos, m)
    } else {
        None
    };
    act.unwrap_or(Act::None)
}

/// The square of the piece the move is made with (the king for castling).
fn mover(m: Move) -> Square {
    match m {
        Move::Castle { king, .. } => king,
        _ => m.from().expect("chess moves have an origin"),
    }
}

fn has_legal_move(pos: &Chess, sq: Square) -> bool {
    pos.legal_moves().iter().any(|m| m.from() == Some(sq))
}

/// Whether the piece on `sq` could make the capture `m` makes: touching it
/// and then the captured piece would bind the player to that capture (4.3.3),
/// so such a piece is never the one touched by mistake.
fn could_take(pos: &Chess, sq: Square, m: Move) -> bool {
    captured(m).is_some() && pos.legal_moves().iter().any(|l| l.from() == Some(sq) && captured(*l) == captured(m))
}

/// Where the captured piece stands (not the destination, for en passant).
fn captured(m: Move) -> Option<Square> {
    match m {
        Move::Normal { to, capture: Some(_), .. } => Some(to),
        Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
        _ => None,
    }
}

fn breach(rng: &mut SmallRng, pos: &Chess, m: Move) -> Option<Act> {
    let mut involved = Bitboard::from(mover(m));
    if let Move::Castle { rook, .. } = m {
        involved.add(rook);
    }
    let touchable: Vec<Square> =
        (pos.us() & !involved).into_iter().filter(|&sq| has_legal_move(pos, sq) && !could_take(pos, sq, m)).collect();
    touchable.choose(rng).map(|&sq| Act::Breach { sq })
}

/// Where the piece on `from` could go if its own king did not matter.
fn pseudo_targets(pos: &Chess, from: Square) -> Bitboard {
    let board = pos.board();
    let piece = board.piece_at(from).expect("a piece on the square");
    let occ = board.occupied();
    if piece.role != Role::Pawn {
        return attacks::attacks(from, piece, occ) & !board.by_color(piece.color);
    }
    let mut targets =
        attacks::pawn_attacks(piece.color, from) & (pos.them() | Bitboard::from_iter(pos.maybe_ep_square()));
    let step = piece.color.fold_wb(8, -8);
    if let Some(one) = from.offset(step).filter(|sq| !occ.contains(*sq)) {
        targets.add(one);
        if from.rank() == piece.color.fold_wb(Rank::Second, Rank::Seventh)
            && let Some(two) = one.offset(step).filter(|sq| !occ.contains(*sq))
        {
            targets.add(two);
        }
    }
    targets
}

/// An illegal move to an empty square: half the time a pseudo-legal move
/// that leaves the own king in check, else a square the piece cannot reach.
fn illegal(rng: &mut SmallRng, pos: &Chess, m: Move) -> Option<Act> {
    if m.is_castle() {
        return None;
    }
    let board = pos.board();
    let empty = !board.occupied();
    let legal = pos.legal_moves();
    let back_ranks = Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth);
    let own_back_rank = Bitboard::from_rank(pos.turn().fold_wb(Rank::First, Rank::Eighth));
    let leave_in_check = rng.random_bool(0.5);
    let mut candidates = Vec::new();
    for from in pos.us() {
        if from != mover(m) && could_take(pos, from, m) {
            continue;
        }
        let role = board.role_at(from).expect("a piece on the square");
        let reach = pseudo_targets(pos, from);
        let targets = if leave_in_check {
            let mut quiet = reach & empty;
            match role {
                // Pushes only (the en passant square is empty too), no promotions.
                Role::Pawn => quiet &= Bitboard::from_file(from.file()) & !back_ranks,
                // A king step onto its castling square could be read as castling begun.
                Role::King if pos.castles().has_color(pos.turn()) => {
                    quiet &= !(own_back_rank & (Bitboard::from_file(File::C) | Bitboard::from_file(File::G)))
                }
                _ => {}
            }
            quiet & !Bitboard::from_iter(legal.iter().filter(|l| l.from() == Some(from)).map(|l| l.to()))
        } else {
            let near =
                empty & !reach & Bitboard::from_iter(Square::ALL.into_iter().filter(|sq| sq.distance(from) <= 2));
            match role {
                Role::King => Bitboard::EMPTY,
                Role::Pawn => near & !back_ranks,
                // Not onto the back rank, where a rook could be taken for castling.
                Role::Rook => near & !own_back_rank,
                _ => near,
            }
        };
        candidates.extend(targets.into_iter().map(|to| (from, to)));
    }
    let same_piece: Vec<(Square, Square)> = candidates.iter().copied().filter(|&(from, _)| from == mover(m)).collect();
    let pool = if !same_piece.is_empty() && rng.random_bool(0.5) { &same_piece } else { &candidates };
    let &(from, to) = pool.choose(rng)?;
    Some(Act::Illegal { from, to, breach: from != mover(m) && has_legal_move(pos, from) })
}
