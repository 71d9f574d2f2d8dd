//! The `tactus` commands as a user runs them.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

mod common;
use common::http::request;
use common::lichess::LichessServer;
use common::{Guard, empty_config, fixture, free_port, root, tempdir, wait_for};

fn tactus() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tactus"))
}

#[test]
fn replay_writes_pgn_and_events() {
    let dir = tempdir("replay");
    let (pgn, events) = (dir.join("g.pgn"), dir.join("g.jsonl"));
    let out = tactus()
        .args(["replay"])
        .arg(fixture("irregular/irregular-0002.trace.jsonl"))
        .arg("--pgn")
        .arg(&pgn)
        .arg("--events")
        .arg(&events)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pgn = std::fs::read_to_string(pgn).unwrap();
    assert!(pgn.contains("[Result \"1-0\"]"));
    assert!(pgn.contains("[TimeControl \"180+2\"]"));
    assert!(pgn.contains("1. d4 {[%clk 0:02:44]}"), "{pgn}");
    assert!(pgn.trim_end().ends_with("1-0"));
    let events = std::fs::read_to_string(events).unwrap();
    let kinds: Vec<String> = events
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["event"].as_str().unwrap().to_string())
        .collect();
    for kind in ["touch", "move", "complete", "irregularity", "penalty", "game_over"] {
        assert!(kinds.iter().any(|k| k == kind), "no {kind} event");
    }
}

