//! Moves and positions as the searches see them: legal moves in one fixed
//! order, where a move goes, and a key that identifies a position.

use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, MoveList, Position, PositionError, Role, Square,
    zobrist::Zobrist128,
};

/// Legal moves in a fixed order: by piece kind (pawn, knight, bishop, rook,
/// queen, king), en passant after the other pawn moves, then origin,
/// destination, and promotions queen, knight, rook, bishop.
///
/// The searches stop at node limits, so the order in which they try moves
/// decides which positions they settle within a budget. Fixing it here keeps
/// verdicts stable across shakmaty versions, and it is the order the
/// algorithm's reference implementation was tuned with.
pub(crate) fn ordered_legal_moves(pos: &Chess) -> MoveList {
    let moves = pos.legal_moves();
    let mut order = [0; 256];
    sort_moves(&moves, pos.turn(), &mut order).iter().map(|&key| moves[(key & 0xff) as usize]).collect()
}

/// Sorts `moves` (of the side `turn`) into the order of
/// [`ordered_legal_moves`]: returns, in `buffer`, one key per move whose low
/// byte is the move's index in `moves`.
///
/// Sorting plain integers (the order above the index) is several times
/// faster than sorting moves by a key computed per comparison, and the
/// caller's buffer saves copying the move list.
pub(crate) fn sort_moves<'b>(moves: &MoveList, turn: Color, buffer: &'b mut [u32; 256]) -> &'b [u32] {
    for (index, &m) in moves.iter().enumerate() {
        buffer[index] = (order_key(m, turn) << 8) | index as u32;
    }
    let keys = &mut buffer[..moves.len()];
    keys.sort_unstable();
    keys
}

fn order_key(m: Move, turn: Color) -> u32 {
    let role = match m.role() {
        Role::Pawn => 0,
        Role::Knight => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
    };
    let en_passant = u32::from(matches!(m, Move::EnPassant { .. }));
    let castle = u32::from(matches!(m, Move::Castle { .. }));
    let promotion = match m.promotion() {
        None | Some(Role::Queen) => 0,
        Some(Role::Knight) => 1,
        Some(Role::Rook) => 2,
        Some(_) => 3,
    };
    (role << 17)
        | (en_passant << 16)
        | (origin(m).to_u32() << 10)
        | (destination(m, turn).to_u32() << 4)
        | (castle << 2)
        | promotion
}

/// The square the moving piece leaves (the king's, for castling).
pub(crate) fn origin(m: Move) -> Square {
    match m {
        Move::Normal { from, .. } | Move::EnPassant { from, .. } => from,
        Move::Castle { king, .. } => king,
        Move::Put { to, .. } => to,
    }
}

/// The square the moving piece lands on: for castling the king's target
/// square, not the rook's (shakmaty's `Move::to`).
pub(crate) fn destination(m: Move, turn: Color) -> Square {
    match m {
        Move::Castle { .. } => m.castling_side().map_or(m.to(), |side| side.king_to(turn)),
        _ => m.to(),
    }
}

/// A piece stands on the destination square: en passant and castling do not
/// count, as in the algorithm's heuristics.
pub(crate) fn lands_on_a_piece(m: Move) -> bool {
    matches!(m, Move::Normal { capture: Some(_), .. })
}

/// Identifies a move wherever it is played: origin, destination, promotion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct MoveKey {
    from: Square,
    to: Square,
    promotion: Option<Role>,
}

impl MoveKey {
    pub(crate) fn of(m: Move, turn: Color) -> MoveKey {
        MoveKey { from: origin(m), to: destination(m, turn), promotion: m.promotion() }
    }
}

/// The 128-bit Zobrist key of a position (placement, side to move, castling
/// rights, a legal en passant square; not the move counters).
///
/// Two different positions share a key with probability about 2^-128 per
/// pair: far below any hardware fault rate, so the searches treat equal keys
/// as equal positions.
pub(crate) fn position_key(pos: &Chess) -> u128 {
    pos.zobrist_hash::<Zobrist128>(EnPassantMode::Legal).0
}

