//! The daemon end to end with the simulated board: what it announces, what
//! it journals, and that a SIGKILL at any instant loses no completed move.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

mod common;
use common::{EventStream, empty_config, fixture, tactus_run, tempdir};

/// The daemon on the sim board playing `trace` at `speed`, its events piped.
fn daemon(trace: &Path, speed: &str, state: &Path) -> Child {
    sim_trace(trace, speed, state).spawn().expect("tactus runs")
}

/// `tactus run` on the sim board playing `trace` at `speed`.
fn sim_trace(trace: &Path, speed: &str, state: &Path) -> Command {
    let mut c = tactus_run(&empty_config(), state);
    c.args(["--board", "sim", "--sim-trace"]).arg(trace).args(["--sim-speed", speed]);
    c
}

/// `trace` played to its end at 1000×, with `more` arguments: the daemon's
/// exit, events and log.
fn played(trace: &Path, state: &Path, more: &[&str]) -> std::process::Output {
    sim_trace(trace, "1000", state).args(more).stderr(Stdio::piped()).output().unwrap()
}

/// The daemon on a typed sim board completed by a serial clock (the
/// simulated one at `clock`), its events piped.
fn with_serial_clock(clock: &Path, state: &Path) -> Child {
    tactus_run(&empty_config(), state)
        .args(["--board", "sim", "--clock", "open", "--clock-path"])
        .arg(clock)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Reads the daemon's events as they come; `complete` ones land in `done`.
fn collect(child: &mut Child, done: Arc<Mutex<BTreeMap<u64, String>>>) -> std::thread::JoinHandle<Vec<Value>> {
    collect_told(child, done, std::sync::mpsc::channel().0)
}

/// [`collect`], telling `first` when the first event comes.
fn collect_told(
    child: &mut Child,
    done: Arc<Mutex<BTreeMap<u64, String>>>,
    first: std::sync::mpsc::Sender<()>,
) -> std::thread::JoinHandle<Vec<Value>> {
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        let mut all = Vec::new();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let v: Value = serde_json::from_str(&line).expect("each line is one JSON event");
            let _ = first.send(());
            if v["event"] == "start" {
                // A new game (a recovered one begins with `paused` instead):
                // the one before ended, perhaps just before a kill.
                done.lock().unwrap().clear();
            }
            if v["event"] == "complete" {
                done.lock().unwrap().insert(v["ply"].as_u64().unwrap(), v["san"].as_str().unwrap().to_string());
            }
            all.push(v);
        }
        all
    })
}

/// The game the journal holds, replayed: SAN per ply.
fn journaled(state: &Path) -> Vec<String> {
    // The game being played is named in `current`; a finished one is the
    // newest (a kill between creating a journal and naming it leaves one
    // with its header only). A kill before the board was open, or before
    // the first journal had its name, left none.
    let path = match std::fs::read_to_string(state.join("current")) {
        Ok(name) => state.join(name.trim()),
        Err(_) => {
            let games = state.join("games");
            let Ok(files) = std::fs::read_dir(&games) else { return Vec::new() };
            let files = files.map(|e| e.unwrap().path()).filter(|p| p.to_string_lossy().ends_with(".trace.jsonl"));
            match files.max_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap()) {
                Some(newest) => newest,
                None => return Vec::new(),
            }
        }
    };
    let text = std::fs::read_to_string(path).unwrap();
    // A torn last line is what recovery cuts; the test reads what it would.
    let text = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    let r = tactus_core::replay::replay(text.as_bytes(), tactus_core::Policy::default()).unwrap();
    r.session.game().played.iter().map(|p| p.info.san.clone()).collect()
}

