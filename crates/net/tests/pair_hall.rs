//! Two boards playing one game (two boards, one game) are one game in the
//! hall: one entry in `/api/hall`, one game in `/games.pgn`, the rulings of
//! both boards for the arbiter, and one board of a team match.

mod common;

use common::{get, played};
use shakmaty::Color;
use tactus_core::{Article, Event, EventKind, Irregularity, Reason};
use tactus_net::{AppState, Hall, HomeAway, Paired, SharedHall, Tags, Team, TeamMatch, serve};
use tactus_sim::Profile;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

fn touch_move(side: Color, ply: u32) -> Irregularity {
    Irregularity {
        article: Article::A4_3_1,
        side,
        ply,
        reason: Reason::TouchMove,
        stands: false,
        attempt: None,
        touched: None,
        fix: Vec::new(),
    }
}

/// Board `id` playing `plays` with `with`: the game's events as that board
/// tells them (the same moves on both), and a ruling of its own.
fn paired_board(hall: &SharedHall, game: &common::Game, id: &str, with: &str, plays: Color, words: &str) {
    let pair = Some(Paired { with: with.into(), plays });
    hall.set_tags(id, Tags { pair, ..Tags::from(&game.header) });
    for ev in &game.events {
        hall.apply(id, ev, None);
    }
    let ply = if plays == Color::White { 3 } else { 4 };
    hall.apply(id, &Event { t: 1, kind: EventKind::Irregularity(touch_move(plays, ply)) }, Some(words));
}

#[tokio::test]
async fn a_pair_is_one_game_with_both_boards_rulings() {
    let school = TeamMatch {
        name: "Schools cup".into(),
        home: Team { name: "Oakfield".into(), boards: vec!["A".into(), "c".into()] },
        away: Team { name: "Riverside".into(), boards: Vec::new() },
        white_on_odd_boards_for: HomeAway::Home,
    };
    let hall = SharedHall::new(Hall::new("schools").with_matches(vec![school]));
    let game = played(23, 30, false, Profile::Realistic, Some("5400+30"));
    paired_board(&hall, &game, "A", "B", Color::White, "touched on A");
    paired_board(&hall, &game, "B", "A", Color::Black, "touched on B");
    let other = played(24, 20, false, Profile::Realistic, Some("5400+30"));
    hall.set_tags("c", Tags::from(&other.header));
    for ev in &other.events {
        hall.apply("c", ev, None);
    }

    let (tx, _controls) = mpsc::channel(1);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    tokio::spawn(serve(listener, AppState::new(hall.clone(), tx), &stop));

    let view: serde_json::Value = serde_json::from_str(&get(addr, "/api/hall").await.body).unwrap();
    let ids: Vec<&str> = view["boards"].as_array().unwrap().iter().map(|b| b["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["A+B", "c"], "the pair is one game, White's board first");
    let pair = &view["boards"][0];
    let sans: Vec<&str> = pair["moves"].as_array().unwrap().iter().map(|m| m["san"].as_str().unwrap()).collect();
    assert_eq!(sans, game.moves.iter().map(String::as_str).collect::<Vec<_>>());
    let words: Vec<&str> =
        pair["irregularities"].as_array().unwrap().iter().filter_map(|r| r["text"].as_str()).collect();
    assert_eq!(words, ["touched on A", "touched on B"], "the arbiter sees both boards' rulings");
    assert_eq!(pair["team"]["board"], 1, "the pair is the match's board 1");
    assert_eq!(view["matches"][0]["boards"].as_array().unwrap().len(), 2, "the match counts the pair once");
    assert!(pair["tags"].get("pair").is_none(), "the game is no longer one board's");

    let one: serde_json::Value = serde_json::from_str(&get(addr, "/api/game/A+B").await.body).unwrap();
    assert_eq!(one["id"], "A+B");
    assert_eq!(one["irregularities"].as_array().unwrap().len(), 2);

    let pgn = get(addr, "/games.pgn").await.body;
    assert_eq!(pgn.matches("[Event ").count(), 2, "two games, not three:\n{pgn}");
    assert_eq!(pgn.matches("[White \"White 23\"]").count(), 1, "{pgn}");
    assert!(pgn.contains("touched on A") && pgn.contains("touched on B"), "{pgn}");
    assert!(pgn.contains("[Board \"1\"]"), "{pgn}");
    assert_eq!(get(addr, "/game/A+B.pgn").await.body, hall.read(|h| h.game_pgn("A+B")).unwrap());

    // A board whose partner names another board is its own game.
    hall.set_tags(
        "B",
        Tags { pair: Some(Paired { with: "c".into(), plays: Color::Black }), ..Tags::from(&game.header) },
    );
    let ids: Vec<String> = hall.read(|h| h.games().into_iter().map(|(g, _)| g.id.clone()).collect());
    assert_eq!(ids, ["A", "B", "c"]);
    stop.cancel();
}
