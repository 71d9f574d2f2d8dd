//! Load benchmark: many simulated boards publish their games through a
//! private mosquitto into one relay, and a client polls the relay's
//! `/games.pgn` back to back.
//!
//! Measured per move: from the instant a board hands its `complete` event to
//! its `BoardPublisher` to the instant a `/games.pgn` response holding the
//! move has been fully received by the polling client. It includes the
//! board's queue, the MQTT hops, the relay's apply and render, the HTTP
//! reply and up to one poll cycle of sampling delay. The relay runs in its
//! own process, so its memory (VmRSS, VmHWM) is its own.
//!
//! `cargo bench -p tactus-net --bench relay_load`; `BOARDS` (1000),
//! `SECONDS` (60), `THINK_MS` (mean time per move per board, 2000) and
//! `POLL_MS` (the client's poll interval, 10: a sampling delay of up to that
//! much is in every figure) set the load; `RETAINED_MB` (0) leaves a message
//! that large retained on a state topic of the hall first, as a stranger
//! could, and the relay's connections are counted. Needs `mosquitto`
//! (`apt-get install mosquitto`).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write as _};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tactus_core::{Event, EventKind};
use tactus_net::{AppState, Hall, HallLink, RelayOptions, Tags, relay, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

mod support;
use support::{env_or, mosquitto, publishers, sized, two_workers};
use tactus_stats::Sorted;

const CHILD: &str = "TACTUS_RELAY_BENCH_BROKER_PORT";
const HALL: &str = "bench";
/// Every message is sealed and checked, as in a hall with a hall key.
const KEY: &[u8] = b"relay-load-bench hall key";

fn link(port: u16) -> HallLink {
    support::link(port, KEY)
}

fn main() {
    if let Ok(port) = std::env::var(CHILD) {
        return relay_process(port.parse().expect("a port"));
    }
    let boards = sized("BOARDS", 1000, 20) as usize;
    let seconds = sized("SECONDS", 60, 3);
    let think = env_or("THINK_MS", 2000);
    let poll = Duration::from_millis(env_or("POLL_MS", 10).max(1));
    two_workers().block_on(run(boards, Duration::from_secs(seconds), think, poll));
}

/// The relay, alone in its process: serves the hall on a free port, says
/// which, and stops (printing its counters) when its standard input closes.
fn relay_process(broker_port: u16) {
    let rt = two_workers();
    rt.block_on(async {
        let boards = env_or("BOARDS", 1000) as usize;
        let relay =
            relay(&link(broker_port), Hall::new(HALL), RelayOptions { max_boards: boards }, &CancellationToken::new())
                .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!("http {}", listener.local_addr().unwrap().port());
        std::io::stdout().flush().unwrap();
        tokio::spawn(serve(
            listener,
            AppState::read_only(relay.hall.clone(), "the benchmark takes no actions"),
            &CancellationToken::new(),
        ));
        tokio::task::spawn_blocking(|| std::io::stdin().lines().count()).await.unwrap();
        let s = &relay.stats;
        println!(
            "stats connections={} messages={} applied={} stale={} malformed={} refused={}",
            s.connections.load(Ordering::Relaxed),
            s.messages.load(Ordering::Relaxed),
            s.applied.load(Ordering::Relaxed),
            s.stale.load(Ordering::Relaxed),
            s.malformed.load(Ordering::Relaxed),
            s.refused.count()
        );
    });
}

/// Leaves a message of `bytes` retained on a state topic of the hall, as a
/// stranger could, before the relay starts: every (re)subscription meets it.
async fn retain_a_huge_message(port: u16, bytes: usize) {
    use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
    let mut opts = MqttOptions::new("relay-load-stranger", "127.0.0.1", port);
    opts.set_max_packet_size(bytes + 1024, bytes + 1024);
    let (client, mut eventloop) = AsyncClient::new(opts, 4);
    client.publish(format!("tactus/{HALL}/ghost/state"), QoS::AtLeastOnce, true, vec![b'x'; bytes]).await.unwrap();
    loop {
        if let Event::Incoming(Packet::PubAck(_)) = eventloop.poll().await.expect("the broker takes the message") {
            break;
        }
    }
}

fn game(seed: u64, think_ms: u64) -> (Tags, Vec<Event>) {
    support::game(seed, think_ms, |header| {
        header.white = Some(format!("bench-{seed}"));
        header.black = Some("bench".into());
    })
}

fn vm(pid: u32, field: &str) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix(field)).map_or("?".into(), |v| v.trim().to_string())
}

async fn get(addr: SocketAddr, path: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let raw = String::from_utf8(raw).unwrap();
    raw.split_once("\r\n\r\n").map(|(_, body)| body.to_string()).unwrap_or_default()
}

/// Per board (by its White tag `bench-<i>`), the moves in the PGN: one
/// `[%clk` each, as every game here has a clock.
fn moves_per_board(pgn: &str) -> HashMap<usize, usize> {
    let mut out = HashMap::new();
    for game in pgn.split("[Event ").skip(1) {
        let Some(i) = game.split("[White \"bench-").nth(1).and_then(|r| r.split('"').next()?.parse().ok()) else {
            continue;
        };
        out.insert(i, game.matches("[%clk ").count());
    }
    out
}