#[test]
fn the_sim_board_plays_a_game_through_the_daemon() {
    let state = tempdir("play");
    let trace = fixture("irregular/irregular-0002.trace.jsonl");
    let mut child = daemon(&trace, "200", &state);
    let done = Arc::new(Mutex::new(BTreeMap::new()));
    let events = collect(&mut child, done.clone());
    assert!(child.wait().unwrap().success());
    let events = events.join().unwrap();
    let expected = tactus_core::replay::replay(
        std::io::BufReader::new(std::fs::File::open(&trace).unwrap()),
        tactus_core::Policy::default(),
    )
    .unwrap();
    let want: Vec<String> = expected.session.game().played.iter().map(|p| p.info.san.clone()).collect();
    let got: Vec<String> = done.lock().unwrap().values().cloned().collect();
    assert_eq!(got, want, "the daemon announces the same game as a replay");
    let ruling = events.iter().find(|e| e["event"] == "irregularity" && e["article"] == "7.5.1").expect("a ruling");
    // Its `detail` in the speech crate's words (English by default).
    let mut data = ruling.clone();
    let detail = data.as_object_mut().unwrap().remove("detail").expect("a ruling's detail");
    let event: tactus_core::Event = serde_json::from_value(data).unwrap();
    let words = tactus_speech::Scribe::natural(tactus_speech::Lang::En).write(&event).unwrap();
    assert_eq!(detail, words.as_str());
    assert_eq!(events.last().unwrap()["event"], "game_over");
    assert!(!state.join("current").exists(), "a finished game is not left to recover");
    assert_eq!(journaled(&state), want, "the journal replays to the same game");
}

/// What a run announced that must never be announced again in the same
/// game: each move (by ply and game time), each completion, the result.
fn announcements(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| ["move", "complete", "game_over"].contains(&e["event"].as_str().unwrap_or("")))
        .map(|e| format!("{} ply {} at {}", e["event"], e["ply"], e["t"]))
        .collect()
}

#[test]
fn sigkill_at_a_hundred_random_instants_loses_no_completed_move_and_says_nothing_twice() {
    let state = tempdir("crash");
    let trace = fixture("irregular/irregular-0002.trace.jsonl");
    let done = Arc::new(Mutex::new(BTreeMap::new()));
    // A fixed seed: the instants are random but the test is repeatable.
    let mut seed: u64 = 0x5eed_cafe;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut kills = 0;
    let mut checked = 0;
    let mut said: std::collections::HashSet<String> = std::collections::HashSet::new();
    while kills < 100 {
        let mut child = daemon(&trace, "300", &state);
        let (first, began) = std::sync::mpsc::channel();
        let reader = collect_told(&mut child, done.clone(), first);
        // One kill in four falls while the daemon starts; the others after
        // its first event, so that on a slow or loaded machine they still
        // fall while moves are completed.
        let roll = next();
        if roll % 4 != 0 {
            let _ = began.recv_timeout(Duration::from_secs(60));
        }
        let after = Duration::from_millis(5 + (roll >> 2) % 300);
        std::thread::sleep(after);
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            kills += 1;
        }
        child.wait().unwrap();
        // The game may have ended just before the kill.
        let events = reader.join().unwrap();
        let finished = events.iter().any(|e| e["event"] == "game_over");
        if events.first().is_some_and(|e| e["event"] == "start") {
            // A new game, not a recovered one (that begins with `paused`):
            // the last one ended, its result on disk, just before the kill
            // that kept it off the output.
            said.clear();
        }
        for a in announcements(&events) {
            assert!(said.insert(a.clone()), "after kill {kills}: {a} was announced a second time");
        }
        let game = journaled(&state);
        checked += done.lock().unwrap().len();
        for (ply, san) in done.lock().unwrap().iter() {
            assert_eq!(
                game.get(*ply as usize - 1),
                Some(san),
                "after kill {kills}: ply {ply} was announced as completed but the journal has {:?}",
                game.get(*ply as usize - 1)
            );
        }
        if finished {
            // The game ran to its end before the kill: start the game again.
            let _ = std::fs::remove_dir_all(&state);
            std::fs::create_dir_all(&state).unwrap();
            done.lock().unwrap().clear();
            said.clear();
        }
    }
    assert!(checked > 1000, "the kills fell where moves were being completed: {checked} checks");
}