/// The position with the board turned over and the colours swapped, so that
/// the searches, written for White as the intended winner, answer for Black.
///
/// `None` only if shakmaty refuses the mirrored setup, which it cannot for
/// the mirror image of a position it accepted.
pub(crate) fn mirrored(pos: &Chess) -> Option<Chess> {
    let mode: CastlingMode = pos.castles().mode();
    let setup = pos.to_setup(EnPassantMode::Legal).into_mirrored();
    match Chess::from_setup(setup, mode) {
        Ok(pos) => Some(pos),
        // A position accepted with relaxed checks mirrors to one that fails
        // the same checks; accept it on the same terms.
        Err(error) => error
            .ignore_too_much_material()
            .or_else(PositionError::ignore_impossible_check)
            .or_else(PositionError::ignore_invalid_castling_rights)
            .or_else(PositionError::ignore_invalid_ep_square)
            .ok(),
    }
}

/// A move of the mirrored position as the same move on the original board.
pub(crate) fn unmirror(m: Move) -> Move {
    match m {
        Move::Normal { role, from, capture, to, promotion } => {
            Move::Normal { role, from: from.flip_vertical(), capture, to: to.flip_vertical(), promotion }
        }
        Move::EnPassant { from, to } => Move::EnPassant { from: from.flip_vertical(), to: to.flip_vertical() },
        Move::Castle { king, rook } => Move::Castle { king: king.flip_vertical(), rook: rook.flip_vertical() },
        Move::Put { role, to } => Move::Put { role, to: to.flip_vertical() },
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;

    use super::*;

    fn position(fen: &str, mode: CastlingMode) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
    }

    #[test]
    fn moves_come_by_piece_kind_then_squares() {
        let pos = Chess::default();
        let moves = ordered_legal_moves(&pos);
        let first: Vec<String> = moves.iter().take(3).map(|m| m.to_uci(CastlingMode::Standard).to_string()).collect();
        assert_eq!(first, ["a2a3", "a2a4", "b2b3"]);
        let knights: Vec<String> = moves[16..].iter().map(|m| m.to_uci(CastlingMode::Standard).to_string()).collect();
        assert_eq!(knights, ["b1a3", "b1c3", "g1f3", "g1h3"]);
    }

    #[test]
    fn promotions_come_queen_knight_rook_bishop() {
        let pos = position("8/P6k/8/8/8/8/8/K7 w - - 0 1", CastlingMode::Standard);
        let promotions: Vec<Option<Role>> = ordered_legal_moves(&pos).iter().map(|m| m.promotion()).take(4).collect();
        assert_eq!(promotions, [Some(Role::Queen), Some(Role::Knight), Some(Role::Rook), Some(Role::Bishop)]);
    }

    #[test]
    fn castling_lands_the_king_on_its_target_square() {
        let pos = position("4k3/8/8/8/8/8/8/4K2R w K - 0 1", CastlingMode::Standard);
        let castle = pos.legal_moves().into_iter().find(|m| m.is_castle()).unwrap();
        assert_eq!(destination(castle, Color::White), Square::G1);
        // Chess960: king f1, rook g1; the king's target g1 holds the rook.
        let pos = position("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", CastlingMode::Chess960);
        let castle = pos.legal_moves().into_iter().find(|m| m.is_castle()).unwrap();
        assert_eq!(destination(castle, Color::White), Square::G1);
        assert!(!lands_on_a_piece(castle));
    }

    #[test]
    fn mirroring_swaps_colours_and_maps_moves_back() {
        let pos = position("r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1", CastlingMode::Standard);
        let flipped = mirrored(&pos).unwrap();
        assert_eq!(flipped.turn(), Color::Black);
        assert_eq!(flipped.board().king_of(Color::White), Some(Square::E1));
        assert_eq!(flipped.ep_square(EnPassantMode::Legal), Some(Square::D3));
        let back: Vec<Move> = flipped.legal_moves().into_iter().map(unmirror).collect();
        for m in pos.legal_moves() {
            assert!(back.contains(&m), "{m:?} has no mirror image");
        }
    }

    #[test]
    fn keys_ignore_move_counters_but_not_the_side_to_move() {
        let a = position("4k3/8/8/8/8/8/8/4K2R w K - 0 1", CastlingMode::Standard);
        let b = position("4k3/8/8/8/8/8/8/4K2R w K - 17 40", CastlingMode::Standard);
        let c = position("4k3/8/8/8/8/8/8/4K2R b K - 0 1", CastlingMode::Standard);
        let d = position("4k3/8/8/8/8/8/8/4K2R w - - 0 1", CastlingMode::Standard);
        assert_eq!(position_key(&a), position_key(&b));
        assert_ne!(position_key(&a), position_key(&c));
        assert_ne!(position_key(&a), position_key(&d));
    }
}
