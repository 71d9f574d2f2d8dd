//! Playing online from the board: the real daemon on the simulated board
//! against the Lichess test server written from Lichess's published API
//! reference (crates/lichess/tests/server, python3 with python-chess). The
//! test types the player's hands on the board and plays the opponent
//! through the server's test controls; it asserts on the daemon's events
//! and on the server's own log of the requests it received.

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use serde_json::json;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Position};

mod common;
use common::lichess::LichessServer;
use common::moves::{carried_out, hands};
use common::{EventStream, Guard, lines, secret, signal, tactus_run, tempdir};

const TOKEN: &str = "lip_board_play";
/// Lichess's rule after a 429, and the client's.
const PAUSE_S: f64 = 60.0;

/// The Lichess test server with the account's Board API token.
fn lichess() -> LichessServer {
    LichessServer::start(&[&format!("{TOKEN}=board:play")])
}

/// Every request the server received: `(t, "METHOD /path", status)`.
fn log(lichess: &LichessServer) -> Vec<(f64, String, Option<u64>)> {
    lichess
        .log()
        .iter()
        .map(|e| {
            let what = format!("{} {}", e["method"].as_str().unwrap(), e["path"].as_str().unwrap());
            (e["t"].as_f64().unwrap(), what, e["status"].as_u64())
        })
        .collect()
}

/// The daemon on the simulated board, playing on the server's account.
struct Daemon {
    child: Guard,
    stdin: ChildStdin,
    events: EventStream,
    /// Its standard error: the log, and the voice's text lines (`said`).
    stderr: Option<Receiver<String>>,
}

impl Daemon {
    fn start(lichess: &LichessServer, state: &Path, config: &str) -> Daemon {
        let config_file = Daemon::files(state, config);
        let mut cmd = tactus_run(&config_file, &state.join("state"));
        Daemon::spawn(lichess, state, &mut cmd)
    }

    /// The daemon speaking text in `say` (`en`, `de:annex-d`…) on its
    /// standard error, read with its log.
    fn speaking(lichess: &LichessServer, state: &Path, config: &str, say: &str) -> Daemon {
        let config_file = Daemon::files(state, config);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tactus"));
        cmd.arg("run").arg("--config").arg(&config_file).arg("--state-dir").arg(state.join("state"));
        cmd.args(["--voice", "text", "--say", say, "--events", "-"]).stdout(Stdio::piped()).stderr(Stdio::piped());
        Daemon::spawn(lichess, state, &mut cmd)
    }

    fn files(state: &Path, config: &str) -> PathBuf {
        secret(state, "lichess.token", &format!("{TOKEN}\n"));
        let config_file = state.join("tactus.toml");
        std::fs::write(&config_file, config).unwrap();
        config_file
    }

    fn spawn(lichess: &LichessServer, state: &Path, cmd: &mut Command) -> Daemon {
        let mut child = cmd
            .args(["--board", "sim", "--lichess-url", &lichess.url, "--lichess-token-file"])
            .arg(state.join("lichess.token"))
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let events = EventStream::of(&mut child);
        let stderr = child.stderr.take().map(lines);
        let stdin = child.stdin.take().unwrap();
        Daemon { child: Guard(child), stdin, events, stderr }
    }

    /// The next line of its standard error holding `needle`.
    fn said(&self, needle: &str) -> String {
        let lines = self.stderr.as_ref().expect("started speaking");
        let mut skipped = Vec::new();
        loop {
            match lines.recv_timeout(Duration::from_secs(90)) {
                Ok(line) if line.contains(needle) => return line,
                Ok(line) => skipped.push(line),
                Err(e) => panic!("no line with {needle:?} ({e}); the lines before:\n{}", skipped.join("\n")),
            }
        }
    }

    fn type_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
    }

    /// SIGTERM: the time to its exit, which is the orderly one.
    fn terminate(self) -> Duration {
        let Daemon { mut child, .. } = self;
        let asked = std::time::Instant::now();
        assert!(signal("-TERM", child.0.id()));
        let end = asked + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.0.try_wait().unwrap() {
                break status;
            }
            assert!(std::time::Instant::now() < end, "SIGTERM did not end the daemon within 30 s");
            std::thread::sleep(Duration::from_millis(5));
        };
        let took = asked.elapsed();
        assert!(status.success(), "the daemon stopped the orderly way: {status}");
        took
    }

    /// The board's input ends: the daemon stops on its own, and cleanly.
    fn ends(self) {
        let Daemon { mut child, stdin, .. } = self;
        drop(stdin);
        assert!(child.0.wait().unwrap().success());
    }

    /// The game the daemon says it plays.
    fn playing(&self) -> String {
        let e = self.online("playing");
        e["game"].as_str().unwrap().to_string()
    }

    /// The next `online` event saying `what`, the other `online` events
    /// (the answers to the player's requests, chat) skipped.
    fn online(&self, what: &str) -> serde_json::Value {
        loop {
            let e = self.events.next("online");
            if e["what"] == what {
                return e;
            }
        }
    }

    /// The player makes `mv` on the board and presses the clock: the move
    /// is completed.
    fn our_move(&mut self, pos: &mut Chess, uci: &str) {
        let mv = uci_move(pos, uci);
        let side = if pos.turn() == Color::White { "w" } else { "b" };
        self.type_line(&hands(pos, mv).join(" "));
        assert_eq!(self.events.next("move")["uci"], uci, "the board shows the move");
        self.type_line(side);
        assert_eq!(self.events.next("complete")["uci"], uci);
        pos.play_unchecked(mv);
    }

    /// The opponent's move said: carried out on the board from its steps,
    /// and completed without a press.
    fn carry_out(&mut self, pos: &mut Chess, uci: &str) {
        let said = self.events.next("opponent_move");
        assert_eq!(said["uci"], uci, "{said}");
        self.type_line(&carried_out(&said));
        assert_eq!(self.events.next("complete")["uci"], uci, "the opponent's move is completed on the board");
        pos.play_unchecked(uci_move(pos, uci));
    }
}

/// A game on the server with the board playing `our` side, and a daemon
/// (its state in the test's directory `name`) playing it.
fn playing(name: &str, our: &str) -> (LichessServer, PathBuf, String, Daemon) {
    let lichess = lichess();
    let state = tempdir(name);
    let id = lichess.new_game(our);
    let d = Daemon::start(&lichess, &state, CONFIG);
    assert_eq!(d.playing(), id);
    (lichess, state, id, d)
}

fn uci_move(pos: &Chess, uci: &str) -> Move {
    uci.parse::<UciMove>().unwrap().to_move(pos).unwrap()
}

/// How many times each move was POSTed and taken (200) by the server.
fn moves_taken(lichess: &LichessServer, id: &str) -> std::collections::BTreeMap<String, usize> {
    let prefix = format!("POST /api/board/game/{id}/move/");
    let mut taken = std::collections::BTreeMap::new();
    for (_, what, status) in log(lichess) {
        if let Some(uci) = what.strip_prefix(&prefix)
            && status == Some(200)
        {
            *taken.entry(uci.to_string()).or_insert(0) += 1;
        }
    }
    taken
}

