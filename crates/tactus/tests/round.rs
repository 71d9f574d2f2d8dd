//! A round from the pairing program, end to end: FIDE's TRF in (a file laid
//! out by hand from FIDE's published table, `crates/trf/tests/files`), a
//! hall of four sim boards (real daemons, typed at) and a relay on a real
//! mosquitto with the hall key; each board told its players, saying them
//! in its own language before the first move; the games played, the
//! arbiter's forfeit and correction; the results out in `/round.trf`, which
//! differs from the file read only in round 1's result columns and the
//! points. Then the next round on SIGHUP, a stranger's replay of round 1's
//! pairing that changes nothing, and bad files that keep the round.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

mod common;
use common::http::{get, request};
use common::{EventStream, Guard, Typed, free_port, hall, root, secret, signal, tempdir, wait_for};

const TOKEN: &str = "s3cret-arbiter";

fn trf_file(name: &str) -> PathBuf {
    root().join("crates/trf/tests/files").join(name)
}

fn get_json(port: u16, path: &str) -> Option<Value> {
    let (status, body) = request(port, "GET", path, "", "")?;
    (status == 200).then(|| serde_json::from_str(&body).ok()).flatten()
}

fn arbiter(port: u16, method: &str, path: &str, body: &str) -> (u16, String) {
    let auth = format!("Authorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n");
    request(port, method, path, &auth, body).expect("the relay answers")
}

/// `/round.trf`, with the arbiter's token: the bytes.
fn round_trf(port: u16) -> Vec<u8> {
    let (status, body) =
        common::http::request_bytes(port, "GET", "/round.trf", &format!("Authorization: Bearer {TOKEN}\r\n"), "")
            .expect("the relay answers");
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    body
}

fn relay(dir: &Path, broker: &str, port: u16, key: &Path, trf: &Path, round: u32) -> Guard {
    let token = secret(dir, "arbiter.token", &format!("{TOKEN}\n"));
    Guard(
        Command::new(env!("CARGO_BIN_EXE_tactus"))
            .current_dir(root())
            .args(["relay", "--broker", broker, "--hall", "club", "--http", &format!("127.0.0.1:{port}")])
            .arg("--hall-key")
            .arg(key)
            .arg("--token-file")
            .arg(token)
            .arg("--round-trf")
            .arg(trf)
            .args(["--round", &round.to_string()])
            .arg("--state-dir")
            .arg(dir.join("relay-state"))
            .stderr(std::fs::File::create(dir.join("relay.log")).unwrap())
            .spawn()
            .unwrap(),
    )
}

/// A daemon on a typed sim board of the hall, its events on standard
/// output, what it says (`--voice text`) in its log.
fn board(dir: &Path, broker: &str, key: &Path, id: &str, config: &str) -> (Typed, EventStream) {
    let config_file = dir.join(format!("{id}.toml"));
    std::fs::write(&config_file, config).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("run")
        .arg("--config")
        .arg(&config_file)
        .args(["--board", "sim", "--voice", "text", "--events", "-", "--hall", "club", "--mqtt", broker])
        .args(["--board-id", id, "--hall-key"])
        .arg(key)
        .arg("--state-dir")
        .arg(dir.join(id))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.join(format!("{id}.log"))).unwrap())
        .spawn()
        .unwrap();
    let events = EventStream::of(&mut child);
    (Typed::of(child), events)
}

/// Someone on the broker without the hall key, hearing `topic`: the
/// payloads it heard come on the receiver.
fn stranger(port: u16, topic: &str) -> std::sync::mpsc::Receiver<Vec<u8>> {
    use rumqttc::v5::mqttbytes::QoS;
    use rumqttc::v5::mqttbytes::v5::Packet;
    use rumqttc::v5::{Client, Event, MqttOptions};
    let (client, mut connection) = Client::new(MqttOptions::new("a-stranger", "127.0.0.1", port), 10);
    client.subscribe(topic, QoS::AtLeastOnce).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let (subscribed, acked) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _client = client;
        for event in connection.iter() {
            match event {
                Ok(Event::Incoming(Packet::SubAck(_))) => drop(subscribed.send(())),
                Ok(Event::Incoming(Packet::Publish(p))) => drop(tx.send(p.payload.to_vec())),
                Ok(_) => {}
                Err(_) => return,
            }
        }
    });
    acked.recv_timeout(Duration::from_secs(10)).expect("the broker takes the stranger's subscription");
    rx
}

