//! What an online game's server says besides the moves (Lichess), and the
//! online opponent's moves, in every language and style.

use shakmaty::{Color, Piece, Role, Square};
use tactus_core::{
    CastleSide, ChatLine, Device, Event, EventKind, FailedWhy, Fix, MoveInfo, NotPlayedReason, Online, OnlineAsk,
    RefusedWhy, ServerEnd, TokenState,
};
use tactus_speech::{Announcer, Choice, SpeechPolicy, Words};

const CHOICES: [&str; 4] = ["annex-d", "natural", "nato", "literate"];

fn announcer(choice: &str) -> Announcer {
    let c: Choice = choice.parse().unwrap();
    let policy = SpeechPolicy { listener: Some(Color::White), ..SpeechPolicy::everything() };
    Announcer::new(Words::new(c.lang, c.style), policy)
}

fn said(a: &mut Announcer, kind: EventKind) -> String {
    a.hear(&Event { t: 0, kind }).map(|u| u.text).expect("said")
}

fn every() -> Vec<Online> {
    vec![
        Online::Playing { game: "AbCd1234".into(), opponent: "Magnus".into(), ai_level: None, side: Color::White },
        Online::Challenge { id: "x".into(), player: "Coach".into(), incoming: true, clock: Some("15+10".into()) },
        Online::Challenge { id: "x".into(), player: "Coach".into(), incoming: false, clock: None },
        Online::ChallengeGone { id: "x".into(), declined: false },
        Online::ChallengeGone { id: "x".into(), declined: true },
        Online::TakebackOffer { open: true },
        Online::TakebackOffer { open: false },
        Online::TakenBack { ply: 3 },
        Online::Refused { ply: 1, uci: "e2e4".into(), san: "e4".into(), why: RefusedWhy::Server },
        Online::OpponentGone { gone: true, claim_in_s: Some(30) },
        Online::OpponentGone { gone: true, claim_in_s: Some(0) },
        Online::OpponentGone { gone: false, claim_in_s: None },
        Online::Ended { status: ServerEnd::Aborted },
        Online::Ended { status: ServerEnd::FlagFall },
        Online::RateLimited { for_s: 60 },
        Online::NotPlayed { game: "y".into(), reason: NotPlayedReason::AnotherGame },
        Online::Failed { why: FailedWhy::NoGame },
        Online::TakebackDeclined,
        Online::Chat { from: "Magnus".into(), text: "good luck".into() },
        // Each reason a request failed, and the server's other end.
        Online::Failed { why: FailedWhy::NotPlayable },
        Online::Failed { why: FailedWhy::Busy },
        Online::Failed { why: FailedWhy::Refused },
        Online::Failed { why: FailedWhy::Network },
        Online::Failed { why: FailedWhy::Token },
        Online::Failed { why: FailedWhy::RateLimited },
        Online::Ended { status: ServerEnd::Other },
    ]
}

#[test]
fn every_online_notice_is_said_in_every_language_and_style() {
    for lang in ["en", "de", "ru", "pl"] {
        for style in CHOICES {
            let choice = format!("{lang}:{style}");
            let mut a = announcer(&choice);
            let texts: Vec<String> = every().into_iter().map(|o| said(&mut a, EventKind::Online(o))).collect();
            for (o, text) in every().iter().zip(&texts) {
                assert!(!text.is_empty() && !text.contains('{'), "{choice} {o:?}: {text:?}");
            }
            // Each differs from the others of its kind.
            assert_ne!(texts[1], texts[2], "{choice}: a challenge to the account and by it");
            assert_ne!(texts[3], texts[4], "{choice}: withdrawn and declined");
            assert_ne!(texts[9], texts[10], "{choice}: the win claimable now or not");
            assert!(texts[0].contains("Magnus"), "{choice}: {}", texts[0]);
            assert!(texts[1].contains("Coach") && texts[1].contains("15+10"), "{choice}: {}", texts[1]);
            assert!(texts[18].contains("Magnus") && texts[18].contains("good luck"), "{choice}: {}", texts[18]);
            assert_ne!(texts[7], texts[17], "{choice}: a takeback agreed and declined");
            // The reasons a request failed: each its own sentence.
            let failed: Vec<&String> = every()
                .iter()
                .zip(&texts)
                .filter(|(o, _)| matches!(o, Online::Failed { .. }))
                .map(|(_, t)| t)
                .collect();
            assert_eq!(failed.len(), 7);
            for (i, a) in failed.iter().enumerate() {
                assert!(failed[i + 1..].iter().all(|b| a != b), "{choice}: {a} said for two reasons");
            }
            let asked = said(&mut a, EventKind::TakeBackAsked { ply: 3 });
            assert!(!asked.is_empty() && !asked.contains('{') && asked != texts[17], "{choice}: {asked}");
            let lost = said(
                &mut a,
                EventKind::DeviceLost {
                    device: Device::Online,
                    why: tactus_core::Lost::Connection,
                    diagnostic: Some("reset".into()),
                },
            );
            let back = said(&mut a, EventKind::DeviceBack { device: Device::Online });
            assert!(lost.contains("Lichess") && back.contains("Lichess"), "{choice}: {lost} / {back}");
            assert_ne!(lost, back);
        }
    }
    assert_eq!(
        said(&mut announcer("en:natural"), EventKind::Online(every().remove(8))),
        "Lichess refused the move e4: take it back."
    );
}

