//! Each boundary of the daemon with its peer misbehaving (issue 19): the
//! game task's latency — a clock press to its `complete` event, or for the
//! engine a typed question to its answer — idle and under attack, SIGTERM
//! to exit under attack, and the daemon's resident memory before, at its
//! peak during and after the attack.
//!
//! The attacks: a DGT client flooding board requests and never reading; a
//! clock line flooded with garbage; an engine that crashes at every search;
//! a broker stopped (SIGSTOP: it takes connections and reads nothing) and a
//! broker away; 1,000 slow HTTP clients (half a request head each); 300
//! clients that ask for the page's largest file and never read it, and 20
//! that never read an 8 MB reply; a reader
//! of the events (`--events -`) and one of the voice's text that never read.
//!
//! `cargo bench -p tactus --bench boundaries` (needs mosquitto: ./setup);
//! `ONLY=HTTP` runs the scenarios whose name contains it.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "../tests/common/mod.rs"]
mod common;
mod support;
use common::{empty_config, fake_engine, free_port, mosquitto, raise_open_files, shell_script, signal, tempdir};
use support::{KNIGHTS, ms, pct, status_kb};

/// Daemons started per scenario.
const RUNS: usize = 3;
/// Knights out and back, four times.
const PLIES: usize = 16;
const SLOW_CLIENTS: usize = 1000;
const UNREAD_CLIENTS: usize = 300;
const BIG_CLIENTS: usize = 20;
const BIG_REPLY: usize = 8 << 20;

fn rss_kb(pid: u32) -> u64 {
    status_kb(pid, "VmRSS:").unwrap_or(0)
}

/// Where the bench reads the daemon's events.
enum Channel {
    /// `--events -`.
    Stdout,
    /// `--events FIFO`: the daemon's standard output is left to an attack.
    Fifo,
    /// The page's event stream (`/events`), when the events log is attacked.
    Sse,
}

/// What the bench measures: presses, or questions (the engine's turn
/// never comes to an end while it crashes).
#[derive(Clone, Copy, PartialEq)]
enum Measure {
    Presses,
    Questions,
}

struct Daemon {
    child: Child,
    board: ChildStdin,
    events: Receiver<Value>,
    stdout: Option<ChildStdout>,
    http: u16,
    dir: PathBuf,
}

/// Reads JSON events from `r`, one a line, into a channel.
fn json_lines(r: impl Read + Send + 'static) -> Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str(&line)
                && tx.send(v).is_err()
            {
                break;
            }
        }
    });
    rx
}

/// The page's event stream: each board update's event.
fn sse_events(port: u16) -> Receiver<Value> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "GET /events HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(s).lines().map_while(Result::ok) {
            if let Some(data) = line.strip_prefix("data:")
                && let Ok(v) = serde_json::from_str::<Value>(data.trim())
                && v.get("event").is_some()
                && tx.send(v["event"].clone()).is_err()
            {
                break;
            }
        }
    });
    rx
}

impl Daemon {
    fn start(dir: &Path, more: &[OsString], channel: Channel) -> Daemon {
        let http = free_port();
        let fifo = dir.join("events.fifo");
        let events_arg: OsString = match channel {
            Channel::Stdout | Channel::Sse => "-".into(),
            Channel::Fifo => {
                let _ = std::fs::remove_file(&fifo);
                assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success(), "mkfifo");
                fifo.clone().into()
            }
        };
        // The FIFO's reader first: the daemon's open waits for one.
        let fifo_events = matches!(channel, Channel::Fifo).then(|| {
            let fifo = fifo.clone();
            let (tx, rx) = mpsc::channel();
            std::thread::spawn(move || {
                let file = std::fs::File::open(fifo).unwrap();
                for line in BufReader::new(file).lines().map_while(Result::ok) {
                    if let Ok(v) = serde_json::from_str::<Value>(&line)
                        && tx.send(v).is_err()
                    {
                        break;
                    }
                }
            });
            rx
        });
        let mut child = Command::new(env!("CARGO_BIN_EXE_tactus"))
            .arg("run")
            .arg("--config")
            .arg(empty_config())
            .args(["--board", "sim", "--time-control", "-", "--state-dir"])
            .arg(dir.join("state"))
            .args(["--http", &format!("127.0.0.1:{http}")])
            .args(if more.iter().any(|a| a == "--web") {
                Vec::new()
            } else {
                vec![OsString::from("--web"), Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/dist").into()]
            })
            .arg("--events")
            .arg(events_arg)
            .args(more)
            .args(if more.iter().any(|a| a == "--voice") { &[][..] } else { &["--voice", "none"][..] })
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("tactus runs");
        support::ready(child.stderr.take().unwrap(), "http: serving on");
        let mut stdout = child.stdout.take();
        let events = match channel {
            Channel::Stdout => json_lines(stdout.take().unwrap()),
            Channel::Fifo => fifo_events.unwrap(),
            Channel::Sse => sse_events(http),
        };
        let board = child.stdin.take().unwrap();
        Daemon { child, board, events, stdout, http, dir: dir.to_path_buf() }
    }

