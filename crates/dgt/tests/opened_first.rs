//! Chess software that opened the line before tactus did (over a USB gadget
//! port or a Bluetooth serial link, the PC's or phone's end is there first)
//! and sent its first requests once, as PicoChess's driver does: the board
//! answers them when it opens the line. The client (tests/client/
//! early_client.py) is written from DGT's protocol description and shares
//! no code with this crate.

mod common;

use common::{Client, WAIT};
use shakmaty::Square;
use tactus_dgt::emulate::Identity;
use tactus_dgt::protocol::{Field, Occupant, Orientation, Placement};
use tactus_dgt::{EmulatorEvent, EmulatorLink, Endpoint};

#[test]
fn requests_waiting_on_the_line_when_it_is_opened_are_answered() {
    let script = format!("{}/tests/client/early_client.py", env!("CARGO_MANIFEST_DIR"));
    let client = Client::spawn("python3", &[&script], "the early DGT client");
    let line = client.next();
    let path = line["line"].as_str().expect("the client names the board's end of the line");
    // DGT_SEND_UPDATE_NICE and DGT_SEND_VERSION (dgtbrd.h) wait on the line.
    assert_eq!(line["sent"], serde_json::json!([0x4b, 0x4d]));

    let endpoint = Endpoint::serving(path.as_ref()).expect("the client's line");
    assert_eq!(endpoint, Endpoint::Device(path.into()), "a serial device, as /dev/ttyGS0 is");
    let (link, events) = EmulatorLink::start(endpoint, Identity::default(), Placement::start()).unwrap();
    assert_eq!(events.recv_timeout(WAIT), Ok(EmulatorEvent::Opened));

    // DGT_SEND_VERSION, answered without being asked again.
    let version = client.next();
    assert_eq!(version["version"], "1.7", "{version}");
    // DGT_SEND_UPDATE_NICE: the board's changes come as field updates.
    let mut lifted = Placement::start();
    lifted.set(Square::E2, Occupant::Empty);
    link.set_placement(lifted);
    let update = client.next();
    let e2 = Field::of(Square::E2, Orientation::Normal);
    assert_eq!(update, serde_json::json!({"field": e2.index(), "piece": 0}));
}