/// The notices of issue 29: every reason a game is not played, the token,
/// the chat held back and read, the answers to `online …` — each its own
/// sentence in every language, without blanks left.
#[test]
fn the_accounts_troubles_the_chats_budget_and_the_answers_are_said_in_every_language() {
    use NotPlayedReason as R;
    let reasons = [
        R::AnotherGame,
        R::NotBoardApi,
        R::Variant,
        R::NoSide,
        R::NotAPlayer,
        R::SidesDisagree,
        R::OtherGame,
        R::IllegalMoves,
        R::StartPosition,
        R::Gone,
    ];
    let asks = [
        OnlineAsk::Abort,
        OnlineAsk::DrawNo,
        OnlineAsk::TakebackNo,
        OnlineAsk::TakebackYes,
        OnlineAsk::Accept,
        OnlineAsk::Decline,
        OnlineAsk::ClaimVictory,
    ];
    for lang in ["en", "de", "ru", "pl"] {
        let choice = format!("{lang}:natural");
        let mut a = announcer(&choice);
        let mut say = |o: Online| said(&mut a, EventKind::Online(o));
        let not_played: Vec<String> =
            reasons.iter().map(|&reason| say(Online::NotPlayed { game: "y".into(), reason })).collect();
        let tokens: Vec<String> =
            [TokenState::Refused, TokenState::Unknown, TokenState::LacksScope, TokenState::Accepted]
                .into_iter()
                .map(|state| say(Online::Token { state }))
                .collect();
        let answers: Vec<String> = asks
            .iter()
            .flat_map(|&ask| [true, false].map(|standing| (ask, standing)))
            .filter(|&(ask, standing)| !(ask == OnlineAsk::DrawNo && standing))
            .map(|(ask, standing)| say(Online::Asked { ask, standing }))
            .collect();
        let held = say(Online::ChatHeld { count: 18 });
        let none = say(Online::ChatLines { lines: Vec::new() });
        let lines = say(Online::ChatLines {
            lines: vec![
                ChatLine { from: "Magnus".into(), text: "3: hi".into() },
                ChatLine { from: "Magnus".into(), text: "4: gg".into() },
            ],
        });
        for text in not_played.iter().chain(&tokens).chain(&answers).chain([&held, &none, &lines]) {
            assert!(!text.is_empty() && !text.contains('{'), "{choice}: {text:?}");
        }
        let distinct = |v: &[String]| v.iter().collect::<std::collections::HashSet<_>>().len();
        assert_eq!(distinct(&not_played), reasons.len(), "{choice}: {not_played:#?}");
        assert_eq!(distinct(&tokens), 4, "{choice}: {tokens:#?}");
        assert!(tokens[..3].iter().all(|t| t.contains("Lichess") || t.contains("board:play")), "{choice}: {tokens:#?}");
        assert!(held.contains("18") && held.contains("online chat"), "{choice}: {held}");
        assert!(lines.contains("3: hi") && lines.contains("4: gg"), "{choice}: {lines}");
    }
    let mut a = announcer("en:natural");
    assert_eq!(
        said(&mut a, EventKind::Online(Online::ChatHeld { count: 1 })),
        "More in the chat: 1 line; online chat reads them."
    );
}

