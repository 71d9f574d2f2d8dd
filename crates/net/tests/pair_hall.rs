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

/// The hall served on a free port (the page too, from `web`) until dropped.
struct Served {
    addr: std::net::SocketAddr,
    stop: CancellationToken,
    _controls: mpsc::Receiver<tactus_net::Control>,
}

impl Served {
    async fn start(hall: &SharedHall, web: Option<&std::path::Path>) -> Served {
        let (tx, controls) = mpsc::channel(1);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = CancellationToken::new();
        let state = AppState::new(hall.clone(), tx);
        let state = match web {
            Some(dir) => state.with_web_dir(dir),
            None => state,
        };
        tokio::spawn(serve(listener, state, &stop));
        Served { addr, stop, _controls: controls }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Boards A (White) and B (Black) of a pair in a new hall, each with the
/// game of `seed` up to its first move; that game, and where its first
/// move is among its events.
fn paired_until_the_first_move(seed: u64) -> (SharedHall, common::Game, usize) {
    let hall = SharedHall::new(Hall::new("schools"));
    let game = played(seed, 10, false, Profile::Realistic, Some("5400+30"));
    let first_move = game.events.iter().position(|e| matches!(e.kind, EventKind::Move { .. })).unwrap();
    for (id, with, plays) in [("A", "B", Color::White), ("B", "A", Color::Black)] {
        hall.set_tags(id, Tags { pair: Some(Paired { with: with.into(), plays }), ..Tags::from(&game.header) });
        for ev in &game.events[..first_move] {
            hall.apply(id, ev, None);
        }
    }
    (hall, game, first_move)
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

    let served = Served::start(&hall, None).await;
    let addr = served.addr;

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
}

#[tokio::test]
async fn a_match_that_lists_both_boards_of_a_pair_counts_its_game_once() {
    // The remote school match: each school lists its own children's boards.
    let boards = ["A", "B", "c"].map(String::from).to_vec();
    let school = TeamMatch {
        name: "Schools cup".into(),
        home: Team { name: "Oakfield".into(), boards },
        away: Team { name: "Riverside".into(), boards: Vec::new() },
        white_on_odd_boards_for: HomeAway::Home,
    };
    let hall = SharedHall::new(Hall::new("schools").with_matches(vec![school]));
    let game = played(25, 12, false, Profile::Realistic, Some("5400+30"));
    paired_board(&hall, &game, "A", "B", Color::White, "touched on A");
    paired_board(&hall, &game, "B", "A", Color::Black, "touched on B");
    let over = Event {
        t: 90_000,
        kind: EventKind::GameOver {
            result: tactus_trace::GameResult::WhiteWins,
            reason: tactus_core::EndReason::Resignation,
            article: Article::A5_1_2,
            undetermined: false,
        },
    };
    hall.apply("A", &over, None);

    let score = &hall.read(|h| h.scores())[0];
    let listed: Vec<(u32, &str)> = score.boards.iter().map(|b| (b.board, b.id.as_str())).collect();
    assert_eq!(listed, [(1, "A+B"), (2, "c")], "the pair is one board of the match");
    assert_eq!((score.home.points, score.away.points), (1.0, 0.0), "its win counted once");
    let pgn = hall.read(|h| h.game_pgn("A+B")).unwrap();
    assert!(pgn.contains("[Board \"1\"]") && pgn.contains("[MatchScore \"Oakfield 1 - 0 Riverside\"]"), "{pgn}");
}

#[tokio::test]
async fn the_live_stream_names_the_pairs_game_not_its_boards() {
    let (hall, game, first_move) = paired_until_the_first_move(26);
    let served = Served::start(&hall, None).await;
    let addr = served.addr;

    let mut events = common::Events::open(addr).await;
    hall.apply("A", &game.events[first_move], None);
    hall.spoken("B", 1, "Opponent: pawn e4.");
    for _ in 0..2 {
        let (name, data) = events.next_within(std::time::Duration::from_secs(10)).await;
        assert_eq!((name.as_str(), &data["board"]), ("reset", &serde_json::json!("A+B")), "{data}");
    }
}

/// Debian's Chromium on the page the relay serves: a pair's game, followed
/// live, shows a move made on one of its boards.
#[tokio::test(flavor = "multi_thread")]
async fn chromium_follows_a_pairs_game_live() {
    use std::io::{BufRead, BufReader, Read};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    assert!(root.join("web/dist/index.html").exists(), "the page is built by ./setup (npm run build in web/)");
    assert!(std::path::Path::new("/usr/bin/chromium").exists(), "Chromium is installed by ./setup");

    let (hall, game, first_move) = paired_until_the_first_move(27);
    let served = Served::start(&hall, Some(&root.join("web/dist"))).await;
    let addr = served.addr;

    let mut live = std::process::Command::new("node")
        .arg(root.join("web/test/live.mjs"))
        .arg(format!("http://{addr}"))
        .args(["--board", "A+B", "--next", "--timeout-ms", "30000"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("node runs (./setup installs it)");
    let mut out = BufReader::new(live.stdout.take().unwrap());
    let ready = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        (line, out)
    });
    let (line, mut out) = ready.await.unwrap();
    assert!(line.starts_with("READY "), "live.mjs says when the page is ready first: {line:?}");
    // Only now is the move made, on White's board.
    for ev in &game.events[first_move..] {
        hall.apply("A", ev, None);
    }
    let (rest, status, err) = tokio::task::spawn_blocking(move || {
        let mut rest = String::new();
        out.read_to_string(&mut rest).unwrap();
        let status = live.wait().unwrap();
        let mut err = String::new();
        live.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        (rest, status, err)
    })
    .await
    .unwrap();
    assert!(status.success(), "live.mjs: {rest}\n{err}");
    let result: serde_json::Value = rest.lines().rev().find_map(|l| serde_json::from_str(l).ok()).unwrap();
    assert_eq!(result["ok"], true, "{result}");
    assert_eq!(result["san"].as_str(), Some(game.moves[0].as_str()), "{result}");
}
