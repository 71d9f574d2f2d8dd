//! The hall on Lichess, end to end: real daemons playing real games on sim
//! boards, a real mosquitto with a hall key, the real relay pushing to a
//! Lichess test server written from Lichess's published API reference
//! (crates/lichess/tests/server), which reads every pushed game strictly
//! with python-chess; and the arbiter's page in Debian's Chromium.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

mod common;
use common::http::request;
use common::lichess::LichessServer;
use common::page::{read_page, require_browser};
use common::{EventStream, Guard, Typed, free_port, hall, root, secret, tempdir, wait_for};

const STUDY_TOKEN: &str = "lip_study_test";
const ROUND: &str = "Round001";
/// The pause a 429 asks for: Lichess's own rule, and the client's default.
const PAUSE_S: f64 = 60.0;

fn get_json(port: u16, path: &str) -> Option<Value> {
    let (status, body) = request(port, "GET", path, "", "")?;
    (status == 200).then(|| serde_json::from_str(&body).ok()).flatten()
}

fn unix_s() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

/// The Lichess test server, with a token of each scope.
fn lichess() -> LichessServer {
    LichessServer::start(&[&format!("{STUDY_TOKEN}=study:write"), "lip_board_test=board:play"])
}

/// Each board's last pushed game, by its `Board` tag.
fn last_pushed(pushes: &[Value]) -> std::collections::BTreeMap<u32, Value> {
    let mut last = std::collections::BTreeMap::new();
    for push in pushes {
        for g in push["games"].as_array().unwrap() {
            if let Some(board) = g["tags"]["Board"].as_str().and_then(|b| b.parse().ok()) {
                last.insert(board, g.clone());
            }
        }
    }
    last
}

fn relay(dir: &Path, broker: &str, http: u16, key: &Path, extra: &[&str]) -> Guard {
    let token = secret(dir, "lichess.token", &format!("{STUDY_TOKEN}\n"));
    let arbiter = secret(dir, "arbiter.token", "s3cret-arbiter\n");
    Guard(
        Command::new(env!("CARGO_BIN_EXE_tactus"))
            .current_dir(root())
            .args(["relay", "--broker", broker, "--hall", "club", "--http", &format!("127.0.0.1:{http}")])
            .arg("--hall-key")
            .arg(key)
            .arg("--token-file")
            .arg(arbiter)
            .arg("--lichess-token-file")
            .arg(token)
            .args(extra)
            .stderr(std::fs::File::create(dir.join("relay.log")).unwrap())
            .spawn()
            .unwrap(),
    )
}

/// A daemon on a sim board in the hall.
fn daemon(dir: &Path, broker: &str, key: &Path, id: &str, config: &str) -> Command {
    let config_file = dir.join(format!("{id}.toml"));
    std::fs::write(&config_file, config).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_tactus"));
    c.arg("run")
        .arg("--config")
        .arg(config_file)
        .args(["--board", "sim", "--voice", "none", "--hall", "club", "--mqtt", broker, "--board-id", id])
        .arg("--hall-key")
        .arg(key)
        .arg("--state-dir")
        .arg(dir.join(id))
        .stderr(std::fs::File::create(dir.join(format!("{id}.log"))).unwrap());
    c
}

/// The moves a relay shows for a board.
fn relayed_moves(port: u16, board: &str) -> usize {
    get_json(port, &format!("/api/game/{board}")).and_then(|g| g["moves"].as_array().map(Vec::len)).unwrap_or(0)
}

/// The dozen recorded games of the fixtures that end with a result (mate,
/// or a second illegal move), each played in about a minute and a half.
const GAMES: [(&str, &str); 12] = [
    ("b1", "realistic/realistic-0008"),
    ("b2", "realistic/realistic-0002"),
    ("b3", "irregular/irregular-0005"),
    ("b4", "irregular/irregular-0007"),
    ("b5", "irregular/irregular-0002"),
    ("b6", "irregular/irregular-0010"),
    ("b7", "hourglass/clean-0002"),
    ("b8", "hourglass/clean-0003"),
    ("b9", "chess960/realistic-0001"),
    ("b10", "chess960/realistic-0002"),
    ("b11", "chess960/realistic-0003"),
    ("b12", "chess960/realistic-0004"),
];
const GAME_SECONDS: f64 = 90.0;

