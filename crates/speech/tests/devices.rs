//! A board, clock or engine that stops answering is said, and said again
//! when it answers, in every language and style.

use shakmaty::Color;
use tactus_core::{Device, Event, EventKind, Lost};
use tactus_speech::{Announcer, Choice, SpeechPolicy, Words};

fn said(choice: &str, kind: EventKind) -> String {
    let c: Choice = choice.parse().unwrap();
    let policy = SpeechPolicy { listener: Some(Color::White), ..SpeechPolicy::everything() };
    let mut a = Announcer::new(Words::new(c.lang, c.style), policy);
    a.hear(&Event { t: 0, kind }).map(|u| u.text).expect("said")
}

#[test]
fn a_device_lost_and_back_is_said_in_every_language() {
    let lost =
        |device| EventKind::DeviceLost { device, why: Lost::Io, diagnostic: Some("/dev/rfcomm0: no answer".into()) };
    let back = |device| EventKind::DeviceBack { device };
    assert_eq!(
        said("en:natural", lost(Device::Board)),
        "The board is not answering: check its cable or its connection. Cause: a read or write error."
    );
    assert_eq!(said("en:natural", back(Device::Board)), "The board answers again.");
    assert!(said("en:natural", lost(Device::Clock)).contains("timed here"));
    for (lang, board) in [("de", "Brett"), ("ru", "Доска"), ("pl", "Szachownica")] {
        assert!(said(&format!("{lang}:natural"), lost(Device::Board)).contains(board), "{lang}");
        assert!(said(&format!("{lang}:natural"), back(Device::Board)).contains(board), "{lang}");
        assert_ne!(
            said(&format!("{lang}:natural"), lost(Device::Clock)),
            said(&format!("{lang}:natural"), lost(Device::Board))
        );
    }
}

#[test]
fn an_engine_lost_and_back_is_said_in_every_language_and_style() {
    let lost = EventKind::DeviceLost {
        device: Device::Engine,
        why: Lost::Exited,
        diagnostic: Some("engine /usr/games/stockfish exited".into()),
    };
    let back = EventKind::DeviceBack { device: Device::Engine };
    assert_eq!(
        said("en:natural", lost.clone()),
        "The engine has stopped; restarting it. Cause: the program ended, or contact with it was lost."
    );
    assert_eq!(said("en:natural", back.clone()), "The engine answers again.");
    for (lang, engine) in [("en", "engine"), ("de", "Engine"), ("ru", "Движок"), ("pl", "Komputer")] {
        for style in ["annex-d", "natural", "nato", "literate"] {
            let choice = format!("{lang}:{style}");
            assert!(said(&choice, lost.clone()).contains(engine), "{choice}");
            assert!(said(&choice, back.clone()).contains(engine), "{choice}");
            assert_ne!(said(&choice, lost.clone()), said(&choice, back.clone()), "{choice}");
        }
    }
}

#[test]
fn a_partner_board_away_and_back_is_said_in_every_language_and_style() {
    let lost =
        EventKind::DeviceLost { device: Device::Partner, why: Lost::Connection, diagnostic: Some("board b2".into()) };
    let back = EventKind::DeviceBack { device: Device::Partner };
    assert_eq!(
        said("en:natural", lost.clone()),
        "The partner board cannot be reached; its moves will follow. Cause: the connection dropped."
    );
    assert_eq!(said("en:natural", back.clone()), "The partner board is back.");
    for (lang, partner) in [("en", "partner"), ("de", "Partnerbrett"), ("ru", "партнёра"), ("pl", "partnera")] {
        for style in ["annex-d", "natural", "nato", "literate"] {
            let choice = format!("{lang}:{style}");
            assert!(said(&choice, lost.clone()).contains(partner), "{choice}");
            assert!(said(&choice, back.clone()).contains(partner), "{choice}");
            assert_ne!(said(&choice, lost.clone()), said(&choice, back.clone()), "{choice}");
        }
    }
}