    fn type_line(&mut self, line: &str) {
        writeln!(self.board, "{line}").unwrap();
        self.board.flush().unwrap();
    }

    /// The next event of `kind` (for `ply`, if given).
    fn event(&self, kind: &str, ply: Option<usize>) -> Value {
        loop {
            let v = self.events.recv_timeout(Duration::from_secs(60)).expect("the daemon's events");
            if v["event"] == kind && ply.is_none_or(|p| v["ply"] == p as u64) {
                return v;
            }
        }
    }

    /// SIGTERM to exit.
    fn terminate(mut self) -> Duration {
        let t0 = Instant::now();
        assert!(signal("-TERM", self.child.id()));
        let status = self.child.wait().unwrap();
        let took = t0.elapsed();
        assert!(status.success(), "{status}");
        drop(self.stdout.take());
        took
    }
}

/// An attack under way; it stops when dropped.
struct Attack {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
    /// What else it holds (connections, processes), dropped with it.
    held: Vec<Box<dyn Send>>,
}

impl Attack {
    fn none() -> Attack {
        Attack { stop: Arc::new(AtomicBool::new(false)), threads: Vec::new(), held: Vec::new() }
    }

    /// Runs `f` on a thread until the attack stops.
    fn looping(mut self, mut f: impl FnMut() -> bool + Send + 'static) -> Attack {
        let stop = Arc::clone(&self.stop);
        self.threads.push(std::thread::spawn(move || while !stop.load(Ordering::Relaxed) && f() {}));
        self
    }
}

impl Drop for Attack {
    /// Its threads stop at their next turn; one blocked on a line whose
    /// reader is gone (the daemon stopped) is left behind.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.threads.clear();
        self.held.clear();
    }
}

/// The daemon's arguments, and what must live as long as it (a broker).
type Args = (Vec<OsString>, Vec<Box<dyn Send>>);

/// A scenario: the daemon's arguments, where its events are read, what is
/// measured, and the attack, started once the daemon is up.
struct Scenario {
    name: &'static str,
    bound: &'static str,
    channel: fn() -> Channel,
    measure: Measure,
    args: fn(&Path) -> Args,
    attack: fn(&mut Daemon) -> Attack,
}

/// The simulated clock, from the daemon's arguments to its attack.
static CLOCK: std::sync::Mutex<Option<tactus_clockdev::sim::SimClock>> = std::sync::Mutex::new(None);

