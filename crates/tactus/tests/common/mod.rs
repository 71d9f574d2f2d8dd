//! What the daemon's end-to-end tests (and its benches, which include this
//! module by path) share: directories and configurations of their own, the
//! daemon started and its events read as they come, child processes killed
//! however a test ends, a real mosquitto, HTTP/1.0 by hand, bounded waits.

#![allow(dead_code)] // each test binary uses its own part

pub mod dgt_client;
pub mod http;
pub mod lichess;
pub mod moves;
pub mod page;
pub mod stranger;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The workspace's root (the daemon serves `web/dist` from there).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A recorded trace of tests/traces, by its path there.
pub fn fixture(rel: &str) -> PathBuf {
    root().join("tests/traces").join(rel)
}

/// An empty directory of `name`'s own, named after the test binary and this
/// process so that concurrent runs never share one.
pub fn tempdir(name: &str) -> PathBuf {
    let binary = env!("CARGO_CRATE_NAME").replace('_', "-");
    let dir = std::env::temp_dir().join(format!("tactus-{binary}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An empty configuration of the tests' own: without `--config` the daemon
/// reads the machine's /etc/tactus/tactus.toml, whatever it says.
pub fn empty_config() -> PathBuf {
    let binary = env!("CARGO_CRATE_NAME").replace('_', "-");
    let path = std::env::temp_dir().join(format!("tactus-{binary}-empty-{}.toml", std::process::id()));
    std::fs::write(&path, "").unwrap();
    path
}

/// A file only its owner may read, as secrets must be.
pub fn secret(dir: &Path, name: &str, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path
}

/// An executable shell script at `path` running `body` (`exec '…'`).
pub fn shell_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A TCP port nothing listens on (the kernel's choice, given back).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// An installed program, by name; fails loudly when it is missing.
pub fn program(name: &str) -> PathBuf {
    ["/usr/sbin", "/usr/bin", "/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("{name} is not installed (./setup installs it)"))
}

/// Kills a child process when the test ends, pass or fail.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Sends the signal `kill -NAME` would (`"-TERM"`, `"-STOP"`) to `pid`;
/// whether it went. Sent from this process, not by starting `kill`: a test
/// that times a SIGTERM times the daemon, not a program's start.
pub fn signal(name: &str, pid: impl std::fmt::Display) -> bool {
    use rustix::process::{Pid, Signal, kill_process};
    let signal = match name {
        "-TERM" => Signal::TERM,
        "-KILL" => Signal::KILL,
        "-STOP" => Signal::STOP,
        "-CONT" => Signal::CONT,
        "-HUP" => Signal::HUP,
        "-INT" => Signal::INT,
        other => panic!("no such signal here: {other}"),
    };
    let Some(pid) = pid.to_string().trim().parse().ok().and_then(Pid::from_raw) else { return false };
    kill_process(pid, signal).is_ok()
}

/// Polls `check` until it holds; fails after `timeout` (a bound for
/// failure, not a time anything should take).
pub fn wait_for(what: &str, timeout: Duration, mut check: impl FnMut() -> bool) {
    let end = Instant::now() + timeout;
    while !check() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The soft limit on open files raised to the hard one (for many
/// clients; a daemon started after inherits it); the hard limit must allow them.
pub fn raise_open_files(needed: usize) {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap();
    let line = limits.lines().find(|l| l.starts_with("Max open files")).unwrap();
    let hard = line.split_whitespace().nth(4).unwrap();
    let hard_n = if hard == "unlimited" { usize::MAX } else { hard.parse().unwrap() };
    assert!(hard_n >= needed, "the hard limit on open files ({hard}) is below the {needed} this test needs");
    let pid = std::process::id().to_string();
    let status = Command::new(program("prlimit"))
        .args(["--pid", &pid, &format!("--nofile={hard}:{hard}")])
        .status()
        .expect("prlimit (util-linux) raises the limit on open files");
    assert!(status.success(), "prlimit --nofile={hard}");
}

/// A real mosquitto on `port`, open to anyone, its configuration in `dir`;
/// returned once it listens, killed when dropped.
pub fn mosquitto(port: u16, dir: &Path) -> Guard {
    let conf = dir.join("mosquitto.conf");
    std::fs::write(&conf, format!("listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")).unwrap();
    let child = Command::new(program("mosquitto"))
        .arg("-c")
        .arg(&conf)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let guard = Guard(child);
    wait_for("mosquitto to listen", Duration::from_secs(60), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    guard
}

/// A hall's broker and key in `dir`: a real mosquitto on a port of its
/// own (killed when dropped), its address for `--mqtt` and `--broker`, and
/// the hall key the boards share.
pub fn hall(dir: &Path) -> (Guard, String, PathBuf) {
    let port = free_port();
    let broker = mosquitto(port, dir);
    let key = secret(dir, "hall.key", "the club's hall key, shared by its boards\n");
    (broker, format!("127.0.0.1:{port}"), key)
}

/// The lines of `from` (a log, an output) as they come, read by a thread.
pub fn lines(from: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The next of `lines` that contains `needle`, the others skipped; fails
/// after `within` or when the lines end.
pub fn line_with(lines: &Receiver<String>, needle: &str, within: Duration) -> String {
    let end = Instant::now() + within;
    loop {
        match lines.recv_timeout(end.saturating_duration_since(Instant::now())) {
            Ok(line) if line.contains(needle) => return line,
            Ok(_) => {}
            Err(RecvTimeoutError::Timeout) => panic!("no line with {needle:?} within {within:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the lines ended before one with {needle:?}"),
        }
    }
}

/// `tactus run` with `config`, its state in `state`, silent, its events
/// (`--events -`) on a piped standard output and its log discarded; the
/// caller adds the board and the rest.
pub fn tactus_run(config: &Path, state: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tactus"));
    c.arg("run")
        .arg("--config")
        .arg(config)
        .arg("--state-dir")
        .arg(state)
        .args(["--voice", "none", "--events", "-"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    c
}

/// A daemon whose simulated board is typed at (its standard input).
pub struct Typed {
    pub child: Guard,
    pub stdin: ChildStdin,
}

impl Typed {
    /// Spawns `cmd` with its standard input piped, its output discarded.
    pub fn start(cmd: &mut Command) -> Typed {
        Typed::of(cmd.stdin(Stdio::piped()).stdout(Stdio::null()).spawn().unwrap())
    }

    /// `child`, spawned with its standard input piped.
    pub fn of(mut child: Child) -> Typed {
        let stdin = child.stdin.take().expect("the board's input is piped");
        Typed { child: Guard(child), stdin }
    }

    /// Types `line` on the board.
    pub fn say(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }
}

/// The daemon's events (`--events -`), read as they come.
pub struct EventStream {
    rx: std::sync::mpsc::Receiver<Value>,
    /// Every event received so far, in order.
    pub seen: std::cell::RefCell<Vec<Value>>,
}

impl EventStream {
    pub fn of(child: &mut Child) -> EventStream {
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(serde_json::from_str(&line).expect("each line is one JSON event")).is_err() {
                    break;
                }
            }
        });
        EventStream { rx, seen: Default::default() }
    }

    /// A stream that gives nothing (until replaced by a daemon's).
    pub fn empty() -> EventStream {
        let (_, rx) = std::sync::mpsc::channel();
        EventStream { rx, seen: Default::default() }
    }

    /// The next event of `kind`, skipping others; fails after a minute
    /// without one (a readiness wait, not a timing assumption).
    pub fn next(&self, kind: &str) -> Value {
        self.next_of(&[kind])
    }

    /// The next event of any of `kinds`, skipping others.
    pub fn next_of(&self, kinds: &[&str]) -> Value {
        self.next_where(&format!("{kinds:?}"), |e| kinds.iter().any(|k| e["event"] == *k))
    }

    /// The next event, whatever its kind.
    pub fn next_any(&self) -> Value {
        self.next_where("any", |_| true)
    }

    fn next_where(&self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            match self.rx.recv_timeout(Duration::from_secs(60)) {
                Ok(e) => {
                    self.seen.borrow_mut().push(e.clone());
                    if wanted(&e) {
                        return e;
                    }
                }
                Err(e) => {
                    let seen = self.seen.borrow();
                    let last: Vec<String> = seen.iter().rev().take(12).rev().map(Value::to_string).collect();
                    panic!("no {what} event: {e}; the last events:\n{}", last.join("\n"))
                }
            }
        }
    }
}

/// The engine crate's misbehaving UCI engine, built for the test or bench
/// in its profile (cargo builds only this package's binaries for them).
pub fn fake_engine() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let mut cargo = Command::new(env!("CARGO"));
            cargo.args(["build", "-p", "tactus-engine", "--bin", "tactus-fake-uci", "--message-format=json"]);
            if !cfg!(debug_assertions) {
                cargo.arg("--release");
            }
            let out = cargo.stderr(Stdio::inherit()).output().expect("cargo runs");
            assert!(out.status.success(), "cargo build -p tactus-engine --bin tactus-fake-uci failed");
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .find_map(|m| {
                    (m["target"]["name"] == "tactus-fake-uci").then(|| m["executable"].as_str().map(PathBuf::from))?
                })
                .expect("cargo names the fake engine's executable")
        })
        .clone()
}