/// A ruling's `detail` in the events, and its comment in the record, are the
/// speech crate's words: English by default, the language of `--say` with it.
#[test]
fn replay_writes_rulings_in_words_in_the_language_spoken() {
    let run = |say: Option<&str>| {
        let mut cmd = tactus();
        cmd.arg("replay").arg(fixture("irregular/irregular-0002.trace.jsonl")).args(["--events", "-"]);
        let dir = tempdir(&format!("words-{}", say.unwrap_or("en").replace(':', "-")));
        let pgn = dir.join("g.pgn");
        cmd.arg("--pgn").arg(&pgn);
        if let Some(say) = say {
            cmd.args(["--say", say, "--transcript"]).arg(dir.join("said.txt"));
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let events: Vec<serde_json::Value> =
            String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (events, std::fs::read_to_string(pgn).unwrap())
    };
    let details = |events: &[serde_json::Value]| -> Vec<String> {
        events
            .iter()
            .filter(|e| e["event"] == "irregularity")
            .map(|e| e["detail"].as_str().unwrap().to_owned())
            .collect()
    };
    let (english, pgn) = run(None);
    let said = details(&english);
    assert!(!said.is_empty());
    assert!(said.iter().all(|d| d.contains(": illegal move — ") || d.contains("touched")), "{said:?}");
    for d in &said {
        assert!(
            pgn.split_whitespace().collect::<Vec<_>>().join(" ").contains(d.as_str()),
            "{d:?} in the record:\n{pgn}"
        );
    }
    assert!(
        english
            .iter()
            .filter(|e| e["event"] != "irregularity" && e["event"] != "observation")
            .all(|e| e.get("detail").is_none())
    );
    let (german, pgn) = run(Some("de:natural"));
    let gesagt = details(&german);
    assert_eq!(gesagt.len(), said.len());
    assert!(gesagt.iter().all(|d| d.starts_with("Weiß") || d.starts_with("Schwarz")), "{gesagt:?}");
    assert!(pgn.contains("regelwidrig"), "{pgn}");
    // The same rulings, the same data: only the words differ. (Spoken, the
    // game also warns of time: more events, none of them rulings.)
    let rulings = |events: &[serde_json::Value]| -> Vec<serde_json::Value> {
        let mut out: Vec<serde_json::Value> = events.iter().filter(|e| e["event"] == "irregularity").cloned().collect();
        out.iter_mut().for_each(|e| drop(e.as_object_mut().unwrap().remove("detail")));
        out
    };
    assert_eq!(rulings(&english), rulings(&german));
}

#[test]
fn a_malformed_line_is_named_and_what_came_before_is_kept() {
    let dir = tempdir("bad");
    let trace = dir.join("bad.trace.jsonl");
    let good = std::fs::read_to_string(fixture("clean/clean-0001.trace.jsonl")).unwrap();
    let mut lines: Vec<&str> = good.lines().take(40).collect();
    lines.push(r#"{"t": 999999999, "sq": "k9", "on": true}"#);
    std::fs::write(&trace, lines.join("\n")).unwrap();
    let pgn = dir.join("g.pgn");
    let out = tactus().arg("replay").arg(&trace).arg("--pgn").arg(&pgn).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 41") && err.contains("not a square"), "{err}");
    let pgn = std::fs::read_to_string(pgn).unwrap();
    assert!(pgn.contains("1. e4"), "the moves before the bad line are written: {pgn}");
}

/// A trace whose clock starts at 0:00 is refused on line 1, naming the
/// file, whether it is replayed or played on the simulated board: White's
/// flag would fall before the first move (the config refuses it too).
#[test]
fn a_trace_whose_clock_starts_at_zero_is_refused_on_line_1() {
    let dir = tempdir("zero-clock");
    let trace = dir.join("zero.trace.jsonl");
    std::fs::write(
        &trace,
        "{\"tactus_trace\": 1, \"time_control\": \"0\"}\n{\"t\": 100, \"sq\": \"e2\", \"on\": false}\n",
    )
    .unwrap();
    let config = empty_config();
    let replayed = tactus().arg("replay").arg(&trace).output().unwrap();
    let played = tactus()
        .args(["run", "--board", "sim", "--voice", "none", "--config"])
        .arg(&config)
        .arg("--state-dir")
        .arg(dir.join("state"))
        .arg("--sim-trace")
        .arg(&trace)
        .output()
        .unwrap();
    for out in [replayed, played] {
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("zero.trace.jsonl: line 1: time_control \"0\"") && err.contains("0:00"), "{err}");
        assert!(out.stdout.is_empty(), "no game is played: {}", String::from_utf8_lossy(&out.stdout));
    }
}

#[test]
fn a_missing_trace_is_a_clear_error() {
    let out = tactus().args(["replay", "/nonexistent/game.trace.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot open /nonexistent/game.trace.jsonl"));
}

#[test]
fn transcripts_say_every_move_in_annex_d_german() {
    let dir = tempdir("say");
    let transcript = dir.join("t.tsv");
    let out = tactus()
        .arg("replay")
        .arg(fixture("clean/clean-0001.trace.jsonl"))
        .args(["--say", "de:annex-d", "--transcript"])
        .arg(&transcript)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(transcript).unwrap();
    let lines: Vec<(u64, &str)> =
        text.lines().map(|l| l.split_once('\t').map(|(t, s)| (t.parse().unwrap(), s)).unwrap()).collect();
    // clean-0001: 1. e4 e5 2. Nf3 Nc6 3. Bb5 …, 53 plies, both sides castle short.
    assert!(lines.iter().any(|(_, s)| *s == "Springer Felix drei"), "{text}");
    assert!(lines.iter().any(|(_, s)| *s == "Kurze Rochade"), "{text}");
    let moves = lines.iter().filter(|(_, s)| !s.starts_with("Neue Partie")).count();
    assert!(moves >= 53, "every move is said: {moves} lines");
    assert!(lines.windows(2).all(|w| w[0].0 <= w[1].0), "in time order");
}

#[test]
fn say_renders_a_wav_with_espeak_ng() {
    let dir = tempdir("wav");
    let out = tactus()
        .args(["say", "--say", "pl:natural", "--san", "Nxe5+", "--voice"])
        .arg(format!("wav:{}", dir.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "espeak-ng must be installed (./setup): {}", String::from_utf8_lossy(&out.stderr));
    let wav = std::fs::read(dir.join("0001.wav")).unwrap();
    assert!(wav.len() > 10_000, "a real utterance, not silence: {} bytes", wav.len());
    assert_eq!(&wav[..4], b"RIFF");
}

#[test]
fn bench_prints_throughput_and_latency() {
    let out = tactus().arg("bench").arg(root().join("tests/traces")).args(["--repeat", "1"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("edges/s") && text.contains("p95"), "{text}");
}

#[test]
fn doctor_reports_and_says_how_to_fix() {
    let dir = tempdir("doctor");
    let config = dir.join("tactus.toml");
    std::fs::write(
        &config,
        format!(
            "[board]\nkind = \"gpio-matrix\"\n[voice]\nsink = \"text\"\n[clock]\ndevice = \"open\"\npath = \"{}\"\n[state]\ndir = \"{}\"\n",
            dir.join("no-such-clock").display(),
            dir.join("state").display()
        ),
    )
    .unwrap();
    let out = tactus().args(["doctor", "--config"]).arg(&config).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // No GPIO on this machine, no clock at that path: both flagged with a fix.
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("FIX board (gpio-matrix)"), "{text}");
    assert!(text.contains("FIX clock (open at 115200 baud)") && text.contains("/dev/tactus-clock"), "{text}");
    assert!(text.contains("ok  state directory"), "{text}");
    assert!(text.contains("ok  espeak-ng"), "espeak-ng is installed by ./setup: {text}");
}

#[test]
fn a_bad_config_names_file_line_and_key() {
    let dir = tempdir("badcfg");
    let config = dir.join("tactus.toml");
    std::fs::write(&config, "[game]\ntime_control = \"5400+30\"\nsettle_ms = \"soon\"\n").unwrap();
    let out = tactus().args(["run", "--config"]).arg(&config).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{}:3: key `game.settle_ms`", config.display())), "{err}");
}

#[test]
fn doctor_checks_what_the_config_names() {
    let dir = tempdir("doctor-names");
    let config = dir.join("tactus.toml");
    // A port nothing listens on: bound, then let go.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    std::fs::write(
        &config,
        format!(
            "[board]\nkind = \"hall\"\ni2c_bus = 7\n[voice]\nsink = \"none\"\n[http]\nlisten = \"127.0.0.1:{port}\"\nassets = \"{}\"\n[mqtt]\nbroker = \"127.0.0.1:{port}\"\n[state]\ndir = \"{}\"\n",
            dir.join("no-page").display(),
            dir.join("state").display()
        ),
    )
    .unwrap();
    let out = tactus().args(["doctor", "--config"]).arg(&config).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("FIX board (hall)") && text.contains("/dev/i2c-7 missing"), "the configured bus: {text}");
    assert!(text.contains("enable I²C bus 7"), "{text}");
    assert!(text.contains("FIX web page") && text.contains("no-page"), "{text}");
    assert!(text.contains("ok  HTTP") && text.contains(&format!("127.0.0.1:{port} free")), "{text}");
    assert!(text.contains("FIX MQTT broker") && text.contains("refused"), "{text}");
}

