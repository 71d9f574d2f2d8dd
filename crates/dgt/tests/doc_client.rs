//! A DGT client written from DGT's protocol description, in Python and
//! sharing no code with this crate (tests/client/dgt_client.py), on the
//! other end of a pseudo-terminal from the emulated board: it follows whole
//! games from tactus's simulator through field updates and the dumps it
//! asks for after each, sends clock commands and gets them acknowledged,
//! sends garbage and reads through line noise, and reconnects mid-game.

mod common;

use std::sync::mpsc::Receiver;
use std::time::Instant;

use common::{Client, WAIT, fen, game, steps};
use serde_json::Value;
use shakmaty::{Move, Position};
use tactus_dgt::emulate::{ClockRequest, Identity, Run};
use tactus_dgt::protocol::{ClockFaces, ClockStatus, Face, Hms, Placement};
use tactus_dgt::{EmulatorEvent, EmulatorLink, Endpoint};

fn client_path() -> String {
    format!("{}/tests/client/dgt_client.py", env!("CARGO_MANIFEST_DIR"))
}

/// The next emulator event `wanted` accepts, within the bound.
fn expect_event(events: &Receiver<EmulatorEvent>, wanted: impl Fn(&EmulatorEvent) -> bool) -> EmulatorEvent {
    let end = Instant::now() + WAIT;
    loop {
        match events.recv_timeout(end.saturating_duration_since(Instant::now())) {
            Ok(e) if wanted(&e) => return e,
            Ok(_) => continue,
            Err(e) => panic!("no such emulator event within {WAIT:?}: {e}"),
        }
    }
}

/// Plays `moves` on the board; returns the boards the client must see.
fn play(link: &EmulatorLink, pos: &mut shakmaty::Chess, moves: &[Move]) -> Vec<String> {
    let mut expected = Vec::new();
    for m in moves {
        for p in steps(pos, *m) {
            link.set_placement(p);
            expected.push(fen(&p));
        }
        pos.play_unchecked(*m);
    }
    expected
}

/// Reads the client's lines until it has seen `last` through an update,
/// and returns every board it saw through updates (a dump that disagreed
/// with them would have been an error line).
fn follow(client: &Client, last: &str, noise: &mut bool) -> Vec<String> {
    let mut boards = Vec::new();
    loop {
        let v = client.next();
        if let Some(b) = v.get("board").and_then(Value::as_str) {
            boards.push(b.to_string());
            if b == last {
                return boards;
            }
        } else if v.get("garbage").is_some() {
            *noise = true;
        }
    }
}

