//! What a blind player hears carrying out the opponent's move wrongly, and
//! asking about the board meanwhile: every kind of slip, played through
//! the core, for every kind of opponent the board hosts (an engine, a
//! player online, the partner board), in every language (issue 30, 2 and
//! 4). Each fix names a piece where it really stands; "engine" is said of
//! an engine only.

mod play;

use shakmaty::{Color, Position};
use tactus_core::{Event, EventKind, Online};
use tactus_speech::{Announcer, Lang, Opponent, SpeechPolicy, Style, Words};
use tactus_trace::{Header, Request};

use play::{Pace, Play};

/// Who plays the other side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Engine,
    Online,
    Partner,
}

const KINDS: [Kind; 3] = [Kind::Engine, Kind::Online, Kind::Partner];

/// A game from `fen` against `kind` playing the side to move there.
fn against(kind: Kind, fen: &str) -> Play {
    let turn = fen.split_whitespace().nth(1) == Some("w");
    let header = Header {
        start_fen: Some(fen.to_owned()),
        time_control: Some("900+10".into()),
        engine: Some(if turn { Color::White } else { Color::Black }),
        online: kind == Kind::Online,
        partner: kind == Kind::Partner,
        ..Header::default()
    };
    Play::new(&header, Pace { edge_ms: 200, still_ms: 5000 })
}