#[test]
fn the_shipped_config_without_a_board_fails_in_one_clear_line_and_writes_nothing() {
    let dir = tempdir("noboard");
    let shipped = root().join("config/tactus.toml");
    let state = dir.join("state");
    let out = tactus().args(["run", "--config"]).arg(&shipped).arg("--state-dir").arg(&state).output().unwrap();
    // EX_UNAVAILABLE: the service manager may try later, with its delay.
    assert_eq!(out.status.code(), Some(69));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("tactus: error: no gpio-matrix board: no GPIO"), "{err}");
    assert!(err.contains("tactus doctor") && err.contains("[board] kind"), "how to fix it: {err}");
    assert!(!state.exists(), "no journal, no state directory");
}

#[test]
fn config_value_errors_name_file_line_and_key() {
    let dir = tempdir("values");
    let config = dir.join("tactus.toml");
    for (text, want) in [
        ("[game]\ntime_control = \"40/\"\n", ":2: key `game.time_control`"),
        ("[game]\nstart_fen = \"8/8/8/8/8/8/8/8 w - - 0 1\"\n", ":2: key `game.start_fen`"),
        ("\n[board]\nkind = \"reed\"\n", ":3: key `board.kind`"),
    ] {
        std::fs::write(&config, text).unwrap();
        let out = tactus().args(["run", "--config"]).arg(&config).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("{}{want}", config.display())), "{text:?}: {err}");
    }
}

