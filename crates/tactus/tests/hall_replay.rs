//! A hall's boards and relay against a stranger who plays an earlier game
//! back (issue 29, item 1): real daemons on sim boards — one board alone,
//! two boards of one game — a real mosquitto with a hall key, the real
//! relay pushing to the Lichess test server (crates/lichess/tests/server,
//! written from Lichess's published API reference), and a stranger on the
//! broker with no hall key who records every sealed message of a game and
//! publishes it all again in the next, the boards' states retained.
//! Needs mosquitto, and python3 with python-chess.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use shakmaty::san::San;
use shakmaty::{Chess, Color, Position};

mod common;
use common::http::request;
use common::lichess::LichessServer;
use common::moves::{carried_out, hands};
use common::stranger::{Recorder, play_back};
use common::{EventStream, Guard, free_port, hall, root, secret, tempdir, wait_for};

const STUDY_TOKEN: &str = "lip_study_test";
const ROUND: &str = "Round001";
const WAIT: Duration = Duration::from_secs(60);

fn get_json(port: u16, path: &str) -> Option<Value> {
    let (status, body) = request(port, "GET", path, "", "")?;
    (status == 200).then(|| serde_json::from_str(&body).ok()).flatten()
}

/// One daemon on a sim board of hall `club`, typed on; `pair`: its partner
/// and side.
struct Board {
    id: &'static str,
    pair: Option<(&'static str, Color)>,
    dir: PathBuf,
    broker: String,
    key: PathBuf,
    child: Option<Guard>,
    stdin: Option<std::process::ChildStdin>,
    events: EventStream,
}

impl Board {
    fn start(dir: &Path, broker: &str, key: &Path, id: &'static str, pair: Option<(&'static str, Color)>) -> Board {
        let mut board = Board {
            id,
            pair,
            dir: dir.to_path_buf(),
            broker: broker.to_string(),
            key: key.to_path_buf(),
            child: None,
            stdin: None,
            events: EventStream::empty(),
        };
        board.spawn();
        board.events.next("start");
        board
    }

    fn spawn(&mut self) {
        let config = self.dir.join("empty.toml");
        std::fs::write(&config, "").unwrap();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(format!("{}.log", self.id)))
            .unwrap();
        let mut c = Command::new(env!("CARGO_BIN_EXE_tactus"));
        c.arg("run")
            .arg("--config")
            .arg(config)
            .args(["--board", "sim", "--time-control", "300+2", "--voice", "none", "--events", "-"])
            .args(["--hall", "club", "--mqtt", &self.broker, "--board-id", self.id, "--hall-key"])
            .arg(&self.key)
            .arg("--state-dir")
            .arg(self.dir.join(format!("state-{}", self.id)));
        if let Some((partner, side)) = self.pair {
            let plays = if side == Color::White { "white" } else { "black" };
            c.args(["--pair-with", partner, "--plays", plays]);
        }
        let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(log).spawn().unwrap();
        self.events = EventStream::of(&mut child);
        self.stdin = child.stdin.take();
        self.child = Some(Guard(child));
    }

    fn act(&mut self, line: &str) {
        use std::io::Write;
        writeln!(self.stdin.as_mut().unwrap(), "{line}").unwrap();
    }

    /// SIGKILL, then started again with its state: the game over, a new one.
    fn next_game(&mut self) {
        drop(self.child.take());
        drop(self.stdin.take());
        self.spawn();
        self.events.next("start");
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join(format!("{}.log", self.id))).unwrap_or_default()
    }
}

/// `san` made and pressed on the board alone (both players at it).
fn alone(b1: &mut Board, pos: &mut Chess, san: &str) {
    let mv = san.parse::<San>().unwrap().to_move(pos).unwrap();
    b1.act(&hands(pos, mv).join(" "));
    b1.act(if pos.turn() == Color::White { "w" } else { "b" });
    assert_eq!(b1.events.next("complete")["san"], san);
    pos.play_unchecked(mv);
}

/// `san` made on the mover's board of the pair, carried out on the other.
fn paired(white: &mut Board, black: &mut Board, pos: &mut Chess, san: &str) {
    let mv = san.parse::<San>().unwrap().to_move(pos).unwrap();
    let (mover, other) = if pos.turn() == Color::White { (white, black) } else { (black, white) };
    mover.act(&hands(pos, mv).join(" "));
    mover.act(if pos.turn() == Color::White { "w" } else { "b" });
    assert_eq!(mover.events.next("complete")["san"], san);
    let chosen = other.events.next("opponent_move");
    assert_eq!(chosen["san"], san);
    other.act(&carried_out(&chosen));
    assert_eq!(other.events.next("complete")["san"], san);
    pos.play_unchecked(mv);
}

/// Each board number's pushed games, in order.
fn pushed(lichess: &LichessServer) -> BTreeMap<u32, Vec<Value>> {
    let mut by_board: BTreeMap<u32, Vec<Value>> = BTreeMap::new();
    for push in lichess.pushes() {
        for g in push["games"].as_array().unwrap() {
            if let Some(n) = g["tags"]["Board"].as_str().and_then(|b| b.parse().ok()) {
                by_board.entry(n).or_default().push(g.clone());
            }
        }
    }
    by_board
}

/// Whether the relay shows game `game` with these moves (SAN) and this
/// result (`Value::Null`: going on).
fn relay_shows(port: u16, game: &str, moves: &[&str], result: &Value) -> bool {
    let Some(g) = get_json(port, &format!("/api/game/{game}")) else { return false };
    let shown: Vec<&str> =
        g["moves"].as_array().map_or(Vec::new(), |m| m.iter().filter_map(|m| m["san"].as_str()).collect());
    shown == moves && g["result"] == *result
}

