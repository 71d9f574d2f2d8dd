//! The engine's move for a blind player: said at once with the square its
//! piece stands on, multi-step moves spelled out in order, and what went
//! wrong while carrying it out — in every language.

use shakmaty::{Color, Piece, Square};
use tactus_core::{Event, EventKind, Fix, MoveInfo, Slip};
use tactus_speech::{Announcer, Choice, SpeechPolicy, Words, moves_from_san};

fn mv(fen: Option<&str>, sans: &str) -> MoveInfo {
    let sans: Vec<&str> = sans.split_whitespace().collect();
    moves_from_san(fen, &sans).unwrap().pop().unwrap()
}

fn p(c: char) -> Option<Piece> {
    Piece::from_char(c)
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn step(piece: char, from: Option<&str>, to: Option<&str>) -> Fix {
    Fix { piece: p(piece), from: from.map(sq), to: to.map(sq) }
}

fn said(choice: &str, kind: EventKind) -> String {
    let c: Choice = choice.parse().unwrap();
    let policy = SpeechPolicy { listener: Some(Color::White), ..SpeechPolicy::everything() };
    let mut a = Announcer::new(Words::new(c.lang, c.style), policy);
    a.hear(&Event { t: 0, kind }).map(|u| u.text).expect("said")
}

fn contains_all(text: &str, words: &[&str]) {
    for w in words {
        assert!(text.contains(w), "{w:?} missing from {text:?}");
    }
}

#[test]
fn a_one_step_move_is_said_with_the_square_its_piece_stands_on() {
    let nf6 = mv(None, "e4 Nf6");
    let steps = vec![step('n', Some("g8"), Some("f6"))];
    let kind = || EventKind::OpponentMove { mv: nf6.clone(), steps: steps.clone(), eval: None };
    assert_eq!(said("en:natural", kind()), "The engine plays knight f6, from g8.");
    contains_all(&said("en:annex-d", kind()), &["Springer", "Felix sechs", "Gustav acht"]);
    contains_all(&said("de:natural", kind()), &["Die Engine spielt", "Springer", "von g8"]);
    contains_all(&said("ru:natural", kind()), &["Ход движка", "с поля g8"]);
    contains_all(&said("pl:natural", kind()), &["Komputer gra", "z pola g8"]);
}

#[test]
fn a_capture_castling_and_a_promotion_are_spelled_out_step_by_step() {
    let exd5 = mv(None, "e4 d5 exd5");
    let capture = EventKind::OpponentMove {
        mv: exd5,
        steps: vec![step('p', Some("d5"), None), step('P', Some("e4"), Some("d5"))],
        eval: None,
    };
    assert_eq!(
        said("en:natural", capture.clone()),
        "The engine plays e takes d5, from e4. Take the pawn off d5; then move the pawn from e4 to d5."
    );
    contains_all(&said("de:natural", capture.clone()), &["Bauer von d5 entfernen; dann Bauer von e4 nach d5"]);
    contains_all(&said("ru:natural", capture.clone()), &["Уберите пешку с d5; затем переставьте пешку с e4 на d5"]);
    contains_all(&said("pl:natural", capture), &["Zdjąć piona z d5; potem przestawić piona z e4 na d5"]);

    let castle = mv(Some("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"), "O-O");
    let castle = EventKind::OpponentMove {
        mv: castle,
        steps: vec![step('k', Some("e8"), Some("g8")), step('r', Some("h8"), Some("f8"))],
        eval: None,
    };
    assert!(said("en:natural", castle).ends_with("Move the king from e8 to g8; then move the rook from h8 to f8."));

    let promotion = mv(Some("8/4P1k1/8/8/8/8/6K1/8 w - - 0 1"), "e8=N+");
    let promotion = EventKind::OpponentMove {
        mv: promotion,
        steps: vec![step('P', Some("e7"), None), step('N', None, Some("e8"))],
        eval: None,
    };
    assert!(
        said("en:natural", promotion).ends_with("Take the pawn off e7; then put the knight on e8."),
        "the piece to put on is named"
    );
}

#[test]
fn slips_say_what_is_wrong_and_how_to_fix_it() {
    let misplaced = EventKind::OpponentFix {
        ply: 2,
        slip: Slip::Misplaced { sq: sq("g6"), piece: p('n'), belongs: Some(sq("f6")) },
        fix: vec![step('n', Some("g6"), Some("f6"))],
    };
    assert_eq!(said("en:natural", misplaced.clone()), "The knight belongs on f6, not on g6.");
    assert_eq!(said("de:natural", misplaced.clone()), "Springer gehört auf f6, nicht auf g6.");
    assert_eq!(said("ru:natural", misplaced.clone()), "Место коня — на f6, а не на g6.");
    assert_eq!(said("pl:natural", misplaced), "Skoczek ma stać na f6, nie na g6.");

    let not_that_one = EventKind::OpponentFix {
        ply: 2,
        slip: Slip::NotThatOne {
            sq: sq("b8"),
            piece: p('n').unwrap(),
            instead: Some(step('n', Some("g8"), Some("f6"))),
        },
        fix: vec![],
    };
    assert_eq!(
        said("en:natural", not_that_one),
        "Not that one: put the knight back on b8. The move is: move the knight from g8 to f6."
    );

    let other = EventKind::OpponentFix {
        ply: 2,
        slip: Slip::OtherMove { san: "Nc6".into(), uci: "b8c6".into() },
        fix: vec![step('n', Some("c6"), Some("b8")), step('n', Some("g8"), Some("f6"))],
    };
    let text = said("en:natural", other);
    assert!(text.starts_with("That is knight c6, not the engine's move."), "{text}");
    contains_all(&text, &["c6 back on b8", "g8 back on f6"]);
}

#[test]
fn a_hint_and_the_engines_level_are_said() {
    let nf3 = mv(None, "Nf3");
    assert_eq!(said("en:natural", EventKind::Hint { mv: nf3.clone() }), "Hint: knight f3.");
    contains_all(&said("de:natural", EventKind::Hint { mv: nf3.clone() }), &["Tipp", "Springer f3"]);
    contains_all(&said("ru:natural", EventKind::Hint { mv: nf3.clone() }), &["Подсказка", "f3"]);
    contains_all(&said("pl:natural", EventKind::Hint { mv: nf3 }), &["Podpowiedź", "f3"]);
    assert_eq!(said("en:natural", EventKind::EngineLevel { level: 4 }), "Engine level 4.");
    assert_eq!(said("pl:natural", EventKind::EngineLevel { level: 4 }), "Poziom komputera: 4.");
}

#[test]
fn moves_taken_back_and_draw_offers_are_said_in_every_language() {
    let back = || EventKind::TakeBack {
        ply: 3,
        taken: vec!["Nf3".into(), "Nc6".into()],
        white_ms: Some(298_000),
        black_ms: Some(300_000),
    };
    let en = said("en:natural", back());
    assert!(en.starts_with("Taken back: knight f3, knight c6."), "{en}");
    contains_all(&said("de:natural", back()), &["Zurückgenommen", "Springer f3", "Springer c6"]);
    contains_all(&said("ru:natural", back()), &["Взяты назад"]);
    contains_all(&said("pl:natural", back()), &["Cofnięte"]);
    // The listener plays White: the engine's offer is the opponent's.
    let offer = || EventKind::DrawOffer { side: Color::Black };
    assert_eq!(said("en:natural", offer()), "Your opponent offers a draw.");
    assert_eq!(said("de:natural", offer()), "Ihr Gegner bietet Remis an.");
    assert_eq!(said("ru:natural", offer()), "Соперник предлагает ничью.");
    assert_eq!(said("pl:natural", offer()), "Przeciwnik proponuje remis.");
    assert_eq!(said("en:natural", EventKind::DrawDeclined { side: Color::Black }), "Your opponent declines the draw.");
    assert_eq!(said("en:natural", EventKind::DrawDeclined { side: Color::White }), "You decline the draw.");
}
