//! Could the black king be mated anywhere, given what every piece may ever
//! reach? A mate needs a white piece attacking the king's square and every
//! flight square taken: by a black piece standing on it, or covered by the
//! white king.

use shakmaty::{Bitboard, Color, Role, attacks};

use super::analysis::{Analysis, attacks_from};

/// `false` proves that Black can never be mated; `true` proves nothing.
/// Meaningful only on a saturated analysis.
pub(crate) fn black_could_be_mated(analysis: &Analysis) -> bool {
    let (Some(black_king_region), Some(white_king_reach)) =
        (analysis.king_reach(Color::Black), analysis.king_reach(Color::White))
    else {
        return true;
    };
    let (checkers, checked_region) = checkers(analysis, black_king_region);
    if checkers.is_empty() {
        return false;
    }

    for mating_square in checked_region {
        // Flight squares not also attacked by some white piece.
        let flights = attacks::king_attacks(mating_square) & black_king_region & !checked_region;
        let (blockers, blockable) = blockers(analysis, flights);
        let count = blockers.count().min(blockable.count());
        let covered_by_the_white_king = |free: Bitboard| {
            if free.is_empty() {
                return true;
            }
            let next_to_all = free.into_iter().fold(Bitboard::EMPTY, |acc, sq| acc | attacks::king_attacks(sq))
                & !attacks::king_attacks(mating_square).with(mating_square)
                & white_king_reach;
            next_to_all.into_iter().any(|sq| (attacks::king_attacks(sq) & free) == free)
        };
        if any_subset(blockable, count, &mut |blocked| covered_by_the_white_king(flights & !blocked)) {
            return true;
        }
    }
    false
}

/// White pieces other than the king that can move and may attack `region`,
/// and the part of `region` they may attack.
fn checkers(analysis: &Analysis, region: Bitboard) -> (Bitboard, Bitboard) {
    let board = analysis.board();
    let clear = analysis.clear;
    let mut checkers = Bitboard::EMPTY;
    let mut checked = Bitboard::EMPTY;
    for sq in board.by_color(Color::White) & !board.kings() {
        let Some(piece) = board.piece_at(sq) else { continue };
        let reach = analysis.reach[sq as usize];
        if reach == Bitboard::from_square(sq) {
            continue;
        }
        for from in reach {
            let attacked = region & attacks_from(piece, from, !clear);
            if attacked.any() {
                checkers.add(sq);
                checked |= attacked;
            }
        }
    }
    (checkers, checked)
}

/// Black pieces other than the king that may reach `region`, and the part
/// of `region` they may reach.
fn blockers(analysis: &Analysis, region: Bitboard) -> (Bitboard, Bitboard) {
    let board = analysis.board();
    let mut blockers = Bitboard::EMPTY;
    let mut blockable = Bitboard::EMPTY;
    for sq in board.by_color(Color::Black) & !board.by_role(Role::King) {
        let reached = region & analysis.reach[sq as usize];
        if reached.any() {
            blockers.add(sq);
            blockable |= reached;
        }
    }
    (blockers, blockable)
}

/// Whether `test` holds for some subset of `squares` with exactly `size`
/// squares (the empty set when `size` is 0).
fn any_subset(squares: Bitboard, size: usize, test: &mut impl FnMut(Bitboard) -> bool) -> bool {
    fn go(rest: Bitboard, size: usize, chosen: Bitboard, test: &mut impl FnMut(Bitboard) -> bool) -> bool {
        if size == 0 {
            return test(chosen);
        }
        if rest.count() < size {
            return false;
        }
        let Some(first) = rest.first() else { return false };
        let rest = rest.without(first);
        go(rest, size - 1, chosen.with(first), test) || go(rest, size, chosen, test)
    }
    go(squares, size, Bitboard::EMPTY, test)
}

#[cfg(test)]
mod tests {
    use shakmaty::Square;

    use super::*;

    #[test]
    fn subsets_of_each_size_are_all_visited_once() {
        let squares = Bitboard::from_iter([Square::A1, Square::C3, Square::E5, Square::H8]);
        for (size, expected) in [(0, 1), (1, 4), (2, 6), (3, 4), (4, 1), (5, 0)] {
            let mut seen = Vec::new();
            any_subset(squares, size, &mut |subset| {
                assert_eq!(subset.count(), size);
                assert_eq!(subset & !squares, Bitboard::EMPTY);
                seen.push(subset);
                false
            });
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), expected, "subsets of size {size}");
        }
    }
}
