//! Who can still checkmate, as the game asks it: a dead position ends the
//! game (5.2.2); a flag fall (6.9) and a second illegal move (7.5.5) lose
//! only when the opponent can mate. Positions with the Laws' rulings come
//! from tactus-mate's labelled file (CHA-Solver's sets, see
//! crates/mate/tests/data/SOURCES.md).

mod common;

use common::Data;
use shakmaty::{CastlingMode, Chess, Color, Position, Square, fen::Fen};
use tactus_core::{EndReason, Event, EventKind, MateSearch, Policy, Session, replay, search_mate};
use tactus_trace::{Entry, GameResult, Header, Input, MateVerdict, Record};

fn header(fen: &str, tc: &str) -> Header {
    Header { start_fen: Some(fen.into()), time_control: Some(tc.into()), ..Header::default() }
}

fn policy(search: MateSearch) -> Policy {
    Policy { mate_search: search, ..Policy::default() }
}

fn game_over(events: &[Event]) -> Option<(String, EndReason, bool)> {
    events.iter().find_map(|e| match &e.kind {
        EventKind::GameOver { result, reason, undetermined, .. } => Some((result.to_string(), *reason, *undetermined)),
        _ => None,
    })
}

fn feed(session: &mut Session, events: &mut Vec<Event>, t: u64, record: Record) {
    session.handle(Entry { t, record });
    events.extend(session.drain());
}

/// The driver's part in a daemon: each question searched and answered
/// through the trace.
fn answer(session: &mut Session, events: &mut Vec<Event>, t: u64) {
    while let Some(q) = session.mate_question() {
        let verdict = search_mate(&q);
        feed(session, events, t, Record::Input(Input::Verdict { ply: q.ply, side: q.side, verdict }));
    }
}

struct Labelled {
    place: String,
    flagged: Color,
    lost: bool,
    counting_lost: bool,
    fen: String,
}

fn labelled() -> Vec<Labelled> {
    let text = include_str!("../../mate/tests/data/flag-fall.txt");
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.splitn(4, ' ').collect();
        out.push(Labelled {
            place: format!("flag-fall.txt:{}", i + 1),
            flagged: if f[0] == "white" { Color::White } else { Color::Black },
            lost: f[1] == "lost",
            counting_lost: f[2] == "lost",
            fen: f[3].to_string(),
        });
    }
    // Counting is right and the game is drawn: a lone king cannot mate.
    out.push(Labelled {
        place: "a lone king".into(),
        flagged: Color::White,
        lost: false,
        counting_lost: false,
        fen: "8/8/4k3/8/8/8/3QK3/8 w - - 0 1".into(),
    });
    out
}

#[test]
fn flag_falls_are_lost_exactly_when_the_opponent_can_mate_6_9() {
    let (mut right, mut wrong) = (0, 0);
    for case in labelled() {
        let pos: Chess = case.fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        // The clock runs for the side to move: only its flag can fall here.
        if pos.turn() != case.flagged {
            continue;
        }
        let expected = if case.lost { GameResult::win_for(!case.flagged) } else { GameResult::Draw };
        for search in [MateSearch::Inline, MateSearch::Asked] {
            let mut session = Session::new(&header(&case.fen, "60"), policy(search)).unwrap();
            let mut events: Vec<Event> = session.drain().collect();
            if let Some(over) = game_over(&events) {
                // Dead from the start (5.2.2): no flag can fall.
                assert_eq!((over.0.as_str(), over.1), ("1/2-1/2", EndReason::DeadPosition), "{}", case.place);
                assert!(!case.lost, "{}: a dead position, yet labelled lost", case.place);
                continue;
            }
            session.advance(61_000);
            events.extend(session.drain());
            answer(&mut session, &mut events, 61_500);
            let (result, reason, undetermined) =
                game_over(&events).unwrap_or_else(|| panic!("{}: no result ({search:?})", case.place));
            assert_eq!(
                (result.as_str(), reason),
                (expected.as_str(), EndReason::FlagFall),
                "{} {search:?}",
                case.place
            );
            assert!(!undetermined, "{}", case.place);
            assert!(session.finished());
        }
        if case.lost == case.counting_lost {
            right += 1;
        } else {
            wrong += 1;
        }
    }
    assert!(
        right >= 3 && wrong >= 4,
        "both kinds are tested: {right} where counting is right, {wrong} where it is wrong"
    );
}

#[test]
fn a_second_illegal_move_draws_when_the_opponent_cannot_mate_though_material_remains_7_5_5() {
    // [README of CHA-Solver] Black cannot mate; counting says Black can.
    let fen = "5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 60";
    let mut session = Session::new(&header(fen, "5400+30"), Policy::default()).unwrap();
    let mut events: Vec<Event> = session.drain().collect();
    assert!(game_over(&events).is_none(), "White can still mate: the game goes on");
    feed(&mut session, &mut events, 1000, Record::Clock(Color::White));
    feed(&mut session, &mut events, 2000, Record::Clock(Color::White));
    let over = game_over(&events).expect("the second illegal act ends the game");
    assert_eq!((over.0.as_str(), over.1), ("1/2-1/2", EndReason::IllegalMoves));
    let pgn = tactus_core::pgn::write(&Header::default(), session.game(), &Data);
    let pgn = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(pgn.contains("7.5.5 loser white, draw"), "White's second illegal move, Black cannot mate: {pgn}");
}

