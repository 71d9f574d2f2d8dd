//! One game on two boards, timed: from the press on board A (its line
//! written to the sim board) to `opponent_move` read from board B, through
//! a local mosquitto with a hall key, both ways, random legal moves; and
//! the time for a side SIGKILLed and restarted to be back in the game: from
//! starting it again to the move its partner made meanwhile announced on
//! it. At one table, the clock attached to board A: from Black's press
//! typed on board A to `complete` read from board B, where it completes
//! Black's move. `cargo bench -p tactus --bench pair` (needs mosquitto).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Role};

#[path = "../tests/common/mod.rs"]
mod common;
mod support;

use common::moves::{Lcg, hands};
use common::{Guard, free_port, mosquitto, secret, tempdir};

/// The edges of `mv` as one typed line.
fn hands_line(pos: &Chess, mv: Move) -> String {
    hands(pos, mv).join(" ")
}
use support::pct;

const SAMPLES: usize = 300;
const RESTARTS: usize = 10;
const TABLE_SAMPLES: usize = 150;

struct Board {
    id: &'static str,
    partner: &'static str,
    side: Color,
    /// `[pair] clock`.
    clock: &'static str,
    dir: PathBuf,
    port: u16,
    child: Option<Guard>,
    stdin: Option<ChildStdin>,
    events: mpsc::Receiver<(Instant, Value)>,
}

impl Board {
    fn start(dir: &Path, port: u16, id: &'static str, partner: &'static str, side: Color) -> Board {
        Board::with_clock(dir, port, id, partner, side, "own")
    }

    fn with_clock(
        dir: &Path,
        port: u16,
        id: &'static str,
        partner: &'static str,
        side: Color,
        clock: &'static str,
    ) -> Board {
        let mut board = Board {
            id,
            partner,
            side,
            clock,
            dir: dir.to_path_buf(),
            port,
            child: None,
            stdin: None,
            events: mpsc::channel().1,
        };
        board.spawn();
        board
    }

    fn spawn(&mut self) {
        let plays = if self.side == Color::White { "white" } else { "black" };
        let mut child = Command::new(env!("CARGO_BIN_EXE_tactus"))
            .arg("run")
            .arg("--config")
            .arg(self.dir.join("empty.toml"))
            .args(["--board", "sim", "--time-control", "-", "--voice", "none", "--events", "-", "--state-dir"])
            .arg(self.dir.join(format!("state-{}", self.id)))
            .args(["--mqtt", &format!("127.0.0.1:{}", self.port), "--hall", "bench", "--hall-key"])
            .arg(self.dir.join("hall.key"))
            .args(["--board-id", self.id, "--pair-with", self.partner, "--plays", plays, "--pair-clock", self.clock])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(self.dir.join(format!("{}.log", self.id)))
                    .unwrap(),
            )
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send((Instant::now(), serde_json::from_str(&line).unwrap())).is_err() {
                    break;
                }
            }
        });
        self.events = rx;
        self.stdin = child.stdin.take();
        self.child = Some(Guard(child));
    }

    fn type_line(&mut self, line: &str) {
        writeln!(self.stdin.as_mut().unwrap(), "{line}").unwrap();
    }

    fn next(&self, kind: &str) -> (Instant, Value) {
        loop {
            let (at, e) = self.events.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("no {kind}"));
            if e["event"] == kind {
                return (at, e);
            }
        }
    }

    fn kill(&mut self) {
        // Killed first: its input closing would end the sim board's recording.
        drop(self.child.take());
        drop(self.stdin.take());
    }
}

/// A hall's broker and key in a fresh directory.
fn hall(n: usize) -> (PathBuf, u16, Guard) {
    let dir = tempdir(&format!("hall-{n}"));
    std::fs::write(dir.join("empty.toml"), "").unwrap();
    secret(&dir, "hall.key", "a hall key for the bench, 32 bytes\n");
    let port = free_port();
    let broker = mosquitto(port, &dir);
    (dir, port, broker)
}

/// Makes a random legal move on the mover's board and carries it out on
/// the other: the time from the press to `opponent_move` there.
fn ply(boards: &mut [Board; 2], pos: &mut Chess, rng: &mut Lcg) -> f64 {
    let moves: Vec<Move> =
        pos.legal_moves().into_iter().filter(|m| m.promotion().is_none_or(|r| r == Role::Queen)).collect();
    let mv = moves[rng.below(moves.len())];
    let uci = mv.to_uci(CastlingMode::Standard).to_string();
    let (m, o) = if pos.turn() == Color::White { (0, 1) } else { (1, 0) };
    boards[m].type_line(&hands_line(pos, mv));
    boards[m].next("move");
    let press = if pos.turn() == Color::White { "w" } else { "b" };
    let pressed = Instant::now();
    boards[m].type_line(press);
    let (at, chosen) = boards[o].next("opponent_move");
    assert_eq!(chosen["uci"], uci.as_str());
    boards[o].type_line(&hands_line(pos, mv));
    boards[o].next("complete");
    pos.play_unchecked(mv);
    at.duration_since(pressed).as_secs_f64() * 1000.0
}