#[test]
fn moves_typed_on_the_sim_board_are_completed_by_a_serial_clock() {
    use std::io::Write as _;
    use tactus_clockdev::DeviceKind;
    use tactus_clockdev::sim::{Saw, SimClock};

    let state = tempdir("clock");
    let path = state.join("tactus-clock");
    let sim = SimClock::plug(DeviceKind::Open, &path).unwrap();
    let mut child = with_serial_clock(&path, &state);
    let events = EventStream::of(&mut child);
    let wait = Duration::from_secs(30);
    assert!(sim.wait_for(wait, |s| matches!(s, Saw::Hello)).is_some(), "the daemon greets the clock");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "e2e4").unwrap();
    assert_eq!(events.next("move")["san"], "e4");
    sim.press(shakmaty::Color::White);
    assert_eq!(events.next("complete")["san"], "e4");
    let shown = sim
        .wait_for(wait, |s| matches!(s, Saw::Display(d) if d.running == Some(shakmaty::Color::Black)))
        .expect("the clock shows Black's time running after White's press");
    if let Saw::Display(d) = shown.saw {
        // 5400+30 by default: White's 30 s increment is on the display.
        assert!(d.white_ms > 5_400_000 && d.white_ms <= 5_430_000, "{d:?}");
        assert_eq!(d.white_moves, 1);
    }
    sim.button(&tactus_clockdev::Button::TimeRequest);
    assert_eq!(events.next("time")["white_moves"], 1, "the time request is answered");
    drop(stdin); // the typed board ends: the daemon stops
    assert!(child.wait().unwrap().success());
}

