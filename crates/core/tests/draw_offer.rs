//! Draw offers (9.1.2): an offer stands until the opponent accepts it with
//! an offer of their own (5.2.3) or declines it by making a move; the
//! offerer's own move, with which the offer is made, does not withdraw it.
//! The engine offers with its move.

mod common;

use common::Game;
use shakmaty::Color;
use tactus_core::{EndReason, EventKind};
use tactus_trace::{GameResult, Input, Record};

#[test]
fn an_offer_made_with_the_move_stands_through_the_press_and_is_accepted() {
    let mut g = Game::new(None);
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.input(Input::DrawOffer { side: Color::White });
    g.press(Color::White);
    assert_eq!(g.count(0, |k| matches!(k, EventKind::DrawOffer { side: Color::White, irregular: false })), 1);
    assert!(g.over().is_none());
    g.input(Input::DrawOffer { side: Color::Black });
    assert_eq!(g.over(), Some((GameResult::Draw.as_str().to_string(), EndReason::Agreement)));
    assert!(g.session.finished());
}

#[test]
fn the_opponents_move_declines_the_offer_and_a_later_offer_is_a_new_one() {
    let mut g = Game::new(None);
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.input(Input::DrawOffer { side: Color::White });
    g.press(Color::White);
    g.carry("e7", "e5");
    g.press(Color::Black);
    assert_eq!(g.count(0, |k| matches!(k, EventKind::DrawDeclined { side: Color::Black })), 1);
    // Black's offer now is an offer of its own, not an acceptance.
    g.input(Input::DrawOffer { side: Color::Black });
    assert!(g.over().is_none());
    assert_eq!(g.count(0, |k| matches!(k, EventKind::DrawOffer { side: Color::Black, .. })), 1);
    // Offering twice is not accepting one's own offer.
    g.input(Input::DrawOffer { side: Color::Black });
    assert!(g.over().is_none());
    g.input(Input::DrawOffer { side: Color::White });
    assert!(matches!(g.over(), Some((_, EndReason::Agreement))));
}

#[test]
fn the_engines_offer_with_its_move_is_accepted_by_the_players_offer() {
    let mut g = Game::new(Some(Color::Black));
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    let ply = g.session.game().ply();
    g.feed(2000, Record::Input(Input::Opponent { ply, uci: "e7e5".parse().unwrap(), eval: None }));
    g.input(Input::DrawOffer { side: Color::Black });
    g.carry("e7", "e5");
    // Carrying out the engine's move completes its move: the offer stands.
    assert_eq!(g.session.game().played.len(), 2);
    assert_eq!(g.count(0, |k| matches!(k, EventKind::DrawDeclined { .. })), 0);
    g.input(Input::DrawOffer { side: Color::White });
    assert!(matches!(g.over(), Some((r, EndReason::Agreement)) if r == "1/2-1/2"));
}

#[test]
fn a_take_back_withdraws_the_offer_that_stood() {
    let mut g = Game::new(Some(Color::Black));
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    g.input(Input::DrawOffer { side: Color::White });
    // The player sets e4 back while the engine thinks: taken back.
    g.carry("e4", "e2");
    assert_eq!(g.count(0, |k| matches!(k, EventKind::TakeBack { .. })), 1);
    g.input(Input::DrawOffer { side: Color::Black });
    assert!(g.over().is_none(), "the offer went with the moves taken back");
}