/// Issue 29, item 1, the hall's part: an earlier game's results and moves,
/// every sealed message of it played back by a stranger into the next game
/// (states retained as they were), reach neither the relay's feed nor a
/// Lichess push — for a board alone and for a pair's game.
#[test]
fn an_earlier_game_played_back_reaches_neither_the_relay_nor_lichess() {
    let dir = tempdir("hall-replay");
    let (broker_guard, broker, key) = hall(&dir);
    let port: u16 = broker.rsplit(':').next().unwrap().parse().unwrap();
    let lichess = LichessServer::start(&[&format!("{STUDY_TOKEN}=study:write")]);
    let relay_http = free_port();
    let token = secret(&dir, "lichess.token", &format!("{STUDY_TOKEN}\n"));
    let _relay = Guard(
        Command::new(env!("CARGO_BIN_EXE_tactus"))
            .current_dir(root())
            .args(["relay", "--broker", &broker, "--hall", "club", "--http", &format!("127.0.0.1:{relay_http}")])
            .arg("--hall-key")
            .arg(&key)
            .arg("--lichess-token-file")
            .arg(&token)
            .args(["--lichess-broadcast", ROUND, "--lichess-url", &lichess.url])
            .stderr(std::fs::File::create(dir.join("relay.log")).unwrap())
            .spawn()
            .unwrap(),
    );
    wait_for("the relay's page", WAIT, || get_json(relay_http, "/api/hall").is_some());
    let recorder = Recorder::start(port, "tactus/club/#");

    // The first game: on b1, 1. e4 e5 and White resigns; on the pair b2+b3,
    // 1. e4 e5 and White resigns.
    let mut b1 = Board::start(&dir, &broker, &key, "b1", None);
    let mut b2 = Board::start(&dir, &broker, &key, "b2", Some(("b3", Color::White)));
    let mut b3 = Board::start(&dir, &broker, &key, "b3", Some(("b2", Color::Black)));
    let (mut pos1, mut pos2) = (Chess::default(), Chess::default());
    for san in ["e4", "e5"] {
        alone(&mut b1, &mut pos1, san);
        paired(&mut b2, &mut b3, &mut pos2, san);
    }
    for board in [&mut b1, &mut b2] {
        board.act("result 0-1 resigns");
    }
    for board in [&b1, &b2, &b3] {
        assert_eq!(board.events.next("game_over")["result"], "0-1", "board {}", board.id);
    }
    let lost = Value::from("0-1");
    wait_for("the first games in the relay", WAIT, || {
        ["b1", "b2+b3"].iter().all(|g| relay_shows(relay_http, g, &["e4", "e5"], &lost))
    });
    wait_for("the first games' results pushed", WAIT, || {
        let p = pushed(&lichess);
        [1, 2].iter().all(|n| p.get(n).and_then(|g| g.last()).is_some_and(|g| g["tags"]["Result"] == "0-1"))
    });
    let first_game = recorder.recorded();
    assert!(first_game.iter().any(|(t, _)| t.ends_with("/state")), "the boards' states recorded");
    assert!(first_game.iter().any(|(t, _)| t.contains("/pair/")), "the pair's messages recorded");

    // The next game on each board.
    for board in [&mut b1, &mut b2, &mut b3] {
        board.next_game();
    }
    let (mut pos1, mut pos2) = (Chess::default(), Chess::default());
    alone(&mut b1, &mut pos1, "d4");
    paired(&mut b2, &mut b3, &mut pos2, "d4");
    wait_for("the next games in the relay", WAIT, || {
        ["b1", "b2+b3"].iter().all(|g| relay_shows(relay_http, g, &["d4"], &Value::Null))
    });
    let pushes_before = lichess.pushes().len();
    wait_for("the next games pushed", WAIT, || {
        let p = pushed(&lichess);
        [1, 2].iter().all(|n| p.get(n).and_then(|g| g.last()).is_some_and(|g| g["moves"] == serde_json::json!(["d4"])))
    });

    // The stranger plays the first game back, then the boards play on.
    play_back(port, &first_game);
    for san in ["d5", "c4"] {
        alone(&mut b1, &mut pos1, san);
        paired(&mut b2, &mut b3, &mut pos2, san);
    }
    let now = ["d4", "d5", "c4"];
    wait_for("the next games played on, in the relay", WAIT, || {
        ["b1", "b2+b3"].iter().all(|g| relay_shows(relay_http, g, &now, &Value::Null))
    });
    wait_for("and pushed", WAIT, || {
        let p = pushed(&lichess);
        [1, 2].iter().all(|n| p.get(n).and_then(|g| g.last()).is_some_and(|g| g["moves"] == serde_json::json!(now)))
    });
    // No push since the next game began held the first game's moves or result.
    let pushes = lichess.pushes();
    for push in &pushes[pushes_before..] {
        for g in push["games"].as_array().unwrap() {
            assert_eq!(g["tags"]["Result"], "*", "a result of the earlier game pushed: {g}");
            assert_eq!(g["moves"][0], "d4", "the earlier game's moves pushed: {g}");
        }
    }
    let said = std::fs::read_to_string(dir.join("relay.log")).unwrap();
    assert!(said.contains("replayed?"), "the relay said it refused what came again:\n{said}");
    // The boards put their own states back over the ones played back.
    wait_for("b1 to put its state back", WAIT, || b1.log().contains("someone else wrote to its state topic"));
    drop(broker_guard);
}
