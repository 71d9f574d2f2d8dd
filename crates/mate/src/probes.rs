//! Searches other than the helpmate search: all positions reachable when
//! only few are; chains of checks; whether a side has anything but pawns to
//! move.

use std::collections::HashSet;

use shakmaty::{ByColor, Chess, Color, Move, Position, Role};

use crate::{
    budget::{Meter, OutOfBudget},
    deduce::proves_no_mate,
    material::white_cannot_mate,
    moves::{ordered_legal_moves, position_key},
    search::Settled,
};

fn black_is_mated(pos: &Chess) -> bool {
    pos.turn() == Color::Black && pos.is_checkmate()
}

/// The closure gives up past this many positions.
const CLOSURE_LIMIT: usize = 3000;

/// Every position reachable from `pos`, ply by ply, each once: `true` when
/// the whole set closes within [`CLOSURE_LIMIT`] positions and holds no mate
/// of Black (positions where White's material cannot mate are not expanded).
pub(crate) fn closure_has_no_mate(pos: &Chess, meter: &mut Meter) -> Result<bool, OutOfBudget> {
    let mut seen = HashSet::from([position_key(pos)]);
    let mut frontier = vec![pos.clone()];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for pos in &frontier {
            if white_cannot_mate(pos.board()) {
                continue;
            }
            let moves = ordered_legal_moves(pos);
            if moves.is_empty() {
                if black_is_mated(pos) {
                    return Ok(false);
                }
                continue;
            }
            for m in moves {
                meter.charge(1)?;
                let mut child = pos.clone();
                child.play_unchecked(m);
                if seen.insert(position_key(&child)) {
                    if seen.len() > CLOSURE_LIMIT {
                        return Ok(false);
                    }
                    next.push(child);
                }
            }
        }
        frontier = next;
    }
    Ok(true)
}

/// Which sides were seen to have a move other than a pawn move, in a
/// depth-first walk of at most `limit` moves from `pos` (stopping as soon as
/// both were).
pub(crate) fn non_pawn_movers(pos: &Chess, limit: u64, meter: &mut Meter) -> Result<ByColor<bool>, OutOfBudget> {
    let mut seen = ByColor::new_with(|_| false);
    let mut nodes = 0;
    // Depth-first with an explicit stack: the walk may go `limit` plies deep.
    let mut stack = vec![(pos.clone(), ordered_legal_moves(pos), 0)];
    while let Some((pos, moves, next)) = stack.last_mut() {
        let Some(&m) = moves.get(*next) else {
            stack.pop();
            continue;
        };
        *next += 1;
        if m.role() != Role::Pawn {
            *seen.get_mut(pos.turn()) = true;
        }
        nodes += 1;
        meter.charge(1)?;
        if nodes >= limit || (seen.white && seen.black) {
            break;
        }
        let mut child = pos.clone();
        child.play_unchecked(m);
        let moves = ordered_legal_moves(&child);
        stack.push((child, moves, 0));
    }
    Ok(seen)
}

/// Follows every chain of checks (and every first move) from `pos`; a
/// position reached by a quiet move must be one the static deduction proves
/// mate-free. Settles when it finds a mate, or when every chain ends and
/// every quiet position is proved; `None` otherwise.
pub(crate) fn follow_checks(pos: &Chess, prefix: &[Move], meter: &mut Meter) -> Result<Option<Settled>, OutOfBudget> {
    let mut visited = HashSet::new();
    let mut line = prefix.to_vec();
    Ok(match chain(pos, &mut visited, 0, &mut line, meter)? {
        Chain::Mate => Some(Settled::Mate(line)),
        Chain::NoMate => Some(Settled::NoMate),
        Chain::Open => None,
    })
}

enum Chain {
    Mate,
    NoMate,
    Open,
}

/// Chains longer than this are left open.
const MAX_CHAIN: u32 = 16;

fn chain(
    pos: &Chess,
    visited: &mut HashSet<u128>,
    depth: u32,
    line: &mut Vec<Move>,
    meter: &mut Meter,
) -> Result<Chain, OutOfBudget> {
    if depth > MAX_CHAIN {
        return Ok(Chain::Open);
    }
    visited.insert(position_key(pos));
    let moves = ordered_legal_moves(pos);
    if moves.is_empty() {
        return Ok(if black_is_mated(pos) { Chain::Mate } else { Chain::NoMate });
    }
    for m in moves {
        meter.charge(1)?;
        let mut child = pos.clone();
        child.play_unchecked(m);
        if visited.contains(&position_key(&child)) {
            continue;
        }
        if child.is_check() || depth == 0 {
            line.push(m);
            match chain(&child, visited, depth + 1, line, meter)? {
                Chain::Mate => return Ok(Chain::Mate),
                Chain::Open => return Ok(Chain::Open),
                Chain::NoMate => {
                    line.pop();
                    continue;
                }
            }
        }
        if !proves_no_mate(&child, meter)? {
            return Ok(Chain::Open);
        }
    }
    Ok(Chain::NoMate)
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, fen::Fen};

    use super::*;
    use crate::budget::Budget;

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    fn meter() -> Meter {
        Meter::new(Budget::steps(1_000_000))
    }

    #[test]
    fn a_locked_position_closes_without_mate_and_an_open_one_does_not_close() {
        // Only the kings can move, round the corners behind the pawns.
        let locked = position("k1b5/1p1p4/1P1P4/8/8/4p1p1/4P1P1/5B1K w - - 0 1");
        assert!(closure_has_no_mate(&locked, &mut meter()).unwrap());
        assert!(!closure_has_no_mate(&Chess::default(), &mut meter()).unwrap());
    }

    #[test]
    fn the_walk_sees_both_sides_move_pieces_in_the_initial_position() {
        let seen = non_pawn_movers(&Chess::default(), 1000, &mut meter()).unwrap();
        assert!(seen.white && seen.black);
    }

    #[test]
    fn a_quiet_position_the_deduction_cannot_prove_leaves_the_chains_open() {
        let pos = position("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        assert_eq!(follow_checks(&pos, &[], &mut meter()).unwrap(), None);
    }
}
