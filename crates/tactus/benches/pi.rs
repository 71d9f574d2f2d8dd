//! Pi-class figures (issue 31): the daemon on the sim board with espeak-ng
//! speech, its journal, HTTP and MQTT (a real mosquitto), playing the real
//! Stockfish at the lowest level — its whole process tree (espeak-ng and
//! Stockfish included) held to a share of one core by a cgroup's CPU
//! bandwidth (`cpu.cfs_quota_us` over `cpu.cfs_period_us`, or cgroup v2's
//! `cpu.max`): 100 %, 25 % (a Raspberry Pi 4) and 10 % (a Pi Zero 2 W).
//! Side by side, for each share:
//!
//! - the final settling edge of a move to its `move` event (the core's
//!   10 ms debounce and 100 ms settle time included), p50 and p95;
//! - a `move` event to the start of its spoken audio: espeak-ng has
//!   rendered it and the sound sink is handed the samples (the text line,
//!   which the `text+wav` sink writes just before the WAV file), p50, p95;
//! - the player's press to Stockfish's reply (`opponent_move`) at level 0;
//! - the 6.9 verdict at a flag fall (who can still mate: the search off the
//!   game loop, within its 8 s deadline), from the journal: a position the
//!   search settles (drawn), and one that spends the whole step budget;
//! - the daemon's peak resident memory, and Stockfish's.
//!
//! Why those shares, and what they mean for choosing a Pi: docs/
//! operator-guide.md, "Which Raspberry Pi". The period is 10 ms rather
//! than the kernel's default 100 ms: a Pi's core is slower all the time,
//! not stopped for 90 ms of every 100, and a 10 ms period keeps the
//! longest stall of a 10 % share to 9 ms.
//!
//! `cargo bench -p tactus --bench pi` (as root: it makes cgroups; needs
//! mosquitto, stockfish and espeak-ng, which ./setup installs).
//! `PI_MOVES=N` player moves per share (40), `PI_SHARES=100,25,10`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position, Role};

#[path = "../tests/common/mod.rs"]
mod common;
mod support;
use common::moves::{Lcg, carried_out, hands};
use common::{free_port, mosquitto, program, tempdir};
use support::{pct, status_kb};

const STOCKFISH: &str = "/usr/games/stockfish";
/// The cgroup's bandwidth period: see the module's doc.
const PERIOD_US: u64 = 10_000;
/// A hand's pace between the edges of one move (input pacing, not a wait
/// for anything to happen).
const HAND: Duration = Duration::from_millis(150);
/// A bound on waiting for what must come.
const WAIT: Duration = Duration::from_secs(120);
/// Flag falls: (what it shows, the position, the flag's side to move).
const FLAG_FALLS: [(&str, &str); 2] = [
    // CHA-Solver's README example (Lichess game ijyj0mHa): Black's flag
    // falls, White can mate: lost, settled by the search.
    ("settled: lost", "5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 b - - 0 60"),
    // CHA-Solver's community set: White's flag falls, and whether Black
    // can mate takes the search's whole step budget, slower per step than
    // any other question of the set (cargo bench -p tactus-mate --
    // --slowest 12): the worst case of the deadline.
    ("the whole budget", "8/3p1p1p/1p6/1P6/BP6/KP6/PP1P1P1P/k7 w - - 0 1"),
];

/// A cgroup holding what is started in it to `percent` of one core.
struct CpuShare {
    dir: PathBuf,
    percent: u64,
}

impl CpuShare {
    fn new(percent: u64) -> CpuShare {
        let name = format!("tactus-pi-bench-{}-{percent}", std::process::id());
        let quota = PERIOD_US * percent / 100;
        let v1 = Path::new("/sys/fs/cgroup/cpu");
        let (dir, v2) = if v1.join("cpu.cfs_quota_us").exists() {
            (v1.join(&name), false)
        } else {
            (Path::new("/sys/fs/cgroup").join(&name), true)
        };
        std::fs::create_dir(&dir).unwrap_or_else(|e| {
            panic!("cannot make the cgroup {} ({e}): run the bench as root, with the cpu controller", dir.display())
        });
        let share = CpuShare { dir, percent };
        // The quota is the Pi; the highest weight, so that other load on
        // this machine does not hold the group below it.
        if v2 {
            share.write("cpu.max", &format!("{quota} {PERIOD_US}"));
            share.write("cpu.weight", "10000");
        } else {
            share.write("cpu.cfs_period_us", &PERIOD_US.to_string());
            share.write("cpu.cfs_quota_us", &quota.to_string());
            share.write("cpu.shares", "262144");
        }
        share
    }

    fn write(&self, file: &str, value: &str) {
        std::fs::write(self.dir.join(file), value)
            .unwrap_or_else(|e| panic!("cannot write {value} to {}: {e}", self.dir.join(file).display()));
    }