/// Black's 1...Nf6, as the opponent's move to carry out: the move and the
/// board's one step.
fn black_knight_to_f6() -> (MoveInfo, Vec<Fix>) {
    let knight = Piece { color: Color::Black, role: Role::Knight };
    let mv = MoveInfo {
        ply: 2,
        side: Color::Black,
        san: "Nf6".into(),
        uci: "g8f6".into(),
        piece: knight,
        from: Square::G8,
        to: Square::F6,
        capture: None,
        promotion: None,
        castle: None,
        en_passant: false,
        check: false,
        mate: false,
    };
    (mv, vec![Fix { piece: Some(knight), from: Some(Square::G8), to: Some(Square::F6) }])
}

/// Issue 30, item 6: Lichess's AI is named in the player's language, in
/// the game's start and in its moves.
#[test]
fn lichess_ai_is_named_in_every_language() {
    let (mv, steps) = black_knight_to_f6();
    for (lang, name) in [
        ("en", "Lichess AI level 3"),
        ("de", "Lichess-KI Stufe 3"),
        ("ru", "ИИ Lichess уровня 3"),
        ("pl", "SI Lichess poziomu 3"),
    ] {
        let mut a = announcer(&format!("{lang}:natural"));
        let playing = said(
            &mut a,
            EventKind::Online(Online::Playing {
                game: "g".into(),
                opponent: "Lichess AI level 3".into(),
                ai_level: Some(3),
                side: Color::White,
            }),
        );
        let moved = said(
            &mut a,
            EventKind::OpponentMove { mv: mv.clone(), steps: steps.clone(), eval: None, left: None, website: false },
        );
        assert!(playing.contains(name) && moved.contains(name), "{lang}: {playing} / {moved}");
    }
}

#[test]
fn the_online_opponents_move_is_said_as_theirs_not_an_engines() {
    let (mv, steps) = black_knight_to_f6();
    let opponent_move =
        || EventKind::OpponentMove { mv: mv.clone(), steps: steps.clone(), eval: None, left: None, website: false };
    for lang in ["en", "de", "ru", "pl"] {
        for style in CHOICES {
            let choice = format!("{lang}:{style}");
            let mut a = announcer(&choice);
            let engine = said(&mut a, opponent_move());
            let playing = Online::Playing {
                game: "AbCd1234".into(),
                opponent: "Magnus".into(),
                ai_level: None,
                side: Color::White,
            };
            said(&mut a, EventKind::Online(playing));
            let online = said(&mut a, opponent_move());
            assert!(online.contains("Magnus") && !engine.contains("Magnus"), "{choice}: {engine} / {online}");
            assert_ne!(engine, online, "{choice}");
        }
    }
    let mut a = announcer("en:natural");
    said(
        &mut a,
        EventKind::Online(Online::Playing {
            game: "g".into(),
            opponent: "Magnus".into(),
            ai_level: None,
            side: Color::White,
        }),
    );
    assert_eq!(said(&mut a, opponent_move()), "Magnus plays knight g8 to f6.");
}

#[test]
fn the_players_own_move_made_on_the_website_is_said_as_theirs() {
    let bishop = Piece { color: Color::White, role: Role::Bishop };
    let mv = MoveInfo {
        ply: 5,
        side: Color::White,
        san: "Bb5".into(),
        uci: "f1b5".into(),
        piece: bishop,
        from: Square::F1,
        to: Square::B5,
        capture: None,
        promotion: None,
        castle: None,
        en_passant: false,
        check: false,
        mate: false,
    };
    let steps = vec![Fix { piece: Some(bishop), from: Some(Square::F1), to: Some(Square::B5) }];
    let kind =
        |website| EventKind::OpponentMove { mv: mv.clone(), steps: steps.clone(), eval: None, left: None, website };
    for lang in ["en", "de", "ru", "pl"] {
        for style in CHOICES {
            let choice = format!("{lang}:{style}");
            let mut a = announcer(&choice);
            let playing = Online::Playing {
                game: "AbCd1234".into(),
                opponent: "Magnus".into(),
                ai_level: None,
                side: Color::White,
            };
            said(&mut a, EventKind::Online(playing));
            let theirs = said(&mut a, kind(false));
            let ours = said(&mut a, kind(true));
            assert!(!ours.contains("Magnus") && !ours.contains('{'), "{choice}: {ours}");
            assert_ne!(theirs, ours, "{choice}");
        }
    }
    assert_eq!(said(&mut announcer("en:natural"), kind(true)), "Played for you on the website: bishop f1 to b5.");
}

