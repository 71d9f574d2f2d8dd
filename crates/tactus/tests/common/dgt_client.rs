//! A DGT client written from DGT's protocol description (the dgt crate's
//! test client, Python, sharing no code with tactus).

use std::io::Write;
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use serde_json::Value;

use super::{Guard, lines, root};

/// The client on the line at a path, killed when dropped.
pub struct DgtClient {
    pub child: Guard,
    stdin: ChildStdin,
    out: Receiver<String>,
}

impl DgtClient {
    pub fn start(path: &Path) -> DgtClient {
        DgtClient::start_with(path, &[])
    }

    /// The client with more arguments (`--dump-after SECONDS`).
    pub fn start_with(path: &Path, more: &[&str]) -> DgtClient {
        let child = Command::new("python3")
            .arg(root().join("crates/dgt/tests/client/dgt_client.py"))
            .arg(path)
            .args(more)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the documents-written DGT client (./setup installs python3)");
        let mut child = Guard(child);
        let stdin = child.0.stdin.take().unwrap();
        let out = lines(child.0.stdout.take().unwrap());
        DgtClient { child, stdin, out }
    }

    /// What the client says next (a JSON line), within a minute; it must
    /// not be a fault it found.
    pub fn next(&self) -> Value {
        let wait = Duration::from_secs(60);
        let line =
            self.out.recv_timeout(wait).unwrap_or_else(|e| panic!("the DGT client: nothing within {wait:?} ({e})"));
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("client line {line:?}: {e}"));
        assert!(v.get("error").is_none(), "the DGT client found a fault: {v}");
        v
    }

    /// A command to the client (`garbage`, `reconnect`, `quit`, …).
    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
    }

    /// Every board the client sees through field updates, until `last`.
    pub fn follow_to(&self, last: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let v = self.next();
            if let Some(b) = v.get("board").and_then(Value::as_str) {
                seen.push(b.to_string());
                if b == last {
                    return seen;
                }
            }
        }
    }

    /// The board the client read when it introduced itself.
    pub fn introduced(&self) -> String {
        loop {
            let v = self.next();
            if v.get("ready").is_some() {
                return v["board"].as_str().unwrap().to_string();
            }
        }
    }
}
