//! The chaos test (issue 19): one game against the engine on the simulated
//! board, with the DGT emulation, the page, the hall's broker and the voice
//! on, while one peer after another misbehaves:
//!
//! 1. the engine advertises nonsense options at every start and crashes on
//!    its first three searches;
//! 2. a DGT client on the emulation's pty never reads, then floods the line
//!    with board requests, then vanishes;
//! 3. the engine hangs (stopped with SIGSTOP in the middle of the game);
//! 4. the broker (a real mosquitto) vanishes and returns;
//! 5. 1,000 slow HTTP clients hold connections that never finish a request.
//!
//! The game completes with every move played — in the events, on the page's
//! `/games.pgn`, at the hall's relay, on the emulated DGT board — and
//! SIGTERM at the end stops the daemon in at most 2 s. Every wait is for an
//! event, a log line or a reply; the only sleep is the scenario's own (the
//! client that does not read for a second). Needs mosquitto and python3
//! (./setup installs them) and fails loudly without them.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position};

mod common;
use common::dgt_client::DgtClient;
use common::http::get;
use common::moves::carried_out;
use common::{
    EventStream, Guard, fake_engine, free_port, lines, mosquitto, raise_open_files, shell_script, signal, tempdir,
};

/// A bound on waiting for what must come, not a time anything should take.
const WAIT: Duration = Duration::from_secs(60);
/// The slow HTTP clients.
const SLOW_CLIENTS: usize = 1000;

/// Waits until the hall's relay shows `moves` for board `b1`.
fn relayed(port: u16, moves: &[String], when: &str) {
    let shown = || -> Option<Vec<String>> {
        let game: Value = serde_json::from_str(&get(port, "/api/game/b1")?).ok()?;
        Some(game["moves"].as_array()?.iter().map(|m| m["san"].as_str().unwrap_or("?").to_string()).collect())
    };
    let end = Instant::now() + WAIT;
    loop {
        let now = shown();
        if now.as_deref() == Some(moves) {
            return;
        }
        assert!(Instant::now() < end, "the relay {when} shows {now:?}, not {moves:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The daemon: a typed sim board, the engine playing Black, the DGT
/// emulation, the page, the broker; the events read as they come, the log
/// kept and watched.
struct Daemon {
    child: Guard,
    board: ChildStdin,
    events: EventStream,
    log: Receiver<String>,
    logged: Vec<String>,
}

impl Daemon {
    fn type_line(&mut self, line: &str) {
        writeln!(self.board, "{line}").unwrap();
        self.board.flush().unwrap();
    }

    /// The first log line containing `needle`: logged already, or waited for.
    fn logged(&mut self, needle: &str) -> String {
        if let Some(line) = self.logged.iter().find(|l| l.contains(needle)) {
            return line.clone();
        }
        let end = Instant::now() + WAIT;
        loop {
            match self.log.recv_timeout(end.saturating_duration_since(Instant::now())) {
                Ok(line) => {
                    self.logged.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no log line with {needle:?}; the log:\n{}", self.logged.join("\n"))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the daemon ended before logging {needle:?}; the log:\n{}", self.logged.join("\n"))
                }
            }
        }
    }
}

/// The game as the test plays it: the position and every move, in SAN.
struct Game {
    pos: Chess,
    played: Vec<String>,
}

impl Game {
    fn play(&mut self, m: Move) {
        self.played.push(SanPlus::from_move(self.pos.clone(), m).to_string());
        self.pos.play_unchecked(m);
    }

    /// White's next move, typed as `e2e4` or `d4xe5`: the most valuable
    /// capture, else a quiet move, a different one each time (no castling,
    /// promotion or en passant, which type otherwise).
    fn white_move(&self) -> Move {
        let moves: Vec<Move> = self
            .pos
            .legal_moves()
            .into_iter()
            .filter(|m| !m.is_castle() && !m.is_promotion() && !m.is_en_passant())
            .collect();
        if let Some(capture) = moves.iter().filter_map(|m| Some((m.capture()?, *m))).max_by_key(|(role, _)| *role) {
            return capture.1;
        }
        assert!(!moves.is_empty(), "White has a move in {}", self.pos.board());
        moves[self.played.len() * 7 % moves.len()]
    }
}

/// White plays and presses the clock; the move is completed.
fn white(d: &mut Daemon, g: &mut Game) {
    let m = g.white_move();
    let uci = UciMove::from_standard(m).to_string();
    let typed = if m.is_capture() { format!("{}x{}", &uci[..2], &uci[2..]) } else { uci.clone() };
    d.type_line(&typed);
    d.type_line("w");
    let done = d.events.next("complete");
    assert_eq!(done["uci"], uci, "{done}");
    g.play(m);
}

/// The engine's move comes; it is carried out from its steps and completed.
fn black(d: &mut Daemon, g: &mut Game) {
    let chosen = d.events.next("opponent_move");
    assert_eq!(chosen["side"], "black", "{chosen}");
    let uci = chosen["uci"].as_str().unwrap();
    let m = uci.parse::<UciMove>().unwrap().to_move(&g.pos).expect("the engine's move is legal");
    d.type_line(&carried_out(&chosen));
    let done = d.events.next("complete");
    assert_eq!(done["uci"], uci, "{done}");
    g.play(m);
}

/// A move each: the game goes on.
fn round(d: &mut Daemon, g: &mut Game) {
    white(d, g);
    black(d, g);
}

/// The engine process now running: the last one its script started.
fn engine_pid(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("engine.pids")).unwrap().lines().last().unwrap().to_string()
}

/// Moves of a PGN's movetext, without comments, numbers and the result.
fn pgn_moves(pgn: &str) -> Vec<String> {
    let movetext: String = pgn.lines().filter(|l| !l.starts_with('[')).collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    let mut depth = 0;
    let mut word = String::new();
    for c in movetext.chars().chain(std::iter::once(' ')) {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth > 0 => {}
            c if c.is_whitespace() => {
                let w = std::mem::take(&mut word);
                let number = w.trim_end_matches('.').chars().all(|c| c.is_ascii_digit());
                if !w.is_empty() && !number && !["1-0", "0-1", "1/2-1/2", "*"].contains(&w.as_str()) {
                    out.push(w);
                }
            }
            c => word.push(c),
        }
    }
    out
}