#[test]
fn a_client_written_from_the_document_follows_whole_games_and_the_clock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dgt-board");
    let (link, events) = EmulatorLink::start(Endpoint::Pty(path.clone()), Identity::default(), Placement::start())
        .expect("a pty for the emulated board");
    expect_event(&events, |e| *e == EmulatorEvent::Opened);
    let clock = ClockFaces {
        left: Face { time: Hms { h: 0, m: 5, s: 0 }, ..Face::default() },
        right: Face { time: Hms { h: 0, m: 5, s: 0 }, ..Face::default() },
        status: ClockStatus::default(),
    };
    link.set_clock(Some(clock));

    let mut client = Client::spawn("python3", &[&client_path(), path.to_str().unwrap()], "the DGT client test");
    let ready = client.until("ready", &mut Vec::new());
    assert_eq!(ready["ready"]["version"], "1.7");
    assert_eq!(ready["ready"]["serial"], "07777");
    assert_eq!(ready["ready"]["long_serial"], "0000007777");
    assert_eq!(ready["ready"]["bus_address"], 7777);
    assert_eq!(ready["ready"]["battery"], 100);
    assert!(ready["ready"]["trademark"].as_str().unwrap().contains("tactus"));
    assert_eq!(ready["board"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");

    let (mut pos, moves) = game(10);
    assert!(moves.len() > 100, "a whole game: {} plies", moves.len());
    let has = |what: &str, f: fn(Move) -> bool| assert!(moves.iter().any(|m| f(*m)), "the game has {what}");
    has("castling", Move::is_castle);
    has("a promotion", Move::is_promotion);
    has("en passant", Move::is_en_passant);
    let (first, rest) = moves.split_at(20);

    // The opening, followed square by square.
    let expected = play(&link, &mut pos, first);
    let mut noise = false;
    let seen = follow(&client, expected.last().unwrap(), &mut noise);
    assert_eq!(seen, expected, "every board of the opening, in order");
    // The dumps the client asked for after each update agree with the
    // updates (it checks every one); the next shows the position reached.
    let dump = client.until("dump_ok", &mut Vec::new());
    assert_eq!(dump["dump_ok"].as_str(), expected.last().map(String::as_str));

    // Clock commands, each acknowledged before the next, each a request
    // for tactus's clock.
    client.tell("clock version");
    let ack = client.until("ack", &mut Vec::new());
    assert_eq!((ack["ack"].as_u64(), ack["version"].as_str()), (Some(0x09), Some("2.1")));
    client.tell("clock text HELLO");
    assert_eq!(client.until("ack", &mut Vec::new())["ack"], 0x0c);
    let text = expect_event(&events, |e| matches!(e, EmulatorEvent::Clock(_)));
    assert_eq!(text, EmulatorEvent::Clock(ClockRequest::Text { text: "HELLO".into(), beep_ms: 0 }));
    client.tell("clock setnrun 0 4 30 0 5 0 1");
    assert_eq!(client.until("ack", &mut Vec::new())["ack"], 0x0a);
    let setnrun = expect_event(&events, |e| matches!(e, EmulatorEvent::Clock(_)));
    assert_eq!(
        setnrun,
        EmulatorEvent::Clock(ClockRequest::SetAndRun {
            left: Hms { h: 0, m: 4, s: 30 },
            right: Hms { h: 0, m: 5, s: 0 },
            run: Run::Left,
            toggle_on_lever: false,
        })
    );
    client.tell("clock beep 4");
    assert_eq!(client.until("ack", &mut Vec::new())["ack"], 0x0b);
    assert_eq!(
        expect_event(&events, |e| matches!(e, EmulatorEvent::Clock(_))),
        EmulatorEvent::Clock(ClockRequest::Beep { ms: 256 })
    );
    client.tell("clock end");
    assert_eq!(client.until("ack", &mut Vec::new())["ack"], 0x03);

    // Garbage from the client: reported, and the board still answers.
    client.tell("garbage");
    let survived = client.until("survived", &mut Vec::new());
    assert_eq!(survived["version"], "1.7");
    assert!(matches!(expect_event(&events, |e| matches!(e, EmulatorEvent::Garbage(_))), EmulatorEvent::Garbage(_)));

    // Noise on the line towards the client, between messages: it skips it
    // and misses no update.
    let (middle, end) = rest.split_at(rest.len() / 2);
    link.inject_noise(&[0x13, 0x55, 0x8e, 0x00]);
    let expected = play(&link, &mut pos, middle);
    let seen = follow(&client, expected.last().unwrap(), &mut noise);
    assert!(noise, "the client saw the noise");
    assert_eq!(seen, expected, "every board after the noise, in order");

    // The client goes away and comes back: introduced anew, it gets the
    // board as it is and follows the rest of the game.
    client.tell("reconnect");
    let ready = client.until("ready", &mut Vec::new());
    assert_eq!(ready["board"].as_str(), Some(fen(&Placement::from_board(pos.board())).as_str()));
    let expected = play(&link, &mut pos, end);
    let seen = follow(&client, expected.last().unwrap(), &mut noise);
    assert_eq!(seen, expected, "every board after the reconnection, in order");

    client.tell("quit");
    let status = client.child.wait().expect("the client exits");
    assert!(status.success(), "client exit: {status}");
}
