//! Questions at the board as the player hears the answers: in short chunks,
//! "you" for the listener, each language's grammar for one, many and none.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, File, Rank, Role};
use tactus_clock::TimeControl;
use tactus_core::query::{Clocks, answer};
use tactus_core::{Event, EventKind};
use tactus_speech::{Announcer, Choice, Lang, Readout, SpeechPolicy, Style, Words};
use tactus_trace::Request;

/// After 1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Bxc6 dxc6: White has one bishop
/// left, Black two; neither has lost a rook.
const FEN: &str = "r1bqkbnr/1pp2ppp/p1p5/4p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 5";

fn ask(q: Request, tc: Option<&str>) -> EventKind {
    let pos: Chess = Fen::from_ascii(FEN.as_bytes()).unwrap().into_position(CastlingMode::Standard).unwrap();
    let control = tc.map(|tc| tc.parse::<TimeControl>().unwrap());
    let clocks =
        Clocks { white_ms: 0, black_ms: 0, white_moves: 4, black_moves: 4, running: None, control: control.as_ref() };
    answer(&pos, None, &clocks, q).unwrap()
}

fn chunks(choice: &str, listener: Option<Color>, readout: Readout, kind: EventKind) -> Vec<String> {
    let c: Choice = choice.parse().unwrap();
    let policy = SpeechPolicy { listener, ..SpeechPolicy::default() };
    let mut a = Announcer::new(Words::new(c.lang, c.style).with_readout(readout), policy);
    a.hear_chunks(&Event { t: 0, kind }).into_iter().map(|u| u.text).collect()
}

fn said(choice: &str, listener: Option<Color>, q: Request) -> String {
    chunks(choice, listener, Readout::BySide, ask(q, None)).join(" ")
}

#[test]
fn where_are_my_pieces_in_every_language() {
    let bishops = |side| Request::Pieces { side, role: Some(Role::Bishop) };
    let rooks = Request::Pieces { side: Color::White, role: Some(Role::Rook) };
    let queens = Request::Pieces { side: Color::Black, role: Some(Role::Queen) };
    let knights = Request::Pieces { side: Color::Black, role: Some(Role::Knight) };
    assert_eq!(said("en:natural", None, bishops(Color::White)), "White's bishop: c1.");
    assert_eq!(said("en:natural", Some(Color::White), bishops(Color::White)), "Your bishop: c1.");
    assert_eq!(said("en:natural", Some(Color::White), bishops(Color::Black)), "Your opponent's bishops: c8, f8.");
    assert_eq!(said("en:natural", Some(Color::White), rooks), "Your rooks: a1, h1.");
    assert_eq!(said("en:natural", Some(Color::Black), knights), "Your knight: g8.");
    assert_eq!(said("de:natural", Some(Color::Black), queens), "Ihre Dame: d8.");
    assert_eq!(said("de:natural", None, bishops(Color::Black)), "Läufer von Schwarz: c8, f8.");
    assert_eq!(said("ru:natural", Some(Color::White), bishops(Color::White)), "Ваш слон: c1.");
    assert_eq!(said("ru:natural", Some(Color::Black), queens), "Ваш ферзь: d8.");
    assert_eq!(said("ru:natural", None, bishops(Color::Black)), "Слоны чёрных: c8, f8.");
    assert_eq!(said("pl:natural", Some(Color::Black), bishops(Color::Black)), "Twoje gońce: c8, f8.");
    assert_eq!(said("pl:natural", Some(Color::White), rooks), "Twoje wieże: a1, h1.");
    assert_eq!(said("pl:natural", Some(Color::White), queens), "Hetman przeciwnika: d8.");
}

#[test]
fn no_pieces_of_a_kind_is_said_in_each_language_s_case() {
    // Take the white bishops off: "no bishops" needs the genitive plural in
    // Russian and Polish.
    let none = EventKind::Pieces { side: Color::White, role: Some(Role::Bishop), pieces: vec![], board: None };
    let say = |choice: &str, listener| chunks(choice, listener, Readout::BySide, none.clone()).join(" ");
    assert_eq!(say("en:natural", Some(Color::White)), "You have no bishops.");
    assert_eq!(say("de:natural", None), "Weiß hat keine Läufer.");
    assert_eq!(say("ru:natural", None), "У белых нет слонов.");
    assert_eq!(say("ru:annex-d", Some(Color::Black)), "У соперника нет лойферов.");
    assert_eq!(say("pl:natural", Some(Color::White)), "Nie masz gońców.");
}

