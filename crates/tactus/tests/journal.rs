//! The journal alone is the game as it stood: what the game's timers did
//! after the last input — here the engine's move, completed by the board
//! holding still on it — is in it, so `tactus replay` gives the game with
//! that move, and a restart resumes it without saying anything twice.
//! Needs Stockfish (`apt-get install stockfish`; ./setup installs it).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position, Square};

mod common;
use common::{EventStream, signal, tactus_run, tempdir};

const STOCKFISH: &str = "/usr/games/stockfish";

/// `tactus run` on the simulated board typed at its standard input, the
/// engine playing Black, its state in `dir/state`.
fn daemon(dir: &Path) -> (Child, ChildStdin, EventStream) {
    let config = dir.join("tactus.toml");
    std::fs::write(
        &config,
        format!("[game]\ntime_control = \"-\"\n\n[engine]\npath = \"{STOCKFISH}\"\nplays = \"black\"\nthink_ms = 50\n"),
    )
    .unwrap();
    let mut child =
        tactus_run(&config, &dir.join("state")).args(["--board", "sim"]).stdin(Stdio::piped()).spawn().unwrap();
    let stdin = child.stdin.take().unwrap();
    let events = EventStream::of(&mut child);
    (child, stdin, events)
}

/// The lifts and placements of a move without capture or castling.
fn hands(mv: &Move) -> String {
    let to: Square = mv.to();
    format!("{}- {to}+", mv.from().unwrap())
}

/// Stops the daemon the orderly way, as the service manager does.
fn sigterm(child: &mut Child) {
    assert!(signal("-TERM", child.id()));
    let status = child.wait().unwrap();
    assert!(status.success(), "the daemon stopped on SIGTERM with {status}");
}

/// The moves of the game journaled in `state`, as `tactus replay` gives them.
fn replayed(state: &Path) -> Vec<String> {
    let current = std::fs::read_to_string(state.join("current")).expect("the game is left to recover");
    let out =
        Command::new(env!("CARGO_BIN_EXE_tactus")).arg("replay").arg(state.join(current.trim())).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pgn = String::from_utf8_lossy(&out.stdout).into_owned();
    let movetext = pgn.rsplit(']').next().unwrap_or_default();
    movetext.split_whitespace().filter(|w| !w.ends_with('.') && *w != "*").map(str::to_string).collect()
}

fn said(events: &[Value], kind: &str) -> Vec<String> {
    events.iter().filter(|e| e["event"] == kind).map(|e| format!("{} {}", e["ply"], e["san"])).collect()
}

#[test]
fn stopped_right_after_the_board_completed_the_engines_move_the_journal_replays_with_it() {
    assert!(Path::new(STOCKFISH).exists(), "{STOCKFISH} is missing: apt-get install stockfish (./setup installs it)");
    let dir = tempdir("engine-move");
    let (mut child, mut stdin, events) = daemon(&dir);
    events.next("start");
    // 1. e4, pressed.
    writeln!(stdin, "e2- e4+").unwrap();
    writeln!(stdin, "w").unwrap();
    assert_eq!(events.next("complete")["san"], "e4");
    // The engine's reply, carried out on the board: the board holding
    // still on it completes it — a timer, after the last input.
    let chosen = events.next("opponent_move");
    let mut pos = Chess::default();
    pos.play_unchecked("e2e4".parse::<UciMove>().unwrap().to_move(&pos).unwrap());
    let reply = chosen["uci"].as_str().unwrap().parse::<UciMove>().unwrap().to_move(&pos).unwrap();
    assert!(matches!(reply, Move::Normal { capture: None, .. }), "a plain first reply: {reply:?}");
    writeln!(stdin, "{}", hands(&reply)).unwrap();
    let done = events.next("complete");
    let san = done["san"].as_str().unwrap().to_string();
    assert_eq!((done["ply"].as_u64(), done["side"].as_str()), (Some(2), Some("black")), "{done}");
    // Stopped the moment the move is complete.
    sigterm(&mut child);
    let first_run = events.seen.borrow().clone();

    // The journal alone is the game as it stood.
    let state = dir.join("state");
    assert_eq!(replayed(&state), ["e4", san.as_str()], "`tactus replay` of the journal");

    // A restart resumes it with the engine's move, and says nothing twice.
    let (mut child, mut stdin, events) = daemon(&dir);
    events.next("paused");
    writeln!(stdin, "g1- f3+").unwrap();
    writeln!(stdin, "w").unwrap();
    let next = events.next("complete");
    assert_eq!((next["ply"].as_u64(), next["san"].as_str()), (Some(3), Some("Nf3")), "{next}");
    sigterm(&mut child);
    let second_run = events.seen.borrow().clone();
    for kind in ["move", "complete", "opponent_move"] {
        let before = said(&first_run, kind);
        let again: Vec<String> = said(&second_run, kind).into_iter().filter(|s| before.contains(s)).collect();
        assert!(again.is_empty(), "said again after the restart: {again:?}");
    }
    assert_eq!(replayed(&state), ["e4", san.as_str(), "Nf3"]);
}

