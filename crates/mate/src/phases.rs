//! The order of the algorithm: cheap techniques first, each settling what it
//! can, the costly deep search last. Written for White as the intended
//! winner; [`crate::can_mate`] mirrors the board for Black.

use shakmaty::{Chess, Position};

use crate::{
    budget::{Meter, OutOfBudget},
    deduce::{proves_no_mate, steady_pieces},
    heuristics::{Guides, bishop_distances},
    moves::{MoveKey, ordered_legal_moves},
    probes::{closure_has_no_mate, follow_checks, non_pawn_movers},
    search::{Limits, Search, Settled, play_forced},
};

/// How far down the phases to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Depth {
    /// Forced moves, a shallow search, and (without queens, rooks and
    /// knights) the static deduction: a thousand moves or so.
    Quick,
    /// Every phase.
    Full,
}

/// `Ok(None)`: every phase ran and none settled the question.
pub(crate) fn white_can_mate(pos: &Chess, depth: Depth, meter: &mut Meter) -> Result<Option<Settled>, OutOfBudget> {
    // 1. Moves without alternative; a circle of them never mates.
    let forced = play_forced(pos, meter)?;
    if forced.circle {
        return Ok(Some(Settled::NoMate));
    }
    let root = &forced.position;
    let prefix = &forced.moves;

    // 2. One ply, stretched along promising lines: settles the easy ones.
    let shallow = Limits { per_ply: Some(1_000), total: 1_000_000, table: false };
    if let Some(settled) = Search::new(meter, prefix).deepen(root, 1..=1, shallow, Guides::default())? {
        return Ok(Some(settled));
    }

    // 3. The static deduction, early where it usually decides: without
    // queens, rooks and knights (locked pawns, bishops shut out).
    let board = root.board();
    let heavy_or_knights = (board.queens() | board.rooks() | board.knights()).any();
    if !heavy_or_knights && proves_no_mate(root, meter)? {
        return Ok(Some(Settled::NoMate));
    }
    if depth == Depth::Quick {
        return Ok(None);
    }

    // 4. Iterative deepening with a transposition table.
    let deepening = Limits { per_ply: Some(7_000), total: 1_000_000, table: true };
    if let Some(settled) = Search::new(meter, prefix).deepen(root, 2..=128, deepening, Guides::default())? {
        return Ok(Some(settled));
    }

    // 5. The static deduction where phase 3 skipped it.
    if heavy_or_knights && proves_no_mate(root, meter)? {
        return Ok(Some(Settled::NoMate));
    }

    // 6. A side that only ever moves pawns leaves few positions: enumerate
    // them all.
    let movers = non_pawn_movers(root, 1_000, meter)?;
    if !(movers.white && movers.black) && closure_has_no_mate(root, meter)? {
        return Ok(Some(Settled::NoMate));
    }

    // 7. Chains of checks, quiet positions proved by deduction.
    if let Some(settled) = follow_checks(root, prefix, meter)? {
        return Ok(Some(settled));
    }

    // 8. The deep search, guided: bishops steered round pieces that never
    // move, root moves into proved mate-free positions punished.
    let steady = steady_pieces(root, meter)?;
    let mut punished = std::collections::HashSet::new();
    for m in ordered_legal_moves(root) {
        let mut child = root.clone();
        child.play_unchecked(m);
        if proves_no_mate(&child, meter)? {
            punished.insert(MoveKey::of(m, root.turn()));
        }
    }
    let guides = Guides { punished: Some(punished), bishop_distances: Some(bishop_distances(board, steady)) };
    let deep = Limits { per_ply: None, total: 1 << 24, table: true };
    Search::new(meter, prefix).deepen(root, 2..=128, deep, guides)
}