async fn run(boards: usize, duration: Duration, think: u64, poll: Duration) {
    let made = Instant::now();
    let games: Vec<(Tags, Vec<Event>)> = (0..boards).map(|i| game(i as u64, think)).collect();
    let plies: usize =
        games.iter().map(|(_, e)| e.iter().filter(|e| matches!(e.kind, EventKind::Complete { .. })).count()).sum();
    eprintln!("{boards} games made ({plies} moves) in {:.1} s", made.elapsed().as_secs_f64());

    let (_mosquitto, port) = mosquitto();
    let broker = link(port);
    let retained_mb = env_or("RETAINED_MB", 0) as usize;
    if retained_mb > 0 {
        retain_a_huge_message(port, retained_mb << 20).await;
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD, port.to_string())
        .env("BOARDS", boards.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child_out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    child_out.read_line(&mut line).unwrap();
    let http: u16 = line.trim().strip_prefix("http ").and_then(|p| p.parse().ok()).expect("the relay's port");
    let addr = SocketAddr::from(([127, 0, 0, 1], http));
    let relay_pid = child.id();

    // Boards connect, then play from a common start, each a little apart.
    let publishers = publishers(&broker, HALL, 0..boards);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let published: Arc<Mutex<Vec<Vec<Instant>>>> = Arc::new(Mutex::new(vec![Vec::new(); boards]));
    let start = Instant::now();
    let end = start + duration;
    let mut tasks = Vec::new();
    for (i, (tags, events)) in games.into_iter().enumerate() {
        let publisher = publishers[i].clone();
        let published = published.clone();
        let offset = Duration::from_millis((i as u64 * 7919) % 2000);
        tasks.push(tokio::spawn(async move {
            publisher.set_tags(tags);
            for ev in events {
                let at = start + offset + Duration::from_millis(ev.t);
                if at >= end {
                    break;
                }
                tokio::time::sleep_until(at.into()).await;
                if matches!(ev.kind, EventKind::Complete { .. }) {
                    published.lock().unwrap()[i].push(Instant::now());
                }
                publisher.event(&ev, None);
            }
        }));
    }

    // Poll back to back until every move is seen or a grace period ends.
    let mut seen = vec![0usize; boards];
    let mut latencies: Vec<f64> = Vec::new();
    let (mut polls, mut poll_time) = (0u64, Duration::ZERO);
    let grace = end + Duration::from_secs(5);
    let mut ticks = tokio::time::interval(poll);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let asked = Instant::now();
        let pgn = get(addr, "/games.pgn").await;
        let got = Instant::now();
        polls += 1;
        poll_time += got - asked;
        let counts = moves_per_board(&pgn);
        let published = published.lock().unwrap();
        for (&i, &n) in &counts {
            if i >= boards {
                continue;
            }
            while seen[i] < n.min(published[i].len()) {
                latencies.push((got - published[i][seen[i]]).as_secs_f64() * 1000.0);
                seen[i] += 1;
            }
        }
        let total: usize = published.iter().map(Vec::len).sum();
        drop(published);
        let now = Instant::now();
        if (now >= end && latencies.len() == total) || now >= grace {
            break;
        }
    }
    for t in tasks {
        let _ = t.await;
    }
    let total: usize = published.lock().unwrap().iter().map(Vec::len).sum();
    let pgn_bytes = get(addr, "/games.pgn").await.len();
    let (rss, hwm) = (vm(relay_pid, "VmRSS:"), vm(relay_pid, "VmHWM:"));
    let dropped: u64 = publishers.iter().map(|p| p.dropped()).sum();
    drop(child.stdin.take());
    let mut stats = String::new();
    child_out.read_line(&mut stats).unwrap();
    let _ = child.wait();

    let latencies = Sorted::new(latencies);
    let at = |p| latencies.percentile(p).unwrap_or(f64::NAN);
    let secs = duration.as_secs_f64();
    println!("relay load: {boards} boards through mosquitto into one relay, {secs:.0} s of play");
    if retained_mb > 0 {
        println!("  with a {retained_mb} MB message retained on tactus/{HALL}/ghost/state all along");
    }
    println!("  moves published {total} ({:.0}/s), seen in /games.pgn {}", total as f64 / secs, latencies.len());
    println!(
        "  board complete -> move in the relay's /games.pgn: p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        at(50),
        at(90),
        at(99),
        at(100)
    );
    println!(
        "  polls {polls} (mean {:.1} ms each), last /games.pgn {:.2} MB",
        poll_time.as_secs_f64() * 1000.0 / polls as f64,
        pgn_bytes as f64 / 1e6
    );
    println!("  relay memory: VmRSS {rss}, VmHWM {hwm}");
    println!("  relay {}; changes dropped by boards {dropped}", stats.trim().trim_start_matches("stats "));
}