/// The journal of the finished game replays to `moves`.
fn journal_replays_to(state: &Path, moves: &[&str]) {
    let games = state.join("state/games");
    let traces: Vec<PathBuf> = std::fs::read_dir(&games)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".trace.jsonl"))
        .collect();
    let replayed: Vec<Vec<String>> = traces
        .iter()
        .map(|t| {
            let r = tactus_core::replay::replay(
                BufReader::new(std::fs::File::open(t).unwrap()),
                tactus_core::Policy::default(),
            )
            .unwrap();
            r.session.game().played.iter().map(|p| p.info.uci.clone()).collect()
        })
        .collect();
    assert!(replayed.iter().any(|m| m == moves), "a journal replays to {moves:?}: {replayed:?}");
}

const CONFIG: &str = "[game]\ntime_control = \"1800+5\"\n";

/// A whole game as White (the scholar's mate), the game stream dropped by
/// the server mid-game: reopened, and the game goes on.
#[test]
fn a_whole_game_as_white_with_a_dropped_stream() {
    let (lichess, state, id, mut d) = playing("white", "white");
    let mut pos = Chess::default();
    let (ours, theirs) = (["e2e4", "f1c4", "d1h5", "h5f7"], ["e7e5", "b8c6", "g8f6"]);
    for (i, uci) in ours.iter().enumerate() {
        d.our_move(&mut pos, uci);
        lichess.wait_answered(&format!("move/{uci}"), 1);
        if let Some(reply) = theirs.get(i) {
            if i == 1 {
                // The server closes the game stream: the daemon reopens it.
                lichess.opponent(&id, "drop");
                lichess.wait_answered(&format!("stream/{id}"), 2);
            }
            lichess.opponent(&id, &format!("move/{reply}"));
            d.carry_out(&mut pos, reply);
        }
    }
    let over = d.events.next("game_over");
    assert_eq!((over["result"].as_str(), over["reason"].as_str()), (Some("1-0"), Some("checkmate")), "{over}");
    let game = lichess.game(&id);
    let played = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"];
    assert_eq!(game["moves"], json!(played), "the server's move list is the game played");
    assert_eq!(game["status"], "mate");
    assert!(moves_taken(&lichess, &id).values().all(|&n| n == 1), "each move sent once: {:?}", log(&lichess));
    d.ends();
    journal_replays_to(&state, &played);
}

/// A whole game as Black (the fool's mate): the opponent's moves come as
/// `opponent_move` and are carried out; the game ends in `game_over`.
#[test]
fn a_whole_game_as_black() {
    let lichess = lichess();
    let state = tempdir("black");
    let mut d = Daemon::start(&lichess, &state, CONFIG);
    // The game starts while the daemon runs.
    lichess.wait_answered("GET /api/stream/event", 1);
    let id = lichess.new_game("black");
    assert_eq!(d.playing(), id);
    let mut pos = Chess::default();
    for (theirs, ours) in [("f2f3", "e7e5"), ("g2g4", "d8h4")] {
        lichess.opponent(&id, &format!("move/{theirs}"));
        d.carry_out(&mut pos, theirs);
        d.our_move(&mut pos, ours);
        lichess.wait_answered(&format!("move/{ours}"), 1);
    }
    let over = d.events.next("game_over");
    assert_eq!((over["result"].as_str(), over["reason"].as_str()), (Some("0-1"), Some("checkmate")), "{over}");
    let played = ["f2f3", "e7e5", "g2g4", "d8h4"];
    assert_eq!(lichess.game(&id)["moves"], json!(played));
    assert!(moves_taken(&lichess, &id).values().all(|&n| n == 1));
    d.ends();
    journal_replays_to(&state, &played);
}

/// Killed (SIGKILL) mid-game, twice: once after the server took the
/// player's move, once before the move could reach it (its POST cut off).
/// Restarted on the same state directory, the daemon goes on with the game
/// and no move reaches the server twice.
#[test]
fn killed_mid_game_it_goes_on_without_sending_a_move_twice() {
    let (lichess, state, id, mut d) = playing("killed", "white");
    let mut pos = Chess::default();
    d.our_move(&mut pos, "e2e4");
    lichess.wait_answered("move/e2e4", 1);
    drop(d); // SIGKILL: the server has e4.
    let mut d = Daemon::start(&lichess, &state, CONFIG);
    assert_eq!(d.playing(), id);
    lichess.opponent(&id, "move/e7e5");
    d.carry_out(&mut pos, "e7e5");
    // Nf3's POST is cut off, then the daemon is killed: only the journal has it.
    lichess.fault(json!({"method": "POST", "path": "/move/g1f3$", "status": 0, "drop": true, "count": 100}));
    d.our_move(&mut pos, "g1f3");
    lichess.wait_answered("move/g1f3", 1);
    drop(d);
    lichess.fault(json!({"clear": true}));
    let mut d = Daemon::start(&lichess, &state, CONFIG);
    assert_eq!(d.playing(), id);
    lichess.wait_moves(&id, 3);
    lichess.opponent(&id, "move/b8c6");
    d.carry_out(&mut pos, "b8c6");
    d.our_move(&mut pos, "f1b5");
    lichess.wait_answered("move/f1b5", 1);
    assert_eq!(lichess.game(&id)["moves"], json!(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]));
    let taken = moves_taken(&lichess, &id);
    assert_eq!(taken.len(), 3, "{taken:?}");
    assert!(taken.values().all(|&n| n == 1), "no move reached the server twice: {taken:?}");
    let refused = log(&lichess).into_iter().filter(|(_, w, s)| w.contains("/move/") && *s == Some(400)).count();
    assert_eq!(refused, 0, "no move was sent that the server already had: {:?}", log(&lichess));
    assert!(seen(&d, "online", Some("taken_back")).is_empty(), "no take-back is said after the restart");
    assert!(seen(&d, "take_back", None).is_empty());
}

/// After a 429 nothing reaches the server for a minute; then the move goes.
#[test]
fn after_a_429_no_request_for_a_minute() {
    let (lichess, _state, id, mut d) = playing("429", "white");
    lichess.fault(json!({"method": "POST", "path": "/move/", "status": 429, "count": 1}));
    let mut pos = Chess::default();
    d.our_move(&mut pos, "d2d4");
    let limited = d.events.next("online");
    assert_eq!((limited["what"].as_str(), limited["for_s"].as_u64()), (Some("rate_limited"), Some(60)), "{limited}");
    lichess.wait_answered("move/d2d4", 2);
    let requests = log(&lichess);
    let at_429 = requests.iter().find(|(_, _, s)| *s == Some(429)).expect("the 429 is in the log").0;
    let after: Vec<_> = requests.iter().filter(|(t, _, _)| *t > at_429).collect();
    assert!(!after.is_empty());
    assert!(after.iter().all(|(t, _, _)| t - at_429 >= PAUSE_S - 0.5), "a request within the minute: {after:?}");
    assert_eq!(lichess.game(&id)["moves"], json!(["d2d4"]));
}

