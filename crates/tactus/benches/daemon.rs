//! The daemon's footprint: resident memory while the sim board plays a real
//! game through the whole pipeline (journal, core, HTTP feed, MQTT to a real
//! mosquitto), resident memory while 40 MB of garbage floods the clock's
//! serial line, and CPU use while idle. `cargo bench -p tactus --bench daemon`
//! (needs mosquitto: ./setup installs it).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../tests/common/mod.rs"]
mod common;
mod support;
use common::{free_port, mosquitto, tempdir};
use support::status_kb;

/// utime + stime, in clock ticks.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &text[text.rfind(')')? + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

fn main() {
    let bin = env!("CARGO_BIN_EXE_tactus");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let state = tempdir("bench");

    // 1. A whole blitz game at 10× speed, with the HTTP feed on and the
    // events published to a broker.
    let (port, mqtt) = (free_port(), free_port());
    let broker = mosquitto(mqtt, &state);
    let mut child = Command::new(bin)
        .args(["run", "--board", "sim", "--sim-speed", "10", "--voice", "none", "--sim-trace"])
        .arg(root.join("assets/demo.trace.jsonl"))
        .arg("--state-dir")
        .arg(state.join("play"))
        .arg("--http")
        .arg(format!("127.0.0.1:{port}"))
        .args(["--mqtt", &format!("127.0.0.1:{mqtt}"), "--hall", "bench", "--board-id", "b1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let started = Instant::now();
    let mut peak = 0;
    while started.elapsed() < Duration::from_secs(50) {
        if let Some(kb) = status_kb(pid, "VmHWM:") {
            peak = peak.max(kb);
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        // The game is over when the feed says so; then the daemon serves on.
        if started.elapsed() > Duration::from_secs(2) {
            let feed = common::http::get(port, "/games.pgn");
            if feed.is_some_and(|t| t.contains("[Result \"1-0\"]")) {
                peak = peak.max(status_kb(pid, "VmHWM:").unwrap_or(0));
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    drop(broker);
    println!(
        "tactus run, sim board, a 87-ply blitz game at 10x with journal, HTTP feed and MQTT: peak resident memory {:.1} MB ({} kB)",
        peak as f64 / 1024.0,
        peak
    );

    // 2. 40 MB of garbage lines on the clock's serial line (a pseudo-terminal).
    let clock_path = state.join("clock");
    let clock = tactus_clockdev::sim::SimClock::plug(tactus_clockdev::DeviceKind::Open, &clock_path).unwrap();
    let mut child = Command::new(bin)
        .args(["run", "--board", "sim", "--voice", "none", "--clock", "open", "--clock-path"])
        .arg(&clock_path)
        .arg("--state-dir")
        .arg(state.join("flood"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    std::thread::sleep(Duration::from_secs(1));
    let before = status_kb(pid, "VmHWM:").unwrap_or(0);
    let line = format!("GARBAGE {}\n", "x".repeat(90));
    let chunk = line.repeat(64 * 1024 / line.len());
    let (mut sent, t0) = (0, Instant::now());
    while sent < 40 << 20 {
        clock.inject(chunk.as_bytes());
        sent += chunk.len();
    }
    let secs = t0.elapsed().as_secs_f64();
    std::thread::sleep(Duration::from_secs(1));
    let after = status_kb(pid, "VmHWM:").unwrap_or(0);
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    let logged = String::from_utf8_lossy(&out.stderr).lines().count();
    println!(
        "tactus run, 40 MB of garbage on the clock's line in {secs:.1} s: peak resident memory {:.1} MB before, {:.1} MB after; {logged} log lines",
        before as f64 / 1024.0,
        after as f64 / 1024.0
    );

    // 3. Idle: the typed sim board waiting for input, for ten seconds.
    let mut child = Command::new(bin)
        .args(["run", "--board", "sim", "--voice", "none", "--state-dir"])
        .arg(state.join("idle"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    std::thread::sleep(Duration::from_secs(1));
    let (t0, c0) = (Instant::now(), cpu_ticks(pid).unwrap());
    std::thread::sleep(Duration::from_secs(10));
    let (secs, c1) = (t0.elapsed().as_secs_f64(), cpu_ticks(pid).unwrap());
    let rss = status_kb(pid, "VmRSS:").unwrap_or(0);
    drop(child.stdin.take());
    let _ = child.wait();
    // Clock ticks are 1/100 s on Linux.
    println!(
        "tactus run idle (sim board, no input): CPU {:.2} % of one core over {secs:.0} s, resident {:.1} MB",
        (c1 - c0) as f64 / secs,
        rss as f64 / 1024.0
    );
    println!("(the matrix scan loop alone: cargo run --release -p tactus-board --example idle_cpu)");
    let _ = std::fs::remove_dir_all(&state);
}