/// The player against an engine offers a draw and resigns with the open
/// clock's `DRAW` and `RESIGN`: their side is the one the engine does not
/// play, whichever that is.
#[test]
fn the_players_draw_and_resign_buttons_against_an_engine() {
    use tactus_clockdev::sim::{Saw, SimClock};
    use tactus_clockdev::{Button, DeviceKind};

    let stockfish = Path::new("/usr/games/stockfish");
    assert!(stockfish.exists(), "Stockfish is installed by ./setup (apt-get install stockfish)");
    let state = tempdir("buttons");
    let path = state.join("tactus-clock");
    let sim = SimClock::plug(DeviceKind::Open, &path).unwrap();
    let mut child = tactus_run(&empty_config(), &state)
        .args(["--board", "sim", "--clock", "open", "--clock-path"])
        .arg(&path)
        .arg("--engine")
        .arg(stockfish)
        .args(["--engine-plays", "white"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let events = EventStream::of(&mut child);
    assert!(
        sim.wait_for(Duration::from_secs(30), |s| matches!(s, Saw::Hello)).is_some(),
        "the daemon greets the clock"
    );
    sim.button(&Button::Draw);
    assert_eq!(events.next("draw_offer")["side"], "black", "the player's side: the engine plays White");
    sim.button(&Button::Resign);
    let over = events.next("game_over");
    assert_eq!((over["result"].as_str(), over["reason"].as_str()), (Some("1-0"), Some("resignation")), "{over}");
    // After the end, the button is answered that the game is over.
    sim.button(&Button::Draw);
    assert_eq!(events.next("not_now")["why"], "game_over");
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
}

/// On a board that hosts no opponent, the open clock's `DRAW` and `RESIGN`
/// are answered at once that they have no use there (issue 30, 7): the
/// players at the board offer a draw and resign to each other. Said in
/// the board's language.
#[test]
fn the_draw_and_resign_buttons_without_an_opponent_say_they_have_no_use_here() {
    use tactus_clockdev::sim::{Saw, SimClock};
    use tactus_clockdev::{Button, DeviceKind};

    let state = tempdir("no-opponent-buttons");
    let path = state.join("tactus-clock");
    let sim = SimClock::plug(DeviceKind::Open, &path).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("run")
        .arg("--config")
        .arg(empty_config())
        .arg("--state-dir")
        .arg(&state)
        .args(["--board", "sim", "--clock", "open", "--clock-path"])
        .arg(&path)
        .args(["--voice", "text", "--say", "de:natural", "--events", "-"])
        .env("TACTUS_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let events = EventStream::of(&mut child);
    let said = common::lines(child.stderr.take().unwrap());
    assert!(
        sim.wait_for(Duration::from_secs(30), |s| matches!(s, Saw::Hello)).is_some(),
        "the daemon greets the clock"
    );
    let no_use = "Diese Taste gilt nur in Partien gegen eine Engine, auf Lichess oder gegen ein Partnerbrett.";
    for button in [Button::Draw, Button::Resign] {
        sim.button(&button);
        assert_eq!(events.next_of(&["not_now", "draw_offer", "game_over"])["why"], "no_opponent", "{button:?}");
        common::line_with(&said, no_use, Duration::from_secs(60));
    }
    // The game goes on: nothing was offered or resigned.
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"e2e4\n").unwrap();
    assert_eq!(events.next("move")["san"], "e4");
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    assert!(
        !events.seen.borrow().iter().any(|e| e["event"] == "draw_offer" || e["event"] == "game_over"),
        "a button with no use changes nothing"
    );
}

/// SAN per ply of a trace, as a replay reads it.
fn replayed(trace: &Path) -> Vec<String> {
    let r = tactus_core::replay::replay(
        std::io::BufReader::new(std::fs::File::open(trace).unwrap()),
        tactus_core::Policy::default(),
    )
    .unwrap();
    r.session.game().played.iter().map(|p| p.info.san.clone()).collect()
}

#[test]
fn a_different_game_in_the_same_state_directory_is_its_own_game() {
    let state = tempdir("other");
    let first = fixture("irregular/irregular-0002.trace.jsonl");
    let second = fixture("clean/clean-0001.trace.jsonl");
    // The first game, stopped mid-way: killed once a few moves are completed.
    let mut child = daemon(&first, "20", &state);
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut completed = 0;
    for line in stdout.lines() {
        let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if v["event"] == "complete" {
            completed += 1;
            if completed == 3 {
                break;
            }
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let unfinished = state.join(std::fs::read_to_string(state.join("current")).unwrap().trim());
    let kept = std::fs::read_to_string(&unfinished).unwrap();

    // The second: another trace in the same state directory.
    let out = played(&second, &state, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("the unfinished game in {} is not resumed", unfinished.display()))
            && stderr.contains("SHA-256"),
        "the set-aside game is named, with why: {stderr}"
    );
    let events: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(!events.iter().any(|e| e["event"] == "irregularity"), "nothing of the first game leaks in");
    let got: Vec<String> =
        events.iter().filter(|e| e["event"] == "complete").map(|e| e["san"].as_str().unwrap().to_string()).collect();
    assert_eq!(got, replayed(&second), "the second trace is played as its own game");
    assert_eq!(std::fs::read_to_string(&unfinished).unwrap(), kept, "the first game's journal is kept as it was");
}

#[test]
fn a_journal_left_by_a_failed_start_is_not_recovered() {
    // A trace with a bad line fails before any journal is written.
    let state = tempdir("badstart");
    let bad = state.join("bad.trace.jsonl");
    let good = std::fs::read_to_string(fixture("clean/clean-0001.trace.jsonl")).unwrap();
    let mut lines: Vec<&str> = good.lines().take(30).collect();
    lines.push("{\"t\": 1, \"sq\": \"z9\", \"on\": true}");
    std::fs::write(&bad, lines.join("\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("run")
        .arg("--config")
        .arg(empty_config())
        .args(["--board", "sim", "--sim-trace"])
        .arg(&bad)
        .arg("--state-dir")
        .arg(state.join("s"))
        .args(["--voice", "none"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("line 31") && stderr.lines().count() == 1, "one line naming the line: {stderr}");
    assert!(!state.join("s/current").exists() && !state.join("s/games").exists(), "no journal was begun");
}

/// Runs the daemon on `trace` (board `t1`) in `state` to its end; its events.
fn play_out(trace: &Path, state: &Path) -> Vec<Value> {
    let out = played(trace, state, &["--board-id", "t1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// A journal as the daemon leaves it when killed: the trace's first
/// `lines` entries, the header naming board t1 and the trace, and how far
/// its timers had run and announced (`timers`, game time).
fn killed_journal(state: &Path, trace: &Path, lines: usize, timers: Option<u64>) {
    use sha2::Digest;
    let text = std::fs::read_to_string(trace).unwrap();
    let sha: String = sha2::Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    let mut header: serde_json::Map<String, Value> = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    header.insert(
        "source".into(),
        serde_json::json!({"board": "sim", "id": "t1", "trace": {"path": trace, "sha256": sha}}),
    );
    let games = state.join("games");
    std::fs::create_dir_all(&games).unwrap();
    let mut journal = serde_json::to_string(&header).unwrap() + "\n";
    for line in text.lines().skip(1).take(lines) {
        journal.push_str(line);
        journal.push('\n');
    }
    if let Some(t) = timers {
        journal.push_str(&format!("{{\"t\": {t}, \"timers\": true}}\n"));
    }
    std::fs::write(games.join("g.trace.jsonl"), journal).unwrap();
    std::fs::write(state.join("current"), "games/g.trace.jsonl\n").unwrap();
}

#[test]
fn a_move_announced_before_a_kill_is_not_announced_again_and_one_not_announced_is() {
    // clean-0001: 1. e4 (pressed at 26032), then e7 lifted and e5 placed at
    // 63920: once the reading holds (10 ms) and the board holds still
    // (100 ms), "e5" is announced at 64030, before Black's press at 64539.
    // The kill came between the two.
    let trace = fixture("clean/clean-0001.trace.jsonl");
    let moves_of =
        |events: &[Value], ply: u64| events.iter().filter(|e| e["event"] == "move" && e["ply"] == ply).count();
    let state = tempdir("said");
    killed_journal(&state, &trace, 5, Some(64_030));
    let events = play_out(&trace, &state);
    assert_eq!(moves_of(&events, 2), 0, "e5 was announced before the kill");
    assert!(events.iter().any(|e| e["event"] == "complete" && e["ply"] == 2 && e["san"] == "e5"));

    let state = tempdir("unsaid");
    killed_journal(&state, &trace, 5, None);
    let events = play_out(&trace, &state);
    assert_eq!(moves_of(&events, 2), 1, "e5 was not announced before the kill: it is, once, now");
}

#[test]
fn a_failed_events_write_is_reported_once_and_the_game_goes_on() {
    // /dev/full: every write fails as on a full disk.
    let state = tempdir("full");
    let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("run")
        .arg("--config")
        .arg(empty_config())
        .args(["--board", "sim", "--sim-trace"])
        .arg(fixture("clean/clean-0001.trace.jsonl"))
        .args(["--sim-speed", "1000", "--state-dir"])
        .arg(&state)
        .args(["--voice", "none", "--events", "/dev/full"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("events: cannot write to /dev/full").count(), 1, "{stderr}");
    assert_eq!(journaled(&state).len(), 53, "the game was played and journaled to its end");
}

#[test]
fn a_flag_falls_and_the_result_waits_for_the_mate_search_off_the_game_loop() {
    // Black's flag falls in a position where the quick check cannot tell
    // whether White can still mate (CHA-Solver's community set): the game
    // loop hands the question to a worker, and the answer is journaled.
    let fen = "2b5/1p6/pPp3k1/2Pp3p/P2PpBpP/4P1P1/5K2/8 b - - 0 1";
    let dir = tempdir("mate");
    let trace = dir.join("flag.trace.jsonl");
    std::fs::write(
        &trace,
        format!(
            "{{\"tactus_trace\": 1, \"start_fen\": \"{fen}\", \"time_control\": \"60\"}}\n{{\"t\": 65000, \"end\": true}}\n"
        ),
    )
    .unwrap();
    let out = played(&trace, &dir, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let events: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let over = events.iter().find(|e| e["event"] == "game_over").expect("a result");
    assert_eq!(over["reason"], "flag_fall");

    // What the search says, run here the same way: the daemon's answer.
    let pos: shakmaty::Chess =
        fen.parse::<shakmaty::fen::Fen>().unwrap().into_position(shakmaty::CastlingMode::Standard).unwrap();
    let question = tactus_core::MateQuestion {
        ply: tactus_core::game::Game::new(tactus_trace::Variant::Standard, Some(fen)).unwrap().ply(),
        side: shakmaty::Color::White,
        position: pos,
    };
    let verdict = tactus_core::search_mate(&question);
    let (result, undetermined) = match verdict {
        tactus_trace::MateVerdict::CannotMate => ("1/2-1/2", false),
        tactus_trace::MateVerdict::CanMate => ("1-0", false),
        tactus_trace::MateVerdict::Undetermined => ("1-0", true),
    };
    assert_eq!(over["result"], result);
    assert_eq!(over["undetermined"].as_bool().unwrap_or(false), undetermined);

    // The journal holds the answer, and replays to the same result.
    let games = dir.join("games");
    let journal = std::fs::read_dir(&games)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".trace.jsonl"))
        .expect("a journal");
    let text = std::fs::read_to_string(&journal).unwrap();
    assert!(
        text.contains(&format!(
            "\"input\": \"verdict\", \"ply\": {}, \"side\": \"white\", \"verdict\": \"{}\"",
            question.ply,
            verdict.as_str()
        )),
        "{text}"
    );
    assert!(text.lines().next().unwrap().contains("\"mate_search\":\"asked\""), "{text}");
    let r = tactus_core::replay::replay(text.as_bytes(), tactus_core::Policy::default()).unwrap();
    let ending = r.session.game().ending.expect("the replay ends the game");
    assert_eq!(ending.result.as_str(), result);
}

/// The daemon's events, one at a time as they come.
#[test]
fn every_question_is_answered_by_a_typed_command_and_by_the_clocks_buttons() {
    use std::io::Write as _;
    use tactus_clockdev::sim::{Saw, SimClock};
    use tactus_clockdev::{Button, DeviceKind};

    let state = tempdir("questions");
    let path = state.join("tactus-clock");
    let sim = SimClock::plug(DeviceKind::Open, &path).unwrap();
    let mut child = with_serial_clock(&path, &state);
    let events = EventStream::of(&mut child);
    assert!(
        sim.wait_for(Duration::from_secs(30), |s| matches!(s, Saw::Hello)).is_some(),
        "the daemon greets the clock"
    );
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "g1f3").unwrap();
    assert_eq!(events.next("move")["san"], "Nf3");
    sim.press(shakmaty::Color::White);
    assert_eq!(events.next("complete")["san"], "Nf3");

    let typed = [
        ("request time", "time"),
        ("request board", "position"),
        ("request last", "last_move"),
        ("request control", "moves_to_control"),
        ("request pieces white n", "pieces"),
        ("request rank 3", "rank"),
        ("request file f", "file"),
        ("request square f3", "square"),
    ];
    for (line, kind) in typed {
        writeln!(stdin, "{line}").unwrap();
        let answer = events.next(kind);
        match kind {
            "last_move" => assert_eq!(answer["san"], "Nf3", "{line}"),
            "pieces" => assert_eq!(answer["pieces"].as_array().unwrap().len(), 2, "{line}: {answer}"),
            "rank" => assert_eq!(answer["pieces"][0]["sq"], "f3", "{line}: {answer}"),
            "square" => assert_eq!(answer["piece"], "N", "{line}: {answer}"),
            "time" => assert_eq!(answer["white_moves"], 1, "{line}"),
            _ => {}
        }
    }
    let buttons = [
        (Button::TimeRequest, "time"),
        (Button::LastMove, "last_move"),
        (Button::Plus, "position"),
        (Button::Minus, "moves_to_control"),
        (Button::Pieces(shakmaty::Color::White), "pieces"),
    ];
    for (button, kind) in buttons {
        sim.button(&button);
        let answer = events.next(kind);
        if kind == "pieces" {
            assert_eq!(answer["side"], "white", "{button:?}");
        }
    }
    drop(stdin); // the typed board ends: the daemon stops
    assert!(child.wait().unwrap().success());
}

/// What a game's record is made of: each move, completion, ruling, penalty
/// and the result, with its game time.
fn record_of(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| {
            ["move", "complete", "irregularity", "penalty", "game_over"].contains(&e["event"].as_str().unwrap_or(""))
        })
        .map(|e| {
            format!(
                "{} t={} ply={} san={} article={} side={}",
                e["event"], e["t"], e["ply"], e["san"], e["article"], e["side"]
            )
        })
        .collect()
}

/// A trace is the board's own time: played by the daemon at any speed, on a
/// loaded machine or not, it makes the game a replay makes — a timer (the
/// press's grace, a flag) never runs ahead of an edge the board has still
/// to deliver. At 10,000 times real time a millisecond of the wall clock is
/// ten seconds of the game, so a board thread scheduled a little late would
/// have the timers overtake it.
#[test]
fn a_trace_played_at_any_speed_makes_the_game_a_replay_makes() {
    // The machine kept busy, as a loaded Pi or CI is: the board's thread is
    // then often scheduled late.
    let busy = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let spinners: Vec<_> = (0..2 * cores)
        .map(|_| {
            let busy = busy.clone();
            std::thread::spawn(move || {
                while busy.load(std::sync::atomic::Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        })
        .collect();
    let _stop = StopOnDrop(busy);
    for rel in ["irregular/irregular-0002.trace.jsonl", "blitz/blitz-0001.trace.jsonl", "blitz/blitz-0004.trace.jsonl"]
    {
        let trace = fixture(rel);
        let replay = tactus_core::replay::replay(
            std::io::BufReader::new(std::fs::File::open(&trace).unwrap()),
            tactus_core::Policy::default(),
        )
        .unwrap();
        let want: Vec<Value> = replay.events.iter().map(|e| serde_json::to_value(e).unwrap()).collect();
        for speed in ["10000", "1000"] {
            let state = tempdir("any-speed");
            let mut child = daemon(&trace, speed, &state);
            let events = collect(&mut child, Arc::new(Mutex::new(BTreeMap::new())));
            assert!(child.wait().unwrap().success());
            let got = events.join().unwrap();
            assert_eq!(record_of(&got), record_of(&want), "{rel} at {speed}× plays as its replay");
        }
    }
    drop(_stop);
    spinners.into_iter().for_each(|s| s.join().unwrap());
}

/// Ends the busy threads however the test ends.
struct StopOnDrop(Arc<std::sync::atomic::AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(false, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The game stays open for questions after it ends, until the input ends
/// (issue 20, 6); a typing mistake is said, not only written to standard
/// error (issue 20, 3).
#[test]
fn questions_are_answered_after_the_end_and_a_typing_mistake_is_said() {
    use std::io::Write as _;

    let state = tempdir("after-the-end");
    let mut child = tactus_run(&empty_config(), &state).args(["--board", "sim"]).stdin(Stdio::piped()).spawn().unwrap();
    let events = EventStream::of(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "z9").unwrap();
    assert_eq!(events.next("not_understood")["typed"], "z9");
    // Fool's mate, each move pressed once the board has shown it.
    for (line, san, side) in [("f2f3", "f3", "w"), ("e7e5", "e5", "b"), ("g2g4", "g4", "w"), ("d8h4", "Qh4#", "b")] {
        writeln!(stdin, "{line}").unwrap();
        assert_eq!(events.next("move")["san"], san);
        writeln!(stdin, "{side}").unwrap();
    }
    assert_eq!(events.next("game_over")["reason"], "checkmate");
    writeln!(stdin, "request last").unwrap();
    assert_eq!(events.next("last_move")["san"], "Qh4#", "the last move, asked after the end");
    writeln!(stdin, "request square h4").unwrap();
    assert_eq!(events.next("square")["piece"], "q");
    writeln!(stdin, "promote n").unwrap();
    assert_eq!(events.next("not_now")["why"], "game_over");
    drop(stdin); // the typed board ends: the daemon stops
    assert!(child.wait().unwrap().success());
}
