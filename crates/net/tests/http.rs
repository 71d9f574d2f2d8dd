//! The HTTP API as the page and broadcast sites use it: the PGN feed, the
//! JSON, the page's files, server-sent events in order, and the arbiter's
//! controls behind the token.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{Events, get, played, request};
use shakmaty::Color;
use tactus_net::{AppState, Control, Hall, Limits, SharedHall, Tags, serve};
use tactus_sim::Profile;
use tactus_speech::{Lang, Scribe, Style, Words};
use tactus_trace::{Claim, GameResult, Input, OffBoardReason};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

const TOKEN: &str = "s3cret-arbiter";

struct Server {
    addr: SocketAddr,
    hall: SharedHall,
    controls: mpsc::Receiver<Control>,
    stop: CancellationToken,
    task: JoinHandle<std::io::Result<()>>,
}

async fn server(configure: impl FnOnce(AppState) -> AppState) -> Server {
    let hall = SharedHall::new(Hall::new("club"));
    let (tx, controls) = mpsc::channel(16);
    let stop = CancellationToken::new();
    let state = configure(AppState::new(hall.clone(), tx));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(serve(listener, state, &stop));
    Server { addr, hall, controls, stop, task }
}

/// A board with a game on it.
fn with_game(hall: &SharedHall, board: &str, seed: u64) -> common::Game {
    let game = played(seed, 40, false, Profile::Realistic, Some("5400+30"));
    hall.set_tags(board, Tags::from(&game.header));
    for ev in &game.events {
        hall.apply(board, ev, None);
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

/// The board's words come with its rulings, live and on record: each
/// `board` update the page shows as a ruling or a note has the `text` the
/// board wrote for it, a move has none; the game's record keeps them.
#[tokio::test]
async fn a_boards_words_come_with_its_rulings() {
    let s = server(|st| st).await;
    let mut live = Events::open(s.addr).await;
    let game = played(23, 120, false, Profile::Irregular, Some("300+3"));
    let mut scribe = Scribe::new(Words::new(Lang::Ru, Style::Natural));
    let texts: Vec<Option<String>> = game.events.iter().map(|ev| scribe.write(ev)).collect();
    let hall = s.hall.clone();
    let (events, sent) = (game.events.clone(), texts.clone());
    tokio::spawn(async move {
        for (ev, text) in events.iter().zip(&sent) {
            hall.apply("b1", ev, text.as_deref());
        }
    });
    let mut worded = 0;
    for (ev, text) in game.events.iter().zip(&texts) {
        let (name, data) = live.next_within(Duration::from_secs(30)).await;
        assert_eq!((name.as_str(), &data["event"]), ("board", &serde_json::to_value(ev).unwrap()));
        assert_eq!(data["text"].as_str(), text.as_deref(), "{data}");
        worded += usize::from(text.is_some());
    }
    assert!(worded >= 2, "a ruling and its penalty came with words: {worded}");
    let board: serde_json::Value = serde_json::from_str(&get(s.addr, "/api/game/b1").await.body).unwrap();
    let kept: Vec<&serde_json::Value> = board["irregularities"].as_array().unwrap().iter().collect();
    assert!(!kept.is_empty());
    for r in kept {
        let text = r["text"].as_str().unwrap_or_else(|| panic!("a ruling on record without its words: {r}"));
        assert!(text.chars().any(|c| ('а'..='я').contains(&c)), "in the board's language: {text}");
    }
    if board["result"].is_string() {
        assert!(board["end_text"].is_string(), "{board}");
    }
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
            hall.apply("b1", ev, None);
            if i == 3 {
                hall.spoken("b1", ev.t, "e4");
            }
        }
    });
    let mut seq = 0;
    let mut spoken = 0;
    let mut received = Vec::new();
    while received.len() < game.events.len() {
        let (name, data) = events.next_within(Duration::from_secs(30)).await;
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
        let control = tokio::time::timeout(Duration::from_secs(30), s.controls.recv()).await.unwrap().unwrap();
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
    let (name, data) = events.next_within(Duration::from_secs(30)).await;
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
    assert_eq!(events.next_within(Duration::from_secs(30)).await.0, "spoken");
    s.stop.cancel();
    let done = tokio::time::timeout(Duration::from_secs(5), s.task).await;
    assert!(matches!(done, Ok(Ok(Ok(())))), "the server stops with a client still listening");
}