fn no_args(_: &Path) -> Args {
    (Vec::new(), Vec::new())
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "idle",
            bound: "-",
            channel: || Channel::Stdout,
            measure: Measure::Presses,
            args: no_args,
            attack: |_| Attack::none(),
        },
        Scenario {
            name: "DGT client: floods 0x42, never reads",
            bound: "1,024-input mailbox; newest answer only after 1 s unread",
            channel: || Channel::Stdout,
            measure: Measure::Presses,
            args: |dir| (vec!["--dgt-emulate".into(), dir.join("dgt").into()], Vec::new()),
            attack: |d| {
                let mut line = std::fs::OpenOptions::new().read(true).write(true).open(d.dir.join("dgt")).unwrap();
                Attack::none().looping(move || line.write_all(&[0x42; 64]).is_ok())
            },
        },
        Scenario {
            name: "clock: its line flooded with garbage",
            bound: "64 reports; 10 garbled lines / 10 s, the rest counted",
            channel: || Channel::Stdout,
            measure: Measure::Presses,
            args: |dir| {
                let path = dir.join("clock");
                let clock = tactus_clockdev::sim::SimClock::plug(tactus_clockdev::DeviceKind::Open, &path).unwrap();
                *CLOCK.lock().unwrap() = Some(clock);
                (vec!["--clock".into(), "open".into(), "--clock-path".into(), path.into()], Vec::new())
            },
            attack: |_| {
                let clock = CLOCK.lock().unwrap().take().expect("the simulated clock");
                let line = format!("GARBAGE {}\n", "x".repeat(90));
                let chunk = line.repeat(64 * 1024 / line.len());
                Attack::none().looping(move || {
                    clock.inject(chunk.as_bytes());
                    true
                })
            },
        },
        Scenario {
            name: "engine: crashes at every search",
            bound: "8 requests (latest of each kind); retry 1 s doubling to 10 s",
            channel: || Channel::Stdout,
            measure: Measure::Questions,
            args: |dir| {
                let script = dir.join("engine.sh");
                shell_script(&script, &format!("exec '{}' --go crash", fake_engine().display()));
                (vec!["--engine".into(), script.into(), "--engine-plays".into(), "black".into()], Vec::new())
            },
            attack: |d| {
                // White's move makes the engine's turn, which never ends.
                d.type_line("e2e4");
                d.type_line("w");
                d.event("complete", Some(1));
                Attack::none()
            },
        },
        Scenario {
            name: "broker: stopped (SIGSTOP), takes nothing",
            bound: "1,024 changes, 64 in the client; back-off 0.5 s to 15 s",
            channel: || Channel::Stdout,
            measure: Measure::Presses,
            args: |dir| {
                let port = free_port();
                let broker = mosquitto(port, dir);
                std::fs::write(dir.join("broker.pid"), broker.0.id().to_string()).unwrap();
                let args = vec!["--mqtt".into(), format!("127.0.0.1:{port}").into(), "--board-id".into(), "b1".into()];
                (args, vec![Box::new(broker) as Box<dyn Send>])
            },
            attack: |d| {
                let pid = std::fs::read_to_string(d.dir.join("broker.pid")).unwrap();
                assert!(signal("-STOP", pid));
                Attack::none()
            },
        },
        Scenario {
            name: "broker: away (nothing listens)",
            bound: "as above",
            channel: || Channel::Stdout,
            measure: Measure::Presses,
            args: |_| {
                let args = vec!["--mqtt".into(), format!("127.0.0.1:{}", free_port()).into()];
                (args, Vec::new())
            },
            attack: |_| Attack::none(),
        },
        Scenario {
            name: "HTTP: 1,000 slow clients (half a head each)",
            bound: "connections: open files - 256 (64..2,048); a head in 10 s",
            channel: || Channel::Stdout,
            measure: Measure::Presses,
            args: no_args,
            attack: |d| {
                let mut attack = Attack::none();
                for _ in 0..SLOW_CLIENTS {
                    let mut s = std::net::TcpStream::connect(("127.0.0.1", d.http)).unwrap();
                    s.write_all(b"GET /games.pgn HTTP/1.1\r\nHost: loc").unwrap();
                    attack.held.push(Box::new(s));
                }
                attack
            },
        },
        Scenario {
            name: "HTTP: 300 clients never read app.js.map (396 KB)",
            bound: "a reply waits 10 s for its client",
            channel: || Channel::Stdout,
            measure: Measure::Presses,
            args: no_args,
            attack: |d| unread(d.http, "/assets/app.js.map", UNREAD_CLIENTS),
        },
        Scenario {
            name: "HTTP: 20 clients never read an 8 MB reply",
            bound: "a reply waits 10 s for its client",
            channel: || Channel::Stdout,
            measure: Measure::Presses,
            args: |dir| {
                // A page with one large file: more than the kernel's buffers hold.
                std::fs::create_dir_all(dir.join("web/assets")).unwrap();
                std::fs::write(dir.join("web/index.html"), "<!doctype html>").unwrap();
                std::fs::write(dir.join("web/assets/big.js"), vec![b'x'; BIG_REPLY]).unwrap();
                (vec!["--web".into(), dir.join("web").into()], Vec::new())
            },
            attack: |d| unread(d.http, "/assets/big.js", BIG_CLIENTS),
        },
        Scenario {
            name: "events log: --events - never read",
            bound: "1,024 lines, then dropped and counted",
            channel: || Channel::Sse,
            measure: Measure::Presses,
            args: no_args,
            attack: |d| {
                // Many events, far more than the pipe and the queue hold.
                d.type_line(&"board\n".repeat(5000));
                Attack::none()
            },
        },
        Scenario {
            name: "voice: its text on a stdout never read",
            bound: "256 utterances; 1,024 lines a stream",
            channel: || Channel::Fifo,
            measure: Measure::Presses,
            args: |_| (vec!["--voice".into(), "text".into()], Vec::new()),
            attack: |d| {
                d.type_line(&"board\n".repeat(2000));
                Attack::none()
            },
        },
    ]
}