#[test]
fn a_dead_starting_position_ends_the_game_at_once_5_2_2() {
    let fen = "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1";
    let mut session = Session::new(&header(fen, "5400+30"), Policy::default()).unwrap();
    let events: Vec<Event> = session.drain().collect();
    assert_eq!(game_over(&events), Some(("1/2-1/2".into(), EndReason::DeadPosition, false)));
    assert!(session.finished());
}

#[test]
fn a_move_that_fixes_the_last_pawn_ends_the_game_5_2_2() {
    // White's h-pawn is the last free pawn; on h4 it is locked, and neither
    // side's bishop can ever reach the other side's pawns.
    let fen = "2b1k3/8/8/1p1p1p1p/1P1P1P2/8/7P/2B1K3 w - - 0 1";
    for search in [MateSearch::Inline, MateSearch::Asked] {
        let mut session = Session::new(&header(fen, "5400+30"), policy(search)).unwrap();
        let mut events: Vec<Event> = session.drain().collect();
        assert!(game_over(&events).is_none());
        feed(&mut session, &mut events, 1000, Record::Edge { sq: Square::H2, on: false, piece: None });
        feed(&mut session, &mut events, 1300, Record::Edge { sq: Square::H4, on: true, piece: None });
        feed(&mut session, &mut events, 1700, Record::Clock(Color::White));
        answer(&mut session, &mut events, 1800);
        assert_eq!(game_over(&events), Some(("1/2-1/2".into(), EndReason::DeadPosition, false)), "{search:?}");
        let pgn = tactus_core::pgn::write(&Header::default(), session.game(), &Data);
        let pgn = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(pgn.contains("h4 {[%clk 1:30:28] 5.2.2 dead}"), "{pgn}");
    }
}

/// Black's flag falls where the quick check cannot tell whether White can
/// mate: the result waits for the search's answer.
const OPEN_QUESTION: &str = "2b5/1p6/pPp3k1/2Pp3p/P2PpBpP/4P1P1/5K2/8 b - - 0 1";

#[test]
fn while_the_result_waits_for_the_search_nothing_else_counts() {
    let mut session = Session::new(&header(OPEN_QUESTION, "60"), policy(MateSearch::Asked)).unwrap();
    let mut events: Vec<Event> = session.drain().collect();
    session.advance(61_000);
    events.extend(session.drain());
    assert!(game_over(&events).is_none(), "the result waits");
    assert!(!session.finished());
    assert_eq!(session.next_deadline(), None, "no timer runs while judging");
    let q = session.mate_question().expect("a question for the driver");
    assert_eq!(q.side, Color::White);
    assert_eq!(q.ply, session.game().ply(), "asked about the position on the board");
    // Hands on the board, a press, an answer to another question: nothing.
    feed(&mut session, &mut events, 62_000, Record::Edge { sq: Square::G6, on: false, piece: None });
    feed(&mut session, &mut events, 62_100, Record::Clock(Color::Black));
    let stale = Input::Verdict { ply: q.ply + 2, side: Color::White, verdict: MateVerdict::CannotMate };
    feed(&mut session, &mut events, 62_200, Record::Input(stale));
    assert!(game_over(&events).is_none());
    // Past the daemon's deadline: the loss stands, marked undetermined.
    let answer = Input::Verdict { ply: q.ply, side: Color::White, verdict: MateVerdict::Undetermined };
    feed(&mut session, &mut events, 63_000, Record::Input(answer));
    assert_eq!(game_over(&events), Some(("1-0".into(), EndReason::FlagFall, true)));
    let pgn = tactus_core::pgn::write(&Header::default(), session.game(), &Data);
    let pgn = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(pgn.contains("6.9 loser black, undetermined"), "Black's flag fell, the search did not settle: {pgn}");
}

#[test]
fn a_replay_takes_the_journaled_answer() {
    let mut h = header(OPEN_QUESTION, "60");
    policy(MateSearch::Asked).record(&mut h);
    let mut text = Vec::new();
    let mut w = tactus_trace::TraceWriter::new(&mut text);
    w.write_header(&h).unwrap();
    let ply = Session::new(&h, Policy::default()).unwrap().game().ply();
    let answer = Input::Verdict { ply, side: Color::White, verdict: MateVerdict::CannotMate };
    w.write_entry(&Entry { t: 61_300, record: Record::Input(answer) }).unwrap();
    w.write_entry(&Entry { t: 62_000, record: Record::End }).unwrap();
    drop(w);
    let r = replay::replay(text.as_slice(), Policy::default()).unwrap();
    assert_eq!(game_over(&r.events), Some(("1/2-1/2".into(), EndReason::FlagFall, false)));
    let flag = r.events.iter().find(|e| matches!(e.kind, EventKind::GameOver { .. })).unwrap();
    assert_eq!(flag.t, 61_300, "the result stands when the answer came");
}
