//! A board, clock or engine that stops answering is said, and said again
//! when it answers, in every language and style.

use shakmaty::Color;
use tactus_core::{Device, Event, EventKind};
use tactus_speech::{Announcer, Choice, SpeechPolicy, Words};

fn said(choice: &str, kind: EventKind) -> String {
    let c: Choice = choice.parse().unwrap();
    let policy = SpeechPolicy { listener: Some(Color::White), ..SpeechPolicy::everything() };
    let mut a = Announcer::new(Words::new(c.lang, c.style), policy);
    a.hear(&Event { t: 0, kind }).map(|u| u.text).expect("said")
}

#[test]
fn a_device_lost_and_back_is_said_in_every_language() {
    let lost = |device| EventKind::DeviceLost { device, detail: "/dev/rfcomm0: no answer".into() };
    let back = |device| EventKind::DeviceBack { device };
    assert_eq!(
        said("en:natural", lost(Device::Board)),
        "The board is not answering: check its cable or its connection."
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
    let lost = EventKind::DeviceLost { device: Device::Engine, detail: "engine /usr/games/stockfish exited".into() };
    let back = EventKind::DeviceBack { device: Device::Engine };
    assert_eq!(said("en:natural", lost.clone()), "The engine has stopped; restarting it.");
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
    let lost = EventKind::DeviceLost { device: Device::Partner, detail: "board b2".into() };
    let back = EventKind::DeviceBack { device: Device::Partner };
    assert_eq!(said("en:natural", lost.clone()), "The partner board cannot be reached; its moves will follow.");
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
