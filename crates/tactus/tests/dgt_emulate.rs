//! `tactus run --dgt-emulate PATH`: a DGT client written from DGT's protocol
//! description (crates/dgt/tests/client/dgt_client.py, Python, sharing no
//! code with tactus) on the pty the daemon serves follows a game typed on
//! the simulated board — every position, in order — through field updates
//! and the dumps it asks for after each, survives garbage and a reconnect.
//! Needs python3 (./setup installs it); fails loudly without it.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::Value;
use shakmaty::{Chess, Position, uci::UciMove};

/// A bound on waiting for what must come, not a time anything should take.
const WAIT: Duration = Duration::from_secs(30);

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tactus-dgt-emulate-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn lines(r: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn next(rx: &Receiver<String>, what: &str) -> String {
    rx.recv_timeout(WAIT).unwrap_or_else(|e| panic!("{what}: nothing within {WAIT:?} ({e})"))
}

/// The daemon on a typed sim board with `time_control`, serving a DGT board
/// on a pty in a directory of `name`'s own; returned once its readiness line
/// says the line is open.
fn serve(name: &str, time_control: &str) -> (Child, ChildStdin, PathBuf) {
    serve_with(name, time_control, &[])
}

/// [`serve`], with more arguments for `tactus run`.
fn serve_with(name: &str, time_control: &str, more: &[&std::ffi::OsStr]) -> (Child, ChildStdin, PathBuf) {
    let dir = tempdir(name);
    let config = dir.join("empty.toml");
    std::fs::write(&config, "").unwrap();
    let link = dir.join("dgt");
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("run")
        .arg("--config")
        .arg(&config)
        .args(["--board", "sim", "--time-control", time_control, "--state-dir"])
        .arg(dir.join("state"))
        .args(more)
        .args(["--voice", "none", "--dgt-emulate"])
        .arg(&link)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .env("NO_COLOR", "1")
        .spawn()
        .expect("tactus runs");
    let log = lines(daemon.stderr.take().unwrap());
    while !next(&log, "the daemon's readiness line").contains("serving a DGT board at") {}
    let board_in = daemon.stdin.take().unwrap();
    (daemon, board_in, link)
}

struct Client {
    child: Child,
    stdin: ChildStdin,
    out: Receiver<String>,
}

impl Client {
    fn start(path: &std::path::Path) -> Client {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../dgt/tests/client/dgt_client.py");
        let mut child = Command::new("python3")
            .arg(script)
            .arg(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the documents-written DGT client (./setup installs python3)");
        let stdin = child.stdin.take().unwrap();
        let out = lines(child.stdout.take().unwrap());
        Client { child, stdin, out }
    }

    fn next(&self) -> Value {
        let line = next(&self.out, "the DGT client");
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("client line {line:?}: {e}"));
        assert!(v.get("error").is_none(), "the client found a fault: {v}");
        v
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
    }

    /// Every board the client sees through field updates, until `last`.
    fn follow_to(&self, last: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let v = self.next();
            if let Some(b) = v.get("board").and_then(Value::as_str) {
                seen.push(b.to_string());
                if b == last {
                    return seen;
                }
            }
        }
    }
}

/// A game with captures, castling on both sides and a check; each ply as
/// typed on the simulated board, then the mover's clock press.
const GAME: &[(&str, &str)] = &[
    ("e2e4", "e2e4"),
    ("e7e5", "e7e5"),
    ("g1f3", "g1f3"),
    ("b8c6", "b8c6"),
    ("f1c4", "f1c4"),
    ("g8f6", "g8f6"),
    ("e1- h1- g1+ f1+", "e1g1"),
    ("f6xe4", "f6e4"),
    ("c4xf7", "c4f7"),
    ("e8xf7", "e8f7"),
];

#[test]
fn a_documents_written_client_follows_a_game_served_by_the_daemon() {
    let (mut daemon, mut board_in, link) = serve("game", "-");

    let mut client = Client::start(&link);
    let mut pos = Chess::default();
    let ready = client.next();
    assert_eq!(ready["board"], pos.board().to_string(), "the dump at the introduction: {ready}");

    for (i, (typed, uci)) in GAME.iter().enumerate() {
        if i == 4 {
            // Line noise from the client, then it reopens the line mid-game.
            client.send("garbage");
            while client.next().get("survived").is_none() {}
            client.send("reconnect");
            loop {
                let v = client.next();
                if v.get("ready").is_some() {
                    assert_eq!(v["board"], pos.board().to_string(), "the dump after reconnecting");
                    break;
                }
            }
        }
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        let before = pos.board().to_string();
        pos.play_unchecked(m);
        let after = pos.board().to_string();
        writeln!(board_in, "{typed}").unwrap();
        let side = if pos.turn() == shakmaty::Color::White { "b" } else { "w" };
        writeln!(board_in, "{side}").unwrap();
        let seen = client.follow_to(&after);
        // Between two positions only one of them shows, less pieces in the air.
        let (prev, next): (shakmaty::Board, shakmaty::Board) = (before.parse().unwrap(), after.parse().unwrap());
        for b in &seen[..seen.len() - 1] {
            let shown: shakmaty::Board = b.parse().unwrap();
            assert!(
                lifted_from(&shown, &prev) || lifted_from(&shown, &next),
                "ply {}: {b} is neither {before} nor {after}, less lifted pieces",
                i + 1
            );
        }
    }
    client.send("quit");
    assert!(client.child.wait().unwrap().success(), "the client ends cleanly");
    drop(board_in); // the typed board ends: the daemon stops
    assert!(daemon.wait().unwrap().success());
}

/// `shown` is `full` with some pieces taken off (in the air).
fn lifted_from(shown: &shakmaty::Board, full: &shakmaty::Board) -> bool {
    shown.occupied().is_subset(full.occupied()) && shown.iter().all(|(sq, p)| full.piece_at(sq) == Some(p))
}

#[test]
fn the_games_clock_is_on_the_emulated_board_and_clock_commands_are_acknowledged() {
    use tactus_clockdev::DeviceKind;
    use tactus_clockdev::sim::{Saw, SimClock};
    // tactus's own clock: a client's texts and beeps go there.
    let dir = tempdir("clock-device");
    let clock_path = dir.join("tactus-clock");
    let sim = SimClock::plug(DeviceKind::Open, &clock_path).unwrap();
    let (mut daemon, mut board_in, link) = serve_with(
        "clock",
        "300+2",
        &["--clock".as_ref(), "open".as_ref(), "--clock-path".as_ref(), clock_path.as_os_str()],
    );
    let mut client = Client::start(&link);
    assert!(client.next().get("ready").is_some());
    writeln!(board_in, "e2e4\nw").unwrap();
    let mut pos = Chess::default();
    pos.play_unchecked("e2e4".parse::<UciMove>().unwrap().to_move(&pos).unwrap());
    client.follow_to(&pos.board().to_string());
    client.send("clock version");
    while client.next().get("ack").is_none() {}
    client.send("clock text e7e5");
    while client.next().get("ack").is_none() {}
    let wait = Duration::from_secs(30);
    assert!(
        sim.wait_for(wait, |s| matches!(s, Saw::Text(t) if t == "e7e5")).is_some(),
        "the client's text is on the clock"
    );
    client.send("clock beep 4");
    while client.next().get("ack").is_none() {}
    assert!(sim.wait_for(wait, |s| matches!(s, Saw::Beep(ms) if *ms > 0)).is_some(), "the client's beep");
    client.send("quit");
    assert!(client.child.wait().unwrap().success(), "the client ends cleanly");
    drop(board_in);
    assert!(daemon.wait().unwrap().success());
}
