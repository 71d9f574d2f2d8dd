//! The test server (tests/server/lichess_server.py, written from Lichess's
//! API reference), started for each test on its own port, and its control
//! endpoints.

#![allow(dead_code)] // each test binary uses its own part

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use tactus_lichess::http::{Client, Settings};
use tactus_lichess::token::Token;

/// The token with `board:play`, and the one with `study:write`.
pub const BOARD_TOKEN: &str = "lip_board_test";
pub const STUDY_TOKEN: &str = "lip_study_test";
/// The account's name on the test server.
pub const USER: &str = "Player";

pub struct Server {
    child: Child,
    pub url: String,
    port: u16,
}

impl Server {
    /// Starts the server; returns once it said it listens. Keep-alive lines
    /// come every `keepalive` seconds.
    pub fn start(keepalive: f64) -> Server {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/server/lichess_server.py");
        let mut child = Command::new("python3")
            .arg(script)
            .args(["--user", USER, "--keepalive", &keepalive.to_string()])
            .args(["--token", &format!("{BOARD_TOKEN}=board:play,challenge:read,challenge:write")])
            .args(["--token", &format!("{STUDY_TOKEN}=study:write")])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs the Lichess test server (python3 with python-chess is required)");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).expect("the server's first line");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("the Lichess test server did not start: {line:?}"))
            .to_string();
        let port = url.rsplit(':').next().unwrap().parse().unwrap();
        Server { child, url, port }
    }

    /// A client of the test server with the given token; a 429 pauses it for
    /// `pause`, a stream silent for `silence` is taken for dead.
    pub fn client(&self, token: &str, pause: Duration, silence: Duration) -> Client {
        let settings = Settings { url: self.url.clone(), pause_after_429: pause, silence, ..Settings::default() };
        Client::new(Token::new(token).unwrap(), settings).unwrap()
    }

    pub async fn post(&self, path: &str, body: Value) -> Value {
        let (port, path, body) = (self.port, path.to_string(), body.to_string());
        tokio::task::spawn_blocking(move || control(port, "POST", &path, &body)).await.unwrap()
    }

    pub async fn get(&self, path: &str) -> Value {
        let (port, path) = (self.port, path.to_string());
        tokio::task::spawn_blocking(move || control(port, "GET", &path, "")).await.unwrap()
    }

    /// Waits (on the server, a long poll) until `count` requests whose
    /// `METHOD path` matches `pattern` came; panics after a minute.
    pub async fn wait_requests(&self, pattern: &str, count: usize) {
        let q = format!("/_test/wait?path={}&count={count}&timeout=60", urlencode(pattern));
        let got = self.get(&q).await["count"].as_u64().unwrap() as usize;
        assert!(got >= count, "{count} requests matching {pattern:?} expected, {got} came");
    }

    /// Waits until `count` pushes came.
    pub async fn wait_pushes(&self, count: usize) {
        let got =
            self.get(&format!("/_test/wait?what=pushes&count={count}&timeout=60")).await["count"].as_u64().unwrap();
        assert!(got as usize >= count, "{count} pushes expected, {got} came");
    }

    pub async fn log(&self) -> Vec<Value> {
        self.get("/_test/log").await.as_array().unwrap().clone()
    }
}

/// One request to the server's control endpoints (HTTP/1.0: the reply ends
/// with the connection).
fn control(port: u16, method: &str, path: &str, body: &str) -> Value {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("the test server");
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.0\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").expect("a reply");
    assert!(head.starts_with("HTTP/1.1 200") || head.starts_with("HTTP/1.0 200"), "{method} {path}: {head}\n{body}");
    serde_json::from_str(body).expect("JSON")
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn urlencode(s: &str) -> String {
    s.bytes().map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
}
