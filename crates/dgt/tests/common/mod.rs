//! What the tests share: a game as the emulated board shows it, square by
//! square, a client process whose JSON lines are read with a bound, and
//! the recordings' base64.

#![allow(dead_code)] // Each test binary uses its own part of this module.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::Value;
use shakmaty::{Chess, Move, Position, Square};
use tactus_dgt::protocol::{Occupant, Placement};

/// How long a test waits for a line before it fails (a bound, not a pause).
pub const WAIT: Duration = Duration::from_secs(30);

/// The placements the board shows while `m` is played from `pos`: every
/// piece that leaves a square is lifted first (the mover, a captured piece,
/// a castling rook), then every piece is put down — one square changing at
/// a time, as the game knows it (a piece in the air is off the board).
pub fn steps(pos: &Chess, m: Move) -> Vec<Placement> {
    let before = Placement::from_board(pos.board());
    let mut next = pos.clone();
    next.play_unchecked(m);
    let after = Placement::from_board(next.board());
    let changed: Vec<Square> = before.diff(&after).collect();
    let mut p = before;
    let mut out = Vec::new();
    let from = m.from();
    let lifts = changed.iter().filter(|sq| before.get(**sq).is_occupied());
    // The mover first, as a hand does.
    let mut lifts: Vec<Square> = lifts.copied().collect();
    lifts.sort_by_key(|sq| Some(*sq) != from);
    for sq in lifts {
        p.set(sq, Occupant::Empty);
        out.push(p);
    }
    for sq in changed.iter().filter(|sq| after.get(**sq).is_occupied()) {
        p.set(*sq, after.get(*sq));
        out.push(p);
    }
    assert_eq!(p, after);
    out
}

/// The board part of a FEN, as DGT fields a8…h1 read.
pub fn fen(p: &Placement) -> String {
    p.board().to_string()
}

/// A long random game from tactus's simulator, and its moves.
pub fn game(seed: u64) -> (Chess, Vec<Move>) {
    let spec = tactus_sim::random_game(seed, 400, false);
    (spec.start_position().expect("a legal start"), spec.moves)
}

/// A process speaking JSON lines on its standard output.
pub struct Client {
    pub child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
}

impl Client {
    /// Starts `program args…`; fails loudly if it cannot.
    pub fn spawn(program: &str, args: &[&str], what: &str) -> Client {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("{what} needs `{program}`, which could not be started ({e}); ./setup installs it")
            });
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("client wrote {line:?}: {e}"));
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        Client { child, stdin, lines }
    }

    /// Sends one command line.
    pub fn tell(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("the client's stdin");
        self.stdin.flush().expect("the client's stdin");
    }

    /// The next line; fails after [`WAIT`] or on an `error` line.
    pub fn next(&self) -> Value {
        let v =
            self.lines.recv_timeout(WAIT).unwrap_or_else(|e| panic!("no line from the client within {WAIT:?}: {e}"));
        assert!(v.get("error").is_none(), "the client failed: {v}");
        v
    }

    /// Skips lines until one has `key`, collecting the skipped ones.
    pub fn until(&self, key: &str, skipped: &mut Vec<Value>) -> Value {
        loop {
            let v = self.next();
            if v.get(key).is_some() {
                return v;
            }
            skipped.push(v);
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Standard base64, as the recordings are written (one serial read a
/// line); `None` if it is not.
pub fn base64(line: &str) -> Option<Vec<u8>> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in line.trim().trim_end_matches('=').bytes() {
        let v = ALPHABET.iter().position(|a| *a == c)?;
        acc = (acc << 6 | v as u32) & 0xffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}