/// Options no engine should offer: a range upside down, numbers beyond any
/// type, words for numbers.
const NONSENSE: [&str; 4] = [
    "option name Skill Level type spin default 10 min 20 max 0",
    "option name UCI_Elo type spin default 99999 min 3000 max 1000",
    "option name MultiPV type spin default -3 min -9223372036854775808 max 9223372036854775807",
    "option name Threads type spin default one min zero max many",
];

#[test]
fn a_game_survives_every_peer_misbehaving_and_sigterm_ends_it_within_2_s() {
    raise_open_files(SLOW_CLIENTS + 200);
    let dir = tempdir("game");
    let (broker_port, http_port, relay_port) = (free_port(), free_port(), free_port());
    let mut broker = Some(mosquitto(broker_port, &dir));
    let broker_addr = format!("127.0.0.1:{broker_port}");

    // The hall's relay follows the board through the broker.
    let _relay = Guard(
        Command::new(env!("CARGO_BIN_EXE_tactus"))
            .args(["relay", "--broker", &broker_addr, "--hall", "club", "--http", &format!("127.0.0.1:{relay_port}")])
            .stderr(File::create(dir.join("relay.log")).unwrap())
            .spawn()
            .unwrap(),
    );

    // Every engine advertises nonsense options as it starts, and the first
    // three searches crash it (more than its quick restarts).
    let script = dir.join("engine.sh");
    let pids = dir.join("engine.pids");
    let crashes = dir.join("engine.crashes");
    let nonsense: String = NONSENSE.iter().map(|o| format!(" --say '{o}'")).collect();
    shell_script(
        &script,
        &format!(
            "echo $$ >> '{}'\nexec '{}'{nonsense} --go crash --times 3 '{}'",
            pids.display(),
            fake_engine().display(),
            crashes.display()
        ),
    );
    let config = dir.join("tactus.toml");
    std::fs::write(
        &config,
        format!(
            "[game]\ntime_control = \"-\"\n\n[engine]\npath = \"{}\"\nplays = \"black\"\nlevel = 10\nthink_ms = 50\n",
            script.display()
        ),
    )
    .unwrap();
    let link = dir.join("dgt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("run")
        .arg("--config")
        .arg(&config)
        .args(["--board", "sim", "--voice", "text", "--events", "-", "--state-dir"])
        .arg(dir.join("state"))
        .arg("--dgt-emulate")
        .arg(&link)
        .args(["--http", &format!("127.0.0.1:{http_port}")])
        .args(["--mqtt", &broker_addr, "--hall", "club", "--board-id", "b1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tactus runs");
    let events = EventStream::of(&mut child);
    let board = child.stdin.take().unwrap();
    let log = lines(child.stderr.take().unwrap());
    let mut d = Daemon { child: Guard(child), board, events, log, logged: Vec::new() };
    d.events.next("start");
    d.logged("serving a DGT board at");
    d.logged("connected to the MQTT broker");
    let mut g = Game { pos: Chess::default(), played: Vec::new() };

    // 1. The engine: nonsense options at every start, refused by name; its
    // first three searches crash it. The player hears once that it stopped
    // and once that it is back; its move comes.
    white(&mut d, &mut g);
    let lost = d.events.next("device_lost");
    assert_eq!(lost["device"], "engine", "{lost}");
    assert_eq!(d.events.next("device_back")["device"], "engine");
    black(&mut d, &mut g);
    let refused = d.logged("Skill Level");
    assert!(refused.contains("engine.sh"), "the refused option is logged with the engine's name: {refused}");
    round(&mut d, &mut g);

    // 2. A DGT client that never reads: board requests sent, nothing read
    // for a second (the scenario's own pause), the game played meanwhile.
    let mut silent = std::fs::OpenOptions::new().read(true).write(true).open(&link).unwrap();
    silent.write_all(&[0x42; 64]).unwrap();
    let quiet_from = Instant::now();
    round(&mut d, &mut g);
    std::thread::sleep(Duration::from_secs(1).saturating_sub(quiet_from.elapsed()));
    // Then it floods the line with board requests, still never reading.
    let flooding = Arc::new(AtomicBool::new(true));
    let flood = {
        let mut line = silent.try_clone().unwrap();
        let flooding = Arc::clone(&flooding);
        std::thread::spawn(move || {
            while flooding.load(Ordering::Relaxed) {
                if line.write_all(&[0x42; 256]).is_err() {
                    break;
                }
            }
        })
    };
    round(&mut d, &mut g);
    flooding.store(false, Ordering::Relaxed);
    flood.join().unwrap();
    // And vanishes.
    drop(silent);
    round(&mut d, &mut g);

    // 3. The engine hangs: stopped, it answers nothing; it is killed and
    // started again, and its move comes.
    let hung = engine_pid(&dir);
    assert!(signal("-STOP", &hung));
    round(&mut d, &mut g);
    assert_ne!(engine_pid(&dir), hung, "a new engine plays");
    signal("-CONT", &hung);

    // 4. The broker vanishes and returns: the game goes on meanwhile, and
    // the relay has every move once it is back.
    relayed(relay_port, &g.played, "before the broker goes");
    drop(broker.take());
    round(&mut d, &mut g);
    broker = Some(mosquitto(broker_port, &dir));
    relayed(relay_port, &g.played, "after the broker's return");

    // 5. 1,000 slow HTTP clients, each holding a connection with half a
    // request head: the game goes on, and the page is still served.
    let slow: Vec<std::net::TcpStream> = (0..SLOW_CLIENTS)
        .map(|_| {
            let mut s = std::net::TcpStream::connect(("127.0.0.1", http_port)).unwrap();
            s.write_all(b"GET /games.pgn HTTP/1.1\r\nHost: loc").unwrap();
            s
        })
        .collect();
    round(&mut d, &mut g);
    let pgn = get(http_port, "/games.pgn").expect("the page is served under the load");
    assert_eq!(pgn_moves(&pgn), g.played, "/games.pgn under the load:\n{pgn}");
    drop(slow);
    round(&mut d, &mut g);

    // The end: a DGT client that comes now reads the board as it stands;
    // White resigns; every move is in the events, the feed and the hall.
    assert_eq!(DgtClient::start(&link).introduced(), g.pos.board().to_string(), "the emulated board after the chaos");
    d.type_line("result 0-1 resigns");
    let over = d.events.next("game_over");
    assert_eq!(over["result"], "0-1", "{over}");
    let completed: Vec<String> = d
        .events
        .seen
        .borrow()
        .iter()
        .filter(|e| e["event"] == "complete")
        .map(|e| e["san"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(completed, g.played, "every move played was completed, once, in order");
    let pgn = get(http_port, "/games.pgn").unwrap();
    assert_eq!(pgn_moves(&pgn), g.played, "/games.pgn:\n{pgn}");
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
    relayed(relay_port, &g.played, "at the end");

    let asked = Instant::now();
    assert!(signal("-TERM", d.child.0.id()));
    let status = loop {
        if let Some(status) = d.child.0.try_wait().unwrap() {
            break status;
        }
        assert!(asked.elapsed() < WAIT, "SIGTERM did not end the daemon");
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = asked.elapsed();
    eprintln!("chaos: {} plies; SIGTERM to exit {took:?}", g.played.len());
    assert!(status.success(), "the daemon stopped the orderly way: {status}");
    assert!(took <= Duration::from_secs(2), "SIGTERM took {took:?}");
    drop(broker);
    let _ = std::fs::remove_dir_all(&dir);
}