/// The issue's "done when": a hall of a dozen sim boards playing real
/// games, through a real mosquitto with a hall key, ends with each board's
/// game pushed whole (moves, clocks, result) to the test server, every
/// pushed game strict; a 429 in the middle of play, after which nothing is
/// pushed for a minute (Lichess's own rule, kept real here: the test takes
/// about two minutes) while the relay goes on following the hall; pushes at
/// most two a second. A thirteenth board is typed at and its result set by
/// the arbiter through the relay; its players' FIDE IDs, titles and ratings
/// come from its config. The figures (a move to the first push holding it)
/// are printed, not asserted.
#[test]
fn a_hall_of_a_dozen_sim_boards_is_pushed_whole_to_lichess() {
    let dir = tempdir("hall");
    let relay_port = free_port();
    let (_broker, broker, key) = hall(&dir);
    let lichess = lichess();
    let teams = dir.join("teams.toml");
    std::fs::write(
        &teams,
        "[[match]]\nname = \"Club match\"\nwhite_on_odd_boards_for = \"home\"\n\
         [match.home]\nname = \"Oakfield\"\nboards = [\"b1\", \"b2\", \"b3\", \"b4\"]\n[match.away]\nname = \"Riverside\"\n",
    )
    .unwrap();
    let teams = teams.display().to_string();
    let _relay = relay(
        &dir,
        &broker,
        relay_port,
        &key,
        &["--lichess-broadcast", ROUND, "--lichess-url", &lichess.url, "--teams", &teams],
    );
    wait_for("the relay's page", Duration::from_secs(10), || get_json(relay_port, "/api/lichess").is_some());

    // Each board's completed moves, as its daemon says them, with the wall time.
    let moves: Arc<Mutex<Vec<(u32, u64, f64)>>> = Arc::default();
    let mut daemons = Vec::new();
    for (id, trace) in GAMES {
        let path = root().join(format!("tests/traces/{trace}.trace.jsonl"));
        let text = std::fs::read_to_string(&path).unwrap();
        let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        let speed = last["t"].as_f64().unwrap() / 1000.0 / GAME_SECONDS;
        let mut c = daemon(&dir, &broker, &key, id, "");
        c.args(["--sim-speed", &format!("{speed:.3}"), "--events", "-", "--sim-trace"]).arg(&path);
        let mut child = c.stdout(Stdio::piped()).spawn().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (moves, number) = (moves.clone(), id[1..].parse::<u32>().unwrap());
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                let ev: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
                if ev["event"] == "complete" {
                    moves.lock().unwrap().push((number, ev["ply"].as_u64().unwrap(), unix_s()));
                }
            }
        });
        daemons.push(Guard(child));
    }
    let b13_config = "[game]\nwhite = \"Ann Example\"\nblack = \"Bo Sample\"\nevent = \"Club night\"\nround = \"3\"\n\
                      white_fide_id = 1503014\nwhite_title = \"IM\"\nwhite_elo = 2401\nblack_fide_id = 24101605\nblack_elo = 1987\n";
    let mut b13 = Typed::start(&mut daemon(&dir, &broker, &key, "b13", b13_config));

    // A few pushes in, Lichess asks to slow down.
    lichess.wait_pushes(12);
    lichess.control("POST", "/_test/fault", &json!({"path": "/push$", "status": 429}));
    // Meanwhile the arbiter ends board 13's game: two moves, then a draw agreed.
    for (lift_place, press) in [("e2 e4", "w"), ("e7 e5", "b")] {
        b13.say(lift_place);
        b13.say(press);
    }
    wait_for("board 13's moves in the relay", Duration::from_secs(30), || relayed_moves(relay_port, "b13") == 2);
    let (status, body) = request(
        relay_port,
        "POST",
        "/api/game/b13/result",
        "Authorization: Bearer s3cret-arbiter\r\nContent-Type: application/json\r\n",
        r#"{"result": "1/2-1/2", "reason": "agreement"}"#,
    )
    .unwrap();
    assert_eq!(status, 202, "{body}");

    // The 429 came; in its pause the relay goes on following the hall, and
    // its page says that Lichess asked to wait.
    wait_for("the 429", Duration::from_secs(60), || {
        get_json(relay_port, "/api/lichess").is_some_and(|s| s["paused_until_unix_ms"].is_u64())
    });
    let total = || GAMES.iter().map(|(id, _)| relayed_moves(relay_port, id)).sum::<usize>();
    let at_429 = total();
    wait_for("moves in the relay during the pause", Duration::from_secs(50), || total() > at_429);
    let still: Value = get_json(relay_port, "/api/lichess").unwrap();
    let now_ms = (unix_s() * 1000.0) as u64;
    assert!(still["paused_until_unix_ms"].as_u64() > Some(now_ms), "still paused: {still}");

    // Every game pushed as it ended.
    let expected: Vec<(u32, Value)> = GAMES
        .iter()
        .map(|(id, trace)| {
            let text = std::fs::read_to_string(root().join(format!("tests/traces/{trace}.expect.json"))).unwrap();
            (id[1..].parse().unwrap(), serde_json::from_str(&text).unwrap())
        })
        .collect();
    let done = |last: &std::collections::BTreeMap<u32, Value>| {
        expected
            .iter()
            .all(|(n, e)| last.get(n).is_some_and(|p| p["moves"] == e["moves"] && p["tags"]["Result"] == e["result"]))
            && last.get(&13).is_some_and(|p| p["tags"]["Result"] == "1/2-1/2")
    };
    let end = Instant::now() + Duration::from_secs(240);
    let pushes = loop {
        let pushes = lichess.pushes();
        if done(&last_pushed(&pushes)) {
            break pushes;
        }
        let last = last_pushed(&pushes);
        assert!(Instant::now() < end, "not every game was pushed whole: {:#?}", last);
        lichess.wait_pushes(pushes.len() + 1);
    };
    for d in &mut daemons {
        let _ = d.0.wait();
    }

    // Every pushed game read strictly, in the one round.
    for push in &pushes {
        assert_eq!(push["round"], ROUND);
        for g in push["games"].as_array().unwrap() {
            assert!(g.get("error").is_none(), "a pushed game python-chess could not read exactly: {g}");
        }
    }
    let last = last_pushed(&pushes);
    for (n, e) in &expected {
        let p = &last[n];
        // Every move has its clock (the server refuses a game without);
        // those the fixture knows are the clock's readings to the second.
        let clocks = p["clocks"].as_array().unwrap();
        assert_eq!(clocks.len(), e["moves"].as_array().unwrap().len(), "board {n}");
        for (pushed, want) in clocks.iter().zip(e["clocks"].as_array().unwrap()) {
            assert_eq!(pushed.as_f64(), Some((want["ms"].as_i64().unwrap() / 1000) as f64), "board {n}: {want}");
        }
        // The rulings of the irregular games are their moves' comments.
        if !e["irregularities"].as_array().unwrap().is_empty() {
            let comments = p["comments"].to_string();
            assert!(comments.contains("7.5."), "board {n}'s rulings as comments: {comments}");
        }
        let board_tag = p["tags"]["Board"].as_str().unwrap().parse::<u32>().unwrap();
        assert_eq!(board_tag, *n, "the board's number is its place in the match, or its id's number");
    }
    for n in 1..=4 {
        assert_eq!(last[&n]["tags"]["WhiteTeam"], if n % 2 == 1 { "Oakfield" } else { "Riverside" }, "board {n}");
    }
    let t13 = &last[&13]["tags"];
    assert_eq!(last[&13]["moves"], json!(["e4", "e5"]));
    assert_eq!(
        (&t13["White"], &t13["Event"], &t13["Round"]),
        (&json!("Ann Example"), &json!("Club night"), &json!("3"))
    );
    assert_eq!(
        (&t13["WhiteFideId"], &t13["WhiteTitle"], &t13["WhiteElo"], &t13["BlackFideId"], &t13["BlackElo"]),
        (&json!("1503014"), &json!("IM"), &json!("2401"), &json!("24101605"), &json!("1987"))
    );
    assert!(t13.get("BlackTitle").is_none(), "{t13}");

    // After the 429, no push for a minute; pushes at most two a second, a
    // second apart at least (one round).
    let log = lichess.log();
    let push_times: Vec<(f64, Value)> = log
        .iter()
        .filter(|e| e["path"].as_str().unwrap().ends_with("/push"))
        .map(|e| (e["t"].as_f64().unwrap(), e["status"].clone()))
        .collect();
    let i429 = push_times.iter().position(|(_, s)| *s == 429).expect("the 429 was answered");
    let (t429, next) = (push_times[i429].0, push_times[i429 + 1].0);
    eprintln!("the push after the 429 came {:.3} s after it", next - t429);
    assert!(next - t429 >= PAUSE_S - 0.05, "a push {:.3} s after the 429", next - t429);
    for part in [&push_times[..=i429], &push_times[i429 + 1..]] {
        let span = part.last().unwrap().0 - part[0].0;
        assert!((part.len() - 1) as f64 / span.max(1.0) <= 2.0, "{} pushes in {span:.1} s", part.len());
        for w in part.windows(2) {
            assert!(w[1].0 - w[0].0 >= 0.9, "two pushes {:.3} s apart", w[1].0 - w[0].0);
        }
    }
    let status = get_json(relay_port, "/api/lichess").unwrap();
    assert!(status["failing"].is_null() && status["boards"].as_array().unwrap().iter().all(|b| b["error"].is_null()));
    let said = std::fs::read_to_string(dir.join("relay.log")).unwrap();
    assert!(!said.contains(STUDY_TOKEN), "the token is never logged:\n{said}");

    // The figures: a move to the first push that holds it (wall clocks of
    // one machine), leaving out the moves made during the pause.
    let pushed_at = |board: u32, ply: u64| {
        pushes.iter().find_map(|p| {
            let holds = p["games"].as_array().unwrap().iter().any(|g| {
                g["tags"]["Board"].as_str() == Some(&board.to_string())
                    && g["moves"].as_array().is_some_and(|m| m.len() as u64 >= ply)
            });
            holds.then(|| p["wall"].as_f64().unwrap())
        })
    };
    let paused_from = pushes.iter().filter(|p| p["t"].as_f64().unwrap() < t429).count();
    let pause_wall = (pushes[paused_from - 1]["wall"].as_f64().unwrap(), pushes[paused_from]["wall"].as_f64().unwrap());
    let delays: Vec<f64> = moves
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, _, at)| *at < pause_wall.0 || *at > pause_wall.1)
        .filter_map(|&(b, ply, at)| pushed_at(b, ply).map(|t| t - at))
        .collect();
    let delays = tactus_stats::Sorted::new(delays);
    let at = |p| delays.percentile(p).expect("moves were pushed");
    let bytes: Vec<u64> = pushes.iter().map(|p| p["bytes"].as_u64().unwrap()).collect();
    eprintln!(
        "move → first push holding it: n={} p50 {:.3} s p95 {:.3} s max {:.3} s; {} pushes, {} to {} bytes",
        delays.len(),
        at(50),
        at(95),
        at(100),
        pushes.len(),
        bytes.iter().min().unwrap(),
        bytes.iter().max().unwrap()
    );
}

