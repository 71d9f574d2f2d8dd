//! `tactus run --dgt-emulate PATH`: a DGT client written from DGT's protocol
//! description (crates/dgt/tests/client/dgt_client.py, Python, sharing no
//! code with tactus) on the pty the daemon serves follows a game typed on
//! the simulated board — every position, in order — through field updates
//! and the dumps it asks for after each, survives garbage and a reconnect;
//! and no client can stop the game: one that never reads, thousands that
//! open and go, a device path that is not there yet, a file at the path.
//! Needs python3 (./setup installs it); fails loudly without it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use serde_json::Value;
use serialport::SerialPort;
use shakmaty::{Chess, Position, uci::UciMove};

mod common;
use common::dgt_client::DgtClient;
use common::{Guard, empty_config, lines, signal, tactus_run, tempdir};

/// A bound on waiting for what must come, not a time anything should take.
const WAIT: Duration = Duration::from_secs(30);

fn next(rx: &Receiver<String>, what: &str) -> String {
    rx.recv_timeout(WAIT).unwrap_or_else(|e| panic!("{what}: nothing within {WAIT:?} ({e})"))
}

/// The daemon on a typed sim board, its log and its events.
struct Daemon {
    child: Guard,
    /// The typed board; closing it ends the game and the daemon.
    board: Option<ChildStdin>,
    log: Receiver<String>,
    events: Receiver<String>,
}

impl Daemon {
    /// `tactus run` on a typed sim board with `time_control`, serving a DGT
    /// board at `dgt`, its events on standard output.
    fn start(dir: &Path, time_control: &str, dgt: &Path, more: &[&std::ffi::OsStr]) -> Daemon {
        let mut child = tactus_run(&empty_config(), &dir.join("state"))
            .args(["--board", "sim", "--time-control", time_control])
            .args(more)
            .arg("--dgt-emulate")
            .arg(dgt)
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .env("NO_COLOR", "1")
            .spawn()
            .expect("tactus runs");
        let log = lines(child.stderr.take().unwrap());
        let events = lines(child.stdout.take().unwrap());
        let board = child.stdin.take();
        Daemon { child: Guard(child), board, log, events }
    }

    /// The first log line that contains `text`.
    fn logged(&self, text: &str) -> String {
        loop {
            let line = next(&self.log, &format!("the daemon's log line {text:?}"));
            if line.contains(text) {
                return line;
            }
        }
    }

    fn type_line(&mut self, line: &str) {
        let board = self.board.as_mut().expect("the typed board is open");
        writeln!(board, "{line}").unwrap();
        board.flush().unwrap();
    }

    /// Waits for the event that completes ply `ply` with `san`.
    fn completed(&self, ply: u64, san: &str) {
        loop {
            let line = next(&self.events, &format!("the event completing ply {ply} ({san})"));
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["event"] == "complete" && v["ply"] == ply {
                assert_eq!(v["san"], san, "{v}");
                return;
            }
        }
    }

    /// The typed board ends: the daemon stops, cleanly.
    fn finish(mut self) {
        self.board = None;
        self.exits("its typed board ended");
    }

    /// SIGTERM; the daemon must exit cleanly (the time it takes is measured
    /// in the bench, not here).
    fn terminate(mut self) {
        assert!(signal("-TERM", self.child.0.id()), "kill -TERM");
        self.exits("SIGTERM");
    }