/// The opponent's draw offer (declined from the board), a takeback request
/// (declined), then the player's own offer, accepted: a draw by agreement.
#[test]
fn draw_and_takeback_offers() {
    let (lichess, state, id, mut d) = playing("offers", "white");
    let mut pos = Chess::default();
    d.our_move(&mut pos, "e2e4");
    lichess.wait_answered("move/e2e4", 1);
    lichess.opponent(&id, "move/c7c5");
    d.carry_out(&mut pos, "c7c5");
    lichess.opponent(&id, "offer/draw");
    assert_eq!(d.events.next("draw_offer")["side"], "black");
    d.type_line("online draw_no");
    // Answered at once, not at the next move.
    assert_eq!(d.events.next_of(&["draw_declined", "move", "complete"])["event"], "draw_declined");
    lichess.wait_answered("POST /api/board/game/.*/draw/no", 1);
    assert_eq!(lichess.game(&id)["draw"]["black"], false, "the offer is declined");
    lichess.opponent(&id, "offer/takeback");
    let asked = d.events.next("online");
    assert_eq!((asked["what"].as_str(), asked["open"].as_bool()), (Some("takeback_offer"), Some(true)), "{asked}");
    d.type_line("online takeback_no");
    lichess.wait_answered("POST /api/board/game/.*/takeback/no", 1);
    assert_eq!(lichess.game(&id)["takeback"]["black"], false, "the request is declined");
    // The player offers a draw after their move; the opponent accepts.
    d.our_move(&mut pos, "g1f3");
    d.type_line("draw white");
    assert_eq!(d.events.next("draw_offer")["side"], "white");
    lichess.wait_answered("POST /api/board/game/.*/draw/yes", 1);
    lichess.opponent(&id, "answer/draw/yes");
    let over = d.events.next("game_over");
    assert_eq!((over["result"].as_str(), over["reason"].as_str()), (Some("1/2-1/2"), Some("agreement")), "{over}");
    assert_eq!(lichess.game(&id)["status"], "draw");
    d.ends();
    journal_replays_to(&state, &["e2e4", "c7c5", "g1f3"]);
}

/// A move the server refuses is said; the player sets the board back and
/// plays another, which the server takes.
#[test]
fn a_refused_move_is_said_and_taken_back() {
    let (lichess, _state, id, mut d) = playing("refused", "white");
    lichess.fault(json!({"method": "POST", "path": "/move/e2e4$", "status": 400,
        "body": {"error": "Not your turn, or game already over"}, "count": 1}));
    let mut pos = Chess::default();
    let before = pos.clone();
    d.our_move(&mut pos, "e2e4");
    let refused = d.events.next("online");
    assert_eq!((refused["what"].as_str(), refused["uci"].as_str()), (Some("refused"), Some("e2e4")), "{refused}");
    assert_eq!(refused["san"], "e4");
    // The player takes it back on the board.
    d.type_line("e4- e2+");
    let back = d.events.next("take_back");
    assert_eq!(back["taken"], json!(["e4"]), "{back}");
    let mut pos = before;
    d.our_move(&mut pos, "d2d4");
    lichess.wait_answered("move/d2d4", 1);
    assert_eq!(lichess.game(&id)["moves"], json!(["d2d4"]));
    lichess.opponent(&id, "move/d7d5");
    d.carry_out(&mut pos, "d7d5");
    assert!(
        !log(&lichess).iter().any(|(_, w, _)| w.contains("/takeback/")),
        "setting the board back after a refusal asks the server for nothing"
    );
}

/// The player aborts from the board: the server ends the game, the daemon
/// says so and the journal ends.
#[test]
fn an_abort_from_the_board() {
    let (lichess, _state, id, mut d) = playing("abort", "black");
    d.type_line("online abort");
    let asked = d.online("asked");
    assert_eq!((asked["ask"].as_str(), asked["standing"].as_bool()), (Some("abort"), Some(true)), "said at once");
    let ended = d.online("ended");
    assert_eq!((ended["what"].as_str(), ended["status"].as_str()), (Some("ended"), Some("aborted")), "{ended}");
    assert_eq!(lichess.game(&id)["status"], "aborted");
    d.ends();
}

/// `[lichess] challenge`: the daemon challenges the player at start with
/// the configured clock; the game that starts from it is played.
#[test]
fn a_game_from_a_challenge() {
    let lichess = lichess();
    let state = tempdir("challenge");
    let config = format!("{CONFIG}\n[lichess]\nchallenge = \"Friend\"\n");
    let mut d = Daemon::start(&lichess, &state, &config);
    let sent = d.events.next("online");
    assert_eq!((sent["what"].as_str(), sent["player"].as_str()), (Some("challenge"), Some("Friend")), "{sent}");
    assert_eq!((sent["incoming"].as_bool(), sent["clock"].as_str()), (Some(false), Some("30+5")));
    let id = d.playing();
    assert_eq!(id, sent["id"], "the challenge's game");
    let start = d.events.seen.borrow().iter().rev().find(|e| e["event"] == "start").cloned().unwrap();
    assert_eq!(start["time_control"], "1800+5", "the challenge's clock: {start}");
    let requests = log(&lichess);
    assert!(requests.iter().any(|(_, w, _)| w == "POST /api/challenge/Friend"), "{requests:?}");
    let mut pos = Chess::default();
    d.our_move(&mut pos, "c2c4");
    lichess.wait_answered("move/c2c4", 1);
    lichess.opponent(&id, "move/e7e5");
    d.carry_out(&mut pos, "e7e5");
    assert_eq!(lichess.game(&id)["moves"], json!(["c2c4", "e7e5"]));
    // Killed and restarted mid-game, it goes on with the game and asks for
    // no new one.
    drop(d);
    let mut d = Daemon::start(&lichess, &state, &config);
    assert_eq!(d.playing(), id);
    d.our_move(&mut pos, "b1c3");
    lichess.wait_answered("move/b1c3", 1);
    lichess.opponent(&id, "move/g8f6");
    d.carry_out(&mut pos, "g8f6");
    let challenges = log(&lichess).into_iter().filter(|(_, w, _)| w.starts_with("POST /api/challenge/")).count();
    assert_eq!(challenges, 1, "one challenge: {:?}", log(&lichess));
}

/// A challenge to the account is said with its sender and clock, and
/// accepted from the board.
#[test]
fn a_challenge_to_the_account_is_said_and_accepted_from_the_board() {
    let lichess = lichess();
    let state = tempdir("incoming");
    let mut d = Daemon::start(&lichess, &state, CONFIG);
    lichess.wait_answered("GET /api/stream/event", 1);
    let challenge = json!({"from": "Coach", "limit": 900, "increment": 10, "color": "white"});
    let cid = lichess.control("POST", "/_test/challenge", &challenge)["id"].as_str().unwrap().to_string();
    let said = d.events.next("online");
    assert_eq!((said["what"].as_str(), said["player"].as_str()), (Some("challenge"), Some("Coach")), "{said}");
    assert_eq!((said["incoming"].as_bool(), said["clock"].as_str()), (Some(true), Some("15+10")));
    d.type_line("online accept");
    assert_eq!(d.playing(), cid, "the challenge's game is played");
    let mut pos = Chess::default();
    lichess.opponent(&cid, "move/d2d4");
    d.carry_out(&mut pos, "d2d4");
    d.our_move(&mut pos, "g8f6");
    lichess.wait_answered("move/g8f6", 1);
    assert_eq!(lichess.game(&cid)["moves"], json!(["d2d4", "g8f6"]));
}