/// A game Lichess refuses is logged and shown on the arbiter's page with
/// its board, as is a board the relay cannot number; a board Lichess took
/// says which board of which round it is.
#[test]
fn a_game_lichess_refuses_is_shown_on_the_arbiter_page_with_its_board() {
    require_browser();
    let dir = tempdir("refused");
    let relay_port = free_port();
    let (_broker, broker, key) = hall(&dir);
    let lichess = lichess();
    // Lichess refuses board 7's game every time (the reply's shape is the
    // push endpoint's: one entry per game pushed, in order).
    let refusal = "Cannot find the player Seven in the round";
    let reply = json!({"games": [{"tags": {"Board": "7"}, "error": refusal}]});
    lichess.control("POST", "/_test/fault", &json!({"path": "/push$", "status": 200, "body": reply, "count": 1000}));
    let _relay = relay(&dir, &broker, relay_port, &key, &["--lichess-broadcast", ROUND, "--lichess-url", &lichess.url]);
    let mut b7 = Typed::start(&mut daemon(&dir, &broker, &key, "b7", "[game]\nwhite = \"Seven\"\n"));
    let _alpha = Typed::start(&mut daemon(&dir, &broker, &key, "alpha", ""));
    b7.say("e2 e4");
    b7.say("w");
    let mut status = Value::Null;
    wait_for("both boards' errors", Duration::from_secs(60), || {
        status = get_json(relay_port, "/api/lichess").unwrap_or(Value::Null);
        status["boards"].as_array().is_some_and(|b| b.len() == 2 && b.iter().all(|b| b["error"].is_string()))
    });
    let boards = status["boards"].as_array().unwrap();
    assert_eq!(
        (&boards[0]["board"], &boards[0]["number"], &boards[0]["round"]),
        (&json!("b7"), &json!(7), &json!(ROUND))
    );
    assert_eq!(boards[0]["error"], refusal);
    assert_eq!((&boards[1]["board"], &boards[1]["number"]), (&json!("alpha"), &Value::Null));
    assert!(boards[1]["error"].as_str().unwrap().contains("no number"), "{status}");

    let page = read_page(relay_port, "/arbiter", &["--wait", "section.lichess[data-loaded=\"1\"]"]);
    let shown = &page["lichess"];
    assert!(shown["status"].as_str().unwrap().starts_with("Pushed to Lichess at "), "{shown}");
    assert_eq!(shown["rounds"], "Round Round001=1-100; 2 boards.", "{shown}");
    let refused = shown["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 2, "{shown}");
    let on =
        |id: &str| refused.iter().find(|r| r["board"] == id).unwrap_or_else(|| panic!("{id}: {shown}"))["text"].clone();
    assert!(on("b7").as_str().unwrap().ends_with(refusal), "{shown}");
    assert!(on("alpha").as_str().unwrap().contains("no number"), "{shown}");
    let panel =
        |id: &str| page["boards"].as_array().unwrap().iter().find(|b| b["id"] == id).unwrap()["lichess"].clone();
    assert_eq!(panel("b7"), format!("Lichess: {refusal}"));

    let said = std::fs::read_to_string(dir.join("relay.log")).unwrap();
    assert!(said.contains(refusal) && said.contains("board 7"), "the refusal is logged: {said}");
    assert!(said.contains("\"alpha\" is not pushed"), "{said}");

    // Lichess takes the game once the player is found: the error goes, and
    // the board's panel says where the game is.
    lichess.control("POST", "/_test/fault", &json!({"clear": true}));
    b7.say("e7 e5");
    b7.say("b");
    wait_for("board 7 taken", Duration::from_secs(60), || {
        get_json(relay_port, "/api/lichess").is_some_and(|s| s["boards"][0]["error"].is_null())
    });
    let page = read_page(relay_port, "/arbiter", &["--wait", "section.lichess[data-loaded=\"1\"]"]);
    let panel =
        |id: &str| page["boards"].as_array().unwrap().iter().find(|b| b["id"] == id).unwrap()["lichess"].clone();
    assert_eq!(panel("b7"), "Lichess: board 7 of round Round001.");
    assert_eq!(page["lichess"]["refused"].as_array().unwrap().len(), 1, "alpha's stays: {page}");
}

/// Two boards playing one game (a two-board pair) are pushed to Lichess as
/// their one game, numbered as White's board, with the moves made on both.
#[test]
fn a_pair_of_boards_is_pushed_as_one_game() {
    let dir = tempdir("pair-broadcast");
    let relay_port = free_port();
    let (_broker, broker, key) = hall(&dir);
    let lichess = lichess();
    let _relay = relay(&dir, &broker, relay_port, &key, &["--lichess-broadcast", ROUND, "--lichess-url", &lichess.url]);
    let pair = |with: &str, plays: &str| format!("[pair]\nwith = \"{with}\"\nplays = \"{plays}\"\n");
    let start = |id: &str, config: &str| {
        let mut child = daemon(&dir, &broker, &key, id, config)
            .args(["--events", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let events = EventStream::of(&mut child);
        (Typed::of(child), events)
    };
    let (mut white, white_events) = start("b3", &pair("b4", "white"));
    let (mut black, black_events) = start("b4", &pair("b3", "black"));
    wait_for("the pair in the relay", Duration::from_secs(30), || {
        get_json(relay_port, "/api/hall")
            .is_some_and(|h| h["boards"].as_array().is_some_and(|b| b.len() == 1 && b[0]["id"] == "b3+b4"))
    });
    white.say("e2 e4");
    white.say("w");
    assert_eq!(black_events.next("opponent_move")["uci"], "e2e4");
    black.say("e2 e4");
    assert_eq!(black_events.next("complete")["uci"], "e2e4", "carried out on Black's board");
    black.say("e7 e5");
    black.say("b");
    assert_eq!(white_events.next("opponent_move")["uci"], "e7e5");
    let end = Instant::now() + Duration::from_secs(60);
    let last = loop {
        let pushes = lichess.pushes();
        let last = last_pushed(&pushes);
        if last.get(&3).is_some_and(|g| g["moves"] == json!(["e4", "e5"])) {
            break last;
        }
        assert!(Instant::now() < end, "the pair's game was not pushed whole: {last:#?}");
        lichess.wait_pushes(pushes.len() + 1);
    };
    assert_eq!(last.keys().collect::<Vec<_>>(), [&3], "one game, numbered as White's board: {last:#?}");
}