/// At one table, the clock at board A (`boards[0]`): a random legal move
/// made on the mover's board, pressed at A, carried out on the other. For
/// Black's moves, the time from the press at A to `complete` on B.
fn table_ply(boards: &mut [Board; 2], pos: &mut Chess, rng: &mut Lcg) -> Option<f64> {
    let moves: Vec<Move> =
        pos.legal_moves().into_iter().filter(|m| m.promotion().is_none_or(|r| r == Role::Queen)).collect();
    let mv = moves[rng.below(moves.len())];
    let (m, o) = if pos.turn() == Color::White { (0, 1) } else { (1, 0) };
    boards[m].type_line(&hands_line(pos, mv));
    boards[m].next("move");
    let pressed = Instant::now();
    boards[0].type_line(if pos.turn() == Color::White { "w" } else { "b" });
    let (at, _) = boards[m].next("complete");
    boards[o].next("opponent_move");
    boards[o].type_line(&hands_line(pos, mv));
    boards[o].next("complete");
    let black = pos.turn() == Color::Black;
    pos.play_unchecked(mv);
    black.then(|| at.duration_since(pressed).as_secs_f64() * 1000.0)
}

/// Black's presses at a table whose clock is at board A, to their moves
/// completed on board B.
fn table_presses(mut n: usize, rng: &mut Lcg) -> Vec<f64> {
    let mut latencies = Vec::new();
    while latencies.len() < TABLE_SAMPLES {
        n += 1;
        let (dir, port, _broker) = hall(n);
        let mut boards = [
            Board::with_clock(&dir, port, "A", "B", Color::White, "here"),
            Board::with_clock(&dir, port, "B", "A", Color::Black, "partner"),
        ];
        boards[0].next("start");
        boards[1].next("start");
        let mut pos = Chess::default();
        while !pos.is_game_over() && pos.fullmoves().get() < 80 && latencies.len() < TABLE_SAMPLES {
            latencies.extend(table_ply(&mut boards, &mut pos, rng));
        }
        for b in &mut boards {
            b.kill();
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    latencies
}

fn main() {
    let mut rng = Lcg(0x9a17);
    let mut latencies = Vec::new();
    let mut restarts = Vec::new();
    let mut n = 0;
    while latencies.len() < SAMPLES || restarts.len() < RESTARTS {
        n += 1;
        let (dir, port, _broker) = hall(n);
        let mut boards =
            [Board::start(&dir, port, "A", "B", Color::White), Board::start(&dir, port, "B", "A", Color::Black)];
        boards[0].next("start");
        boards[1].next("start");
        let mut pos = Chess::default();
        while !pos.is_game_over() && pos.fullmoves().get() < 80 {
            latencies.push(ply(&mut boards, &mut pos, &mut rng));
            // Now and then the side not on move dies; its partner moves meanwhile.
            if restarts.len() < RESTARTS && pos.fullmoves().get() % 8 == 0 && pos.turn() == Color::White {
                let moves: Vec<Move> =
                    pos.legal_moves().into_iter().filter(|m| m.promotion().is_none_or(|r| r == Role::Queen)).collect();
                if moves.is_empty() {
                    break;
                }
                boards[1].kill();
                let mv = moves[rng.below(moves.len())];
                boards[0].type_line(&hands_line(&pos, mv));
                boards[0].next("move");
                boards[0].type_line("w");
                boards[0].next("complete");
                let started = Instant::now();
                boards[1].spawn();
                let (at, chosen) = boards[1].next("opponent_move");
                assert_eq!(chosen["uci"], mv.to_uci(CastlingMode::Standard).to_string().as_str());
                restarts.push(at.duration_since(started).as_secs_f64() * 1000.0);
                boards[1].type_line(&hands_line(&pos, mv));
                boards[1].next("complete");
                pos.play_unchecked(mv);
            }
            if latencies.len() >= SAMPLES && restarts.len() >= RESTARTS {
                break;
            }
        }
        for b in &mut boards {
            b.kill();
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    let table = table_presses(n, &mut rng);
    let count = latencies.len();
    println!(
        "pair: press on one board to opponent_move on the other, {count} moves: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        pct(&latencies, 50),
        pct(&latencies, 95),
        pct(&latencies, 100)
    );
    println!(
        "pair: a side SIGKILLed and started again, to the move made meanwhile announced on it, {} restarts: p50 {:.0} ms, max {:.0} ms",
        restarts.len(),
        pct(&restarts, 50),
        pct(&restarts, 100)
    );
    println!(
        "pair at one table: a press on board A to the move it completes on board B, {} presses: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        table.len(),
        pct(&table, 50),
        pct(&table, 95),
        pct(&table, 100)
    );
}
