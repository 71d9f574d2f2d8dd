//! The engine's move for a blind player: said at once from its square to
//! its square, each square once; its steps only where the move does not
//! say them; and what went wrong while carrying it out — in every language.

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
fn a_one_step_move_is_said_from_its_square_to_its_square() {
    let nf6 = mv(None, "e4 Nf6");
    let steps = vec![step('n', Some("g8"), Some("f6"))];
    let kind =
        || EventKind::OpponentMove { mv: nf6.clone(), steps: steps.clone(), eval: None, left: None, website: false };
    assert_eq!(said("en:natural", kind()), "Engine: knight g8 to f6.");
    assert_eq!(said("en:annex-d", kind()), "Engine: Springer Gustav acht to Felix sechs.");
    assert_eq!(said("de:natural", kind()), "Engine: Springer g8 nach f6.");
    assert_eq!(said("ru:natural", kind()), "Ход движка: конь g8 на f6.");
    assert_eq!(said("pl:natural", kind()), "Ruch komputera: skoczek g8 na f6.");
}

/// Each square once, and the steps only where they are not what the move
/// says already (issue 20, 5).
#[test]
fn a_capture_castling_and_a_promotion_are_said_once_without_their_steps() {
    let exd5 = mv(None, "e4 d5 exd5");
    let capture = EventKind::OpponentMove {
        mv: exd5,
        steps: vec![step('p', Some("d5"), None), step('P', Some("e4"), Some("d5"))],
        eval: None,
        left: None,
        website: false,
    };
    assert_eq!(said("en:natural", capture.clone()), "Engine: e4 takes d5.");
    assert_eq!(said("de:natural", capture.clone()), "Engine: e4 schlägt d5.");
    assert_eq!(said("ru:natural", capture.clone()), "Ход движка: e4 бьёт d5.");
    assert_eq!(said("pl:natural", capture), "Ruch komputera: e4 bije d5.");

    let castle = mv(Some("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"), "O-O");
    let castle = EventKind::OpponentMove {
        mv: castle,
        steps: vec![step('k', Some("e8"), Some("g8")), step('r', Some("h8"), Some("f8"))],
        eval: None,
        left: None,
        website: false,
    };
    assert_eq!(said("en:natural", castle.clone()), "Engine: short castling.");
    assert_eq!(said("ru:natural", castle), "Ход движка: короткая рокировка.");

    let promotion = mv(Some("8/4P1k1/8/8/8/8/6K1/8 w - - 0 1"), "e8=N+");
    let promotion = EventKind::OpponentMove {
        mv: promotion,
        steps: vec![step('P', Some("e7"), None), step('N', None, Some("e8"))],
        eval: None,
        left: None,
        website: false,
    };
    assert_eq!(said("en:natural", promotion.clone()), "Engine: e7 to e8, promotes to knight, check.");
    assert_eq!(said("ru:annex-d", promotion), "Ход движка: Ева зибен на Ева ахт, превращение: шпрингер, шах.");
}

#[test]
fn castling_off_its_usual_squares_says_where_king_and_rook_go() {
    // Chess960, king c1 and rook b1: the king stays, the rook goes to d1.
    let mut castle = mv(Some("1r2k3/8/8/8/8/8/8/1R2K3 w - - 0 1"), "Rd1");
    castle.san = "O-O-O".into();
    castle.castle = Some(tactus_core::CastleSide::Queen);
    let kind = EventKind::OpponentMove {
        mv: castle,
        steps: vec![step('R', Some("b1"), Some("d1"))],
        eval: None,
        left: None,
        website: false,
    };
    assert_eq!(said("en:natural", kind.clone()), "Engine: long castling. Move the rook from b1 to d1.");
    assert_eq!(said("pl:natural", kind), "Ruch komputera: długa roszada. Przestaw wieżę z b1 na d1.");
}

#[test]
fn asked_for_again_mid_move_it_gives_the_steps_left() {
    let castle = mv(Some("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"), "O-O");
    let kind = EventKind::OpponentMove {
        mv: castle,
        steps: vec![step('k', Some("e8"), Some("g8")), step('r', Some("h8"), Some("f8"))],
        eval: None,
        left: Some(vec![step('r', Some("h8"), Some("f8"))]),
        website: false,
    };
    assert_eq!(said("en:natural", kind.clone()), "Engine: short castling. Still to do: move the rook from h8 to f8.");
    assert_eq!(said("de:natural", kind), "Engine: kurze Rochade. Noch zu tun: den Turm von h8 nach f8 ziehen.");
}