#[tokio::test]
async fn arbiter_values_are_range_checked() {
    let mut s = server(|st| st.with_token(TOKEN)).await;
    with_game(&s.hall, "1", 43);
    for (action, body, says) in [
        (
            "penalty",
            r#"{"side": "white", "ms": 18446744073709551615}"#,
            "ms must be a whole number of milliseconds from 0 to 3600000",
        ),
        ("penalty", r#"{"side": "white", "ms": 18446744073709551616}"#, "ms must be"),
        ("penalty", r#"{"side": "white", "ms": 3600001}"#, "ms must be"),
        ("penalty", r#"{"side": "white", "ms": 0}"#, "more than 0"),
        ("penalty", r#"{"side": "white", "ms": 1.5}"#, "ms must be"),
        ("penalty", r#"{"side": "white", "ms": -60000}"#, "ms must be"),
        (
            "clock",
            r#"{"white_ms": 36000000, "black_ms": 60000}"#,
            "white_ms must be a whole number of milliseconds from 0 to 35999000",
        ),
        ("clock", r#"{"white_ms": 60000, "black_ms": 99999999999999}"#, "black_ms must be"),
        ("clock", r#"{"white_ms": 60000}"#, "black_ms is missing"),
    ] {
        let r = post(s.addr, &format!("/api/game/1/{action}"), Some(TOKEN), body).await;
        assert_eq!(r.status, 400, "{action} {body}: {}", r.body);
        let e: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        assert!(e["error"].as_str().unwrap().contains(says), "{action} {body}: {}", r.body);
    }
    assert!(s.controls.try_recv().is_err(), "nothing out of range reaches the board");
    // The largest values in range pass.
    let r = post(s.addr, "/api/game/1/penalty", Some(TOKEN), r#"{"side": "white", "ms": 3600000}"#).await;
    assert_eq!(r.status, 202, "{}", r.body);
    let r = post(s.addr, "/api/game/1/clock", Some(TOKEN), r#"{"white_ms": 35999000, "black_ms": 0}"#).await;
    assert_eq!(r.status, 202, "{}", r.body);
    // A body larger than any action is refused before it is read whole.
    let big = format!(r#"{{"side": "white", "ms": 1, "pad": "{}"}}"#, "x".repeat(64 * 1024));
    assert_eq!(post(s.addr, "/api/game/1/penalty", Some(TOKEN), &big).await.status, 413);
}

#[tokio::test]
async fn a_board_that_takes_no_actions_answers_503_and_says_why() {
    use tactus_core::{Article, EndReason, Event, EventKind};
    let s = server(|st| st.with_token(TOKEN)).await;
    with_game(&s.hall, "1", 44);
    s.hall.apply(
        "1",
        &Event {
            t: 999_999,
            kind: EventKind::GameOver {
                result: "0-1".parse().unwrap(),
                reason: EndReason::Resignation,
                article: Article::A5_1_2,
                undetermined: false,
            },
        },
        None,
    );
    let r = post(s.addr, "/api/game/1/penalty", Some(TOKEN), r#"{"side": "white", "ms": 60000}"#).await;
    assert_eq!(r.status, 503);
    assert!(r.body.contains("is over (0-1)"), "{}", r.body);
    let game: serde_json::Value = serde_json::from_str(&get(s.addr, "/api/game/1").await.body).unwrap();
    assert_eq!(game["clocks"]["running"], serde_json::Value::Null, "no clock runs after the end");

    // A relay's board that was listed but never heard from.
    let hall = SharedHall::new(Hall::new("club").with_matches(vec![tactus_net::TeamMatch {
        name: "M".into(),
        home: tactus_net::Team { name: "A".into(), boards: vec!["m1".into()] },
        away: tactus_net::Team { name: "B".into(), boards: Vec::new() },
        white_on_odd_boards_for: tactus_net::HomeAway::Home,
    }]));
    let (tx, _rx) = mpsc::channel(1);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve(listener, AppState::new(hall.clone(), tx).with_token(TOKEN), &CancellationToken::new()));
    let r = post(addr, "/api/game/m1/pause", Some(TOKEN), "").await;
    assert_eq!(r.status, 503);
    assert!(r.body.contains("not been heard from"), "{}", r.body);

    // A server that takes no actions at all says so.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    with_game(&hall, "m1", 45);
    tokio::spawn(serve(
        listener,
        AppState::read_only(hall, "control is off here").with_token(TOKEN),
        &CancellationToken::new(),
    ));
    let r = post(addr, "/api/game/m1/pause", Some(TOKEN), "").await;
    assert_eq!((r.status, r.body.contains("control is off here")), (503, true), "{}", r.body);
}

/// Reads until the server closes the connection; what it sent.
async fn until_closed(stream: &mut tokio::net::TcpStream) -> String {
    use tokio::io::AsyncReadExt;
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut out)).await.expect("closed in time");
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn silent_and_trickling_clients_are_closed_and_never_crowd_out_others() {
    use tokio::io::AsyncWriteExt;
    let limits =
        Limits { max_connections: 8, max_viewers: 2, header_timeout: Duration::from_millis(300), ..Limits::default() };
    let s = server(|st| st.with_limits(limits)).await;
    with_game(&s.hall, "1", 46);

    // One that says nothing, one that sends half a request head: both are
    // closed once the head is overdue.
    let mut silent = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let mut half = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    half.write_all(b"GET /games.pgn HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    until_closed(&mut silent).await;
    until_closed(&mut half).await;

    // A keep-alive connection that goes quiet after a reply is closed too.
    let mut kept = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    kept.write_all(b"GET /api/game/1 HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    assert!(until_closed(&mut kept).await.starts_with("HTTP/1.1 200"));

    // With every place taken by idle connections (on a server that would
    // wait a minute for their heads), a new client still gets in: the
    // oldest idle one makes room at once.
    let patient = server(|st| st.with_limits(Limits { header_timeout: Duration::from_secs(60), ..limits })).await;
    let mut idle = Vec::new();
    for _ in 0..8 {
        idle.push(tokio::net::TcpStream::connect(patient.addr).await.unwrap());
    }
    for _ in 0..20 {
        assert_eq!(get(patient.addr, "/games.pgn").await.status, 200);
    }
    let mut oldest = idle.remove(0);
    until_closed(&mut oldest).await;

    // Live viewers are bounded: the third gets 503 and a reason.
    let _one = common::Events::open(s.addr).await;
    let _two = common::Events::open(s.addr).await;
    let third = get(s.addr, "/events").await;
    assert_eq!(third.status, 503);
    assert!(third.body.contains("viewers"), "{}", third.body);
    drop(_one);
    common::eventually(Duration::from_secs(10), "a viewer's place to come free", async || {
        get(s.addr, "/api/hall").await.status == 200 && {
            let mut e = tokio::net::TcpStream::connect(s.addr).await.unwrap();
            e.write_all(b"GET /events HTTP/1.0\r\n\r\n").await.unwrap();
            let mut head = [0u8; 12];
            use tokio::io::AsyncReadExt;
            e.read_exact(&mut head).await.is_ok() && head.ends_with(b"200")
        }
    })
    .await;
}

/// A head that comes in pieces is answered; one larger than the server
/// takes (a client filling the connection's buffer) is refused with 431,
/// and a body sent with its head still reaches the action.
#[tokio::test]
async fn request_heads_are_taken_in_pieces_and_bounded() {
    use tokio::io::AsyncWriteExt;
    let s = server(|st| st).await;
    with_game(&s.hall, "1", 47);
    let mut pieces = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    for piece in ["GET /api/ga", "me/1 HTTP/1.0\r\nHo", "st: x\r\n", "\r\n"] {
        pieces.write_all(piece.as_bytes()).await.unwrap();
        pieces.flush().await.unwrap();
        tokio::task::yield_now().await;
    }
    let reply = until_closed(&mut pieces).await;
    assert!(reply.starts_with("HTTP/1.0 200") && reply.contains("\"id\":\"1\""), "{reply}");

    let mut huge = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let head = format!("GET /games.pgn HTTP/1.1\r\nHost: x\r\nX-Filler: {}\r\n\r\n", "f".repeat(tactus_net::MAX_HEAD));
    let _ = huge.write_all(head.as_bytes()).await;
    let reply = until_closed(&mut huge).await;
    assert!(reply.starts_with("HTTP/1.1 431"), "{reply}");
}

#[tokio::test]
async fn the_client_holding_the_most_connections_makes_room_first() {
    let limits = Limits { max_connections: 8, header_timeout: Duration::from_secs(60), ..Limits::default() };
    let s = server(|st| st.with_limits(limits)).await;
    // One quiet connection of an ordinary client, then seven of another address.
    let mine = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let mut theirs = Vec::new();
    for _ in 0..7 {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
        theirs.push(socket.connect(s.addr).await.unwrap());
    }
    // Full: a new request makes room by closing one of the seven.
    assert_eq!(get(s.addr, "/games.pgn").await.status, 200);
    let closed = futures_util::future::select_all(theirs.iter_mut().map(|t| Box::pin(until_closed(t)))).await;
    assert_eq!(closed.0, "");
    let mut buf = [0u8; 1];
    let still = mine.try_read(&mut buf);
    assert!(matches!(still, Err(ref e) if e.kind() == std::io::ErrorKind::WouldBlock), "{still:?}");
}

#[test]
fn connections_follow_the_limit_on_open_files() {
    assert_eq!(Limits::connections_for(1024), 768);
    assert_eq!(Limits::connections_for(4096), 2048);
    assert_eq!(Limits::connections_for(100), 64);
}

#[test]
fn the_token_comes_from_a_file_or_the_environment() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("token");
    std::fs::write(&path, "s3cret\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    assert_eq!(tactus_net::arbiter_token(Some(&path)).unwrap().as_deref(), Some("s3cret"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = tactus_net::arbiter_token(Some(&path)).unwrap_err().to_string();
    assert!(e.contains("token") && e.contains("every user"), "{e}");
}

/// A client that asks for a large reply and never reads it keeps its
/// connection (and the reply, in memory) only until the write timeout: then
/// the connection is closed, short of the reply, and its place is free.
#[tokio::test]
async fn a_client_that_never_reads_its_reply_is_closed_after_the_write_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let web = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(web.path().join("assets")).unwrap();
    // Far more than the kernel buffers of a loopback connection whose
    // reader keeps a small window.
    let size = 16 << 20;
    std::fs::write(web.path().join("assets/big.js"), vec![b'x'; size]).unwrap();
    let limits = Limits { write_timeout: Duration::from_millis(300), ..Limits::default() };
    let s = server(|st| st.with_web_dir(web.path()).with_limits(limits)).await;
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut client = socket.connect(s.addr).await.unwrap();
    client.write_all(b"GET /assets/big.js HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    // The scenario: the client reads nothing for a second.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut got = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(30), client.read_to_end(&mut got)).await;
    assert!(read.is_ok(), "the connection ends");
    assert!(got.starts_with(b"HTTP/1.1 200"), "the reply began");
    assert!(got.len() < size, "the reply was cut off after the write timeout: {} bytes of {size} came", got.len());
    // Others are answered meanwhile and after.
    assert_eq!(get(s.addr, "/games.pgn").await.status, 200);
}
