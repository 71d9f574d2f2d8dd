//! Playing online, measured end to end: the real daemon on the sim board
//! against the Lichess test server (crates/lichess/tests/server), random
//! games as White. Both sides stamp on CLOCK_MONOTONIC, so across the two
//! processes:
//!
//! - press → move POST: from the bench writing the clock press to the
//!   server receiving `POST /api/board/game/{id}/move/{uci}` (the sim
//!   board's line, the game task, the journal's sync, the request);
//! - opponent line → `opponent_move`: from the server writing the
//!   `gameState` line with the opponent's move to the bench reading the
//!   event on the daemon's standard output;
//! - reconnect: from the server dropping the game stream to the daemon's
//!   next `GET /api/board/game/stream/{id}` (a back-off of 1 s ± 20 %);
//! - memory: the daemon's resident set at the start of a game, after its
//!   moves, and after keep-alive lines on both streams worth hours of play
//!   at Lichess's spacing (about one every 7 s), sent at 5 ms.
//!
//! `cargo bench -p tactus --bench lichess_play`. Needs python3 with
//! python-chess.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position, Role, Square};

const TOKEN: &str = "lip_board_bench";
const GAMES: usize = 4;
const PLIES: usize = 60;
/// Lichess's spacing of keep-alive lines, roughly.
const KEEPALIVE_S: f64 = 7.0;

fn mono() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }
}