#[test]
fn slips_say_what_is_wrong_and_how_to_fix_it() {
    let misplaced = EventKind::OpponentFix {
        ply: 2,
        slip: Slip::Misplaced { sq: sq("g6"), piece: p('n'), belongs: Some(sq("f6")) },
        fix: vec![step('n', Some("g6"), Some("f6"))],
    };
    assert_eq!(said("en:natural", misplaced.clone()), "The knight belongs on f6, not on g6.");
    assert_eq!(said("de:natural", misplaced.clone()), "Der Springer gehört auf f6, nicht auf g6.");
    assert_eq!(said("ru:natural", misplaced.clone()), "Место коня — на f6, а не на g6.");
    assert_eq!(said("pl:natural", misplaced), "Skoczek ma stać na f6, nie na g6.");

    let not_that_one = |piece| EventKind::OpponentFix {
        ply: 2,
        slip: Slip::NotThatOne { sq: sq("b8"), piece, instead: Some(step('n', Some("g8"), Some("f6"))) },
        fix: vec![],
    };
    let knight = p('n').unwrap();
    assert_eq!(
        said("en:natural", not_that_one(knight)),
        "Not that one: put the knight back on b8; then move the knight from g8 to f6."
    );
    assert_eq!(
        said("pl:natural", not_that_one(p('p').unwrap())),
        "Nie ta bierka: postaw piona z powrotem na b8; potem przestaw skoczka z g8 na f6.",
        "a pawn is a bierka, not a figura; orders in the imperative"
    );

    let other = EventKind::OpponentFix {
        ply: 2,
        slip: Slip::OtherMove { san: "Nc6".into(), uci: "b8c6".into() },
        fix: vec![step('n', Some("c6"), Some("b8")), step('n', Some("g8"), Some("f6"))],
    };
    assert_eq!(
        said("en:natural", other),
        "That is not the engine's move: knight c6. Put the knight from c6 back on b8; then move the knight from g8 to f6."
    );

    let halfway = EventKind::OpponentFix {
        ply: 2,
        slip: Slip::Halfway { next: step('k', Some("e8"), Some("g8")) },
        fix: vec![step('k', Some("e8"), Some("g8"))],
    };
    assert_eq!(said("en:natural", halfway.clone()), "Now move the king from e8 to g8.");
    assert_eq!(said("de:annex-d", halfway.clone()), "Jetzt den König von Eva acht nach Gustav acht ziehen.");
    assert_eq!(said("ru:natural", halfway.clone()), "Теперь переставьте короля с e8 на g8.");
    assert_eq!(said("pl:natural", halfway), "Teraz przestaw króla z e8 na g8.");
}

#[test]
fn a_hint_and_the_engines_level_are_said() {
    let nf3 = mv(None, "Nf3");
    assert_eq!(said("en:natural", EventKind::Hint { mv: nf3.clone() }), "Hint: knight g1 to f3.");
    contains_all(&said("de:natural", EventKind::Hint { mv: nf3.clone() }), &["Tipp", "Springer g1 nach f3"]);
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
    contains_all(&said("ru:natural", back()), &["Ходы взяты назад: конь f3, конь c6."]);
    contains_all(&said("pl:natural", back()), &["Cofnięto posunięcia: skoczek f3, skoczek c6."]);
    // The listener plays White: the engine's offer is the opponent's.
    let offer = || EventKind::DrawOffer { side: Color::Black, irregular: false };
    assert_eq!(said("en:natural", offer()), "Your opponent offers a draw.");
    assert_eq!(said("de:natural", offer()), "Ihr Gegner bietet Remis an.");
    assert_eq!(said("ru:natural", offer()), "Соперник предлагает ничью.");
    assert_eq!(said("pl:natural", offer()), "Przeciwnik proponuje remis.");
    assert_eq!(said("en:natural", EventKind::DrawDeclined { side: Color::Black }), "Your opponent declines the draw.");
    assert_eq!(said("en:natural", EventKind::DrawDeclined { side: Color::White }), "You decline the draw.");
}
