//! A board with no clock to press (a DGT e-Board without its DGT clock, the
//! usual case): the board says so (`Input::ClockConnected`), and each move
//! made (4.7) is complete once the board holds still on it — the game goes
//! on however many moves are played, where presses would never come.

mod common;

use common::{Game, sq};
use shakmaty::Color;
use tactus_core::EventKind;
use tactus_trace::{Entry, Header, Input, Record};

/// A 300+2 game begun as the daemon begins one on a board with no clock:
/// the clocks stopped, and no clock to press.
fn without_a_clock(engine: Option<Color>) -> Game {
    let mut g = Game::new(engine);
    g.feed(0, Record::Input(Input::Pause));
    g.feed(0, Record::Input(Input::ClockConnected(false)));
    g
}

fn completed(g: &Game) -> Vec<(String, Option<i64>)> {
    g.events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Complete { san, clock_ms, .. } => Some((san.clone(), *clock_ms)),
            _ => None,
        })
        .collect()
}

#[test]
fn each_move_completes_once_the_board_holds_still_on_it() {
    let mut g = without_a_clock(None);
    g.carry("e2", "e4");
    g.carry("e7", "e5");
    g.carry("g1", "f3");
    assert_eq!(g.sans(), ["e4", "e5", "Nf3"]);
    // Nobody started the clocks: they stand, each move handing them over
    // with its increment, so that they restart for the side on move.
    assert_eq!(
        completed(&g),
        [("e4".into(), Some(302_000)), ("e5".into(), Some(302_000)), ("Nf3".into(), Some(304_000))]
    );
    assert_eq!(g.session.clock().and_then(|c| c.running()), None);
    g.input(Input::Resume);
    assert_eq!(g.session.clock().and_then(|c| c.running()), Some(Color::Black), "Black is on move");
    // Once started they run, and a move made stops its side's clock.
    g.carry("b8", "c6");
    let (san, ms) = completed(&g).pop().unwrap();
    assert_eq!(san, "Nc6");
    assert!(ms.is_some_and(|ms| ms < 304_000), "Black's clock ran: {ms:?}");
    assert_eq!(g.session.clock().and_then(|c| c.running()), Some(Color::White));
    assert_eq!(g.count(0, |k| matches!(k, EventKind::Irregularity(_))), 0);
}

#[test]
fn a_reply_made_before_the_board_held_still_completes_after_the_move() {
    let mut g = without_a_clock(None);
    // 1. e4 e5 within the settle time: the board holds still on both.
    for (name, on) in [("e2", false), ("e4", true), ("e7", false), ("e5", true)] {
        g.feed(30, Record::Edge { sq: sq(name), on, piece: None });
    }
    g.wait(1000);
    assert_eq!(g.sans(), ["e4", "e5"]);
    // The scholar's mate: the game ends on the board as with a clock.
    g.carry("d1", "h5");
    g.carry("b8", "c6");
    g.carry("f1", "c4");
    g.carry("g8", "f6");
    for (name, on) in [("f7", false), ("h5", false), ("f7", true)] {
        g.feed(150, Record::Edge { sq: sq(name), on, piece: None });
    }
    g.wait(1000);
    assert_eq!(g.sans().last().map(String::as_str), Some("Qxf7#"));
    assert_eq!(g.over(), Some(("1-0".into(), tactus_core::EndReason::Checkmate)));
}

#[test]
fn a_clock_plugged_in_mid_game_completes_the_moves_by_its_press_again() {
    let mut g = without_a_clock(None);
    g.carry("e2", "e4");
    g.input(Input::ClockConnected(true));
    g.input(Input::Resume);
    g.carry("e7", "e5");
    assert_eq!(g.sans(), ["e4"], "e5 waits for Black's press");
    assert_eq!(g.count(0, |k| matches!(k, EventKind::Move { mv, .. } if mv.san == "e5")), 1, "announced");
    g.press(Color::Black);
    assert_eq!(g.sans(), ["e4", "e5"]);
}

#[test]
fn a_clock_unplugged_while_a_move_waits_for_its_press_completes_that_move_at_once() {
    let mut g = Game::new(None);
    g.press(Color::Black);
    g.carry("e2", "e4");
    assert!(g.sans().is_empty(), "waiting for White's press");
    g.input(Input::ClockConnected(false));
    assert_eq!(g.sans(), ["e4"]);
    g.carry("e7", "e5");
    assert_eq!(g.sans(), ["e4", "e5"]);
}

#[test]
fn against_the_engine_the_players_move_completes_as_the_board_holds_still_and_the_engines_as_carried_out() {
    let mut g = without_a_clock(Some(Color::Black));
    g.input(Input::Resume);
    g.carry("e2", "e4");
    assert!(g.session.awaits_engine(), "the engine's turn");
    g.choose("e7e5");
    g.carry("e7", "e5");
    g.carry("g1", "f3");
    assert_eq!(g.sans(), ["e4", "e5", "Nf3"]);
}

/// The journal's `timers` line: a move the settle timer completed after the
/// last input is in the trace, and a replay ends with it.
#[test]
fn a_trace_replays_to_what_its_timers_did_after_the_last_input() {
    let header = Header { time_control: Some("300+2".into()), ..Header::default() };
    let edge = |t, name, on| Entry { t, record: Record::Edge { sq: sq(name), on, piece: None } };
    let mut entries = vec![
        Entry { t: 0, record: Record::Input(Input::ClockConnected(false)) },
        edge(1000, "e2", false),
        edge(1200, "e4", true),
    ];
    let replayed = |entries: &[Entry]| {
        let mut w = tactus_trace::TraceWriter::new(Vec::new());
        w.write_header(&header).unwrap();
        entries.iter().for_each(|e| w.write_entry(e).unwrap());
        let r = tactus_core::replay::replay(&w.into_inner()[..], tactus_core::Policy::default()).unwrap();
        r.session.game().played.len()
    };
    assert_eq!(replayed(&entries), 0, "the last input alone: the board had not yet held still");
    // The settle timer (debounce 10 ms, settle 100 ms) completed e4.
    entries.push(Entry { t: 1310, record: Record::Timers });
    assert_eq!(replayed(&entries), 1, "the timers ran to 1310 ms: e4 is complete");
}