/// The stranger plays `payload` back on `topic`, and waits for the broker to take it.
fn play_back(port: u16, topic: &str, payload: Vec<u8>) {
    use rumqttc::v5::mqttbytes::QoS;
    use rumqttc::v5::mqttbytes::v5::Packet;
    use rumqttc::v5::{Client, Event, MqttOptions};
    let (client, mut connection) = Client::new(MqttOptions::new("another-stranger", "127.0.0.1", port), 10);
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

fn said(dir: &Path, id: &str) -> String {
    std::fs::read_to_string(dir.join(format!("{id}.log"))).unwrap()
}

/// Plays moves as a person does: each made, and pressed once the board
/// has seen it (its `move` event), the press's `complete` awaited.
fn play(board: &mut Typed, events: &EventStream, moves: &[&str]) {
    for (i, mv) in moves.iter().enumerate() {
        board.say(mv);
        events.next("move");
        board.say(if i % 2 == 0 { "w" } else { "b" });
        events.next("complete");
    }
}

/// Where two files differ: (line, column) of each differing character,
/// lines split at CR as the layout ends them.
fn differences(a: &[u8], b: &[u8]) -> Vec<(usize, usize)> {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.split('\r').collect(), b.split('\r').collect());
    assert_eq!(la.len(), lb.len(), "the same lines");
    let mut out = Vec::new();
    for (i, (x, y)) in la.iter().zip(&lb).enumerate() {
        let (x, y): (Vec<char>, Vec<char>) = (x.chars().collect(), y.chars().collect());
        for c in 0..x.len().max(y.len()) {
            if x.get(c) != y.get(c) {
                out.push((i + 1, c + 1));
            }
        }
    }
    out
}