/// `clients` that ask for `path` with a small receive window and never read.
fn unread(port: u16, path: &str, clients: usize) -> Attack {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut attack = Attack::none();
    for _ in 0..clients {
        let s = rt.block_on(async {
            use tokio::io::AsyncWriteExt;
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.set_recv_buffer_size(4096).unwrap();
            let mut s = socket.connect(([127, 0, 0, 1], port).into()).await.unwrap();
            s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes()).await.unwrap();
            s.into_std().unwrap()
        });
        attack.held.push(Box::new(s));
    }
    attack
}

struct Figures {
    latency: Vec<Duration>,
    term: Vec<Duration>,
    before: Vec<u64>,
    peak: Vec<u64>,
    /// 12 s into an HTTP attack, the attackers still there.
    held: Vec<u64>,
    /// Once they have gone.
    after: Vec<u64>,
}

/// One daemon under `s`: its latencies, SIGTERM and memory.
fn run(s: &Scenario, i: usize, f: &mut Figures) {
    let dir = tempdir(&format!("bench-{i}"));
    let (args, held) = (s.args)(&dir);
    let mut d = Daemon::start(&dir, &args, (s.channel)());
    let pid = d.child.id();
    // Its memory settled after the start.
    std::thread::sleep(Duration::from_millis(500));
    f.before.push(rss_kb(pid));
    let peak = Arc::new(AtomicU64::new(0));
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = {
        let (peak, sampling) = (Arc::clone(&peak), Arc::clone(&sampling));
        std::thread::spawn(move || {
            while sampling.load(Ordering::Relaxed) {
                peak.fetch_max(rss_kb(pid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let attack = (s.attack)(&mut d);
    match s.measure {
        Measure::Presses => {
            for ply in 1..=PLIES {
                let (mv, side) = KNIGHTS[(ply - 1) % KNIGHTS.len()];
                d.type_line(mv);
                d.event("move", Some(ply));
                let t0 = Instant::now();
                d.type_line(side);
                d.event("complete", Some(ply));
                f.latency.push(t0.elapsed());
            }
        }
        Measure::Questions => {
            for _ in 0..PLIES {
                let t0 = Instant::now();
                d.type_line("board");
                d.event("position", None);
                f.latency.push(t0.elapsed());
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
    f.term.push(d.terminate());
    sampling.store(false, Ordering::Relaxed);
    sampler.join().unwrap();
    f.peak.push(peak.load(Ordering::Relaxed));
    drop(attack);
    drop(held);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Memory through an HTTP attack, in a daemon that stays up: before, at the
/// peak, 12 s on with the attackers still there (past the server's 10 s
/// timeouts), and once they are gone.
fn memory_over_time(s: &Scenario, f: &mut Figures) {
    let dir = tempdir("bench-after");
    let (args, held) = (s.args)(&dir);
    let mut d = Daemon::start(&dir, &args, (s.channel)());
    let pid = d.child.id();
    std::thread::sleep(Duration::from_millis(500));
    let before = rss_kb(pid);
    let attack = (s.attack)(&mut d);
    let mut peak = before;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(12) {
        peak = peak.max(rss_kb(pid));
        std::thread::sleep(Duration::from_millis(20));
    }
    f.held.push(rss_kb(pid));
    drop(attack);
    std::thread::sleep(Duration::from_secs(2));
    f.after.push(rss_kb(pid));
    f.before.push(before);
    f.peak.push(peak);
    d.terminate();
    drop(held);
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    raise_open_files(SLOW_CLIENTS + 200);
    println!(
        "| boundary, attack | bound | latency p50 | p99 | max | SIGTERM → exit max | RSS before | peak | at 12 s, attackers there | after they go |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let only = std::env::var("ONLY").unwrap_or_default();
    for s in scenarios().into_iter().filter(|s| s.name.contains(&only)) {
        let mut f = Figures {
            latency: Vec::new(),
            term: Vec::new(),
            before: Vec::new(),
            peak: Vec::new(),
            held: Vec::new(),
            after: Vec::new(),
        };
        for i in 0..RUNS {
            run(&s, i, &mut f);
        }
        if s.name.starts_with("HTTP") {
            memory_over_time(&s, &mut f);
        }
        let what = if s.measure == Measure::Questions { " (question → answer)" } else { "" };
        let mb = |v: &[u64]| v.iter().max().map_or("-".to_string(), |kb| format!("{:.1} MB", *kb as f64 / 1024.0));
        println!(
            "| {}{what} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            s.name,
            s.bound,
            ms(pct(&f.latency, 50)),
            ms(pct(&f.latency, 99)),
            ms(pct(&f.latency, 100)),
            ms(pct(&f.term, 100)),
            mb(&f.before),
            mb(&f.peak),
            mb(&f.held),
            mb(&f.after),
        );
    }
}