/// The opponent asks to take their move back; the player accepts from the
/// board. The server takes it back: the board is told what to put where,
/// and the opponent's next move, made before the board is set back, is
/// said once it is. The server's moves and the journal agree.
#[test]
fn the_opponents_takeback_request_accepted_from_the_board() {
    let (lichess, state, id, mut d) = playing("takeback-yes", "white");
    let mut pos = Chess::default();
    d.our_move(&mut pos, "e2e4");
    lichess.wait_answered("move/e2e4", 1);
    lichess.opponent(&id, "move/c7c5");
    d.carry_out(&mut pos, "c7c5");
    lichess.opponent(&id, "offer/takeback");
    let asked = d.events.next("online");
    assert_eq!((asked["what"].as_str(), asked["open"].as_bool()), (Some("takeback_offer"), Some(true)), "{asked}");
    d.type_line("online takeback_yes");
    lichess.wait_answered("POST /api/board/game/.*/takeback/yes", 1);
    assert_eq!(lichess.game(&id)["moves"], json!(["e2e4"]), "the server took c5 back");
    let back = d.events.next("take_back");
    assert_eq!((back["taken"].clone(), back["ply"].as_u64()), (json!(["c5"]), Some(2)), "{back}");
    let fix = d.events.next("board_mismatch");
    assert_eq!(fix["fix"], json!([{"piece": "p", "from": "c5", "to": "c7"}]), "{fix}");
    let mut pos = Chess::default();
    pos.play_unchecked(uci_move(&pos, "e2e4"));
    // The opponent moves again before the board is set back: held.
    lichess.opponent(&id, "move/e7e5");
    d.type_line("c5- c7+");
    d.events.next("board_ok");
    d.carry_out(&mut pos, "e7e5");
    d.our_move(&mut pos, "g1f3");
    lichess.wait_answered("move/g1f3", 1);
    let played = ["e2e4", "e7e5", "g1f3"];
    assert_eq!(lichess.game(&id)["moves"], json!(played));
    d.ends();
    journal_replays_to(&state, &played);
}

/// The player sets the board back: a take-back is asked of the server and
/// nothing is taken back on the board; the opponent declines (said: the
/// board goes back as the game stands), then agrees to the next request,
/// and only then are the moves taken back.
#[test]
fn the_board_set_back_asks_the_server_which_decides() {
    let (lichess, state, id, mut d) = playing("takeback-ask", "white");
    let mut pos = Chess::default();
    d.our_move(&mut pos, "e2e4");
    lichess.wait_answered("move/e2e4", 1);
    lichess.opponent(&id, "move/e7e5");
    d.carry_out(&mut pos, "e7e5");
    d.our_move(&mut pos, "g1f3");
    lichess.wait_answered("move/g1f3", 1);
    d.type_line("f3- g1+");
    assert_eq!(d.events.next_of(&["take_back_asked", "take_back"])["event"], "take_back_asked");
    lichess.wait_answered("POST /api/board/game/.*/takeback/yes", 1);
    assert_eq!(lichess.game(&id)["takeback"]["white"], true, "the request stands on the server");
    lichess.opponent(&id, "answer/takeback/no");
    let declined = d.events.next("online");
    assert_eq!(declined["what"], "takeback_declined", "{declined}");
    d.type_line("g1- f3+");
    lichess.opponent(&id, "move/b8c6");
    d.carry_out(&mut pos, "b8c6");
    // Asked again, agreed: the server takes Nc6 and Nf3 back.
    d.type_line("c6- b8+ f3- g1+");
    assert_eq!(d.events.next_of(&["take_back_asked", "take_back"])["event"], "take_back_asked");
    lichess.wait_answered("POST /api/board/game/.*/takeback/yes", 2);
    lichess.opponent(&id, "answer/takeback/yes");
    let back = d.events.next("take_back");
    assert_eq!(back["taken"], json!(["Nf3", "Nc6"]), "{back}");
    let mut pos = Chess::default();
    pos.play_unchecked(uci_move(&pos, "e2e4"));
    pos.play_unchecked(uci_move(&pos, "e7e5"));
    d.our_move(&mut pos, "d2d4");
    lichess.wait_answered("move/d2d4", 1);
    let played = ["e2e4", "e7e5", "d2d4"];
    assert_eq!(lichess.game(&id)["moves"], json!(played));
    assert!(moves_taken(&lichess, &id).values().all(|&n| n == 1), "each move sent once: {:?}", log(&lichess));
    d.ends();
    journal_replays_to(&state, &played);
}

/// The player's own move made on the website is said as theirs, guided
/// onto the board like the opponent's and completed when the board shows
/// it; the board sends nothing, the server having it.
#[test]
fn a_move_made_on_the_website_is_followed_on_the_board() {
    let (lichess, state, id, mut d) = playing("website", "white");
    let mut pos = Chess::default();
    lichess.opponent(&id, "website/move/e2e4");
    let said = d.events.next("opponent_move");
    assert_eq!((said["uci"].as_str(), said["website"].as_bool()), (Some("e2e4"), Some(true)), "{said}");
    d.type_line(&carried_out(&said));
    assert_eq!(d.events.next("complete")["uci"], "e2e4");
    pos.play_unchecked(uci_move(&pos, "e2e4"));
    lichess.opponent(&id, "move/e7e5");
    d.carry_out(&mut pos, "e7e5");
    d.our_move(&mut pos, "g1f3");
    lichess.wait_answered("move/g1f3", 1);
    let played = ["e2e4", "e7e5", "g1f3"];
    assert_eq!(lichess.game(&id)["moves"], json!(played));
    assert!(!moves_taken(&lichess, &id).contains_key("e2e4"), "the website's move is not sent: {:?}", log(&lichess));
    assert!(!d.events.seen.borrow().iter().any(|e| e["event"] == "online" && e["what"] == "failed"), "nothing failed");
    d.ends();
    journal_replays_to(&state, &played);
}

/// The board's move completed while the website's move for that ply was
/// on its way (the game stream silent meanwhile): the server refuses the
/// board's, the board goes back and follows the website's.
#[test]
fn a_board_move_made_while_the_website_moved_gives_way_to_it() {
    let (lichess, state, id, mut d) = playing("website-race", "white");
    let mut pos = Chess::default();
    lichess.opponent(&id, "silence");
    lichess.opponent(&id, "website/move/e2e4");
    d.our_move(&mut pos, "d2d4");
    let refused = d.events.next("online");
    assert_eq!((refused["what"].as_str(), refused["uci"].as_str()), (Some("refused"), Some("d2d4")), "{refused}");
    assert_eq!(d.events.next("take_back")["taken"], json!(["d4"]));
    d.events.next("board_mismatch");
    d.type_line("d4- d2+");
    let said = d.events.next("opponent_move");
    assert_eq!((said["uci"].as_str(), said["website"].as_bool()), (Some("e2e4"), Some(true)), "{said}");
    d.type_line(&carried_out(&said));
    assert_eq!(d.events.next("complete")["uci"], "e2e4");
    let mut pos = Chess::default();
    pos.play_unchecked(uci_move(&pos, "e2e4"));
    lichess.opponent(&id, "move/e7e5");
    d.carry_out(&mut pos, "e7e5");
    d.our_move(&mut pos, "g1f3");
    lichess.wait_answered("move/g1f3", 1);
    let played = ["e2e4", "e7e5", "g1f3"];
    assert_eq!(lichess.game(&id)["moves"], json!(played));
    assert!(!moves_taken(&lichess, &id).contains_key("e2e4"), "{:?}", log(&lichess));
    d.ends();
    journal_replays_to(&state, &played);
}

