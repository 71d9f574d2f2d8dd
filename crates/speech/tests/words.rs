//! The phrases the issue names, and the policy's choices of what is said.

mod common;

use shakmaty::{Color, Piece, Square};
use tactus_core::{Article, Event, EventKind, MoveInfo};
use tactus_speech::{Announcer, Choice, Kind, Lang, OwnMoves, SpeechPolicy, Style, Touches, Words, moves_from_san};

fn mv(fen: Option<&str>, sans: &str) -> MoveInfo {
    let sans: Vec<&str> = sans.split_whitespace().collect();
    moves_from_san(fen, &sans).unwrap().pop().unwrap()
}

fn said(choice: &str, kind: EventKind) -> String {
    let c: Choice = choice.parse().unwrap();
    Words::new(c.lang, c.style).say(&Event { t: 0, kind }).unwrap()
}

fn said_move(choice: &str, m: MoveInfo) -> String {
    said(choice, EventKind::Move { mv: m, correction: false })
}

#[test]
fn annex_d_names_every_move() {
    assert_eq!(said_move("de:annex-d", mv(None, "Nf3")), "Springer Felix drei");
    assert_eq!(said_move("de:annex-d", mv(None, "e4 e5 Nf3 Nc6 Bc4 Nf6 O-O")), "Kurze Rochade");
    assert_eq!(said_move("en:annex-d", mv(None, "Nf3")), "Springer Felix drei");
    assert_eq!(said_move("ru:annex-d", mv(None, "Nf3")), "шпрингер Феликс драй");
    assert_eq!(said_move("ru:annex-d", mv(None, "e4 e5 Nf3 Nc6 Bc4 Nf6 O-O")), "Кюрце Рошаде");
    assert_eq!(said_move("pl:annex-d", mv(None, "e4 d5 exd5")), "Eva bije David fuenf");
}

#[test]
fn natural_styles_read_like_a_commentator() {
    let fen = Some("4k3/8/8/4p3/8/5N2/8/4K3 w - - 0 1");
    let nxe5 = || mv(fen, "Nxe5");
    assert_eq!(said_move("en:natural", nxe5()), "knight takes e5");
    let check = Some("8/3k4/8/4p3/8/5N2/8/4K3 w - - 0 1");
    let checking = || mv(check, "Nxe5");
    assert!(checking().check, "the knight on e5 checks the king on d7");
    assert_eq!(said_move("en:natural", checking()), "knight takes e5, check");
    assert_eq!(said_move("de:natural", checking()), "Springer schlägt e5, Schach");
    assert_eq!(said_move("ru:natural", checking()), "конь бьёт e5, шах");
    assert_eq!(said_move("pl:natural", checking()), "skoczek bije e5, szach");
}

#[test]
fn promotions_name_the_new_piece() {
    let fen = Some("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1");
    let e8q = || mv(fen, "e8=Q");
    // The new piece in the nominative after a colon: «превращение: даме»
    // reads as well as «превращение: ферзь», where «в даме» would not.
    assert_eq!(said_move("ru:natural", e8q()), "пешка e8, превращение: ферзь");
    assert_eq!(said_move("ru:annex-d", e8q()), "бауэр Ева ахт, превращение: даме");
    assert_eq!(said_move("pl:natural", e8q()), "pion e8, promocja na hetmana");
    assert_eq!(said_move("de:natural", e8q()), "Bauer e8, Umwandlung in eine Dame");
    assert_eq!(said_move("en:natural", e8q()), "pawn e8, promotes to queen");
    assert_eq!(said_move("pl:annex-d", e8q()), "Bauer Eva acht, promocja na Dame");
}

#[test]
fn nato_and_literate_spell_squares_as_lichess_does() {
    let fen = Some("8/3k4/8/4p3/8/5N2/8/4K3 w - - 0 1");
    assert_eq!(said_move("en:nato", mv(fen, "Nxe5")), "knight takes Echo 5, check");
    assert_eq!(said_move("en:literate", mv(fen, "Nxe5")), "knight takes e five, check");
    assert_eq!(said_move("ru:nato", mv(fen, "Nxe5")), "конь бьёт Эхо 5, шах");
    assert_eq!(said_move("de:literate", mv(fen, "Nxe5")), "Springer schlägt e fünf, Schach");
}

#[test]
fn a_correction_is_said_as_one() {
    let kind = EventKind::Move { mv: mv(None, "Nf3"), correction: true };
    assert_eq!(said("en:natural", kind.clone()), "correction: knight f3");
    assert_eq!(said("de:annex-d", kind), "Korrektur: Springer Felix drei");
}

#[test]
fn time_readouts_use_each_language_s_plurals() {
    let kind =
        EventKind::Time { white_ms: 5_000_000, black_ms: 2_710_000, white_moves: 23, black_moves: 22, running: None };
    assert_eq!(said("en:natural", kind.clone()), "White 1 hour 23 minutes, Black 45 minutes 10 seconds; move 23.");
    let kind = EventKind::Time { white_ms: 60_000, black_ms: 122_000, white_moves: 1, black_moves: 0, running: None };
    assert_eq!(said("ru:natural", kind.clone()), "У белых 1 минута, у чёрных 2 минуты 2 секунды; ход 1.");
    assert_eq!(said("pl:natural", kind.clone()), "Białe: 1 minuta, czarne: 2 minuty 2 sekundy; posunięcie 1.");
    assert_eq!(said("de:natural", kind), "Weiß 1 Minute, Schwarz 2 Minuten 2 Sekunden; Zug 1.");
    let five = EventKind::TimeWarning { side: Color::Black, remaining_ms: 300_000 };
    assert_eq!(said("ru:natural", five.clone()), "Время чёрных: 5 минут.");
    assert_eq!(said("pl:natural", five), "Czas czarnych: 5 minut.");
}

