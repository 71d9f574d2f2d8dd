//! Slow clients benchmark: 1,000 connections that say nothing or trickle
//! their request head a byte a second (and come back as soon as they are
//! closed), against a server set up as the daemon runs it: one thread, the
//! default limits, and a timer in the same runtime standing in for the
//! game's clock (the daemon's game loop and clock lines share that thread).
//!
//! Measured meanwhile: the latency of ordinary requests (`GET /api/hall`,
//! each on a new connection), how many of them failed, how late the 10 ms
//! timer fired, the server's open files, and its memory (VmRSS) idle,
//! under the load and after it, round after round: what the clients cost
//! must be given back once they are gone. The server runs in its own
//! process; so do the slow clients, 250 a process (as a Pi's default of
//! 1,024 files a process would have it).
//!
//! The server runs twice: with Linux's default limit of 1,024 open files
//! (a daemon started by hand; it then holds at most 768 connections) and
//! with the 4,096 the systemd unit gives it (2,048 connections), set with
//! `prlimit` (util-linux).
//!
//! `cargo bench -p tactus-net --bench http_load`; `SLOW` (1000), `SECONDS`
//! (30) and `ROUNDS` (5) set the load. `cargo test --benches` runs a short
//! smoke run.

use std::io::{BufRead, BufReader, Write as _};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tactus_net::{AppState, Hall, SharedHall, Tags, serve};
use tactus_sim::{Profile, random_game, simulate};
use tactus_stats::Sorted;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

mod support;
use support::env_or;

const ROLE: &str = "TACTUS_HTTP_BENCH_ROLE";
const PER_PROCESS: usize = 250;

fn main() {
    match std::env::var(ROLE).as_deref() {
        Ok("server") => server(),
        Ok(role) if role.starts_with("slow:") => {
            let (port, n) = role["slow:".len()..].split_once(',').expect("slow:PORT,N");
            slow_clients(port.parse().unwrap(), n.parse().unwrap());
        }
        _ => bench(),
    }
}

/// The server, alone in its process, on one thread like the daemon.
fn server() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let hall = SharedHall::new(Hall::new("bench"));
        let spec = random_game(7, 80, false);
        let (entries, _) = simulate(&spec, Profile::Realistic, 7);
        let mut header = spec.header();
        header.time_control = Some("5400+30".into());
        hall.set_tags("b1", Tags::from(&header));
        let mut session = tactus_core::Session::new(&header, tactus_core::Policy::default()).unwrap();
        for ev in session.drain() {
            hall.apply("b1", &ev, None);
        }
        for e in entries {
            session.handle(e);
            for ev in session.drain() {
                hall.apply("b1", &ev, None);
            }
        }
        let (tx, _rx) = tokio::sync::mpsc::channel(1);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!("http {}", listener.local_addr().unwrap().port());
        std::io::stdout().flush().unwrap();
        tokio::spawn(serve(listener, AppState::new(hall, tx), &CancellationToken::new()));
        // The game's clock: a 10 ms timer, and how late it fires.
        let clock = tokio::spawn(async {
            let mut late = Vec::new();
            let mut files = 0usize;
            let mut next = tokio::time::Instant::now();
            loop {
                next += Duration::from_millis(10);
                tokio::time::sleep_until(next).await;
                late.push(tokio::time::Instant::now().saturating_duration_since(next).as_secs_f64() * 1000.0);
                if late.len() % 10 == 0 {
                    files = files.max(std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count()));
                }
                if late.len() % 100 == 0 {
                    let sorted = Sorted::new(late.iter().copied());
                    let at = |p| sorted.percentile(p).unwrap_or(f64::NAN);
                    println!("clock late_ms p50={:.2} p99={:.2} max={:.2} files_max={files}", at(50), at(99), at(100));
                    std::io::stdout().flush().unwrap();
                }
            }
        });
        tokio::task::spawn_blocking(|| std::io::stdin().lines().count()).await.unwrap();
        clock.abort();
    });
}

/// `n` clients that connect and hold on: half say nothing, half trickle a
/// request head a byte a second; closed, each comes back at once.
fn slow_clients(port: u16, n: usize) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async move {
        for i in 0..n {
            tokio::spawn(async move {
                loop {
                    let Ok(mut s) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await else {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    };
                    if i % 2 == 0 {
                        // Silent: wait for the server to close.
                        let mut buf = [0u8; 64];
                        let _ = s.read(&mut buf).await;
                    } else {
                        for byte in b"GET /api/hall HTTP/1.1\r\nX-Slow: ".iter().cycle() {
                            if s.write_all(&[*byte]).await.is_err() {
                                break;
                            }
                            tokio::time::sleep(Duration::from_secs(1)).await;
                        }
                    }
                }
            });
        }
        tokio::task::spawn_blocking(|| std::io::stdin().lines().count()).await.unwrap();
    });
}

fn vm(pid: u32, field: &str) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix(field)).map_or("?".into(), |v| v.trim().to_string())
}

