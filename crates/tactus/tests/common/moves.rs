//! A person's moves on the simulated board.

use shakmaty::{Chess, Move, Position, Square};

/// A small deterministic generator for the person's moves.
pub struct Lcg(pub u64);

impl Lcg {
    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }
}

/// The edges a person makes for `mv`, as the sim board's typed words
/// (`e2-` lifts, `e4+` places): a captured piece off first; castling king
/// first, then the rook.
pub fn hands(pos: &Chess, mv: Move) -> Vec<String> {
    let (lift, place) = (|sq: Square| format!("{sq}-"), |sq: Square| format!("{sq}+"));
    match mv {
        Move::Castle { king, rook } => {
            let side = if king < rook { shakmaty::CastlingSide::KingSide } else { shakmaty::CastlingSide::QueenSide };
            let turn = pos.turn();
            vec![lift(king), place(side.king_to(turn)), lift(rook), place(side.rook_to(turn))]
        }
        Move::EnPassant { from, to } => {
            vec![lift(from), place(to), lift(Square::from_coords(to.file(), from.rank()))]
        }
        Move::Normal { from, to, capture, .. } => {
            let mut out = Vec::new();
            if capture.is_some() {
                out.push(lift(to));
            }
            out.extend([lift(from), place(to)]);
            out
        }
        Move::Put { .. } => unreachable!("no drops in chess"),
    }
}

/// The typed line that carries out the engine's move (an `opponent_move`
/// event) from the steps it gives: each lift, then each place.
pub fn carried_out(chosen: &serde_json::Value) -> String {
    let mut edges = Vec::new();
    for step in chosen["steps"].as_array().unwrap() {
        edges.extend(step["from"].as_str().map(|sq| format!("{sq}-")));
        edges.extend(step["to"].as_str().map(|sq| format!("{sq}+")));
    }
    edges.join(" ")
}
