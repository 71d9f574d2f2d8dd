//! Take-backs against the engine and draw offers where other rules meet
//! them: an engine move that repeats an earlier position is completed, not
//! taken back; the arbiter's pause, the time added and the increment of
//! Guidelines III.4 survive a take-back; time warnings come again for the
//! time given back; Chess960 castling is replayed; an illegal move that
//! stands (A.5.2) declines the draw offered to its side.

mod common;

use common::Game;
use shakmaty::Color;
use tactus_core::{EndReason, EventKind, Policy};
use tactus_trace::{Header, Input};

/// After 1. Nf3 Nf6 2. Ng1 the engine (Black) answers 2... Ng8: carrying
/// out the engine's legal move brings back the start position, White (the
/// player) to move. That is the engine's move completed, a repetition —
/// not the player setting the board back to the start.
#[test]
fn an_engine_move_that_repeats_an_earlier_position_is_completed_not_taken_back() {
    let mut g = Game::new(Some(Color::Black));
    g.press(Color::Black);
    g.carry("g1", "f3");
    g.press(Color::White);
    g.choose("g8f6");
    g.carry("g8", "f6");
    g.carry("f3", "g1");
    g.press(Color::White);
    assert_eq!(g.sans(), ["Nf3", "Nf6", "Ng1"]);
    g.choose("f6g8");
    let from = g.events.len();
    g.carry("f6", "g8");
    assert_eq!(g.count(from, |k| matches!(k, EventKind::TakeBack { .. })), 0, "{:?}", &g.events[from..]);
    assert_eq!(g.sans(), ["Nf3", "Nf6", "Ng1", "Ng8"], "the engine's move stands");
}

/// The arbiter stops the clocks while the engine's move is being carried
/// out; the player then sets their own move back. The clocks were stopped
/// by the arbiter (6.11): the take-back does not start them (the feed,
/// which saw `paused`, shows them stopped too).
#[test]
fn a_take_back_while_carrying_keeps_the_arbiters_pause() {
    let mut g = Game::new(Some(Color::Black));
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    g.choose("e7e5");
    g.carry("e7", "e5");
    g.carry("g1", "f3");
    g.press(Color::White);
    g.choose("b8c6");
    g.input(Input::Pause);
    assert!(g.events.iter().any(|e| matches!(e.kind, EventKind::Paused)));
    g.carry("f3", "g1");
    assert_eq!(g.sans(), ["e4", "e5"], "taken back");
    assert_eq!(g.session.clock().unwrap().running(), None, "the arbiter's pause is lost: a clock runs");
}

/// A time warning given on a later move: the player takes the moves back,
/// the clock shows minutes more again, and the warning is due again when
/// the time falls to it a second time — though the take-back came from the
/// board (a timer), not an input.
#[test]
fn a_time_warning_is_given_again_after_a_take_back_restores_the_time() {
    let header = Header { time_control: Some("300".into()), engine: Some(Color::Black), ..Header::default() };
    let mut g = Game::with(header, |p| Policy { time_warnings: vec![60_000], ..p });
    g.press(Color::Black);
    g.wait(100_000);
    g.carry("e2", "e4");
    g.press(Color::White);
    g.choose("e7e5");
    g.carry("e7", "e5");
    g.wait(140_000);
    assert_eq!(g.count(0, |k| matches!(k, EventKind::TimeWarning { side: Color::White, .. })), 1);
    g.carry("g1", "f3");
    g.press(Color::White);
    // The knight goes home while the engine thinks: Nf3 is taken back,
    // White's clock shows the ~198 s it had when e5 stood.
    g.carry("f3", "g1");
    assert_eq!(g.sans(), ["e4", "e5"]);
    assert!(g.session.clock().unwrap().remaining(Color::White, g.t) > 190_000);
    let from = g.events.len();
    g.wait(145_000);
    assert!(g.session.clock().unwrap().remaining(Color::White, g.t) < 60_000);
    assert_eq!(
        g.count(from, |k| matches!(k, EventKind::TimeWarning { side: Color::White, .. })),
        1,
        "no warning at 60 s after the take-back"
    );
}