/// The values issue 19 found taken: each is refused, naming the file, the
/// line, the key and the range.
#[test]
fn config_values_out_of_range_name_file_line_key_and_range() {
    let dir = tempdir("ranges");
    let config = dir.join("tactus.toml");
    for (text, want) in [
        (
            "[game]\nsettle_ms = 9223372036854775807\n",
            ":2: key `game.settle_ms`: 9223372036854775807 is out of range: 0 to 10000 ms",
        ),
        ("[game]\ntime_control = \"0\"\n", ":2: key `game.time_control`: \"0\" starts the clocks at 0:00"),
        ("[clock]\ndevice = \"open\"\nbaud = 0\n", ":3: key `clock.baud`: 0 is out of range: 1200 to 4000000 baud"),
        ("[mqtt]\nbroker = \"::::\"\n", ":2: key `mqtt.broker`: \"::::\" is not a broker address"),
    ] {
        std::fs::write(&config, text).unwrap();
        let out = tactus().args(["run", "--config"]).arg(&config).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{text:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("{}{want}", config.display())), "{text:?}: {err}");
    }
    // The same from the command line.
    std::fs::write(&config, "").unwrap();
    for (flag, value, want) in
        [("--time-control", "0", "starts the clocks at 0:00"), ("--mqtt", "::::", "not a broker")]
    {
        let out = tactus().args(["run", "--config"]).arg(&config).args([flag, value]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(flag) && err.contains(want), "{flag} {value}: {err}");
    }
    for boards in ["0", "10001"] {
        let out = tactus()
            .args(["relay", "--broker", "127.0.0.1:1", "--hall", "h", "--max-boards", boards])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--max-boards {boards}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("1..=10000"), "--max-boards {boards}");
    }
}