/// The opponent's lines in the players' chat are said; the spectators'
/// are not.
#[test]
fn the_opponents_chat_is_said() {
    let (lichess, _state, id, d) = playing("chat", "white");
    lichess.control(
        "POST",
        &format!("/_test/game/{id}/chat"),
        &json!({"room": "spectator", "from": "Fan", "text": "go!"}),
    );
    lichess.control("POST", &format!("/_test/game/{id}/chat"), &json!({"text": "Good luck, have fun"}));
    let said = d.events.next("online");
    assert_eq!(said["what"], "chat", "{said}");
    assert_eq!(
        (said["from"].as_str(), said["text"].as_str()),
        (Some("Opponent"), Some("Good luck, have fun")),
        "{said}"
    );
}

/// A game begun elsewhere, with moves on the server that no journal
/// holds, is set up on the board move by move — the player's own as made
/// on the website, the opponent's as theirs — and then played on; the
/// opponent's move made meanwhile waits its turn.
#[test]
fn a_game_begun_elsewhere_is_set_up_move_by_move() {
    let lichess = lichess();
    let state = tempdir("elsewhere");
    let mut d = Daemon::start(&lichess, &state, CONFIG);
    lichess.wait_answered("GET /api/stream/event", 1);
    let begun = json!({"our_color": "black", "opponent": "Opponent", "moves": ["e2e4", "e7e5"]});
    let id = lichess.control("POST", "/_test/game", &begun)["id"].as_str().unwrap().to_string();
    assert_eq!(d.playing(), id);
    let mut pos = Chess::default();
    d.carry_out(&mut pos, "e2e4");
    let said = d.events.next("opponent_move");
    assert_eq!((said["uci"].as_str(), said["website"].as_bool()), (Some("e7e5"), Some(true)), "{said}");
    // The opponent moves before the board has e5.
    lichess.opponent(&id, "move/g1f3");
    d.type_line(&carried_out(&said));
    assert_eq!(d.events.next("complete")["uci"], "e7e5");
    pos.play_unchecked(uci_move(&pos, "e7e5"));
    d.carry_out(&mut pos, "g1f3");
    d.our_move(&mut pos, "b8c6");
    lichess.wait_answered("move/b8c6", 1);
    let played = ["e2e4", "e7e5", "g1f3", "b8c6"];
    assert_eq!(lichess.game(&id)["moves"], json!(played));
    let taken = moves_taken(&lichess, &id);
    assert_eq!(taken.keys().collect::<Vec<_>>(), ["b8c6"], "only the board's own move is sent: {taken:?}");
    d.ends();
    journal_replays_to(&state, &played);
}

/// An open clock's `DRAW` and `RESIGN` are the player's, whose side the
/// online game gives: the offer and the resignation reach the server.
#[test]
fn the_clocks_draw_and_resign_buttons_reach_the_server() {
    use tactus_clockdev::sim::{Saw, SimClock};
    use tactus_clockdev::{Button, DeviceKind};

    let lichess = lichess();
    let state = tempdir("online-buttons");
    let id = lichess.new_game("black");
    let path = state.join("tactus-clock");
    let sim = SimClock::plug(DeviceKind::Open, &path).unwrap();
    let config = format!("{CONFIG}[clock]\ndevice = \"open\"\npath = \"{}\"\n", path.display());
    let mut d = Daemon::start(&lichess, &state, &config);
    assert_eq!(d.playing(), id);
    assert!(
        sim.wait_for(std::time::Duration::from_secs(30), |s| matches!(s, Saw::Hello)).is_some(),
        "the daemon greets the clock"
    );
    lichess.opponent(&id, "move/e2e4");
    let mut pos = Chess::default();
    d.carry_out(&mut pos, "e2e4");
    sim.button(&Button::Draw);
    assert_eq!(d.events.next("draw_offer")["side"], "black", "the board plays Black");
    lichess.wait_answered("POST /api/board/game/.*/draw/yes", 1);
    sim.button(&Button::Resign);
    let over = d.events.next("game_over");
    assert_eq!((over["result"].as_str(), over["reason"].as_str()), (Some("1-0"), Some("resignation")), "{over}");
    lichess.wait_answered("POST /api/board/game/.*/resign", 1);
    assert_eq!(lichess.game(&id)["status"], "resign");
    d.ends();
}

/// Every event of the kinds named, seen so far.
fn seen(d: &Daemon, event: &str, what: Option<&str>) -> Vec<serde_json::Value> {
    let seen = d.events.seen.borrow();
    seen.iter().filter(|e| e["event"] == event && what.is_none_or(|w| e["what"] == w)).cloned().collect()
}

/// Issue 29, item 2: Lichess refuses the board's token for 25 s mid-game
/// (every request and stream answered 401; the streams it had, dropped).
/// The player hears it once, during the outage; the move made meanwhile
/// goes once the token works again, in the same game; board and server
/// agree; nothing is sent twice, nothing said about games not played.
#[test]
fn a_token_refused_for_25_s_mid_game_keeps_the_game() {
    let (lichess, state, id, mut d) = playing("token-outage", "white");
    let mut pos = Chess::default();
    d.our_move(&mut pos, "e2e4");
    lichess.wait_answered("move/e2e4", 1);
    lichess.opponent(&id, "move/e7e5");
    d.carry_out(&mut pos, "e7e5");
    // The outage: a token check would still know the token.
    let worked =
        |l: &LichessServer| log(l).iter().filter(|(_, w, s)| w.starts_with("GET /api/") && *s == Some(200)).count();
    let before = worked(&lichess);
    lichess
        .fault(json!({"path": "^/api/(?!token/test)", "status": 401, "body": {"error": "No such token"}, "for_s": 25}));
    lichess.control("POST", "/_test/events/drop", &json!({}));
    lichess.opponent(&id, "drop");
    let refused = d.online("token");
    assert_eq!(refused["state"], "refused", "{refused}");
    // Told during the outage: no stream has opened since it began.
    assert_eq!(worked(&lichess), before, "said while Lichess still refuses the token");
    d.our_move(&mut pos, "g1f3");
    // The token works again: the same game goes on, Nf3 reaches the server once.
    let back = d.online("token");
    assert_eq!(back["state"], "accepted", "{back}");
    lichess.wait_moves(&id, 3);
    lichess.opponent(&id, "move/b8c6");
    d.carry_out(&mut pos, "b8c6");
    d.our_move(&mut pos, "f1c4");
    lichess.wait_answered("move/f1c4", 1);
    let played = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"];
    assert_eq!(lichess.game(&id)["moves"], json!(played), "board and server agree");
    assert!(moves_taken(&lichess, &id).values().all(|&n| n == 1), "each move taken once: {:?}", log(&lichess));
    assert_eq!(seen(&d, "online", Some("token")).len(), 2, "refused once, back once");
    assert!(seen(&d, "online", Some("not_played")).is_empty(), "the board's game is not 'another game'");
    assert_eq!(seen(&d, "online", Some("playing")).len(), 1, "the same game, not started again");
    d.ends();
    journal_replays_to(&state, &played);
}