    /// `program args…`, started inside the group: a shell puts itself in
    /// and then becomes the program, so nothing of it runs outside.
    fn command(&self, program: &Path) -> Command {
        let mut c = Command::new("/bin/sh");
        c.arg("-c").arg("echo $$ > \"$0\" && exec \"$@\"").arg(self.dir.join("cgroup.procs")).arg(program);
        c
    }

    /// Periods in which the group ran out of its quota, of all periods.
    fn throttled(&self) -> (u64, u64) {
        let stat = std::fs::read_to_string(self.dir.join("cpu.stat")).unwrap_or_default();
        let field =
            |name: &str| stat.lines().find_map(|l| l.strip_prefix(name)?.trim().parse::<u64>().ok()).unwrap_or(0);
        (field("nr_throttled "), field("nr_periods "))
    }
}

impl Drop for CpuShare {
    fn drop(&mut self) {
        // Only this bench's processes are in it; a group must be empty to go.
        let procs = std::fs::read_to_string(self.dir.join("cgroup.procs")).unwrap_or_default();
        for pid in procs.split_whitespace() {
            common::signal("-KILL", pid);
        }
        for _ in 0..100 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        eprintln!("could not remove {}", self.dir.display());
    }
}

/// What one share measured.
#[derive(Default)]
struct Figures {
    edge_to_move: Vec<f64>,
    move_to_audio: Vec<f64>,
    engine_reply: Vec<f64>,
    /// (what, ms from the flag to the verdict, the verdict).
    verdicts: Vec<(&'static str, f64, String)>,
    daemon_kb: u64,
    engine_kb: u64,
    throttled: (u64, u64),
}

/// Lines of a child's output, each with the instant it was read.
fn timed_lines(from: impl std::io::Read + Send + 'static) -> Receiver<(Instant, String)> {
    use std::io::BufRead;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(from).lines().map_while(Result::ok) {
            if tx.send((Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    rx
}

/// Events the voice says a line for, in the order it says them.
const SPOKEN: [&str; 4] = ["start", "move", "opponent_move", "game_over"];

/// The daemon playing Stockfish in the group, its events and its voice.
struct Game {
    child: Child,
    stdin: ChildStdin,
    events: Receiver<(Instant, String)>,
    /// Standard error: the log (`tactus: …`) and the voice's text lines.
    voice: Receiver<(Instant, String)>,
    /// Events read whose line the voice has not said yet, oldest first.
    unsaid: std::collections::VecDeque<(Instant, Value)>,
}

impl Game {
    fn start(share: &CpuShare, dir: &Path, n: usize, http: u16, mqtt: u16) -> Game {
        let bin = Path::new(env!("CARGO_BIN_EXE_tactus"));
        let mut child = share
            .command(bin)
            .arg("run")
            .arg("--config")
            .arg(dir.join("tactus.toml"))
            .arg("--state-dir")
            .arg(dir.join(format!("state-{}-{n}", share.percent)))
            .args(["--board", "sim", "--events", "-", "--voice"])
            .arg(format!("text+wav:{}", dir.join(format!("wav-{}-{n}", share.percent)).display()))
            .args(["--http", &format!("127.0.0.1:{http}")])
            .args(["--mqtt", &format!("127.0.0.1:{mqtt}"), "--hall", "pi", "--board-id", "b1"])
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("tactus runs");
        let stdin = child.stdin.take().unwrap();
        let events = timed_lines(child.stdout.take().unwrap());
        let voice = timed_lines(child.stderr.take().unwrap());
        Game { child, stdin, events, voice, unsaid: Default::default() }
    }

    fn type_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next event of one of `kinds`, with when it was read.
    fn next(&mut self, kinds: &[&str]) -> (Instant, Value) {
        loop {
            let (at, line) = self.events.recv_timeout(WAIT).expect("an event from the daemon");
            let event: Value = serde_json::from_str(&line).expect("an event is a JSON line");
            if SPOKEN.iter().any(|k| event["event"] == *k) {
                self.unsaid.push_back((at, event.clone()));
            }
            if kinds.iter().any(|k| event["event"] == *k) {
                return (at, event);
            }
        }
    }

    /// When the voice began to say `event` (read before): the lines of the
    /// events before it are said first.
    fn said_at(&mut self, event: &Value) -> Instant {
        loop {
            let (_, before) = self.unsaid.pop_front().expect("an event waits to be said");
            let (at, line) = self.said();
            // The engine's move is said as the engine's; the rest not.
            let engines = before["event"] == "opponent_move";
            assert_eq!(line.starts_with("Engine: "), engines, "{line:?} said for {before}");
            if before == *event {
                return at;
            }
        }
    }

    /// The next line the voice says (not a log line), with when it was read.
    fn said(&self) -> (Instant, String) {
        loop {
            match self.voice.recv_timeout(WAIT) {
                Ok((at, line)) if !line.starts_with("tactus: ") => return (at, line),
                Ok((_, line)) if line.starts_with("tactus: warning") || line.starts_with("tactus: error") => {
                    eprintln!("{line}");
                }
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => panic!("the voice said nothing within {WAIT:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("the daemon's standard error closed"),
            }
        }
    }

    /// Peak resident memory (kB) of the daemon and of its biggest child
    /// (Stockfish).
    fn memory(&self) -> (u64, u64) {
        let pid = self.child.id();
        let children: Vec<u32> = std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
            .flat_map(|c| c.split_whitespace().filter_map(|p| p.parse().ok()).collect::<Vec<u32>>())
            .collect();
        let engine = children.iter().filter_map(|c| status_kb(*c, "VmHWM:")).max().unwrap_or(0);
        (status_kb(pid, "VmHWM:").unwrap_or(0), engine)
    }

    /// SIGTERM: the daemon stops (it serves its page on after the typed
    /// board's end).
    fn end(mut self) {
        drop(self.stdin);
        common::signal("-TERM", self.child.id());
        let end = Instant::now() + WAIT;
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < end, "the daemon did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Plays one game against Stockfish (random moves of ours), adding to `f`
/// until it has `moves` samples.
fn play(share: &CpuShare, dir: &Path, n: usize, moves: usize, f: &mut Figures, http: u16, mqtt: u16) {
    let mut game = Game::start(share, dir, n, http, mqtt);
    game.next(&["start"]);
    let mut pos = Chess::default();
    let mut rng = Lcg(n as u64 + 1);
    while f.edge_to_move.len() < moves {
        let legal: Vec<Move> =
            pos.legal_moves().into_iter().filter(|m| m.promotion().is_none_or(|r| r == Role::Queen)).collect();
        let mv = legal[rng.below(legal.len())];
        let edges = hands(&pos, mv);
        let (last, before) = edges.split_last().unwrap();
        for edge in before {
            game.type_line(edge);
            std::thread::sleep(HAND);
        }
        let edge_at = Instant::now();
        game.type_line(last);
        let (moved_at, moved) = game.next(&["move"]);
        assert_eq!(moved["ply"], pos.fullmoves().get() * 2 - 1, "{moved}");
        f.edge_to_move.push(ms(moved_at - edge_at));
        let said_at = game.said_at(&moved);
        f.move_to_audio.push(ms(said_at - moved_at));
        let pressed = Instant::now();
        game.type_line("w");
        pos.play_unchecked(mv);
        let (replied_at, chosen) = game.next(&["opponent_move", "game_over"]);
        if chosen["event"] == "game_over" {
            break;
        }
        f.engine_reply.push(ms(replied_at - pressed));
        game.type_line(&carried_out(&chosen));
        let uci: UciMove = chosen["uci"].as_str().unwrap().parse().unwrap();
        pos.play_unchecked(uci.to_move(&pos).unwrap());
        game.next(&["complete"]);
        let (daemon, engine) = game.memory();
        f.daemon_kb = f.daemon_kb.max(daemon);
        f.engine_kb = f.engine_kb.max(engine);
        if pos.is_game_over() {
            break;
        }
    }
    game.end();
}

/// A flag falls one second into a game from `fen`: how long after it the
/// journal has the verdict of who can still mate, and the verdict.
fn flag_fall(share: &CpuShare, dir: &Path, what: &str, fen: &str) -> (f64, String) {
    let run = dir.join(format!("flag-{}-{}", share.percent, what.replace([' ', ':'], "-")));
    std::fs::create_dir_all(&run).unwrap();
    let trace = run.join("flag.trace.jsonl");
    const FLAG_MS: u64 = 1000;
    std::fs::write(
        &trace,
        format!(
            "{{\"tactus_trace\": 1, \"start_fen\": \"{fen}\", \"time_control\": \"{}\"}}\n{{\"t\": {}, \"end\": true}}\n",
            FLAG_MS / 1000,
            FLAG_MS + 500
        ),
    )
    .unwrap();
    std::fs::write(run.join("tactus.toml"), "").unwrap();
    let out = share
        .command(Path::new(env!("CARGO_BIN_EXE_tactus")))
        .arg("run")
        .arg("--config")
        .arg(run.join("tactus.toml"))
        .arg("--state-dir")
        .arg(run.join("state"))
        .args(["--board", "sim", "--voice", "none", "--sim-trace"])
        .arg(&trace)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("tactus runs");
    assert!(out.status.success(), "the flag-fall game ends cleanly");
    let games = run.join("state/games");
    let journal = std::fs::read_dir(&games).unwrap().filter_map(Result::ok).next().expect("a journal").path();
    let text = std::fs::read_to_string(journal).unwrap();
    // The question at the flag: can the other side mate? (A dead-position
    // question may have been asked at the start.)
    let opponent = if fen.split(' ').nth(1) == Some("w") { "black" } else { "white" };
    let verdict: Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["input"] == "verdict" && l["side"] == opponent && l["t"].as_u64() >= Some(FLAG_MS))
        .expect("the verdict at the flag fall is journaled");
    let t = verdict["t"].as_u64().unwrap();
    ((t - FLAG_MS) as f64, verdict["verdict"].as_str().unwrap().to_string())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    assert!(Path::new(STOCKFISH).exists(), "{STOCKFISH} is missing: apt-get install stockfish");
    program("espeak-ng");
    let moves: usize = std::env::var("PI_MOVES").map_or(40, |s| s.parse().expect("PI_MOVES=N"));
    let shares: Vec<u64> = std::env::var("PI_SHARES")
        .unwrap_or_else(|_| "100,25,10".into())
        .split(',')
        .map(|s| s.parse().expect("PI_SHARES=100,25,10"))
        .collect();
    let dir = tempdir("pi");
    std::fs::write(
        dir.join("tactus.toml"),
        format!("[game]\ntime_control = \"-\"\n\n[engine]\npath = \"{STOCKFISH}\"\nlevel = 0\n"),
    )
    .unwrap();
    let mqtt = free_port();
    let _broker = mosquitto(mqtt, &dir);
    let mut all = Vec::new();
    for &percent in &shares {
        let share = CpuShare::new(percent);
        let started = Instant::now();
        let mut f = Figures::default();
        let mut n = 0;
        while f.edge_to_move.len() < moves {
            play(&share, &dir, n, moves, &mut f, free_port(), mqtt);
            n += 1;
        }
        for (what, fen) in FLAG_FALLS {
            let (ms, verdict) = flag_fall(&share, &dir, what, fen);
            f.verdicts.push((what, ms, verdict));
        }
        f.throttled = share.throttled();
        eprintln!("{percent} % of a core: {n} games, {:.0} s", started.elapsed().as_secs_f64());
        all.push((percent, f));
    }
    report(&all);
    let _ = std::fs::remove_dir_all(&dir);
}

fn report(all: &[(u64, Figures)]) {
    let head: Vec<String> = all.iter().map(|(p, _)| format!("{p} % of a core")).collect();
    println!("{:<46} {}", "", head.iter().map(|h| format!("{h:>22}")).collect::<String>());
    let row = |name: &str, cells: Vec<String>| {
        println!("{name:<46} {}", cells.iter().map(|c| format!("{c:>22}")).collect::<String>());
    };
    let p50_p95 = |v: &[f64]| format!("{:.0} / {:.0} ms", pct(v, 50), pct(v, 95));
    row("moves measured", all.iter().map(|(_, f)| f.edge_to_move.len().to_string()).collect());
    row("settling edge → move, p50 / p95 (≤ 150 ms)", all.iter().map(|(_, f)| p50_p95(&f.edge_to_move)).collect());
    row("move → start of its audio, p50 / p95 (≤ 300)", all.iter().map(|(_, f)| p50_p95(&f.move_to_audio)).collect());
    row("press → Stockfish level 0 reply, p50 / p95", all.iter().map(|(_, f)| p50_p95(&f.engine_reply)).collect());
    for (i, (what, _)) in FLAG_FALLS.iter().enumerate() {
        row(
            &format!("6.9 verdict, {what} (≤ 8000 ms)"),
            all.iter().map(|(_, f)| format!("{:.0} ms {}", f.verdicts[i].1, f.verdicts[i].2)).collect(),
        );
    }
    row("peak RSS, tactus", all.iter().map(|(_, f)| format!("{:.1} MB", f.daemon_kb as f64 / 1024.0)).collect());
    // What a long session can add: the phrase cache filling to its bound.
    let cache_mb = tactus_speech::Voice::CACHE_BYTES as f64 / (1 << 20) as f64;
    row(
        &format!("  + a full phrase cache ({cache_mb:.0} MiB) (≤ 64 MB)"),
        all.iter().map(|(_, f)| format!("≤ {:.1} MB", f.daemon_kb as f64 / 1024.0 + cache_mb)).collect(),
    );
    row("peak RSS, Stockfish", all.iter().map(|(_, f)| format!("{:.1} MB", f.engine_kb as f64 / 1024.0)).collect());
    row(
        "periods throttled",
        all.iter()
            .map(|(_, f)| format!("{:.0} %", 100.0 * f.throttled.0 as f64 / f.throttled.1.max(1) as f64))
            .collect(),
    );
}
