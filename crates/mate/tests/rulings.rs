//! The rulings that ask who can still mate: dead position (5.2.2), flag
//! fall (6.9; a second illegal move, 7.5.5, asks the same question), and
//! Chess960 castling rights.

use shakmaty::{CastlingMode, Chess, Color, Position, PositionError, fen::Fen};
use tactus_mate::{Budget, Deadness, Verdict, can_mate, dead_position, quick_check, quick_dead_position};

fn position(fen: &str, mode: CastlingMode) -> Chess {
    fen.parse::<Fen>()
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_position(mode)
        // Constructed positions may have more bishops than a game can.
        .or_else(PositionError::ignore_too_much_material)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn standard(fen: &str) -> Chess {
    position(fen, CastlingMode::Standard)
}

#[test]
fn the_issues_example_is_dead_though_material_remains() {
    let pos = standard("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1");
    assert!(!pos.is_insufficient_material(), "a material count does not see it");
    assert_eq!(quick_dead_position(&pos), Deadness::Dead, "the check after a move already proves it");
    assert_eq!(dead_position(&pos, Budget::DEFAULT), Deadness::Dead);
    assert_eq!(can_mate(&pos, Color::Black, Budget::DEFAULT).verdict, Verdict::CannotMate);
}

#[test]
fn bare_kings_are_dead_and_the_initial_position_is_not() {
    assert_eq!(quick_dead_position(&standard("8/8/4k3/8/8/3K4/8/8 w - - 0 1")), Deadness::Dead);
    assert_eq!(quick_dead_position(&Chess::default()), Deadness::NotDead);
    assert_eq!(dead_position(&Chess::default(), Budget::DEFAULT), Deadness::NotDead);
}

#[test]
fn a_dead_position_with_a_rook_and_a_knight_needs_the_full_search() {
    // [community] labelled "--": the shallow search cannot close it, and the
    // deduction that does runs only in the full search when queens, rooks
    // or knights are on the board.
    let pos = standard("2k5/8/8/8/3p1p1p/1BpP1P1P/2P1BPBP/3BKBNR w K - 0 1");
    assert_eq!(quick_dead_position(&pos), Deadness::Undetermined);
    assert_eq!(dead_position(&pos, Budget::DEFAULT), Deadness::Dead);
}

#[test]
fn a_mate_found_is_a_line_that_mates() {
    let pos = standard("5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 60");
    let Verdict::CanMate { helpmate } = can_mate(&pos, Color::White, Budget::DEFAULT).verdict else {
        panic!("White can mate here");
    };
    let mut end = pos.clone();
    for m in helpmate {
        assert!(end.is_legal(m), "{m:?}");
        end.play_unchecked(m);
    }
    assert!(end.is_checkmate());
    assert_eq!(end.turn(), Color::Black);
}

#[test]
fn flag_falls_are_lost_exactly_when_the_opponent_can_mate() {
    let text = include_str!("data/flag-fall.txt");
    let mut checked = 0;
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let place = format!("tests/data/flag-fall.txt:{}", index + 1);
        let fields: Vec<&str> = line.splitn(4, ' ').collect();
        let [flagged, ruling, counting, fen] = fields[..] else { panic!("{place}: want 4 fields") };
        let flagged = match flagged {
            "white" => Color::White,
            "black" => Color::Black,
            other => panic!("{place}: bad colour {other}"),
        };
        let pos = standard(fen);
        let opponent = !flagged;
        let by_search = match can_mate(&pos, opponent, Budget::DEFAULT).verdict {
            Verdict::CanMate { .. } => "lost",
            Verdict::CannotMate => "drawn",
            Verdict::Undetermined => panic!("{place}: undetermined"),
        };
        let by_counting = if pos.has_insufficient_material(opponent) { "drawn" } else { "lost" };
        assert_eq!(by_search, ruling, "{place}: the search rules otherwise");
        assert_eq!(by_counting, counting, "{place}: counting rules otherwise than the file says");
        checked += 1;
    }
    assert_eq!(checked, 12);
}

#[test]
fn verdicts_depend_on_the_budget_only() {
    let pos = standard("2b5/1p6/pPp3k1/2Pp3p/P2PpBpP/4P1P1/5K2/8 b - - 0 1");
    let small = Budget::steps(50_000);
    let first = can_mate(&pos, Color::White, small);
    assert_eq!(first.verdict, Verdict::Undetermined, "this one needs millions of steps");
    assert_eq!(first.steps, 50_000);
    assert_eq!(can_mate(&pos, Color::White, small), first);
    // The quick check settles what it can and leaves this one open.
    assert_eq!(quick_check(&pos, Color::White), Verdict::Undetermined);
}

#[test]
fn castling_in_the_standard_arrangement_is_modelled_in_both_modes() {
    // [community] labelled "--": a king that may castle short, shut in with
    // its pieces behind locked pawns.
    for (castling, mode) in [("K", CastlingMode::Standard), ("H", CastlingMode::Chess960)] {
        let pos = position(&format!("2k5/8/8/8/3p1p1p/1BpP1P1P/2P1BPBP/3BKBNR w {castling} - 0 1"), mode);
        assert!(pos.castles().any());
        assert_eq!(dead_position(&pos, Budget::DEFAULT), Deadness::Dead, "{castling} in {mode:?}");
    }
}

#[test]
fn a_chess960_castling_right_is_kept_where_castling_is_the_only_way_to_mate() {
    // [community] with a Chess960 right added: king g1, rook f1. Castling
    // long (king to c1) is White's only way out; dropping the right would
    // turn "can mate" into "cannot".
    let with_right = position("7B/6PP/5P2/4N1PB/5QN1/1P3RPk/5P1P/5RK1 w F - 0 1", CastlingMode::Chess960);
    let Verdict::CanMate { helpmate } = can_mate(&with_right, Color::White, Budget::DEFAULT).verdict else {
        panic!("White can mate by castling first");
    };
    assert!(helpmate.iter().any(|m| m.is_castle()), "{helpmate:?}");
    let mut end = with_right.clone();
    for &m in &helpmate {
        assert!(end.is_legal(m), "{m:?}");
        end.play_unchecked(m);
    }
    assert!(end.is_checkmate());
    let without = position("7B/6PP/5P2/4N1PB/5QN1/1P3RPk/5P1P/5RK1 w - - 0 1", CastlingMode::Chess960);
    assert_eq!(can_mate(&without, Color::White, Budget::DEFAULT).verdict, Verdict::CannotMate);
}

#[test]
fn a_chess960_castling_right_that_can_never_be_used_does_not_hide_a_dead_position() {
    // [community] "--" with a Chess960 right added: king h1, rook g1, long
    // castling (king to c1). The bishop on f1, walled in by its pawns,
    // stands in the path for good.
    let pos = position("8/8/8/4k2B/1p1p4/1P1Pp1p1/4P1P1/2b2BRK b G - 0 1", CastlingMode::Chess960);
    assert!(pos.castles().any());
    assert_eq!(dead_position(&pos, Budget::DEFAULT), Deadness::Dead);
}

#[test]
fn chess960_start_positions_are_searched_with_their_castling() {
    // The corpus' cutechess game: mates are found for both sides at once.
    let pos = position("nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1", CastlingMode::Chess960);
    for side in [Color::White, Color::Black] {
        assert!(matches!(quick_check(&pos, side), Verdict::CanMate { .. }), "{side}");
    }
}