/// Issue 29, item 2: a token the account revoked is said refused, then for
/// good (Lichess's token check no longer knows it), each once; known
/// again, the game goes on.
#[test]
fn a_revoked_token_is_said_for_good_once() {
    let (lichess, _state, id, mut d) = playing("token-revoked", "white");
    let mut pos = Chess::default();
    d.our_move(&mut pos, "d2d4");
    lichess.wait_answered("move/d2d4", 1);
    lichess.control("POST", "/_test/token", &json!({"token": TOKEN}));
    lichess.opponent(&id, "drop");
    assert_eq!(d.online("token")["state"], "refused");
    assert_eq!(d.online("token")["state"], "unknown", "for good: a new token is needed");
    lichess.control("POST", "/_test/token", &json!({"token": TOKEN, "revoked": false}));
    assert_eq!(d.online("token")["state"], "accepted");
    lichess.opponent(&id, "move/d7d5");
    d.carry_out(&mut pos, "d7d5");
    assert_eq!(seen(&d, "online", Some("token")).len(), 3);
}

/// Issue 29, item 3: a flood of 20 chat lines, then the opponent's move.
/// Two lines are said as they come; the move is said before any other;
/// how many more came is said once; `online chat` reads them.
#[test]
fn a_chat_flood_does_not_stand_before_the_move() {
    let lichess = lichess();
    let state = tempdir("chat-flood");
    let id = lichess.new_game("black");
    let d = Daemon::speaking(&lichess, &state, CONFIG, "en");
    assert_eq!(d.playing(), id);
    let line = "a".repeat(120);
    lichess.control("POST", &format!("/_test/game/{id}/chat"), &json!({"text": line, "count": 20}));
    lichess.opponent(&id, "move/e2e4");
    // What the voice says, in order, up to the move.
    let mut said = Vec::new();
    loop {
        let l = d.said("");
        let done = l.contains("Opponent plays");
        said.push(l);
        if done {
            break;
        }
    }
    let chat: Vec<&String> = said.iter().filter(|l| l.contains("Opponent writes")).collect();
    assert!(chat.len() <= 2, "at most two chat lines before the move: {said:#?}");
    assert!(!said.iter().any(|l| l.contains("writes: 3:")), "the third line is not before the move: {said:#?}");
    let held = d.online("chat_held");
    assert_eq!(held["count"], 18, "{held}");
    let mut d = d;
    d.type_line("online chat");
    let read = d.online("chat_lines");
    let lines = read["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 18);
    assert!(lines[0]["text"].as_str().unwrap().starts_with("3: "), "{read}");
    assert_eq!(seen(&d, "online", Some("chat")).len(), 2);
}

/// Issue 29, item 4: a game stream that falls silent, again and again, is
/// opened again at once each time (no back-off), and nothing is said
/// about the link; the opponent's move made meanwhile arrives.
#[test]
fn a_silent_stream_is_opened_again_at_once_and_nothing_said() {
    let (lichess, _state, id, mut d) = playing("silence", "white");
    let mut pos = Chess::default();
    d.our_move(&mut pos, "e2e4");
    lichess.wait_answered("move/e2e4", 1);
    let streams = |l: &LichessServer| -> Vec<f64> {
        l.log()
            .iter()
            .filter(|e| e["path"] == format!("/api/board/game/stream/{id}"))
            .map(|e| e["mono"].as_f64().unwrap())
            .collect()
    };
    for cycle in 0..3 {
        let before = streams(&lichess).len();
        let silent_at = lichess.opponent(&id, "silence")["mono"].as_f64().unwrap();
        lichess.wait_answered(&format!("stream/{id}"), before + 1);
        let reopened = *streams(&lichess).last().unwrap();
        // Silence is 15 s of nothing: opened again then, not after a back-off.
        assert!(
            reopened - silent_at < 15.0 + 4.0,
            "cycle {cycle}: opened again {:.1} s after the silence began",
            reopened - silent_at
        );
    }
    lichess.opponent(&id, "move/e7e5");
    d.carry_out(&mut pos, "e7e5");
    assert!(seen(&d, "device_lost", None).is_empty(), "silence is not failure: {:?}", seen(&d, "device_lost", None));
    assert!(seen(&d, "device_back", None).is_empty());
}

/// Issue 29, item 5: ten megabytes without a newline, then the state line
/// with the opponent's move glued to it: the move arrives.
#[test]
fn a_line_of_junk_does_not_swallow_the_next_state() {
    let (lichess, _state, id, mut d) = playing("junk", "white");
    let mut pos = Chess::default();
    d.our_move(&mut pos, "e2e4");
    lichess.wait_answered("move/e2e4", 1);
    lichess.control("POST", &format!("/_test/game/{id}/raw"), &json!({"bytes": 10 * 1024 * 1024}));
    lichess.opponent(&id, "move/c7c5");
    d.carry_out(&mut pos, "c7c5");
}

/// Issue 29, item 6: games the board cannot play right are refused loudly
/// (said, with the reason; logged with what to change), never started: a
/// game whose stream gives another game, one whose move list is not legal,
/// one the account does not play.
#[test]
fn games_that_cannot_be_played_right_are_refused_loudly() {
    let lichess = lichess();
    let state = tempdir("refused-games");
    let d = Daemon::speaking(&lichess, &state, CONFIG, "en");
    lichess.wait_answered("GET /api/stream/event", 1);
    let game = |fault: serde_json::Value| {
        let mut g = json!({"our_color": "white", "opponent": "Opponent"});
        g.as_object_mut().unwrap().extend(fault.as_object().unwrap().clone());
        lichess.control("POST", "/_test/game", &g)["id"].as_str().unwrap().to_string()
    };
    for (fault, reason, logged) in [
        (json!({"stream_id": "Other123"}), "other_game", "[lichess] url"),
        (json!({"moves": ["e2e4"], "garble": "e1e8"}), "illegal_moves", "not legal at ply 2"),
        (json!({"players": {"white": "Anna", "black": "Boris"}}), "not_a_player", "plays neither White nor Black"),
    ] {
        let id = game(fault);
        let said = d.online("not_played");
        assert_eq!((said["game"].as_str(), said["reason"].as_str()), (Some(id.as_str()), Some(reason)), "{said}");
        d.said(logged);
        // It ends there: the game is not played, and the next one can be.
        lichess.opponent(&id, "abort");
    }
    assert!(seen(&d, "online", Some("playing")).is_empty(), "none started");
    let id = lichess.new_game("white");
    assert_eq!(d.playing(), id, "a good game is played after them");
}

/// Issue 29, item 9: a challenger's name with espeak-ng's phoneme markup
/// is said without it.
#[test]
fn a_challengers_markup_is_not_said() {
    let lichess = lichess();
    let state = tempdir("markup");
    let d = Daemon::start(&lichess, &state, CONFIG);
    lichess.wait_answered("GET /api/stream/event", 1);
    lichess.control("POST", "/_test/challenge", &json!({"from": "[[h@l@U]]Coach", "limit": 900, "increment": 10}));
    let said = d.online("challenge");
    assert_eq!(said["player"], "h@l@UCoach", "{said}");
}

/// Issue 29, items 9 and 10: the server answers the move's POST after
/// 30 s: it is not sent again, nothing is said to have failed, and the
/// game goes on.
#[test]
fn a_move_answered_after_30_s_is_not_sent_again() {
    let (lichess, _state, id, mut d) = playing("slow-post", "white");
    let mut pos = Chess::default();
    lichess.fault(json!({"method": "POST", "path": "/move/e2e4$", "delay": 30}));
    d.our_move(&mut pos, "e2e4");
    lichess.wait_answered("move/e2e4", 1);
    lichess.opponent(&id, "move/e7e5");
    d.carry_out(&mut pos, "e7e5");
    let posts = posts_of(&lichess, &id, "e2e4").len();
    assert_eq!(posts, 1, "POSTed once: {:?}", log(&lichess));
    assert!(seen(&d, "device_lost", None).is_empty(), "nothing failed: {:?}", seen(&d, "device_lost", None));
    assert!(seen(&d, "online", Some("refused")).is_empty());
}

/// The server's log entries of the POSTs of `uci` in game `id`.
fn posts_of(lichess: &LichessServer, id: &str, uci: &str) -> Vec<serde_json::Value> {
    let path = format!("/api/board/game/{id}/move/{uci}");
    lichess.log().into_iter().filter(|e| e["method"] == "POST" && e["path"] == path.as_str()).collect()
}

/// Issue 32: SIGTERM with a move's POST in flight. Lichess holds e4's
/// POST, then takes it: the daemon waits for the answer and exits within
/// 2 s; restarted, it does not send e4 again. Nf3's POST is held past the
/// stop's deadline: the daemon exits within 2 s all the same, and,
/// restarted, sends Nf3 because the server lacks it. Each move reaches the
/// server's game once.
#[test]
fn sigterm_with_a_move_post_in_flight_exits_in_2_s_and_the_move_reaches_the_server_once() {
    let (lichess, state, id, mut d) = playing("sigterm-post", "white");
    let mut pos = Chess::default();
    // Held half a second: an answer well within the stop's deadline.
    lichess.fault(json!({"method": "POST", "path": "/move/e2e4$", "delay": 0.5}));
    d.our_move(&mut pos, "e2e4");
    lichess.wait_received("move/e2e4", 1);
    let took = d.terminate();
    assert!(took <= Duration::from_secs(2), "SIGTERM with a POST in flight took {took:?}");
    lichess.wait_answered("move/e2e4", 1);
    let posts = posts_of(&lichess, &id, "e2e4");
    assert_eq!(posts.len(), 1, "{posts:?}");
    assert_eq!(posts[0]["status"], 200, "{posts:?}");
    assert_eq!(posts[0]["hung_up"], false, "the daemon waited for Lichess's answer to its move: {posts:?}");
    let mut d = Daemon::start(&lichess, &state, CONFIG);
    assert_eq!(d.playing(), id);
    lichess.opponent(&id, "move/e7e5");
    d.carry_out(&mut pos, "e7e5");
    // Held far past the deadline: the daemon gives it up and exits.
    lichess.fault(json!({"method": "POST", "path": "/move/g1f3$", "delay": 60}));
    d.our_move(&mut pos, "g1f3");
    lichess.wait_received("move/g1f3", 1);
    let took = d.terminate();
    assert!(took <= Duration::from_secs(2), "SIGTERM with a POST held by the server took {took:?}");
    let mut d = Daemon::start(&lichess, &state, CONFIG);
    assert_eq!(d.playing(), id);
    lichess.wait_moves(&id, 3);
    lichess.opponent(&id, "move/b8c6");
    d.carry_out(&mut pos, "b8c6");
    let played = ["e2e4", "e7e5", "g1f3", "b8c6"];
    assert_eq!(lichess.game(&id)["moves"], json!(played), "board and server agree");
    assert_eq!(posts_of(&lichess, &id, "e2e4").len(), 1, "e4 POSTed once: {:?}", log(&lichess));
    let taken = moves_taken(&lichess, &id);
    assert_eq!(taken.len(), 2, "{taken:?}");
    assert!(taken.values().all(|&n| n == 1), "each move taken once: {taken:?}");
    assert!(seen(&d, "online", Some("refused")).is_empty(), "no move said refused");
    assert!(seen(&d, "take_back", None).is_empty(), "nothing taken back");
    d.ends();
    journal_replays_to(&state, &played);
}

/// Also seen in issue 29: a move made as the game starts on the server,
/// before the board has set it up, is completed and sent — the piece
/// lifted before, the press after; and the whole move made before.
#[test]
fn a_move_made_as_the_game_starts_is_completed() {
    for whole_before in [false, true] {
        let lichess = lichess();
        let state = tempdir(&format!("first-second-{whole_before}"));
        let mut d = Daemon::start(&lichess, &state, CONFIG);
        lichess.wait_answered("GET /api/stream/event", 1);
        // No game yet: nothing is announced of the board's stand-in.
        d.type_line("e2-");
        d.events.next("touch");
        if whole_before {
            d.type_line("e4+");
            d.events.next("move");
            d.type_line("w");
            d.events.next("complete");
        }
        let id = lichess.new_game("white");
        assert_eq!(d.playing(), id);
        if !whole_before {
            d.type_line("e4+");
            d.events.next("move");
            d.type_line("w");
            assert_eq!(d.events.next("complete")["uci"], "e2e4");
        }
        lichess.wait_answered("move/e2e4", 1);
        assert_eq!(lichess.game(&id)["moves"], json!(["e2e4"]));
        let events = d.events.seen.borrow().clone();
        let starts: Vec<usize> =
            events.iter().enumerate().filter(|(_, e)| e["event"] == "start").map(|(i, _)| i).collect();
        assert_eq!(starts.len(), 1, "only the server's game starts: {events:?}");
        let completed = events[starts[0]..].iter().filter(|e| e["event"] == "complete").collect::<Vec<_>>();
        assert_eq!(completed.len(), 1, "completed in the server's game: {events:?}");
        assert_eq!(completed[0]["clock_ms"], 1_800_000, "Lichess's clock stands before each side has moved");
        assert!(seen(&d, "irregularity", None).is_empty(), "no press ruled: {events:?}");
        d.ends();
        journal_replays_to(&state, &["e2e4"]);
    }
}

/// The player thinks before pressing: a scene's time, not a wait for
/// anything to be ready.
const THINK: Duration = Duration::from_millis(1500);

/// Issue 30's scene: a whole online game with increment (30 min + 5 s),
/// the board playing Black. The opponent's knight is carried out wrong (the
/// c2 pawn to c3), the board is killed (SIGKILL) mid-game and restarted. The
/// `complete` events' clocks are the server's, within 1.5 s; "Clocks set"
/// is said at most twice; the fix names the squares where the pieces stand;
/// the journal replays to the same clocks. What is said is kept in the
/// test's directory (`said.txt`).
#[test]
fn a_whole_online_game_keeps_the_servers_clock() {
    let lichess = lichess();
    let state = tempdir("server-clock");
    let id = lichess.new_game("black");
    let mut d = Daemon::speaking(&lichess, &state, CONFIG, "en:natural");
    assert_eq!(d.playing(), id);
    let mut pos = Chess::default();
    // 1. Nc3, carried out wrong: the c2 pawn to c3.
    lichess.opponent(&id, "move/b1c3");
    let said = d.events.next("opponent_move");
    assert_eq!(said["uci"], "b1c3");
    d.type_line("c2- c3+");
    // Told as the pawn leaves c2, then as it stands on c3 (another move).
    d.events.next("opponent_fix");
    let fix = d.events.next("opponent_fix");
    assert_eq!(fix["slip"]["uci"], "c2c3", "the move the board shows: {fix}");
    // The pawn from where it stands back to c2, the knight from b1 to c3.
    let fixes = fix["fix"].as_array().unwrap();
    let has = |piece: &str, from: &str, to: &str| {
        fixes.iter().any(|f| f["piece"] == piece && f["from"] == from && f["to"] == to)
    };
    assert!(has("P", "c3", "c2") && has("N", "b1", "c3"), "the fix names the real squares: {fix}");
    // Said as the pawn leaves c2, then as it stands on c3.
    d.said("c2");
    let words = d.said("c2");
    assert!(words.contains("c3") && words.contains("b1") && !words.contains("engine"), "said: {words}");
    eprintln!("the fix said: {words}");
    d.type_line("c3- c2+ b1- c3+");
    assert_eq!(d.events.next("complete")["uci"], "b1c3");
    pos.play_unchecked(uci_move(&pos, "b1c3"));
    let think_and_move = |d: &mut Daemon, pos: &mut Chess, uci: &str| {
        std::thread::sleep(THINK);
        d.our_move(pos, uci);
        lichess.wait_answered(&format!("move/{uci}"), 1);
    };
    think_and_move(&mut d, &mut pos, "d7d5");
    for (theirs, ours) in [("d2d4", "g8f6"), ("c1f4", "e7e6")] {
        std::thread::sleep(THINK);
        lichess.opponent(&id, &format!("move/{theirs}"));
        d.carry_out(&mut pos, theirs);
        think_and_move(&mut d, &mut pos, ours);
    }
    let mut completes: Vec<serde_json::Value> = seen(&d, "complete", None);
    let mut clocks_set = seen(&d, "clock_set", None).len();
    // Killed; the opponent moves while the board is away.
    drop(d);
    lichess.opponent(&id, "move/e2e3");
    let mut d = Daemon::speaking(&lichess, &state, CONFIG, "en:natural");
    assert_eq!(d.playing(), id);
    d.carry_out(&mut pos, "e2e3");
    think_and_move(&mut d, &mut pos, "f8d6");
    for (theirs, ours) in [("f4d6", "d8d6"), ("g1f3", "e8g8")] {
        std::thread::sleep(THINK);
        lichess.opponent(&id, &format!("move/{theirs}"));
        d.carry_out(&mut pos, theirs);
        think_and_move(&mut d, &mut pos, ours);
    }
    lichess.opponent(&id, "resign");
    let over = d.events.next("game_over");
    assert_eq!(over["result"], "0-1", "{over}");
    completes.extend(seen(&d, "complete", None));
    clocks_set += seen(&d, "clock_set", None).len();
    let server = lichess.game(&id);
    let server_clocks = server["clocks"].as_array().unwrap();
    let mut by_ply = std::collections::BTreeMap::new();
    for c in &completes {
        by_ply.insert(c["ply"].as_u64().unwrap(), c.clone());
    }
    assert_eq!(by_ply.len(), server_clocks.len(), "every move completed: {by_ply:?}");
    for (ply, c) in &by_ply {
        let side = c["side"].as_str().unwrap();
        let server_ms = server_clocks[*ply as usize - 1][side].as_i64().unwrap();
        let board_ms = c["clock_ms"].as_i64().unwrap();
        eprintln!("ply {ply} ({side}): the board {board_ms} ms, the server {server_ms} ms");
        assert!(
            (board_ms - server_ms).abs() <= 1500,
            "ply {ply} ({side}): the board {board_ms} ms, the server {server_ms} ms"
        );
    }
    assert!(clocks_set <= 2, "\"Clocks set\" said {clocks_set} times");
    // The journal replays to the same clocks, as the PGN's [%clk] writes them.
    let games = state.join("state/games");
    let trace = std::fs::read_dir(&games)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".trace.jsonl"))
        .unwrap();
    let r = tactus_core::replay::replay(
        BufReader::new(std::fs::File::open(&trace).unwrap()),
        tactus_core::Policy::default(),
    )
    .unwrap();
    for p in &r.session.game().played {
        let live = by_ply[&u64::from(p.info.ply)]["clock_ms"].as_i64();
        assert_eq!(p.clock_ms, live, "ply {}: the replay's clock is the live one", p.info.ply);
    }
    d.ends();
}

