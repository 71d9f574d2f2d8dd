//! What the integration tests share: games played through the core, a
//! plain HTTP client, and a private mosquitto.

#![allow(dead_code)] // each test binary uses its own part

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tactus_core::{Event, Policy, Session};
use tactus_sim::{Profile, random_game, simulate};
use tactus_trace::Header;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// A random game played on the simulated board and recognised by the core:
/// its header, every event, and the moves an arbiter records.
pub fn played(seed: u64, plies: usize, chess960: bool, profile: Profile, time_control: Option<&str>) -> Game {
    let spec = random_game(seed, plies, chess960);
    let (entries, expect) = simulate(&spec, profile, seed);
    let mut header = spec.header();
    header.time_control = time_control.map(str::to_string);
    header.white = Some(format!("White {seed}"));
    header.black = Some(format!("Black {seed}"));
    header.event = Some("tactus test".into());
    header.round = Some(seed.to_string());
    let mut session = Session::new(&header, Policy::default()).expect("a simulated game starts");
    let mut events: Vec<Event> = session.drain().collect();
    for entry in entries {
        session.handle(entry);
        events.extend(session.drain());
    }
    Game { header, events, moves: expect.moves_san }
}

pub struct Game {
    pub header: Header,
    pub events: Vec<Event>,
    pub moves: Vec<String>,
}

