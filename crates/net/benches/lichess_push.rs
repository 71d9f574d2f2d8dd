//! Load benchmark: simulated boards publish their games through a private
//! mosquitto into one relay, which pushes them to Lichess broadcast rounds
//! (100 boards a round) on the Lichess test server
//! (`crates/lichess/tests/server`, written from Lichess's API reference).
//!
//! Measured: from the instant a board hands a `complete` event to its
//! `BoardPublisher` to the instant the first push holding that move reaches
//! the server (the wall clock of one machine); the pushes' sizes; and the
//! CPU the relay's process used over the play (its `utime + stime`), which
//! with `PUSH=0` is the relay alone. The relay runs as `tactus relay` does:
//! its own process, one thread for the hall and the pushes.
//!
//! `cargo bench -p tactus-net --bench lichess_push`; `BOARDS` (100),
//! `SECONDS` (60), `THINK_MS` (mean time per move per board, 2000), `PUSH`
//! (1). Up to 100 boards the server reads every pushed game with
//! python-chess, as in the tests; beyond, that would take it longer than a
//! second a push (some ms a game), so it runs `--lax` and only counts the
//! games' clocks. Needs `mosquitto` and python3 with python-chess.

use std::io::{BufRead, BufReader, Read, Write as _};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tactus_core::{Event, EventKind};
use tactus_lichess::broadcast::{PushOptions, Pusher, RoundSpec};
use tactus_lichess::http::{Client, Settings};
use tactus_lichess::token::Token;
use tactus_net::{Hall, HallLink, RelayOptions, Tags, push_to_lichess, relay};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

mod support;
use support::{Killed, env_or, mosquitto, publishers, sized, two_workers};
use tactus_stats::Sorted;

const CHILD: &str = "TACTUS_LICHESS_BENCH_BROKER_PORT";
const HALL: &str = "bench";
const KEY: &[u8] = b"lichess-push-bench hall key";
const TOKEN: &str = "lip_bench_study";

fn link(port: u16) -> HallLink {
    support::link(port, KEY)
}

fn main() {
    if let Ok(port) = std::env::var(CHILD) {
        return relay_process(port.parse().expect("a port"));
    }
    let boards = sized("BOARDS", 100, 12) as usize;
    let seconds = sized("SECONDS", 60, 4);
    let think = env_or("THINK_MS", 2000);
    let push = env_or("PUSH", 1) == 1;
    two_workers().block_on(run(boards, Duration::from_secs(seconds), think, push));
}

/// The rounds of a hall of `boards`: 100 boards each.
fn rounds(boards: usize) -> Vec<RoundSpec> {
    (0..boards.div_ceil(100))
        .map(|i| format!("Bench{i:03}={}-{}", i * 100 + 1, i * 100 + 100).parse().unwrap())
        .collect()
}

/// The relay, alone in its process, on one thread as `tactus relay` runs:
/// pushes to the server `LICHESS_URL` names (unless `PUSH=0`), says when it
/// is ready, and stops when its standard input closes.
fn relay_process(broker_port: u16) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let boards = env_or("BOARDS", 100) as usize;
        let stop = CancellationToken::new();
        let relay = relay(&link(broker_port), Hall::new(HALL), RelayOptions { max_boards: boards }, &stop).unwrap();
        let tasks = TaskTracker::new();
        let _pushing = std::env::var("LICHESS_URL").ok().map(|url| {
            let settings = Settings { url, tasks: tasks.clone(), ..Settings::default() };
            let client = Client::new(Token::new(TOKEN).unwrap(), settings).unwrap();
            let pusher = Pusher::start(client, PushOptions::new(rounds(boards)).unwrap(), &tasks, &stop);
            push_to_lichess(&relay, pusher, &tasks, &stop)
        });
        println!("ready");
        std::io::stdout().flush().unwrap();
        tokio::task::spawn_blocking(|| std::io::stdin().lines().count()).await.unwrap();
    });
}

/// The Lichess test server; its URL and port.
fn lichess_server(lax: bool) -> (Killed, String, u16) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../lichess/tests/server/lichess_server.py");
    let mut c = Command::new("python3");
    c.arg(script).args(["--token", &format!("{TOKEN}=study:write")]);
    if lax {
        c.arg("--lax");
    }
    let mut child = c.stdout(Stdio::piped()).spawn().expect("python3 with python-chess");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("listening on ").expect("the Lichess test server started").to_string();
    let port = url.rsplit(':').next().unwrap().parse().unwrap();
    (Killed(child, None), url, port)
}

/// `GET` of the server's control endpoint, as JSON.
fn control(port: u16, path: &str) -> serde_json::Value {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: bench\r\n\r\n").unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    serde_json::from_str(raw.split_once("\r\n\r\n").unwrap().1).unwrap()
}

fn game(seed: u64, think_ms: u64) -> (Tags, Vec<Event>) {
    support::game(seed, think_ms, |header| {
        header.white = Some(format!("White {seed}"));
        header.black = Some(format!("Black {seed}"));
        header.event = Some("Bench hall".into());
        header.round = Some("1".into());
    })
}

/// A process's CPU time so far (`utime + stime` of /proc/PID/stat).
fn cpu(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
    // utime and stime are the stat's 14th and 15th fields: 12th and 13th after the name.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    let per_s: u64 = Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse().ok())
        .unwrap_or(100);
    Duration::from_secs_f64(ticks as f64 / per_s as f64)
}

