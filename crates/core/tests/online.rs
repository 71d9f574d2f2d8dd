//! An online game (Lichess): the server judges take-backs — the board set
//! back asks for one, and only the server's `take_back` input takes moves
//! back, whichever side is then to move, the board guided back to the
//! position before anything on it counts again; and the player's own move
//! made on the website is carried out on the board as the opponent's is.

mod common;

use common::Game;
use shakmaty::Color;
use tactus_core::EventKind;
use tactus_trace::{Header, Input};

/// A 300+2 game against a player on the server, who plays Black.
fn online() -> Game {
    let header =
        Header { time_control: Some("300+2".into()), engine: Some(Color::Black), online: true, ..Header::default() };
    Game::with(header, |p| p)
}

/// 1. e4 e5 2. Nf3, completed on the board.
fn opening() -> Game {
    let mut g = online();
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    g.choose("e7e5");
    g.carry("e7", "e5");
    g.carry("g1", "f3");
    g.press(Color::White);
    g
}

fn taken_back(g: &Game, from: usize) -> Vec<Vec<String>> {
    g.events[from..]
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TakeBack { taken, .. } => Some(taken.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_board_set_back_asks_the_server_and_takes_nothing_back() {
    let mut g = opening();
    let from = g.events.len();
    g.carry("f3", "g1");
    assert_eq!(g.sans(), ["e4", "e5", "Nf3"], "nothing is taken back until the server does");
    let asked: Vec<u32> = g.events[from..]
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::TakeBackAsked { ply } => Some(ply),
            _ => None,
        })
        .collect();
    assert_eq!(asked, [3], "asked once, for White's second move to be made again");
    g.wait(1000);
    assert_eq!(g.count(from, |k| matches!(k, EventKind::TakeBackAsked { .. })), 1, "asked once");
    // The server agrees: the board already shows the position.
    let from = g.events.len();
    g.input(Input::TakeBack { ply: 3 });
    assert_eq!(g.sans(), ["e4", "e5"]);
    assert_eq!(taken_back(&g, from), [["Nf3"]]);
    assert_eq!(g.count(from, |k| matches!(k, EventKind::BoardMismatch { .. })), 0, "{:?}", &g.events[from..]);
    g.carry("d2", "d4");
    g.press(Color::White);
    assert_eq!(g.sans(), ["e4", "e5", "d4"]);
}

#[test]
fn the_servers_take_back_guides_the_board_back_and_holds_the_next_move_until_it_is() {
    let mut g = opening();
    g.choose("b8c6");
    g.carry("b8", "c6");
    assert_eq!(g.sans(), ["e4", "e5", "Nf3", "Nc6"]);
    // The opponent's takeback request accepted: their Nc6 goes back; the
    // board still shows it.
    let from = g.events.len();
    g.input(Input::TakeBack { ply: 4 });
    assert_eq!(g.sans(), ["e4", "e5", "Nf3"]);
    assert_eq!(taken_back(&g, from), [["Nc6"]]);
    let fix = g.events[from..].iter().find_map(|e| match &e.kind {
        EventKind::BoardMismatch { fix, .. } => Some(fix.clone()),
        _ => None,
    });
    let fix = fix.expect("the fix is said at once");
    assert_eq!(fix.len(), 1, "{fix:?}");
    assert_eq!((fix[0].from, fix[0].to), (Some(common::sq("c6")), Some(common::sq("b8"))));
    // The opponent's next move comes before the board is set back: held.
    let held = g.events.len();
    g.choose("g8f6");
    assert_eq!(g.count(held, |k| matches!(k, EventKind::OpponentMove { .. })), 0, "not before the board is right");
    // A press meanwhile completes nothing: the fix again.
    g.press(Color::Black);
    assert_eq!(g.sans(), ["e4", "e5", "Nf3"]);
    g.carry("c6", "b8");
    assert_eq!(g.count(held, |k| matches!(k, EventKind::BoardOk)), 1);
    assert_eq!(g.count(held, |k| matches!(k, EventKind::OpponentMove { .. })), 1, "{:?}", &g.events[held..]);
    g.carry("g8", "f6");
    assert_eq!(g.sans(), ["e4", "e5", "Nf3", "Nf6"]);
    assert!(g.events.iter().all(|e| !matches!(e.kind, EventKind::Irregularity(_))), "no ruling");
}