/// Runs `cmd` to its end, which must come within two minutes: its exit
/// status, its standard output (the events, as JSON Lines) and error.
fn run_to_end(cmd: &mut Command) -> (std::process::ExitStatus, Vec<Value>, String) {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let read = |mut from: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            from.read_to_string(&mut text).unwrap();
            text
        })
    };
    let (stdout, stderr) = (read(Box::new(child.stdout.take().unwrap())), read(Box::new(child.stderr.take().unwrap())));
    let until = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > until {
            child.kill().unwrap();
            panic!("the daemon did not end: {}", stderr.join().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let events = stdout.join().unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (status, events, stderr.join().unwrap())
}

/// The journal's disk full: the daemon, playing a simulated game, may write
/// only half the trace's size to any file (SIGXFSZ ignored, so a write past
/// the limit fails with EFBIG, as one fails with ENOSPC on a full disk).
/// It stops with one line naming the journal, without a panic, having
/// announced only what was on disk; started again with room, it cuts the
/// torn last line, goes on where the journal stopped and plays the game to
/// its end. Needs `prlimit` (util-linux).
#[test]
fn a_full_disk_stops_the_game_with_a_clear_error_and_a_restart_with_room_goes_on() {
    const PRLIMIT: &str = "/usr/bin/prlimit";
    assert!(Path::new(PRLIMIT).exists(), "{PRLIMIT} is missing: apt-get install util-linux");
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/traces/clean/clean-0001.trace.jsonl");
    let whole = tactus_core::replay::replay(
        std::io::BufReader::new(std::fs::File::open(&trace).unwrap()),
        tactus_core::Policy::default(),
    )
    .unwrap();
    let game: Vec<String> = whole.session.game().played.iter().map(|p| p.info.san.clone()).collect();
    let dir = tempdir("full");
    let state = dir.join("state");
    let config = dir.join("tactus.toml");
    std::fs::write(&config, "").unwrap();
    let daemon = |cmd: &mut Command| {
        cmd.arg("run").arg("--config").arg(&config).args(["--board", "sim", "--sim-trace"]).arg(&trace);
        cmd.args(["--sim-speed", "1000", "--state-dir"]).arg(&state).args(["--voice", "none", "--events", "-"]);
        run_to_end(cmd)
    };
    let limit = std::fs::metadata(&trace).unwrap().len() / 2;
    let mut limited = Command::new("sh");
    limited.arg("-c").arg(format!(r#"trap '' XFSZ; exec {PRLIMIT} --fsize={limit} "$@""#)).arg("sh");
    limited.arg(env!("CARGO_BIN_EXE_tactus"));
    let (status, events, stderr) = daemon(&mut limited);
    assert!(!status.success(), "the game cannot go on: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let journal_lines: Vec<&str> = stderr.lines().filter(|l| l.contains("journal")).collect();
    assert!(
        journal_lines.len() == 1 && journal_lines[0].contains("File too large"),
        "one line naming the journal and why: {stderr}"
    );
    let announced: Vec<String> =
        events.iter().filter(|e| e["event"] == "complete").map(|e| e["san"].as_str().unwrap().to_string()).collect();
    assert!(!announced.is_empty() && announced.len() < game.len(), "stopped mid-game: {announced:?}");
    assert!(game.starts_with(&announced), "{announced:?}");

    // With room again: recovered from what is on disk, and played to the end.
    let (status, events, stderr) = daemon(&mut Command::new(env!("CARGO_BIN_EXE_tactus")));
    assert!(status.success(), "{stderr}");
    assert!(stderr.contains("cut a torn last line"), "{stderr}");
    assert_eq!(events.first().map(|e| e["event"].clone()), Some("paused".into()), "recovered: {events:?}");
    let games: Vec<PathBuf> = std::fs::read_dir(state.join("games")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(games.len(), 1, "{games:?}");
    let replayed = tactus_core::replay::replay(
        std::io::BufReader::new(std::fs::File::open(&games[0]).unwrap()),
        tactus_core::Policy::default(),
    )
    .unwrap();
    let journaled: Vec<String> = replayed.session.game().played.iter().map(|p| p.info.san.clone()).collect();
    assert_eq!(journaled, game, "the whole game, the moves announced before the disk filled first");
}
