//! Static deduction: proving that White can never mate without playing
//! moves, from what each piece may ever reach (blocked pawn chains, bishops
//! shut out, kings that can never meet).

mod analysis;
mod mating;

use analysis::unmodelled_castling_paths;
use analysis::{Analysis, Assumptions};
use shakmaty::{Bitboard, Chess, Color, EnPassantMode, Position};

use crate::budget::{Meter, OutOfBudget};

/// `Ok(true)` proves that White can never mate; `Ok(false)` proves nothing.
///
/// Withheld (`false`) while an en passant capture is possible, and while a
/// castling right the deduction does not model (Chess960 castling with the
/// king or rook off the standard squares) might still be used. Such a right
/// is set aside only when a piece that can never move nor be captured
/// stands in its path: then castling can never happen, and the verdict is
/// the same without it.
pub(crate) fn proves_no_mate(pos: &Chess, meter: &mut Meter) -> Result<bool, OutOfBudget> {
    if pos.ep_square(EnPassantMode::Legal).is_some() {
        return Ok(false);
    }
    let unmodelled = unmodelled_castling_paths(pos);
    if !unmodelled.is_empty() {
        // Until the first castling move, the game is one the passes model;
        // a piece they prove steady is still in the path when it comes.
        let steady = saturated(pos, Assumptions::default(), meter)?.steady;
        if unmodelled.iter().any(|&path| (path & steady).is_empty()) {
            return Ok(false);
        }
    }
    let board = pos.board();

    // With a single piece besides the king, White cannot afford to lose it
    // before it has moved.
    let white = board.by_color(Color::White);
    let mut first = Assumptions::default();
    if white.count() == 2 {
        first.never_taken_in_place = white & !board.kings();
    }
    let analysis = saturated(pos, first, meter)?;
    if !mating::black_could_be_mated(&analysis) {
        return Ok(true);
    }
    let Some(split) = analysis.first_steady_capturable else { return Ok(false) };

    // Case split on a piece that cannot move but may be captured: either it
    // is never taken before it moves, or it never moves at all. If neither
    // case allows a mate, no game does.
    for sq in split {
        let one = Bitboard::from_square(sq);
        let never_taken = Assumptions { never_taken_in_place: one, ..Assumptions::default() };
        if mating::black_could_be_mated(&saturated(pos, never_taken, meter)?) {
            continue;
        }
        let never_moves = Assumptions { only_taken_in_place: one, ..Assumptions::default() };
        if !mating::black_could_be_mated(&saturated(pos, never_moves, meter)?) {
            return Ok(true);
        }
    }

    // Two such pieces: the four combinations of their fates.
    if split.count() == 2 {
        let (Some(a), Some(b)) = (split.first(), split.last()) else { return Ok(false) };
        let (a, b) = (Bitboard::from_square(a), Bitboard::from_square(b));
        let cases = [
            Assumptions { never_taken_in_place: split, only_taken_in_place: Bitboard::EMPTY },
            Assumptions { never_taken_in_place: a, only_taken_in_place: b },
            Assumptions { never_taken_in_place: b, only_taken_in_place: a },
            Assumptions { never_taken_in_place: Bitboard::EMPTY, only_taken_in_place: split },
        ];
        for case in cases {
            if mating::black_could_be_mated(&saturated(pos, case, meter)?) {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    Ok(false)
}

fn saturated(pos: &Chess, assumptions: Assumptions, meter: &mut Meter) -> Result<Analysis, OutOfBudget> {
    let mut analysis = Analysis::new(pos.board(), assumptions);
    analysis.saturate(meter)?;
    Ok(analysis)
}

/// The squares of pieces that can never move nor be captured, for the
/// bishop-distance guide of the last search phase.
pub(crate) fn steady_pieces(pos: &Chess, meter: &mut Meter) -> Result<Bitboard, OutOfBudget> {
    Ok(saturated(pos, Assumptions::default(), meter)?.steady)
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, PositionError, fen::Fen};

    use super::*;
    use crate::budget::Budget;

    fn proves(fen: &str) -> bool {
        // Some reference positions have more bishops than a game can.
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .or_else(PositionError::ignore_too_much_material)
            .unwrap();
        proves_no_mate(&pos, &mut Meter::new(Budget::steps(u64::MAX))).unwrap()
    }

    /// Positions (placement only, White to move) with whether White can
    /// mate, from the saturation tests of CHA-Solver 3.0.0
    /// (github.com/miguel-ambrona/chasolver, src/deduction/saturation.rs).
    /// The deduction is incomplete, but on these it is exact.
    const CASES: &[(&str, bool)] = &[
        ("8/1p6/kPp3p1/2P3p1/1pP3Pb/1P4p1/6P1/7K", false),
        ("7b/1k4bB/8/8/1p1p1p1p/1PpP1P1P/2P3K1/N7", true),
        ("7b/1k5B/8/8/1p1p1p1p/1PpP1P1P/2P3K1/N3b3", false),
        ("7b/1k4bB/8/4p3/1p1pPp1p/1PpP1P1P/2P1P1K1/N7", true),
        ("4K3/8/8/8/8/p1p2p1p/P1pppp1P/bnrqkrnb", false),
        ("4K3/8/8/8/8/p1p2p2/P1pppp2/bnrqkrnb", true),
        ("k1bK4/1p1p4/1PpPp3/2P1Pp2/2p1pP2/2p1P3/2P5/8", true),
        ("Bb1k1b2/bKp1p1p1/1pP1P1P1/pP6/P5P1/8/8/8", false),
        ("Bb1k1b2/bKp1p1p1/1pP1P1P1/pP6/6P1/P7/8/8", true),
        ("k7/6p1/6P1/p1p1p1PK/P1P1P1P1/6PR/7P/8", false),
        ("5brk/4p1p1/3pP1P1/1B1P4/3p2p1/3P2p1/4K1P1/8", true),
        ("7k/8/1p6/1Pp5/2Pp4/pB1Pp1p1/P1B1P1P1/1B1B2K1", false),
        ("7k/8/1p6/1Pp5/2Pp4/pB1Pp1p1/P1B1P1P1/3B2K1", true),
        ("2b5/1p6/pPp3k1/2Pp3p/P2PpBpP/4P1P1/5K2/8", true),
        ("2b5/1p6/1Pp3k1/p1Pp3p/P2PpBpP/4P1P1/5K2/8", false),
        ("1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/4K3", false),
        ("8/2b5/8/4k2B/1p1p4/1P1Pp1p1/4P1P1/2b2BRK", false),
        ("8/2b5/8/4k2B/1p1p4/1P1Pp1p1/4P1P1/2b1KBR1", true),
        ("1b2k3/8/1p2K3/bP6/Pp6/1Pp5/B1P5/NB6", false),
        ("1k6/pPp5/BpP4b/1P6/8/7B/8/5B1K", false),
        ("8/8/1k1p1p2/3PpP2/3pKp2/b2P1P2/8/3B1B2", false),
        ("1b3kBR/4pP1P/1p1pP2P/1P1P4/8/K5p1/6P1/1B6", true),
        ("1b6/6p1/k5P1/8/1p1p4/1P1Pp2p/4Pp1p/1B3Kbr", false),
        ("8/1p3b2/pPp1p1p1/BkP1P1P1/1P6/BPB5/PKP5/8", true),
        ("k6B/1b4B1/2b2B2/4B3/3B4/1pB1B3/pP1B4/K7", true),
        ("N1b1N1N1/1pPpPpPp/1P1P1P1P/8/8/8/8/kb2B1K1", true),
        ("8/B4b2/2k5/1p1p4/1P1Pp1pB/1pp1P1P1/1p6/bK3b2", false),
        ("8/2b4B/4k3/8/8/2p1p1p1/2PpP1P1/1B1K3n", false),
        ("7k/5b2/p7/rbp5/p1p1p1p1/P1PpP1P1/PK1P4/RNB1B3", false),
        ("8/8/7p/5p1P/5p1K/5Pp1/6P1/5kb1", false),
        ("8/6pp/8/8/ppp5/bkp4Q/qnp2p2/n1K5", false),
        ("B2b4/8/4k3/8/1p1p1p1p/1PpP1P1P/K1P4b/RB6", false),
        ("1kb5/1p1p4/1P1P2p1/6p1/6Pb/6p1/6P1/7K", false),
    ];

    #[test]
    fn the_deduction_decides_its_reference_positions() {
        for &(placement, white_can_mate) in CASES {
            let fen = format!("{placement} w - - 0 1");
            assert_eq!(proves(&fen), !white_can_mate, "{fen}");
        }
    }

    #[test]
    fn an_unmodelled_castling_right_withholds_the_deduction_unless_its_path_is_blocked_for_good() {
        let chess960 = |fen: &str| -> bool {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Chess960).unwrap();
            proves_no_mate(&pos, &mut Meter::new(Budget::steps(u64::MAX))).unwrap()
        };
        // A bare white king cannot mate, whatever Black's rook does...
        assert!(chess960("rk6/8/8/8/8/8/8/4K3 w - - 0 1"));
        // ...but the deduction does not model Black's castling (king b8,
        // rook a8), so it proves nothing while that right stands.
        assert!(!chess960("rk6/8/8/8/8/8/8/4K3 w a - 0 1"));
        // The standard arrangement is modelled.
        assert!(chess960("r3k3/8/8/8/8/8/8/4K3 w a - 0 1"));
    }

    #[test]
    fn en_passant_withholds_the_deduction() {
        // Black to move may take en passant on g3: nothing is proved.
        assert!(!proves("8/6R1/8/6p1/2N2pP1/PPPP4/QNP2P1N/1Bk1K2R b - g3 0 1"));
    }
}
