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

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position, Role};

#[path = "../tests/common/mod.rs"]
mod common;
mod support;
use common::lichess::LichessServer;
use common::moves::{Lcg, carried_out, hands};
use common::{Guard, secret, tactus_run};
use support::{pct, status_kb};

const TOKEN: &str = "lip_board_bench";
const GAMES: usize = 4;
const PLIES: usize = 60;
/// Lichess's spacing of keep-alive lines, roughly.
const KEEPALIVE_S: f64 = 7.0;

fn mono() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

fn summary(name: &str, v: &mut [f64], unit: &str) {
    let n = v.len();
    let (p50, p95, max) = (pct(v, 50), pct(v, 95), pct(v, 100));
    println!("{name}: n {n}, p50 {p50:.2} {unit}, p95 {p95:.2} {unit}, max {max:.2} {unit}");
}

/// The test server with the account's token, keep-alive lines every
/// `keepalive` seconds.
fn server(keepalive: f64) -> LichessServer {
    LichessServer::start_with(&[&format!("{TOKEN}=board:play")], &["--keepalive", &keepalive.to_string()])
}

/// The `mono` of the last request whose path ends with `suffix`.
fn logged(server: &LichessServer, suffix: &str) -> f64 {
    let log = server.log();
    let e = log.iter().rev().find(|e| e["path"].as_str().unwrap().ends_with(suffix)).expect("the request is logged");
    e["mono"].as_f64().unwrap()
}

/// The daemon, its events stamped as they are read.
struct Daemon {
    child: Guard,
    stdin: ChildStdin,
    events: mpsc::Receiver<(f64, Value)>,
}

impl Daemon {
    fn start(server: &LichessServer, dir: &Path) -> Daemon {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).unwrap();
        let token = secret(dir, "token", &format!("{TOKEN}\n"));
        let config = dir.join("tactus.toml");
        std::fs::write(&config, "[game]\ntime_control = \"1800+5\"\n").unwrap();
        let mut child = tactus_run(&config, &dir.join("state"))
            .args(["--board", "sim", "--lichess-url", &server.url, "--lichess-token-file"])
            .arg(&token)
            .stdin(Stdio::piped())
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
        Daemon { child: Guard(child), stdin, events }
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
        status_kb(self.child.0.id(), "VmRSS:").expect("the daemon runs")
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

fn play(server: &LichessServer, d: &mut Daemon, rng: &mut Lcg, s: &mut Samples) {
    let id = server.new_game("white");
    let (_, playing) = d.next("online");
    assert_eq!(playing["game"], id.as_str());
    let mut pos = Chess::default();
    for ply in 0..PLIES / 2 {
        if pos.is_game_over() {
            break;
        }
        let mv = legal(&pos, rng);
        let uci = mv.to_uci(CastlingMode::Standard).to_string();
        d.type_line(&hands(&pos, mv).join(" "));
        d.next("move");
        let pressed = mono();
        d.type_line("w");
        // The move on the server (a count of its POSTs would count the same
        // move of an earlier game, or ply).
        server.wait_moves(&id, 2 * ply + 1);
        s.press_to_post.push((logged(server, &format!("/move/{uci}")) - pressed) * 1000.0);
        d.next("complete");
        pos.play_unchecked(mv);
        if pos.is_game_over() {
            break;
        }
        if ply == 5 {
            let stream = format!("stream/{id}");
            let dropped = server.opponent(&id, "drop")["mono"].as_f64().unwrap();
            server.wait_answered(&stream, 2);
            s.reconnect.push((logged(server, &stream) - dropped) * 1000.0);
        }
        let reply = legal(&pos, rng);
        let reply_uci = reply.to_uci(CastlingMode::Standard).to_string();
        server.opponent(&id, &format!("move/{reply_uci}"));
        let (read, said) = d.next("opponent_move");
        assert_eq!(said["uci"], reply_uci.as_str());
        let writes = server.control("GET", "/_test/writes", &Value::Null);
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
        d.type_line(&carried_out(&said));
        d.next("complete");
        let mv: UciMove = reply_uci.parse().unwrap();
        pos.play_unchecked(mv.to_move(&pos).unwrap());
    }
    // Over on the server, so that the next daemon is not offered it.
    if !pos.is_game_over() {
        server.opponent(&id, "resign");
        d.next("game_over");
    }
}

fn main() {
    let dir = std::env::temp_dir().join(format!("tactus-bench-lichess-{}", std::process::id()));
    let mut rng = Lcg(0x11c4e55);
    let mut s = Samples { press_to_post: Vec::new(), line_to_event: Vec::new(), reconnect: Vec::new() };
    {
        let server = server(KEEPALIVE_S);
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
    let server = server(spacing);
    let mut d = Daemon::start(&server, &dir.join("memory"));
    let mut mem = Samples { press_to_post: Vec::new(), line_to_event: Vec::new(), reconnect: Vec::new() };
    server.wait_answered("/api/stream/event", 1);
    let at_start = d.rss_kib();
    play(&server, &mut d, &mut rng, &mut mem);
    let after_moves = d.rss_kib();
    let before = server.control("GET", "/_test/writes", &Value::Null)["keepalives"].as_u64().unwrap();
    let mut peak = after_moves;
    // Two streams (the account's, the game's), each a line per 7 s: four
    // hours of both, twice the game's two hours.
    let wanted = (2.0 * 4.0 * 3600.0 / KEEPALIVE_S) as u64;
    let keepalives = loop {
        std::thread::sleep(Duration::from_millis(500));
        peak = peak.max(d.rss_kib());
        let sent = server.control("GET", "/_test/writes", &Value::Null)["keepalives"].as_u64().unwrap() - before;
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
