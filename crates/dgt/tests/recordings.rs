//! The recordings of a physical DGT board (tests/data, SOURCES.md there):
//! their bytes decode to the messages their recorder decoded, the board's
//! orientation is found from the starting position, and the field updates
//! replay to the games played — transients, slides and out-of-order scans
//! and all.

mod common;

use std::time::Instant;

use serde_json::Value;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position, san::San};
use tactus_dgt::protocol::{BoardMessage, BoardParser, ClockFaces, ClockSide, Face, Orientation};
use tactus_dgt::reader::{BoardReader, OrientationMode, ReaderEvent, ReaderOut};
use tactus_dgt::recognise::Recogniser;

fn data(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The serial reads of a recording.
fn reads(name: &str) -> Vec<Vec<u8>> {
    let lines = data(&format!("{name}.inbytes"));
    lines
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| common::base64(l).unwrap_or_else(|| panic!("{l}: not base64")))
        .collect()
}

/// A square as its field names it on a normally placed board.
fn field_name(index: u8) -> String {
    let sq = tactus_dgt::protocol::Field::new(index).unwrap().square(Orientation::Normal);
    sq.to_string()
}

fn face_json(face: &Face) -> Value {
    serde_json::json!({
        "hours": face.time.h, "minutes": face.time.m, "seconds": face.time.s,
        "final_flag": face.final_flag, "flag": face.flag, "time_per_move": face.time_per_move,
    })
}

fn clock_json(t: &ClockFaces) -> Value {
    let s = t.status;
    serde_json::json!({
        "left_clock": face_json(&t.left), "right_clock": face_json(&t.right),
        // The right lever high is the left one down.
        "clock_running": s.running, "right_high": s.lever_down == ClockSide::Left,
        "battery_indicator": s.battery_low, "left_turn": s.left_turn,
        "right_turn": s.right_turn, "no_clock": s.no_clock,
    })
}

/// A message as the recorder's JSON has it.
fn as_json(msg: &BoardMessage) -> Value {
    match msg {
        BoardMessage::BoardDump(fields) => {
            serde_json::json!({ "board": fields.iter().map(|o| o.to_string()).collect::<Vec<_>>() })
        }
        BoardMessage::FieldUpdate { field, occupant } => {
            serde_json::json!({ "piece": occupant.to_string(), "field": field_name(field.index()) })
        }
        BoardMessage::Clock(t) => clock_json(t),
        other => panic!("the recordings hold no {other:?}"),
    }
}

#[test]
fn the_bytes_decode_to_what_their_recorder_decoded_in_any_chunking() {
    for name in ["1", "2", "johan"] {
        let expected: Vec<Value> =
            data(&format!("{name}.json")).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let chunks = reads(name);
        let mut parser = BoardParser::default();
        let as_read: Vec<BoardMessage> = chunks.iter().flat_map(|c| parser.feed(c)).map(|m| m.unwrap()).collect();
        let decoded: Vec<Value> = as_read.iter().map(as_json).collect();
        assert_eq!(decoded.len(), expected.len(), "{name}: message count");
        for (i, (got, want)) in decoded.iter().zip(&expected).enumerate() {
            assert_eq!(got, want, "{name}: message {i}");
        }
        // The same stream a byte at a time, and in one piece.
        let all: Vec<u8> = chunks.concat();
        let mut parser = BoardParser::default();
        let bytewise: Vec<BoardMessage> = all.iter().flat_map(|b| parser.feed(&[*b])).map(|m| m.unwrap()).collect();
        assert_eq!(bytewise, as_read, "{name}: byte by byte");
        assert_eq!(BoardParser::default().feed(&all).len(), as_read.len(), "{name}: in one piece");
        // And they encode back to the very bytes the board sent.
        let encoded: Vec<u8> = as_read.iter().flat_map(BoardMessage::encode).collect();
        assert_eq!(encoded, all, "{name}: re-encoded");
    }
}

/// Replays a recording through the reader and the recogniser.
fn replay(name: &str) -> (Orientation, Vec<shakmaty::Move>, Chess) {
    let t0 = Instant::now();
    let mut reader = BoardReader::new(OrientationMode::Detect);
    let mut out = ReaderOut::default();
    reader.opened(t0, &mut out);
    let mut recogniser = None;
    let mut moves = Vec::new();
    for chunk in reads(name) {
        let mut out = ReaderOut::default();
        reader.received(&chunk, t0, &mut out);
        for event in out.events {
            match event {
                ReaderEvent::Placement { placement, .. } => {
                    let r = recogniser.get_or_insert_with(|| Recogniser::new(Chess::default()));
                    moves.extend(r.board_changed(&placement));
                }
                ReaderEvent::Edge { .. } => {
                    let r = recogniser.as_mut().expect("an edge before the first dump");
                    moves.extend(r.board_changed(&reader.placement()));
                }
                ReaderEvent::Garbage(g) => panic!("{name}: garbage in a clean recording: {g}"),
                _ => {}
            }
        }
    }
    let mut r = recogniser.expect("no dump in the recording");
    moves.extend(r.finish());
    (reader.orientation(), moves, r.position().clone())
}

/// The moves of a `.uci` file: "1. e2e4 e7e5" lines, `*` at the end.
fn uci_moves(name: &str) -> Vec<String> {
    data(&format!("{name}.uci"))
        .split_whitespace()
        .filter(|w| !w.ends_with('.') && *w != "*")
        .map(str::to_string)
        .collect()
}

#[test]
fn game_1_replays_to_its_moves() {
    let (orientation, moves, _) = replay("1");
    assert_eq!(orientation, Orientation::Normal);
    let got: Vec<String> = moves.into_iter().map(|m| UciMove::from_standard(m).to_string()).collect();
    assert_eq!(got, uci_moves("1"));
}

#[test]
fn game_2_was_played_on_a_rotated_board_and_replays_to_its_moves() {
    let (orientation, moves, _) = replay("2");
    assert_eq!(orientation, Orientation::Rotated);
    let got: Vec<String> = moves.into_iter().map(|m| UciMove::from_standard(m).to_string()).collect();
    assert_eq!(got, uci_moves("2"));
}

#[test]
fn johans_game_replays_to_its_pgn() {
    let (_, moves, _) = replay("johan");
    let mut pos = Chess::default();
    let mut got = Vec::new();
    for m in moves {
        got.push(San::from_move(&pos, m).to_string());
        pos.play_unchecked(m);
    }
    let pgn = data("johan.pgn");
    let want: Vec<&str> =
        pgn.split_whitespace().filter(|w| !w.ends_with('.') && !w.contains('-') || w.starts_with("O-O")).collect();
    assert_eq!(got, want);
    // The recording ends with the kings put on the centre squares after
    // 22. Qxc6 — DGT's way of entering a result — which is no move.
    assert!(matches!(pos.board().piece_at(shakmaty::Square::C6), Some(p) if p.role == shakmaty::Role::Queen));
}
