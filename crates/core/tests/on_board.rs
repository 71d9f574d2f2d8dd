//! `Session::moves_on_board`: what stands on the board beyond the game's
//! position, for whoever shows the board as it is (the emulated DGT board):
//! a move before the press completes it, a reply made on top of it, and
//! while a hand is at work, the moves that stood, the piece in the air.

mod common;

use common::{Game, sq};
use shakmaty::{CastlingMode, Color};
use tactus_trace::Record;

fn on_board(game: &Game) -> Vec<String> {
    game.session.moves_on_board().iter().map(|m| m.to_uci(CastlingMode::Standard).to_string()).collect()
}

#[test]
fn the_moves_on_the_board_are_there_before_the_press_and_while_hands_are_at_work() {
    let mut game = Game::new(None);
    assert!(on_board(&game).is_empty(), "the starting position");
    game.carry("e2", "e4");
    assert_eq!(on_board(&game), ["e2e4"], "before White presses");
    // Black takes hold of a pawn: the move still stands beside the hand.
    game.feed(150, Record::Edge { sq: sq("d7"), on: false, piece: None });
    game.wait(100);
    assert_eq!(on_board(&game), ["e2e4"], "a hand at work on the reply");
    game.feed(150, Record::Edge { sq: sq("d5"), on: true, piece: None });
    game.wait(1000);
    assert_eq!(on_board(&game), ["e2e4", "d7d5"], "the reply before White's press");
    game.press(Color::White);
    assert_eq!(game.sans(), ["e4"]);
    assert_eq!(on_board(&game), ["d7d5"], "the reply, now Black's ply");
    // The pawn taken up again from d5 is in the air, not back on d7.
    game.feed(150, Record::Edge { sq: sq("d5"), on: false, piece: None });
    game.wait(100);
    assert_eq!(on_board(&game), ["d7d5"]);
    game.feed(150, Record::Edge { sq: sq("d7"), on: true, piece: None });
    game.wait(1000);
    assert!(on_board(&game).is_empty(), "put back: the position again");
}