/// The online opponent castles: "Magnus castles short", not "plays short
/// castling" (issue 30, 6); in Annex D castling keeps its names.
#[test]
fn the_online_opponent_castles_in_words() {
    let king = Piece { color: Color::Black, role: Role::King };
    let castles = |side, check| MoveInfo {
        ply: 10,
        side: Color::Black,
        san: "O-O".into(),
        uci: "e8g8".into(),
        piece: king,
        from: Square::E8,
        to: if side == CastleSide::King { Square::G8 } else { Square::C8 },
        capture: None,
        promotion: None,
        castle: Some(side),
        en_passant: false,
        check,
        mate: false,
    };
    let heard = |choice: &str, mv: MoveInfo| {
        let mut a = announcer(choice);
        said(
            &mut a,
            EventKind::Online(Online::Playing {
                game: "g".into(),
                opponent: "Magnus".into(),
                ai_level: None,
                side: Color::White,
            }),
        );
        said(&mut a, EventKind::OpponentMove { mv, steps: vec![], eval: None, left: None, website: false })
    };
    let short = || castles(CastleSide::King, false);
    let long = || castles(CastleSide::Queen, true);
    assert_eq!(heard("en:natural", short()), "Magnus castles short.");
    assert_eq!(heard("en:natural", long()), "Magnus castles long, check.");
    assert_eq!(heard("de:natural", short()), "Magnus rochiert kurz.");
    assert_eq!(heard("de:nato", long()), "Magnus rochiert lang, Schach.");
    assert_eq!(heard("ru:natural", short()), "Magnus: короткая рокировка.");
    assert_eq!(heard("pl:literate", long()), "Magnus: długa roszada, szach.");
    assert_eq!(heard("en:annex-d", short()), "Magnus plays Kurze Rochade.");
}

/// Told "you play White" by the server's game, the player hears the result
/// by what it means to them, in every language (issue 30, 6).
#[test]
fn after_you_play_white_the_result_is_what_it_means_to_the_player() {
    use tactus_core::{Article, EndReason, GameResult};
    let over = |result, reason| EventKind::GameOver { result, reason, article: Article::A5_1_1, undetermined: false };
    let wants = [
        (
            "en",
            "Playing on Lichess against Magnus; you play White.",
            "Game over. Checkmate: you win.",
            "Game over. You resign: your opponent wins.",
        ),
        (
            "de",
            "Partie auf Lichess gegen Magnus; Sie spielen Weiß.",
            "Partie beendet. Schachmatt: Sie gewinnen.",
            "Partie beendet. Sie geben auf: Ihr Gegner gewinnt.",
        ),
        (
            "ru",
            "Партия на Lichess против Magnus; вы играете белыми.",
            "Партия окончена. Мат: вы выиграли.",
            "Партия окончена. Вы сдались: выиграл соперник.",
        ),
        (
            "pl",
            "Partia na Lichess z Magnus; grasz białymi.",
            "Koniec partii. Mat: wygrywasz.",
            "Koniec partii. Poddajesz partię: wygrywa przeciwnik.",
        ),
    ];
    for (lang, playing, win, resign) in wants {
        let c: Choice = format!("{lang}:natural").parse().unwrap();
        // Nobody configured to listen: the server's game says who plays.
        let mut a = Announcer::new(Words::new(c.lang, c.style), SpeechPolicy::everything());
        assert_ne!(said(&mut a, over(GameResult::WhiteWins, EndReason::Checkmate)), win, "{lang}: said by colour");
        let game = Online::Playing { game: "g".into(), opponent: "Magnus".into(), ai_level: None, side: Color::White };
        assert_eq!(said(&mut a, EventKind::Online(game)), playing);
        assert_eq!(said(&mut a, over(GameResult::WhiteWins, EndReason::Checkmate)), win, "{lang}");
        assert_eq!(said(&mut a, over(GameResult::BlackWins, EndReason::Resignation)), resign, "{lang}");
    }
}