#[test]
fn the_players_own_move_made_on_the_website_is_carried_out_on_the_board() {
    let mut g = opening();
    g.choose("b8c6");
    g.carry("b8", "c6");
    let from = g.events.len();
    let ply = g.session.game().ply();
    g.input(Input::WebsiteMove { ply, uci: "f1b5".parse().unwrap() });
    let said = g.events[from..].iter().find_map(|e| match &e.kind {
        EventKind::OpponentMove { mv, website, .. } => Some((mv.san.clone(), *website)),
        _ => None,
    });
    assert_eq!(said, Some(("Bb5".to_string(), true)));
    // Another move on the board is not it: told, not completed.
    g.carry("d2", "d4");
    assert_eq!(g.sans().len(), 4);
    assert!(g.count(from, |k| matches!(k, EventKind::OpponentFix { .. })) >= 1);
    g.carry("d4", "d2");
    g.carry("f1", "b5");
    assert_eq!(g.sans(), ["e4", "e5", "Nf3", "Nc6", "Bb5"], "completed when the board shows it, no press");
    assert_eq!(g.session.game().turn(), Color::Black);
    // One for a ply already made changes nothing.
    g.input(Input::WebsiteMove { ply, uci: "f1c4".parse().unwrap() });
    assert_eq!(g.sans().len(), 5);
}

#[test]
fn the_boards_move_refused_goes_back_and_the_player_moves_again() {
    let mut g = online();
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    let from = g.events.len();
    g.input(Input::TakeBack { ply: 1 });
    assert_eq!(taken_back(&g, from), [["e4"]]);
    g.carry("e4", "e2");
    assert_eq!(g.count(from, |k| matches!(k, EventKind::BoardOk)), 1);
    let moved = g.events.len();
    g.carry("d2", "d4");
    assert_eq!(g.count(moved, |k| matches!(k, EventKind::Move { .. })), 1, "{:?}", &g.events[from..]);
    g.press(Color::White);
    assert_eq!(g.sans(), ["d4"]);
}

/// The hands move on while the board is set back (the journal of a quick
/// player): the refused pawn back and the next move made at once.
#[test]
fn a_move_made_while_setting_the_board_back_counts_once_it_is_back() {
    use tactus_trace::Record;
    let mut g = online();
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    let edge = |sq: &str, on| Record::Edge { sq: common::sq(sq), on, piece: None };
    g.feed(5, edge("e4", false));
    g.feed(0, Record::Input(Input::TakeBack { ply: 1 }));
    g.feed(200, edge("e2", true));
    g.feed(0, edge("d2", false));
    g.feed(200, edge("d4", true));
    g.wait(10);
    g.press(Color::White);
    assert_eq!(g.sans(), ["d4"]);
}

/// The board set back while the opponent's move is being carried out asks
/// too; the server's take-back of the player's move ends the carrying.
#[test]
fn the_board_set_back_while_the_opponents_move_is_carried_asks_and_the_server_decides() {
    let mut g = opening();
    g.choose("b8c6");
    let from = g.events.len();
    g.carry("f3", "g1");
    assert_eq!(g.count(from, |k| matches!(k, EventKind::TakeBackAsked { ply: 3 })), 1, "{:?}", &g.events[from..]);
    assert_eq!(g.sans(), ["e4", "e5", "Nf3"]);
    // The server takes Nc6 (never on the board) and Nf3 back.
    g.input(Input::TakeBack { ply: 3 });
    assert_eq!(g.sans(), ["e4", "e5"]);
    assert_eq!(taken_back(&g, from), [["Nf3"]]);
    assert_eq!(g.session.clock().unwrap().running(), Some(Color::White));
    g.carry("d2", "d4");
    g.press(Color::White);
    assert_eq!(g.sans(), ["e4", "e5", "d4"]);
}

