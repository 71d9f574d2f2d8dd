//! Lichess benchmark.
//!
//! - **Follower**: one `gameState` line of the opponent's move, parsed and
//!   followed (the pure part), over games of 200 plies.
//! - **Board API round trip**, through the [`Play`] actor on a one-thread
//!   runtime (as the daemon runs it) against a stub server on its own
//!   thread: the opponent's move line written by the server → the
//!   `Update::Game { Move }` at the owner; the owner's move command → the
//!   `POST …/move/{uci}` head read by the server (on the connection the
//!   client keeps). p50 / p95 / max.
//! - **Keep-alives**: memory (VmRSS) before and after a stream of
//!   keep-alive lines as many as a two-hour game brings at one a second.
//! - **Push**: a hall of 100 and of 1,000 boards (1 and 10 rounds), each
//!   board moving every 30 s on average, pushed through the [`Pusher`]
//!   (on its own thread, whose CPU time is counted) to a stub that answers
//!   as Lichess does: pushes, bytes per push (whole and changed games
//!   only), the pusher's CPU.
//!
//! `cargo bench -p tactus-lichess`; `SECONDS` (20) sets each push run.
//! `cargo test --benches` runs a short smoke run.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Position};
use tactus_core::pgn::{Tags, Written, write_movetext, write_tags};
use tactus_lichess::broadcast::{Next, Plan, PushOptions, Pusher, RoundSpec};
use tactus_lichess::follower::{Action, Follower};
use tactus_lichess::http::{Client, Settings};
use tactus_lichess::play::{Command, GameCommand, Play, PlayOptions, Update};
use tactus_lichess::token::Token;
use tactus_lichess::wire::{GameEvent, PushReply, PushedGame};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn summary(name: &str, samples: Vec<f64>, unit: &str) {
    let samples = tactus_stats::Sorted::new(samples);
    let at = |p| samples.percentile(p).unwrap_or(f64::NAN);
    println!(
        "{name}: n = {}, p50 = {:.3} {unit}, p95 = {:.3} {unit}, max = {:.3} {unit}",
        samples.len(),
        at(50),
        at(95),
        at(100)
    );
}

fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap_or(0)
}

/// CPU time of the calling thread, in seconds (the scheduler's count, in ns).
fn thread_cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    stat.split_whitespace().next().and_then(|v| v.parse::<u64>().ok()).unwrap_or(0) as f64 / 1e9
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let seconds = env_or("SECONDS", if full { 20 } else { 2 });
    println!("tactus-lichess benchmark ({})", if full { "full" } else { "smoke run" });
    follower_cost(if full { 20 } else { 2 });
    let server = StubServer::start();
    round_trips(&server, if full { 12 } else { 1 });
    keep_alives(&server, if full { 7200 } else { 500 });
    for boards in [100, 1000] {
        push(&server, boards, Duration::from_secs(seconds));
    }
}

// ---------------------------------------------------------------- follower

fn game_full(moves: &str) -> String {
    format!(
        r#"{{"type":"gameFull","id":"Bench001","variant":{{"key":"standard","name":"Standard"}},"clock":{{"initial":5400000,"increment":30000}},"speed":"classical","perf":{{"name":"Classical"}},"rated":false,"createdAt":1,"white":{{"id":"player","name":"Player"}},"black":{{"id":"rival","name":"Rival"}},"initialFen":"startpos","state":{}}}"#,
        game_state(moves, "started")
    )
}

fn game_state(moves: &str, status: &str) -> String {
    format!(
        r#"{{"type":"gameState","moves":"{moves}","wtime":5400000,"btime":5390000,"winc":30000,"binc":30000,"status":"{status}"}}"#
    )
}

fn uci_game(seed: u64, plies: usize) -> Vec<String> {
    tactus_sim::random_game(seed, plies, false).moves.iter().map(|&m| UciMove::from_standard(m).to_string()).collect()
}

