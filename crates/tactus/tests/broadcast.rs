//! Broadcasting end to end, with the real daemon, the real relay, a real
//! mosquitto and Debian's Chromium: the daemon's own live page; a team
//! match gathered by a relay with a hall key, read from the rendered page;
//! the arbiter's view acting on a board through the relay; the token from a
//! file or the environment. The page is never given a stand-in server.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

mod common;
use common::http::{get, request};
use common::page::{node, require_browser};
use common::{Guard, Typed, empty_config, free_port, hall, mosquitto, root, secret, signal, tempdir, wait_for};

fn epoch_ms() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis()
}

/// What `web/test/read.mjs` read on a page, which says it loaded.
fn read_page(port: u16, path: &str) -> Value {
    let page = common::page::read_page(port, path, &[]);
    assert_eq!(page["ok"], true, "{page}");
    page
}

/// The move reaches an open page by the server's push: the page never
/// polls, so a move it shows without a reload came down the event stream.
/// 5 s bounds a stalled or reopened stream, not the latency: that is a
/// figure (printed here; well under a second on this machine), and a
/// loaded machine is slow, never wrong.
#[test]
fn chromium_sees_a_move_pushed_as_the_board_makes_it() {
    require_browser();
    let dir = tempdir("live");
    let port = free_port();
    let marker = dir.join("marker");
    // The board is typed at: nothing moves until the page says it is ready.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .current_dir(root())
        .arg("run")
        .arg("--config")
        .arg(empty_config())
        .args(["--board", "sim", "--voice", "none", "--events", "-", "--board-id", "b1", "--state-dir"])
        .arg(dir.join("state"))
        .arg("--http")
        .arg(format!("127.0.0.1:{port}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut board = Typed::of(child);
    let marker_file = marker.clone();
    // When the daemon announces the move, the marker gets the wall time.
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if line.contains("\"event\":\"move\"") && !marker_file.exists() {
                std::fs::write(&marker_file, epoch_ms().to_string()).unwrap();
            }
        }
    });
    wait_for("the daemon's page", Duration::from_secs(10), || get(port, "/api/hall").is_some());
    let mut live = Command::new("node")
        .arg(root().join("web/test/live.mjs"))
        .arg(format!("http://127.0.0.1:{port}"))
        .args(["--board", "b1", "--next", "--timeout-ms", "30000", "--max-delay-ms", "5000", "--marker"])
        .arg(format!("file:{}", marker.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs (./setup installs it)");
    let mut out = BufReader::new(live.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.starts_with("READY "), "live.mjs says when the page is ready first: {line:?}");
    // Only now does White move, and press.
    board.say("e2 e4");
    board.say("w");
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let status = live.wait().unwrap();
    let mut err = String::new();
    live.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(status.success(), "live.mjs: {rest}\n{err}");
    let result: Value = rest.lines().rev().find_map(|l| serde_json::from_str(l).ok()).expect("a JSON result line");
    assert_eq!((result["ok"].as_bool(), result["san"].as_str()), (Some(true), Some("e4")), "{result}");
    let delay = result["delay_ms"].as_f64().unwrap();
    eprintln!("the move on the page {delay} ms after the daemon's event");
    assert!(delay <= 5000.0, "{result}");
    // The feed broadcast sites poll has the move, with its clock, once the
    // press has completed it.
    wait_for("the completed move in /games.pgn", Duration::from_secs(10), || {
        get(port, "/games.pgn").unwrap_or_default().contains("1. e4 {[%clk 1:30:")
    });
}

/// A game that ends on White's flag: four seconds each, and Black never moves.
const FLAG_FALL: &str = r#"{"tactus_trace": 1, "variant": "standard", "start_fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "time_control": "4", "white": "Quick, Flo", "black": "Slow, Sam", "event": "Flag test"}
{"t": 300, "sq": "e2", "on": false}
{"t": 500, "sq": "e4", "on": true}
{"t": 700, "clock": "white"}
{"t": 30000, "sq": "e7", "on": false}
"#;

/// The players of a trace's header.
fn players(trace: &Path) -> (String, String) {
    let header: Value = serde_json::from_str(std::fs::read_to_string(trace).unwrap().lines().next().unwrap()).unwrap();
    (header["white"].as_str().unwrap().to_string(), header["black"].as_str().unwrap().to_string())
}

#[test]
fn a_team_match_through_a_relay_with_a_hall_key_as_chromium_shows_it() {
    require_browser();
    let dir = tempdir("match");
    let relay_port = free_port();
    let (_broker, broker, key) = hall(&dir);
    let token = secret(&dir, "arbiter.token", "s3cret-arbiter\n");
    let teams = dir.join("teams.toml");
    std::fs::write(
        &teams,
        "[[match]]\nname = \"School match\"\nwhite_on_odd_boards_for = \"home\"\n\
         [match.home]\nname = \"Oakfield\"\nboards = [\"b1\", \"b2\", \"b3\", \"b4\"]\n[match.away]\nname = \"Riverside\"\n",
    )
    .unwrap();
    let _relay = Guard(
        Command::new(env!("CARGO_BIN_EXE_tactus"))
            .current_dir(root())
            .args(["relay", "--broker", &broker, "--hall", "club", "--http", &format!("127.0.0.1:{relay_port}")])
            .arg("--hall-key")
            .arg(&key)
            .arg("--token-file")
            .arg(&token)
            .arg("--teams")
            .arg(&teams)
            .stderr(std::fs::File::create(dir.join("relay.log")).unwrap())
            .spawn()
            .unwrap(),
    );
    let flag_trace = dir.join("flag.trace.jsonl");
    std::fs::write(&flag_trace, FLAG_FALL).unwrap();
    // Board 1: home White wins; board 2: away White loses; board 3: home
    // White loses on a second illegal move; board 4 plays on; b5 (no match)
    // ends on a flag.
    let finished: Vec<(&str, PathBuf, &str)> = vec![
        ("b1", root().join("tests/traces/realistic/realistic-0008.trace.jsonl"), "400"),
        ("b2", root().join("tests/traces/realistic/realistic-0002.trace.jsonl"), "400"),
        ("b3", root().join("tests/traces/irregular/irregular-0005.trace.jsonl"), "400"),
        ("b5", flag_trace, "4"),
    ];
    let daemon = |id: &str| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_tactus"));
        c.arg("run")
            .arg("--config")
            .arg(empty_config())
            .args(["--board", "sim", "--voice", "none", "--hall", "club", "--mqtt", &broker, "--board-id", id])
            .arg("--hall-key")
            .arg(&key)
            .arg("--state-dir")
            .arg(dir.join(id))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    };
    let mut daemons = Vec::new();
    for (id, trace, speed) in &finished {
        daemons.push(Guard(daemon(id).args(["--sim-speed", speed, "--sim-trace"]).arg(trace).spawn().unwrap()));
    }
    let mut b4 = Typed::start(&mut daemon("b4"));
    for d in &mut daemons {
        assert!(d.0.wait().unwrap().success(), "a board daemon failed");
    }
    let results = |hall: &Value| -> Vec<(String, Value)> {
        hall["boards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| (b["id"].as_str().unwrap().to_string(), b["result"].clone()))
            .collect()
    };
    let mut hall = Value::Null;
    wait_for("every board in the relay", Duration::from_secs(20), || {
        hall = get(relay_port, "/api/hall").and_then(|t| serde_json::from_str(&t).ok()).unwrap_or(Value::Null);
        hall.is_object()
            && results(&hall).iter().filter(|(_, r)| !r.is_null()).count() == 4
            && hall["boards"].as_array().unwrap().iter().any(|b| b["id"] == "b4" && b["seq"].as_u64() > Some(0))
    });
    assert_eq!(hall["trust"], "hall_key");
    let want: Vec<(String, Value)> = [("b1", "1-0"), ("b2", "0-1"), ("b3", "0-1"), ("b4", ""), ("b5", "1-0")]
        .iter()
        .map(|(id, r)| (id.to_string(), if r.is_empty() { Value::Null } else { Value::from(*r) }))
        .collect();
    assert_eq!(results(&hall), want);

    // The hall page: the match score, board numbers and teams, as rendered.
    let page = read_page(relay_port, "/");
    assert_eq!(page["view"], "hall");
    assert_eq!(page["trust"], Value::Null, "a relay with a hall key shows no warning");
    let m = &page["matches"][0];
    assert_eq!(m["caption"], "School match Oakfield 2 – 1 Riverside", "{m}");
    let rows = m["rows"].as_array().unwrap();
    let player = |id: &str, white: bool| {
        let trace = finished.iter().find(|(b, ..)| *b == id).map(|(_, t, _)| t.clone());
        let (w, b) = trace.map_or_else(|| ("White".to_string(), "Black".to_string()), |t| players(&t));
        if white { w } else { b }
    };
    let expect = [
        ("b1", "1", player("b1", true), "1 – 0", player("b1", false), "White"),
        ("b2", "2", player("b2", false), "1 – 0", player("b2", true), "Black"),
        ("b3", "3", player("b3", true), "0 – 1", player("b3", false), "White"),
        ("b4", "4", "Black".to_string(), "playing", "White".to_string(), "Black"),
    ];
    assert_eq!(rows.len(), 4, "{m}");
    for (row, (id, number, home, points, away, colour)) in rows.iter().zip(expect) {
        assert_eq!(row["id"], id, "{row}");
        assert_eq!(row["board"], number, "{row}");
        assert_eq!(row["home"], format!("{home} ({colour})"), "{row}: Oakfield's player");
        assert_eq!(row["points"], points, "{row}");
        assert_eq!(row["away"], away, "{row}: Riverside's player");
    }
    let cards = page["cards"].as_array().unwrap();
    let card = |id: &str| cards.iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("no card {id}: {page}"));
    assert_eq!(card("b2")["title"], format!("Board 2: {} – {}", player("b2", true), player("b2", false)));
    assert!(
        card("b2")["event"].as_str().unwrap().contains("School match, board 2: Riverside (White) – Oakfield (Black)")
    );
    assert_eq!(card("b5")["title"], "b5: Quick, Flo – Slow, Sam");
    // How each game ended, in its board's words (`end_text`, as the board's
    // speech wrote it), after the result.
    let ended = |id: &str| -> String {
        let game: Value = serde_json::from_str(&get(relay_port, &format!("/api/game/{id}")).unwrap()).unwrap();
        game["end_text"].as_str().unwrap_or_else(|| panic!("{id} ended without words: {game}")).to_string()
    };
    assert_eq!(card("b1")["status"], format!("Result 1–0. {}", ended("b1")), "{}", card("b1"));
    assert_eq!(ended("b5"), "Black's flag has fallen: White wins on time.");
    assert_eq!(card("b5")["status"], "Result 1–0. Black's flag has fallen: White wins on time.");
    assert_eq!(card("b4")["status"], "White to move");

    // Board 3's rulings read whole: the irregularities, and the penalties
    // they cost, each under its heading in the board's words.
    let b3 = read_page(relay_port, "/board/b3");
    let b3_feed: Value = serde_json::from_str(&get(relay_port, "/api/game/b3").unwrap()).unwrap();
    let words: Vec<&str> =
        b3_feed["irregularities"].as_array().unwrap().iter().map(|r| r["text"].as_str().unwrap()).collect();
    let rulings = b3["rulings"].as_array().unwrap();
    assert!(rulings.iter().any(|r| r["kind"] == "irregularity"), "{b3}");
    assert!(rulings.iter().any(|r| r["kind"] == "penalty" && r["text"].as_str().unwrap().contains(" gets ")), "{b3}");
    assert_eq!(rulings.len(), words.len(), "{b3}");
    for (r, said) in rulings.iter().zip(words) {
        let text = r["text"].as_str().unwrap();
        let (_, after) = text.split_once(": ").unwrap_or_else(|| panic!("{r}"));
        assert_eq!(after, said, "the page shows the board's words: {r}");
        assert!(after.trim().len() > 3, "a ruling that says nothing: {r}");
    }
    assert_eq!(b3["status"], "Result 0–1. White's second illegal move: Black wins.");

    // The relay's feed: team tags, the score, only the real games.
    let pgn = get(relay_port, "/games.pgn").unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 5, "{pgn}");
    assert!(pgn.contains("[MatchScore \"Oakfield 2 - 1 Riverside\"]"), "{pgn}");

    // The arbiter's view, acting through the relay on board 4's daemon.
    node("arbiter.mjs", &[&format!("http://127.0.0.1:{relay_port}"), "s3cret-arbiter", "--live", "b4", "--over", "b1"]);
    let b4_feed: Value = serde_json::from_str(&get(relay_port, "/api/game/b4").unwrap()).unwrap();
    let penalties: Vec<&Value> =
        b4_feed["irregularities"].as_array().unwrap().iter().filter(|e| e["event"] == "penalty").collect();
    assert_eq!(penalties.len(), 1, "the sealed control reached board 4's daemon once: {b4_feed}");
    assert_eq!((penalties[0]["article"].as_str(), penalties[0]["ms"].as_u64()), (Some("12"), Some(60_000)));
    b4.say("end");
}