/// 9.1.2.3: the move of the side the offer was made to declines it. Under
/// A.5.2 an illegal move that stands is that side's move (it is completed
/// and the game goes on from it): the offer does not survive it.
#[test]
fn an_illegal_move_that_stands_declines_the_offer_made_to_its_side() {
    let header = Header {
        time_control: Some("300+2".into()),
        supervision: Some(tactus_trace::Supervision::Unsupervised),
        ..Header::default()
    };
    let mut g = Game::with(header, |p| p);
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.input(Input::DrawOffer { side: Color::White });
    g.press(Color::White);
    // Black's bishop jumps its own e7 pawn: illegal, and it stands (A.5.2).
    g.carry("f8", "b4");
    let from = g.events.len();
    g.press(Color::Black);
    assert!(
        g.events[from..].iter().any(|e| matches!(e.kind, EventKind::Complete { side: Color::Black, .. })),
        "the illegal move stands: {:?}",
        &g.events[from..]
    );
    assert_eq!(
        g.count(from, |k| matches!(k, EventKind::DrawDeclined { side: Color::Black })),
        1,
        "Black's move declines White's offer"
    );
    // White does not claim and plays on; Black's later offer is an offer,
    // not the acceptance of White's offer from two moves back.
    g.carry("d2", "d4");
    g.press(Color::White);
    g.input(Input::DrawOffer { side: Color::Black });
    assert!(
        !g.events.iter().any(|e| matches!(e.kind, EventKind::GameOver { reason: EndReason::Agreement, .. })),
        "a declined offer accepted"
    );
}

/// Chess960 castling replays through `Game::positions` and
/// `Game::take_back` (king-takes-rook UCI).
#[test]
fn chess960_castling_is_replayed_by_take_back() {
    use tactus_core::game::Game as RulesGame;
    use tactus_trace::Variant;
    let mut game =
        RulesGame::new(Variant::Chess960, Some("bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w KQkq - 0 1")).unwrap();
    for uci in ["g1f3", "g8f6", "e1f1"] {
        let mv = uci.parse::<shakmaty::uci::UciMove>().unwrap().to_move(game.position()).unwrap();
        game.play(mv, None);
    }
    assert!(game.played[2].info.castle.is_some(), "{:?}", game.played[2].info);
    let fen = game.fen();
    let positions = game.positions().expect("replayable");
    assert_eq!(positions.len(), 4);
    let mv = "f6g8".parse::<shakmaty::uci::UciMove>().unwrap().to_move(game.position()).unwrap();
    game.play(mv, None);
    assert_eq!(game.take_back(1).unwrap().len(), 1);
    assert_eq!(game.fen(), fen);
}

/// Guidelines III.4: the arbiter switches an increment on for the rest of
/// the game. A take-back to a ply before the switch restores the times of
/// then, and the increment stays switched on.
#[test]
fn an_increment_switched_on_by_the_arbiter_survives_a_take_back() {
    let header = Header { time_control: Some("300".into()), engine: Some(Color::Black), ..Header::default() };
    let mut g = Game::with(header, |p| p);
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    g.choose("e7e5");
    g.carry("e7", "e5");
    g.input(Input::Increment { ms: 5000 });
    g.carry("g1", "f3");
    g.press(Color::White);
    // Nf3 taken back while the engine thinks.
    g.carry("f3", "g1");
    assert_eq!(g.sans(), ["e4", "e5"]);
    g.carry("d2", "d4");
    let before = g.session.clock().unwrap().remaining(Color::White, g.t);
    g.press(Color::White);
    let after = g.session.game().played.last().unwrap().clock_ms.unwrap();
    assert_eq!(g.sans(), ["e4", "e5", "d4"]);
    assert_eq!(after, before - 300 + 5000, "d4 got no increment");
}

/// 7.5.5: White's illegal move gives Black (the engine) a minute (blitz).
/// White then sets the board back and takes e4 and e5 back: the illegal
/// move still counts against White (a second one loses), and the minute
/// given for it stays with Black.
#[test]
fn a_penalty_given_for_an_illegal_move_survives_a_take_back() {
    let mut g = Game::new(Some(Color::Black));
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    g.choose("e7e5");
    g.carry("e7", "e5");
    let black_before = g.session.clock().unwrap().remaining(Color::Black, g.t);
    g.carry("d1", "d3");
    g.press(Color::White);
    let penalty = g
        .events
        .iter()
        .find_map(|e| match e.kind {
            EventKind::Penalty { side: Color::Black, ms, .. } => Some(ms),
            _ => None,
        })
        .expect("a penalty");
    g.carry("d3", "d1");
    g.carry("e5", "e7");
    g.carry("e4", "e2");
    assert!(g.sans().is_empty());
    let black_after = g.session.clock().unwrap().remaining(Color::Black, g.t);
    assert!(black_after >= black_before + penalty, "the penalty is gone: {black_before} + {penalty} → {black_after}");
}
