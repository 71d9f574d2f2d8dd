//! The round's pairing in the trace: it decides over the header's players,
//! event and round in the record, from the line where the hall sent it,
//! and the core tells it as an event; the board and the clock do not move.

use tactus_core::{EventKind, Policy, pgn, replay};

mod common;
use common::Data;

const HEADER: &str = r#"{"tactus_trace": 1, "variant": "standard", "time_control": "5400+30", "white": "Board config, White", "black": "Board config, Black", "event": "Club night", "round": "7"}"#;
const PAIRING: &str = r#"{"t": 800, "pairing": {"tournament": "Hall Open 2025", "round": 1, "board": 3, "white": {"name": "Kowalczyk, Irina", "title": "IM", "elo": 2488, "fide_id": 1120000, "federation": "POL"}, "black": {"name": "Volkov, Dmitri", "title": "GM", "elo": 2601, "fide_id": 4100018, "federation": "RUS"}}}"#;

fn game(lines: &[&str]) -> replay::Replay {
    let text = format!("{HEADER}\n{}\n", lines.join("\n"));
    let r = replay::replay(text.as_bytes(), Policy::default()).unwrap();
    assert!(r.error.is_none(), "{:?}", r.error);
    r
}

/// 1. e4, pressed.
const E4: [&str; 3] = [
    r#"{"t": 1000, "sq": "e2", "on": false}"#,
    r#"{"t": 1500, "sq": "e4", "on": true}"#,
    r#"{"t": 2000, "clock": "white"}"#,
];

#[test]
fn the_pairing_decides_the_records_tags() {
    let r = game(&[PAIRING, E4[0], E4[1], E4[2]]);
    let text = pgn::write(&r.header, r.session.game(), &Data);
    for tag in [
        "[Event \"Hall Open 2025\"]",
        "[Round \"1\"]",
        "[White \"Kowalczyk, Irina\"]",
        "[Black \"Volkov, Dmitri\"]",
        "[WhiteTitle \"IM\"]",
        "[WhiteElo \"2488\"]",
        "[WhiteFideId \"1120000\"]",
        "[WhiteFederation \"POL\"]",
        "[BlackTitle \"GM\"]",
        "[BlackFederation \"RUS\"]",
        "[Board \"3\"]",
    ] {
        assert!(text.contains(tag), "{tag} in\n{text}");
    }
    assert!(!text.contains("Board config") && !text.contains("Club night"), "{text}");
    assert!(text.contains("1. e4"), "{text}");
    // One event, where the line is, before the first move.
    let kinds: Vec<&str> = r
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pairing(p) if e.t == 800 && p.board == 3 => Some("pairing"),
            EventKind::Pairing(_) => Some("a pairing elsewhere"),
            EventKind::Complete { .. } => Some("complete"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["pairing", "complete"]);
}

#[test]
fn without_a_pairing_the_header_stands_and_a_late_one_still_counts() {
    let r = game(&E4);
    let text = pgn::write(&r.header, r.session.game(), &Data);
    assert!(text.contains("[White \"Board config, White\"]") && !text.contains("[Board "), "{text}");
    // Sent once the game was under way (the round's file loaded late).
    let late = PAIRING.replace(r#""t": 800"#, r#""t": 2500"#);
    let r = game(&[E4[0], E4[1], E4[2], &late]);
    let text = pgn::write(&r.header, r.session.game(), &Data);
    assert!(text.contains("[White \"Kowalczyk, Irina\"]") && text.contains("1. e4"), "{text}");
    assert_eq!(r.session.game().played.len(), 1);
}

#[test]
fn the_event_reads_back_as_written() {
    let r = game(&[PAIRING]);
    let event = r.events.iter().find(|e| matches!(e.kind, EventKind::Pairing(_))).unwrap();
    let json = serde_json::to_string(event).unwrap();
    assert!(
        json.starts_with(r#"{"t":800,"event":"pairing","tournament":"Hall Open 2025","round":1,"board":3,"#),
        "{json}"
    );
    assert_eq!(&serde_json::from_str::<tactus_core::Event>(&json).unwrap(), event);
}
