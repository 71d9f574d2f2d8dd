//! The line's boundary (issue 19): a client that stops reading blocks
//! nothing, loses the line for no one, and when it reads again gets the
//! newest answers — not the backlog of everything it asked meanwhile.

mod common;

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use common::WAIT;
use shakmaty::Square;
use tactus_dgt::emulate::Identity;
use tactus_dgt::protocol::{Occupant, Orientation, Placement};
use tactus_dgt::{EmulatorEvent, EmulatorLink, Endpoint};

/// Reads DGT messages off `line` until a board dump that is `want`;
/// returns how many bytes came before it.
fn read_until_dump(line: &mut dyn Read, want: &Placement) -> usize {
    let want: Vec<u8> = want.fields(Orientation::Normal).iter().map(|o| o.code()).collect();
    let mut before = 0;
    let mut head = [0u8; 3];
    loop {
        line.read_exact(&mut head[..1]).expect("the line answers");
        if head[0] != 0x86 {
            before += 1;
            continue;
        }
        line.read_exact(&mut head[1..]).expect("the line answers");
        let mut data = vec![0; 64];
        if head[1..] != [0, 67] {
            before += 3;
            continue;
        }
        line.read_exact(&mut data).expect("the line answers");
        if data == want {
            return before;
        }
        before += 67;
    }
}

#[test]
fn a_client_that_stops_reading_for_a_second_gets_the_newest_board_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dgt");
    let (link, events) =
        EmulatorLink::start(Endpoint::Pty(path.clone()), Identity::default(), Placement::start()).unwrap();
    let link = Arc::new(link);
    assert_eq!(events.recv_timeout(WAIT), Ok(EmulatorEvent::Opened));
    let mut client = serialport::new(path.to_string_lossy(), 9600).timeout(WAIT).open_native().expect("the pty opens");
    client.write_all(&[0x40, 0x42]).unwrap(); // reset, board
    assert_eq!(read_until_dump(&mut client, &Placement::start()), 0);

    // For a second the client asks for the board as fast as it can and
    // reads nothing; meanwhile a move is made.
    let stop = Arc::new(AtomicBool::new(false));
    let mut flooder = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
    // Its writes never wait: were the board to stop reading, it goes on.
    rustix::fs::fcntl_setfl(&flooder, rustix::fs::OFlags::NONBLOCK).unwrap();
    let flag = Arc::clone(&stop);
    let flood = std::thread::spawn(move || {
        let mut sent = 0u64;
        while !flag.load(Ordering::Relaxed) {
            match flooder.write(&[0x42; 16]) {
                Ok(n) => sent += n as u64,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::thread::yield_now(),
                Err(e) => panic!("the line failed under the client: {e}"),
            }
        }
        sent
    });
    let until = Instant::now() + Duration::from_secs(1);
    let mut moved = Placement::start();
    moved.set(Square::E2, Occupant::Empty);
    moved.set(Square::E4, Placement::start().get(Square::E2));
    std::thread::sleep(Duration::from_millis(500));
    // The owner (the game) never waits on the line: bounded here, so that a
    // link that blocks fails the test instead of hanging it.
    let (done, returned) = mpsc::channel();
    let owner = Arc::clone(&link);
    std::thread::spawn(move || {
        owner.set_placement(moved);
        let _ = done.send(());
    });
    returned.recv_timeout(WAIT).expect("set_placement returns while the client does not read");
    std::thread::sleep(until.saturating_duration_since(Instant::now()));
    stop.store(true, Ordering::Relaxed);
    let asked = flood.join().unwrap();
    assert!(asked > 10_000, "the client asked {asked} times");

    // It reads again: the line is still there, and the newest board comes
    // after at most a few answers, not the thousands it asked for.
    client.write_all(&[0x42]).unwrap();
    let before = read_until_dump(&mut client, &moved);
    assert!(before <= 16 * 1024, "{before} bytes of old answers first ({asked} asked)");
    // And the line goes on as before.
    client.write_all(&[0x4d]).unwrap();
    let mut version = [0u8; 5];
    client.read_exact(&mut version).unwrap();
    while version[0] != 0x93 {
        version.rotate_left(1);
        client.read_exact(&mut version[4..]).unwrap();
    }
    assert_eq!(version, [0x93, 0, 5, 1, 7]);
    assert!(!events.try_iter().any(|e| matches!(e, EmulatorEvent::Closed { .. })), "the line was never lost");
}