/// One ordinary request on a new connection; its latency, or why it failed.
async fn request(addr: SocketAddr) -> Result<f64, String> {
    let start = Instant::now();
    let go = async {
        let mut s = tokio::net::TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
        s.write_all(b"GET /api/hall HTTP/1.0\r\nHost: bench\r\n\r\n").await.map_err(|e| e.to_string())?;
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).await.map_err(|e| e.to_string())?;
        if reply.starts_with(b"HTTP/1.0 200") || reply.starts_with(b"HTTP/1.1 200") {
            Ok(())
        } else {
            Err(format!("{:?}", String::from_utf8_lossy(&reply[..reply.len().min(40)])))
        }
    };
    match tokio::time::timeout(Duration::from_secs(10), go).await {
        Ok(Ok(())) => Ok(start.elapsed().as_secs_f64() * 1000.0),
        Ok(Err(e)) => Err(e),
        Err(_) => Err("no answer in 10 s".into()),
    }
}

fn bench() {
    let full = std::env::args().any(|a| a == "--bench");
    let slow = env_or("SLOW", if full { 1000 } else { 100 }) as usize;
    let seconds = env_or("SECONDS", if full { 30 } else { 3 });
    let rounds = env_or("ROUNDS", if full { 5 } else { 2 }) as usize;
    println!(
        "http_load: {slow} slow clients (half silent, half trickling a byte a second, back at once when closed), \
         {rounds} rounds of {seconds} s"
    );
    for files in [1024, 4096] {
        run(files, slow, seconds, rounds);
    }
}

/// The server's resident memory (VmRSS) in kB.
fn rss_kb(pid: u32) -> u64 {
    vm(pid, "VmRSS:").trim_end_matches(" kB").trim().parse().unwrap_or(0)
}

fn run(files: usize, slow: usize, seconds: u64, rounds: usize) {
    let me = std::env::current_exe().unwrap();
    let prlimit = ["/usr/bin/prlimit", "/bin/prlimit"].into_iter().find(|p| std::path::Path::new(p).exists());
    let prlimit = prlimit.expect("prlimit (util-linux) sets the server's limit on open files");
    let mut server = Command::new(prlimit)
        .arg(format!("--nofile={files}:{files}"))
        .arg(&me)
        .env(ROLE, "server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(server.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let port: u16 = line.trim().strip_prefix("http ").and_then(|p| p.parse().ok()).expect("the server's port");
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let last_clock = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let clock_line = last_clock.clone();
    std::thread::spawn(move || {
        for line in out.lines().map_while(Result::ok) {
            *clock_line.lock().unwrap() = line;
        }
    });
    let rt = support::two_workers();
    let quiet = rt.block_on(sample(addr, Duration::from_secs(2)));
    let quiet_clock = last_clock.lock().unwrap().clone();
    let idle = rss_kb(server.id());
    println!("  server with {files} open files allowed:");
    println!("    without them: {}", quiet.summary());
    println!("      clock: {}", quiet_clock.trim_start_matches("clock "));
    println!("    server memory (VmRSS), idle: {idle} kB");

    for round in 1..=rounds {
        let mut attackers = Vec::new();
        for start in (0..slow).step_by(PER_PROCESS) {
            let n = PER_PROCESS.min(slow - start);
            attackers.push(
                Command::new(&me)
                    .env(ROLE, format!("slow:{port},{n}"))
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .spawn()
                    .unwrap(),
            );
        }
        // Let them all connect and start trickling.
        std::thread::sleep(Duration::from_secs(3));
        let loaded = rt.block_on(sample(addr, Duration::from_secs(seconds)));
        let during = rss_kb(server.id());
        let clock = last_clock.lock().unwrap().clone();
        for mut a in attackers {
            drop(a.stdin.take());
            let _ = a.kill();
            let _ = a.wait();
        }
        // Their connections close with their processes; the server sees
        // each end at its next read. Ordinary requests meanwhile.
        let after_sample = rt.block_on(sample(addr, Duration::from_secs(3)));
        let after = rss_kb(server.id());
        println!("    round {round}: with them: {}", loaded.summary());
        println!("      clock: {}", clock.trim_start_matches("clock "));
        println!(
            "      VmRSS {during} kB during, {after} kB after ({:+} kB on idle; {} requests after, {} failed)",
            after as i64 - idle as i64,
            after_sample.latencies.len(),
            after_sample.failures.len()
        );
    }
    println!("    peak VmHWM {}", vm(server.id(), "VmHWM:"));
    drop(server.stdin.take());
    let _ = server.wait();
}

struct Sample {
    latencies: Vec<f64>,
    failures: Vec<String>,
}

impl Sample {
    fn summary(&self) -> String {
        let s = Sorted::new(self.latencies.iter().copied());
        let at = |p| s.percentile(p).unwrap_or(f64::NAN);
        let first_failure = self.failures.first().map(|f| format!(" (first: {f})")).unwrap_or_default();
        format!(
            "{} requests, latency ms p50 {:.2} p99 {:.2} max {:.2}; {} failed{first_failure}",
            s.len(),
            at(50),
            at(99),
            at(100),
            self.failures.len(),
        )
    }
}

/// Ordinary requests back to back for `duration`.
async fn sample(addr: SocketAddr, duration: Duration) -> Sample {
    let end = Instant::now() + duration;
    let mut s = Sample { latencies: Vec::new(), failures: Vec::new() };
    while Instant::now() < end {
        match request(addr).await {
            Ok(ms) => s.latencies.push(ms),
            Err(e) => s.failures.push(e),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    s
}
