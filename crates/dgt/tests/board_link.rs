//! The reader's serial glue on a device path: a DGT board (here the
//! emulated one, on a pty whose slave is linked at the path) is read,
//! followed through a whole game by the identity-aware recogniser, lost
//! when unplugged and read again when plugged back.

mod common;

use std::sync::mpsc::Receiver;
use std::time::Instant;

use common::{WAIT, game, steps};
use shakmaty::{Chess, Position};
use tactus_dgt::emulate::Identity;
use tactus_dgt::protocol::Placement;
use tactus_dgt::reader::{OrientationMode, ReaderEvent};
use tactus_dgt::recognise::Recogniser;
use tactus_dgt::{BoardLink, EmulatorLink, Endpoint};

fn expect(events: &Receiver<ReaderEvent>, wanted: impl Fn(&ReaderEvent) -> bool) -> ReaderEvent {
    let end = Instant::now() + WAIT;
    loop {
        match events.recv_timeout(end.saturating_duration_since(Instant::now())) {
            Ok(e) if wanted(&e) => return e,
            Ok(_) => continue,
            Err(e) => panic!("no such reader event within {WAIT:?}: {e}"),
        }
    }
}

#[test]
fn a_board_on_a_device_path_is_read_through_a_game_and_after_a_replug() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dgt");
    let (emulator, _) =
        EmulatorLink::start(Endpoint::Pty(path.clone()), Identity::default(), Placement::start()).unwrap();
    let (_board, events) = BoardLink::start(Endpoint::Device(path.clone()), OrientationMode::Detect).unwrap();
    let ReaderEvent::Connected(info) = expect(&events, |e| matches!(e, ReaderEvent::Connected(_))) else {
        unreachable!()
    };
    assert_eq!((info.version, info.serial.as_deref()), (Some((1, 7)), Some("07777")));
    let ReaderEvent::Placement { placement, .. } = expect(&events, |e| matches!(e, ReaderEvent::Placement { .. }))
    else {
        unreachable!()
    };
    assert_eq!(placement, Placement::start());

    let (mut pos, moves) = game(3);
    let mut recogniser = Recogniser::new(Chess::default());
    let mut board = placement;
    let mut played = Vec::new();
    for m in &moves {
        let steps = steps(&pos, *m);
        for p in &steps {
            emulator.set_placement(*p);
        }
        for _ in &steps {
            let ReaderEvent::Edge { sq, occupant, .. } = expect(&events, |e| matches!(e, ReaderEvent::Edge { .. }))
            else {
                unreachable!()
            };
            board.set(sq, occupant);
            played.extend(recogniser.board_changed(&board));
        }
        pos.play_unchecked(*m);
    }
    played.extend(recogniser.finish());
    assert_eq!(played, moves, "the game read back move for move");

    // Unplugged: the path goes away and the reader says so.
    drop(emulator);
    expect(&events, |e| matches!(e, ReaderEvent::Lost { .. }));
    // Plugged back with the pieces as they stand: read again.
    let now = Placement::from_board(pos.board());
    let (_emulator, _) = EmulatorLink::start(Endpoint::Pty(path), Identity::default(), now).unwrap();
    expect(&events, |e| matches!(e, ReaderEvent::Connected(_)));
    let again = expect(&events, |e| matches!(e, ReaderEvent::Placement { .. }));
    assert!(matches!(again, ReaderEvent::Placement { placement, .. } if placement == now));
}
