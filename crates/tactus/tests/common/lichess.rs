//! The Lichess test server (crates/lichess/tests/server, written from
//! Lichess's published API reference).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use super::http::request;
use super::{Guard, root};

/// The Lichess test server, killed when dropped.
pub struct LichessServer {
    _child: Guard,
    pub url: String,
    pub port: u16,
}

impl LichessServer {
    /// The server for user Arbiter, knowing `tokens` (`TOKEN=SCOPE,…`);
    /// returned once it listens.
    pub fn start(tokens: &[&str]) -> LichessServer {
        LichessServer::start_with(tokens, &[])
    }

    /// The same, with more of the server's flags (`--keepalive SECONDS`).
    pub fn start_with(tokens: &[&str], more: &[&str]) -> LichessServer {
        let mut c = Command::new("python3");
        c.arg(root().join("crates/lichess/tests/server/lichess_server.py")).args(["--user", "Arbiter"]);
        for t in tokens {
            c.args(["--token", t]);
        }
        c.args(more);
        let mut child = c
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the Lichess test server (python3 with python-chess is required)");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().strip_prefix("listening on ").expect("the Lichess test server started").to_string();
        let port = url.rsplit(':').next().unwrap().parse().unwrap();
        LichessServer { _child: Guard(child), url, port }
    }

    /// A request to the server's test controls (`/_test/…`), as JSON; a
    /// null `body` is none at all.
    pub fn control(&self, method: &str, path: &str, body: &Value) -> Value {
        let headers = "Content-Type: application/json\r\n";
        // The server reads no body of a GET: one left unread in its socket
        // turns its close into a reset, which can cut a long reply short.
        let body = if body.is_null() { String::new() } else { body.to_string() };
        let (status, text) = request(self.port, method, path, headers, &body).expect("the test server");
        assert_eq!(status, 200, "{path}: {text}");
        serde_json::from_str(&text).unwrap()
    }

    /// Every push the server took, in order.
    pub fn pushes(&self) -> Vec<Value> {
        self.control("GET", "/_test/pushes", &Value::Null).as_array().unwrap().clone()
    }

    /// Every request the server took, in order.
    pub fn log(&self) -> Vec<Value> {
        self.control("GET", "/_test/log", &Value::Null).as_array().unwrap().clone()
    }

    /// Waits (a long poll on the server) until `count` pushes came.
    pub fn wait_pushes(&self, count: usize) -> usize {
        let got = self.control("GET", &format!("/_test/wait?what=pushes&count={count}&timeout=60"), &Value::Null);
        got["count"].as_u64().unwrap() as usize
    }

    /// Waits (a long poll on the server) until `count` requests matching
    /// `pattern` (a regular expression on `METHOD /path`) are answered:
    /// what they asked is done.
    pub fn wait_answered(&self, pattern: &str, count: usize) {
        let pattern: String = pattern
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"/-_".contains(&b) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect();
        let path = format!("/_test/wait?path={pattern}&count={count}&answered=1&timeout=100");
        let got = self.control("GET", &path, &Value::Null)["count"].as_u64().unwrap() as usize;
        assert!(got >= count, "{count} requests matching {pattern} were not answered: {:?}", self.log());
    }

    /// Waits (a long poll on the server) until `count` requests matching
    /// `pattern` came in, answered or not (one held is in flight).
    pub fn wait_received(&self, pattern: &str, count: usize) {
        let path = format!("/_test/wait?path={pattern}&count={count}&timeout=100");
        let got = self.control("GET", &path, &Value::Null)["count"].as_u64().unwrap() as usize;
        assert!(got >= count, "{count} requests matching {pattern} did not come: {:?}", self.log());
    }

    /// Waits until game `id` has `count` moves on the server.
    pub fn wait_moves(&self, id: &str, count: usize) {
        let path = format!("/_test/wait?what=moves&game={id}&count={count}&timeout=100");
        let got = self.control("GET", &path, &Value::Null)["count"].as_u64().unwrap() as usize;
        assert!(got >= count, "game {id} has {got} moves, not {count}: {:?}", self.log());
    }

    /// A game for the account, `ours` its side, 30 minutes + 5 s.
    pub fn new_game(&self, ours: &str) -> String {
        let game =
            json!({"our_color": ours, "opponent": "Opponent", "clock": {"initial": 1_800_000, "increment": 5000}});
        self.control("POST", "/_test/game", &game)["id"].as_str().unwrap().to_string()
    }

    /// Game `id` as the server has it: `moves`, `status`, `draw`, `takeback`.
    pub fn game(&self, id: &str) -> Value {
        self.control("GET", &format!("/_test/game/{id}"), &Value::Null)
    }

    /// The opponent's act in game `id` (`move/e7e5`, `offer/draw`, `drop`…).
    pub fn opponent(&self, id: &str, what: &str) -> Value {
        self.control("POST", &format!("/_test/game/{id}/{what}"), &json!({}))
    }

    /// A fault the server answers matching requests with (`/_test/fault`).
    pub fn fault(&self, fault: Value) {
        self.control("POST", "/_test/fault", &fault);
    }
}
