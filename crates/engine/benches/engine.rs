//! Figures with Debian's Stockfish: the overhead of a search (from `go` to
//! its `bestmove`, and from the request to the opponent's choice, less the
//! engine's own search time), the time to restart a killed engine, and
//! the time from a crash mid-search to the restarted engine's move.
//!
//! `cargo bench -p tactus-engine --bench engine [-- ROUNDS]`

use std::time::{Duration, Instant};

use shakmaty::{Chess, Position};
use tactus_engine::protocol::Go;
use tactus_engine::{Engine, EngineConfig, Level, Line, Opponent, OpponentConfig};
use tactus_stats::Sorted;

const STOCKFISH: &str = "/usr/games/stockfish";

fn percentiles(name: &str, ms: Vec<f64>) {
    let ms = Sorted::new(ms);
    let at = |p| ms.percentile(p).unwrap_or(f64::NAN);
    println!("{name}: n={} p50={:.2} ms p95={:.2} ms max={:.2} ms", ms.len(), at(50), at(95), at(100));
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Positions along a game the engine plays against itself.
async fn positions(engine: &mut Engine, n: usize) -> Vec<Line> {
    let mut line = Line::new(Chess::default());
    let mut out = Vec::new();
    while out.len() < n {
        if line.position().is_game_over() {
            line = Line::new(Chess::default());
        }
        out.push(line.clone());
        let s = engine.search(&line, Go { depth: Some(4), ..Go::default() }).await.expect("search");
        line.push(s.best.expect("a move")).expect("legal");
    }
    out
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    assert!(std::path::Path::new(STOCKFISH).exists(), "{STOCKFISH} missing: apt-get install stockfish");
    let rounds: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(200);
    let config = EngineConfig::new(STOCKFISH);

    // Start: spawn, uci … uciok, isready … readyok.
    let mut starts = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let engine = Engine::start(&config).await.expect("start");
        starts.push(millis(t.elapsed()));
        engine.quit().await.expect("quit");
    }
    percentiles("engine start to ready", starts);

    // `go` to `bestmove`, less the engine's own search time.
    let mut engine = Engine::start(&config).await.expect("start");
    let lines = positions(&mut engine, rounds).await;
    let mut overhead = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let go = if i % 2 == 0 {
            Go { depth: Some(8), ..Go::default() }
        } else {
            Go { movetime_ms: Some(20), ..Go::default() }
        };
        let s = engine.search(line, go).await.expect("search");
        if let Some(engine_ms) = s.engine_ms {
            overhead.push(millis(s.elapsed) - engine_ms as f64);
        }
    }
    percentiles("go to bestmove, less the engine's search time", overhead);
    engine.quit().await.expect("quit");

    // The request to the opponent's choice (book off, level 10 with a
    // 20 ms search), less the engine's search time.
    let mut o = Opponent::start(OpponentConfig::new(config.clone(), Level::MAX)).await.expect("opponent");
    let mut overhead = Vec::new();
    let mut plain = Vec::new();
    for line in &lines {
        let clock = tactus_engine::protocol::ClockTimes { white_ms: 400, black_ms: 400, ..Default::default() };
        let c = o.choose(line, Some(clock)).await.expect("choice");
        if let Some(engine_ms) = c.engine_ms {
            overhead.push(millis(c.elapsed) - engine_ms as f64);
        }
        plain.push(millis(c.elapsed));
    }
    percentiles("request to choice, less the engine's search time", overhead);

    // A killed engine: the request that finds it dead, less an ordinary
    // request of the same kind.
    let baseline = Sorted::new(plain.iter().copied()).percentile(50).expect("ordinary requests were timed");
    let mut restarts = Vec::new();
    for line in lines.iter().take(20) {
        let pid = o.engine_pid().expect("running");
        let pid = rustix::process::Pid::from_raw(i32::try_from(pid).expect("pid")).expect("pid");
        rustix::process::kill_process(pid, rustix::process::Signal::KILL).expect("kill");
        let clock = tactus_engine::protocol::ClockTimes { white_ms: 400, black_ms: 400, ..Default::default() };
        let c = o.choose(line, Some(clock)).await.expect("choice after a restart");
        assert_eq!(c.restarts, 1);
        restarts.push(millis(c.elapsed) - baseline);
    }
    percentiles("restart after a crash (request with a killed engine, less an ordinary one)", restarts);

    // A crash mid-search: from the kill to the move of the restarted engine
    // (its end found, a new process, handshake, options, the search again),
    // and the same less the new search's own time.
    // Level 5 searches 300 ms a move without a clock.
    o.set_level(Level::new(5).expect("a level"));
    let mut crash_to_move = Vec::new();
    let mut less_search = Vec::new();
    for line in lines.iter().skip(20).take(20) {
        let pid = o.engine_pid().expect("running");
        let pid = rustix::process::Pid::from_raw(i32::try_from(pid).expect("pid")).expect("pid");
        let killed = tokio::spawn(async move {
            // Into the search of 300 ms.
            tokio::time::sleep(Duration::from_millis(100)).await;
            rustix::process::kill_process(pid, rustix::process::Signal::KILL).expect("kill");
            Instant::now()
        });
        let c = o.choose(line, None).await.expect("choice after a crash mid-search");
        let done = Instant::now();
        let killed = killed.await.expect("the kill");
        assert_eq!(c.restarts, 1, "the engine was killed mid-search");
        let ms = millis(done - killed);
        crash_to_move.push(ms);
        if let Some(engine_ms) = c.engine_ms {
            less_search.push(ms - engine_ms as f64);
        }
    }
    percentiles("crash mid-search to the restarted engine's move", crash_to_move);
    percentiles("crash mid-search to the move, less the new search's own time", less_search);
    let _ = o.quit().await;
}
