//! What a player at a board paired with another hears (docs/two-boards.md),
//! in every language: a press while the partner's move is awaited or still
//! to be carried out (never "the engine"), a partner that does not fit, a
//! second daemon by the board's name, a restart, a decline said with the
//! move, a time readout while the clocks are stopped. `cargo test -p
//! tactus-speech --test pair -- --nocapture` prints every line.

use shakmaty::Color;
use tactus_core::{CastleSide, Event, EventKind, MoveInfo, NotNow, Pair, Restarted};
use tactus_speech::{Announcer, Choice, Lang, Opponent, SpeechPolicy, Words};

/// An announcer at Black's board of a pair, Black listening.
fn at_black(lang: Lang) -> Announcer {
    let c: Choice = format!("{lang}:natural").parse().unwrap();
    let words = Words::new(c.lang, c.style).with_opponent(Opponent::Partner);
    Announcer::new(words, SpeechPolicy { listener: Some(Color::Black), ..SpeechPolicy::everything() })
}

fn said(a: &mut Announcer, kind: EventKind) -> String {
    a.hear(&Event { t: 0, kind }).map(|u| u.text).expect("said")
}

/// The words each language has for an engine.
fn engine(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "ngine",
        Lang::De => "Engine",
        Lang::Ru => "вижок",
        Lang::Pl => "omputer",
    }
}

fn e4() -> MoveInfo {
    MoveInfo {
        ply: 1,
        side: Color::White,
        san: "e4".into(),
        uci: "e2e4".into(),
        piece: shakmaty::Piece { color: Color::White, role: shakmaty::Role::Pawn },
        from: shakmaty::Square::E2,
        to: shakmaty::Square::E4,
        capture: None,
        promotion: None,
        castle: None::<CastleSide>,
        en_passant: false,
        check: false,
        mate: false,
    }
}

/// The scenes of issues 29 and 30 on two boards, each line as said at
/// Black's board, in order.
fn scenes(lang: Lang) -> Vec<(&'static str, String)> {
    let mut a = at_black(lang);
    let mut out = Vec::new();
    let partner = || "A".to_string();
    let mut say = |scene: &'static str, a: &mut Announcer, kind: EventKind| out.push((scene, said(a, kind)));
    say("press while the partner's move is awaited", &mut a, EventKind::NotNow { why: NotNow::EngineThinking });
    say("press before the partner's move is carried out", &mut a, EventKind::NotNow { why: NotNow::CarryOutFirst });
    say(
        "both boards play the same side",
        &mut a,
        EventKind::Pair(Pair::SameSide { partner: partner(), side: Color::Black }),
    );
    let tc = Pair::TimeControl { partner: partner(), ours: Some("300+2".into()), theirs: Some("600+5".into()) };
    say("another time control", &mut a, EventKind::Pair(tc));
    let tc = Pair::TimeControl { partner: partner(), ours: Some("300+2".into()), theirs: None };
    say("no clock there", &mut a, EventKind::Pair(tc));
    let table = Pair::TableClock {
        partner: partner(),
        ours: Some(tactus_trace::TableClock::Here),
        theirs: Some(tactus_trace::TableClock::Here),
    };
    say("the table's clock at both boards", &mut a, EventKind::Pair(table));
    say("the partner in another game", &mut a, EventKind::Pair(Pair::OtherGame { partner: partner() }));
    say("a second daemon by this board's name", &mut a, EventKind::Pair(Pair::Twin { board: "B".into() }));
    say("the partner fits again", &mut a, EventKind::Pair(Pair::Agreed { partner: partner() }));
    let goes_on = |to_move, carrying, clocks| EventKind::Pair(Pair::GoesOn { to_move, carrying, clocks });
    let repeated = EventKind::OpponentMove { mv: e4(), steps: Vec::new(), eval: None, left: None, website: false };
    say("restarted: the partner's move again", &mut a, repeated);
    say("restarted: carry it out first", &mut a, goes_on(Color::White, true, Some(Restarted::Run)));
    say("restarted on the player's own move", &mut a, goes_on(Color::Black, false, Some(Restarted::Run)));
    say("restarted on the partner's move", &mut a, goes_on(Color::White, false, Some(Restarted::Run)));
    say("restarted at one table", &mut a, goes_on(Color::Black, false, Some(Restarted::AtTable)));
    say(
        "restarted with the clocks stopped by the arbiter",
        &mut a,
        goes_on(Color::Black, false, Some(Restarted::Stopped)),
    );
    say("restarted in a game without a clock", &mut a, goes_on(Color::Black, false, None));
    say("the partner's move declines the offer", &mut a, EventKind::DrawDeclined { side: Color::White });
    let time =
        |running| EventKind::Time { white_ms: 287_000, black_ms: 295_000, white_moves: 5, black_moves: 4, running };
    a.hear(&Event { t: 0, kind: EventKind::Paused });
    say("request time, the clocks stopped", &mut a, time(None));
    a.hear(&Event { t: 0, kind: EventKind::Resumed });
    say("request time, the clocks running", &mut a, time(Some(Color::Black)));
    out
}

