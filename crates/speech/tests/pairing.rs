//! The round's pairing, said at set-up in every language and style: the
//! board, the round, and both players as the pairing program names them.

use tactus_core::{Event, EventKind};
use tactus_speech::{Announcer, Choice, Scribe, SpeechPolicy, Words};
use tactus_trace::{Pairing, Player};

fn pairing() -> Pairing {
    let player = |name: &str| Player { name: name.into(), title: None, elo: None, fide_id: None, federation: None };
    Pairing {
        tournament: Some("Hall Open 2025".into()),
        round: 1,
        board: 3,
        white: player("Kowalczyk, Irina"),
        black: player("Volkov, Dmitri"),
    }
}

fn said(choice: &str) -> String {
    let c: Choice = choice.parse().unwrap();
    let mut a = Announcer::new(Words::new(c.lang, c.style), SpeechPolicy::default());
    a.hear(&Event { t: 0, kind: EventKind::Pairing(Box::new(pairing())) }).map(|u| u.text).expect("said")
}

#[test]
fn the_pairing_is_said_in_every_language_and_style() {
    assert_eq!(said("en:natural"), "Board 3, round 1: White Kowalczyk, Irina; Black Volkov, Dmitri.");
    assert_eq!(said("de:natural"), "Brett 3, Runde 1: Weiß Kowalczyk, Irina; Schwarz Volkov, Dmitri.");
    assert_eq!(said("ru:natural"), "Доска 3, тур 1: белые — Kowalczyk, Irina; чёрные — Volkov, Dmitri.");
    assert_eq!(said("pl:natural"), "Szachownica 3, runda 1: białe — Kowalczyk, Irina; czarne — Volkov, Dmitri.");
    for lang in ["en", "de", "ru", "pl"] {
        for style in ["annex-d", "natural", "nato", "literate"] {
            let text = said(&format!("{lang}:{style}"));
            assert!(text.contains("Kowalczyk, Irina") && text.contains("Volkov, Dmitri"), "{lang}:{style}: {text}");
            assert!(text.contains('3') && text.contains('1') && !text.contains('{'), "{lang}:{style}: {text}");
        }
    }
}

#[test]
fn a_name_with_braces_is_said_as_it_is() {
    let c: Choice = "en:natural".parse().unwrap();
    let mut a = Announcer::new(Words::new(c.lang, c.style), SpeechPolicy::default());
    let mut p = pairing();
    p.white.name = "{black}, Anna".into();
    let text = a.hear(&Event { t: 0, kind: EventKind::Pairing(Box::new(p)) }).unwrap().text;
    assert_eq!(text, "Board 3, round 1: White {black}, Anna; Black Volkov, Dmitri.");
}

#[test]
fn the_page_gets_no_ruling_for_it() {
    // The page shows the pairing from the tags; it is no ruling or note.
    let mut scribe = Scribe::natural(tactus_speech::Lang::En);
    assert_eq!(scribe.write(&Event { t: 0, kind: EventKind::Pairing(Box::new(pairing())) }), None);
}
