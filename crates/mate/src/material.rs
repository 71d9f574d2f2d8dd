//! Material that can never mate, whatever the moves.

use shakmaty::{Bitboard, Board, Color};

/// White's material can never give mate, whatever either side plays
/// (sound, not complete: `false` proves nothing).
///
/// - a bare king;
/// - king and knight, when Black has no minor piece, rook or pawn to block
///   its own king (queens cannot help: they would take the knight or be
///   taken);
/// - king and bishops all on one square colour, with no bishop of the other
///   colour, no knight and no pawn anywhere on the board.
pub(crate) fn white_cannot_mate(board: &Board) -> bool {
    let white = board.by_color(Color::White);
    let black = board.by_color(Color::Black);
    if white.count() == 1 {
        return true;
    }

    let minors = board.knights() | board.bishops();
    if white.count() == 2
        && (white & board.knights()).any()
        && (black & (minors | board.rooks() | board.pawns())).is_empty()
    {
        return true;
    }

    let white_bishops = white & board.bishops();
    if white_bishops.any() {
        let colour = if (white_bishops & Bitboard::DARK_SQUARES).any() {
            Bitboard::DARK_SQUARES
        } else {
            Bitboard::LIGHT_SQUARES
        };
        if white.count() == white_bishops.count() + 1
            && (board.bishops() & !colour).is_empty()
            && board.knights().is_empty()
            && board.pawns().is_empty()
        {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Chess, Position, fen::Fen};

    use super::*;

    fn cannot(fen: &str) -> bool {
        let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        white_cannot_mate(pos.board())
    }

    #[test]
    fn bare_king_and_lone_knight_cannot_mate() {
        assert!(cannot("7k/8/8/8/8/8/8/K7 w - - 0 1"));
        assert!(cannot("7k/8/8/8/8/8/8/KN6 w - - 0 1"));
        assert!(cannot("6qk/8/8/8/8/8/8/KN6 w - - 0 1"));
    }

    #[test]
    fn a_knight_can_mate_when_black_can_block_its_own_king() {
        assert!(!cannot("7k/6p1/8/8/8/8/8/KN6 w - - 0 1"));
        assert!(!cannot("7k/8/8/8/8/8/8/KQ6 w - - 0 1"));
    }

    #[test]
    fn same_coloured_bishops_cannot_mate_unless_something_can_block() {
        // Bishops on c1 and e3 (dark squares), and a dark one for Black.
        assert!(cannot("k7/8/8/8/8/4B3/8/2B4K w - - 0 1"));
        assert!(cannot("k7/6b1/8/8/8/4B3/8/7K w - - 0 1"));
        // A bishop of the other colour, or a knight, changes that.
        assert!(!cannot("k7/5b2/8/8/8/4B3/8/7K w - - 0 1"));
        assert!(!cannot("kn6/8/8/8/8/4B3/8/7K w - - 0 1"));
    }
}
