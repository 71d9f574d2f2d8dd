//! One game on two boards (Appendix D two-board play; a match between two
//! places): two daemons on the simulated board, `A` playing White and `B`
//! Black, linked through a real mosquitto with a hall key. Each move is
//! typed on its player's board and pressed; it arrives on the other board
//! as `opponent_move`, is carried out there from what it says, and is
//! completed without a press. Then the faults: a piece of the partner's put
//! on a wrong square, a stranger's moves on the broker, one side killed
//! (SIGKILL) and restarted from its journal, the broker restarted. And
//! the two boards at one table with one clock, attached to `A`: Black's
//! presses are typed on `A` and complete Black's moves on `B`.
//! Needs mosquitto (`apt-get install mosquitto`; ./setup installs it).

use std::io::Write;
use std::path::PathBuf;
use std::process::{ChildStdin, Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Square};

mod common;
use common::http::get;
use common::moves::{carried_out, hands};
use common::stranger::{Recorder, play_back};
use common::{EventStream, Guard, free_port, mosquitto, secret, tempdir, wait_for};

/// Morphy's Opera game (Paris, 1858): captures, a check, castling long, mate.
const OPERA: &str = "e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6 Qb3 Qe7 Nc3 c6 Bg5 b5 Nxb5 cxb5 \
                     Bxb5+ Nbd7 O-O-O Rd8 Rxd7 Rxd7 Rd1 Qe6 Bxd7+ Nxd7 Qb8+ Nxb8 Rd8#";

const KEY: &str = "the hall key of two schools, 32+";

/// A bound for failure only: each wait is for a line or an event.
const WAIT: Duration = Duration::from_secs(60);

/// The hall: its broker (a real mosquitto, restartable) and its key; the
/// time control its games are played at.
struct Hall {
    dir: PathBuf,
    port: u16,
    broker: Option<Guard>,
    time_control: &'static str,
}

impl Hall {
    fn new(name: &str, time_control: &'static str) -> Hall {
        Hall::with_config(name, time_control, "")
    }

    /// A hall whose boards all run with the configuration `config`.
    fn with_config(name: &str, time_control: &'static str, config: &str) -> Hall {
        let dir = tempdir(name);
        secret(&dir, "hall.key", &format!("{KEY}\n"));
        std::fs::write(dir.join("config.toml"), config).unwrap();
        let mut hall = Hall { dir, port: free_port(), broker: None, time_control };
        hall.start_broker();
        hall
    }

    /// On the same port each time: the boards find it again.
    fn start_broker(&mut self) {
        self.broker = Some(mosquitto(self.port, &self.dir));
    }

    fn stop_broker(&mut self) {
        drop(self.broker.take());
    }
}

/// One daemon on the simulated board, typed on at its standard input.
struct Board {
    id: &'static str,
    partner: &'static str,
    side: Color,
    /// `[pair] clock`: `own`, `here` or `partner`.
    clock: &'static str,
    hall_dir: PathBuf,
    port: u16,
    time_control: &'static str,
    /// `--voice`: `none`, or `text` (said lines in its log).
    voice: &'static str,
    /// What its state directory and log are named after (its id, unless a
    /// second daemon goes by the same id).
    files: &'static str,
    http: u16,
    state: PathBuf,
    child: Option<Guard>,
    stdin: Option<ChildStdin>,
    events: EventStream,
}

impl Board {
    fn start(hall: &Hall, id: &'static str, partner: &'static str, side: Color) -> Board {
        Board::with_clock(hall, id, partner, side, "own")
    }

    fn with_clock(hall: &Hall, id: &'static str, partner: &'static str, side: Color, clock: &'static str) -> Board {
        let mut board = Board::unstarted(hall, id, partner, side);
        board.clock = clock;
        board.spawn();
        board
    }

    /// A board of `hall` not started yet, for settings of its own.
    fn unstarted(hall: &Hall, id: &'static str, partner: &'static str, side: Color) -> Board {
        Board {
            id,
            partner,
            side,
            clock: "own",
            hall_dir: hall.dir.clone(),
            port: hall.port,
            time_control: hall.time_control,
            voice: "none",
            files: id,
            http: free_port(),
            state: hall.dir.join(format!("state-{id}")),
            child: None,
            stdin: None,
            events: EventStream::empty(),
        }
    }

    /// Named files of its own (a second daemon by the same id).
    fn files(mut self, files: &'static str) -> Board {
        self.files = files;
        self.state = self.hall_dir.join(format!("state-{files}"));
        self
    }

    fn spawn(&mut self) {
        let plays = if self.side == Color::White { "white" } else { "black" };
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.hall_dir.join(format!("{}.log", self.files)))
            .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_tactus"))
            .arg("run")
            .arg("--config")
            .arg(self.hall_dir.join("config.toml"))
            .args(["--board", "sim", "--time-control", self.time_control, "--voice", self.voice, "--events", "-"])
            .arg("--state-dir")
            .arg(&self.state)
            .args(["--http", &format!("127.0.0.1:{}", self.http)])
            .args(["--mqtt", &format!("127.0.0.1:{}", self.port), "--hall", "schools", "--hall-key"])
            .arg(self.hall_dir.join("hall.key"))
            .args(["--board-id", self.id, "--pair-with", self.partner, "--plays", plays, "--pair-clock", self.clock])
            .env("RUST_LOG", "info")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .unwrap();
        self.events = EventStream::of(&mut child);
        self.stdin = child.stdin.take();
        self.child = Some(Guard(child));
    }

    /// One act at the board: the sim board spaces a line's edges as hands do.
    fn act(&mut self, edges: &[String]) {
        writeln!(self.stdin.as_mut().unwrap(), "{}", edges.join(" ")).unwrap();
    }

    /// SIGKILL, as a power cut: nothing is said or flushed.
    fn kill(&mut self) {
        // Killed first: its input closing would end the sim board's recording.
        drop(self.child.take());
        drop(self.stdin.take());
    }

    /// What the daemon wrote to its log (and, with `--voice text`, said).
    fn log(&self) -> String {
        std::fs::read_to_string(self.hall_dir.join(format!("{}.log", self.files))).unwrap_or_default()
    }

    /// What it said since it last recovered its game: the spoken lines
    /// only, without the daemon's own log lines, which other tasks write
    /// between them.
    fn said_since_restart(&self) -> String {
        let log = self.log();
        let last = log.rsplit("recovered the game").next().unwrap_or_default();
        last.lines().filter(|line| !line.starts_with("tactus: ")).collect::<Vec<_>>().join("\n")
    }

    fn get(&self, path: &str) -> Option<String> {
        get(self.http, path)
    }

    /// The moves of the board's game in its journal, replayed.
    fn replayed(&self) -> Vec<String> {
        self.replayed_with_clocks().into_iter().map(|(san, _)| san).collect()
    }

    /// The board's latest game's journal.
    fn journal_path(&self) -> PathBuf {
        std::fs::read_dir(self.state.join("games"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".trace.jsonl"))
            .max_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap())
            .expect("a journal")
    }

    /// The board's latest game's journal.
    fn journal(&self) -> String {
        std::fs::read_to_string(self.journal_path()).unwrap()
    }

    /// The moves of the board's game in its journal, replayed, with the
    /// mover's time after each.
    fn replayed_with_clocks(&self) -> Vec<(String, Option<i64>)> {
        let trace = self.journal_path();
        let r = tactus_core::replay::replay(
            std::io::BufReader::new(std::fs::File::open(&trace).unwrap()),
            tactus_core::Policy::default(),
        )
        .unwrap();
        r.session.game().played.iter().map(|p| (p.info.san.clone(), p.clock_ms)).collect()
    }
}

fn square(v: &Value) -> Option<Square> {
    v.as_str().map(|s| s.parse().unwrap())
}

/// The next move of the game, from its SAN.
fn next_move(pos: &Chess, san: &str) -> Move {
    san.parse::<San>().unwrap().to_move(pos).unwrap_or_else(|e| panic!("{san}: {e}"))
}

/// How the other board's player carries out an opponent's move.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Carry {
    AsSaid,
    /// The piece first on a wrong empty square next to where it belongs,
    /// put right once the daemon says how.
    Slip,
}