/// The issue's "done when": four sim boards and a relay given a TRF with
/// round 1 paired.
#[test]
fn a_round_from_the_trf_to_the_boards_and_its_results_back() {
    let dir = tempdir("round");
    let port = free_port();
    let (_broker, broker, key) = hall(&dir);
    let trf = dir.join("open.trf");
    std::fs::copy(trf_file("open-round1.trf"), &trf).unwrap();
    let input = std::fs::read(&trf).unwrap();
    let _relay = relay(&dir, &broker, port, &key, &trf, 1);
    wait_for("the relay's round", Duration::from_secs(10), || get_json(port, "/api/round").is_some());

    // Four boards, each speaking its player's language; board 1's config
    // names other players, which the round's pairing decides over.
    let configs = [
        ("b1", "[game]\nwhite = \"Config, White\"\nblack = \"Config, Black\"\nevent = \"Club night\"\n"),
        ("b2", "[voice]\nsay = \"de:natural\"\n"),
        ("b3", "[voice]\nsay = \"ru:natural\"\n"),
        ("b4", "[voice]\nsay = \"pl:natural\"\n"),
    ];
    let mut boards: Vec<(Typed, EventStream)> =
        configs.iter().map(|(id, config)| board(&dir, &broker, &key, id, config)).collect();
    // In FIDE's board order: 1-6, 7-2, 3-8, 9-4 (file order is 1, 2, 3, …).
    let expected = [
        (1, "Volkov, Dmitri", "Smith, John", "Board 1, round 1: White Volkov, Dmitri; Black Smith, John."),
        (2, "Novak, Petr", "Kowalczyk, Irina", "Brett 2, Runde 1: Weiß Novak, Petr; Schwarz Kowalczyk, Irina."),
        (3, "Świercz, Dariusz", "García, Lucía", "Доска 3, тур 1: белые — Świercz, Dariusz; чёрные — García, Lucía."),
        (4, "Berg, Ole", "Müller, Jörg", "Szachownica 4, runda 1: białe — Berg, Ole; czarne — Müller, Jörg."),
    ];
    for ((_, events), (n, white, black, sentence)) in boards.iter().zip(expected) {
        let p = events.next("pairing");
        assert_eq!((p["round"].as_u64(), p["board"].as_u64()), (Some(1), Some(n)), "{p}");
        assert_eq!((p["white"]["name"].as_str(), p["black"]["name"].as_str()), (Some(white), Some(black)), "{p}");
        assert_eq!(p["tournament"], "Hall Open 2025");
        let id = format!("b{n}");
        wait_for(&format!("board {n} says its players"), Duration::from_secs(10), || {
            said(&dir, &id).contains(sentence)
        });
    }

    // The games: board 1 a mate for White, board 3 for Black; board 2's
    // players agree a draw, which the arbiter records; board 4's White
    // never came: the arbiter ends its game and sets the forfeit.
    for (i, moves) in [
        (0, &["e2 e4", "e7 e5", "f1 c4", "b8 c6", "d1 h5", "g8 f6", "h5xf7"][..]),
        (2, &["f2 f3", "e7 e5", "g2 g4", "d8 h4"]),
        (1, &["e2 e4", "e7 e5"]),
    ] {
        let (board, events) = &mut boards[i];
        play(board, events, moves);
    }
    for (i, reason) in [(0, "checkmate"), (2, "checkmate")] {
        assert_eq!(boards[i].1.next("game_over")["reason"], reason);
    }
    // Each board said its players before its first move.
    for ((_, events), (n, _, _, sentence)) in boards.iter().zip(expected) {
        let seen = events.seen.borrow();
        let first_move = seen.iter().position(|e| e["event"] == "move");
        let pairing = seen.iter().position(|e| e["event"] == "pairing").unwrap();
        assert!(first_move.is_none_or(|m| pairing < m), "board {n}");
        let log = said(&dir, &format!("b{n}"));
        let first_said = ["\ne4\n", "\nf3\n"].iter().filter_map(|m| log.find(m)).min();
        assert!(first_said.is_none_or(|m| log.find(sentence).unwrap() < m), "board {n}:\n{log}");
    }
    let moves =
        |id: &str| get_json(port, &format!("/api/game/{id}")).map_or(0, |g| g["moves"].as_array().map_or(0, Vec::len));
    wait_for("board 2's moves at the relay", Duration::from_secs(20), || moves("b2") == 2);
    let (status, body) =
        arbiter(port, "POST", "/api/game/b2/result", r#"{"result": "1/2-1/2", "reason": "agreement"}"#);
    assert_eq!(status, 202, "{body}");
    wait_for("board 4 heard", Duration::from_secs(20), || {
        get_json(port, "/api/game/b4").is_some_and(|g| g["seq"].as_u64() > Some(0))
    });
    let (status, body) = arbiter(port, "POST", "/api/game/b4/result", r#"{"result": "0-1", "reason": "arbiter"}"#);
    assert_eq!(status, 202, "{body}");
    // The arbiter first sets board 3 wrongly, then takes the game's result again.
    let (status, body) = arbiter(port, "POST", "/api/round/result", r#"{"board": 3, "result": "1-0"}"#);
    assert_eq!(status, 200, "{body}");
    let (status, body) = arbiter(port, "POST", "/api/round/result", r#"{"board": 4, "result": "-+"}"#);
    assert_eq!(status, 200, "{body}");
    wait_for("every result at the relay", Duration::from_secs(30), || {
        get_json(port, "/api/round")
            .is_some_and(|r| r["boards"].as_array().unwrap().iter().filter(|b| b["game"].is_string()).count() == 4)
    });
    let view = get_json(port, "/api/round").unwrap();
    let results: Vec<&str> = view["boards"].as_array().unwrap().iter().map(|b| b["result"].as_str().unwrap()).collect();
    assert_eq!(results, ["1-0", "1/2-1/2", "1-0", "-+"], "board 3 as the arbiter set it: {view}");
    let wrong = round_trf(port);
    let (status, body) = arbiter(port, "POST", "/api/round/result", r#"{"board": 3, "result": null}"#);
    assert_eq!(status, 200, "{body}");

    // The results out: the file read, with round 1's results and the
    // points, exactly as the layout wants them (the expected file was
    // written by hand).
    let out = round_trf(port);
    assert_ne!(out, wrong, "the correction is in the file");
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&std::fs::read(trf_file("open-round1.results.trf")).unwrap())
    );
    for (line, column) in differences(&input, &out) {
        assert!((81..=84).contains(&column) || column == 99, "line {line}, column {column} changed");
    }
    let (status, _) = request(port, "GET", "/round.trf", "", "").unwrap();
    assert_eq!(status, 401, "the arbiter's token where one is set");

    // The hall's games carry the pairing and the result.
    let pgn = get(port, "/games.pgn").unwrap();
    let games: Vec<&str> = pgn.split("\n\n[").collect();
    assert_eq!(games.len(), 4, "{pgn}");
    let players = [
        ("Volkov, Dmitri", "GM", "2601", "4100018", "RUS", "Smith, John", "", "2250", "400000", "ENG", "1-0"),
        ("Novak, Petr", "CM", "2200", "300000", "CZE", "Kowalczyk, Irina", "IM", "2488", "1120000", "POL", "1/2-1/2"),
        ("Świercz, Dariusz", "FM", "2402", "1130000", "POL", "García, Lucía", "", "2150", "2200000", "ESP", "0-1"),
        ("Berg, Ole", "", "2100", "1500000", "NOR", "Müller, Jörg", "", "2350", "4600000", "GER", "0-1"),
    ];
    for (n, (w, wt, we, wid, wf, b, bt, be, bid, bf, result)) in players.into_iter().enumerate() {
        let game = get(port, &format!("/game/b{}.pgn", n + 1)).unwrap();
        let mut want = vec![
            ("Event", "Hall Open 2025".to_string()),
            ("Round", "1".into()),
            ("Board", (n + 1).to_string()),
            ("White", w.into()),
            ("Black", b.into()),
            ("Result", result.into()),
            ("WhiteElo", we.into()),
            ("WhiteFideId", wid.into()),
            ("WhiteFederation", wf.into()),
            ("BlackElo", be.into()),
            ("BlackFideId", bid.into()),
            ("BlackFederation", bf.into()),
        ];
        for (tag, title) in [("WhiteTitle", wt), ("BlackTitle", bt)] {
            if title.is_empty() {
                assert!(!game.contains(&format!("[{tag} ")), "{game}");
            } else {
                want.push((tag, title.into()));
            }
        }
        for (tag, value) in want {
            assert!(game.contains(&format!("[{tag} \"{value}\"]")), "board {}: [{tag} \"{value}\"] in\n{game}", n + 1);
        }
        assert!(pgn.contains(&game), "/games.pgn holds board {}'s game", n + 1);
    }
    assert!(!pgn.contains("Config, White") && !pgn.contains("Club night"), "{pgn}");
}

/// The next round on SIGHUP; a stranger's replay of round 1's pairing; a
/// bad file, which keeps the round the relay had.
#[test]
fn the_next_round_replays_and_bad_files() {
    let dir = tempdir("next");
    let port = free_port();
    let (_broker, broker, key) = hall(&dir);
    let trf = dir.join("open.trf");
    std::fs::copy(trf_file("open-round1.trf"), &trf).unwrap();
    // A stranger on the broker, without the hall key, records board 1's pairings.
    let broker_port: u16 = broker.rsplit(':').next().unwrap().parse().unwrap();
    let topic = "tactus/club/b1/pairing";
    let heard = stranger(broker_port, topic);
    let relay = relay(&dir, &broker, port, &key, &trf, 1);
    let (_b1, events) = board(&dir, &broker, &key, "b1", "");
    assert_eq!(events.next("pairing")["round"], 1);
    let message = heard.recv_timeout(Duration::from_secs(10)).expect("the stranger heard round 1's pairing");
    assert!(message.starts_with(b"tactus-auth1 epoch="), "{}", String::from_utf8_lossy(&message));
    assert!(String::from_utf8_lossy(&message).contains(r#""round":1"#));

    // The pairing program exports round 2 to the same file; SIGHUP.
    std::fs::copy(trf_file("open-round2.trf"), &trf).unwrap();
    assert!(signal("-HUP", relay.0.id()));
    let p = events.next("pairing");
    assert_eq!((p["round"].as_u64(), p["board"].as_u64()), (Some(2), Some(1)));
    assert_eq!(
        (p["white"]["name"].as_str(), p["black"]["name"].as_str()),
        (Some("García, Lucía"), Some("Volkov, Dmitri"))
    );
    wait_for("round 2 at the relay", Duration::from_secs(10), || {
        get_json(port, "/api/game/b1").is_some_and(|g| g["tags"]["round"] == "2")
    });

    // The stranger plays round 1's pairing back: nothing changes.
    play_back(broker_port, topic, message);
    wait_for("the board's refusal", Duration::from_secs(10), || said(&dir, "b1").contains("a pairing was refused"));
    let game = get_json(port, "/api/game/b1").unwrap();
    assert_eq!((game["tags"]["round"].as_str(), game["tags"]["white"].as_str()), (Some("2"), Some("García, Lucía")));

    // A bad file: the relay keeps round 2, and says where the file is wrong.
    let good = std::fs::read_to_string(&trf).unwrap();
    let long = good.replacen("Smith, John                       2250", "Smith-Jones, Jonathan Alexander Mark 2250", 1);
    std::fs::write(&trf, long).unwrap();
    let (status, body) = arbiter(port, "POST", "/api/round/reload", r#"{"round": 2}"#);
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("open.trf: line 17, column 48: the name runs past its field"), "{body}");
    let view = get_json(port, "/api/round").unwrap();
    assert_eq!(view["round"], 2);
    assert!(view["error"].as_str().unwrap().contains("line 17, column 48"), "{view}");
    // Round 3 is not paired; a board beyond the hall; not a TRF at all.
    std::fs::write(&trf, &good).unwrap();
    let (status, body) = arbiter(port, "POST", "/api/round/reload", "{}");
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("line 12, column 112: round 3 is not paired"), "{body}");
    std::fs::write(&trf, "[Event \"Hall Open\"]\n1. e4 *\n").unwrap();
    assert!(signal("-HUP", relay.0.id()));
    wait_for("the error on the page", Duration::from_secs(10), || {
        get_json(port, "/api/round")
            .is_some_and(|v| v["error"].as_str().is_some_and(|e| e.contains("line 1, column 1: not a TRF")))
    });
    assert_eq!(get_json(port, "/api/round").unwrap()["round"], 2, "kept");
    let twice = good.replacen(
        "2100 NOR     1500000 2006/03/15  0.0    9     4 w -     3 w",
        "2100 NOR     1500000 2006/03/15  0.0    9     4 w -     1 w",
        1,
    );
    std::fs::write(&trf, twice).unwrap();
    let (status, body) = arbiter(port, "POST", "/api/round/reload", r#"{"round": 2}"#);
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("paired twice"), "{body}");
    // The same round read again from a good file: taken.
    std::fs::write(&trf, &good).unwrap();
    let (status, body) = arbiter(port, "POST", "/api/round/reload", r#"{"round": 2}"#);
    assert_eq!(status, 200, "{body}");
    assert!(get_json(port, "/api/round").unwrap()["error"].is_null());
}

/// The arbiter's page in Debian's Chromium, against the real relay: the
/// round's boards, the results set there, the file downloaded with them.
#[test]
fn the_arbiter_sets_the_results_on_the_page_and_downloads_the_file() {
    common::page::require_browser();
    let dir = tempdir("page");
    let port = free_port();
    let (_broker, broker, key) = hall(&dir);
    let trf = dir.join("open.trf");
    std::fs::copy(trf_file("open-round1.trf"), &trf).unwrap();
    let _relay = relay(&dir, &broker, port, &key, &trf, 1);
    wait_for("the relay's round", Duration::from_secs(10), || get_json(port, "/api/round").is_some());
    let expected = trf_file("open-round1.results.trf");
    let url = format!("http://127.0.0.1:{port}");
    common::page::node("round.mjs", &[&url, TOKEN, "--expect", expected.to_str().unwrap()]);
    // What the page set is what the server holds.
    assert_eq!(round_trf(port), std::fs::read(&expected).unwrap());
}

/// A relay killed in the middle of the round (a power cut: nothing said,
/// nothing flushed) and started again has every result it had, the
/// arbiter's included, kept on disk as they came.
#[test]
fn a_relay_killed_mid_round_has_its_results_when_started_again() {
    let dir = tempdir("kept");
    let (_broker, broker, key) = hall(&dir);
    let trf = dir.join("open.trf");
    std::fs::copy(trf_file("open-round1.trf"), &trf).unwrap();
    let port = free_port();
    let first = relay(&dir, &broker, port, &key, &trf, 1);
    wait_for("the relay's round", Duration::from_secs(60), || get_json(port, "/api/round").is_some());
    for (board, result) in [(1, "1-0"), (2, "1/2-1/2"), (3, "0-1"), (4, "-+")] {
        let body = format!(r#"{{"board": {board}, "result": "{result}"}}"#);
        let (status, body) = arbiter(port, "POST", "/api/round/result", &body);
        assert_eq!(status, 200, "{body}");
    }
    let before = round_trf(port);
    assert_eq!(before, std::fs::read(trf_file("open-round1.results.trf")).unwrap());
    // On disk: the one file of the round's results, once it has all four.
    let kept = || -> Option<String> {
        let entries = std::fs::read_dir(dir.join("relay-state")).ok()?;
        let file =
            entries.filter_map(Result::ok).map(|e| e.path()).find(|p| p.extension().is_some_and(|e| e == "json"))?;
        std::fs::read_to_string(file).ok()
    };
    wait_for("the four results kept", Duration::from_secs(60), || {
        kept().is_some_and(|k| ["\"1-0\"", "\"1/2-1/2\"", "\"0-1\"", "\"-+\""].iter().all(|r| k.contains(r)))
    });
    drop(first); // SIGKILL
    let port = free_port();
    let _again = relay(&dir, &broker, port, &key, &trf, 1);
    wait_for("the relay's round again", Duration::from_secs(60), || get_json(port, "/api/round").is_some());
    assert_eq!(round_trf(port), before, "the file with every result, as before the kill");
    let log = std::fs::read_to_string(dir.join("relay.log")).unwrap();
    assert!(log.contains("the results of 4 boards taken back"), "{log}");
    let round = get_json(port, "/api/round").unwrap();
    assert_eq!(round["boards"][3]["arbiter"], "-+", "{round}");
}

/// A state directory where the results cannot be kept stops the relay at
/// its start, naming it — not found at the round's first result.
#[test]
fn a_relay_that_cannot_keep_the_results_says_so_at_its_start() {
    let dir = tempdir("unkept");
    let (_broker, broker, key) = hall(&dir);
    let trf = dir.join("open.trf");
    std::fs::copy(trf_file("open-round1.trf"), &trf).unwrap();
    // Where the directory should be, a file.
    std::fs::write(dir.join("relay-state"), "").unwrap();
    let mut relay = relay(&dir, &broker, free_port(), &key, &trf, 1);
    let status = relay.0.wait().unwrap();
    assert!(!status.success());
    let log = std::fs::read_to_string(dir.join("relay.log")).unwrap();
    let named = format!("the results cannot be kept in {}", dir.join("relay-state").display());
    assert!(log.contains(&named) && log.contains("--state-dir"), "{log}");
}