/// Issue 30, item 6: Lichess's AI is named in the player's language.
#[test]
fn lichess_ai_is_named_in_the_players_language() {
    let lichess = lichess();
    let state = tempdir("ai-de");
    let game = json!({"our_color": "white", "ai": 3, "clock": {"initial": 600_000, "increment": 0}});
    let id = lichess.control("POST", "/_test/game", &game)["id"].as_str().unwrap().to_string();
    let mut d = Daemon::speaking(&lichess, &state, CONFIG, "de");
    let playing = d.online("playing");
    assert_eq!((playing["game"].as_str(), playing["ai_level"].as_u64()), (Some(id.as_str()), Some(3)), "{playing}");
    d.said("Partie auf Lichess gegen Lichess-KI Stufe 3");
    let mut pos = Chess::default();
    d.our_move(&mut pos, "e2e4");
    lichess.wait_answered("move/e2e4", 1);
    lichess.opponent(&id, "move/e7e5");
    d.said("Lichess-KI Stufe 3 spielt");
}

/// Issue 29, item 3: fifty games started on the account while the board
/// plays one: one sentence, not fifty.
#[test]
fn fifty_games_the_board_cannot_play_are_said_once() {
    let (lichess, _state, id, d) = playing("fifty-games", "white");
    for _ in 0..50 {
        lichess.new_game("white");
    }
    let said = d.online("not_played");
    assert_eq!(said["reason"], "another_game", "{said}");
    // A challenge after them on the account's stream: the fifty were heard.
    lichess.control("POST", "/_test/challenge", &json!({"from": "Coach"}));
    d.online("challenge");
    assert_eq!(seen(&d, "online", Some("not_played")).len(), 1, "said once");
    // The board's own game goes on.
    lichess.opponent(&id, "offer/draw");
    d.events.next("draw_offer");
}
