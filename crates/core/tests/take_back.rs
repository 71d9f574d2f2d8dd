//! Taking moves back against the engine by setting the board back: while
//! the engine thinks, while its move is being carried out, and after it
//! stands; the clocks go back to what they showed then; a position with
//! the engine to move, passed through on the way, takes nothing back; and
//! between two players a board set back is a wrong board, not a take-back.

mod common;

use common::Game;
use shakmaty::Color;
use tactus_core::EventKind;
use tactus_trace::{Input, Record};

/// A take-back as told: the ply now to be made, the moves taken back, and
/// the clocks.
type TakenBack = (u32, Vec<String>, Option<i64>, Option<i64>);

fn take_backs(g: &Game) -> Vec<TakenBack> {
    g.events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TakeBack { ply, taken, white_ms, black_ms } => Some((*ply, taken.clone(), *white_ms, *black_ms)),
            _ => None,
        })
        .collect()
}

fn remaining(g: &Game, side: Color) -> i64 {
    g.session.clock().unwrap().remaining(side, g.t)
}

fn no_rulings(g: &Game) {
    for e in &g.events {
        assert!(
            !matches!(e.kind, EventKind::Irregularity(_) | EventKind::Penalty { .. } | EventKind::Displaced { .. }),
            "a ruling against a player: {e:?}"
        );
    }
}

/// White (the player) e4, the engine e5 carried out, White Nf3, the engine's
/// Nc6 chosen.
fn opening() -> Game {
    let mut g = Game::new(Some(Color::Black));
    g.press(Color::Black); // starts White's clock
    g.carry("e2", "e4");
    g.press(Color::White);
    g.choose("e7e5");
    g.carry("e7", "e5");
    g.carry("g1", "f3");
    g.press(Color::White);
    g
}

#[test]
fn the_players_move_set_back_while_the_engine_thinks_is_taken_back() {
    let mut g = opening();
    assert_eq!(g.sans(), ["e4", "e5", "Nf3"]);
    let white_before = remaining(&g, Color::White);
    // The engine has not chosen: the knight goes home.
    g.carry("f3", "g1");
    assert_eq!(g.sans(), ["e4", "e5"]);
    let backs = take_backs(&g);
    assert_eq!(backs.len(), 1, "{backs:?}");
    assert_eq!(backs[0].0, 3, "White's second move, ply 3, is to be made again");
    assert_eq!(backs[0].1, ["Nf3"]);
    // White's clock shows what it showed when e5 stood, before Nf3 was
    // thought over and its increment added.
    let at_e5 = g
        .events
        .iter()
        .find_map(|e| match e.kind {
            EventKind::Complete { ply: 2, opponent_ms, .. } => opponent_ms,
            _ => None,
        })
        .unwrap();
    assert_eq!(backs[0].2, Some(at_e5));
    assert_ne!(at_e5, white_before);
    assert!(g.session.clock().unwrap().running() == Some(Color::White));
    assert!(!g.session.awaits_engine());
    assert_eq!(g.session.take_backs(), 1);
    // And the game goes on: another move, the engine answers it.
    g.carry("d2", "d4");
    g.press(Color::White);
    assert_eq!(g.sans(), ["e4", "e5", "d4"]);
    assert!(g.session.awaits_engine());
    no_rulings(&g);
}

#[test]
fn both_moves_set_back_after_the_engines_move_stands_are_taken_back_together() {
    let mut g = opening();
    g.choose("b8c6");
    g.carry("b8", "c6");
    assert_eq!(g.sans(), ["e4", "e5", "Nf3", "Nc6"]);
    // The engine's knight home first: the board then shows the position
    // after Nf3, with the engine to move — nothing is taken back there.
    g.carry("c6", "b8");
    assert!(take_backs(&g).is_empty(), "{:?}", take_backs(&g));
    assert_eq!(g.sans(), ["e4", "e5", "Nf3", "Nc6"]);
    g.carry("f3", "g1");
    let backs = take_backs(&g);
    assert_eq!(backs.len(), 1, "{backs:?}");
    assert_eq!(backs[0].1, ["Nf3", "Nc6"]);
    assert_eq!(g.sans(), ["e4", "e5"]);
    assert_eq!(g.session.game().turn(), Color::White);
    no_rulings(&g);
}

#[test]
fn the_players_move_set_back_instead_of_carrying_out_the_engines_is_taken_back() {
    let mut g = opening();
    g.choose("b8c6");
    // Instead of the engine's knight, the player's goes home.
    g.carry("f3", "g1");
    assert_eq!(take_backs(&g).len(), 1);
    assert_eq!(g.sans(), ["e4", "e5"]);
    // The clocks run again, the player's.
    assert_eq!(g.session.clock().unwrap().running(), Some(Color::White));
    // A stale choice for the ply taken back changes nothing now.
    let ply = g.session.game().ply() + 1;
    let before = g.events.len();
    g.feed(10, Record::Input(Input::Opponent { ply, uci: "b8c6".parse().unwrap(), eval: None }));
    assert!(!g.events[before..].iter().any(|e| matches!(e.kind, EventKind::OpponentMove { .. })));
    no_rulings(&g);
}

#[test]
fn the_whole_game_set_back_to_the_start_is_taken_back() {
    let mut g = opening();
    g.choose("b8c6");
    g.carry("b8", "c6");
    g.carry("c6", "b8");
    g.carry("f3", "g1");
    g.carry("e5", "e7");
    g.carry("e4", "e2");
    let backs = take_backs(&g);
    assert_eq!(backs.last().unwrap().1, ["e4", "e5"], "{backs:?}");
    assert!(g.sans().is_empty());
    let (_, _, white_ms, black_ms) = backs.last().unwrap().clone();
    assert_eq!((white_ms, black_ms), (Some(300_000), Some(300_000)), "the times as at the start");
    // White's clock runs from the take-back on.
    assert!(remaining(&g, Color::White) < 300_000);
    assert_eq!(remaining(&g, Color::Black), 300_000);
}

#[test]
fn between_two_players_a_board_set_back_takes_nothing_back() {
    let mut g = Game::new(None);
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    g.carry("e7", "e5");
    g.press(Color::Black);
    g.carry("e4", "e2");
    g.wait(5000);
    assert!(take_backs(&g).is_empty());
    assert_eq!(g.sans(), ["e4", "e5"]);
    assert_eq!(g.session.take_backs(), 0);
}