/// Declined (nothing comes back from the server), the board left set back
/// is told what to put where, as any wrong board.
#[test]
fn a_board_left_set_back_is_told_how_to_restore_the_game() {
    let mut g = opening();
    g.carry("f3", "g1");
    let from = g.events.len();
    g.wait(5000);
    let fix = g.events[from..].iter().find_map(|e| match &e.kind {
        EventKind::BoardMismatch { fix, .. } => Some(fix.clone()),
        _ => None,
    });
    let fix = fix.expect("the board is told what to put where");
    assert_eq!((fix[0].from, fix[0].to), (Some(common::sq("g1")), Some(common::sq("f3"))), "{fix:?}");
    g.carry("g1", "f3");
    assert_eq!(g.count(from, |k| matches!(k, EventKind::BoardOk)), 1);
    assert_eq!(g.sans(), ["e4", "e5", "Nf3"]);
}

/// A 300+2 game on a server whose clock is the game's (`server_clock`), the
/// player White.
fn on_the_servers_clock() -> Game {
    let header = Header {
        time_control: Some("300+2".into()),
        engine: Some(Color::Black),
        online: true,
        server_clock: true,
        ..Header::default()
    };
    Game::with(header, |p| p)
}

fn server(g: &mut Game, white_ms: u64, black_ms: u64, running: bool) {
    g.input(Input::ServerClock { white_ms, black_ms, running });
}

/// The clock each move completed with.
fn completed(g: &Game) -> Vec<Option<i64>> {
    g.events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Complete { clock_ms, .. } => Some(*clock_ms),
            _ => None,
        })
        .collect()
}

#[test]
fn the_servers_clock_is_the_games_the_opponents_move_hands_it_over_as_it_comes() {
    let mut g = on_the_servers_clock();
    server(&mut g, 300_000, 300_000, false);
    // Before each side has moved the server's clock stands: no time
    // charged, no increment.
    g.carry("e2", "e4");
    g.press(Color::White);
    server(&mut g, 300_000, 300_000, false);
    g.choose("e7e5");
    server(&mut g, 300_000, 300_000, true);
    // The player carries it out on their own time, as the server charges it.
    g.carry("e7", "e5");
    g.carry("g1", "f3");
    g.press(Color::White);
    // The server's state after Nf3: White charged from when e5 came.
    let white_after = g.session.clock().unwrap().remaining(Color::White, g.t);
    server(&mut g, white_after as u64 - 40, 300_000, true);
    g.choose("b8c6");
    server(&mut g, white_after as u64 - 40, 299_000, true);
    g.carry("b8", "c6");
    let clocks = completed(&g);
    assert_eq!(clocks[..2], [Some(300_000), Some(300_000)], "the first moves cost nothing");
    // Nf3: charged from the server's state that came with e5 — while e5
    // was carried out too — to the press, plus the increment.
    assert_eq!(clocks[2], Some(300_000 - (1300 + 1300 + 300) + 2000));
    assert_eq!(clocks[3], Some(299_000), "Nc6 completes with the server's time, no increment added");
    assert_eq!(g.count(0, |k| matches!(k, EventKind::ClockSet { .. })), 0, "never said");
}

#[test]
fn a_servers_clock_far_from_the_boards_is_said() {
    let mut g = on_the_servers_clock();
    server(&mut g, 300_000, 300_000, false);
    server(&mut g, 290_000, 300_000, true);
    assert_eq!(g.count(0, |k| matches!(k, EventKind::ClockSet { .. })), 0, "within 10 s: unsaid");
    server(&mut g, 270_000, 300_000, true);
    assert_eq!(g.count(0, |k| matches!(k, EventKind::ClockSet { .. })), 1, "a restart's 20 s: said");
}

#[test]
fn a_draw_declined_at_the_board_is_said_at_once() {
    let mut g = opening();
    g.input(Input::DrawOffer { side: Color::Black });
    let from = g.events.len();
    g.input(Input::Online(tactus_trace::OnlineAsk::DrawNo));
    assert_eq!(g.count(from, |k| matches!(k, EventKind::DrawDeclined { side: Color::White })), 1);
    assert_eq!(g.session.draw_offered(), None);
    // Declined once: the next move declines nothing more.
    g.choose("b8c6");
    g.carry("b8", "c6");
    g.carry("f1", "b5");
    g.press(Color::White);
    assert_eq!(g.count(from, |k| matches!(k, EventKind::DrawDeclined { .. })), 1);
    // With no offer standing there is nothing to decline.
    let from = g.events.len();
    g.input(Input::Online(tactus_trace::OnlineAsk::DrawNo));
    assert_eq!(g.count(from, |k| matches!(k, EventKind::DrawDeclined { .. })), 0);
}
