//! The written word: every ruling, penalty, result and note a reader is
//! told of (the page, the events' `detail`, the game record) is written by
//! the speech crate, in every language and style — whole, translated, and
//! the same whether it reaches the page or the record.

mod common;

use std::collections::BTreeSet;

use shakmaty::{Color, Piece, Square};
use tactus_core::pgn::{Commentary, Note, Settled};
use tactus_core::{
    Article, Attempt, Device, EndReason, Event, EventKind, Fix, GameResult, Irregularity, Lost, Placed, Reason, Slip,
};
use tactus_speech::{Lang, Scribe, Style, Words, moves_from_san};
use tactus_trace::MateVerdict;

fn p(c: char) -> Piece {
    Piece::from_char(c).unwrap()
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn ruling(side: Color, ply: u32, article: Article, reason: Reason) -> Irregularity {
    Irregularity { article, side, ply, reason, stands: false, attempt: None, touched: None, fix: vec![] }
}

/// The kinds the common games leave out: the engine, devices, draw offers,
/// a take-back, a stuck sensor.
fn the_rest() -> Vec<Event> {
    let nf3 = moves_from_san(None, &["e4", "e5", "Nf3"]).unwrap().pop().unwrap();
    let kinds = vec![
        EventKind::OpponentMove { mv: nf3.clone(), steps: vec![], eval: None, left: None, website: false },
        EventKind::OpponentFix {
            ply: 3,
            slip: Slip::Missing { sq: sq("g1"), piece: p('N') },
            fix: vec![Fix { piece: Some(p('N')), from: None, to: Some(sq("f3")) }],
        },
        EventKind::DeviceLost {
            device: Device::Clock,
            why: Lost::Unplugged,
            diagnostic: Some("/dev/rfcomm0: no answer".into()),
        },
        EventKind::DeviceBack { device: Device::Clock },
        EventKind::DrawOffer { side: Color::Black, irregular: false },
        EventKind::DrawDeclined { side: Color::White },
        EventKind::TakeBack { ply: 3, taken: vec!["Nf3".into()], white_ms: None, black_ms: None },
        EventKind::SensorFault { sq: sq("d5"), reading: true },
    ];
    kinds.into_iter().map(|kind| Event { t: 1, kind }).collect()
}

fn name(ev: &Event) -> String {
    serde_json::to_value(ev).unwrap()["event"].as_str().unwrap().to_owned()
}

#[test]
fn every_event_a_reader_is_told_of_is_written_in_every_language_and_style() {
    let games: Vec<Vec<Event>> =
        common::segments().into_iter().map(|s| s.events).chain(std::iter::once(the_rest())).collect();
    let mut failures = Vec::new();
    let mut written_kinds = BTreeSet::new();
    for style in Style::ALL {
        let english: Vec<Vec<Option<String>>> = games
            .iter()
            .map(|g| {
                let mut scribe = Scribe::new(Words::new(Lang::En, style));
                g.iter().map(|e| scribe.write(e)).collect()
            })
            .collect();
        for lang in Lang::ALL {
            for (game, english) in games.iter().zip(&english) {
                let mut scribe = Scribe::new(Words::new(lang, style));
                for (ev, en) in game.iter().zip(english) {
                    let Some(text) = scribe.write(ev) else { continue };
                    written_kinds.insert(name(ev));
                    let whole = !text.is_empty()
                        && !text.contains(['{', '}'])
                        && text.chars().next().is_some_and(|c| !c.is_lowercase());
                    if !whole {
                        failures.push(format!("{lang} {style} {}: {text:?}", name(ev)));
                    }
                    if lang != Lang::En && en.as_deref() == Some(text.as_str()) {
                        failures.push(format!("{lang} {style} {}: not translated: {text:?}", name(ev)));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let expected = [
        "ambiguous",
        "board_mismatch",
        "claimable",
        "device_back",
        "device_lost",
        "draw_declined",
        "draw_offer",
        "game_over",
        "irregularity",
        "observation",
        "opponent_fix",
        "opponent_move",
        "penalty",
        "sensor_fault",
        "take_back",
    ];
    assert_eq!(written_kinds, expected.iter().map(|k| k.to_string()).collect(), "the kinds written");
}

/// The words the core used to write, now the speech crate's: a ruling as
/// what it is, an observation with its reasons, the record's verdicts.
#[test]
fn rulings_are_written_as_what_they_are() {
    let words = Words::new(Lang::En, Style::Natural);
    let attempt = Attempt { piece: p('N'), from: sq("b1"), to: sq("b3") };
    let illegal = Irregularity {
        attempt: Some(attempt),
        ..ruling(Color::White, 1, Article::A7_5_1, Reason::NotAMoveOfThatPiece)
    };
    assert_eq!(words.ruling(&illegal), "White: illegal move — the knight cannot go from b1 to b3.");
    let stood = Irregularity { stands: true, ..illegal.clone() };
    assert_eq!(
        words.ruling(&stood),
        "White's move was illegal — the knight cannot go from b1 to b3. It stands unless Black claims before moving."
    );
    let no_move = ruling(Color::Black, 4, Article::A7_5_3, Reason::NoMove);
    assert_eq!(words.ruling(&no_move), "Black pressed the clock without a move, which counts as an illegal move.");
    let touched = Irregularity {
        touched: Some(Placed { sq: sq("g1"), piece: p('N') }),
        ..ruling(Color::White, 3, Article::A4_3_1, Reason::TouchMove)
    };
    assert_eq!(
        words.ruling(&touched),
        "White touched the knight on g1 first, then moved another piece; Black may claim."
    );
    let displaced = Irregularity {
        fix: vec![Fix { piece: Some(p('P')), from: None, to: Some(sq("e2")) }],
        ..ruling(Color::White, 1, Article::A7_4_1, Reason::Displaced)
    };
    assert_eq!(words.ruling(&displaced), "White displaced pieces; the move stands. Put the white pawn back on e2.");
    // In the record, after its article.
    assert_eq!(
        Note::Ruling(illegal.clone()).text(&words),
        "7.5.1 White: illegal move — the knight cannot go from b1 to b3."
    );
    // The page and the events get the same words.
    let mut scribe = Scribe::new(words);
    assert_eq!(
        scribe.write(&Event { t: 1, kind: EventKind::Irregularity(illegal) }).as_deref(),
        Some("White: illegal move — the knight cannot go from b1 to b3.")
    );
    let observed = EventKind::Observation {
        article: Article::A4_7,
        side: Color::Black,
        ply: 8,
        first: "Ne7".into(),
        then: "Nf6".into(),
    };
    assert_eq!(
        scribe.write(&Event { t: 2, kind: observed }).as_deref(),
        Some(
            "Black: the board showed knight e7, then knight f6. A piece released on a square may not then be moved to another square (4.7), or it was a slow slide."
        )
    );
}

#[test]
fn the_records_verdicts_say_who_could_still_mate() {
    let words = Words::new(Lang::En, Style::Natural);
    let lost = |article, loser, opponent| Note::Settled(Settled::Lost { article, loser, opponent });
    assert_eq!(
        lost(Article::A7_5_5, Color::White, MateVerdict::CannotMate).text(&words),
        "7.5.5 White's second illegal move, but Black cannot checkmate by any series of legal moves: draw."
    );
    assert_eq!(
        lost(Article::A6_9, Color::Black, MateVerdict::Undetermined).text(&words),
        "6.9 Black's flag has fallen: White wins on time. Whether White can checkmate was not settled within the search's limit: the loss stands, and the arbiter may look again."
    );
    assert_eq!(Note::Settled(Settled::Dead).text(&words), "5.2.2 Dead position, neither side can checkmate: draw.");
    let fell = Settled::Lost { article: Article::A6_9, loser: Color::White, opponent: MateVerdict::CanMate };
    assert_eq!(words.settled(&fell), "White's flag has fallen: Black wins on time.");
}

/// A penalty and a result are written in the context of the game, as the
/// voice says them; an unsettled search is said to the reader.
#[test]
fn penalties_and_results_are_written_in_the_games_context() {
    let mut scribe = Scribe::new(Words::new(Lang::En, Style::Natural));
    let mut write = |kind| scribe.write(&Event { t: 1, kind });
    write(EventKind::Irregularity(ruling(Color::White, 1, Article::A7_5_3, Reason::NoMove)));
    assert_eq!(
        write(EventKind::Penalty { article: Article::A7_5_5, side: Color::Black, ms: 120_000 }).as_deref(),
        Some("Black gets 2 minutes more.")
    );
    assert_eq!(
        write(EventKind::Penalty { article: Article::A12, side: Color::White, ms: 60_000 }).as_deref(),
        Some("The arbiter gives White 1 minute more.")
    );
    let over = EventKind::GameOver {
        result: GameResult::WhiteWins,
        reason: EndReason::FlagFall,
        article: Article::A6_9,
        undetermined: true,
    };
    assert_eq!(
        write(over).as_deref(),
        Some(
            "Black's flag has fallen: White wins on time. Whether White can checkmate was not settled within the search's limit: the loss stands, and the arbiter may look again."
        )
    );
    // A move, a touch, a question: nothing to read.
    assert_eq!(write(EventKind::Paused), None);
}

/// The events' JSON: the data as the core serialises it, and `detail` in
/// the scribe's words where the contract has one.
#[test]
fn an_events_line_carries_its_detail() {
    let mut scribe = Scribe::new(Words::new(Lang::De, Style::Natural));
    let ev = Event { t: 7, kind: EventKind::Irregularity(ruling(Color::Black, 2, Article::A7_5_3, Reason::NoMove)) };
    let line = scribe.json_line(&ev);
    let value: serde_json::Value = serde_json::from_str(&line).unwrap();
    let mut data = serde_json::to_value(&ev).unwrap();
    assert_eq!(value["detail"], Scribe::new(Words::new(Lang::De, Style::Natural)).write(&ev).unwrap());
    data["detail"] = value["detail"].clone();
    assert_eq!(value, data, "the event's data, and its detail");
    assert!(!line.contains('\n'));
    let paused = scribe.json_line(&Event { t: 8, kind: EventKind::Paused });
    assert_eq!(paused, r#"{"t":8,"event":"paused"}"#);
}

/// A device lost, in the events' JSON: its code and the device's own report
/// as data, and `detail` the sentence in the daemon's language, not English.
#[test]
fn a_device_lost_line_carries_its_code_and_its_detail_in_words() {
    let mut scribe = Scribe::new(Words::new(Lang::Ru, Style::Natural));
    let kind = EventKind::DeviceLost {
        device: Device::Engine,
        why: Lost::NoStart,
        diagnostic: Some("cannot start engine /usr/games/stockfish: No such file or directory".into()),
    };
    let line = scribe.json_line(&Event { t: 9, kind });
    let value: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(value["event"], "device_lost");
    assert_eq!(value["device"], "engine");
    assert_eq!(value["why"], "no_start");
    assert_eq!(value["diagnostic"], "cannot start engine /usr/games/stockfish: No such file or directory");
    assert_eq!(value["detail"], "Движок остановился; перезапускаю его. Причина: программа не запускается.");
    let bare = scribe.json_line(&Event {
        t: 10,
        kind: EventKind::DeviceLost { device: Device::Online, why: Lost::Ended, diagnostic: None },
    });
    let bare: serde_json::Value = serde_json::from_str(&bare).unwrap();
    assert!(bare.get("diagnostic").is_none(), "{bare}");
    assert_eq!(bare["detail"], "Соединение с Lichess завершено: онлайн-партий больше не будет.");
}