fn unix_s() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

async fn run(boards: usize, duration: Duration, think: u64, push: bool) {
    let games: Vec<(Tags, Vec<Event>)> = (1..=boards).map(|i| game(i as u64, think)).collect();
    let (_mosquitto, port) = mosquitto();
    let lax = boards > 100;
    let (_server, url, server_port) = lichess_server(lax);
    let mut relay = Command::new(std::env::current_exe().unwrap());
    relay.env(CHILD, port.to_string()).env("BOARDS", boards.to_string());
    if push {
        relay.env("LICHESS_URL", &url);
    }
    let mut child = relay.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    let relay_pid = child.id();

    let broker = link(port);
    let publishers = publishers(&broker, HALL, 1..=boards);
    tokio::time::sleep(Duration::from_secs(2)).await;
    // Each board's moves: when each was handed to its publisher (Unix s).
    let published: Arc<Mutex<Vec<Vec<f64>>>> = Arc::new(Mutex::new(vec![Vec::new(); boards]));
    let cpu_before = cpu(relay_pid);
    let start = Instant::now();
    let end = start + duration;
    let mut tasks = Vec::new();
    for (i, (tags, events)) in games.into_iter().enumerate() {
        let publisher = publishers[i].clone();
        let published = published.clone();
        let offset = Duration::from_millis((i as u64 * 7919) % 2000);
        tasks.push(tokio::spawn(async move {
            publisher.set_tags(tags);
            // With the board's words, as a daemon sends them.
            let mut scribe = tactus_speech::Scribe::new(tactus_speech::Words::new(
                tactus_speech::Lang::En,
                tactus_speech::Style::Natural,
            ));
            for ev in events {
                let at = start + offset + Duration::from_millis(ev.t);
                if at >= end {
                    break;
                }
                tokio::time::sleep_until(at.into()).await;
                if matches!(ev.kind, EventKind::Complete { .. }) {
                    published.lock().unwrap()[i].push(unix_s());
                }
                publisher.event(&ev, scribe.write(&ev).as_deref());
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let played = start.elapsed();
    let cpu_used = cpu(relay_pid) - cpu_before;
    // What is still on its way: a push a second, and one after the last move.
    tokio::time::sleep(Duration::from_secs(3)).await;
    drop(child.stdin.take());
    let _ = child.wait();

    let secs = played.as_secs_f64();
    let moves: usize = published.lock().unwrap().iter().map(Vec::len).sum();
    println!("lichess push: {boards} boards through mosquitto into one relay, {secs:.0} s of play, {moves} moves");
    println!(
        "  relay CPU {:.2} s: {:.1} % of one core{}",
        cpu_used.as_secs_f64(),
        cpu_used.as_secs_f64() / secs * 100.0,
        if push { "" } else { " (PUSH=0: no pushing)" }
    );
    if !push {
        return;
    }
    let pushes = control(server_port, "/_test/pushes");
    let pushes = pushes.as_array().unwrap();
    let (first, last) = (pushes[0]["wall"].as_f64().unwrap(), pushes.last().unwrap()["wall"].as_f64().unwrap());
    let bytes = Sorted::new(pushes.iter().map(|p| p["bytes"].as_f64().unwrap()));
    let games: usize = pushes.iter().map(|p| p["games"].as_array().unwrap().len()).sum();
    // Per board, the pushes' walls and plies in order: the first push holding each move.
    let mut held: Vec<Vec<(f64, u64)>> = vec![Vec::new(); boards];
    for p in pushes {
        for g in p["games"].as_array().unwrap() {
            let Some(n) = g["tags"]["Board"].as_str().and_then(|b| b.parse::<usize>().ok()) else { continue };
            held[n - 1].push((p["wall"].as_f64().unwrap(), g["plies"].as_u64().unwrap_or(0)));
        }
    }
    let mut delays = Vec::new();
    let mut missing = 0;
    for (i, made) in published.lock().unwrap().iter().enumerate() {
        for (ply, at) in made.iter().enumerate() {
            match held[i].iter().find(|&&(_, plies)| plies > ply as u64) {
                Some((wall, _)) => delays.push(wall - at),
                None => missing += 1,
            }
        }
    }
    let delays = Sorted::new(delays);
    let at = |s: &Sorted<f64>, p| s.percentile(p).unwrap_or(f64::NAN);
    println!(
        "  {} pushes to {} round(s) ({:.2}/s), {games} games in them ({:.1} a push); server {}",
        pushes.len(),
        boards.div_ceil(100),
        pushes.len() as f64 / (last - first).max(1.0),
        games as f64 / pushes.len() as f64,
        if lax { "--lax (games counted, not read)" } else { "strict (python-chess reads each game)" }
    );
    println!(
        "  push size: p50 {:.1} kB, p95 {:.1} kB, max {:.1} kB; {:.1} kB/s",
        at(&bytes, 50) / 1e3,
        at(&bytes, 95) / 1e3,
        at(&bytes, 100) / 1e3,
        bytes.as_slice().iter().sum::<f64>() / 1e3 / (last - first).max(1.0)
    );
    println!(
        "  move -> first push holding it: p50 {:.3} s, p95 {:.3} s, max {:.3} s ({} moves, {missing} never pushed)",
        at(&delays, 50),
        at(&delays, 95),
        at(&delays, 100),
        delays.len()
    );
}