/// A trace whose arbiter set a clock to 2^64 − 1 ms replayed as a clock
/// at −1 ms; now the line is named and what came before it is kept.
#[test]
fn a_trace_value_out_of_range_is_named_with_file_and_line() {
    let dir = tempdir("trace-range");
    let trace = dir.join("huge.trace.jsonl");
    let lines = [
        r#"{"tactus_trace": 1, "time_control": "300"}"#,
        r#"{"t": 100, "sq": "e2", "on": false}"#,
        r#"{"t": 200, "sq": "e4", "on": true}"#,
        r#"{"t": 1500, "clock": "white"}"#,
        r#"{"t": 2000, "input": "add_time", "side": "black", "ms": 18446744073709551615}"#,
    ];
    std::fs::write(&trace, lines.join("\n")).unwrap();
    let out = tactus().arg("replay").arg(&trace).args(["--events", "-"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("huge.trace.jsonl") && err.contains("line 5") && err.contains("out of range"), "{err}");
    let events = String::from_utf8_lossy(&out.stdout);
    assert!(events.contains("\"complete\"") && !events.contains("\"ms\":-1"), "the move before is kept: {events}");
}

#[test]
fn bad_values_on_the_command_line_are_errors_not_panics() {
    let out = tactus().args(["demo", "--speed", "1e-300"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--speed") && err.contains("0.01 to 10000") && !err.contains("panicked"), "{err}");
    let out = tactus().args(["say", "--voice", "text", "--san", "Zz9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a move in SAN"));
    assert!(out.stdout.is_empty(), "nothing is said");
    let out = tactus().args(["calibrate", "--board", "sim"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "calibrate has no --board flag");
}

#[test]
fn a_trace_header_error_is_said_once() {
    let dir = tempdir("header");
    let trace = dir.join("v3.trace.jsonl");
    std::fs::write(&trace, "{\"tactus_trace\": 3}\n").unwrap();
    let out = tactus().arg("replay").arg(&trace).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("not supported").count(), 1, "{err}");
    assert!(err.contains("v3.trace.jsonl") && err.contains("line 1"), "{err}");
}

#[test]
fn a_piece_on_an_edge_that_empties_a_square_is_named_with_file_and_line() {
    let dir = tempdir("piece");
    let trace = dir.join("dgt.trace.jsonl");
    let lines = [
        r#"{"tactus_trace": 2, "board": "dgt"}"#,
        r#"{"t": 100, "sq": "e2", "on": false}"#,
        r#"{"t": 200, "sq": "e4", "on": true, "piece": "P"}"#,
        r#"{"t": 1500, "clock": "white"}"#,
        r#"{"t": 2000, "sq": "e7", "on": false, "piece": "p"}"#,
    ];
    std::fs::write(&trace, lines.join("\n")).unwrap();
    let out = tactus().arg("replay").arg(&trace).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("dgt.trace.jsonl") && err.contains("line 5") && err.contains("\"on\": false"), "{err}");
    let pgn = String::from_utf8_lossy(&out.stdout);
    assert!(pgn.contains("1. e4"), "the move before the bad line is written: {pgn}");
}

#[test]
fn output_cut_short_by_its_reader_is_not_an_error() {
    use std::io::Read;
    // `tactus replay … --events - | head -1`: the reader goes away.
    let mut child = tactus()
        .arg("replay")
        .arg(fixture("clean/clean-0001.trace.jsonl"))
        .args(["--events", "-", "--pgn"])
        .arg(tempdir("pipe").join("g.pgn"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_demo_plays_says_once_where_speech_goes_and_leaves_nothing_behind() {
    assert!(
        !Path::new("/proc/asound/cards").exists()
            || std::fs::read_to_string("/proc/asound/cards").unwrap().contains("no soundcards"),
        "this test is for a machine without a sound card, as CI is"
    );
    let tmp = tempdir("demo");
    let out = tactus().args(["demo", "--speed", "1000"]).env("TMPDIR", &tmp).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("no sound card").count(), 1, "{err}");
    assert!(!err.contains("ALSA"), "no sound library noise: {err}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.lines().any(|l| l == "knight c3"), "what is said is printed: {said}");
    assert!(
        said.contains("[Result \"0-1\"]") || said.contains("[Result \"1-0\"]"),
        "the game in PGN at the end: {said}"
    );
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "the demo's trace, journal and WAVs are gone");
}

/// `tactus doctor` asks Lichess about the configured token: one with
/// `study:write` suits a broadcast; one without that scope, one Lichess
/// does not know, one others can read and a Lichess it cannot reach are
/// each flagged, with what to do.
#[test]
fn doctor_checks_the_lichess_tokens_scope() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir("doctor-lichess");
    let server = LichessServer::start(&["lip_study=study:write", "lip_board=board:play,challenge:read"]);
    let closed = free_port();
    let cases = [
        ("lip_study", 0o600, server.url.clone(), true, "ok  Lichess token", "arbiter's, with study:write"),
        ("lip_board", 0o600, server.url.clone(), false, "FIX Lichess token", "a broadcast push needs study:write"),
        ("lip_nobody", 0o600, server.url.clone(), false, "FIX Lichess token", "Lichess does not know this token"),
        ("lip_study", 0o644, server.url.clone(), false, "FIX Lichess token", "chmod 600"),
        (
            "lip_study",
            0o600,
            format!("http://127.0.0.1:{closed}"),
            false,
            "FIX Lichess token",
            "is this machine online",
        ),
    ];
    for (i, (token, mode, url, ok, mark, said)) in cases.into_iter().enumerate() {
        let file = dir.join(format!("lichess{i}.token"));
        std::fs::write(&file, format!("{token}\n")).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        let config = dir.join(format!("tactus{i}.toml"));
        std::fs::write(
            &config,
            format!(
                "[board]\nkind = \"sim\"\n[voice]\nsink = \"none\"\n[state]\ndir = \"{}\"\n\
                 [lichess]\nurl = \"{url}\"\ntoken_file = \"{}\"\nbroadcast = [\"Round001\"]\n",
                dir.join("state").display(),
                file.display()
            ),
        )
        .unwrap();
        let out = tactus().args(["doctor", "--config"]).arg(&config).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.success(), ok, "{token} {mode:o}: {text}");
        assert!(text.contains(mark) && text.contains(said), "{token} {mode:o}: {text}");
        let makes_one = !ok && !said.contains("online");
        assert_eq!(text.contains("token/create?scopes[]=study:write"), makes_one, "where to make a token: {text}");
        assert!(!text.contains("lip_"), "the token is never shown: {text}");
    }
}

/// Without broadcast rounds the token is `tactus run`'s, to play the
/// account's games on the board: `tactus doctor` wants `board:play` of it,
/// and a challenge or seek configured without a token is flagged.
#[test]
fn doctor_checks_the_board_play_scope_for_online_games() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir("doctor-board-play");
    let server = LichessServer::start(&["lip_study=study:write", "lip_board=board:play"]);
    let cases = [
        (Some("lip_board"), true, "ok  Lichess token", "arbiter's, with board:play"),
        (Some("lip_study"), false, "FIX Lichess token", "playing on the board (tactus run) needs board:play"),
        (None, false, "FIX Lichess token", "challenge, seek or accept_from asks for online games"),
    ];
    for (i, (token, ok, mark, said)) in cases.into_iter().enumerate() {
        let token_line = match token {
            Some(token) => {
                let file = dir.join(format!("lichess{i}.token"));
                std::fs::write(&file, format!("{token}\n")).unwrap();
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
                format!("token_file = \"{}\"\n", file.display())
            }
            None => String::new(),
        };
        let config = dir.join(format!("tactus{i}.toml"));
        std::fs::write(
            &config,
            format!(
                "[board]\nkind = \"sim\"\n[voice]\nsink = \"none\"\n[state]\ndir = \"{}\"\n\
                 [game]\ntime_control = \"1800+5\"\n[lichess]\nurl = \"{}\"\n{token_line}challenge = \"friend\"\n",
                dir.join("state").display(),
                server.url
            ),
        )
        .unwrap();
        let out = tactus().args(["doctor", "--config"]).arg(&config).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.success(), ok, "{token:?}: {text}");
        assert!(text.contains(mark) && text.contains(said), "{token:?}: {text}");
        assert_eq!(text.contains("token/create?scopes[]=board:play"), !ok, "where to make a token: {text}");
        assert!(!text.contains("lip_"), "the token is never shown: {text}");
    }
}