/// One ply: typed and pressed on the mover's board, where it completes;
/// then `opponent_move` on the other, carried out from its steps, and
/// completed there without a press. The mover's `complete`.
fn play(mover: &mut Board, other: &mut Board, pos: &mut Chess, san: &str, carry: Carry) -> Value {
    let mv = next_move(pos, san);
    let uci = mv.to_uci(CastlingMode::Standard).to_string();
    let ply = pos.fullmoves().get() * 2 - u32::from(pos.turn() == Color::White);
    mover.act(&hands(pos, mv));
    mover.act(&[if mover.side == Color::White { "w" } else { "b" }.to_string()]);
    let mover_done = mover.events.next("complete");
    let done = &mover_done;
    assert_eq!((done["uci"].as_str(), done["ply"].as_u64()), (Some(uci.as_str()), Some(u64::from(ply))), "{done}");
    let chosen = other.events.next("opponent_move");
    assert_eq!(chosen["uci"], uci.as_str(), "board {} is told the move made on {}: {chosen}", other.id, mover.id);
    assert_eq!(chosen["ply"], ply);
    let steps = chosen["steps"].as_array().unwrap().clone();
    let (from, to) = (square(&steps[0]["from"]), square(&steps[0]["to"]));
    match (carry, from, to, mv) {
        (Carry::Slip, Some(from), Some(to), Move::Normal { capture: None, promotion: None, .. }) => {
            let wrong = Square::ALL
                .into_iter()
                .filter(|&sq| sq != to && pos.board().piece_at(sq).is_none())
                .min_by_key(|&sq| sq.distance(to))
                .unwrap();
            other.act(&[format!("{from}-"), format!("{wrong}+")]);
            let fix = other.events.next("opponent_fix");
            let fixes = fix["fix"].as_array().unwrap();
            assert!(
                fixes.iter().any(|f| square(&f["from"]) == Some(wrong) && square(&f["to"]) == Some(to)),
                "the fix moves the piece from {wrong} to {to}: {fix}"
            );
            other.act(&[format!("{wrong}-"), format!("{to}+")]);
        }
        (Carry::Slip, ..) => panic!("a slip is made on a quiet move: not {san}"),
        (Carry::AsSaid, ..) => {
            other.act(&[carried_out(&chosen)]);
        }
    }
    let done = other.events.next("complete");
    assert_eq!(done["uci"], uci.as_str(), "the partner's move is completed on {} without a press", other.id);
    pos.play_unchecked(mv);
    mover_done
}

/// The two boards of a hall, White's and Black's, each ready.
fn pair(hall: &Hall) -> (Board, Board) {
    let a = Board::start(hall, "A", "B", Color::White);
    let b = Board::start(hall, "B", "A", Color::Black);
    a.events.next("start");
    b.events.next("start");
    (a, b)
}

/// [`pair`], Black's board saying its words as text in its log.
fn pair_speaking_black(hall: &Hall) -> (Board, Board) {
    let a = Board::start(hall, "A", "B", Color::White);
    let mut b = Board::unstarted(hall, "B", "A", Color::Black);
    b.voice = "text";
    b.spawn();
    a.events.next("start");
    b.events.next("start");
    (a, b)
}

/// The mover's and the other board, by whose turn it is.
fn boards<'a>(a: &'a mut Board, b: &'a mut Board, pos: &Chess) -> (&'a mut Board, &'a mut Board) {
    if pos.turn() == Color::White { (a, b) } else { (b, a) }
}

