//! What the daemon's end-to-end tests share: a configuration of their own
//! and the daemon's events as they come.

#![allow(dead_code)] // each test binary uses its own part

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::Child;
use std::time::Duration;

use serde_json::Value;

/// An empty configuration of the tests' own: without `--config` the daemon
/// reads the machine's /etc/tactus/tactus.toml, whatever it says.
pub fn empty_config() -> PathBuf {
    let path = std::env::temp_dir().join(format!("tactus-daemon-empty-{}.toml", std::process::id()));
    std::fs::write(&path, "").unwrap();
    path
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
        loop {
            match self.rx.recv_timeout(Duration::from_secs(60)) {
                Ok(e) => {
                    self.seen.borrow_mut().push(e.clone());
                    if kinds.iter().any(|k| e["event"] == *k) {
                        return e;
                    }
                }
                Err(e) => {
                    let seen = self.seen.borrow();
                    let last: Vec<String> = seen.iter().rev().take(12).rev().map(Value::to_string).collect();
                    panic!("no {kinds:?} event: {e}; the last events:\n{}", last.join("\n"))
                }
            }
        }
    }
}

/// The engine crate's misbehaving UCI engine, built for the test (cargo
/// builds only this package's binaries for its tests).
pub fn fake_engine() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let out = std::process::Command::new(env!("CARGO"))
                .args(["build", "-p", "tactus-engine", "--bin", "tactus-fake-uci", "--message-format=json"])
                .stderr(std::process::Stdio::inherit())
                .output()
                .expect("cargo runs");
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
