//! Playing online from the board: the real daemon on the simulated board
//! against the Lichess test server written from Lichess's published API
//! reference (crates/lichess/tests/server, python3 with python-chess). The
//! test types the player's hands on the board and plays the opponent
//! through the server's test controls; it asserts on the daemon's events
//! and on the server's own log of the requests it received.

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Stdio};

use serde_json::json;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Position};

mod common;
use common::lichess::LichessServer;
use common::moves::{carried_out, hands};
use common::{EventStream, Guard, secret, tactus_run, tempdir};

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
}

impl Daemon {
    fn start(lichess: &LichessServer, state: &Path, config: &str) -> Daemon {
        let token = secret(state, "lichess.token", &format!("{TOKEN}\n"));
        let config_file = state.join("tactus.toml");
        std::fs::write(&config_file, config).unwrap();
        let mut child = tactus_run(&config_file, &state.join("state"))
            .args(["--board", "sim", "--lichess-url", &lichess.url, "--lichess-token-file"])
            .arg(&token)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let events = EventStream::of(&mut child);
        let stdin = child.stdin.take().unwrap();
        Daemon { child: Guard(child), stdin, events }
    }

    fn type_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
    }

    /// The board's input ends: the daemon stops on its own, and cleanly.
    fn ends(self) {
        let Daemon { mut child, stdin, .. } = self;
        drop(stdin);
        assert!(child.0.wait().unwrap().success());
    }

    /// The game the daemon says it plays.
    fn playing(&self) -> String {
        let e = self.events.next("online");
        assert_eq!(e["what"], "playing", "{e}");
        e["game"].as_str().unwrap().to_string()
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
    let ended = d.events.next("online");
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