/// What the player (the side `kind` does not play) hears of `g`'s events
/// from `from` on, in `lang`, as the daemon sets the voice up for `kind`:
/// the player the listener; online, the server's game named first.
fn heard(g: &Play, from: usize, kind: Kind, lang: Lang) -> String {
    let opponent = g.session.game().start().turn();
    let words = Words::new(lang, Style::Natural).with_opponent(match kind {
        Kind::Engine => Opponent::Engine,
        Kind::Online => Opponent::Online,
        Kind::Partner => Opponent::Partner,
    });
    let listener = (kind != Kind::Online).then_some(!opponent);
    let mut a = Announcer::new(words, SpeechPolicy { listener, ..SpeechPolicy::default() });
    let mut said = Vec::new();
    for (i, ev) in g.events.iter().enumerate() {
        let u = a.hear(ev);
        if i >= from {
            said.extend(u.map(|u| u.text));
        }
        // The server names the game after the board begins it.
        if i == 0 && kind == Kind::Online {
            let playing =
                Online::Playing { game: "AbCd1234".into(), opponent: "Magnus".into(), ai_level: None, side: !opponent };
            a.hear(&Event { t: 0, kind: EventKind::Online(playing) });
        }
    }
    said.join(" ")
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A scene played against an opponent of a kind: the game, and where the
/// slip begins.
type Scene = Box<dyn Fn(Kind) -> (Play, usize)>;

/// Each scene, by name.
fn scenes() -> Vec<(&'static str, Scene)> {
    fn scene(fen: &'static str, uci: &'static str, acts: &'static [&'static str]) -> Scene {
        Box::new(move |kind| {
            let mut g = against(kind, fen);
            g.engine(uci);
            let m = g.mark();
            for act in acts {
                g.hands(act);
            }
            (g, m)
        })
    }
    vec![
        ("another piece onto the target", scene(START, "b1c3", &["c2- c3+"])),
        ("another piece, by no legal move", scene(START, "b1c3", &["d2- c3+"])),
        ("the right piece to a wrong square", scene(START, "b1c3", &["b1- d4+"])),
        (
            "a capture's victim set down on the board",
            scene("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2", "e4d5", &["d5- c6+"]),
        ),
        (
            "en passant's victim left",
            scene("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "e5f6", &["e5- f6+"]),
        ),
        ("castling begun with the rook", scene(CASTLES, "e1g1", &["h1- f1+"])),
        ("castling begun with the other rook", scene(CASTLES, "e1g1", &["a1- d1+"])),
        ("castling, the king to a wrong square", scene(CASTLES, "e1g1", &["e1- f1+"])),
        ("promotion, the pawn to a wrong square", scene(PROMOTES, "e7e8q", &["e7- d8+"])),
        ("promotion, the pawn left on its square", scene(PROMOTES, "e7e8q", &["e8+"])),
        ("a piece not of the move lifted", scene(START, "b1c3", &["g1-"])),
    ]
}

const CASTLES: &str = "r3k2r/pppq1ppp/2n2n2/4p3/4P3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1";
const PROMOTES: &str = "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1";

/// The words for an engine in each language: said of an engine only.
const ENGINE: [(Lang, &str); 4] =
    [(Lang::En, "engine"), (Lang::De, "Engine"), (Lang::Ru, "движ"), (Lang::Pl, "komputer")];

/// Issue 30's slip: the opponent's knight b1–c3, the c2 pawn carried to
/// c3 instead. Heard: the pawn lifted first ("not that one"), then the
/// move the board shows, with each piece from where it stands — never
/// "the pawn from b1", and "the engine's" only of an engine.
#[test]
fn issue_30s_slip_is_told_from_where_the_pieces_stand() {
    let want = |kind: Kind, lang: Lang| -> String {
        let whose = |engine: &'static str, other: &'static str| if kind == Kind::Engine { engine } else { other };
        match lang {
            Lang::En => format!(
                "Not that one: put the pawn back on c2; then move the knight from b1 to c3. That is not {} move: c3. \
                 Put the pawn from c3 back on c2; then move the knight from b1 to c3.",
                whose("the engine's", "your opponent's")
            ),
            Lang::De => format!(
                "Nicht diese Figur: den Bauern zurück auf c2 stellen; dann den Springer von b1 nach c3 ziehen. \
                 Das ist nicht der Zug {}: c3. Den Bauern von c3 zurück auf c2 stellen; dann den Springer von b1 \
                 nach c3 ziehen.",
                whose("der Engine", "des Gegners")
            ),
            Lang::Ru => format!(
                "Не та фигура: поставьте пешку обратно на c2; затем переставьте коня с b1 на c3. Это не ход {}: c3. \
                 Поставьте пешку с c3 обратно на c2; затем переставьте коня с b1 на c3.",
                whose("движка", "соперника")
            ),
            Lang::Pl => format!(
                "Nie ta bierka: postaw piona z powrotem na c2; potem przestaw skoczka z b1 na c3. To nie jest ruch \
                 {}: c3. Przestaw piona z c3 z powrotem na c2; potem przestaw skoczka z b1 na c3.",
                whose("komputera", "przeciwnika")
            ),
        }
    };
    for kind in KINDS {
        let mut g = against(kind, START);
        g.engine("b1c3");
        let m = g.mark();
        g.hands("c2- c3+");
        for lang in Lang::ALL {
            assert_eq!(heard(&g, m, kind, lang), want(kind, lang), "{kind:?} {lang}");
        }
    }
}

/// Every kind of slip, for every kind of opponent, in every language:
/// something is said, every blank filled, the same for every opponent but
/// for whose move it is, "engine" only of an engine; in English, word for
/// word.
#[test]
fn every_slip_is_told_for_every_opponent_in_every_language() {
    let english = [
        (
            "another piece, by no legal move",
            "Not that one: put the pawn back on d2; then move the knight from b1 to c3. The pawn belongs on d2, not on c3.",
        ),
        ("the right piece to a wrong square", "The knight belongs on c3, not on d4."),
        ("a capture's victim set down on the board", "Take the pawn on c6 off the board."),
        ("en passant's victim left", "Now take the pawn off f5."),
        ("castling begun with the rook", "Now move the king from e1 to g1."),
        (
            "castling begun with the other rook",
            "Not that one: put the rook back on a1; then move the king from e1 to g1. That is not your opponent's \
             move: rook d1. Put the rook from d1 back on a1; then move the king from e1 to g1; then move the rook \
             from h1 to f1.",
        ),
        ("castling, the king to a wrong square", "The king belongs on g1, not on f1."),
        ("promotion, the pawn to a wrong square", "Take the piece on d8 off the board."),
        ("promotion, the pawn left on its square", "Now take the pawn off e7."),
        (
            "a piece not of the move lifted",
            "Not that one: put the knight back on g1; then move the knight from b1 to c3.",
        ),
    ];
    for (name, scene) in scenes() {
        let mut by_kind = Vec::new();
        for kind in KINDS {
            let (g, m) = scene(kind);
            let said: Vec<(Lang, String)> = Lang::ALL.iter().map(|&lang| (lang, heard(&g, m, kind, lang))).collect();
            for ((lang, text), (_, engine)) in said.iter().zip(ENGINE) {
                assert!(!text.is_empty() && !text.contains('{'), "{name}, {kind:?} {lang}: {text:?}");
                if kind != Kind::Engine {
                    assert!(!text.contains(engine), "{name}, {kind:?} {lang}: an engine named: {text}");
                }
            }
            if let Some((_, want)) = english.iter().find(|(n, _)| *n == name)
                && kind != Kind::Engine
            {
                assert_eq!(said[0].1, *want, "{name}, {kind:?}");
            }
            by_kind.push(said);
        }
        // Online and on the partner board the same words.
        assert_eq!(by_kind[1], by_kind[2], "{name}");
    }
}

/// Asked about the board while the opponent's move is still to be carried
/// out, the answer says so first; the position read out is the one before
/// the move, and nobody is said to be on move. A square the move changes
/// says it too.
#[test]
fn questions_while_the_move_is_carried_out_say_it_is_still_to_go() {
    let still = [
        (Lang::En, "Your opponent's move is still to be carried out: knight b1 to c3."),
        (Lang::De, "Der Zug Ihres Gegners ist noch auszuführen: Springer b1 nach c3."),
        (Lang::Ru, "Ход соперника ещё не выполнен на доске: конь b1 на c3."),
        (Lang::Pl, "Ruch przeciwnika nie jest jeszcze wykonany na szachownicy: skoczek b1 na c3."),
    ];
    let empty = [(Lang::En, "c3: empty."), (Lang::De, "c3: leer."), (Lang::Ru, "c3: пусто."), (Lang::Pl, "c3: puste.")];
    for kind in KINDS {
        let mut g = against(kind, START);
        g.engine("b1c3");
        let m = g.mark();
        g.ask(Request::Position);
        for (lang, still) in still {
            let said = heard(&g, m, kind, lang);
            assert!(said.starts_with(still), "{kind:?} {lang}: {said}");
            assert!(said.ends_with("a2 to h2.") || lang != Lang::En, "{kind:?}: no one said on move: {said}");
        }
        let m = g.mark();
        g.ask(Request::Square("c3".parse().unwrap()));
        for ((lang, still), (_, empty)) in still.into_iter().zip(empty) {
            assert_eq!(heard(&g, m, kind, lang), format!("{empty} {still}"), "{kind:?} {lang}");
        }
        // A square the move leaves alone: as ever.
        let m = g.mark();
        g.ask(Request::Square("e2".parse().unwrap()));
        assert_eq!(heard(&g, m, kind, Lang::En), "e2: opponent's pawn.", "{kind:?}");
    }
}

/// A press or a hint while a player far away is on move, or while their
/// move is still to be carried out, is told as theirs, not an engine's.
#[test]
fn what_waits_on_a_player_far_away_is_theirs() {
    use tactus_core::NotNow;
    let wants = [
        (Lang::En, "First carry out your opponent's move.", "Your opponent has not moved yet."),
        (Lang::De, "Führen Sie zuerst den Zug Ihres Gegners aus.", "Ihr Gegner hat noch nicht gezogen."),
        (Lang::Ru, "Сначала выполните ход соперника.", "Соперник ещё не сделал ход."),
        (Lang::Pl, "Najpierw wykonaj ruch przeciwnika.", "Przeciwnik jeszcze nie wykonał posunięcia."),
    ];
    for (lang, carry_out_first, not_yet) in wants {
        for (kind, opponent) in [(Kind::Partner, Opponent::Partner), (Kind::Online, Opponent::Online)] {
            let words = Words::new(lang, Style::Natural).with_opponent(opponent);
            let mut a = Announcer::new(words, SpeechPolicy { listener: Some(Color::White), ..SpeechPolicy::default() });
            let said = |a: &mut Announcer, why| a.hear(&Event { t: 0, kind: EventKind::NotNow { why } }).unwrap().text;
            assert_eq!(said(&mut a, NotNow::CarryOutFirst), carry_out_first, "{kind:?} {lang}");
            assert_eq!(said(&mut a, NotNow::EngineThinking), not_yet, "{kind:?} {lang}");
        }
        // An engine is still an engine.
        let mut a = Announcer::new(Words::new(lang, Style::Natural), SpeechPolicy::default());
        let engine = a.hear(&Event { t: 0, kind: EventKind::NotNow { why: NotNow::CarryOutFirst } }).unwrap().text;
        assert_ne!(engine, carry_out_first, "{lang}");
    }
}
