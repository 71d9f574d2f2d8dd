//! What the load benchmarks share: a private mosquitto, the hall's link to
//! it, the boards' games made through the simulated board and the core,
//! their publishers, the figures' percentiles.

#![allow(dead_code)] // each bench uses its own part

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng, rngs::SmallRng};
use tactus_core::{Event, Policy, Session};
use tactus_net::{BoardPublisher, Broker, HallKey, HallLink, Tags};
use tactus_sim::{Profile, random_game, simulate};
use tactus_trace::Header;
use tokio_util::sync::CancellationToken;

/// The bench's setting `name` from the environment, else `default`.
pub fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A setting `name` from the environment, else `full` under `cargo bench`
/// or `smoke` for the short smoke run `cargo test --benches` makes (it runs
/// the bench without `--bench`).
pub fn sized(name: &str, full: u64, smoke: u64) -> u64 {
    let bench = std::env::args().any(|a| a == "--bench");
    env_or(name, if bench { full } else { smoke })
}

/// The runtime the bench's boards and clients run on: two worker threads.
pub fn two_workers() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// The hall's link to the broker on `port`, every message sealed with `key`
/// and checked, as in a hall with a hall key.
pub fn link(port: u16, key: &[u8]) -> HallLink {
    HallLink::new(Broker::new("127.0.0.1", port)).with_key(HallKey::from_bytes(key).unwrap())
}

/// A child process killed when dropped, with the directory it needs.
// The directory is never read, only kept: the child's files live as long as it does.
pub struct Killed(pub Child, #[allow(dead_code)] pub Option<tempfile::TempDir>);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A private mosquitto on a free port, returned once it listens: one
/// connection per board plus the relay, and no queue that could overflow
/// into dropped messages while the relay catches up.
pub fn mosquitto() -> (Killed, u16) {
    let program = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .expect("mosquitto is not installed: apt-get install -y mosquitto");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("mosquitto.conf");
    let text = format!(
        "listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nmax_connections -1\n\
         max_queued_messages 0\nmax_inflight_messages 0\nlog_dest none\n"
    );
    std::fs::write(&conf, text).unwrap();
    let child = Command::new(program).arg("-c").arg(&conf).stdin(Stdio::null()).spawn().unwrap();
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(5), "mosquitto did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    (Killed(child, Some(dir)), port)
}

/// A game with blitz-like thinking times (about `think_ms` a move) at an
/// hour and two seconds, through the simulated board and the core; its
/// header's names set by `name`.
pub fn game(seed: u64, think_ms: u64, name: impl FnOnce(&mut Header)) -> (Tags, Vec<Event>) {
    let mut spec = random_game(seed, 120, false);
    let mut rng = SmallRng::seed_from_u64(seed);
    spec.think_ms = (0..spec.moves.len()).map(|_| rng.random_range(think_ms / 4..=think_ms * 7 / 4)).collect();
    let (entries, _) = simulate(&spec, Profile::Realistic, seed);
    let mut header = spec.header();
    header.time_control = Some("3600+2".into());
    name(&mut header);
    let mut session = Session::new(&header, Policy::default()).unwrap();
    let mut events: Vec<Event> = session.drain().collect();
    for e in entries {
        session.handle(e);
        events.extend(session.drain());
    }
    (Tags::from(&header), events)
}

/// A publisher for each board `b0001`… of `boards` in `hall`.
pub fn publishers(link: &HallLink, hall: &str, boards: impl Iterator<Item = usize>) -> Vec<Arc<BoardPublisher>> {
    boards
        .map(|i| {
            Arc::new(BoardPublisher::start(link, hall, &format!("b{i:04}"), None, &CancellationToken::new()).unwrap())
        })
        .collect()
}
