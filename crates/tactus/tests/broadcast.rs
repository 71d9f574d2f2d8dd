//! Broadcasting end to end: the daemon's live page in a real headless
//! Chromium, and two daemons carried through a real mosquitto to one relay.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tactus-broadcast-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Kills the child when the test ends, pass or fail.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn get(port: u16, path: &str) -> Option<String> {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    head.lines().next()?.contains(" 200 ").then(|| body.to_string())
}

fn wait_for(what: &str, timeout: Duration, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + timeout;
    while Instant::now() < end {
        if f() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("timed out waiting for {what}");
}

fn epoch_ms() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis()
}

#[test]
fn chromium_sees_a_move_within_a_second_of_the_sim_board_making_it() {
    assert!(root().join("web/dist/index.html").exists(), "the page is built by ./setup (npm run build in web/)");
    assert!(Path::new("/usr/bin/chromium").exists(), "Chromium is installed by ./setup (apt-get install chromium)");
    let dir = tempdir("live");
    let port = free_port();
    let marker = dir.join("marker");
    // The board is typed on: the move is made once the page has rendered
    // (live.mjs says READY), however long Chromium took to start.
    let mut daemon = Guard(
        Command::new(env!("CARGO_BIN_EXE_tactus"))
            .current_dir(root())
            .args(["run", "--board", "sim", "--time-control", "180+2"])
            .args(["--voice", "none", "--events", "-", "--board-id", "b1", "--state-dir"])
            .arg(dir.join("state"))
            .arg("--http")
            .arg(format!("127.0.0.1:{port}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let stdout = daemon.0.stdout.take().unwrap();
    let marker_file = marker.clone();
    // When the daemon announces a move, the marker gets the wall time.
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
        .args(["--board", "b1", "--next", "--timeout-ms", "60000", "--max-delay-ms", "1000", "--marker"])
        .arg(format!("file:{}", marker.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs (./setup installs it)");
    let mut lines = BufReader::new(live.stdout.take().unwrap()).lines();
    let mut said = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let ready = line.starts_with("READY");
        said.push(line);
        if ready {
            break;
        }
    }
    assert!(said.last().is_some_and(|l| l.starts_with("READY")), "the page never rendered: {said:?}");
    {
        use std::io::Write;
        let stdin = daemon.0.stdin.as_mut().unwrap();
        writeln!(stdin, "d2 d4").unwrap();
        stdin.flush().unwrap();
    }
    said.extend(lines.map_while(Result::ok));
    let status = live.wait().unwrap();
    let mut err = String::new();
    live.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let stdout = said.join("\n");
    assert!(status.success(), "live.mjs: {stdout}\n{err}");
    let result: serde_json::Value =
        said.iter().rev().find_map(|l| serde_json::from_str(l).ok()).expect("a JSON result line");
    assert_eq!(result["ok"], true, "{result}");
    assert!(result["delay_ms"].as_f64().unwrap() <= 1000.0, "{result}");
    // The feed broadcast sites poll has the move too, with its clock, once
    // the press has completed it (the page shows it as soon as it is made).
    {
        use std::io::Write;
        writeln!(daemon.0.stdin.as_mut().unwrap(), "w").unwrap();
    }
    let mut pgn = String::new();
    wait_for("the completed move in /games.pgn", Duration::from_secs(5), || {
        pgn = get(port, "/games.pgn").unwrap_or_default();
        pgn.contains("1. d4 {[%clk 0:0")
    });
}

fn mosquitto(port: u16, dir: &Path) -> Guard {
    let conf = dir.join("mosquitto.conf");
    std::fs::write(&conf, format!("listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")).unwrap();
    let bin = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"].into_iter().find(|p| Path::new(p).exists());
    let bin = bin.expect("mosquitto is installed by ./setup (apt-get install mosquitto)");
    let child = Command::new(bin).arg("-c").arg(&conf).stderr(Stdio::null()).stdout(Stdio::null()).spawn().unwrap();
    wait_for("mosquitto", Duration::from_secs(5), || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
    Guard(child)
}

#[test]
fn two_boards_reach_one_relay_through_mosquitto() {
    let dir = tempdir("relay");
    let (broker_port, relay_port) = (free_port(), free_port());
    let _broker = mosquitto(broker_port, &dir);
    let broker = format!("127.0.0.1:{broker_port}");
    let teams = dir.join("teams.toml");
    std::fs::write(
        &teams,
        "[[match]]\nname = \"School match\"\nwhite_on_odd_boards_for = \"home\"\n\
         [match.home]\nname = \"Oakfield\"\nboards = [\"b1\", \"b2\"]\n[match.away]\nname = \"Riverside\"\n",
    )
    .unwrap();
    let _relay = Guard(
        Command::new(env!("CARGO_BIN_EXE_tactus"))
            .current_dir(root())
            .args(["relay", "--broker", &broker, "--hall", "club", "--http", &format!("127.0.0.1:{relay_port}")])
            .arg("--teams")
            .arg(&teams)
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let boards: Vec<(&str, &str)> = vec![
        ("b1", "tests/traces/clean/clean-0002.trace.jsonl"),
        ("b2", "tests/traces/irregular/irregular-0005.trace.jsonl"),
    ];
    let mut daemons = Vec::new();
    for (id, trace) in &boards {
        daemons.push(Guard(
            Command::new(env!("CARGO_BIN_EXE_tactus"))
                .args(["run", "--board", "sim", "--sim-speed", "400", "--voice", "none", "--hall", "club"])
                .args(["--mqtt", &broker, "--board-id", id, "--sim-trace"])
                .arg(root().join(trace))
                .arg("--state-dir")
                .arg(dir.join(id))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        ));
    }
    for d in &mut daemons {
        assert!(d.0.wait().unwrap().success(), "a board daemon failed");
    }
    // Each board's game, as a replay of its trace records it.
    let want = |trace: &str| {
        let r = tactus_core::replay::replay(
            BufReader::new(std::fs::File::open(root().join(trace)).unwrap()),
            tactus_core::Policy::default(),
        )
        .unwrap();
        let last = r.session.game().played.last().map(|p| p.info.san.clone()).unwrap();
        (r.session.game().played.len(), last, r.session.game().ending.map(|e| e.result.as_str()))
    };
    let mut pgn = String::new();
    wait_for("both games in the relay's feed", Duration::from_secs(10), || {
        pgn = get(relay_port, "/games.pgn").unwrap_or_default();
        boards.iter().all(|(_, trace)| pgn.contains(&format!(" {} ", want(trace).1)))
    });
    assert_eq!(pgn.matches("[Event ").count(), 2, "{pgn}");
    assert!(pgn.contains("[WhiteTeam \"Oakfield\"]") && pgn.contains("[BlackTeam \"Riverside\"]"), "{pgn}");
    assert!(pgn.contains("[MatchScore "), "{pgn}");
    // irregular-0005 ends on a second illegal move: 0-1, and the arbiter view has the rulings.
    let (_, _, result) = want("tests/traces/irregular/irregular-0005.trace.jsonl");
    assert_eq!(result, Some("0-1"));
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
    let hall: serde_json::Value = serde_json::from_str(&get(relay_port, "/api/hall").unwrap()).unwrap();
    let b2 = hall["boards"].as_array().unwrap().iter().find(|b| b["id"] == "b2").unwrap();
    assert!(b2["irregularities"].as_array().unwrap().iter().any(|i| i["article"] == "7.5.1"), "{b2}");
}

#[test]
fn arbiter_actions_are_refused_without_the_token() {
    let dir = tempdir("token");
    let port = free_port();
    let _daemon = Guard(
        Command::new(env!("CARGO_BIN_EXE_tactus"))
            .current_dir(root())
            .args(["run", "--board", "sim", "--voice", "none", "--board-id", "b1", "--token", "s3cret", "--state-dir"])
            .arg(dir.join("state"))
            .arg("--http")
            .arg(format!("127.0.0.1:{port}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_for("the daemon's page", Duration::from_secs(10), || get(port, "/api/hall").is_some());
    let post = |auth: Option<&str>| -> String {
        use std::io::Write;
        let body = r#"{"side":"white","ms":60000}"#;
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let auth = auth.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
        write!(
            s,
            "POST /api/game/b1/penalty HTTP/1.0\r\nHost: x\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        text.lines().next().unwrap_or_default().to_string()
    };
    assert!(post(None).contains("401"), "no token");
    assert!(post(Some("guess")).contains("403"), "wrong token");
    assert!(post(Some("s3cret")).contains("200") || post(Some("s3cret")).contains("202"), "right token");
    // The accepted penalty reached the game: White's clock got a minute.
    wait_for("the penalty in the game", Duration::from_secs(5), || {
        get(port, "/api/hall").is_some_and(|h| h.contains("\"penalty\"") || h.contains("5460000"))
    });
}
