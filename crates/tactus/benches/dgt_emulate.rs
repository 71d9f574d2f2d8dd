//! `--dgt-emulate` through the daemon on a pty: a sensor edge (typed on the
//! sim board) to its FIELD_UPDATE on the wire, and a board dump request to
//! its reply. `cargo bench -p tactus --bench dgt_emulate`.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROUNDS: usize = 200;

/// Reads messages until one with id `want`; returns its data.
fn read_until(port: &mut dyn Read, want: u8) -> Vec<u8> {
    let mut head = [0u8; 3];
    loop {
        port.read_exact(&mut head[..1]).expect("read");
        if head[0] & 0x80 == 0 {
            continue;
        }
        port.read_exact(&mut head[1..]).expect("read");
        let len = ((head[1] as usize) << 7 | head[2] as usize).saturating_sub(3);
        let mut data = vec![0; len];
        port.read_exact(&mut data).expect("read");
        if head[0] == want {
            return data;
        }
    }
}

fn pct(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let dir = std::env::temp_dir().join(format!("tactus-bench-dgt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("empty.toml");
    std::fs::write(&config, "").unwrap();
    let link = dir.join("dgt");
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("run")
        .arg("--config")
        .arg(&config)
        .args(["--board", "sim", "--time-control", "-", "--state-dir"])
        .arg(dir.join("state"))
        .args(["--voice", "none", "--dgt-emulate"])
        .arg(&link)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tactus runs");
    let mut log = BufReader::new(daemon.stderr.take().unwrap()).lines();
    loop {
        let line = log.next().expect("the daemon's readiness line").unwrap();
        if line.contains("serving a DGT board at") {
            break;
        }
    }
    std::thread::spawn(move || log.for_each(drop));
    let mut board = daemon.stdin.take().unwrap();
    let mut port = serialport::new(link.to_str().unwrap(), 9600)
        .timeout(Duration::from_secs(30))
        .open_native()
        .expect("the pty opens");
    port.write_all(&[0x4B]).unwrap(); // DGT_SEND_UPDATE_NICE
    port.write_all(&[0x42]).unwrap(); // DGT_SEND_BRD
    read_until(&mut port, 0x86);
    let (mut edge, mut dump) = (Vec::new(), Vec::new());
    for i in 0..ROUNDS {
        let (typed, piece) = if i % 2 == 0 { ("e2-", 0) } else { ("e2+", 1) };
        let t0 = Instant::now();
        writeln!(board, "{typed}").unwrap();
        loop {
            let d = read_until(&mut port, 0x8E);
            // Field 52 is e2 (a8 = 0); 1 is a white pawn, 0 empty.
            if d == [52, piece] {
                break;
            }
        }
        edge.push(t0.elapsed());
        let t0 = Instant::now();
        port.write_all(&[0x42]).unwrap();
        read_until(&mut port, 0x86);
        dump.push(t0.elapsed());
    }
    drop(board);
    let _ = daemon.wait();
    for (name, v) in [("edge -> FIELD_UPDATE", &mut edge), ("dump -> reply", &mut dump)] {
        println!("{name}: p50 {:?}, p99 {:?}, max {:?} ({ROUNDS} rounds)", pct(v, 0.5), pct(v, 0.99), pct(v, 1.0));
    }
}
