//! Who and what next: every ruling names the side and the consequence; a
//! touch-move or rook-first castling is said as what it is once the move has
//! stood; results say whose flag fell and why a flag fall can be a draw; each
//! language uses its Laws' terms.

use shakmaty::{Color, Piece, Square};
use tactus_core::{Article, Attempt, EndReason, Event, EventKind, Fix, Irregularity, MoveInfo, Placed, Reason};
use tactus_speech::{Announcer, Choice, Lang, SpeechPolicy, Style, Words, moves_from_san};

fn mv(sans: &str) -> MoveInfo {
    let sans: Vec<&str> = sans.split_whitespace().collect();
    moves_from_san(None, &sans).unwrap().pop().unwrap()
}

fn p(c: char) -> Piece {
    Piece::from_char(c).unwrap()
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn start(tc: Option<&str>) -> EventKind {
    EventKind::Start {
        fen: START.into(),
        chess960: false,
        time_control: tc.map(Into::into),
        white_ms: None,
        black_ms: None,
    }
}

fn complete(m: &MoveInfo) -> EventKind {
    EventKind::Complete {
        ply: m.ply,
        side: m.side,
        san: m.san.clone(),
        uci: m.uci.clone(),
        clock_ms: None,
        opponent_ms: None,
    }
}

fn irr(side: Color, ply: u32, article: Article, reason: Reason) -> Irregularity {
    Irregularity { article, side, ply, reason, stands: false, attempt: None, touched: None, fix: vec![] }
}

/// What an announcer says for `kinds`, in order, one line per event.
fn heard(choice: &str, listener: Option<Color>, kinds: Vec<EventKind>) -> Vec<String> {
    let c: Choice = choice.parse().unwrap();
    let policy = SpeechPolicy { listener, ..SpeechPolicy::everything() };
    let mut a = Announcer::new(Words::new(c.lang, c.style), policy);
    kinds.into_iter().filter_map(|kind| a.hear(&Event { t: 0, kind })).map(|u| u.text).collect()
}

fn last(choice: &str, listener: Option<Color>, kinds: Vec<EventKind>) -> String {
    heard(choice, listener, kinds).pop().unwrap()
}

/// After 1.e4, Black's knight goes from c3 to e4 and the arbiter rules it
/// illegal (the position is made up: the ruling is what matters).
fn illegal_knight() -> Vec<EventKind> {
    let e4 = mv("e4");
    vec![
        start(None),
        EventKind::Move { mv: e4.clone(), correction: false },
        complete(&e4),
        EventKind::Irregularity(Irregularity {
            attempt: Some(Attempt { piece: p('n'), from: sq("c3"), to: sq("e4") }),
            touched: None,
            fix: vec![Fix { piece: Some(p('n')), from: Some(sq("e4")), to: Some(sq("c3")) }],
            ..irr(Color::Black, 2, Article::A7_5_1, Reason::LeavesKingInCheck)
        }),
    ]
}

#[test]
fn an_illegal_move_names_the_side_and_what_happens_next() {
    assert_eq!(
        last("en:natural", None, illegal_knight()),
        "Black: illegal move — the king would be in check. Put the knight from e4 back on c3; Black moves again."
    );
    assert_eq!(
        last("de:natural", None, illegal_knight()),
        "Schwarz: regelwidriger Zug — der König stünde im Schach. Den Springer von e4 zurück auf c3 stellen; Schwarz zieht noch einmal."
    );
    assert_eq!(
        last("ru:natural", None, illegal_knight()),
        "Невозможный ход чёрных — король оказался бы под шахом. Поставьте коня с e4 обратно на c3; чёрные ходят снова."
    );
    assert_eq!(
        last("pl:natural", None, illegal_knight()),
        "Nieprawidłowe posunięcie czarnych — król byłby szachowany. Przestaw skoczka z e4 z powrotem na c3; czarne ponownie wykonują posunięcie."
    );
    // To the player of Black, and to the player of White.
    assert_eq!(
        last("en:natural", Some(Color::Black), illegal_knight()),
        "You: illegal move — the king would be in check. Put the knight from e4 back on c3; you move again."
    );
    assert_eq!(
        last("en:natural", Some(Color::White), illegal_knight()),
        "Your opponent: illegal move — the king would be in check. Put the knight from e4 back on c3; your opponent moves again."
    );
}

#[test]
fn the_move_replacing_an_illegal_one_is_bound_to_the_touched_piece() {
    let mut kinds = illegal_knight();
    if let Some(EventKind::Irregularity(i)) = kinds.last_mut() {
        i.touched = Some(Placed { sq: sq("c3"), piece: p('n') });
    }
    assert!(
        last("en:natural", None, kinds.clone()).ends_with("; Black moves again, with the knight on c3 if it can move."),
    );
    assert!(last("ru:natural", None, kinds).ends_with("если конь на c3 может пойти, ходить нужно этой фигурой."));
}

#[test]
fn a_second_illegal_act_is_not_followed_by_moves_again() {
    let mut kinds = illegal_knight();
    let first = kinds.last().cloned().unwrap();
    kinds.push(EventKind::Penalty { article: Article::A7_5_5, side: Color::White, ms: 120_000 });
    kinds.push(first);
    kinds.push(EventKind::GameOver {
        result: "1-0".parse().unwrap(),
        reason: EndReason::IllegalMoves,
        article: Article::A7_5_5,
        undetermined: false,
    });
    let said = heard("en:natural", None, kinds);
    assert_eq!(said[3], "White gets 2 minutes more.");
    assert_eq!(said[4], "Black: illegal move — the king would be in check. Put the knight from e4 back on c3.");
    assert_eq!(said[5], "Game over. Black's second illegal move: White wins.");
}

/// 1.e4 e5 2.Nf3 (White touched the a2 pawn first).
fn touched_a2() -> Vec<EventKind> {
    let moves = moves_from_san(None, &["e4", "e5", "Nf3"]).unwrap();
    let mut kinds = vec![start(None)];
    for m in &moves {
        kinds.push(EventKind::Move { mv: m.clone(), correction: false });
        kinds.push(complete(m));
    }
    kinds.push(EventKind::Irregularity(Irregularity {
        touched: Some(Placed { sq: sq("a2"), piece: p('P') }),
        ..irr(Color::White, 3, Article::A4_3_1, Reason::TouchMove)
    }));
    kinds
}

#[test]
fn touch_move_is_said_once_the_move_has_stood() {
    let said = heard("en:natural", None, touched_a2());
    assert_eq!(said[said.len() - 2], "knight f3", "the move first");
    assert_eq!(said.last().unwrap(), "White touched the pawn on a2 first, then moved another piece; Black may claim.");
    assert_eq!(
        last("de:natural", None, touched_a2()),
        "Weiß hat zuerst den Bauern auf a2 berührt und dann eine andere Figur gezogen; Schwarz kann reklamieren."
    );
    // The Russian sentence agrees in case: тронули (кого?) пешку.
    assert_eq!(
        last("ru:natural", None, touched_a2()),
        "Белые сначала тронули пешку на a2, а затем пошли другой фигурой; чёрные могут заявить о нарушении."
    );
    assert_eq!(
        last("pl:natural", None, touched_a2()),
        "Białe najpierw dotknęły piona na a2, a potem ruszyły inną bierką; czarne mogą reklamować."
    );
    assert_eq!(
        last("en:natural", Some(Color::Black), touched_a2()),
        "Your opponent touched the pawn on a2 first, then moved another piece; you may claim."
    );
}

#[test]
fn a_castling_begun_with_the_rook_is_said_as_what_it_is() {
    // 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.O-O, the rook lifted first.
    let sans = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"];
    let moves = moves_from_san(None, &sans).unwrap();
    let mut kinds = vec![start(None)];
    for m in &moves {
        kinds.push(EventKind::Move { mv: m.clone(), correction: false });
        kinds.push(complete(m));
    }
    let rook = moves_from_san(None, &[&sans[..], &["Rf1"]].concat()).unwrap().pop().unwrap();
    let castle = moves_from_san(None, &[&sans[..], &["O-O"]].concat()).unwrap().pop().unwrap();
    kinds.push(EventKind::Move { mv: rook, correction: false });
    kinds.push(EventKind::Move { mv: castle.clone(), correction: true });
    kinds.push(complete(&castle));
    kinds.push(EventKind::Irregularity(Irregularity {
        touched: Some(Placed { sq: sq("h1"), piece: p('R') }),
        ..irr(Color::White, 7, Article::A4_4_2, Reason::RookFirst)
    }));
    let said = heard("en:natural", None, kinds.clone());
    assert_eq!(
        &said[said.len() - 3..],
        [
            "rook f1",
            "short castling",
            "White touched the rook on h1 before the king, so castling was not allowed; Black may claim."
        ]
    );
    let said = heard("de:annex-d", None, kinds);
    assert_eq!(
        &said[said.len() - 3..],
        [
            "Turm Felix eins",
            "Kurze Rochade",
            "Weiß hat den Turm auf Hector eins vor dem König berührt, die Rochade war daher nicht erlaubt; Schwarz kann reklamieren."
        ]
    );
}

/// White's bishop jumps a pawn; unsupervised, the move stands (A.5.2).
fn stood() -> Vec<EventKind> {
    let e4 = mv("e4");
    let e5 = mv("e4 e5");
    let mut wrong = mv("e4 e5 Bc4");
    wrong.san = "Bh3".into();
    wrong.to = sq("h3");
    vec![
        start(None),
        EventKind::Move { mv: e4.clone(), correction: false },
        complete(&e4),
        EventKind::Move { mv: e5.clone(), correction: false },
        complete(&e5),
        EventKind::Move { mv: wrong.clone(), correction: false },
        complete(&wrong),
        EventKind::Irregularity(Irregularity {
            attempt: Some(Attempt { piece: p('B'), from: sq("f1"), to: sq("h3") }),
            ..irr(Color::White, 3, Article::A7_5_1, Reason::NotAMoveOfThatPiece)
        }),
    ]
}

#[test]
fn an_illegal_move_that_stood_says_who_may_claim_and_the_claim_says_what_follows() {
    assert_eq!(
        last("en:natural", None, stood()),
        "White's move was illegal — the bishop cannot go from f1 to h3. It stands unless Black claims before moving."
    );
    let mut claimed = stood();
    claimed.push(EventKind::Penalty { article: Article::A7_5_5, side: Color::Black, ms: 60_000 });
    assert_eq!(
        last("en:natural", None, claimed.clone()),
        "Black's claim is upheld: White's illegal move is taken back and White moves again; Black gets 1 minute more."
    );
    assert_eq!(
        last("ru:natural", Some(Color::Black), claimed.clone()),
        "Ваше требование обосновано: невозможный ход соперника отменён, соперник ходит снова; вам добавляется время: 1 минута."
    );
    // A second illegal act by White after the claim ends the game.
    claimed.push(EventKind::GameOver {
        result: "1/2-1/2".parse().unwrap(),
        reason: EndReason::IllegalMoves,
        article: Article::A7_5_5,
        undetermined: false,
    });
    assert_eq!(
        last("en:natural", None, claimed),
        "Game over. White's second illegal move, but Black cannot checkmate by any series of legal moves: draw."
    );
}

/// Two boards, one game: on Black's board, White's illegal move that stood
/// on White's board is said as it comes — before Black's hands have it on
/// this board — as one that stands, and Black's claim as upheld.
#[test]
fn a_partner_s_illegal_move_that_stood_is_said_as_standing_before_it_is_complete_here() {
    let mut events = stood();
    let ruling = events.pop().unwrap();
    let completed = events.pop().unwrap();
    let EventKind::Irregularity(ruling) = ruling else { panic!("{ruling:?}") };
    events.extend([EventKind::Irregularity(Irregularity { stands: true, ..ruling }), completed]);
    events.push(EventKind::Penalty { article: Article::A7_5_5, side: Color::Black, ms: 60_000 });
    let said = heard("en:natural", Some(Color::Black), events);
    let n = said.len();
    assert_eq!(
        said[n - 3..],
        [
            "bishop h3",
            "Your opponent's move was illegal — the bishop cannot go from f1 to h3. You may claim before you move.",
            "Your claim is upheld: your opponent's illegal move is taken back and your opponent moves again; you get 1 minute more."
        ]
    );
}

fn game_over(result: &str, reason: EndReason) -> Vec<EventKind> {
    // Black to move after 1.e4: a flag that falls now is Black's.
    let e4 = mv("e4");
    vec![
        start(Some("300")),
        EventKind::Move { mv: e4.clone(), correction: false },
        complete(&e4),
        EventKind::GameOver { result: result.parse().unwrap(), reason, article: Article::A6_9, undetermined: false },
    ]
}

#[test]
fn results_say_whose_flag_fell_and_why_a_flag_fall_can_be_a_draw() {
    let flag = game_over("1-0", EndReason::FlagFall);
    assert_eq!(last("en:natural", None, flag.clone()), "Game over. Black's flag has fallen: White wins on time.");
    assert_eq!(
        last("de:natural", None, flag.clone()),
        "Partie beendet. Das Fallblättchen von Schwarz ist gefallen: Weiß gewinnt."
    );
    assert_eq!(last("ru:natural", None, flag.clone()), "Партия окончена. У чёрных упал флажок: победа белых.");
    assert_eq!(last("pl:natural", None, flag.clone()), "Koniec partii. Flaga czarnych opadła: wygrywają białe.");
    assert_eq!(
        last("en:natural", Some(Color::Black), flag),
        "Game over. Your flag has fallen: your opponent wins on time."
    );
    let drawn = game_over("1/2-1/2", EndReason::FlagFall);
    assert_eq!(
        last("en:natural", None, drawn.clone()),
        "Game over. Black's flag has fallen, but White cannot checkmate by any series of legal moves: draw."
    );
    assert_eq!(
        last("pl:natural", None, drawn),
        "Koniec partii. Flaga czarnych opadła, ale białe nie mogą zamatować żadną serią prawidłowych posunięć: remis."
    );
}

#[test]
fn results_are_said_once() {
    let cases = [
        ("1/2-1/2", EndReason::Agreement, "Game over. Draw by agreement."),
        ("1/2-1/2", EndReason::Stalemate, "Game over. Stalemate: draw."),
        ("1/2-1/2", EndReason::ThreefoldRepetition, "Game over. Draw by threefold repetition, on Black's claim."),
        ("0-1", EndReason::Resignation, "Game over. White resigns: Black wins."),
        ("0-1", EndReason::Checkmate, "Game over. Checkmate: Black wins."),
        ("1/2-1/2", EndReason::Arbiter, "Game over. By the arbiter's decision, the game is drawn."),
    ];
    for (result, reason, want) in cases {
        assert_eq!(last("en:natural", None, game_over(result, reason)), want);
    }
    // No language says the result twice ("draw agreed. Draw.").
    for lang in Lang::ALL {
        for (result, reason, _) in cases {
            let c = format!("{lang}:natural");
            let said = last(&c, None, game_over(result, reason)).to_lowercase();
            for word in ["draw", "remis", "ничья", "ничью"] {
                assert!(said.matches(word).count() <= 1, "{said}");
            }
        }
    }
}

/// Every phrase the golden transcripts hold, in one language.
fn golden(lang: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    Style::ALL
        .iter()
        .map(|style| std::fs::read_to_string(dir.join(format!("{lang}-{style}.txt"))).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn each_language_uses_its_laws_terms() {
    // Polish: a move is «posunięcie», a claim is «reklamować»; «ruch» only
    // in «ruszyć» (to move a piece).
    let pl = golden("pl");
    assert!(!pl.contains(" ruch ") && !pl.contains("Ruch "), "Polish uses «posunięcie» for a move");
    assert!(pl.contains("nieprawidłowe posunięcie") && pl.contains("reklamować"));
    // German: one term for an illegal move, the Laws' «regelwidrig».
    let de = golden("de");
    assert!(!de.contains("nmöglich"), "German says «regelwidriger Zug», never «unmöglicher Zug»");
    assert!(de.contains("regelwidriger Zug") && de.contains("reklamieren"));
    // Russian: «невозможный ход» (7.5), «заявить о нарушении» (4.8).
    let ru = golden("ru");
    assert!(ru.contains("Невозможный ход") && ru.contains("заявить о нарушении"));
    assert!(!ru.contains("Тронул — ходи: нужно ходить тронутой фигурой, "), "the old sentence that did not agree");
}

#[test]
fn the_listener_hears_their_time_first() {
    let time = EventKind::Time {
        white_ms: 60_000,
        black_ms: 122_000,
        white_moves: 1,
        black_moves: 0,
        running: Some(Color::Black),
    };
    assert_eq!(
        last("en:natural", Some(Color::Black), vec![time.clone()]),
        "You 2 minutes 2 seconds, your opponent 1 minute; move 1, your move."
    );
    assert_eq!(
        last("de:natural", Some(Color::Black), vec![time.clone()]),
        "Sie 2 Minuten 2 Sekunden, Ihr Gegner 1 Minute; Zug 1, Sie sind am Zug."
    );
    assert_eq!(
        last("ru:natural", Some(Color::White), vec![time.clone()]),
        "У вас 1 минута, у соперника 2 минуты 2 секунды; ход 1, ход соперника."
    );
    assert_eq!(
        last("pl:natural", Some(Color::Black), vec![time]),
        "Twój czas: 2 minuty 2 sekundy, czas przeciwnika: 1 minuta; posunięcie 1, jesteś na posunięciu."
    );
}

#[test]
fn a_new_period_is_announced_when_its_time_is_added() {
    let moves = moves_from_san(None, &["e4", "e5", "Nf3", "Nc6", "Bc4"]).unwrap();
    let mut kinds = vec![start(Some("2/300:60+5"))];
    for m in &moves {
        kinds.push(EventKind::Move { mv: m.clone(), correction: false });
        kinds.push(complete(m));
    }
    let said = heard("en:natural", None, kinds.clone());
    let added: Vec<&String> = said.iter().filter(|s| s.contains("time control")).collect();
    assert_eq!(
        added,
        ["White has reached the time control: 1 minute added.", "Black has reached the time control: 1 minute added."]
    );
    // Said right after the move that reached it: White's second.
    let at = said.iter().position(|s| s.starts_with("White has reached")).unwrap();
    assert_eq!(said[at - 1], "knight f3");
    let ru = heard("ru:natural", Some(Color::Black), kinds);
    assert!(ru.contains(&"Вы прошли контроль времени, добавляется время: 1 минута.".to_owned()), "{ru:?}");
}