#[test]
fn a_relay_without_a_hall_key_says_plainly_it_cannot_tell_boards_from_strangers() {
    require_browser();
    let dir = tempdir("nokey");
    let (broker_port, relay_port) = (free_port(), free_port());
    let _broker = mosquitto(broker_port, &dir);
    let mut relay = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .current_dir(root())
        .args(["relay", "--broker", &format!("127.0.0.1:{broker_port}"), "--hall", "club"])
        .args(["--http", &format!("127.0.0.1:{relay_port}")])
        .env("TACTUS_TOKEN", "tok")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = BufReader::new(relay.stderr.take().unwrap());
    let _relay = Guard(relay);
    let mut lines = String::new();
    while !lines.contains("no hall key") {
        assert!(said.read_line(&mut lines).unwrap() > 0, "the relay ended without a word: {lines}");
    }
    assert!(lines.contains("cannot tell the hall's boards from strangers"), "{lines}");
    wait_for("the relay's page", Duration::from_secs(10), || get(relay_port, "/api/hall").is_some());
    let page = read_page(relay_port, "/");
    assert!(page["trust"].as_str().is_some_and(|t| t.contains("no hall key")), "{page}");
    let (status, body) = request(relay_port, "POST", "/api/game/x/pause", "Authorization: Bearer tok\r\n", "").unwrap();
    assert_eq!(status, 404, "{body}");
}