/// The PGN's moves, tags and comments left out.
fn movetext(pgn: &str) -> String {
    let body: Vec<&str> = pgn.lines().filter(|l| !l.starts_with('[') && !l.trim().is_empty()).collect();
    let mut out = String::new();
    let mut depth = 0;
    for c in body.join(" ").chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// HMAC-SHA-256, as the hall key's seal uses it (RFC 2104).
fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut block = [0u8; 64];
    block[..key.len()].copy_from_slice(key);
    let pad = |b: u8| block.iter().map(|k| k ^ b).collect::<Vec<u8>>();
    let mut inner = Sha256::new();
    inner.update(pad(0x36));
    parts.iter().for_each(|p| inner.update(p));
    let mut outer = Sha256::new();
    outer.update(pad(0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// A payload sealed with the hall key for `topic`, as `API.md` spells a seal.
fn sealed(topic: &str, body: &str) -> Vec<u8> {
    let mac = hmac(KEY.as_bytes(), &[b"tactus-auth1\n", topic.as_bytes(), b"\n", b"\n", body.as_bytes()]);
    let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
    format!("tactus-auth1 mac={hex}\n{body}").into_bytes()
}

/// Someone on the broker publishes `payload` on `topic`, QoS 1, and waits
/// for the broker to take it.
fn publish(port: u16, topic: &str, payload: Vec<u8>) {
    use rumqttc::v5::mqttbytes::QoS;
    use rumqttc::v5::mqttbytes::v5::Packet;
    use rumqttc::v5::{Client, Event, MqttOptions};
    let (client, mut connection) = Client::new(MqttOptions::new("stranger", "127.0.0.1", port), 10);
    client.publish(topic, QoS::AtLeastOnce, false, payload).unwrap();
    for event in connection.iter() {
        match event {
            Ok(Event::Incoming(Packet::PubAck(_))) => break,
            Ok(_) => {}
            Err(e) => panic!("the stranger's publication: {e}"),
        }
    }
    let _ = client.disconnect();
}

/// The events of `kind` a board has said, since the `from`th event seen.
fn count_since(board: &Board, from: usize, kind: &str) -> usize {
    board.events.seen.borrow()[from..].iter().filter(|e| e["event"] == kind).count()
}

#[test]
fn a_whole_game_on_two_boards_through_the_hall_s_broker() {
    let hall = Hall::new("game", "300+2");
    let (mut a, mut b) = pair(&hall);
    wait_for("board B to hear its partner", WAIT, || b.log().contains("the partner board A is heard"));
    // Before White moves, strangers make moves for White on B: one without
    // the seal on A's topic, one sealed with the hall key by a board that is
    // not B's partner. Neither changes anything.
    let forged = r#"{"run":1,"seq":1,"base":1,"msg":{"kind":"move","ply":1,"uci":"d2d4","san":"d4"}}"#;
    publish(hall.port, "tactus/schools/pair/A/B", forged.as_bytes().to_vec());
    publish(hall.port, "tactus/schools/pair/C/B", sealed("tactus/schools/pair/C/B", forged));
    // Refusals are logged at most once in 10 s: the first says they came.
    wait_for("the refusal logged", WAIT, || b.log().contains("a pair message was ignored"));
    let mut pos = Chess::default();
    let sans: Vec<&str> = OPERA.split_whitespace().collect();
    let mut before: Option<Value> = None;
    for (i, san) in sans.iter().enumerate() {
        // Black's 2... d6 goes first on a wrong square of White's board.
        let carry = if i == 3 { Carry::Slip } else { Carry::AsSaid };
        let (mover, other) = boards(&mut a, &mut b, &pos);
        let done = play(mover, other, &mut pos, san, carry);
        // Each player's time is the one their own board kept: the partner
        // board shows it exactly, however long the move took to arrive and
        // to be carried out there.
        if let Some(before) = before {
            assert!(before["clock_ms"].is_i64(), "{before}");
            assert_eq!(done["opponent_ms"], before["clock_ms"], "ply {}: {done} after {before}", i + 1);
        }
        before = Some(done);
    }
    assert!(pos.is_checkmate());
    for board in [&a, &b] {
        let over = board.events.next("game_over");
        assert_eq!(over["result"], "1-0", "board {}: {over}", board.id);
    }
    let first: Vec<Value> =
        b.events.seen.borrow().iter().filter(|e| e["event"] == "opponent_move" && e["ply"] == 1).cloned().collect();
    assert_eq!(first.len(), 1, "no forged move reached board B: {first:?}");
    assert_eq!(first[0]["uci"], "e2e4");
    for board in [&a, &b] {
        for e in board.events.seen.borrow().iter() {
            let kind = e["event"].as_str().unwrap();
            assert!(!["irregularity", "penalty"].contains(&kind), "a ruling on board {}: {e}", board.id);
        }
    }
    // Both feeds, and both journals replayed, end with the same game, and
    // the same time for every move (issue 30, item 5): each player's as
    // their own board's clock kept it.
    let (pgn_a, pgn_b) = (a.get("/games.pgn").unwrap(), b.get("/games.pgn").unwrap());
    assert_eq!(movetext(&pgn_a), movetext(&pgn_b), "{pgn_a}\n{pgn_b}");
    assert!(movetext(&pgn_a).ends_with("17. Rd8# 1-0"), "{pgn_a}");
    assert_eq!(clocks(&pgn_a).len(), sans.len(), "{pgn_a}");
    assert_eq!(clocks(&pgn_a), clocks(&pgn_b), "{pgn_a}\n{pgn_b}");
    let replayed = a.replayed_with_clocks();
    assert_eq!(replayed.len(), sans.len());
    assert_eq!(replayed, b.replayed_with_clocks());
}

#[test]
fn a_side_killed_mid_game_goes_on_from_its_journal_and_its_partner() {
    let hall = Hall::new("restart", "-");
    let (mut a, mut b) = pair(&hall);
    let sans: Vec<&str> = OPERA.split_whitespace().collect();
    let mut pos = Chess::default();
    for san in &sans[..4] {
        let (mover, other) = boards(&mut a, &mut b, &pos);
        play(mover, other, &mut pos, san, Carry::AsSaid);
    }
    // Black's board dies; White moves meanwhile, and hears that its
    // partner is away (once).
    b.kill();
    let away = a.events.next("device_lost");
    assert_eq!((away["device"].as_str(), away["why"].as_str()), (Some("partner"), Some("connection")), "{away}");
    let mv = next_move(&pos, sans[4]);
    a.act(&hands(&pos, mv));
    a.act(&["w".to_string()]);
    assert_eq!(a.events.next("complete")["san"], "d4");
    // Black's board comes back from its journal: the move made meanwhile
    // arrives, once, and the game goes on.
    b.spawn();
    let chosen = b.events.next("opponent_move");
    assert_eq!((chosen["ply"].as_u64(), chosen["san"].as_str()), (Some(5), Some("d4")), "{chosen}");
    assert_eq!(a.events.next("device_back")["device"], "partner");
    let steps: Vec<String> = ["d2-", "d4+"].map(String::from).to_vec();
    b.act(&steps);
    assert_eq!(b.events.next("complete")["san"], "d4");
    pos.play_unchecked(mv);
    // Now White's board dies right after a move of its own completes:
    // whether or not Black heard it, Black gets it once.
    let (mover, other) = boards(&mut a, &mut b, &pos);
    play(mover, other, &mut pos, sans[5], Carry::AsSaid);
    let mv = next_move(&pos, sans[6]);
    a.act(&hands(&pos, mv));
    a.act(&["w".to_string()]);
    assert_eq!(a.events.next("complete")["san"], "dxe5");
    a.kill();
    a.spawn();
    let chosen = b.events.next("opponent_move");
    assert_eq!(chosen["san"], "dxe5", "{chosen}");
    b.act(&[carried_out(&chosen)]);
    assert_eq!(b.events.next("complete")["san"], "dxe5");
    pos.play_unchecked(mv);
    // The rest of the game, on both boards.
    for san in &sans[7..] {
        let (mover, other) = boards(&mut a, &mut b, &pos);
        play(mover, other, &mut pos, san, Carry::AsSaid);
    }
    for board in [&a, &b] {
        assert_eq!(board.events.next("game_over")["result"], "1-0", "board {}", board.id);
    }
    // No move lost or taken twice: each journal holds the game once.
    assert_eq!(a.replayed(), b.replayed());
    assert_eq!(a.replayed().len(), sans.len());
    let told = |board: &Board, ply: u64| {
        board.events.seen.borrow().iter().filter(|e| e["event"] == "opponent_move" && e["ply"] == ply).count()
    };
    assert_eq!(told(&b, 7), 1, "the move made as White's board died is told once");
}

#[test]
fn the_broker_restarted_mid_game_and_a_resignation_ends_it_on_both_boards() {
    let mut hall = Hall::new("broker", "-");
    let (mut a, mut b) = pair(&hall);
    let sans: Vec<&str> = OPERA.split_whitespace().collect();
    let mut pos = Chess::default();
    for san in &sans[..2] {
        let (mover, other) = boards(&mut a, &mut b, &pos);
        play(mover, other, &mut pos, san, Carry::AsSaid);
    }
    hall.stop_broker();
    for board in [&a, &b] {
        assert_eq!(board.events.next("device_lost")["device"], "partner", "board {}", board.id);
    }
    // White moves while the broker is away; it arrives once the broker is back.
    let mv = next_move(&pos, sans[2]);
    a.act(&hands(&pos, mv));
    a.act(&["w".to_string()]);
    assert_eq!(a.events.next("complete")["san"], "Nf3");
    hall.start_broker();
    let chosen = b.events.next("opponent_move");
    assert_eq!(chosen["san"], "Nf3", "{chosen}");
    for board in [&a, &b] {
        // Black's board may have heard White's back with the move.
        let before = board.events.seen.borrow().iter().rev().find(|e| e["event"] == "device_back").cloned();
        let back = before.unwrap_or_else(|| board.events.next("device_back"));
        assert_eq!(back["device"], "partner", "board {}", board.id);
    }
    b.act(&[carried_out(&chosen)]);
    assert_eq!(b.events.next("complete")["san"], "Nf3");
    pos.play_unchecked(mv);
    for san in &sans[3..8] {
        let (mover, other) = boards(&mut a, &mut b, &pos);
        play(mover, other, &mut pos, san, Carry::AsSaid);
    }
    // White resigns at White's board: the game is over on both.
    a.act(&["result 0-1 resigns".to_string()]);
    for board in [&a, &b] {
        let over = board.events.next("game_over");
        assert_eq!((over["result"].as_str(), over["reason"].as_str()), (Some("0-1"), Some("resignation")), "{over}");
    }
}

#[test]
fn a_ruling_on_one_board_is_said_on_both_and_its_time_given_on_both() {
    let hall = Hall::new("ruling", "300+2");
    let (mut a, mut b) = pair(&hall);
    // White's pawn to e5 in one go, pressed: an illegal move (7.5.1), ruled
    // on White's board; the time the penalty gives Black is Black's on both.
    a.act(&["e2-".to_string(), "e5+".to_string()]);
    a.act(&["w".to_string()]);
    let ruling = a.events.next("irregularity");
    let penalty = a.events.next("penalty");
    assert_eq!(penalty["side"], "black", "{penalty}");
    let said = b.events.next_of(&["irregularity", "opponent_move"]);
    assert_eq!(said["event"], "irregularity", "the ruling is said on Black's board: {said}");
    assert_eq!(
        (said["article"].clone(), said["reason"].clone()),
        (ruling["article"].clone(), ruling["reason"].clone())
    );
    assert!(said["fix"].as_array().is_none_or(|f| f.is_empty()), "the fix is for White's board only: {said}");
    let given = b.events.next("penalty");
    assert_eq!((given["side"].clone(), given["ms"].clone()), (penalty["side"].clone(), penalty["ms"].clone()));
    // White puts the pawn back and plays on.
    a.act(&["e5-".to_string(), "e2+".to_string()]);
    let mut pos = Chess::default();
    let done = play(&mut a, &mut b, &mut pos, "e4", Carry::AsSaid);
    let reply = play(&mut b, &mut a, &mut pos, "e5", Carry::AsSaid);
    assert_eq!(reply["opponent_ms"], done["clock_ms"], "{reply} after {done}");
    let next = play(&mut a, &mut b, &mut pos, "Nf3", Carry::AsSaid);
    assert_eq!(next["opponent_ms"], reply["clock_ms"], "Black's time, the penalty's included, on both: {next}");
    let penalties = |board: &Board| board.events.seen.borrow().iter().filter(|e| e["event"] == "penalty").count();
    assert_eq!((penalties(&a), penalties(&b)), (1, 1), "the time is given once on each board, not sent back");
}

/// The event of `kind` the board said since it was last read, or the next.
fn said(board: &Board, kind: &str) -> Value {
    let before = board.events.seen.borrow().iter().rev().find(|e| e["event"] == kind).cloned();
    before.unwrap_or_else(|| board.events.next(kind))
}

/// The mover makes `san` on their board and, once it is announced, offers
/// a draw (9.1.2.1: after the move, before the press), then presses; the
/// other board carries the move out.
fn play_offering(mover: &mut Board, other: &mut Board, pos: &mut Chess, san: &str) {
    let mv = next_move(pos, san);
    mover.act(&hands(pos, mv));
    let shown = mover.events.next("move");
    assert_eq!(shown["san"], san, "{shown}");
    let who = if mover.side == Color::White { "white" } else { "black" };
    mover.act(&[format!("draw {who}")]);
    let offer = mover.events.next("draw_offer");
    assert_eq!(offer["side"], who, "{offer}");
    assert!(offer["irregular"].is_null(), "made between the move and the press: {offer}");
    mover.act(&[who[..1].to_string()]);
    assert_eq!(mover.events.next("complete")["san"], san);
    let chosen = other.events.next("opponent_move");
    assert_eq!(chosen["san"], san, "{chosen}");
    other.act(&[carried_out(&chosen)]);
    assert_eq!(other.events.next("complete")["san"], san);
    pos.play_unchecked(mv);
}

#[test]
fn a_draw_offer_reaches_the_partner_board_declined_by_a_move_then_accepted() {
    let hall = Hall::new("offer", "300+2");
    let (mut a, mut b) = pair(&hall);
    let mut pos = Chess::default();
    play(&mut a, &mut b, &mut pos, "e4", Carry::AsSaid);
    // Black offers with the move: White's board hears the offer as the
    // opponent's, and White declines it by playing on — on both boards.
    play_offering(&mut b, &mut a, &mut pos, "e5");
    let heard = said(&a, "draw_offer");
    assert_eq!(heard["side"], "black", "Black's offer is said on White's board: {heard}");
    play(&mut a, &mut b, &mut pos, "Nf3", Carry::AsSaid);
    for board in [&a, &b] {
        assert_eq!(said(board, "draw_declined")["side"], "white", "board {}", board.id);
    }
    play(&mut b, &mut a, &mut pos, "d6", Carry::AsSaid);
    // White offers with the move; Black accepts at Black's board by
    // offering in turn: the game is drawn by agreement on both.
    play_offering(&mut a, &mut b, &mut pos, "d4");
    assert_eq!(said(&b, "draw_offer")["side"], "white");
    b.act(&["draw black".to_string()]);
    for board in [&a, &b] {
        let over = board.events.next("game_over");
        assert_eq!(
            (over["result"].as_str(), over["reason"].as_str()),
            (Some("1/2-1/2"), Some("agreement")),
            "board {}: {over}",
            board.id
        );
    }
    // Each offer was made once on each board: none came back to its maker.
    for board in [&a, &b] {
        let offers: Vec<Value> =
            board.events.seen.borrow().iter().filter(|e| e["event"] == "draw_offer").cloned().collect();
        let sides: Vec<&str> = offers.iter().map(|e| e["side"].as_str().unwrap()).collect();
        assert_eq!(sides, ["black", "white"], "board {}: {offers:?}", board.id);
    }
    assert_eq!(a.replayed(), b.replayed());
}

/// The mover makes the illegal move `from`-`to` and presses; under A.5.2 it
/// stands. The other board says the ruling and carries the move out as it
/// was made. The mover's `complete`.
fn play_illegal(mover: &mut Board, other: &mut Board, from: &str, to: &str) -> Value {
    mover.act(&[format!("{from}-"), format!("{to}+")]);
    mover.act(&[if mover.side == Color::White { "w" } else { "b" }.to_string()]);
    let done = mover.events.next("complete");
    let ruling = mover.events.next("irregularity");
    assert_eq!(ruling["stands"], true, "no arbiter: the illegal move stands (A.5.2): {ruling}");
    let uci = format!("{from}{to}");
    assert_eq!(done["uci"], uci.as_str(), "{done}");
    let chosen = other.events.next("opponent_move");
    assert_eq!(chosen["uci"], uci.as_str(), "board {} is told the move that stood: {chosen}", other.id);
    other.act(&[carried_out(&chosen)]);
    let carried = other.events.next("complete");
    assert_eq!(carried["uci"], uci.as_str(), "the move that stood is complete on board {}: {carried}", other.id);
    let said = said(other, "irregularity");
    assert_eq!((said["stands"].clone(), said["ply"].clone()), (ruling["stands"].clone(), ruling["ply"].clone()));
    done
}

/// A claim of the illegal move that stood, upheld on the claimant's board
/// and on the offender's: the move is taken back on both (each board says
/// how to put it right), the penalty given once on each (7.5.5).
fn claim_illegal(claimant: &mut Board, offender: &mut Board, from: &str, to: &str) {
    let who = if claimant.side == Color::White { "white" } else { "black" };
    claimant.act(&[format!("claim {who} illegal")]);
    for board in [&mut *claimant, &mut *offender] {
        let penalty = board.events.next("penalty");
        assert_eq!((penalty["side"].as_str(), penalty["article"].as_str()), (Some(who), Some("7.5.5")), "{penalty}");
        let wrong = board.events.next("board_mismatch");
        let fixes = wrong["fix"].as_array().unwrap();
        assert!(
            fixes.iter().any(|f| f["from"] == to && f["to"] == from),
            "board {}: the piece goes back from {to} to {from}: {wrong}",
            board.id
        );
        board.act(&[format!("{to}-"), format!("{from}+")]);
        board.events.next("board_ok");
    }
}

#[test]
fn an_illegal_move_that_stands_is_carried_out_on_the_partner_board_and_claimed_there() {
    let hall = Hall::with_config("stands", "300+2", "[game]\nsupervision = \"unsupervised\"\n");
    let (mut a, mut b) = pair(&hall);
    let mut pos = Chess::default();
    play(&mut a, &mut b, &mut pos, "e4", Carry::AsSaid);
    play(&mut b, &mut a, &mut pos, "e5", Carry::AsSaid);
    // White's knight jumps g1-g3: it stands on both boards, and Black
    // claims it at Black's board before moving (A.5.2).
    play_illegal(&mut a, &mut b, "g1", "g3");
    claim_illegal(&mut b, &mut a, "g1", "g3");
    // White moves again, legally, from the position before.
    play(&mut a, &mut b, &mut pos, "Nf3", Carry::AsSaid);
    play(&mut b, &mut a, &mut pos, "Nc6", Carry::AsSaid);
    // The rook jumps h1-h3; Black does not claim, and plays on: it stands.
    play_illegal(&mut a, &mut b, "h1", "h3");
    let stood = |board: &Board| {
        board.events.seen.borrow().iter().filter(|e| e["event"] == "complete" && e["uci"] == "h1h3").count()
    };
    assert_eq!((stood(&a), stood(&b)), (1, 1));
    let mut after = pos.to_setup(shakmaty::EnPassantMode::Legal);
    let rook = after.board.remove_piece_at(Square::H1).unwrap();
    after.board.set_piece_at(Square::H3, rook);
    after.turn = Color::Black;
    after.castling_rights.discard(Square::H1);
    let mut pos = <Chess as shakmaty::FromSetup>::from_setup(after, CastlingMode::Standard).unwrap();
    play(&mut b, &mut a, &mut pos, "Nf6", Carry::AsSaid);
    // The king goes e1-e3; Black claims: White's second illegal move
    // counted (7.5.5) loses, on both boards.
    a.act(&["e1-".to_string(), "e3+".to_string()]);
    a.act(&["w".to_string()]);
    assert_eq!(a.events.next("complete")["uci"], "e1e3");
    let chosen = b.events.next("opponent_move");
    b.act(&[carried_out(&chosen)]);
    assert_eq!(b.events.next("complete")["uci"], "e1e3");
    b.act(&["claim black illegal".to_string()]);
    for board in [&a, &b] {
        let over = board.events.next("game_over");
        assert_eq!(
            (over["result"].as_str(), over["reason"].as_str()),
            (Some("0-1"), Some("illegal_moves")),
            "board {}: {over}",
            board.id
        );
        let penalties: Vec<Value> =
            board.events.seen.borrow().iter().filter(|e| e["event"] == "penalty").cloned().collect();
        assert_eq!(penalties.len(), 1, "the first claim's penalty, once on board {}: {penalties:?}", board.id);
    }
    // Both journals replay to the same game: the move that stood, and not
    // the ones taken back.
    let replayed = a.replayed();
    assert_eq!(replayed, b.replayed());
    assert_eq!(replayed.len(), 6, "{replayed:?}");
    assert_eq!(replayed[4], "Rh1-h3", "{replayed:?}");
    let (pgn_a, pgn_b) = (a.get("/games.pgn").unwrap(), b.get("/games.pgn").unwrap());
    assert_eq!(movetext(&pgn_a), movetext(&pgn_b), "{pgn_a}\n{pgn_b}");
    assert!(movetext(&pgn_a).ends_with("0-1"), "{pgn_a}");
}

#[test]
fn claims_are_ruled_on_the_claimant_s_board_and_reach_the_partner_s() {
    let hall = Hall::new("claims", "300+2");
    let (mut a, mut b) = pair(&hall);
    let mut pos = Chess::default();
    play(&mut a, &mut b, &mut pos, "Nf3", Carry::AsSaid);
    // Black claims a repetition at Black's board that is not there: the
    // claim is incorrect (9.5.3), ruled so on both boards, and the time it
    // gives White is White's on both, once.
    b.act(&["claim black threefold".to_string()]);
    let penalty = b.events.next("penalty");
    assert_eq!((penalty["side"].as_str(), penalty["article"].as_str()), (Some("white"), Some("9.5.3")), "{penalty}");
    let given = a.events.next("penalty");
    assert_eq!(
        (given["side"].clone(), given["ms"].clone(), given["article"].as_str()),
        (penalty["side"].clone(), penalty["ms"].clone(), Some("9.5.3")),
        "the incorrect claim is said as one on White's board: {given}"
    );
    play(&mut b, &mut a, &mut pos, "Nf6", Carry::AsSaid);
    // White claims the fifty moves just after moving, while Black's board
    // is still carrying that move out: the boards' games are a ply apart,
    // Black's cannot rule it, and gets the penalty's time as the ruling.
    let mv = next_move(&pos, "Ng1");
    a.act(&hands(&pos, mv));
    a.act(&["w".to_string()]);
    assert_eq!(a.events.next("complete")["san"], "Ng1");
    let chosen = b.events.next("opponent_move");
    a.act(&["claim white fifty".to_string()]);
    let penalty = a.events.next("penalty");
    assert_eq!((penalty["side"].as_str(), penalty["article"].as_str()), (Some("black"), Some("9.5.3")), "{penalty}");
    let given = b.events.next("penalty");
    assert_eq!((given["side"].clone(), given["ms"].clone()), (penalty["side"].clone(), penalty["ms"].clone()));
    b.act(&[carried_out(&chosen)]);
    assert_eq!(b.events.next("complete")["san"], "Ng1");
    pos.play_unchecked(mv);
    for san in ["Ng8", "Nf3", "Nf6", "Ng1", "Ng8"] {
        let (mover, other) = boards(&mut a, &mut b, &pos);
        play(mover, other, &mut pos, san, Carry::AsSaid);
    }
    // The start position for the third time: White claims at White's
    // board, and the game is drawn by repetition on both (9.2).
    a.act(&["claim white threefold".to_string()]);
    for board in [&a, &b] {
        let over = board.events.next("game_over");
        assert_eq!(
            (over["result"].as_str(), over["reason"].as_str()),
            (Some("1/2-1/2"), Some("threefold_repetition")),
            "board {}: {over}",
            board.id
        );
        let penalties = board.events.seen.borrow().iter().filter(|e| e["event"] == "penalty").count();
        assert_eq!(penalties, 2, "board {}", board.id);
    }
    assert_eq!(a.replayed(), b.replayed());
}

#[test]
fn a_draw_offer_crossing_the_partner_s_move_is_declined_by_that_move() {
    let mut hall = Hall::new("crossing", "300+2");
    let (mut a, mut b) = pair(&hall);
    let mut pos = Chess::default();
    play(&mut a, &mut b, &mut pos, "e4", Carry::AsSaid);
    // With the broker away, White offers on Black's time (9.1.2.1: marked,
    // valid all the same) while Black moves at Black's board: the offer
    // reaches Black's board only after Black's move, which declined it.
    hall.stop_broker();
    for board in [&a, &b] {
        assert_eq!(board.events.next("device_lost")["device"], "partner", "board {}", board.id);
    }
    a.act(&["draw white".to_string()]);
    let offer = a.events.next("draw_offer");
    assert_eq!((offer["side"].as_str(), offer["irregular"].as_bool()), (Some("white"), Some(true)), "{offer}");
    let mv = next_move(&pos, "e5");
    b.act(&hands(&pos, mv));
    b.act(&["b".to_string()]);
    assert_eq!(b.events.next("complete")["san"], "e5");
    hall.start_broker();
    let chosen = a.events.next("opponent_move");
    a.act(&[carried_out(&chosen)]);
    assert_eq!(a.events.next("complete")["san"], "e5");
    assert_eq!(said(&a, "draw_declined")["side"], "black");
    pos.play_unchecked(mv);
    // White's next move comes after the offer: by then Black's board has
    // had it, and not taken it. Black's offer now is Black's own, not an
    // acceptance.
    play(&mut a, &mut b, &mut pos, "Nf3", Carry::AsSaid);
    b.act(&["draw black".to_string()]);
    let own = b.events.next_of(&["draw_offer", "game_over"]);
    assert_eq!((own["event"].as_str(), own["side"].as_str()), (Some("draw_offer"), Some("black")), "{own}");
    let heard = a.events.next("draw_offer");
    assert_eq!(heard["side"], "black", "{heard}");
    let offers = b.events.seen.borrow().iter().filter(|e| e["event"] == "draw_offer").count();
    assert_eq!(offers, 1, "White's declined offer was not said on Black's board");
}

/// A short whole game: a scholar's mate.
const SCHOLAR: &str = "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#";

/// Two boards at one table, one clock between them, attached to `A`
/// (White's board): Black's presses are typed there.
fn table_pair(hall: &Hall) -> (Board, Board) {
    let a = Board::with_clock(hall, "A", "B", Color::White, "here");
    let b = Board::with_clock(hall, "B", "A", Color::Black, "partner");
    a.events.next("start");
    b.events.next("start");
    wait_for("board B to hear its partner", WAIT, || b.log().contains("the partner board A is heard"));
    wait_for("board A to hear its partner", WAIT, || a.log().contains("the partner board B is heard"));
    (a, b)
}

/// One ply at the table, the clock at `a`: made on the mover's board,
/// pressed at `a` once the mover's board shows the move; completed there
/// and carried out on the other. The mover's and the other's `complete`.
fn play_at_table(a: &mut Board, b: &mut Board, pos: &mut Chess, san: &str) -> (Value, Value) {
    let mv = next_move(pos, san);
    let uci = mv.to_uci(CastlingMode::Standard).to_string();
    let (mover, _) = boards(a, b, pos);
    mover.act(&hands(pos, mv));
    assert_eq!(mover.events.next("move")["uci"], uci.as_str());
    let letter = if pos.turn() == Color::White { "w" } else { "b" };
    a.act(&[letter.to_string()]);
    let (mover, other) = boards(a, b, pos);
    let mover_done = mover.events.next("complete");
    assert_eq!(mover_done["uci"], uci.as_str(), "the press at board A completes the move on board {}", mover.id);
    let chosen = other.events.next("opponent_move");
    assert_eq!(chosen["uci"], uci.as_str());
    other.act(&[carried_out(&chosen)]);
    let other_done = other.events.next("complete");
    assert_eq!(other_done["uci"], uci.as_str());
    pos.play_unchecked(mv);
    (mover_done, other_done)
}

/// The `[%clk …]` comments of a PGN, in order.
fn clocks(pgn: &str) -> Vec<&str> {
    pgn.match_indices("[%clk ").map(|(i, _)| &pgn[i..i + pgn[i..].find(']').unwrap() + 1]).collect()
}

/// Appendix D at one table: one clock, attached to White's board. Black's
/// player presses it; the press reaches Black's board and completes the
/// move made there, with the time the clock read; both boards hold the
/// same times for every move, and both feeds and journals the same game.
#[test]
fn one_clock_at_the_table_its_presses_complete_moves_on_the_partner_board() {
    let hall = Hall::new("table", "300+2");
    let (mut a, mut b) = table_pair(&hall);
    let mut pos = Chess::default();
    for san in SCHOLAR.split_whitespace() {
        let ply = pos.fullmoves().get() * 2 - u32::from(pos.turn() == Color::White);
        let (mover_done, other_done) = play_at_table(&mut a, &mut b, &mut pos, san);
        assert!(mover_done["clock_ms"].is_i64(), "{mover_done}");
        for key in ["clock_ms", "opponent_ms"] {
            assert_eq!(mover_done[key], other_done[key], "ply {ply}: the same {key} on both boards");
        }
    }
    assert!(pos.is_checkmate());
    for board in [&a, &b] {
        assert_eq!(board.events.next("game_over")["result"], "1-0", "board {}", board.id);
    }
    for board in [&a, &b] {
        for e in board.events.seen.borrow().iter() {
            let kind = e["event"].as_str().unwrap();
            assert!(!["irregularity", "penalty", "not_now"].contains(&kind), "on board {}: {e}", board.id);
        }
    }
    let (pgn_a, pgn_b) = (a.get("/games.pgn").unwrap(), b.get("/games.pgn").unwrap());
    assert_eq!(movetext(&pgn_a), movetext(&pgn_b), "{pgn_a}\n{pgn_b}");
    assert!(movetext(&pgn_a).ends_with("4. Qxf7# 1-0"), "{pgn_a}");
    assert_eq!(clocks(&pgn_a), clocks(&pgn_b), "{pgn_a}\n{pgn_b}");
    assert_eq!(clocks(&pgn_a).len(), 7, "{pgn_a}");
    // Board B's journal replays alone to the same game, the same times.
    assert_eq!(a.replayed_with_clocks(), b.replayed_with_clocks());
    let presses = b.journal().matches(r#""input": "table_press", "side": "black""#).count();
    assert_eq!(presses, 3, "each of Black's presses journaled once on board B");
}

/// The board without the clock killed (SIGKILL) with its player's move on
/// the board and before the press, and again right after a press completed
/// a move: started again, it takes each press once, in order.
#[test]
fn the_board_without_the_clock_killed_mid_game_takes_each_press_once() {
    let hall = Hall::new("table-restart", "300+2");
    let (mut a, mut b) = table_pair(&hall);
    let sans: Vec<&str> = SCHOLAR.split_whitespace().collect();
    let mut pos = Chess::default();
    for san in &sans[..3] {
        play_at_table(&mut a, &mut b, &mut pos, san);
    }
    // Black's 2... Nc6 stands on board B (journaled: it is announced); B
    // dies; Black presses at the table meanwhile.
    let mv = next_move(&pos, sans[3]);
    b.act(&hands(&pos, mv));
    assert_eq!(b.events.next("move")["san"], "Nc6");
    b.kill();
    assert_eq!(a.events.next("device_lost")["device"], "partner");
    a.act(&["b".to_string()]);
    b.spawn();
    let done = b.events.next("complete");
    assert_eq!((done["san"].as_str(), done["ply"].as_u64()), (Some("Nc6"), Some(4)), "{done}");
    let chosen = a.events.next("opponent_move");
    assert_eq!(chosen["san"], "Nc6");
    a.act(&[carried_out(&chosen)]);
    let carried = a.events.next("complete");
    assert_eq!(carried["clock_ms"], done["clock_ms"], "the time the clock read at the press, on both");
    pos.play_unchecked(mv);
    play_at_table(&mut a, &mut b, &mut pos, sans[4]);
    // 3... Nf6 completed on B by the press; B dies at once, whether or not
    // its move went out.
    let mv = next_move(&pos, sans[5]);
    b.act(&hands(&pos, mv));
    assert_eq!(b.events.next("move")["san"], "Nf6");
    a.act(&["b".to_string()]);
    assert_eq!(b.events.next("complete")["san"], "Nf6");
    b.kill();
    b.spawn();
    let chosen = a.events.next("opponent_move");
    assert_eq!(chosen["san"], "Nf6");
    a.act(&[carried_out(&chosen)]);
    assert_eq!(a.events.next("complete")["san"], "Nf6");
    pos.play_unchecked(mv);
    play_at_table(&mut a, &mut b, &mut pos, sans[6]);
    for board in [&a, &b] {
        assert_eq!(board.events.next("game_over")["result"], "1-0", "board {}", board.id);
    }
    assert_eq!(a.replayed_with_clocks(), b.replayed_with_clocks());
    assert_eq!(a.replayed().len(), sans.len());
    let journal = b.journal();
    let presses: Vec<&str> =
        journal.lines().filter(|l| l.contains(r#""input": "table_press", "side": "black""#)).collect();
    assert_eq!(presses.len(), 3, "each of Black's presses once on board B: {presses:#?}");
}

/// A flag at the table is ruled once, by the board with the clock (6.9:
/// Black can still mate), and the game ends on both boards; the board
/// without the clock rules none of its own. White's flag, before any move:
/// a move to make first would race the 4 s on a slow machine.
#[test]
fn the_board_with_the_clock_rules_a_flag_at_the_table_and_it_ends_on_both() {
    let hall = Hall::new("table-flag", "4");
    let (a, b) = table_pair(&hall);
    // White thinks too long: White's time runs out on the clock at board A.
    for board in [&a, &b] {
        let over = board.events.next("game_over");
        assert_eq!(over["result"], "0-1", "board {}: {over}", board.id);
    }
    assert_eq!(a.events.seen.borrow().iter().rev().find(|e| e["event"] == "game_over").unwrap()["reason"], "flag_fall");
    let overs = |board: &Board| board.events.seen.borrow().iter().filter(|e| e["event"] == "game_over").count();
    assert_eq!((overs(&a), overs(&b)), (1, 1));
    let journal = b.journal();
    assert!(journal.contains(r#""input": "result", "result": "0-1""#), "B's game ends by A's ruling: {journal}");
}

/// The board with the clock offline: said on the other (once), whose
/// player's move then completes as the board holds still on it (the game
/// timed by the board); once it is back, presses at the table complete
/// moves there again, with that clock's times.
#[test]
fn the_board_with_the_clock_offline_the_game_goes_on_timed_by_the_boards() {
    let hall = Hall::new("table-away", "300+2");
    let (mut a, mut b) = table_pair(&hall);
    let sans: Vec<&str> = SCHOLAR.split_whitespace().collect();
    let mut pos = Chess::default();
    play_at_table(&mut a, &mut b, &mut pos, sans[0]);
    a.kill();
    assert_eq!(b.events.next("device_lost")["device"], "partner");
    let mv = next_move(&pos, sans[1]);
    b.act(&hands(&pos, mv));
    let done = b.events.next("complete");
    assert_eq!(done["san"], "e5", "completed on board B with no press: {done}");
    pos.play_unchecked(mv);
    a.spawn();
    let chosen = a.events.next("opponent_move");
    assert_eq!(chosen["san"], "e5");
    a.act(&[carried_out(&chosen)]);
    assert_eq!(a.events.next("complete")["san"], "e5");
    assert_eq!(b.events.next("device_back")["device"], "partner");
    // The clock at the table goes on (Black's press restarts what the
    // restart stopped on board A), and the game with it.
    a.act(&["b".to_string()]);
    for san in &sans[2..] {
        let (mover_done, other_done) = play_at_table(&mut a, &mut b, &mut pos, san);
        assert_eq!(mover_done["clock_ms"], other_done["clock_ms"], "{san}: the table's clock's time on both");
    }
    for board in [&a, &b] {
        assert_eq!(board.events.next("game_over")["result"], "1-0", "board {}", board.id);
    }
    let lost = b.events.seen.borrow().iter().filter(|e| e["event"] == "device_lost").count();
    assert_eq!(lost, 1, "said once");
    assert_eq!(a.replayed(), b.replayed());
}

/// The table's clock unplugged from board A (typed as a DGT board reports
/// it): said on board B, once, and the game goes on timed by the boards,
/// each move complete as its board holds still on it; plugged in again,
/// its presses complete moves on both boards again.
#[test]
fn the_table_s_clock_unplugged_the_game_goes_on_and_its_presses_come_back() {
    let hall = Hall::new("table-unplugged", "300+2");
    let (mut a, mut b) = table_pair(&hall);
    let sans: Vec<&str> = SCHOLAR.split_whitespace().collect();
    let mut pos = Chess::default();
    play_at_table(&mut a, &mut b, &mut pos, sans[0]);
    a.act(&["clock off".to_string()]);
    let lost = b.events.next("device_lost");
    assert_eq!(
        (lost["device"].as_str(), lost["why"].as_str(), lost["diagnostic"].as_str()),
        (Some("clock"), Some("unplugged"), Some("at board A")),
        "{lost}"
    );
    for san in &sans[1..3] {
        let mv = next_move(&pos, san);
        let (mover, other) = boards(&mut a, &mut b, &pos);
        mover.act(&hands(&pos, mv));
        assert_eq!(mover.events.next("complete")["san"], *san, "completed on board {} with no press", mover.id);
        let chosen = other.events.next("opponent_move");
        other.act(&[carried_out(&chosen)]);
        assert_eq!(other.events.next("complete")["san"], *san);
        pos.play_unchecked(mv);
    }
    a.act(&["clock on".to_string()]);
    assert_eq!(b.events.next("device_back")["device"], "clock");
    for san in &sans[3..] {
        let (mover_done, other_done) = play_at_table(&mut a, &mut b, &mut pos, san);
        assert_eq!(mover_done["clock_ms"], other_done["clock_ms"], "{san}: the table's clock's time on both");
    }
    for board in [&a, &b] {
        assert_eq!(board.events.next("game_over")["result"], "1-0", "board {}", board.id);
    }
    let said = |kind: &str| b.events.seen.borrow().iter().filter(|e| e["event"] == kind).count();
    assert_eq!((said("device_lost"), said("device_back")), (1, 1), "said once each");
    assert_eq!(a.replayed(), b.replayed());
}

/// Black presses the table's clock with no move made on board B: ruled
/// there (7.5.3), said on both; on board A, where the press had handed the
/// clock over, the clock goes back to before it, so Black's time runs on
/// until the press that completes Black's move, on both boards alike.
#[test]
fn a_press_at_the_table_ruled_as_no_move_is_undone_on_the_board_with_the_clock() {
    let hall = Hall::new("table-ruled", "300+2");
    let (mut a, mut b) = table_pair(&hall);
    let mut pos = Chess::default();
    play_at_table(&mut a, &mut b, &mut pos, "e4");
    a.act(&["b".to_string()]);
    let ruling = b.events.next("irregularity");
    assert_eq!((ruling["side"].as_str(), ruling["ply"].as_u64()), (Some("black"), Some(2)), "{ruling}");
    assert_eq!(a.events.next("irregularity")["article"], ruling["article"], "said on board A too");
    let given = |board: &Board| board.events.next("penalty")["ms"].clone();
    assert_eq!(given(&a), given(&b), "White's time given on both");
    let (mover_done, other_done) = play_at_table(&mut a, &mut b, &mut pos, "e5");
    for key in ["clock_ms", "opponent_ms"] {
        assert_eq!(mover_done[key], other_done[key], "the same {key} on both boards");
    }
    let journal = a.journal();
    assert!(journal.contains(r#""input": "press_ruled", "ply": 2"#), "{journal}");
}

/// At one table the arbiter stops the clock (6.11) at the board it is
/// attached to: the partner board's clocks stop too, and run again with
/// it; the times stay the same on both.
#[test]
fn the_table_s_clock_stopped_by_the_arbiter_stops_on_both_boards() {
    let hall = Hall::new("table-pause", "300+2");
    let (mut a, mut b) = table_pair(&hall);
    let sans: Vec<&str> = SCHOLAR.split_whitespace().collect();
    let mut pos = Chess::default();
    play_at_table(&mut a, &mut b, &mut pos, sans[0]);
    a.act(&["pause".to_string()]);
    for board in [&a, &b] {
        board.events.next("paused");
    }
    a.act(&["resume".to_string()]);
    for board in [&a, &b] {
        board.events.next("resumed");
    }
    for san in &sans[1..] {
        let (mover_done, other_done) = play_at_table(&mut a, &mut b, &mut pos, san);
        for key in ["clock_ms", "opponent_ms"] {
            assert_eq!(mover_done[key], other_done[key], "{san}: the same {key} on both boards");
        }
    }
    for board in [&a, &b] {
        assert_eq!(board.events.next("game_over")["result"], "1-0", "board {}", board.id);
    }
    assert_eq!(a.replayed_with_clocks(), b.replayed_with_clocks());
}

/// White offers a draw with a move while the broker is away, and White's
/// daemon is killed before either reached Black's board: started again,
/// it sends both, and Black's board hears the move and the offer, once.
#[test]
fn a_draw_offer_lost_with_its_board_is_sent_again_after_the_restart() {
    let mut hall = Hall::new("offer-restart", "300+2");
    let (mut a, mut b) = pair(&hall);
    let mut pos = Chess::default();
    play(&mut a, &mut b, &mut pos, "e4", Carry::AsSaid);
    play(&mut b, &mut a, &mut pos, "e5", Carry::AsSaid);
    hall.stop_broker();
    for board in [&a, &b] {
        assert_eq!(board.events.next("device_lost")["device"], "partner", "board {}", board.id);
    }
    let mv = next_move(&pos, "Nf3");
    a.act(&hands(&pos, mv));
    assert_eq!(a.events.next("move")["san"], "Nf3");
    a.act(&["draw white".to_string()]);
    assert_eq!(a.events.next("draw_offer")["side"], "white");
    a.act(&["w".to_string()]);
    assert_eq!(a.events.next("complete")["san"], "Nf3");
    a.kill();
    hall.start_broker();
    a.spawn();
    let chosen = b.events.next("opponent_move");
    assert_eq!(chosen["san"], "Nf3", "{chosen}");
    b.act(&[carried_out(&chosen)]);
    assert_eq!(b.events.next("complete")["san"], "Nf3");
    assert_eq!(said(&b, "draw_offer")["side"], "white", "the offer reaches Black's board after the restart");
    // Black accepts at Black's board: drawn by agreement on both.
    b.act(&["draw black".to_string()]);
    for board in [&a, &b] {
        let over = board.events.next("game_over");
        assert_eq!((over["result"].as_str(), over["reason"].as_str()), (Some("1/2-1/2"), Some("agreement")), "{over}");
    }
    let offers = b.events.seen.borrow().iter().filter(|e| e["event"] == "draw_offer" && e["side"] == "white").count();
    assert_eq!(offers, 1, "White's offer said once on Black's board");
    assert_eq!(a.replayed(), b.replayed());
}

/// Both daemons stopped (SIGKILL) and started again with their state: the
/// last game was over, so a new game begins on both, and each hears the other.
fn next_game(a: &mut Board, b: &mut Board) {
    let heard = |board: &Board| board.log().matches(&format!("the partner board {} is heard", board.partner)).count();
    let before = (heard(a), heard(b));
    a.kill();
    b.kill();
    a.spawn();
    b.spawn();
    for board in [&*a, &*b] {
        board.events.next("start");
    }
    wait_for("both boards to hear each other again", WAIT, || (heard(a), heard(b)) > before);
}

/// Issue 29, item 1: a stranger who may only publish on the broker (no
/// hall key) records every sealed message of a game between boards A and
/// B — moves, a draw offer, an incorrect claim and its penalty, the
/// resignation — and plays them all back into the next game between the
/// same two boards, twice, and that game's own messages too: nothing
/// moves a piece, offers, claims or ends the new game, on either board.
#[test]
fn a_stranger_playing_back_an_earlier_game_changes_nothing_in_the_next() {
    let hall = Hall::new("replay", "300+2");
    let recorder = Recorder::start(hall.port, "tactus/schools/pair/#");
    let (mut a, mut b) = pair(&hall);
    let mut pos = Chess::default();
    play(&mut a, &mut b, &mut pos, "e4", Carry::AsSaid);
    play_offering(&mut b, &mut a, &mut pos, "e5");
    play(&mut a, &mut b, &mut pos, "Nf3", Carry::AsSaid);
    // An incorrect claim at Black's board: ruled on both, its time given on both.
    b.act(&["claim black threefold".to_string()]);
    a.events.next("penalty");
    play(&mut b, &mut a, &mut pos, "Nc6", Carry::AsSaid);
    a.act(&["result 0-1 resigns".to_string()]);
    for board in [&a, &b] {
        assert_eq!(board.events.next("game_over")["reason"], "resignation", "board {}", board.id);
    }
    // The recorder hears the last message (`over`) a little after the boards
    // say the game is over.
    let lacking = |recorded: &[(String, Vec<u8>)]| -> Vec<&str> {
        ["\"move\"", "\"draw_offer\"", "\"claim\"", "\"ruling\"", "\"over\"", "\"hello\""]
            .into_iter()
            .filter(|k| !recorded.iter().any(|(_, payload)| String::from_utf8_lossy(payload).contains(k)))
            .collect()
    };
    let mut first_game = recorder.recorded();
    wait_for("the recording to hold every kind of message", WAIT, || {
        first_game = recorder.recorded();
        lacking(&first_game).is_empty()
    });

    next_game(&mut a, &mut b);
    let mut pos = Chess::default();
    play(&mut a, &mut b, &mut pos, "d4", Carry::AsSaid);
    play_back(hall.port, &first_game);
    play(&mut b, &mut a, &mut pos, "d5", Carry::AsSaid);
    play(&mut a, &mut b, &mut pos, "c4", Carry::AsSaid);
    // The first game again, and this game's own messages so far.
    play_back(hall.port, &recorder.recorded());
    play(&mut b, &mut a, &mut pos, "e6", Carry::AsSaid);
    play(&mut a, &mut b, &mut pos, "Nc3", Carry::AsSaid);
    play(&mut b, &mut a, &mut pos, "Nf6", Carry::AsSaid);

    for (board, theirs) in [(&a, ["d5", "e6", "Nf6"]), (&b, ["d4", "c4", "Nc3"])] {
        let seen = board.events.seen.borrow();
        let told: Vec<&str> =
            seen.iter().filter(|e| e["event"] == "opponent_move").map(|e| e["san"].as_str().unwrap()).collect();
        assert_eq!(told, theirs, "board {}: only the new game's moves, once each", board.id);
        for e in seen.iter() {
            let kind = e["event"].as_str().unwrap();
            assert!(
                !["game_over", "draw_offer", "penalty", "irregularity", "claimable"].contains(&kind),
                "board {}: nothing of the earlier game: {e}",
                board.id
            );
        }
        assert!(board.log().contains("a pair message was ignored"), "board {}: the play-back refused", board.id);
    }
    assert_eq!(a.replayed(), ["d4", "d5", "c4", "e6", "Nc3", "Nf6"]);
    assert_eq!(a.replayed(), b.replayed(), "both journals hold the new game alone");
    for board in [&a, &b] {
        let journal = board.journal();
        assert!(!journal.contains("\"input\": \"result\""), "board {}: {journal}", board.id);
        assert!(!journal.contains("\"input\": \"draw_offer\""), "board {}: {journal}", board.id);
        assert!(!journal.contains("\"input\": \"claim\""), "board {}: {journal}", board.id);
        assert_eq!(journal.matches("\"input\": \"pair_game\"").count(), 1, "board {}: {journal}", board.id);
    }
}

/// Issue 29, item 7: a second daemon started by mistake with board A's
/// name. Both daemons named A say so, and stop playing with B; they do not
/// knock each other off the broker, and B hears its partner gone once —
/// no storm of "cannot be reached" and "is back".
#[test]
fn a_second_daemon_by_the_same_board_name_is_refused_loudly_without_a_storm() {
    let hall = Hall::new("twin", "300+2");
    let (mut a, mut b) = pair(&hall);
    let mut pos = Chess::default();
    play(&mut a, &mut b, &mut pos, "e4", Carry::AsSaid);
    let mut twin = Board::unstarted(&hall, "A", "B", Color::White).files("A-twin");
    twin.spawn();
    twin.events.next("start");
    for board in [&a, &twin] {
        let said = board.events.next("pair");
        assert_eq!((said["what"].as_str(), said["board"].as_str()), (Some("twin"), Some("A")), "{said}");
        wait_for("the error logged with what to change", WAIT, || {
            board.log().contains("goes by this board's name") && board.log().contains("--board-id")
        });
    }
    // Watched a while: no reconnection, no flapping presence on B.
    std::thread::sleep(Duration::from_secs(4));
    for board in [&a, &twin] {
        let connects = board.log().matches("pair: connected to the MQTT broker").count();
        assert_eq!(connects, 1, "{} connected once and stayed: {}", board.files, board.log());
    }
    b.act(&["request time".to_string()]);
    b.events.next("time");
    let said = |kind: &str| b.events.seen.borrow().iter().filter(|e| e["event"] == kind).count();
    assert!(said("device_lost") <= 1 && said("device_back") <= 1, "B: {:?}", b.events.seen.borrow());
}

/// Issue 29, item 8: both boards set to play White (or with another time
/// control): refused at the handshake, said on both boards with what to
/// change; White's move made meanwhile goes nowhere. The board started
/// again as Black: the two agree, and the move arrives.
#[test]
fn two_boards_that_do_not_fit_are_refused_at_the_handshake_until_one_changes() {
    let hall = Hall::new("misfit", "300+2");
    let a = Board::start(&hall, "A", "B", Color::White);
    let mut b = Board::start(&hall, "B", "A", Color::White);
    for board in [&a, &b] {
        let said = board.events.next("pair");
        assert_eq!((said["what"].as_str(), said["side"].as_str()), (Some("same_side"), Some("white")), "{said}");
        wait_for("the error logged", WAIT, || board.log().contains("--plays"));
    }
    let mut a = a;
    let pos = Chess::default();
    let mv = next_move(&pos, "e4");
    a.act(&hands(&pos, mv));
    a.act(&["w".to_string()]);
    assert_eq!(a.events.next("complete")["san"], "e4");
    b.kill();
    // Black now, with another time control (a new game, its state dir
    // anew): refused the same way.
    let mut b = Board::unstarted(&hall, "B", "A", Color::Black).files("B-600");
    b.time_control = "600+5";
    b.spawn();
    let said = b.events.next("pair");
    assert_eq!(
        (said["what"].as_str(), said["ours"].as_str(), said["theirs"].as_str()),
        (Some("time_control"), Some("600+5"), Some("300+2")),
        "{said}"
    );
    let heard = a.events.next("pair");
    assert_eq!(heard["what"], "time_control", "{heard}");
    wait_for("the error logged", WAIT, || b.log().contains("--time-control"));
    assert_eq!(count_since(&b, 0, "opponent_move"), 0, "no move of a game that does not fit");
    // Set right: the boards agree, White's move comes, and the game goes on.
    b.kill();
    let mut b = Board::unstarted(&hall, "B", "A", Color::Black).files("B-300");
    b.spawn();
    let chosen = b.events.next("opponent_move");
    assert_eq!(chosen["san"], "e4", "{chosen}");
    assert_eq!(a.events.next("pair")["what"], "agreed");
    b.act(&[carried_out(&chosen)]);
    assert_eq!(b.events.next("complete")["san"], "e4");
}

/// Issue 30, item 3: a board killed while its player carries out the
/// partner's move, and again between its player's move and the press.
/// Started again, within 5 s it says the move again and how the game goes
/// on; the player's own press then completes their move, which reaches the
/// partner. Words as said, in English (the other languages: the speech
/// crate's tests); a press while the partner is to move is answered with
/// the partner's words, not an engine's.
#[test]
fn a_board_restarted_with_a_move_pending_says_it_again_and_how_to_go_on() {
    let hall = Hall::new("pending", "300+2");
    let (mut a, mut b) = pair_speaking_black(&hall);
    // A press at Black's board while White is to move: no engine's words
    // (issue 29, item 9).
    b.act(&["b".to_string()]);
    assert_eq!(b.events.next("not_now")["why"], "engine_thinking");
    wait_for("the partner's words", WAIT, || b.log().contains("Your opponent has not moved yet."));
    assert!(!b.log().contains("The engine"), "{}", b.log());
    let pos = Chess::default();
    let mv = next_move(&pos, "e4");
    a.act(&hands(&pos, mv));
    a.act(&["w".to_string()]);
    a.events.next("complete");
    let chosen = b.events.next("opponent_move");
    assert_eq!(chosen["san"], "e4");
    b.kill();
    b.spawn();
    // Timed from the restarted daemon's first event, not from its start:
    // how long a debug build takes to start on a loaded machine is no
    // part of what a player waits for on a Pi.
    let first = b.events.next_any();
    let restarted = std::time::Instant::now();
    let again = if first["event"] == "opponent_move" { first } else { b.events.next("opponent_move") };
    assert_eq!((again["san"].as_str(), again["ply"].as_u64()), (Some("e4"), Some(1)), "{again}");
    let goes_on = b.events.next("pair");
    assert!(restarted.elapsed() < Duration::from_secs(5), "said within 5 s: {:?}", restarted.elapsed());
    assert_eq!(
        (
            goes_on["what"].as_str(),
            goes_on["to_move"].as_str(),
            goes_on["carrying"].as_bool(),
            goes_on["clocks"].as_str()
        ),
        (Some("goes_on"), Some("white"), Some(true), Some("run")),
        "{goes_on}"
    );
    wait_for("the words said", WAIT, || {
        let said = b.said_since_restart();
        said.contains("Opponent: e2 to e4.\nThe game goes on: first carry out your opponent's move. The clocks run.")
    });
    // A press before the move is carried out: the partner's move first.
    b.act(&["b".to_string()]);
    assert_eq!(b.events.next("not_now")["why"], "carry_out_first");
    wait_for("the partner's words", WAIT, || b.said_since_restart().contains("First carry out your opponent's move."));
    b.act(&[carried_out(&again)]);
    assert_eq!(b.events.next("complete")["san"], "e4");
    let mut pos = pos;
    pos.play_unchecked(mv);
    // Black's move stands on the board, unpressed, as the board dies.
    let mv = next_move(&pos, "c5");
    b.act(&hands(&pos, mv));
    assert_eq!(b.events.next("move")["san"], "c5");
    b.kill();
    b.spawn();
    let goes_on = b.events.next("pair");
    assert_eq!((goes_on["to_move"].as_str(), goes_on["carrying"].as_bool()), (Some("black"), None), "{goes_on}");
    wait_for("the words said", WAIT, || {
        b.said_since_restart().contains("The game goes on: it is your move. The clocks run.")
    });
    // The player's own press completes the move, as before the restart.
    b.act(&["b".to_string()]);
    let done = b.events.next("complete");
    assert_eq!(done["san"], "c5", "{done}");
    assert!(done["clock_ms"].is_i64(), "{done}");
    let chosen = a.events.next("opponent_move");
    assert_eq!(chosen["san"], "c5", "the move reaches the partner");
    a.act(&[carried_out(&chosen)]);
    assert_eq!(a.events.next("complete")["san"], "c5");
    assert_eq!(a.replayed(), b.replayed());
}

/// Issue 30, item 3: a board restarted with its clocks stopped by the
/// arbiter (6.11) says so, and `request time` says the clocks are stopped
/// — until the arbiter starts them again.
#[test]
fn a_board_restarted_with_its_clocks_stopped_says_so_when_asked_the_time() {
    let hall = Hall::new("stopped", "300+2");
    let (mut a, mut b) = pair_speaking_black(&hall);
    let mut pos = Chess::default();
    play(&mut a, &mut b, &mut pos, "e4", Carry::AsSaid);
    b.act(&["pause".to_string()]);
    b.events.next("paused");
    b.kill();
    b.spawn();
    let goes_on = b.events.next("pair");
    assert_eq!((goes_on["what"].as_str(), goes_on["clocks"].as_str()), (Some("goes_on"), Some("stopped")), "{goes_on}");
    b.act(&["request time".to_string()]);
    let time = b.events.next("time");
    assert!(time["running"].is_null(), "{time}");
    wait_for("the time said with the clocks stopped", WAIT, || {
        b.said_since_restart().lines().any(|l| l.starts_with("You ") && l.ends_with("; the clocks are stopped."))
    });
    b.act(&["resume".to_string()]);
    b.events.next("resumed");
    b.act(&["request time".to_string()]);
    assert_eq!(b.events.next("time")["running"], "black");
}

/// Issue 30, item 4: the partner's move declines this board's offer as it
/// comes — said with the move, not once it is carried out here.
#[test]
fn the_partner_s_move_declines_an_offer_at_once() {
    let hall = Hall::new("declined", "300+2");
    let (mut a, mut b) = pair(&hall);
    let mut pos = Chess::default();
    play_offering(&mut a, &mut b, &mut pos, "e4");
    assert_eq!(said(&b, "draw_offer")["side"], "white");
    let mv = next_move(&pos, "e5");
    b.act(&hands(&pos, mv));
    b.act(&["b".to_string()]);
    assert_eq!(b.events.next("complete")["san"], "e5");
    let chosen = a.events.next("opponent_move");
    let next = a.events.next_of(&["draw_declined", "complete"]);
    assert_eq!((next["event"].as_str(), next["side"].as_str()), (Some("draw_declined"), Some("black")), "{next}");
    assert_eq!(next["t"], chosen["t"], "with the move: {chosen} {next}");
    a.act(&[carried_out(&chosen)]);
    assert_eq!(a.events.next("complete")["san"], "e5");
    assert_eq!(count_since(&a, 0, "draw_declined"), 1, "said once");
}