#[test]
fn ranks_files_and_squares() {
    assert_eq!(said("en:natural", None, Request::Rank(Rank::Fifth)), "Rank 5: black pawn e.");
    // The line is named once; a colour once for the pieces it is said
    // before; pieces of a kind together.
    assert_eq!(
        said("de:annex-d", None, Request::File(File::C)),
        "Linie Cesar: weißer Läufer eins, Bauer zwei, schwarze Bauern sechs, sieben, Läufer acht."
    );
    // Where a letter alone is also a word, a rank's pieces keep their squares.
    assert_eq!(said("ru:natural", None, Request::Rank(Rank::Fifth)), "Горизонталь 5: чёрная пешка e5.");
    assert_eq!(said("ru:natural", None, Request::Square("f3".parse().unwrap())), "f3: белый конь.");
    assert_eq!(said("pl:natural", None, Request::Square("d5".parse().unwrap())), "d5: puste.");
    assert_eq!(said("en:literate", None, Request::Square("a6".parse().unwrap())), "a six: black pawn.");
}

#[test]
fn moves_to_the_time_control() {
    let kind = ask(Request::MovesToControl, Some("40/5400+30:1800+30"));
    let say = |choice: &str, listener| chunks(choice, listener, Readout::BySide, kind.clone()).join(" ");
    assert_eq!(
        say("en:natural", None),
        "Time control after move 40: White 36 moves, Black 36 moves to go; then 30 minutes added."
    );
    assert_eq!(
        say("en:natural", Some(Color::Black)),
        "Time control after move 40: you 36 moves, your opponent 36 moves to go; then 30 minutes added."
    );
    assert_eq!(
        say("de:natural", Some(Color::White)),
        "Zeitkontrolle nach Zug 40: Sie noch 36 Züge, Ihr Gegner noch 36 Züge; dann 30 Minuten zusätzlich."
    );
    assert_eq!(
        say("ru:natural", None),
        "Контроль времени после хода 40. Осталось: белым 36 ходов, чёрным 36 ходов; затем добавится время: 30 минут."
    );
    assert_eq!(
        say("pl:natural", Some(Color::White)),
        "Kontrola czasu po posunięciu 40. Zostało: tobie 36 posunięć, przeciwnikowi 36 posunięć; potem dodatkowy czas: 30 minut."
    );
    let none = ask(Request::MovesToControl, Some("5400+30"));
    assert_eq!(chunks("en:natural", None, Readout::BySide, none).join(" "), "No further time control.");
}

#[test]
fn a_whole_position_comes_in_short_chunks() {
    for lang in Lang::ALL {
        for style in Style::ALL {
            for readout in [Readout::BySide, Readout::ByRank] {
                let c = format!("{lang}:{style}");
                let said = chunks(&c, Some(Color::White), readout, ask(Request::Position, None));
                // Each side's kinds of piece, or the ranks, then who is to play.
                assert!(said.len() >= 6, "{c} {readout:?}: {said:?}");
                for chunk in &said {
                    assert!(chunk.chars().count() <= 140, "{c} {readout:?}: a long chunk: {chunk}");
                }
            }
        }
    }
    let by_side = chunks("en:natural", Some(Color::Black), Readout::BySide, ask(Request::Position, None));
    assert_eq!(by_side[0], "Your pieces: king e8.", "the listener's own pieces first");
    assert_eq!(by_side.last().unwrap(), "Your opponent's move.");
    let army =
        chunks("en:natural", None, Readout::BySide, ask(Request::Pieces { side: Color::White, role: None }, None));
    assert_eq!(
        army,
        [
            "White: king e1.",
            "Queen d1.",
            "Rooks a1, h1.",
            "Bishop c1.",
            "Knights b1, f3.",
            "Pawns a2 to d2, f2 to h2, e4."
        ]
    );
}
