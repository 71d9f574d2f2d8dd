//! A small move recogniser for boards that know their pieces: it follows
//! the whole placement, not the order of the reports, so transients — a
//! new square reported before the old one is cleared, a piece carried over
//! other squares, a captured piece shown where the hand passes — make no
//! move.
//!
//! A placement that is the position after a legal move makes that move
//! *pending*, not played: the piece may still be moving (a rook slid from
//! a1 over d1 to f1 shows as the position after Rd1, then after Rf1). The
//! pending move is played when the board shows it followed by a legal reply
//! (the opponent has moved), or at [`Recogniser::finish`]. A placement back
//! to the position forgets the pending move (a piece touched and put back).
//! Promotions need no selector: the board says which piece was put down.
//!
//! This is what the tests replay real recordings with; the core's
//! recogniser, which also rules on clock presses and irregularities, is to
//! learn the same from piece identities.

use shakmaty::{Chess, Move, Position};

use crate::protocol::Placement;

/// The moves the board shows, from a starting position.
#[derive(Debug, Clone)]
pub struct Recogniser {
    position: Chess,
    /// Every legal move from `position`, and the placement after it.
    after: Vec<(Move, Placement)>,
    pending: Option<Move>,
}

impl Recogniser {
    /// From `position`.
    pub fn new(position: Chess) -> Recogniser {
        let mut r = Recogniser { position, after: Vec::new(), pending: None };
        r.after = successors(&r.position);
        r
    }

    /// The position after the moves played so far (not the pending one).
    pub fn position(&self) -> &Chess {
        &self.position
    }

    /// The move the board shows but the opponent has not answered yet.
    pub fn pending(&self) -> Option<&Move> {
        self.pending.as_ref()
    }

    fn play(&mut self, m: &Move) {
        self.position.play_unchecked(*m);
        self.after = successors(&self.position);
    }

    /// The board now shows `board`; returns the moves this plays, in order.
    pub fn board_changed(&mut self, board: &Placement) -> Vec<Move> {
        if *board == Placement::from_board(self.position.board()) {
            self.pending = None;
            return Vec::new();
        }
        if let Some((m, _)) = self.after.iter().find(|(_, p)| p == board) {
            self.pending = Some(*m);
            return Vec::new();
        }
        // The opponent has answered: the pending move (or any move) and a
        // legal reply. The pending one is tried first.
        let mut order: Vec<&(Move, Placement)> = self.after.iter().collect();
        order.sort_by_key(|(m, _)| Some(m) != self.pending.as_ref());
        for (m, _) in order {
            let mut next = self.position.clone();
            next.play_unchecked(*m);
            let reply = next.legal_moves().into_iter().find(|r| {
                let mut after = next.clone();
                after.play_unchecked(*r);
                Placement::from_board(after.board()) == *board
            });
            if let Some(reply) = reply {
                let first = *m;
                self.play(&first);
                self.pending = Some(reply);
                return vec![first];
            }
        }
        Vec::new()
    }

    /// The recording is over: plays the pending move, if any.
    pub fn finish(&mut self) -> Option<Move> {
        let m = self.pending.take()?;
        self.play(&m);
        Some(m)
    }
}

fn successors(position: &Chess) -> Vec<(Move, Placement)> {
    position
        .legal_moves()
        .into_iter()
        .map(|m| {
            let mut after = position.clone();
            after.play_unchecked(m);
            (m, Placement::from_board(after.board()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Occupant;
    use shakmaty::{Piece, Square, uci::UciMove};

    fn uci(m: &Move) -> String {
        UciMove::from_standard(*m).to_string()
    }

    /// Applies `changes` ("e2." empties e2, "e4P" puts a white pawn on e4)
    /// one by one and returns the moves played, the pending one included.
    fn replay(changes: &str) -> Vec<String> {
        let mut board = Placement::start();
        let mut r = Recogniser::new(Chess::default());
        let mut moves = Vec::new();
        for change in changes.split_whitespace() {
            let sq: Square = change[..2].parse().unwrap();
            let c = change.chars().nth(2).unwrap();
            board.set(sq, if c == '.' { Occupant::Empty } else { Occupant::Piece(Piece::from_char(c).unwrap()) });
            moves.extend(r.board_changed(&board).iter().map(uci));
        }
        moves.extend(r.finish().as_ref().map(uci));
        moves
    }

    #[test]
    fn a_slide_over_legal_squares_is_one_move() {
        // 1. e4 e5 2. Nf3 Nc6 3. Bc4, the bishop carried over e2, d3 and
        // b5 (a legal Bb5 on the way), then Black answers.
        let moves = replay("e2. e4P e7. e5p g1. f3N b8. c6n f1. e2B e2. d3B d3. b5B b5. c4B g8. f6n");
        assert_eq!(moves, ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]);
    }

    #[test]
    fn placed_before_lifted_and_captured_pieces_carried_over_the_board() {
        // 1. e4 d5 2. exd5 with the d5 pawn shown on e6 as it is taken away,
        // the new square reported before the old; 2... Qxd5.
        let moves = replay("e2. e4P d5p d7. d5. e6p e4. d5P e6. d8. d5q");
        assert_eq!(moves, ["e2e4", "d7d5", "e4d5", "d8d5"]);
    }

    #[test]
    fn a_piece_touched_and_put_back_is_no_move_and_the_promoted_piece_is_the_one_put_down() {
        let mut r = Recogniser::new(Chess::default());
        let mut board = Placement::start();
        board.set(Square::G1, Occupant::Empty);
        board.set(Square::F3, Occupant::Piece(Piece::from_char('N').unwrap()));
        r.board_changed(&board);
        assert!(r.pending().is_some());
        r.board_changed(&Placement::start());
        assert!(r.pending().is_none() && r.finish().is_none());

        let fen: shakmaty::fen::Fen = "7k/P7/8/8/8/8/8/K7 w - - 0 1".parse().unwrap();
        let pos: Chess = fen.into_position(shakmaty::CastlingMode::Standard).unwrap();
        let mut r = Recogniser::new(pos.clone());
        let mut board = Placement::from_board(pos.board());
        board.set(Square::A7, Occupant::Empty);
        board.set(Square::A8, Occupant::Piece(Piece::from_char('N').unwrap()));
        r.board_changed(&board);
        assert_eq!(r.finish().map(|m| uci(&m)).as_deref(), Some("a7a8n"));
    }
}
