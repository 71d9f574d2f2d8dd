//! The HTTP API as the page and broadcast sites use it: the PGN feed, the
//! JSON, the page's files, server-sent events in order, and the arbiter's
//! controls behind the token.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{Events, get, played, request};
use shakmaty::Color;
use tactus_net::{AppState, Control, Hall, SharedHall, Shutdown, Tags, serve};
use tactus_sim::Profile;
use tactus_trace::{Claim, GameResult, Input, OffBoardReason};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

const TOKEN: &str = "s3cret-arbiter";

struct Server {
    addr: SocketAddr,
    hall: SharedHall,
    controls: mpsc::Receiver<Control>,
    shutdown: Shutdown,
    task: JoinHandle<std::io::Result<()>>,
}

async fn server(configure: impl FnOnce(AppState) -> AppState) -> Server {
    let hall = SharedHall::new(Hall::new("club"));
    let (tx, controls) = mpsc::channel(16);
    let shutdown = Shutdown::new();
    let state = configure(AppState::new(hall.clone(), tx).with_shutdown(shutdown.clone()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(serve(listener, state));
    Server { addr, hall, controls, shutdown, task }
}

/// A board with a game on it.
fn with_game(hall: &SharedHall, board: &str, seed: u64) -> common::Game {
    let game = played(seed, 40, false, Profile::Realistic, Some("5400+30"));
    hall.set_tags(board, Tags::from(&game.header));
    for ev in &game.events {
        hall.apply(board, ev);
    }
    game
}

#[tokio::test]
async fn the_pgn_feed_and_the_json() {
    let s = server(|st| st).await;
    let game = with_game(&s.hall, "1", 11);
    with_game(&s.hall, "2", 12);

    let all = get(s.addr, "/games.pgn").await;
    assert_eq!(all.status, 200);
    assert_eq!(all.header("content-type"), Some("text/plain; charset=utf-8"));
    assert_eq!(all.body, s.hall.read(Hall::games_pgn));
    assert_eq!(all.body.matches("[Event ").count(), 2);
    let one = get(s.addr, "/game/1.pgn").await;
    assert_eq!((one.status, one.body.matches("[Event ").count()), (200, 1));
    assert_eq!(get(s.addr, "/game/9.pgn").await.status, 404);
    assert_eq!(get(s.addr, "/game/1").await.status, 404);

    let hall: serde_json::Value = serde_json::from_str(&get(s.addr, "/api/hall").await.body).unwrap();
    assert_eq!(hall["hall"], "club");
    assert_eq!(hall["matches"], serde_json::json!([]));
    let board = &hall["boards"][0];
    assert_eq!(board["id"], "1");
    assert_eq!(board["tags"]["white"], "White 11");
    let moves = board["moves"].as_array().unwrap();
    assert_eq!(moves.len(), game.moves.len());
    assert_eq!(moves[0]["ply"], 1);
    assert_eq!(moves[0]["san"], game.moves[0].as_str());
    assert!(moves[0]["uci"].is_string() && moves[0]["clock_ms"].is_i64());
    let clocks = &board["clocks"];
    assert!(clocks["white_ms"].is_i64() && clocks["black_ms"].is_i64() && clocks["at_t"].is_u64());
    assert!(clocks["running"].is_string() || clocks["running"].is_null());
    assert!(clocks["at_unix_ms"].is_u64());
    assert!(board["fen"].is_string() && board["irregularities"].is_array() && board["spoken"].is_array());
    assert!(board["team"].is_null());

    let one: serde_json::Value = serde_json::from_str(&get(s.addr, "/api/game/2").await.body).unwrap();
    assert_eq!(one["id"], "2");
    let missing = get(s.addr, "/api/game/nope").await;
    assert_eq!(missing.status, 404);
    assert!(missing.body.contains("no board"));
}

#[tokio::test]
async fn the_page_is_served_from_its_directory_or_explained() {
    let s = server(|st| st).await;
    for path in ["/", "/board/1", "/arbiter"] {
        let r = get(s.addr, path).await;
        assert_eq!(r.status, 503, "{path}");
        assert!(r.body.contains("npm run build"), "{path}: says how to build the page");
    }

    let dir = tempfile::tempdir().unwrap();
    let s = server(|st| st.with_web_dir(dir.path().join("missing"))).await;
    assert_eq!(get(s.addr, "/").await.status, 503);

    std::fs::create_dir(dir.path().join("assets")).unwrap();
    std::fs::write(dir.path().join("index.html"), "<!doctype html><title>live</title>").unwrap();
    std::fs::write(dir.path().join("assets/app.js"), "console.log(1)").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "no").unwrap();
    let s = server(|st| st.with_web_dir(dir.path())).await;
    for path in ["/", "/board/7", "/arbiter"] {
        let r = get(s.addr, path).await;
        assert_eq!((r.status, r.body.as_str()), (200, "<!doctype html><title>live</title>"), "{path}");
    }
    let js = get(s.addr, "/assets/app.js").await;
    assert_eq!((js.status, js.header("content-type")), (200, Some("text/javascript; charset=utf-8")));
    assert_eq!(get(s.addr, "/assets/nope.js").await.status, 404);
    assert_eq!(get(s.addr, "/assets/%2e%2e/secret.txt").await.status, 404);
}

#[tokio::test]
async fn events_arrive_in_order() {
    let s = server(|st| st).await;
    let mut events = Events::open(s.addr).await;
    let game = played(21, 30, false, Profile::Realistic, Some("5400+30"));
    let hall = s.hall.clone();
    let sent = game.events.clone();
    tokio::spawn(async move {
        for (i, ev) in sent.iter().enumerate() {
            hall.apply("b1", ev);
            if i == 3 {
                hall.spoken("b1", ev.t, "e4");
            }
        }
    });
    let mut seq = 0;
    let mut spoken = 0;
    let mut received = Vec::new();
    while received.len() < game.events.len() {
        let (name, data) = events.next_within(Duration::from_secs(5)).await;
        assert_eq!(data["board"], "b1");
        seq += 1;
        assert_eq!(data["seq"], seq, "consecutive sequence numbers");
        match name.as_str() {
            "board" => received.push(serde_json::from_value::<tactus_core::Event>(data["event"].clone()).unwrap()),
            "spoken" => {
                assert_eq!((data["text"].as_str(), received.len()), (Some("e4"), 4));
                spoken += 1;
            }
            other => panic!("unexpected event {other}"),
        }
    }
    assert_eq!(received, game.events, "every event, in order, as the core wrote it");
    assert_eq!(spoken, 1);
}

fn auth(token: &str) -> String {
    format!("Bearer {token}")
}

async fn post(addr: SocketAddr, path: &str, token: Option<&str>, body: &str) -> common::Response {
    let auth = token.map(auth);
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(a) = &auth {
        headers.push(("Authorization", a.as_str()));
    }
    request(addr, "POST", path, &headers, body).await
}

#[tokio::test]
async fn controls_refuse_without_the_token() {
    let s = server(|st| st.with_token(TOKEN)).await;
    with_game(&s.hall, "1", 31);
    let body = r#"{"result": "1-0", "reason": "resignation"}"#;
    let none = post(s.addr, "/api/game/1/result", None, body).await;
    assert_eq!(none.status, 401);
    assert_eq!(none.header("www-authenticate"), Some("Bearer"));
    assert_eq!(post(s.addr, "/api/game/1/result", Some("guess"), body).await.status, 403);
    assert_eq!(post(s.addr, "/api/game/1/result", Some(&format!("{TOKEN}x")), body).await.status, 403);
    for path in
        ["/api/game/1/pause", "/api/game/1/resume", "/api/game/1/clock", "/api/game/1/penalty", "/api/game/1/claim"]
    {
        assert_eq!(post(s.addr, path, None, "{}").await.status, 401, "{path}");
        assert_eq!(post(s.addr, path, Some("guess"), "{}").await.status, 403, "{path}");
    }

    // A server without a token refuses control outright.
    let open = server(|st| st.with_token("")).await;
    with_game(&open.hall, "1", 31);
    assert_eq!(post(open.addr, "/api/game/1/pause", None, "").await.status, 403);
    assert_eq!(post(open.addr, "/api/game/1/pause", Some(""), "").await.status, 403);
    assert_eq!(post(open.addr, "/api/game/1/pause", Some("anything"), "").await.status, 403);
}

#[tokio::test]
async fn accepted_controls_reach_the_board() {
    let mut s = server(|st| st.with_token(TOKEN)).await;
    with_game(&s.hall, "1", 41);
    let cases: [(&str, &str, Input); 7] = [
        (
            "result",
            r#"{"result": "0-1", "reason": "resignation"}"#,
            Input::Result { result: GameResult::BlackWins, reason: OffBoardReason::Resignation },
        ),
        (
            "result",
            r#"{"result": "1/2-1/2"}"#,
            Input::Result { result: GameResult::Draw, reason: OffBoardReason::Arbiter },
        ),
        (
            "clock",
            r#"{"white_ms": 60000, "black_ms": 125000}"#,
            Input::SetClock { white_ms: 60_000, black_ms: 125_000 },
        ),
        ("penalty", r#"{"side": "black", "ms": 120000}"#, Input::AddTime { side: Color::Black, ms: 120_000 }),
        (
            "claim",
            r#"{"side": "white", "claim": "threefold", "accept": true}"#,
            Input::Claim { side: Color::White, claim: Claim::Threefold },
        ),
        ("pause", "", Input::Pause),
        ("resume", "", Input::Resume),
    ];
    for (action, body, input) in cases {
        let r = post(s.addr, &format!("/api/game/1/{action}"), Some(TOKEN), body).await;
        assert_eq!(r.status, 202, "{action}: {}", r.body);
        let control = tokio::time::timeout(Duration::from_secs(2), s.controls.recv()).await.unwrap().unwrap();
        assert_eq!(control, Control { board: "1".into(), input }, "{action}");
    }

    // Bad requests name what is wrong; none reaches the board.
    for (action, body) in [
        ("result", r#"{"result": "2-0"}"#),
        ("result", r#"{"result": "1-0", "reason": "boredom"}"#),
        ("clock", r#"{"white_ms": -1, "black_ms": 0}"#),
        ("penalty", r#"{"side": "green", "ms": 1}"#),
        ("penalty", r#"{"side": "white", "ms": 0}"#),
        ("claim", r#"{"side": "white", "claim": "boredom", "accept": true}"#),
        ("claim", "not json"),
    ] {
        let r = post(s.addr, &format!("/api/game/1/{action}"), Some(TOKEN), body).await;
        assert_eq!(r.status, 400, "{action} {body}");
        assert!(r.body.contains("error"));
    }
    assert_eq!(post(s.addr, "/api/game/9/pause", Some(TOKEN), "").await.status, 404);
    assert!(s.controls.try_recv().is_err());

    // A rejected claim is recorded here and never reaches the core.
    let mut events = Events::open(s.addr).await;
    let body = r#"{"side": "black", "claim": "fifty", "accept": false}"#;
    let r = post(s.addr, "/api/game/1/claim", Some(TOKEN), body).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let (name, data) = events.next_within(Duration::from_secs(2)).await;
    assert_eq!(name, "arbiter");
    assert!(data["text"].as_str().unwrap().contains("rejected black's claim"));
    let game: serde_json::Value = serde_json::from_str(&get(s.addr, "/api/game/1").await.body).unwrap();
    assert_eq!(game["arbiter_notes"].as_array().unwrap().len(), 1);
    assert!(s.controls.try_recv().is_err());
}

#[tokio::test]
async fn shutdown_ends_the_event_streams_and_the_server() {
    let s = server(|st| st).await;
    let mut events = Events::open(s.addr).await;
    s.hall.spoken("1", 0, "hello");
    assert_eq!(events.next_within(Duration::from_secs(2)).await.0, "spoken");
    s.shutdown.trigger();
    let done = tokio::time::timeout(Duration::from_secs(5), s.task).await;
    assert!(matches!(done, Ok(Ok(Ok(())))), "the server stops with a client still listening");
}
