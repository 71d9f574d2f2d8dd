//! Where the helpmate search looks deeper and where shallower.
//!
//! A move that makes progress towards a mate (a white pawn or capture, a king
//! or knight heading for the mating corner) costs no depth; a move that
//! tends to simplify away from mating patterns (a black capture) costs four
//! plies. The
//! classification only steers the search: every legal move is still tried,
//! so a verdict never depends on it being right.

use std::{collections::HashSet, sync::LazyLock};

use shakmaty::{Bitboard, Board, Chess, Color, Move, Position, Role, Square, attacks};

use crate::moves::{MoveKey, destination, lands_on_a_piece, origin};

/// What a move does to the remaining search depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// One ply deeper (none if the previous move was a reward).
    Normal,
    /// Free: the search goes one move further along this line.
    Reward,
    /// Four plies: the line is unlikely to lead to a mate.
    Punish,
}

/// Guidance computed once for the last, deepest search phase.
#[derive(Debug, Default)]
pub(crate) struct Guides {
    /// Moves that, from the search's root, lead to positions the static
    /// deduction proves mate-free; punished wherever they are played.
    pub(crate) punished: Option<HashSet<MoveKey>>,
    /// Bishop moves needed from each square to the mating corner.
    pub(crate) bishop_distances: Option<[u8; 64]>,
}

pub(crate) fn classify(pos: &Chess, m: Move, guides: &Guides) -> Step {
    if guides.punished.as_ref().is_some_and(|punished| punished.contains(&MoveKey::of(m, pos.turn()))) {
        return Step::Punish;
    }
    match pos.turn() {
        Color::White => classify_white(pos, m, guides.bishop_distances.as_ref()),
        Color::Black => classify_black(pos, m, guides.bishop_distances.as_ref()),
    }
}

fn classify_white(pos: &Chess, m: Move, distances: Option<&[u8; 64]>) -> Step {
    let role = m.role();
    // Every white pawn move goes forward.
    if role == Role::Pawn || lands_on_a_piece(m) || approaches_target(pos, m) {
        return Step::Reward;
    }
    if let Some(distances) = distances
        && role == Role::Bishop
    {
        let from = distances[origin(m) as usize];
        let to = distances[destination(m, Color::White) as usize];
        if from == u8::MAX {
            return Step::Normal;
        }
        // Next to the corner, stepping aside makes room; far away, closing in.
        if (from <= 1 && from < to) || (from > 2 && from > to) {
            return Step::Reward;
        }
    }
    Step::Normal
}

fn classify_black(pos: &Chess, m: Move, distances: Option<&[u8; 64]>) -> Step {
    let board = pos.board();
    let role = m.role();
    let captures = lands_on_a_piece(m);
    if distances.is_some()
        && board.occupied().count() > 5
        && captures
        && (role == Role::Pawn || board.role_at(destination(m, Color::Black)) == Some(Role::Pawn))
    {
        return Step::Reward;
    }
    if let Some(distances) = distances
        && role == Role::Bishop
        && distances[origin(m) as usize] > distances[destination(m, Color::Black) as usize]
    {
        return Step::Reward;
    }
    if approaches_target(pos, m) {
        return Step::Reward;
    }
    // Black captures simplify the position.
    if captures {
        return Step::Punish;
    }
    Step::Normal
}

/// The corner where mates are looked for: the dark one (h8) when White has a
/// dark-squared bishop, or has none and Black has a light-squared one;
/// otherwise the light one (a8).
fn dark_corner(board: &Board) -> bool {
    let white_bishops = board.by_color(Color::White) & board.bishops();
    let black_bishops = board.by_color(Color::Black) & board.bishops();
    (white_bishops & Bitboard::DARK_SQUARES).any()
        || (white_bishops.is_empty() && (black_bishops & Bitboard::LIGHT_SQUARES).any())
}

