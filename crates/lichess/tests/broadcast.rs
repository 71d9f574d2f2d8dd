//! Broadcast pushes against the test server (written from Lichess's API
//! reference), which reads every pushed game strictly with python-chess:
//! a hall of a dozen boards pushed to the end, a game's error reported
//! for its board, a 429 respected, a hall larger than a round.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use common::{STUDY_TOKEN, Server};
use serde_json::{Value, json};
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, Move, Position};
use tactus_core::pgn::{Tags, Written, write_movetext, write_tags};
use tactus_lichess::broadcast::{PushOptions, PushStatus, Pusher, RoundSpec};
use tactus_lichess::http::{Client, Settings};
use tactus_lichess::token::Token;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

const PAUSE: Duration = Duration::from_secs(2);
const LIMIT: Duration = Duration::from_secs(90);

/// A board's game as the relay has it after `plies` moves: tactus-core's
/// PGN writer, with the tags Lichess's broadcasts read and a clock on
/// every move.
struct HallGame {
    board: u32,
    moves: Vec<Move>,
    sans: Vec<String>,
    result: &'static str,
}

impl HallGame {
    fn new(board: u32, seed: u64) -> HallGame {
        let spec = tactus_sim::random_game(seed, 60, false);
        let mut pos = Chess::default();
        let mut sans = Vec::new();
        for &m in &spec.moves {
            sans.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
        }
        let result = if pos.is_checkmate() {
            if pos.turn() == Color::White { "0-1" } else { "1-0" }
        } else if pos.is_game_over() {
            "1/2-1/2"
        } else {
            "1-0" // a resignation, as the arbiter set it
        };
        HallGame { board, moves: spec.moves, sans, result }
    }

    fn pgn(&self, plies: usize) -> String {
        let result = if plies == self.moves.len() { self.result } else { "*" };
        let (white, black) = (format!("White {}", self.board), format!("Black {}", self.board));
        let mut out = String::new();
        let tags = Tags {
            event: Some("tactus hall"),
            site: Some("Club hall"),
            date: Some("2026.05.01"),
            round: Some("1"),
            white: Some(&white),
            black: Some(&black),
            result,
            extra: vec![
                ("Board", self.board.to_string()),
                ("WhiteTeam", "Club A".into()),
                ("BlackTeam", "Club B".into()),
            ],
            time_control: Some("5400+30"),
            ..Tags::default()
        };
        write_tags(&mut out, &tags);
        let written = self.sans[..plies].iter().enumerate().map(|(i, san)| Written {
            san,
            clock_ms: Some(5_400_000 - 7_000 * i as i64),
            before: Vec::new(),
            comments: Vec::new(),
            stood_illegal: false,
        });
        write_movetext(&mut out, 1, Color::White, written, &[], result);
        out
    }
}

fn pusher(server: &Server, rounds: &[&str]) -> Pusher {
    let client = server.client(STUDY_TOKEN, PAUSE, Duration::from_secs(20));
    let rounds: Vec<RoundSpec> = rounds.iter().map(|r| r.parse().unwrap()).collect();
    Pusher::start(client, PushOptions::new(rounds).unwrap(), &TaskTracker::new(), &CancellationToken::new())
}

/// Each board's last pushed game on the server: its tags, moves and clocks, or its error.
fn last_pushed(pushes: &[Value]) -> BTreeMap<u32, Value> {
    let mut last = BTreeMap::new();
    for push in pushes {
        for g in push["games"].as_array().unwrap() {
            let board = g["tags"]["Board"].as_str().and_then(|b| b.parse().ok()).unwrap_or(0);
            last.insert(board, g.clone());
        }
    }
    last
}

async fn pushes(server: &Server) -> Vec<Value> {
    server.get("/_test/pushes").await.as_array().unwrap().clone()
}