#[test]
fn a_paired_board_says_each_scene_in_every_language() {
    for lang in Lang::ALL {
        let lines = scenes(lang);
        for (scene, line) in &lines {
            println!("{lang}\t{scene}\t{line}");
            assert!(!line.is_empty() && !line.contains('{'), "{lang}, {scene}: {line:?}");
        }
        let line = |scene: &str| lines.iter().find(|(s, _)| *s == scene).unwrap().1.clone();
        for scene in ["press while the partner's move is awaited", "press before the partner's move is carried out"] {
            assert!(!line(scene).contains(engine(lang)), "{lang}: no engine on a paired board: {}", line(scene));
        }
        assert_ne!(
            line("press while the partner's move is awaited"),
            line("press before the partner's move is carried out")
        );
        for scene in [
            "both boards play the same side",
            "another time control",
            "the partner in another game",
            "the partner fits again",
        ] {
            assert!(line(scene).contains('A'), "{lang}, {scene}: names the partner board: {}", line(scene));
        }
        let tc = line("another time control");
        assert!(tc.contains("300+2") && tc.contains("600+5"), "{lang}: {tc}");
        assert!(line("both boards play the same side").contains("--plays"), "{lang}: says what to change");
        assert!(line("another time control").contains("--time-control"), "{lang}: says what to change");
        assert!(line("a second daemon by this board's name").contains("--board-id"), "{lang}: says what to change");
        assert!(line("a second daemon by this board's name").contains('B'), "{lang}: names the board");
        let stopped = line("request time, the clocks stopped");
        let running = line("request time, the clocks running");
        assert_ne!(stopped, running, "{lang}: a readout says when the clocks are stopped");
        let goes_on: Vec<String> = [
            "restarted: carry it out first",
            "restarted on the player's own move",
            "restarted on the partner's move",
            "restarted at one table",
            "restarted with the clocks stopped by the arbiter",
            "restarted in a game without a clock",
        ]
        .iter()
        .map(|s| line(s))
        .collect();
        for (i, a) in goes_on.iter().enumerate() {
            for b in &goes_on[i + 1..] {
                assert_ne!(a, b, "{lang}: each restart says how it goes on");
            }
        }
    }
    let en = scenes(Lang::En);
    let en = |scene: &str| en.iter().find(|(s, _)| *s == scene).unwrap().1.clone();
    assert_eq!(en("press while the partner's move is awaited"), "Your opponent has not moved yet.");
    assert_eq!(en("press before the partner's move is carried out"), "First carry out your opponent's move.");
    assert_eq!(
        en("restarted: carry it out first"),
        "The game goes on: first carry out your opponent's move. The clocks run."
    );
    assert_eq!(en("restarted on the player's own move"), "The game goes on: it is your move. The clocks run.");
    assert!(
        en("request time, the clocks stopped").ends_with("the clocks are stopped."),
        "{}",
        en("request time, the clocks stopped")
    );
    assert_eq!(
        en("no clock there"),
        "Board A plays with another time control: no clock there, 300+2 here. Give both the same (game.time_control, --time-control) and start one of them again."
    );
}

/// An engine's board says the engine, as before.
#[test]
fn an_engine_s_board_still_says_the_engine() {
    let c: Choice = "en:natural".parse().unwrap();
    let mut a = Announcer::new(Words::new(c.lang, c.style), SpeechPolicy::everything());
    assert_eq!(said(&mut a, EventKind::NotNow { why: NotNow::EngineThinking }), "The engine is still thinking.");
}
