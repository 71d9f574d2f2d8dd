//! Questions asked at the board, through a whole session: a trace's
//! `request` lines in, the answering events out.

use shakmaty::{Color, File, Rank, Role, Square};
use tactus_core::{Event, EventKind, Policy, Session, ToControl};
use tactus_trace::{Entry, Header, Input, Record, Request};

/// Plays `script` (`e2-` lifts, `e4+` places, `W`/`B` press, `?what …`
/// asks, as `Request::from_words` reads it with `.` for spaces), 300 ms a
/// token, and returns what the session said.
fn play(tc: Option<&str>, script: &str) -> Vec<Event> {
    let header = Header { time_control: tc.map(str::to_owned), ..Header::default() };
    let mut session = Session::new(&header, Policy::default()).unwrap();
    let mut events: Vec<Event> = session.drain().collect();
    for (i, token) in script.split_whitespace().enumerate() {
        let t = 1000 + 300 * i as u64;
        let record = match token {
            "W" => Record::Clock(Color::White),
            "B" => Record::Clock(Color::Black),
            _ if token.starts_with('?') => {
                let words: Vec<&str> = token[1..].split('.').collect();
                Record::Input(Input::Request(Request::from_words(&words).unwrap()))
            }
            _ => {
                let (sq, on) = token.split_at(2);
                Record::Edge { sq: sq.parse().unwrap(), on: on == "+", piece: None }
            }
        };
        session.handle(Entry { t, record });
        events.extend(session.drain());
    }
    events
}

fn answers(events: &[Event]) -> Vec<&EventKind> {
    events
        .iter()
        .map(|e| &e.kind)
        .filter(|k| {
            matches!(
                k,
                EventKind::Pieces { .. }
                    | EventKind::OnRank { .. }
                    | EventKind::OnFile { .. }
                    | EventKind::OnSquare { .. }
                    | EventKind::MovesToControl { .. }
                    | EventKind::LastMove { .. }
            )
        })
        .collect()
}

const OPENING: &str = "e2- e4+ W e7- e5+ B g1- f3+ W";

#[test]
fn every_question_is_answered_from_the_game_being_played() {
    let script = format!("{OPENING} ?pieces.white.n ?rank.4 ?file.e ?square.f3 ?square.d5 ?last_move");
    let events = play(Some("40/5400+30:1800+30"), &script);
    let got = answers(&events);
    assert_eq!(got.len(), 6, "{got:?}");
    let EventKind::Pieces { side: Color::White, role: Some(Role::Knight), pieces, .. } = got[0] else {
        panic!("{got:?}")
    };
    let squares: Vec<Square> = pieces.iter().map(|p| p.sq).collect();
    assert_eq!(squares, [Square::B1, Square::F3]);
    let EventKind::OnRank { rank: Rank::Fourth, pieces } = got[1] else { panic!("{got:?}") };
    assert_eq!(pieces.iter().map(|p| p.sq).collect::<Vec<_>>(), [Square::E4]);
    let EventKind::OnFile { file: File::E, pieces } = got[2] else { panic!("{got:?}") };
    assert_eq!(pieces.len(), 4);
    assert!(
        matches!(got[3], EventKind::OnSquare { sq: Square::F3, piece: Some(p), board: None, pending: None } if p.role == Role::Knight)
    );
    assert!(matches!(got[4], EventKind::OnSquare { sq: Square::D5, piece: None, board: None, pending: None }));
    assert!(matches!(got[5], EventKind::LastMove { mv } if mv.san == "Nf3"));
}

#[test]
fn moves_to_the_control_follow_the_clock() {
    let events = play(Some("40/5400+30:1800+30"), &format!("{OPENING} ?moves_to_control"));
    assert_eq!(
        answers(&events),
        [&EventKind::MovesToControl {
            white: ToControl { moves: 2, left: Some(38), added_ms: Some(1_800_000) },
            black: ToControl { moves: 1, left: Some(39), added_ms: Some(1_800_000) },
        }]
    );
    // Without a clock the counts come from the game and no control is ahead.
    let events = play(None, &format!("{OPENING} ?moves_to_control"));
    assert_eq!(
        answers(&events),
        [&EventKind::MovesToControl {
            white: ToControl { moves: 2, left: None, added_ms: None },
            black: ToControl { moves: 1, left: None, added_ms: None },
        }]
    );
}