#[test]
fn the_arbiter_token_comes_from_a_file_or_the_environment() {
    let dir = tempdir("token");
    let token = secret(&dir, "token", "s3cret\n");
    for (i, from_file) in [true, false].into_iter().enumerate() {
        let port = free_port();
        let mut c = Command::new(env!("CARGO_BIN_EXE_tactus"));
        c.current_dir(root())
            .arg("run")
            .arg("--config")
            .arg(empty_config())
            .args(["--board", "sim", "--voice", "none", "--board-id", "b1", "--state-dir"])
            .arg(dir.join(format!("state{i}")))
            .arg("--http")
            .arg(format!("127.0.0.1:{port}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if from_file {
            c.arg("--token-file").arg(&token);
        } else {
            c.env("TACTUS_TOKEN", "s3cret");
        }
        let _daemon = Guard(c.spawn().unwrap());
        wait_for("the daemon's page", Duration::from_secs(10), || get(port, "/api/hall").is_some());
        let post = |auth: &str| {
            let headers = format!("Content-Type: application/json\r\n{auth}");
            request(port, "POST", "/api/game/b1/penalty", &headers, r#"{"side":"white","ms":60000}"#).unwrap().0
        };
        assert_eq!(post(""), 401, "no token");
        assert_eq!(post("Authorization: Bearer guess\r\n"), 403, "wrong token");
        assert_eq!(post("Authorization: Bearer s3cret\r\n"), 202, "right token");
        // The accepted penalty reached the game: White's clock got a minute.
        wait_for("the penalty in the game", Duration::from_secs(10), || {
            get(port, "/api/game/b1").is_some_and(|g| g.contains("\"penalty\""))
        });
    }
}

#[test]
fn chromium_shows_the_engines_view_in_a_game_no_arbiter_supervises() {
    require_browser();
    let stockfish = Path::new("/usr/games/stockfish");
    assert!(stockfish.exists(), "Stockfish is installed by ./setup (apt-get install stockfish)");
    let dir = tempdir("engine-view");
    let port = free_port();
    let config = dir.join("tactus.toml");
    std::fs::write(
        &config,
        "[game]\ntime_control = \"-\"\nsupervision = \"unsupervised\"\n\n[engine]\npath = \"/usr/games/stockfish\"\nlevel = 10\nthink_ms = 100\n",
    )
    .unwrap();
    let mut board = Typed::start(
        Command::new(env!("CARGO_BIN_EXE_tactus"))
            .current_dir(root())
            .arg("run")
            .arg("--config")
            .arg(&config)
            .args(["--board", "sim", "--voice", "none", "--board-id", "b1", "--state-dir"])
            .arg(dir.join("state"))
            .arg("--http")
            .arg(format!("127.0.0.1:{port}"))
            .stderr(Stdio::null()),
    );
    wait_for("the daemon's page", Duration::from_secs(10), || get(port, "/api/hall").is_some());
    board.say("e2 e4");
    board.say("w");
    wait_for("the engine's view in the game's state", Duration::from_secs(60), || {
        get(port, "/api/game/b1").is_some_and(|g| g.contains("\"engine\""))
    });
    let page = read_page(port, "/board/b1");
    let shown = page["engine"].as_str().unwrap();
    assert!(shown.starts_with("Engine: ") && shown.contains(" after "), "{page}");
}

/// The moves a relay shows for a board, once it shows the board.
fn relayed_moves(port: u16, board: &str) -> Option<usize> {
    let game: Value = serde_json::from_str(&get(port, &format!("/api/game/{board}"))?).ok()?;
    game["moves"].as_array().map(Vec::len)
}

/// The broker killed in the middle of a game and started again: the game
/// goes on meanwhile (the daemon's events keep coming), the relay has every
/// move once the broker is back, having connected again once; and with the
/// broker dead, SIGTERM ends the daemon within 2 s.
#[test]
fn a_game_goes_on_while_the_broker_is_away_and_the_relay_catches_up() {
    let dir = tempdir("broker-away");
    let (broker_port, relay_port) = (free_port(), free_port());
    let broker = mosquitto(broker_port, &dir);
    let address = format!("127.0.0.1:{broker_port}");
    let key = secret(&dir, "hall.key", "the club's hall key, shared by its boards\n");
    let relay_log = dir.join("relay.log");
    let _relay = Guard(
        Command::new(env!("CARGO_BIN_EXE_tactus"))
            .args(["relay", "--broker", &address, "--hall", "club", "--http", &format!("127.0.0.1:{relay_port}")])
            .arg("--hall-key")
            .arg(&key)
            .stderr(std::fs::File::create(&relay_log).unwrap())
            .spawn()
            .unwrap(),
    );
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("run")
        .arg("--config")
        .arg(empty_config())
        .args(["--board", "sim", "--voice", "none", "--hall", "club", "--mqtt", &address, "--board-id", "b1"])
        .args(["--time-control", "5400+30", "--events", "-"])
        .arg("--hall-key")
        .arg(&key)
        .arg("--state-dir")
        .arg(dir.join("state"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.join("daemon.log")).unwrap())
        .spawn()
        .unwrap();
    let events = common::EventStream::of(&mut daemon);
    let mut stdin = daemon.stdin.take().unwrap();
    let mut daemon = Guard(daemon);
    let mut play = |lift_place: &str, press: &str| {
        writeln!(stdin, "{lift_place}\n{press}").unwrap();
        stdin.flush().unwrap();
        events.next("complete");
    };
    let relayed = |n: usize| {
        wait_for(&format!("{n} moves in the relay"), Duration::from_secs(30), || {
            relayed_moves(relay_port, "b1") == Some(n)
        })
    };
    play("e2 e4", "w");
    relayed(1);

    drop(broker);
    play("e7 e5", "b");
    play("g1 f3", "w");
    let broker = mosquitto(broker_port, &dir);
    relayed(3);
    let connections =
        std::fs::read_to_string(&relay_log).unwrap().matches("relay connected to the MQTT broker").count();
    assert_eq!(connections, 2, "the relay connected, and connected again once the broker was back");

    // Away again, for more moves than the MQTT client takes while it
    // cannot send (64 changes): the board's own queue holds the rest.
    drop(broker);
    let moves = [
        "b8 c6", "f1 c4", "f8 c5", "d2 d3", "d7 d6", "b1 c3", "g8 f6", "h2 h3", "h7 h6", "a2 a3", "a7 a6", "c1 e3",
        "c8 e6", "d1 d2", "d8 d7", "a1 b1", "a8 b8", "b2 b4", "b7 b5", "g2 g3", "g7 g6", "a3 a4", "a6 a5",
    ];
    for (i, m) in moves.into_iter().enumerate() {
        play(m, if i % 2 == 0 { "b" } else { "w" });
    }
    let asked = Instant::now();
    assert!(signal("-TERM", daemon.0.id()));
    let status = daemon.0.wait().unwrap();
    let took = asked.elapsed();
    assert!(status.success(), "the daemon stopped the orderly way: {status}");
    eprintln!("SIGTERM to exit, with the broker dead: {took:?}");
    assert!(took < Duration::from_secs(2), "SIGTERM with the broker dead took {took:?}");
}