/// Waits, push after push, until every game is on the server as it ended.
async fn until_all_pushed(server: &Server, games: &[HallGame]) -> Vec<Value> {
    let wait = async {
        loop {
            let all = pushes(server).await;
            let last = last_pushed(&all);
            let done = games.iter().all(|g| {
                last.get(&g.board).is_some_and(|p| {
                    p["moves"].as_array().map(Vec::len) == Some(g.sans.len()) && p["tags"]["Result"] == g.result
                })
            });
            if done {
                return all;
            }
            server.wait_pushes(all.len() + 1).await;
        }
    };
    tokio::time::timeout(LIMIT, wait).await.expect("every game pushed whole")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hall_of_a_dozen_boards_is_pushed_to_the_end_every_game_strict() {
    let server = Server::start(7.0);
    let pusher = pusher(&server, &["Round001"]);
    let games: Vec<HallGame> = (1..=12).map(|b| HallGame::new(b, 100 + u64::from(b))).collect();
    let longest = games.iter().map(|g| g.moves.len()).max().unwrap();
    // The boards move together, a ply every 50 ms: a hall at a brisk pace.
    for ply in 0..=longest {
        for g in &games {
            if ply <= g.moves.len() {
                pusher.set_game(g.board, g.pgn(ply)).unwrap();
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let all = until_all_pushed(&server, &games).await;
    for push in &all {
        assert_eq!(push["round"], "Round001");
        for g in push["games"].as_array().unwrap() {
            assert!(g.get("error").is_none(), "every pushed game reads strictly: {g}");
        }
    }
    let last = last_pushed(&all);
    for g in &games {
        let p = &last[&g.board];
        let moves: Vec<&str> = p["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        assert_eq!(moves, g.sans, "board {}", g.board);
        let clocks = p["clocks"].as_array().unwrap();
        assert!(
            clocks.iter().enumerate().all(|(i, c)| c.as_f64() == Some(5400.0 - 7.0 * i as f64)),
            "board {}: {clocks:?}",
            g.board
        );
        assert_eq!(p["tags"]["White"], format!("White {}", g.board));
        assert_eq!(p["tags"]["WhiteTeam"], "Club A");
    }
    // At most about one push a second.
    let times: Vec<f64> = all.iter().map(|p| p["t"].as_f64().unwrap()).collect();
    let span = times.last().unwrap() - times[0];
    let rate = (times.len() - 1) as f64 / span.max(1.0);
    assert!(rate <= 2.0, "{} pushes in {span:.1} s", times.len());
    for w in times.windows(2) {
        assert!(w[1] - w[0] >= 0.9, "two pushes {:.3} s apart", w[1] - w[0]);
    }
    let status = pusher.status().borrow().clone();
    assert!(status.errors.is_empty() && status.failing.is_none(), "{status:?}");
    assert!(status.pushes as usize >= all.len());
}

async fn until_status(pusher: &Pusher, what: &str, f: impl Fn(&PushStatus) -> bool) -> PushStatus {
    let mut rx = pusher.status();
    let wait = async {
        loop {
            {
                let s = rx.borrow_and_update();
                if f(&s) {
                    return s.clone();
                }
            }
            rx.changed().await.expect("the pusher runs");
        }
    };
    tokio::time::timeout(LIMIT, wait).await.unwrap_or_else(|_| panic!("no {what}: {:?}", pusher.status().borrow()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_games_error_is_reported_for_its_board() {
    let server = Server::start(7.0);
    let pusher = pusher(&server, &["Round001"]);
    let good = HallGame::new(1, 1);
    pusher.set_game(1, good.pgn(10)).unwrap();
    // Board 2's record has a move that is not legal there.
    let bad = HallGame::new(2, 2).pgn(6).replacen("1. ", "1. Ke5 ", 1);
    pusher.set_game(2, bad).unwrap();
    let status = until_status(&pusher, "board 2's error", |s| s.errors.contains_key(&2)).await;
    assert!(!status.errors.contains_key(&1), "{status:?}");
    assert!(status.errors[&2].contains("python-chess") || status.errors[&2].contains("SAN"), "{status:?}");
    // Fixed, it is pushed again and the error goes.
    pusher.set_game(2, HallGame::new(2, 2).pgn(6)).unwrap();
    until_status(&pusher, "board 2 fixed", |s| s.errors.is_empty()).await;
    assert!(pusher.set_game(101, good.pgn(1)).unwrap_err().to_string().contains("no broadcast round"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_429_nothing_is_pushed_for_the_pause() {
    let server = Server::start(7.0);
    server.post("/_test/fault", json!({"path": "/push$", "status": 429})).await;
    let pusher = pusher(&server, &["Round001"]);
    let g = HallGame::new(1, 5);
    pusher.set_game(1, g.pgn(4)).unwrap();
    server.wait_requests("POST /api/broadcast/", 1).await;
    pusher.set_game(1, g.pgn(5)).unwrap();
    let games = [HallGame { board: 1, moves: g.moves[..5].to_vec(), sans: g.sans[..5].to_vec(), result: "*" }];
    until_all_pushed(&server, &games).await;
    let log = server.log().await;
    let times: Vec<(f64, Value)> = log.iter().map(|e| (e["t"].as_f64().unwrap(), e["status"].clone())).collect();
    assert_eq!(times[0].1, 429);
    assert!(
        times[1].0 - times[0].0 >= PAUSE.as_secs_f64() - 0.01,
        "the next push {:.3} s after the 429",
        times[1].0 - times[0].0
    );
    assert!(until_status(&pusher, "a push", |s| s.last_ok.is_some()).await.failing.is_none());
}

/// What changed during the pause goes in the first push after it: the
/// push is made when the pause is over, not made at once and held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_push_after_a_429_holds_what_changed_during_the_pause() {
    let server = Server::start(7.0);
    server.post("/_test/fault", json!({"path": "/push$", "status": 429})).await;
    // Long enough that the pause is still on when a loaded machine has
    // noticed it (4 s to spare).
    let pause = Duration::from_secs(8);
    let client = server.client(STUDY_TOKEN, pause, Duration::from_secs(20));
    let options = PushOptions::new(vec!["Round001".parse().unwrap()]).unwrap();
    let pusher = Pusher::start(client, options, &TaskTracker::new(), &CancellationToken::new());
    let g = HallGame::new(1, 5);
    pusher.set_game(1, g.pgn(4)).unwrap();
    let paused = until_status(&pusher, "the pause", |s| s.paused_until.is_some()).await;
    // Well into the pause (past the pusher's interval), the game changes.
    tokio::time::sleep_until((paused.paused_until.unwrap() - pause / 2).into()).await;
    pusher.set_game(1, g.pgn(6)).unwrap();
    server.wait_pushes(1).await;
    let first = &pushes(&server).await[0];
    assert_eq!(first["games"][0]["moves"].as_array().map(Vec::len), Some(6), "{first}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hall_larger_than_a_round_goes_to_its_rounds() {
    let server = Server::start(7.0);
    let pusher = pusher(&server, &["Round001=1-100", "Round002=101-200"]);
    let games: Vec<HallGame> = (1..=150).map(|b| HallGame::new(b, u64::from(b))).collect();
    for g in &games {
        pusher.set_game(g.board, Arc::<str>::from(g.pgn(g.moves.len()))).unwrap();
    }
    let all = until_all_pushed(&server, &games).await;
    for push in &all {
        let range = if push["round"] == "Round001" { 1..=100 } else { 101..=200 };
        let boards: Vec<u32> = push["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["tags"]["Board"].as_str().unwrap().parse().unwrap())
            .collect();
        assert!(boards.len() <= 100 && boards.iter().all(|b| range.contains(b)), "{}: {boards:?}", push["round"]);
    }
}

/// The test server itself: what python-chess cannot read exactly is the
/// game's error, and the reply lists the games in the order pushed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_reads_every_pushed_game_strictly() {
    let server = Server::start(7.0);
    let client = server.client(STUDY_TOKEN, PAUSE, Duration::from_secs(20));
    let good = HallGame::new(1, 9).pgn(6);
    let cases = [
        ("good", good.clone()),
        ("a move without its clock", good.replacen("{[%clk 1:30:00]} ", "", 1)),
        ("a clock python-chess cannot read", good.replacen("[%clk 1:30:00]", "[%clk 1:3x:00]", 1)),
        ("the Result tag against the movetext", good.replacen("[Result \"*\"]", "[Result \"1-0\"]", 1)),
        ("a move that is not SAN", good.replacen("1. ", "1. e2e4 ", 1)),
        ("no Result tag", good.replacen("[Result \"*\"]\n", "", 1)),
    ];
    let body: String = cases.iter().map(|(_, pgn)| pgn.clone()).collect();
    let reply = client.push_pgn("Round001", body).await.unwrap();
    assert_eq!(reply.games.len(), cases.len());
    assert!(reply.games[0].error.is_none() && reply.games[0].moves == Some(6), "{:?}", reply.games[0]);
    for ((what, pgn), game) in cases.iter().zip(&reply.games).skip(1) {
        assert!(game.error.is_some(), "{what}: not refused:\n{pgn}");
    }
    // Not a game at all, and a token without the scope.
    let e = client.push_pgn("Round001", "hello".into()).await.unwrap_err();
    assert!(e.to_string().contains("400"), "{e}");
    let board = server.client(common::BOARD_TOKEN, PAUSE, Duration::from_secs(20));
    let e = board.push_pgn("Round001", good).await.unwrap_err();
    assert!(e.to_string().contains("403"), "{e}");
}

/// The pusher and its client's connections are its owner's: they run on the
/// owner's tracker, and once the owner's token is cancelled they all end,
/// so that the owner can wait for them (hyper's connection drivers used to
/// be detached tasks nobody could wait for).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pusher_and_its_connections_end_with_their_owner() {
    let server = Server::start(7.0);
    let (tasks, stop) = (TaskTracker::new(), CancellationToken::new());
    let settings = Settings { url: server.url.clone(), tasks: tasks.clone(), ..Settings::default() };
    let client = Client::new(Token::new(STUDY_TOKEN).unwrap(), settings).unwrap();
    let options = PushOptions::new(vec!["Round001".parse().unwrap()]).unwrap();
    let pusher = Pusher::start(client, options, &tasks, &stop);
    pusher.set_game(1, HallGame::new(1, 3).pgn(4)).unwrap();
    until_status(&pusher, "a push", |s| s.last_ok.is_some()).await;
    // The pusher, and the driver of the connection it keeps for the next push.
    assert_eq!(tasks.len(), 2, "the pusher and its connection run on the owner's tracker");
    tasks.close();
    stop.cancel();
    tokio::time::timeout(LIMIT, tasks.wait()).await.expect("the pusher and its connection end with the token");
    assert!(pusher.status().has_changed().is_err(), "the pusher has stopped");
}
