//! Figures for the emulated board on a pseudo-terminal, read by a client on
//! the other end: a change of the game's position to its
//! `DGT_MSG_FIELD_UPDATE` readable by the client, and a `DGT_SEND_BRD` to
//! its 67-byte dump. Targets: ≤ 10 ms at the 99th percentile. Prints the
//! figures; asserts nothing about speed.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use shakmaty::Square;
use tactus_dgt::emulate::Identity;
use tactus_dgt::protocol::{Occupant, Placement};
use tactus_dgt::{EmulatorEvent, EmulatorLink, Endpoint};

const ROUNDS: usize = 1000;

fn read_exactly(port: &mut dyn Read, n: usize) -> std::io::Result<()> {
    let mut buf = vec![0u8; n];
    port.read_exact(&mut buf)
}

fn summary(name: &str, v: Vec<Duration>) {
    let v = tactus_stats::Sorted::new(v);
    let at = |p| v.percentile(p).unwrap_or_default();
    println!(
        "{name}: n={} p50={:.3} ms p90={:.3} ms p99={:.3} ms max={:.3} ms",
        v.len(),
        at(50).as_secs_f64() * 1e3,
        at(90).as_secs_f64() * 1e3,
        at(99).as_secs_f64() * 1e3,
        at(100).as_secs_f64() * 1e3
    );
}

fn main() -> std::io::Result<()> {
    let dir = std::env::temp_dir().join(format!("tactus-dgt-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("dgt-board");
    let (link, events) = EmulatorLink::start(Endpoint::Pty(path.clone()), Identity::default(), Placement::start())?;
    assert_eq!(events.recv_timeout(Duration::from_secs(10)).ok(), Some(EmulatorEvent::Opened));
    let mut client = serialport::new(path.to_string_lossy(), 9600).timeout(Duration::from_secs(5)).open_native()?;

    // Update mode; the version answer shows the board is listening.
    client.write_all(&[0x4b, 0x4d])?;
    read_exactly(&mut client, 5)?;

    let start = Placement::start();
    let mut lifted = start;
    lifted.set(Square::E2, Occupant::Empty);
    let mut edge = Vec::with_capacity(ROUNDS);
    for i in 0..ROUNDS {
        let p = if i % 2 == 0 { lifted } else { start };
        let t0 = Instant::now();
        link.set_placement(p);
        read_exactly(&mut client, 5)?;
        edge.push(t0.elapsed());
    }
    summary("position change to FIELD_UPDATE read by the client", edge);

    let mut dump = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let t0 = Instant::now();
        client.write_all(&[0x42])?;
        read_exactly(&mut client, 67)?;
        dump.push(t0.elapsed());
    }
    summary("DGT_SEND_BRD to its dump read by the client", dump);
    drop(link);
    std::fs::remove_dir_all(&dir)
}