fn hear_all(policy: SpeechPolicy, events: &[Event]) -> Vec<(Kind, String)> {
    let mut a = Announcer::new(Words::new(Lang::En, Style::Natural), policy);
    events.iter().filter_map(|e| a.hear(e)).map(|u| (u.kind, u.text)).collect()
}

fn ev(kind: EventKind) -> Event {
    Event { t: 0, kind }
}

#[test]
fn the_policy_decides_touches_and_whose_moves_are_read() {
    let touch =
        |binding| ev(EventKind::Touch { sq: Square::G1, piece: Piece::from_char('N').unwrap(), ply: 1, binding });
    let events = [
        touch(None),
        touch(Some(Article::A4_3_1)),
        ev(EventKind::Move { mv: mv(None, "Nf3"), correction: false }),
        ev(EventKind::Move { mv: mv(None, "Nf3 Nf6"), correction: false }),
    ];
    assert_eq!(hear_all(SpeechPolicy::default(), &events).len(), 2, "no touches by default");
    let binding = SpeechPolicy { touches: Touches::Binding, ..SpeechPolicy::default() };
    assert_eq!(hear_all(binding, &events)[0], (Kind::Touch, "touched: knight g1".to_owned()));
    let all = SpeechPolicy { touches: Touches::All, ..SpeechPolicy::default() };
    assert_eq!(hear_all(all, &events).len(), 4);
    // White listens: White's touches are not read back, White's own move
    // comes back as an echo (the check that the board read it right).
    let white = SpeechPolicy { touches: Touches::All, listener: Some(Color::White), ..SpeechPolicy::default() };
    assert_eq!(
        hear_all(white.clone(), &events),
        [(Kind::Echo, "knight f3".to_owned()), (Kind::Move, "knight f6".to_owned())]
    );
    let mut tone = Announcer::new(Words::new(Lang::En, Style::Natural), white.clone()).with_own_moves(OwnMoves::Tone);
    let heard: Vec<Kind> = events.iter().filter_map(|e| tone.hear(e)).map(|u| u.kind).collect();
    assert_eq!(heard, [Kind::Tone, Kind::Move]);
    let mut silent = Announcer::new(Words::new(Lang::En, Style::Natural), white).with_own_moves(OwnMoves::Silent);
    assert_eq!(events.iter().filter_map(|e| silent.hear(e)).count(), 1);
}

#[test]
fn time_warnings_are_said_as_the_core_gives_them_and_presses_are_silent() {
    let complete = |ms| {
        ev(EventKind::Complete {
            ply: 1,
            side: Color::White,
            san: "e4".into(),
            uci: "e2e4".into(),
            clock_ms: Some(ms),
            opponent_ms: None,
        })
    };
    let events = [
        complete(299_000),
        ev(EventKind::TimeWarning { side: Color::White, remaining_ms: 59_000 }),
        complete(55_000),
        ev(EventKind::TimeWarning { side: Color::Black, remaining_ms: 10_000 }),
    ];
    let said: Vec<String> = hear_all(SpeechPolicy::default(), &events).into_iter().map(|(_, t)| t).collect();
    assert_eq!(said, ["White: 59 seconds left.", "Black: 10 seconds left."]);
}

#[test]
fn the_golden_game_is_the_real_game() {
    let segments = common::segments();
    let game = segments.iter().find(|s| s.name == "game").unwrap();
    assert_eq!((game.listener, game.readout), (None, tactus_speech::Readout::BySide));
    let game = &game.events;
    let moves = game.iter().filter(|e| matches!(e.kind, EventKind::Move { .. })).count();
    // 46 plies, the slip d3 that was withdrawn, and the rook of a castling
    // begun with the rook.
    assert_eq!(moves, 48);
}

/// A piece two of its kind could have moved is said from its square, not
/// by the record's letter ("knight e c5", issue 30, 6) — except in Annex D,
/// whose names stand for the notation's letters (D.2.1).
#[test]
fn a_piece_two_could_have_moved_is_said_from_its_square() {
    // Knights on e4 and a4 can both go to c5; rooks on a1 and h1 to d1.
    let fen = Some("4k3/8/8/8/N3N3/8/8/R3KR2 w - - 0 1");
    let nec5 = || mv(fen, "Nec5");
    assert_eq!(nec5().san, "Nec5");
    assert_eq!(said_move("en:natural", nec5()), "knight from e4 to c5");
    assert_eq!(said_move("de:natural", nec5()), "Springer von e4 nach c5");
    assert_eq!(said_move("ru:natural", nec5()), "конь с e4 на c5");
    assert_eq!(said_move("pl:natural", nec5()), "skoczek z e4 na c5");
    assert_eq!(said_move("en:nato", nec5()), "knight from Echo 4 to Charlie 5");
    assert_eq!(said_move("en:literate", nec5()), "knight from e four to c five");
    assert_eq!(said_move("de:annex-d", nec5()), "Springer Eva Cesar fünf");
    let rook = Some("4k3/8/8/8/8/8/4K3/R2n3R w - - 0 1");
    let rhxd1 = || mv(rook, "Rhxd1");
    assert_eq!(rhxd1().san, "Rhxd1");
    assert_eq!(said_move("en:natural", rhxd1()), "rook on h1 takes d1");
    assert_eq!(said_move("de:natural", rhxd1()), "Turm auf h1 schlägt d1");
    assert_eq!(said_move("ru:natural", rhxd1()), "ладья с h1 бьёт d1");
    assert_eq!(said_move("pl:natural", rhxd1()), "wieża z h1 bije d1");
    // One that only one could make: as the record writes it.
    assert_eq!(said_move("en:natural", mv(None, "Nf3")), "knight f3");
}