/// `tactus relay`'s Lichess flags and `[lichess]` table: a round without a
/// token, a token others can read and a round id that is none are refused
/// before anything starts, each saying what to do; the config's rounds,
/// token and address are taken when no flag is given.
#[test]
fn the_relay_takes_its_lichess_rounds_from_flags_or_its_config() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir("relay-lichess");
    let relay = |extra: &[&str]| {
        let out = tactus()
            .args(["relay", "--broker", "127.0.0.1:9", "--hall", "club", "--http", "127.0.0.1:0"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = relay(&["--lichess-broadcast", "Round001"]);
    assert!(e.contains("--lichess-token-file FILE") && e.contains("study:write"), "{e}");
    let e = relay(&["--lichess-broadcast", "short"]);
    assert!(e.contains("a Lichess round id is 8 letters and digits"), "{e}");
    let e = relay(&["--lichess-broadcast", "Round001=1-60", "--lichess-broadcast", "Round002=50-120"]);
    assert!(e.contains("share boards"), "{e}");
    let token = dir.join("lichess.token");
    std::fs::write(&token, "lip_study\n").unwrap();
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = relay(&["--lichess-broadcast", "Round001", "--lichess-token-file", token.to_str().unwrap()]);
    assert!(e.contains("chmod 600") && !e.contains("lip_study"), "{e}");
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();

    let server = LichessServer::start(&["lip_study=study:write"]);
    let config = dir.join("tactus.toml");
    let table = format!(
        "[lichess]\nurl = \"{}\"\ntoken_file = \"{}\"\nbroadcast = [\"Round001=1-100\", \"Round002=101-200\"]\n",
        server.url,
        token.display()
    );
    std::fs::write(&config, table).unwrap();
    let port = free_port();
    let _relay = Guard(
        tactus()
            .args(["relay", "--broker", "127.0.0.1:9", "--hall", "club", "--http", &format!("127.0.0.1:{port}")])
            .arg("--config")
            .arg(&config)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut reply = None;
    wait_for("the relay to serve", Duration::from_secs(10), || {
        reply = request(port, "GET", "/api/lichess", "", "");
        reply.is_some()
    });
    let (status, body) = reply.unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""rounds":["Round001=1-100","Round002=101-200"]"#), "{body}");
}

/// The first minute of `tactus demo` at its default speed: the first move
/// is said within 3 s and at least ten in the first 60 s, however long the
/// recorded players thought. Measured in the demo's own time — game time
/// (the events' `t`) less the recorded quiets it says it skipped — so that
/// the machine's speed does not count (it runs at 50× here).
#[test]
fn the_demo_says_its_first_move_within_3_s_and_ten_in_its_first_minute() {
    let tmp = tempdir("demo-minute");
    let out = tactus()
        .args(["demo", "--speed", "50", "--voice", "text", "--events", "-"])
        .env("TMPDIR", &tmp)
        .env("TACTUS_LOG", "info,tactus=debug")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // `tactus: sim: the recording's quiets are shortened, game time jumping (ms): 1500..16126 18575..77605`
    let skips: Vec<(u64, u64)> = err
        .lines()
        .filter_map(|l| l.strip_prefix("tactus: sim: the recording's quiets are shortened, game time jumping (ms): "))
        .flat_map(|l| l.split(' '))
        .map(|jump| {
            let (from, to) = jump.split_once("..").expect("from..to");
            (from.parse().unwrap(), to.parse().unwrap())
        })
        .collect();
    // The time the demo has played when game time is `t`.
    let played = |t: u64| t - skips.iter().filter(|&&(_, to)| to <= t).map(|(from, to)| to - from).sum::<u64>();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let completed: Vec<serde_json::Value> = stdout
        .lines()
        .filter(|l| l.starts_with("{\""))
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["event"] == "complete")
        .collect();
    let moves: Vec<(u64, &str)> =
        completed.iter().map(|e| (played(e["t"].as_u64().unwrap()), e["san"].as_str().unwrap())).collect();
    let (first, san) = moves.first().expect("the demo completes moves");
    assert_eq!(*san, "d4");
    assert!(*first <= 3000, "the first move at {first} ms of the demo: {moves:?}");
    let in_a_minute = moves.iter().filter(|(at, _)| *at <= 60_000).count();
    assert!(in_a_minute >= 10, "{in_a_minute} moves in the demo's first minute: {moves:?}");
    // Each is said: the speech printed (on standard error, beside the log).
    let said: Vec<&str> = err.lines().filter(|l| !l.starts_with("tactus:")).collect();
    for words in ["d4", "e5", "d takes e5", "bishop c5", "bishop f4", "d6", "e takes d6", "knight e7", "e3"] {
        assert!(said.contains(&words), "{words:?} is said: {said:?}");
    }
    // The clocks are charged the whole recorded time: White's 17 s over
    // 1. d4, Black's minute over 1... e5 (3 minutes, 2 s a move).
    let clocks: Vec<u64> = completed.iter().take(2).map(|e| e["clock_ms"].as_u64().unwrap()).collect();
    assert_eq!(clocks, [180_000 - 17_075 + 2000, 180_000 - (78_550 - 17_075) + 2000]);
}
