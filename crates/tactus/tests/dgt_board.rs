//! A DGT e-Board as the daemon's board (`[board] kind = "dgt"`): games
//! played on it as the board reports them. The board here is tactus-dgt's
//! emulator on a pseudo-terminal, speaking DGT's protocol as a board does;
//! the daemon reads it as it reads a real one. With a DGT clock on the
//! board its levers complete the moves; with none (the usual case) the
//! board holding still on a move completes it. Unplugged and plugged back,
//! the board is said to be lost and back.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use shakmaty::{CastlingSide, Chess, Color, Move, Position, Square, san::San};
use tactus_dgt::protocol::{ClockFaces, ClockSide, ClockStatus, Occupant, Placement};
use tactus_dgt::{EmulatorLink, Endpoint, emulate::Identity};

mod common;
use common::{EventStream, tactus_run, tempdir};

/// A DGT board emulated on a pseudo-terminal at `path`, showing `placement`
/// as the board lies (its own field order).
fn emulated_board(path: &Path, placement: Placement) -> EmulatorLink {
    let (board, _) = EmulatorLink::start(Endpoint::Pty(path.to_path_buf()), Identity::default(), placement).unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        assert!(Instant::now() < until, "the emulated board's pty never appeared");
        std::thread::sleep(Duration::from_millis(10));
    }
    board
}

/// `tactus run` on the DGT board at `path`, its state in `dir/state`, with
/// `config` after the board's section: its events as they come.
fn daemon(dir: &Path, path: &Path, config: &str) -> (Child, EventStream) {
    let file = dir.join("tactus.toml");
    std::fs::write(&file, format!("[board]\nkind = \"dgt\"\ndgt_path = \"{}\"\n\n{config}", path.display())).unwrap();
    let mut child = tactus_run(&file, &dir.join("state")).stdin(Stdio::null()).spawn().unwrap();
    let events = EventStream::of(&mut child);
    events.next("start");
    (child, events)
}

/// The placements a hand makes for `mv`: a captured piece off first, then
/// the piece lifted, then put down; castling king first, then the rook.
fn placements(pos: &Chess, mv: Move) -> Vec<Placement> {
    let mut board = Placement::from_board(pos.board());
    let mut out = Vec::new();
    let carry = |board: &mut Placement, out: &mut Vec<Placement>, from: Square, to: Square| {
        let piece = board.get(from);
        board.set(from, Occupant::Empty);
        out.push(*board);
        board.set(to, piece);
        out.push(*board);
    };
    match mv {
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(rook.file() > king.file());
            let color = pos.turn();
            carry(&mut board, &mut out, king, side.king_to(color));
            carry(&mut board, &mut out, rook, side.rook_to(color));
        }
        _ => {
            if mv.is_capture() {
                board.set(mv.to(), Occupant::Empty);
                out.push(board);
            }
            carry(&mut board, &mut out, mv.from().unwrap(), mv.to());
        }
    }
    out
}

/// The game in the journal left in `state`, as `tactus replay` plays it
/// back: its moves in SAN and its result.
fn replayed(state: &Path) -> (Vec<String>, String) {
    let current = std::fs::read_to_string(state.join("current")).ok();
    let journal = match current {
        Some(name) => state.join(name.trim()),
        // A finished game is no longer current: the only journal there is.
        None => std::fs::read_dir(state.join("games"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().ends_with(".trace.jsonl"))
            .unwrap(),
    };
    let out = Command::new(env!("CARGO_BIN_EXE_tactus")).arg("replay").arg(&journal).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pgn = String::from_utf8_lossy(&out.stdout).into_owned();
    // The movetext without its clock comments.
    let mut moves = String::new();
    for part in pgn.split('{') {
        moves.push_str(part.split_once('}').map_or(part, |(_, after)| after));
    }
    let movetext = moves.rsplit(']').next().unwrap_or_default();
    let words: Vec<&str> = movetext.split_whitespace().filter(|w| !w.ends_with('.')).collect();
    let (result, moves) = words.split_last().expect("a result");
    (moves.iter().map(|m| m.to_string()).collect(), result.to_string())
}

fn no_rulings(events: &EventStream) {
    for e in events.seen.borrow().iter() {
        assert!(!["irregularity", "penalty"].contains(&e["event"].as_str().unwrap()), "a ruling: {e}");
    }
}

#[test]
fn a_game_on_a_dgt_board_turned_half_a_turn_is_recognised_and_completed_by_its_levers() {
    let dir = tempdir("game");
    let path = dir.join("dgt");
    // The board lies turned: Black's pieces at the connector's side.
    let board = emulated_board(&path, Placement::start().rotated());
    let (mut child, events) = daemon(&dir, &path, "[game]\ntime_control = \"300+2\"\n\n[clock]\nwhite = \"left\"\n");
    // The clock: White on the left, Black's lever up. Black presses to
    // start White's clock, as players start a clock.
    let mut status = ClockStatus { running: true, lever_down: ClockSide::Left, ..ClockStatus::default() };
    board.set_clock(Some(ClockFaces { status, ..ClockFaces::default() }));
    let mut lever = |board: &EmulatorLink| {
        status.lever_down = status.lever_down.other();
        board.set_clock(Some(ClockFaces { status, ..ClockFaces::default() }));
    };
    lever(&board);
    events.next("resumed");

    let mut pos = Chess::default();
    let sans = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6", "O-O"];
    for san in sans {
        let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        for p in placements(&pos, mv) {
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
    assert_eq!((lost["device"].as_str(), lost["why"].as_str()), (Some("board"), Some("io")), "{lost}");
    let board = emulated_board(&path, Placement::from_board(pos.board()).rotated());
    assert_eq!(events.next("device_back")["device"], "board");
    drop(board);
    child.kill().unwrap();
    let _ = child.wait();
    no_rulings(&events);

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
    assert_eq!(replayed(&state), (sans.map(String::from).to_vec(), "*".to_string()));
}

/// The usual DGT board: no clock on it, and none configured. Each move
/// completes once the board holds still on it — a whole game, with
/// castling, captures and a mate, every move announced and completed.
#[test]
fn a_game_on_a_dgt_board_without_a_clock_is_completed_move_by_move_as_the_board_holds_still() {
    let dir = tempdir("no-clock");
    let path = dir.join("dgt");
    let board = emulated_board(&path, Placement::start());
    let (mut child, events) = daemon(&dir, &path, "");
    let sans = [
        "e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6", "O-O", "Ng4", "h3", "h5", "hxg4", "hxg4", "Nxe5", "Qh4", "Nxc6", "g3",
        "Nxa7", "Qh2#",
    ];
    let mut pos = Chess::default();
    for (i, san) in sans.into_iter().enumerate() {
        let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        for p in placements(&pos, mv) {
            board.set_placement(p);
        }
        let side = if i % 2 == 0 { Color::White } else { Color::Black };
        let made = events.next("move");
        assert_eq!((made["san"].as_str(), made["ply"].as_u64()), (Some(san), Some(i as u64 + 1)), "{made}");
        let complete = events.next("complete");
        assert_eq!(complete["san"], san, "the board held still on {san}: {complete}");
        assert_eq!(complete["side"], side.to_string().to_lowercase(), "{complete}");
        pos.play_unchecked(mv);
    }
    let over = events.next("game_over");
    assert_eq!((over["result"].as_str(), over["reason"].as_str()), (Some("0-1"), Some("checkmate")), "{over}");
    drop(board);
    child.kill().unwrap();
    let _ = child.wait();
    no_rulings(&events);
    assert_eq!(replayed(&dir.join("state")), (sans.map(String::from).to_vec(), "0-1".to_string()));
}