    /// Waits, bounded, for the daemon to exit with success after `why`.
    fn exits(&mut self, why: &str) {
        let end = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.0.try_wait().unwrap() {
                assert!(status.success(), "the daemon exits cleanly after {why}: {status}");
                return;
            }
            assert!(Instant::now() < end, "the daemon did not exit within {WAIT:?} of {why}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The daemon on a typed sim board with `time_control`, serving a DGT board
/// on a pty in a directory of `name`'s own; returned once its readiness line
/// says the line is open.
fn serve(name: &str, time_control: &str, more: &[&std::ffi::OsStr]) -> (Daemon, PathBuf) {
    let dir = tempdir(name);
    let link = dir.join("dgt");
    let daemon = Daemon::start(&dir, time_control, &link, more);
    daemon.logged("serving a DGT board at");
    (daemon, link)
}

/// A game with captures, castling on both sides and a check; each ply as
/// typed on the simulated board, then the mover's clock press.
const GAME: &[(&str, &str)] = &[
    ("e2e4", "e2e4"),
    ("e7e5", "e7e5"),
    ("g1f3", "g1f3"),
    ("b8c6", "b8c6"),
    ("f1c4", "f1c4"),
    ("g8f6", "g8f6"),
    ("e1- h1- g1+ f1+", "e1g1"),
    ("f6xe4", "f6e4"),
    ("c4xf7", "c4f7"),
    ("e8xf7", "e8f7"),
];

#[test]
fn a_documents_written_client_follows_a_game_served_by_the_daemon() {
    let (mut daemon, link) = serve("game", "-", &[]);

    let mut client = DgtClient::start(&link);
    let mut pos = Chess::default();
    let ready = client.next();
    assert_eq!(ready["board"], pos.board().to_string(), "the dump at the introduction: {ready}");

    for (i, (typed, uci)) in GAME.iter().enumerate() {
        if i == 4 {
            // Line noise from the client, then it reopens the line mid-game.
            client.send("garbage");
            while client.next().get("survived").is_none() {}
            client.send("reconnect");
            loop {
                let v = client.next();
                if v.get("ready").is_some() {
                    assert_eq!(v["board"], pos.board().to_string(), "the dump after reconnecting");
                    break;
                }
            }
        }
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        let before = pos.board().to_string();
        pos.play_unchecked(m);
        let after = pos.board().to_string();
        daemon.type_line(typed);
        let side = if pos.turn() == shakmaty::Color::White { "b" } else { "w" };
        daemon.type_line(side);
        let seen = client.follow_to(&after);
        // Between two positions only one of them shows, less pieces in the air.
        let (prev, next): (shakmaty::Board, shakmaty::Board) = (before.parse().unwrap(), after.parse().unwrap());
        for b in &seen[..seen.len() - 1] {
            let shown: shakmaty::Board = b.parse().unwrap();
            assert!(
                lifted_from(&shown, &prev) || lifted_from(&shown, &next),
                "ply {}: {b} is neither {before} nor {after}, less lifted pieces",
                i + 1
            );
        }
    }
    client.send("quit");
    assert!(client.child.0.wait().unwrap().success(), "the client ends cleanly");
    daemon.finish();
}

/// `shown` is `full` with some pieces taken off (in the air).
fn lifted_from(shown: &shakmaty::Board, full: &shakmaty::Board) -> bool {
    shown.occupied().is_subset(full.occupied()) && shown.iter().all(|(sq, p)| full.piece_at(sq) == Some(p))
}

#[test]
fn the_games_clock_is_on_the_emulated_board_and_clock_commands_are_acknowledged() {
    use tactus_clockdev::DeviceKind;
    use tactus_clockdev::sim::{Saw, SimClock};
    // tactus's own clock: a client's texts and beeps go there.
    let dir = tempdir("clock-device");
    let clock_path = dir.join("tactus-clock");
    let sim = SimClock::plug(DeviceKind::Open, &clock_path).unwrap();
    let (mut daemon, link) = serve(
        "clock",
        "300+2",
        &["--clock".as_ref(), "open".as_ref(), "--clock-path".as_ref(), clock_path.as_os_str()],
    );
    let mut client = DgtClient::start(&link);
    assert!(client.next().get("ready").is_some());
    daemon.type_line("e2e4\nw");
    let mut pos = Chess::default();
    pos.play_unchecked("e2e4".parse::<UciMove>().unwrap().to_move(&pos).unwrap());
    client.follow_to(&pos.board().to_string());
    client.send("clock version");
    while client.next().get("ack").is_none() {}
    client.send("clock text e7e5");
    while client.next().get("ack").is_none() {}
    let wait = Duration::from_secs(30);
    assert!(
        sim.wait_for(wait, |s| matches!(s, Saw::Text(t) if t == "e7e5")).is_some(),
        "the client's text is on the clock"
    );
    client.send("clock beep 4");
    while client.next().get("ack").is_none() {}
    assert!(sim.wait_for(wait, |s| matches!(s, Saw::Beep(ms) if *ms > 0)).is_some(), "the client's beep");
    client.send("quit");
    assert!(client.child.0.wait().unwrap().success(), "the client ends cleanly");
    daemon.finish();
}

/// A client on the line that sends board dump requests (`0x42`) as fast as
/// the line takes them and never reads an answer, until stopped.
fn never_reading_client(path: &Path) -> (Arc<AtomicBool>, std::thread::JoinHandle<u64>) {
    let mut line = std::fs::OpenOptions::new().read(true).write(true).open(path).expect("the pty opens");
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let writer = std::thread::spawn(move || {
        let mut sent = 0;
        while !flag.load(Ordering::Relaxed) {
            line.write_all(&[0x42; 64]).expect("the board takes the client's requests");
            sent += 64;
        }
        sent
    });
    (stop, writer)
}

/// Issue 19: a client that asks for the board without ever reading the
/// answers fills the line; the game goes on (moves typed on the board are
/// completed) and SIGTERM still stops the daemon.
#[test]
fn a_client_that_never_reads_blocks_neither_the_game_nor_shutdown() {
    let (mut daemon, link) = serve("never-reads", "-", &[]);
    let (stop, writer) = never_reading_client(&link);
    let mut pos = Chess::default();
    for (ply, (typed, uci)) in GAME.iter().take(6).enumerate() {
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        let san = shakmaty::san::San::from_move(&pos, m).to_string();
        pos.play_unchecked(m);
        daemon.type_line(typed);
        daemon.type_line(if pos.turn() == shakmaty::Color::White { "b" } else { "w" });
        daemon.completed(ply as u64 + 1, &san);
    }
    daemon.terminate();
    stop.store(true, Ordering::Relaxed);
    // The daemon's end closes the line under the client.
    let _ = writer.join();
}

/// 3,000 clients that each open the line, ask for the board (`0x42`) and go
/// without reading the answer.
fn open_ask_and_go(link: &Path) {
    for i in 0..3000 {
        let mut line = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(link)
            .unwrap_or_else(|e| panic!("client {i}: {} does not open: {e}", link.display()));
        line.write_all(&[0x42]).unwrap_or_else(|e| panic!("client {i}: {e}"));
    }
}

/// Issue 19: thousands of clients that open the line, ask for the board and
/// go without reading leave nothing that stops the game or shutdown, and
/// the next client gets the board as it stands.
#[test]
fn three_thousand_clients_that_open_ask_and_go_block_nothing() {
    let (mut daemon, link) = serve("open-ask-go", "-", &[]);
    open_ask_and_go(&link);
    daemon.type_line("e2e4\nw");
    daemon.completed(1, "e4");
    let mut pos = Chess::default();
    pos.play_unchecked("e2e4".parse::<UciMove>().unwrap().to_move(&pos).unwrap());
    let client = DgtClient::start(&link);
    loop {
        let v = client.next();
        if let Some(board) = v.get("board") {
            assert!(v.get("ready").is_some(), "the first line is the introduction: {v}");
            assert_eq!(board, &pos.board().to_string(), "the board as it stands");
            break;
        }
    }
    drop(client);
    // Again, and nobody reads the answers before the daemon is stopped.
    open_ask_and_go(&link);
    daemon.type_line("e7e5\nb");
    daemon.completed(2, "e5");
    daemon.terminate();
}

/// Issue 19, defect 10: software that reads moves from the board asks for it
/// once field updates have stopped for 0.25 s (PicoChess's driver). Each
/// move must be on the emulated board as soon as it stands on the sensor
/// board, before the press, so that such a client sees every position in
/// turn even when the reply is begun 235 ms after the press.
#[test]
fn a_client_that_asks_after_the_updates_settle_sees_each_position_in_turn() {
    let (mut daemon, link) = serve("settled-dumps", "300+2", &[]);
    let client = DgtClient::start_with(&link, &["--dump-after", "0.25"]);
    let mut pos = Chess::default();
    assert_eq!(client.next()["board"], pos.board().to_string(), "the introduction");
    for (ply, uci) in ["d2d4", "d7d5", "c2c4", "e7e6", "b1c3", "g8f6", "c1g5", "f8e7"].iter().enumerate() {
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
        daemon.type_line(uci);
        // The position the move makes, dumped before the mover presses.
        let after = pos.board().to_string();
        loop {
            let v = client.next();
            if v.get("dump_ok").and_then(Value::as_str) == Some(after.as_str()) {
                break;
            }
        }
        daemon.type_line(if pos.turn() == shakmaty::Color::White { "b" } else { "w" });
        if ply % 2 == 0 {
            // The opponent's hand goes out at game pace, as in the issue.
            std::thread::sleep(Duration::from_millis(235));
        }
    }
    drop(client);
    daemon.finish();
}

/// Issue 19, defect 6: a regular file at the path is no place for a pty
/// link: the daemon refuses with an error naming the path and leaves the
/// file as it was.
#[test]
fn a_regular_file_at_the_path_is_left_intact() {
    let dir = tempdir("regular-file");
    let path = dir.join("notes.txt");
    std::fs::write(&path, "my game notes\n").unwrap();
    let mut daemon = Daemon::start(&dir, "-", &path, &[]);
    // Were it served, the typed board's end would end it with success.
    daemon.board = None;
    let status = daemon.child.0.wait().unwrap();
    let mut log = Vec::new();
    while let Ok(line) = daemon.log.recv_timeout(WAIT) {
        log.push(line);
    }
    assert_eq!(status.code(), Some(2), "a configuration error: {log:?}");
    assert!(log.iter().any(|l| l.contains(&path.display().to_string()) && l.contains("regular file")), "{log:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "my game notes\n", "the file is untouched");
}

/// Issue 19, defect 6: a device that is not there yet (`/dev/rfcomm0`
/// before a Bluetooth client connects) is waited for — said once, the game
/// served meanwhile — and served once it appears. Needs to write in /dev
/// (CI runs as root).
#[test]
fn a_missing_device_is_waited_for_and_served_when_it_appears() {
    let dir = tempdir("missing-device");
    let device = PathBuf::from(format!("/dev/tactus-test-dgt-{}", std::process::id()));
    let _ = std::fs::remove_file(&device);
    let mut daemon = Daemon::start(&dir, "-", &device, &[]);
    daemon.logged("waiting for it");
    assert!(std::fs::symlink_metadata(&device).is_err(), "nothing was made at {}", device.display());
    // The game is served meanwhile.
    daemon.type_line("e2e4\nw");
    daemon.completed(1, "e4");
    // The device appears: a serial line whose other end is this test.
    let (mut ours, theirs) = serialport::TTYPort::pair().expect("a pty pair");
    std::os::unix::fs::symlink(theirs.name().unwrap(), &device)
        .unwrap_or_else(|e| panic!("this test makes {} (run it as root, as CI does): {e}", device.display()));
    daemon.logged("serving a DGT board at");
    ours.set_timeout(WAIT).unwrap();
    ours.write_all(&[0x42]).unwrap();
    let mut dump = [0u8; 67];
    ours.read_exact(&mut dump).unwrap();
    assert_eq!(dump[..3], [0x86, 0, 67], "a board dump");
    // e2 (field 52) empty, e4 (field 36) a white pawn.
    assert_eq!((dump[3 + 52], dump[3 + 36]), (0, 1), "the board as it stands");
    daemon.terminate();
    std::fs::remove_file(&device).unwrap();
}

/// Issue 31, item 5: chess software whose end of a USB gadget or Bluetooth
/// line was open first, and that sent its introduction once before the
/// daemon opened the line (PicoChess: update mode, version; crates/dgt/
/// tests/client/early_client.py, written from DGT's document), is answered
/// and then follows the game.
#[test]
fn software_that_opened_the_line_first_is_answered_and_follows_the_game() {
    let client = Command::new("python3")
        .arg(common::root().join("crates/dgt/tests/client/early_client.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs the documents-written DGT client (./setup installs python3)");
    let mut client = Guard(client);
    let out = lines(client.0.stdout.take().unwrap());
    let line: Value = serde_json::from_str(&next(&out, "the client's line")).unwrap();
    assert_eq!(line["sent"], serde_json::json!([0x4b, 0x4d]), "DGT_SEND_UPDATE_NICE, DGT_SEND_VERSION wait");
    let path = PathBuf::from(line["line"].as_str().unwrap());
    let mut daemon = Daemon::start(&tempdir("opened-first"), "-", &path, &[]);
    let version: Value = serde_json::from_str(&next(&out, "the answer to DGT_SEND_VERSION")).unwrap();
    assert_eq!(version, serde_json::json!({"version": "1.7"}));
    daemon.type_line("e2e4\nw");
    daemon.completed(1, "e4");
    // Field updates, as DGT_SEND_UPDATE_NICE asked: e2 (field 52) emptied,
    // a white pawn (1) on e4 (field 36).
    let updates: Vec<Value> = (0..2).map(|_| serde_json::from_str(&next(&out, "a field update")).unwrap()).collect();
    assert_eq!(updates, [serde_json::json!({"field": 52, "piece": 0}), serde_json::json!({"field": 36, "piece": 1})]);
    daemon.terminate();
}

/// Issue 19, defect 6: the service's device allow-list lets the emulation
/// open what it serves on — a pty (`/dev/ptmx` and the pts it makes), a USB
/// gadget port (`ttyGS`), a Bluetooth SPP tty (`rfcomm`), by the names in
/// /proc/devices that systemd resolves `char-…` with.
#[test]
fn the_service_unit_lets_the_emulation_open_its_lines() {
    let unit = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../systemd/tactus.service"))
        .unwrap();
    let allowed: Vec<&str> = unit.lines().filter_map(|l| l.strip_prefix("DeviceAllow=")).collect();
    assert!(unit.contains("\nDevicePolicy=closed\n"), "the allow-list is in force");
    // The pts a pty's other end is: its driver's name, as the kernel lists it.
    let (_master, slave) = serialport::TTYPort::pair().expect("a pty pair");
    let rdev = std::fs::metadata(slave.name().unwrap()).map(|m| std::os::unix::fs::MetadataExt::rdev(&m)).unwrap();
    let major = (rdev >> 8) & 0xfff;
    let devices = std::fs::read_to_string("/proc/devices").unwrap();
    let chars = devices.split("Block devices:").next().unwrap();
    let pts = chars
        .lines()
        .find_map(|l| l.trim().split_once(' ').filter(|(n, _)| n.parse() == Ok(major)).map(|(_, name)| name))
        .unwrap_or_else(|| panic!("major {major} in /proc/devices"));
    for device in ["/dev/ptmx", &format!("char-{pts}"), "char-ttyGS", "char-rfcomm"] {
        assert!(
            allowed.contains(&format!("{device} rw").as_str()),
            "DeviceAllow={device} rw is in the unit: {allowed:?}"
        );
    }
}