/// A king or knight move that brings the piece nearer its square in the
/// mating pattern: White's king to g7 and knight to e5 (covering g6, h7,
/// f7), Black's king to h8 and knight to g8; mirrored to the a-side for the
/// light corner.
fn approaches_target(pos: &Chess, m: Move) -> bool {
    let turn = pos.turn();
    let target = match (turn, m.role()) {
        (Color::White, Role::King) => Square::G7,
        (Color::White, Role::Knight) => Square::E5,
        (Color::Black, Role::King) => Square::H8,
        (Color::Black, Role::Knight) => Square::G8,
        _ => return false,
    };
    let target = if dark_corner(pos.board()) { target } else { target.flip_horizontal() };
    let (from, to) = (origin(m), destination(m, turn));
    let distance = if m.role() == Role::King { Square::distance } else { knight_distance };
    distance(to, target) < distance(from, target)
}

/// Knight moves between two squares on an empty board.
fn knight_distance(a: Square, b: Square) -> u32 {
    u32::from(KNIGHT_DISTANCES[a as usize][b as usize])
}

static KNIGHT_DISTANCES: LazyLock<[[u8; 64]; 64]> = LazyLock::new(|| {
    let mut table = [[u8::MAX; 64]; 64];
    for start in Square::ALL {
        let row = &mut table[start as usize];
        row[start as usize] = 0;
        let mut frontier = Bitboard::from_square(start);
        let mut seen = frontier;
        let mut distance = 0;
        while frontier.any() {
            distance += 1;
            let next = frontier.into_iter().fold(Bitboard::EMPTY, |acc, sq| acc | attacks::knight_attacks(sq)) & !seen;
            for sq in next {
                row[sq as usize] = distance;
            }
            seen |= next;
            frontier = next;
        }
    }
    table
});

/// Bishop moves from the mating corner (the corner square and its two
/// neighbours) to every square, never passing through or onto a piece that
/// can never move (`steady`); `u8::MAX` where no bishop can get.
pub(crate) fn bishop_distances(board: &Board, steady: Bitboard) -> [u8; 64] {
    let corner = if dark_corner(board) {
        Bitboard::from_iter([Square::H8, Square::G8, Square::H7])
    } else {
        Bitboard::from_iter([Square::A8, Square::B8, Square::A7])
    };
    let mut distances = [u8::MAX; 64];
    let mut seen = Bitboard::EMPTY;
    let mut frontier = corner;
    let mut distance = 0u8;
    while frontier.any() {
        for sq in frontier {
            distances[sq as usize] = distance;
        }
        seen |= frontier;
        distance += 1;
        let next =
            frontier.into_iter().fold(Bitboard::EMPTY, |acc, sq| acc | (attacks::bishop_attacks(sq, steady) & !steady));
        frontier = next & !seen;
    }
    distances
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knight_distances_match_known_values() {
        assert_eq!(knight_distance(Square::A1, Square::A1), 0);
        assert_eq!(knight_distance(Square::A1, Square::B3), 1);
        assert_eq!(knight_distance(Square::A1, Square::B2), 4);
        assert_eq!(knight_distance(Square::A1, Square::A2), 3);
        assert_eq!(knight_distance(Square::A1, Square::H8), 6);
        assert_eq!(knight_distance(Square::D4, Square::E5), 2);
    }

    #[test]
    fn bishop_distances_go_round_steady_pieces() {
        let board = Board::new();
        let distances = bishop_distances(&board, Bitboard::EMPTY);
        assert_eq!(distances[Square::H8 as usize], 0);
        assert_eq!(distances[Square::A1 as usize], 1);
        assert_eq!(distances[Square::B1 as usize], 1);
        assert_eq!(distances[Square::C1 as usize], 2);
        // A steady piece on g7 shuts the only dark corner square in.
        let walled = Bitboard::from_square(Square::G7);
        let distances = bishop_distances(&board, walled);
        assert_eq!(distances[Square::G7 as usize], u8::MAX);
        assert_eq!(distances[Square::A1 as usize], u8::MAX);
        assert_eq!(distances[Square::B1 as usize], 1);
    }
}
