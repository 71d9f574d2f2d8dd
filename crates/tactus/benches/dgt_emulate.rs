//! `--dgt-emulate` through the daemon on a pty: a sensor edge (typed on the
//! sim board) to its FIELD_UPDATE on the wire, and a board dump request to
//! its reply; then the game's own latency — a clock press to its `complete`
//! event — and SIGTERM to exit, idle and while a client floods the line
//! with board requests and never reads (issue 19).
//! `cargo bench -p tactus --bench dgt_emulate`.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

#[path = "../tests/common/mod.rs"]
mod common;
mod support;
use common::{empty_config, lines, signal, tempdir};
use support::{KNIGHTS, pct};

const ROUNDS: usize = 200;
/// Daemons started for the press and SIGTERM figures, each way.
const RUNS: usize = 10;
/// Knights out and back, three times.
const PLIES: usize = 12;

/// Reads messages until one with id `want`; returns its data.
fn read_until(port: &mut dyn Read, want: u8) -> Vec<u8> {
    let mut head = [0u8; 3];
    loop {
        port.read_exact(&mut head[..1]).expect("read");
        if head[0] & 0x80 == 0 {
            continue;
        }
        port.read_exact(&mut head[1..]).expect("read");
        let len = ((head[1] as usize) << 7 | head[2] as usize).saturating_sub(3);
        let mut data = vec![0; len];
        port.read_exact(&mut data).expect("read");
        if head[0] == want {
            return data;
        }
    }
}

fn main() {
    field_updates();
    for attack in [false, true] {
        let (mut press, mut term) = (Vec::new(), Vec::new());
        for run in 0..RUNS {
            game_under(attack, run, &mut press, &mut term);
        }
        let how = if attack { "a client flooding 0x42, never reading" } else { "idle" };
        println!(
            "{how}: press -> complete event: p50 {:?}, p99 {:?}, max {:?} ({} presses); SIGTERM -> exit: p50 {:?}, max {:?} ({RUNS} runs)",
            pct(&press, 50),
            pct(&press, 99),
            pct(&press, 100),
            press.len(),
            pct(&term, 50),
            pct(&term, 100),
        );
    }
}

/// A daemon on a typed board serving the emulation at a pty in `dir`, with
/// its events; returned once the line is open.
fn daemon(dir: &Path, events: bool) -> (Child, ChildStdin, Receiver<String>) {
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("run")
        .arg("--config")
        .arg(empty_config())
        .args(["--board", "sim", "--time-control", "-", "--state-dir"])
        .arg(dir.join("state"))
        .args(["--voice", "none", "--events", if events { "-" } else { "/dev/null" }, "--dgt-emulate"])
        .arg(dir.join("dgt"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tactus runs");
    support::ready(daemon.stderr.take().unwrap(), "serving a DGT board at");
    let events = lines(daemon.stdout.take().unwrap());
    let board = daemon.stdin.take().unwrap();
    (daemon, board, events)
}

/// Waits for the event `kind` of ply `ply`.
fn event(events: &Receiver<String>, kind: &str, ply: usize) {
    loop {
        let line = events.recv_timeout(Duration::from_secs(60)).expect("the daemon's events");
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        if v["event"] == kind && v["ply"] == ply as u64 {
            return;
        }
    }
}

/// One daemon: [`PLIES`] presses timed to their `complete` event, then
/// SIGTERM timed to the exit; with `attack`, a client floods the line with
/// board requests and reads nothing all along.
fn game_under(attack: bool, run: usize, press: &mut Vec<Duration>, term: &mut Vec<Duration>) {
    let dir = tempdir(&format!("bench-game-{attack}-{run}"));
    let (mut daemon, mut board, events) = daemon(&dir, true);
    let stop = Arc::new(AtomicBool::new(false));
    let flood = attack.then(|| {
        let mut line = std::fs::OpenOptions::new().read(true).write(true).open(dir.join("dgt")).unwrap();
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if line.write_all(&[0x42; 64]).is_err() {
                    break;
                }
            }
        })
    });
    for ply in 1..=PLIES {
        let (mv, side) = KNIGHTS[(ply - 1) % KNIGHTS.len()];
        writeln!(board, "{mv}").unwrap();
        event(&events, "move", ply);
        let t0 = Instant::now();
        writeln!(board, "{side}").unwrap();
        event(&events, "complete", ply);
        press.push(t0.elapsed());
    }
    let t0 = Instant::now();
    assert!(signal("-TERM", daemon.id()));
    let status = daemon.wait().unwrap();
    term.push(t0.elapsed());
    assert!(status.success(), "{status}");
    stop.store(true, Ordering::Relaxed);
    if let Some(flood) = flood {
        let _ = flood.join();
    }
    drop(board);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A sensor edge to its FIELD_UPDATE, a dump request to its reply.
fn field_updates() {
    let dir = tempdir("bench-field-updates");
    let (mut daemon, mut board, _events) = daemon(&dir, false);
    let link = dir.join("dgt");
    let mut port = serialport::new(link.to_str().unwrap(), 9600)
        .timeout(Duration::from_secs(30))
        .open_native()
        .expect("the pty opens");
    port.write_all(&[0x4B]).unwrap(); // DGT_SEND_UPDATE_NICE
    port.write_all(&[0x42]).unwrap(); // DGT_SEND_BRD
    read_until(&mut port, 0x86);
    let (mut edge, mut dump) = (Vec::new(), Vec::new());
    for i in 0..ROUNDS {
        let (typed, piece) = if i % 2 == 0 { ("e2-", 0) } else { ("e2+", 1) };
        let t0 = Instant::now();
        writeln!(board, "{typed}").unwrap();
        loop {
            let d = read_until(&mut port, 0x8E);
            // Field 52 is e2 (a8 = 0); 1 is a white pawn, 0 empty.
            if d == [52, piece] {
                break;
            }
        }
        edge.push(t0.elapsed());
        let t0 = Instant::now();
        port.write_all(&[0x42]).unwrap();
        read_until(&mut port, 0x86);
        dump.push(t0.elapsed());
    }
    drop(board);
    let _ = daemon.wait();
    for (name, v) in [("edge -> FIELD_UPDATE", &mut edge), ("dump -> reply", &mut dump)] {
        println!("{name}: p50 {:?}, p99 {:?}, max {:?} ({ROUNDS} rounds)", pct(v, 50), pct(v, 99), pct(v, 100));
    }
}