#[test]
fn a_partner_board_s_move_is_the_opponent_s_not_an_engine_s() {
    use tactus_speech::Opponent;
    let line = r#"{"t":0,"event":"opponent_move","ply":2,"side":"black","san":"Nf6","uci":"g8f6","piece":"n","from":"g8","to":"f6","steps":[{"piece":"n","from":"g8","to":"f6"}]}"#;
    let ev: Event = serde_json::from_str(line).unwrap();
    let engine = |c: Choice| Words::new(c.lang, c.style).say(&ev).unwrap();
    let partner = |c: Choice| Words::new(c.lang, c.style).with_opponent(Opponent::Partner).say(&ev).unwrap();
    assert_eq!(partner("en:natural".parse().unwrap()), "Opponent: knight g8 to f6.");
    for (lang, word) in [("en", "Opponent"), ("de", "Gegner"), ("ru", "соперника"), ("pl", "przeciwnika")] {
        for style in ["annex-d", "natural", "nato", "literate"] {
            let choice: Choice = format!("{lang}:{style}").parse().unwrap();
            assert!(partner(choice).contains(word), "{lang}:{style}: {}", partner(choice));
            assert_ne!(partner(choice), engine(choice), "{lang}:{style}");
        }
    }
}

const EVERY_WHY: [Lost; 8] = [
    Lost::Ended,
    Lost::NoStart,
    Lost::Exited,
    Lost::NoAnswer,
    Lost::Faulty,
    Lost::Io,
    Lost::Unplugged,
    Lost::Connection,
];

/// The daemon's own report travels as a diagnostic: the sentence is the
/// speech crate's, from the code, in the player's language — no English
/// text of the daemon's or the program's inside.
#[test]
fn a_lost_engine_is_said_from_its_code_never_with_the_program_s_words() {
    let report = "engine /usr/games/stockfish exited with signal 9 (SIGKILL)";
    let lost = |why| EventKind::DeviceLost { device: Device::Engine, why, diagnostic: Some(report.into()) };
    let de = said("de:natural", lost(Lost::NoStart));
    assert_eq!(
        de,
        "Die Engine ist ausgefallen; sie wird neu gestartet. Ursache: das Programm ließ sich nicht starten."
    );
    for english in ["stockfish", "/usr", "exited", "signal", "sigkill", "the ", "has stopped"] {
        assert!(!de.to_lowercase().contains(english), "{english:?} in {de}");
    }
    assert_eq!(
        said("de:natural", lost(Lost::Ended)),
        "Die Engine ist endgültig ausgefallen: ab jetzt spielt keine Engine."
    );
    assert_eq!(
        said("ru:natural", lost(Lost::NoAnswer)),
        "Движок остановился; перезапускаю его. Причина: нет ответа вовремя."
    );
    assert_eq!(
        said("pl:natural", lost(Lost::Ended)),
        "Komputer zatrzymał się na dobre: od teraz nie gra żaden program."
    );
}

/// Every code, for every device, in every language: a sentence of its own
/// (the causes differ; a device ended is no device retried), without the
/// diagnostic and without a blank left unfilled.
#[test]
fn every_reason_for_every_device_is_a_sentence_of_its_own_in_every_language() {
    let devices = [Device::Board, Device::Clock, Device::Engine, Device::Online, Device::Partner];
    for lang in ["en", "de", "ru", "pl"] {
        let choice = format!("{lang}:natural");
        for device in devices {
            let texts: Vec<String> = EVERY_WHY
                .iter()
                .map(|&why| said(&choice, EventKind::DeviceLost { device, why, diagnostic: Some("XYZZY".into()) }))
                .collect();
            for (why, text) in EVERY_WHY.iter().zip(&texts) {
                assert!(!text.contains("XYZZY") && !text.contains('{'), "{choice} {device:?} {why:?}: {text}");
            }
            let distinct: std::collections::BTreeSet<&String> = texts.iter().collect();
            assert_eq!(distinct.len(), EVERY_WHY.len(), "{choice} {device:?}: {texts:?}");
            let back = said(&choice, EventKind::DeviceBack { device });
            assert!(!texts.contains(&back), "{choice} {device:?}");
        }
    }
}
