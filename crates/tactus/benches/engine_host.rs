//! The engine host's own latency: from the player's press to the engine's
//! `opponent_move`, less the engine's search. Games against the real
//! Stockfish (full strength, 50 ms a move) through the daemon on the sim
//! board, the player's moves random, the engine's carried out from their
//! steps. The daemon's own account, from the press's arrival to the event's
//! publication less the search, is its summary line at the end of each
//! game; the bench adds its own view of the whole, from writing the press
//! to reading the event, search included. `cargo bench -p tactus --bench
//! engine_host`.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position, Role};

#[path = "../tests/common/mod.rs"]
mod common;
mod support;
use common::moves::{Lcg, carried_out, hands};
use common::tactus_run;
use support::pct;

const STOCKFISH: &str = "/usr/games/stockfish";
const SAMPLES: usize = 200;

/// The daemon's summary of a game's engine moves: `(moves, search p50,
/// besides p50, p95, max)`.
fn summary(line: &str) -> Option<[f64; 5]> {
    let rest = line.split("the engine made ").nth(1)?;
    let numbers: Vec<f64> = rest
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter(|w| !w.is_empty() && *w != ".")
        .filter_map(|w| w.parse().ok())
        .collect();
    // moves, 50 (p50), search, 50, besides p50, 95, p95, max
    match numbers.as_slice() {
        [n, _, search, _, p50, _, p95, max] => Some([*n, *search, *p50, *p95, *max]),
        _ => None,
    }
}

/// One game: the daemon's summary, and the bench's press-to-event times.
fn game(seed: u64, dir: &std::path::Path, whole: &mut Vec<f64>) -> [f64; 5] {
    let state = dir.join(format!("state-{seed}"));
    let config = dir.join("tactus.toml");
    let mut daemon = tactus_run(&config, &state)
        .args(["--board", "sim"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tactus runs");
    let (events_tx, events) = mpsc::channel::<(Instant, Value)>();
    let stdout = daemon.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if events_tx.send((Instant::now(), serde_json::from_str(&line).unwrap())).is_err() {
                break;
            }
        }
    });
    let stderr = daemon.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        BufReader::new(stderr).lines().map_while(Result::ok).find_map(|line| summary(&line))
    });
    let next = |kinds: &[&str]| loop {
        let (at, e) = events.recv_timeout(Duration::from_secs(60)).expect("an event");
        if kinds.iter().any(|k| e["event"] == *k) {
            return (at, e);
        }
    };
    let mut stdin = daemon.stdin.take().unwrap();
    let mut pos = Chess::default();
    let mut rng = Lcg(seed);
    loop {
        let moves: Vec<Move> =
            pos.legal_moves().into_iter().filter(|m| m.promotion().is_none_or(|r| r == Role::Queen)).collect();
        let mv = moves[rng.below(moves.len())];
        writeln!(stdin, "{}", hands(&pos, mv).join(" ")).unwrap();
        next(&["move"]);
        let pressed = Instant::now();
        writeln!(stdin, "w").unwrap();
        pos.play_unchecked(mv);
        let (at, chosen) = next(&["opponent_move", "game_over"]);
        if chosen["event"] == "game_over" {
            break;
        }
        whole.push((at - pressed).as_secs_f64() * 1000.0);
        writeln!(stdin, "{}", carried_out(&chosen)).unwrap();
        let uci: UciMove = chosen["uci"].as_str().unwrap().parse().unwrap();
        let engine_move = uci.to_move(&pos).unwrap();
        let (_, done) = next(&["complete"]);
        assert_eq!(done["uci"], chosen["uci"]);
        pos.play_unchecked(engine_move);
        if pos.is_game_over() {
            break;
        }
    }
    drop(stdin);
    let _ = daemon.wait();
    log.join().unwrap().expect("the daemon's summary of the engine's moves")
}

fn main() {
    assert!(std::path::Path::new(STOCKFISH).exists(), "{STOCKFISH} is missing: apt-get install stockfish");
    let dir = std::env::temp_dir().join(format!("tactus-bench-engine-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("tactus.toml"),
        format!("[game]\ntime_control = \"-\"\n\n[engine]\npath = \"{STOCKFISH}\"\nlevel = 10\nthink_ms = 50\n"),
    )
    .unwrap();
    let (mut games, mut whole) = (Vec::new(), Vec::new());
    let mut seed = 1;
    while whole.len() < SAMPLES {
        games.push(game(seed, &dir, &mut whole));
        seed += 1;
    }
    let moves: f64 = games.iter().map(|g| g[0]).sum();
    let p50: Vec<f64> = games.iter().map(|g| g[2]).collect();
    let search: Vec<f64> = games.iter().map(|g| g[1]).collect();
    let worst_p95 = games.iter().map(|g| g[3]).fold(0.0, f64::max);
    let max = games.iter().map(|g| g[4]).fold(0.0, f64::max);
    println!("press to opponent_move, {moves} engine moves in {} games:", games.len());
    println!(
        "  less the engine's search (the daemon's account): p50 {:.2} ms (median of the games'), p95 {:.2} ms (the worst game's), max {:.2} ms",
        pct(&p50, 50),
        worst_p95,
        max
    );
    println!("  the engine's search: p50 {:.1} ms (median of the games')", pct(&search, 50));
    println!(
        "  the whole, search and pipes included (the bench's view): p50 {:.1} ms, p95 {:.1} ms",
        pct(&whole, 50),
        pct(&whole, 95)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
