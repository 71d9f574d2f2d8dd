//! A DGT e-Board as the daemon's board (`[board] kind = "dgt"`): a game
//! played on a board turned half a turn, its moves made by placements as
//! the board reports them and completed by the DGT clock's levers. The
//! board here is tactus-dgt's emulator on a pseudo-terminal, speaking DGT's
//! protocol as a board does; the daemon reads it as it reads a real one.
//! Unplugged and plugged back, the board is said to be lost and back.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use shakmaty::{Chess, Move, Position, san::San};
use tactus_dgt::protocol::clock::{STATUS_RIGHT_HIGH, STATUS_RUNNING};
use tactus_dgt::protocol::{ClockTimes, Occupant, Placement};
use tactus_dgt::{EmulatorLink, Endpoint, emulate::Identity};

mod common;
use common::EventStream;

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tactus-dgt-board-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The placements a hand makes for `mv`: a captured piece off first, then
/// the piece lifted, then put down.
fn placements(pos: &Chess, mv: Move) -> Vec<Placement> {
    let mut board = Placement::from_board(pos.board());
    let mut out = Vec::new();
    if mv.is_capture() {
        board.set(mv.to(), Occupant::Empty);
        out.push(board);
    }
    let from = mv.from().unwrap();
    let piece = board.get(from);
    board.set(from, Occupant::Empty);
    out.push(board);
    board.set(mv.to(), piece);
    out.push(board);
    out
}

#[test]
fn a_game_on_a_dgt_board_turned_half_a_turn_is_recognised_and_completed_by_its_levers() {
    let dir = tempdir("game");
    let path = dir.join("dgt");
    // The board lies turned: Black's pieces at the connector's side.
    let (board, _) =
        EmulatorLink::start(Endpoint::Pty(path.clone()), Identity::default(), Placement::start().rotated()).unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        assert!(Instant::now() < until, "the emulated board's pty never appeared");
        std::thread::sleep(Duration::from_millis(10));
    }
    let config = dir.join("tactus.toml");
    std::fs::write(
        &config,
        format!(
            "[board]\nkind = \"dgt\"\ndgt_path = \"{}\"\n\n[game]\ntime_control = \"300+2\"\n\n[clock]\nwhite = \"left\"\n",
            path.display()
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("run")
        .arg("--config")
        .arg(&config)
        .arg("--state-dir")
        .arg(dir.join("state"))
        .args(["--voice", "none", "--events", "-"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let events = EventStream::of(&mut child);
    events.next("start");
    // The clock: White on the left, Black's lever up. Black presses to
    // start White's clock, as players start a clock.
    let mut status = STATUS_RUNNING | STATUS_RIGHT_HIGH;
    board.set_clock(Some(ClockTimes { status, ..ClockTimes::default() }));
    let mut lever = |board: &EmulatorLink| {
        status ^= STATUS_RIGHT_HIGH;
        board.set_clock(Some(ClockTimes { status, ..ClockTimes::default() }));
    };
    lever(&board);
    events.next("resumed");

    let mut pos = Chess::default();
    let sans = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6", "O-O"];
    for san in sans {
        let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        let steps = match mv {
            Move::Castle { .. } => {
                // King first, then the rook.
                let mut b = Placement::from_board(pos.board());
                let mut out = Vec::new();
                for (from, to) in
                    [(shakmaty::Square::E1, shakmaty::Square::G1), (shakmaty::Square::H1, shakmaty::Square::F1)]
                {
                    let piece = b.get(from);
                    b.set(from, Occupant::Empty);
                    out.push(b);
                    b.set(to, piece);
                    out.push(b);
                }
                out
            }
            _ => placements(&pos, mv),
        };
        for p in steps {
            board.set_placement(p.rotated());
        }
        assert_eq!(events.next("move")["san"], san, "the board shows {san}");
        lever(&board);
        assert_eq!(events.next("complete")["san"], san, "the lever completes {san}");
        pos.play_unchecked(mv);
    }
    // The board unplugged: the players are told, and told when it is back.
    drop(board);
    let lost = events.next("device_lost");
    assert_eq!(lost["device"], "board", "{lost}");
    let placement = Placement::from_board(pos.board()).rotated();
    let (board, _) = EmulatorLink::start(Endpoint::Pty(path.clone()), Identity::default(), placement).unwrap();
    assert_eq!(events.next("device_back")["device"], "board");
    drop(board);
    child.kill().unwrap();
    let _ = child.wait();
    for e in events.seen.borrow().iter() {
        assert!(!["irregularity", "penalty"].contains(&e["event"].as_str().unwrap()), "a ruling: {e}");
    }

    // The journal left behind is version 2: the board knows its pieces, and
    // each square filled says which piece was put down.
    let state = dir.join("state");
    let current = std::fs::read_to_string(state.join("current")).unwrap();
    let journal = state.join(current.trim());
    let text = std::fs::read_to_string(&journal).unwrap();
    let (header, reader) = tactus_trace::TraceReader::new(text.as_bytes()).unwrap();
    assert_eq!((reader.version(), header.board), (2, Some(tactus_trace::BoardKind::Dgt)), "{text}");
    let entries: Vec<tactus_trace::Entry> = reader.collect::<Result<_, _>>().unwrap();
    let placed: Vec<String> = entries
        .iter()
        .filter_map(|e| match e.record {
            tactus_trace::Record::Edge { sq, on: true, piece } => {
                Some(format!("{}{sq}", piece.map_or('?', |p| p.char())))
            }
            _ => None,
        })
        .collect();
    // The squares 1. e4 … 5. O-O filled, the castling king first.
    let want = ["Pe4", "pe5", "Nf3", "nc6", "Bb5", "pa6", "Bc6", "pc6", "Kg1", "Rf1"];
    assert_eq!(placed, want, "{text}");
    // `tactus replay` plays it back to the game.
    let out = Command::new(env!("CARGO_BIN_EXE_tactus")).arg("replay").arg(&journal).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pgn = String::from_utf8_lossy(&out.stdout);
    // The movetext without its clock comments.
    let mut moves = String::new();
    for part in pgn.split('{') {
        moves.push_str(part.split_once('}').map_or(part, |(_, after)| after));
    }
    let movetext = moves.rsplit(']').next().unwrap_or_default();
    let moves: Vec<&str> = movetext.split_whitespace().filter(|w| !w.ends_with('.') && *w != "*").collect();
    assert_eq!(moves, sans, "{pgn}");
}
