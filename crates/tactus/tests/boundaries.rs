//! The daemon's last boundaries, each against a peer that stops: a reader
//! of the events (`--events -`) or of the voice's text that never reads, a
//! page client that never reads its reply.
//! The game goes on (its moves reach `/games.pgn`) and SIGTERM ends the
//! daemon within 2 s. Readiness is a log line or the feed showing a move,
//! never a sleep.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

mod common;
use common::http::get;
use common::{Guard, free_port, line_with, lines, signal, tempdir};

/// A daemon on the typed sim board serving `/games.pgn` on `port`, with
/// `args` added; its standard output is piped and never read. Its log is
/// read line by line; returned once it serves.
fn daemon(dir: &Path, port: u16, args: &[&str]) -> (Guard, ChildStdin, Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("run")
        .arg("--config")
        .arg(common::empty_config())
        .args(["--board", "sim", "--time-control", "-", "--state-dir"])
        .arg(dir.join("state"))
        .args(["--http", &format!("127.0.0.1:{port}")])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tactus runs");
    let stdin = child.stdin.take().unwrap();
    let log = lines(child.stderr.take().unwrap());
    wait_for_log(&log, "http: serving on");
    (Guard(child), stdin, log)
}

/// Waits for a log line containing `needle` (a minute at most: a bound for
/// failure, not a timing assumption); returns it.
fn wait_for_log(log: &Receiver<String>, needle: &str) -> String {
    line_with(log, needle, Duration::from_secs(60))
}

/// Waits until `/games.pgn` contains `moves` (a minute at most).
fn wait_for_pgn(port: u16, moves: &str) {
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let pgn = get(port, "/games.pgn").unwrap_or_default();
        if pgn.contains(moves) {
            return;
        }
        assert!(Instant::now() < end, "the game did not go on: /games.pgn has no {moves:?} within a minute:\n{pgn}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// SIGTERM, and the time to the daemon's orderly exit.
fn terminate(daemon: &mut Guard) -> Duration {
    let asked = Instant::now();
    assert!(signal("-TERM", daemon.0.id()));
    let end = asked + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = daemon.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < end, "SIGTERM did not end the daemon within 30 s");
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = asked.elapsed();
    assert!(status.success(), "the daemon stopped the orderly way: {status}");
    took
}

/// Typed questions that each make an event of about 90 bytes
/// (`position`), far more than a pipe and the queue hold together.
fn many_questions(board: &mut ChildStdin, n: usize) {
    board.write_all("board\n".repeat(n).as_bytes()).unwrap();
    board.flush().unwrap();
}

#[test]
fn an_events_reader_that_never_reads_holds_neither_the_game_nor_shutdown() {
    let dir = tempdir("events");
    let port = free_port();
    let (mut daemon, mut board, log) = daemon(&dir, port, &["--voice", "none", "--events", "-"]);
    many_questions(&mut board, 5000);
    writeln!(board, "e2 e4\nw\ne7 e5\nb").unwrap();
    board.flush().unwrap();
    wait_for_pgn(port, "1. e4 e5");
    let said = wait_for_log(&log, "events:");
    assert!(said.contains("standard output") && said.contains("dropped"), "the drop is said, naming where: {said}");
    let took = terminate(&mut daemon);
    eprintln!("SIGTERM to exit, the events unread: {took:?}");
    assert!(took <= Duration::from_secs(2), "SIGTERM took {took:?} with the events unread");
}

/// The voice's text on standard output, which nobody reads (`--voice
/// text`); the log, where the daemon writes what it does, is read. The
/// voice falls behind alone: the game goes on and logs, and SIGTERM ends
/// the daemon within 2 s, what the voice had left to say cut off.
#[test]
fn a_voice_whose_text_is_never_read_holds_neither_the_game_nor_shutdown() {
    let dir = tempdir("voice");
    let port = free_port();
    let events = dir.join("events.jsonl");
    let (mut daemon, mut board, log) = daemon(&dir, port, &["--voice", "text", "--events", events.to_str().unwrap()]);
    // Each answer is a long readout of the position: far more than a pipe holds.
    many_questions(&mut board, 2000);
    writeln!(board, "e2 e4\nw\ne7 e5\nb").unwrap();
    board.flush().unwrap();
    wait_for_pgn(port, "1. e4 e5");
    // The game task logs as it goes: the game's end.
    writeln!(board, "result 1-0 resigns").unwrap();
    board.flush().unwrap();
    wait_for_log(&log, "the game is over");
    let took = terminate(&mut daemon);
    eprintln!("SIGTERM to exit, the voice's text unread: {took:?}");
    assert!(took <= Duration::from_secs(2), "SIGTERM took {took:?} with the voice's text unread");
    let written = std::fs::read_to_string(&events).unwrap();
    assert!(written.lines().any(|l| l.contains("\"san\":\"e5\"")), "the events file has the moves");
}

/// A page client that asks for a reply larger than the kernel's buffers and
/// never reads it: the reply is cut off at SIGTERM, which still ends the
/// daemon within 2 s (the server alone would give it 5 s to finish).
#[test]
fn a_page_client_that_never_reads_its_reply_does_not_hold_shutdown() {
    let dir = tempdir("unread-reply");
    let web = dir.join("web");
    std::fs::create_dir_all(web.join("assets")).unwrap();
    std::fs::write(web.join("index.html"), "<!doctype html>").unwrap();
    std::fs::write(web.join("assets/big.js"), vec![b'x'; 16 << 20]).unwrap();
    let port = free_port();
    let (mut daemon, mut board, _log) =
        daemon(&dir, port, &["--voice", "none", "--events", "/dev/null", "--web", web.to_str().unwrap()]);
    let mut client = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(client, "GET /assets/big.js HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    // The reply has begun: its head is in (and nothing more is read).
    let mut head = [0u8; 12];
    client.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    writeln!(board, "e2 e4\nw").unwrap();
    board.flush().unwrap();
    wait_for_pgn(port, "1. e4");
    let took = terminate(&mut daemon);
    eprintln!("SIGTERM to exit, a reply unread: {took:?}");
    assert!(took <= Duration::from_secs(2), "SIGTERM took {took:?} with a reply unread");
}