fn hands(pos: &Chess, mv: Move) -> String {
    let edges: Vec<String> = match mv {
        Move::Castle { king, rook } => {
            let side = if king < rook { shakmaty::CastlingSide::KingSide } else { shakmaty::CastlingSide::QueenSide };
            let turn = pos.turn();
            vec![
                format!("{king}-"),
                format!("{}+", side.king_to(turn)),
                format!("{rook}-"),
                format!("{}+", side.rook_to(turn)),
            ]
        }
        Move::EnPassant { from, to } => {
            vec![format!("{from}-"), format!("{to}+"), format!("{}-", Square::from_coords(to.file(), from.rank()))]
        }
        Move::Normal { from, to, capture, .. } => {
            let mut out = Vec::new();
            if capture.is_some() {
                out.push(format!("{to}-"));
            }
            out.extend([format!("{from}-"), format!("{to}+")]);
            out
        }
        Move::Put { .. } => unreachable!(),
    };
    edges.join(" ")
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn summary(name: &str, v: &mut [f64], unit: &str) {
    println!(
        "{name}: n {}, p50 {:.2} {unit}, p95 {:.2} {unit}, max {:.2} {unit}",
        v.len(),
        pct(v, 0.5),
        pct(v, 0.95),
        pct(v, 1.0)
    );
}

struct Server {
    child: Child,
    url: String,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(keepalive: f64) -> Server {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lichess/tests/server/lichess_server.py");
        let mut child = Command::new("python3")
            .arg(script)
            .args(["--user", "Player", "--token", &format!("{TOKEN}=board:play")])
            .args(["--keepalive", &keepalive.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the Lichess test server (python-chess required)");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().strip_prefix("listening on ").expect("the test server started").to_string();
        let port = url.rsplit(':').next().unwrap().parse().unwrap();
        Server { child, url, port }
    }

    fn call(&self, method: &str, path: &str, body: &Value) -> Value {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let body = if body.is_null() { String::new() } else { body.to_string() };
        write!(s, "{method} {path} HTTP/1.0\r\nContent-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(" 200 "), "{path}: {text}");
        serde_json::from_str(body).unwrap()
    }

    fn wait(&self, pattern: &str, count: usize) {
        let path = format!("/_test/wait?path={pattern}&count={count}&answered=1&timeout=60");
        let got = self.call("GET", &path, &Value::Null)["count"].as_u64().unwrap() as usize;
        assert!(got >= count, "{pattern}: {got} of {count}");
    }

    /// The `mono` of the last logged request matching `suffix`.
    fn logged(&self, suffix: &str) -> f64 {
        let log = self.call("GET", "/_test/log", &Value::Null);
        let e = log.as_array().unwrap().iter().rev().find(|e| e["path"].as_str().unwrap().ends_with(suffix)).unwrap();
        e["mono"].as_f64().unwrap()
    }
}

/// The daemon, its events stamped as they are read.
struct Daemon {
    child: Child,
    stdin: ChildStdin,
    events: mpsc::Receiver<(f64, Value)>,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Daemon {
    fn start(server: &Server, dir: &Path) -> Daemon {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).unwrap();
        let token = dir.join("token");
        std::fs::write(&token, format!("{TOKEN}\n")).unwrap();
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();
        let config = dir.join("tactus.toml");
        std::fs::write(&config, "[game]\ntime_control = \"1800+5\"\n").unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_tactus"))
            .arg("run")
            .arg("--config")
            .arg(&config)
            .args(["--board", "sim", "--state-dir"])
            .arg(dir.join("state"))
            .args(["--voice", "none", "--events", "-", "--lichess-url", &server.url, "--lichess-token-file"])
            .arg(&token)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, events) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let at = mono();
                if tx.send((at, serde_json::from_str(&line).unwrap())).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take().unwrap();
        Daemon { child, stdin, events }
    }

    fn next(&self, kind: &str) -> (f64, Value) {
        let mut skipped = Vec::new();
        loop {
            let Ok((at, e)) = self.events.recv_timeout(Duration::from_secs(60)) else {
                panic!("no {kind}; after {skipped:#?}")
            };
            if e["event"] == kind {
                return (at, e);
            }
            skipped.push(e);
        }
    }

    fn type_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
    }

    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }
}

fn legal(pos: &Chess, rng: &mut Lcg) -> Move {
    let moves: Vec<Move> =
        pos.legal_moves().into_iter().filter(|m| m.promotion().is_none_or(|r| r == Role::Queen)).collect();
    moves[rng.below(moves.len())]
}

/// One game as White: the samples it gives, and the daemon's memory at its
/// start and end.
struct Samples {
    press_to_post: Vec<f64>,
    line_to_event: Vec<f64>,
    reconnect: Vec<f64>,
}

fn play(server: &Server, d: &mut Daemon, rng: &mut Lcg, s: &mut Samples) {
    let id = server.call("POST", "/_test/game", &json!({"our_color": "white"}))["id"].as_str().unwrap().to_string();
    let (_, playing) = d.next("online");
    assert_eq!(playing["game"], id.as_str());
    let mut pos = Chess::default();
    for ply in 0..PLIES / 2 {
        if pos.is_game_over() {
            break;
        }
        let mv = legal(&pos, rng);
        let uci = mv.to_uci(CastlingMode::Standard).to_string();
        d.type_line(&hands(&pos, mv));
        d.next("move");
        let pressed = mono();
        d.type_line("w");
        server.wait(&format!("move/{uci}"), 1);
        s.press_to_post.push((server.logged(&format!("/move/{uci}")) - pressed) * 1000.0);
        d.next("complete");
        pos.play_unchecked(mv);
        if pos.is_game_over() {
            break;
        }
        if ply == 5 {
            let stream = format!("stream/{id}");
            let dropped = server.call("POST", &format!("/_test/game/{id}/drop"), &json!({}))["mono"].as_f64().unwrap();
            server.wait(&stream, 2);
            s.reconnect.push((server.logged(&stream) - dropped) * 1000.0);
        }
        let reply = legal(&pos, rng);
        let reply_uci = reply.to_uci(CastlingMode::Standard).to_string();
        server.call("POST", &format!("/_test/game/{id}/move/{reply_uci}"), &json!({}));
        let (read, said) = d.next("opponent_move");
        assert_eq!(said["uci"], reply_uci.as_str());
        let writes = server.call("GET", "/_test/writes", &Value::Null);
        let plies = pos.fullmoves().get() as u64 * 2; // the opponent's move makes it even
        let written = writes["states"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|w| w["moves"].as_u64() == Some(plies))
            .and_then(|w| w["mono"].as_f64())
            .expect("the line's write is recorded");
        s.line_to_event.push((read - written) * 1000.0);
        let mut lines = Vec::new();
        for step in said["steps"].as_array().unwrap() {
            lines.extend(step["from"].as_str().map(|sq| format!("{sq}-")));
            lines.extend(step["to"].as_str().map(|sq| format!("{sq}+")));
        }
        d.type_line(&lines.join(" "));
        d.next("complete");
        let mv: UciMove = reply_uci.parse().unwrap();
        pos.play_unchecked(mv.to_move(&pos).unwrap());
    }
    // Over on the server, so that the next daemon is not offered it.
    if !pos.is_game_over() {
        server.call("POST", &format!("/_test/game/{id}/resign"), &json!({}));
        d.next("game_over");
    }
}

fn main() {
    let dir = std::env::temp_dir().join(format!("tactus-bench-lichess-{}", std::process::id()));
    let mut rng = Lcg(0x11c4e55);
    let mut s = Samples { press_to_post: Vec::new(), line_to_event: Vec::new(), reconnect: Vec::new() };
    {
        let server = Server::start(KEEPALIVE_S);
        for game in 0..GAMES {
            let mut d = Daemon::start(&server, &dir.join(format!("g{game}")));
            play(&server, &mut d, &mut rng, &mut s);
        }
    }
    summary("board press → move POST received", &mut s.press_to_post, "ms");
    summary("opponent's gameState line written → opponent_move read", &mut s.line_to_event, "ms");
    summary("game stream dropped → reopened", &mut s.reconnect, "ms");

    // Memory: a game's moves, then keep-alives worth hours at Lichess's spacing.
    let spacing = 0.005;
    let server = Server::start(spacing);
    let mut d = Daemon::start(&server, &dir.join("memory"));
    let mut mem = Samples { press_to_post: Vec::new(), line_to_event: Vec::new(), reconnect: Vec::new() };
    server.wait("/api/stream/event", 1);
    let at_start = d.rss_kib();
    play(&server, &mut d, &mut rng, &mut mem);
    let after_moves = d.rss_kib();
    let before = server.call("GET", "/_test/writes", &Value::Null)["keepalives"].as_u64().unwrap();
    let mut peak = after_moves;
    // Two streams (the account's, the game's), each a line per 7 s: four
    // hours of both, twice the game's two hours.
    let wanted = (2.0 * 4.0 * 3600.0 / KEEPALIVE_S) as u64;
    let keepalives = loop {
        std::thread::sleep(Duration::from_millis(500));
        peak = peak.max(d.rss_kib());
        let sent = server.call("GET", "/_test/writes", &Value::Null)["keepalives"].as_u64().unwrap() - before;
        if sent >= wanted {
            break sent;
        }
    };
    let end = d.rss_kib();
    let hours = keepalives as f64 / 2.0 * KEEPALIVE_S / 3600.0;
    println!(
        "memory (VmRSS): {at_start} KiB at the start, {after_moves} KiB after {} plies, {end} KiB after {keepalives} keep-alive lines (≈ {hours:.1} h of both streams at {KEEPALIVE_S} s), peak {peak} KiB",
        mem.press_to_post.len() + mem.line_to_event.len()
    );
    drop(d);
    let _ = std::fs::remove_dir_all(&dir);
}