fn follower_cost(games: u64) {
    let mut samples = Vec::new();
    for seed in 0..games {
        let moves = uci_game(seed, 200);
        let mut f = Follower::new(Color::White);
        f.stream_opened();
        f.server(serde_json::from_str(&game_full("")).unwrap()).unwrap();
        f.drain().for_each(drop);
        for i in 0..moves.len() {
            let line = game_state(&moves[..=i].join(" "), "started");
            let t = Instant::now();
            let event: GameEvent = serde_json::from_str(&line).unwrap();
            f.server(event).unwrap();
            let n = f.drain().count();
            if i % 2 == 1 {
                samples.push(t.elapsed().as_secs_f64() * 1e6);
            }
            std::hint::black_box(n);
        }
    }
    summary("follower: the opponent's gameState line parsed and followed", samples, "µs");
}

// ---------------------------------------------------------------- the stub server

/// What the stub shares with the bench: the lines its streams write, the
/// move POSTs it read, the pushes it answered.
#[derive(Default)]
struct Shared {
    events: Mutex<Option<mpsc::UnboundedSender<Bytes>>>,
    game: Mutex<Option<mpsc::UnboundedSender<Bytes>>>,
    /// The game the game stream serves, and its moves so far.
    current: Mutex<(String, String)>,
    moves: Mutex<Option<mpsc::UnboundedSender<(String, Instant)>>>,
    pushes: AtomicU64,
    push_bytes: AtomicU64,
    push_games: AtomicU64,
}

struct StubServer {
    url: String,
    shared: Arc<Shared>,
}

impl StubServer {
    /// On its own thread and runtime, as a remote server would be.
    fn start() -> StubServer {
        let shared = Arc::new(Shared::default());
        let (tx, rx) = std::sync::mpsc::channel();
        let s = shared.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap()).unwrap();
                loop {
                    let (stream, _) = listener.accept().await.unwrap();
                    stream.set_nodelay(true).unwrap();
                    tokio::spawn(connection(stream, s.clone()));
                }
            });
        });
        let addr = rx.recv().unwrap();
        StubServer { url: format!("http://{addr}"), shared }
    }

    fn client(&self) -> Client {
        let settings = Settings { url: self.url.clone(), ..Settings::default() };
        Client::new(Token::new("lip_bench").unwrap(), settings).unwrap()
    }

    fn event_line(&self, line: &str) {
        if let Some(tx) = &*self.shared.events.lock().unwrap() {
            let _ = tx.send(Bytes::from(format!("{line}\n")));
        }
    }

    fn game_line(&self, line: &str) {
        if let Some(tx) = &*self.shared.game.lock().unwrap() {
            let _ = tx.send(Bytes::from(format!("{line}\n")));
        }
    }
}

async fn write_chunk(w: &mut (impl AsyncWriteExt + Unpin), data: &[u8]) -> std::io::Result<()> {
    w.write_all(format!("{:x}\r\n", data.len()).as_bytes()).await?;
    w.write_all(data).await?;
    w.write_all(b"\r\n").await?;
    w.flush().await
}

async fn reply(w: &mut (impl AsyncWriteExt + Unpin), body: &str) -> std::io::Result<()> {
    let head = format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n", body.len());
    w.write_all(head.as_bytes()).await?;
    w.write_all(body.as_bytes()).await?;
    w.flush().await
}