pub struct Response {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// One HTTP/1.0 request: the server closes the connection after the reply,
/// so the body is whatever comes before the end.
pub async fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Response {
    let mut stream = TcpStream::connect(addr).await.expect("connect to the test server");
    let mut req = format!("{method} {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let raw = String::from_utf8(raw).expect("a UTF-8 reply");
    let (head, body) = raw.split_once("\r\n\r\n").expect("a reply with a head");
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status code");
    Response { status, head: head.to_string(), body: body.to_string() }
}

pub async fn get(addr: SocketAddr, path: &str) -> Response {
    request(addr, "GET", path, &[], "").await
}

/// A server-sent event stream, read event by event.
pub struct Events {
    reader: BufReader<TcpStream>,
}

impl Events {
    pub async fn open(addr: SocketAddr) -> Events {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(format!("GET /events HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes()).await.unwrap();
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        loop {
            line.clear();
            reader.read_line(&mut line).await.unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
        }
        Events { reader }
    }

    /// The next event's name and data (keep-alive comments skipped).
    pub async fn next(&mut self) -> (String, serde_json::Value) {
        let (mut name, mut data) = (String::new(), String::new());
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.reader.read_line(&mut line).await.unwrap();
            assert!(n > 0, "the event stream ended");
            let l = line.trim_end_matches(['\r', '\n']);
            if l.is_empty() {
                if !data.is_empty() {
                    return (name, serde_json::from_str(&data).expect("event data is JSON"));
                }
            } else if let Some(v) = l.strip_prefix("event:") {
                name = v.trim().to_string();
            } else if let Some(v) = l.strip_prefix("data:") {
                data.push_str(v.trim_start());
            }
        }
    }

    pub async fn next_within(&mut self, limit: Duration) -> (String, serde_json::Value) {
        tokio::time::timeout(limit, self.next()).await.expect("an event in time")
    }
}

/// Polls until `check` holds, at most `limit`.
pub async fn eventually<F: AsyncFnMut() -> bool>(limit: Duration, what: &str, mut check: F) {
    let start = Instant::now();
    while !check().await {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn find_program(name: &str, also: &[&str]) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .chain(also.iter().map(PathBuf::from))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} is not installed: apt-get install -y {name}"))
}

pub fn pgn_extract() -> PathBuf {
    find_program("pgn-extract", &["/usr/games/pgn-extract"])
}

/// A mosquitto of the test's own on a free port of 127.0.0.1, stopped on drop.
pub struct Mosquitto {
    child: Child,
    pub port: u16,
    /// With the shipped configuration: the CA that signed the broker's certificate.
    pub ca_file: Option<PathBuf>,
    dir: tempfile::TempDir,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn run(program: &std::path::Path, args: &[&str], dir: &std::path::Path) {
    let out = Command::new(program).args(args).current_dir(dir).output().expect("the program runs");
    assert!(out.status.success(), "{} {args:?}: {}", program.display(), String::from_utf8_lossy(&out.stderr));
}

impl Mosquitto {
    /// An open broker: anyone may connect, read and write anything.
    pub fn start() -> Mosquitto {
        Mosquitto::on(free_port())
    }

    /// On a given port (to restart one in the same place). It logs its
    /// clients' connections to a file of its own ([`Mosquitto::connections`]);
    /// run as root, it stays root to write there (a user's files are its own).
    pub fn on(port: u16) -> Mosquitto {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("mosquitto.log");
        let text = format!(
            "listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nmax_connections -1\n\
             max_queued_messages 100000\nmax_inflight_messages 0\nlog_dest file {}\nlog_type notice\n\
             user root\n",
            log.display()
        );
        Mosquitto::with_config(port, dir, &text, None)
    }

    /// How many times a client whose id starts with `client` has connected,
    /// as the broker's log says (`New client connected from … as <id>`).
    pub fn connections(&self, client: &str) -> usize {
        let log = std::fs::read_to_string(self.dir.path().join("mosquitto.log")).unwrap_or_default();
        log.lines().filter(|l| l.contains("New client connected") && l.contains(&format!(" as {client}"))).count()
    }

    /// How clients whose ids start with `client` left, as the broker's log
    /// says: (said goodbye, MQTT's DISCONNECT: `Client <id> disconnected.`;
    /// dropped the connection without one: `Client <id> closed its connection.`).
    pub fn departures(&self, client: &str) -> (usize, usize) {
        let log = std::fs::read_to_string(self.dir.path().join("mosquitto.log")).unwrap_or_default();
        let mut left = (0, 0);
        for (at, _) in log.match_indices("Client ") {
            let rest = &log[at + "Client ".len()..];
            let Some((id, how)) = rest.split_once(' ') else { continue };
            if !id.starts_with(client) {
                continue;
            }
            if how.starts_with("disconnected.") {
                left.0 += 1;
            } else if how.starts_with("closed its connection.") {
                left.1 += 1;
            }
        }
        left
    }

    /// The broker of `config/mosquitto/` as shipped (logins, the ACL, TLS),
    /// on a free port of 127.0.0.1, with its files in a directory of the
    /// test's own: a CA and the broker's certificate made with `openssl`,
    /// and a password file with these users made with `mosquitto_passwd`.
    pub fn shipped(users: &[(&str, &str)]) -> Mosquitto {
        let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/mosquitto");
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let openssl = find_program("openssl", &[]);
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
        let ca = [&["req", "-x509"][..], &ec, &["-keyout", "ca.key", "-out", "ca.crt", "-days", "2"]].concat();
        run(
            &openssl,
            &[&ca[..], &["-subj", "/CN=tactus test CA", "-addext", "basicConstraints=critical,CA:TRUE"]].concat(),
            d,
        );
        run(
            &openssl,
            &[&["req"][..], &ec, &["-keyout", "broker.key", "-out", "broker.csr", "-subj", "/CN=127.0.0.1"]].concat(),
            d,
        );
        std::fs::write(
            d.join("ext"),
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
        )
        .unwrap();
        run(
            &openssl,
            &[
                "x509",
                "-req",
                "-in",
                "broker.csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "broker.crt",
                "-days",
                "2",
                "-extfile",
                "ext",
            ],
            d,
        );
        let passwd = find_program("mosquitto_passwd", &["/usr/bin/mosquitto_passwd"]);
        std::fs::write(d.join("passwd"), "").unwrap();
        for (user, password) in users {
            run(&passwd, &["-b", "passwd", user, password], d);
        }
        std::fs::copy(shipped.join("acl"), d.join("acl")).unwrap();
        let port = free_port();
        let here = d.display().to_string();
        let mut text = std::fs::read_to_string(shipped.join("tactus.conf"))
            .unwrap()
            .replace("/etc/mosquitto/tactus", &here)
            .replace("listener 8883", &format!("listener {port} 127.0.0.1"))
            .replace("persistence true", "persistence false");
        // Not to drop to the mosquitto user when run as root: the files are the test's.
        text.push_str("user root\nlog_dest stderr\nlog_type error\n");
        let ca = d.join("ca.crt");
        Mosquitto::with_config(port, dir, &text, Some(ca))
    }

    fn with_config(port: u16, dir: tempfile::TempDir, text: &str, ca_file: Option<PathBuf>) -> Mosquitto {
        let program = find_program("mosquitto", &["/usr/sbin/mosquitto"]);
        let conf = dir.path().join("mosquitto.conf");
        std::fs::write(&conf, text).unwrap();
        let mut child = Command::new(program)
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("mosquitto starts");
        // A bound for failure only; a mosquitto that exited (its port taken
        // meanwhile, say) is said at once.
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("mosquitto exited ({status}) before it listened on {port}");
            }
            assert!(start.elapsed() < Duration::from_secs(60), "mosquitto did not listen on {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        Mosquitto { child, port, ca_file, dir }
    }

    /// A file of the test's own with `text`, readable by its owner only.
    pub fn secret(&self, name: &str, text: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        path
    }
}

impl Drop for Mosquitto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