/// One connection: requests one after another; a stream keeps it.
async fn connection(stream: TcpStream, shared: Arc<Shared>) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    loop {
        let mut request = String::new();
        if read.read_line(&mut request).await? == 0 {
            return Ok(());
        }
        let mut length = 0;
        loop {
            let mut line = String::new();
            read.read_line(&mut line).await?;
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
        let arrived = Instant::now();
        let mut body = vec![0; length];
        read.read_exact(&mut body).await?;
        let mut parts = request.split_whitespace();
        let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        if method == "GET" && (path == "/api/stream/event" || path.starts_with("/api/board/game/stream/")) {
            let (tx, mut rx) = mpsc::unbounded_channel::<Bytes>();
            let first = if path == "/api/stream/event" {
                *shared.events.lock().unwrap() = Some(tx);
                None
            } else {
                *shared.game.lock().unwrap() = Some(tx);
                Some(game_full(&shared.current.lock().unwrap().1))
            };
            write
                .write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n",
                )
                .await?;
            if let Some(first) = first {
                write_chunk(&mut write, format!("{first}\n").as_bytes()).await?;
            }
            loop {
                match tokio::time::timeout(Duration::from_secs(7), rx.recv()).await {
                    Ok(Some(line)) => write_chunk(&mut write, &line).await?,
                    Ok(None) => return Ok(()),
                    Err(_) => write_chunk(&mut write, b"\n").await?,
                }
            }
        } else if method == "POST" && path.contains("/move/") {
            let uci = path.rsplit('/').next().unwrap_or("").to_string();
            if let Some(tx) = &*shared.moves.lock().unwrap() {
                let _ = tx.send((uci, arrived));
            }
            reply(&mut write, r#"{"ok":true}"#).await?;
        } else if method == "POST" && path.ends_with("/push") {
            let text = String::from_utf8_lossy(&body);
            let games = text.matches("[Event ").count();
            shared.pushes.fetch_add(1, Ordering::Relaxed);
            shared.push_bytes.fetch_add(body.len() as u64, Ordering::Relaxed);
            shared.push_games.fetch_add(games as u64, Ordering::Relaxed);
            let one = r#"{"tags":{},"moves":1}"#;
            reply(&mut write, &format!(r#"{{"games":[{}]}}"#, vec![one; games].join(","))).await?;
        } else {
            reply(&mut write, r#"{"ok":true}"#).await?;
        }
    }
}

// ---------------------------------------------------------------- round trips

fn round_trips(server: &StubServer, games: u64) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (move_tx, mut move_rx) = mpsc::unbounded_channel();
    *server.shared.moves.lock().unwrap() = Some(move_tx);
    rt.block_on(async {
        let (play, mut updates) =
            Play::start(server.client(), PlayOptions::default(), &tokio_util::sync::CancellationToken::new());
        let mut opponent_ms = Vec::new();
        let mut ours_ms = Vec::new();
        let mut events_open = false;
        for seed in 0..games {
            let id = format!("Bench{seed:03}");
            *server.shared.current.lock().unwrap() = (id.clone(), String::new());
            // The event stream opens once; wait for it before the first game.
            while !events_open {
                tokio::time::sleep(Duration::from_millis(1)).await;
                events_open = server.shared.events.lock().unwrap().is_some();
            }
            server.event_line(&format!(
                r#"{{"type":"gameStart","game":{{"gameId":"{id}","color":"white","compat":{{"board":true}}}}}}"#
            ));
            until(&mut updates, |u| matches!(u, Update::Game { action: Action::Started(_), .. })).await;
            let moves = uci_game(1000 + seed, 200);
            let mut pos = Chess::default();
            for (i, uci) in moves.iter().enumerate() {
                let so_far = moves[..=i].join(" ");
                if pos.turn() == Color::White {
                    let t0 = Instant::now();
                    play.command(Command::Game {
                        id: id.clone(),
                        what: GameCommand::Move { uci: uci.clone(), offering_draw: false },
                    })
                    .unwrap();
                    let (got, t1) = move_rx.recv().await.unwrap();
                    assert_eq!(&got, uci);
                    ours_ms.push(t1.duration_since(t0).as_secs_f64() * 1e3);
                    server.shared.current.lock().unwrap().1 = so_far.clone();
                    server.game_line(&game_state(&so_far, "started"));
                    until(&mut updates, |u| matches!(u, Update::Game { action: Action::Confirmed { .. }, .. })).await;
                } else {
                    server.shared.current.lock().unwrap().1 = so_far.clone();
                    let t2 = Instant::now();
                    server.game_line(&game_state(&so_far, "started"));
                    until(&mut updates, |u| matches!(u, Update::Game { action: Action::Move(_), .. })).await;
                    opponent_ms.push(t2.elapsed().as_secs_f64() * 1e3);
                }
                let m = UciMove::from_ascii(uci.as_bytes()).unwrap().to_move(&pos).unwrap();
                let _ = SanPlus::from_move_and_play_unchecked(&mut pos, m);
            }
            server.game_line(&game_state(&moves.join(" "), "resign"));
            until(&mut updates, |u| matches!(u, Update::Game { action: Action::Ended(_), .. })).await;
        }
        summary("the opponent's move line written → Update::Game(Move) at the owner", opponent_ms, "ms");
        summary("the owner's move command → POST …/move/{uci} read by the server", ours_ms, "ms");
        drop(play);
    });
}

async fn until(updates: &mut mpsc::Receiver<Update>, f: impl Fn(&Update) -> bool) {
    let wait = async {
        loop {
            if f(&updates.recv().await.expect("the actor runs")) {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), wait).await.expect("the update comes");
}

fn keep_alives(server: &StubServer, lines: usize) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        *server.shared.events.lock().unwrap() = None;
        let (play, mut updates) = Play::start(server.client(), PlayOptions::default(), &tokio_util::sync::CancellationToken::new());
        *server.shared.current.lock().unwrap() = ("KeepA001".into(), String::new());
        while server.shared.events.lock().unwrap().is_none() {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        server
            .event_line(r#"{"type":"gameStart","game":{"gameId":"KeepA001","color":"white","compat":{"board":true}}}"#);
        until(&mut updates, |u| matches!(u, Update::Game { action: Action::Started(_), .. })).await;
        // Keep-alives on both streams, 200 at a time, each batch followed by
        // a chat line that must come through (so nothing piles up in the stub).
        let mut rss = Vec::new();
        for batch in 0..lines.div_ceil(200) {
            for _ in 0..200 {
                server.game_line("");
                server.event_line("");
            }
            server.game_line(&format!(r#"{{"type":"chatLine","room":"player","username":"rival","text":"{batch}"}}"#));
            until(&mut updates, |u| matches!(u, Update::Game { action: Action::Chat { .. }, .. })).await;
            rss.push(rss_kb());
        }
        server.game_line(&game_state("", "aborted"));
        until(&mut updates, |u| matches!(u, Update::Game { action: Action::Ended(_), .. })).await;
        println!(
            "keep-alives: {lines} on each stream (two hours at one a second); memory (VmRSS) after the first 200: {} kB, halfway: {} kB, at the end: {} kB",
            rss[0],
            rss[rss.len() / 2],
            rss_kb()
        );
        drop(play);
    });
}

// ---------------------------------------------------------------- push

struct HallGame {
    board: u32,
    sans: Vec<String>,
    white: String,
    black: String,
}

impl HallGame {
    fn pgn(&self, plies: usize) -> String {
        let mut out = String::with_capacity(64 * plies + 400);
        let tags = Tags {
            event: Some("Club championship"),
            site: Some("Club hall"),
            date: Some("2026.05.01"),
            round: Some("3"),
            white: Some(&self.white),
            black: Some(&self.black),
            result: "*",
            extra: vec![("Board", self.board.to_string())],
            time_control: Some("5400+30"),
            ..Tags::default()
        };
        write_tags(&mut out, &tags);
        let written = self.sans[..plies].iter().enumerate().map(|(i, san)| Written {
            san,
            clock_ms: Some(5_400_000 - 20_000 * i as i64),
            before: Vec::new(),
            comments: Vec::new(),
            stood_illegal: false,
        });
        write_movetext(&mut out, 1, Color::White, written, &[], "*");
        out
    }
}

fn push(server: &StubServer, boards: usize, run: Duration) {
    let games: Vec<HallGame> = (1..=boards as u32)
        .map(|b| {
            let spec = tactus_sim::random_game(u64::from(b), 160, false);
            let mut pos = Chess::default();
            let sans =
                spec.moves.iter().map(|&m| SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string()).collect();
            HallGame { board: b, sans, white: format!("Player {b}a"), black: format!("Player {b}b") }
        })
        .collect();
    let rounds: Vec<RoundSpec> = (0..boards.div_ceil(100))
        .map(|r| format!("Round{r:03}={}-{}", r * 100 + 1, (r + 1) * 100).parse().unwrap())
        .collect();
    let options = PushOptions::new(rounds).unwrap();
    let whole_bytes: usize = games.iter().map(|g| g.pgn(g.sans.len().min(60)).len()).sum();

    // The pure part: a whole push of every round put together.
    let mut plan = Plan::new(&options);
    for g in &games {
        plan.set(g.board, g.pgn(g.sans.len().min(60)).into()).unwrap();
    }
    let t = Instant::now();
    let mut now = Instant::now();
    let mut built = 0;
    while let Next::Push(p) = plan.next(now) {
        built += p.body.len();
        plan.done(
            &p,
            &Ok(PushReply {
                games: p
                    .boards
                    .iter()
                    .map(|_| PushedGame { tags: Default::default(), moves: Some(1), error: None })
                    .collect(),
            }),
            now,
        );
        now += Duration::from_millis(1);
    }
    println!(
        "push, {boards} boards: every round's whole push put together in {:.2} ms ({} kB)",
        t.elapsed().as_secs_f64() * 1e3,
        built / 1024
    );

    // The pusher on its own thread and runtime: its CPU time is that thread's.
    let (handle_tx, handle_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let client = server.client();
    let pusher_thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let pusher = Arc::new(Pusher::start(client, options, &TaskTracker::new(), &CancellationToken::new()));
            handle_tx.send(pusher.clone()).unwrap();
            let start = thread_cpu_s();
            let _ = stop_rx.await;
            let cpu = thread_cpu_s() - start;
            (cpu, pusher.status().borrow().clone())
        })
    });
    let pusher = handle_rx.recv().unwrap();
    let shared = &server.shared;
    let counts = || {
        (
            shared.pushes.load(Ordering::Relaxed),
            shared.push_bytes.load(Ordering::Relaxed),
            shared.push_games.load(Ordering::Relaxed),
        )
    };
    let before = counts();
    // Every board mid-game; then each moves every 30 s on average.
    let mut plies: HashMap<u32, usize> = games.iter().map(|g| (g.board, g.sans.len().min(60))).collect();
    for g in &games {
        pusher.set_game(g.board, g.pgn(plies[&g.board])).unwrap();
    }
    let start = Instant::now();
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut changes = 0u64;
    let mut render = Duration::ZERO;
    while start.elapsed() < run {
        for g in &games {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            // 0.1 s ticks: a move with probability 1/300 per tick.
            if rng.is_multiple_of(300) && plies[&g.board] < g.sans.len() {
                let n = plies[&g.board] + 1;
                plies.insert(g.board, n);
                let t = Instant::now();
                let pgn = g.pgn(n);
                render += t.elapsed();
                pusher.set_game(g.board, pgn).unwrap();
                changes += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let elapsed = start.elapsed().as_secs_f64();
    stop_tx.send(()).unwrap();
    let (cpu, status) = pusher_thread.join().unwrap();
    let after = counts();
    let (pushes, bytes, pushed_games) = (after.0 - before.0, after.1 - before.1, after.2 - before.2);
    let rounds = boards.div_ceil(100) as u64;
    // The first push of each round is whole; the rest carry the games that changed.
    let later = pushes.saturating_sub(rounds).max(1) as f64;
    println!(
        "push, {boards} boards in {rounds} round(s), {elapsed:.0} s: {changes} changes, {pushes} pushes ({:.2}/s), {:.0} kB ({:.1} kB/s); a round's whole push {:.0} kB; later pushes {:.1} games, {:.1} kB on average; pusher CPU {:.3} s ({:.2} % of a core); errors {}",
        pushes as f64 / elapsed,
        bytes as f64 / 1024.0,
        bytes as f64 / 1024.0 / elapsed,
        whole_bytes as f64 / rounds as f64 / 1024.0,
        (pushed_games.saturating_sub(boards as u64)) as f64 / later,
        (bytes as f64 - whole_bytes as f64).max(0.0) / later / 1024.0,
        cpu,
        cpu / elapsed * 100.0,
        status.errors.len(),
    );
    println!("  (the relay's own PGN rendering of those changes took {:.2} s, not counted)", render.as_secs_f64());
}
