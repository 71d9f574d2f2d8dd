//! Taking moves back against the engine by setting the board back: while
//! the engine thinks, while its move is being carried out, and after it
//! stands; the clocks go back to what they showed then; a position with
//! the engine to move, passed through on the way, takes nothing back; and
//! between two players a board set back is a wrong board, not a take-back.

use shakmaty::{Color, Square};
use tactus_core::{Event, EventKind, Policy, Session};
use tactus_trace::{Entry, Header, Input, Record};

/// A take-back as told: the ply now to be made, the moves taken back, and
/// the clocks.
type TakenBack = (u32, Vec<String>, Option<i64>, Option<i64>);

struct Game {
    session: Session,
    t: u64,
    events: Vec<Event>,
}

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

impl Game {
    fn new(engine: Option<Color>) -> Game {
        let header = Header { time_control: Some("300+2".into()), engine, ..Header::default() };
        let policy = Policy::default().with_recorded(&header);
        let mut session = Session::new(&header, policy).unwrap();
        let events = session.drain().collect();
        Game { session, t: 0, events }
    }

    fn feed(&mut self, dt: u64, record: Record) {
        self.t += dt;
        self.session.handle(Entry { t: self.t, record });
        self.events.extend(self.session.drain());
    }

    /// A piece carried from one square to another, then the board still.
    fn carry(&mut self, from: &str, to: &str) {
        self.feed(150, Record::Edge { sq: sq(from), on: false, piece: None });
        self.feed(150, Record::Edge { sq: sq(to), on: true, piece: None });
        self.wait(1000);
    }

    fn wait(&mut self, ms: u64) {
        self.t += ms;
        self.session.advance(self.t);
        self.events.extend(self.session.drain());
    }

    fn press(&mut self, side: Color) {
        self.feed(300, Record::Clock(side));
    }

    fn choose(&mut self, uci: &str) {
        let ply = self.session.game().ply();
        self.feed(2000, Record::Input(Input::Opponent { ply, uci: uci.parse().unwrap(), eval: None }));
    }

    fn take_backs(&self) -> Vec<TakenBack> {
        self.events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::TakeBack { ply, taken, white_ms, black_ms } => {
                    Some((*ply, taken.clone(), *white_ms, *black_ms))
                }
                _ => None,
            })
            .collect()
    }

    fn sans(&self) -> Vec<String> {
        self.session.game().played.iter().map(|p| p.info.san.clone()).collect()
    }

    fn remaining(&self, side: Color) -> i64 {
        self.session.clock().unwrap().remaining(side, self.t)
    }

    fn no_rulings(&self) {
        for e in &self.events {
            assert!(
                !matches!(e.kind, EventKind::Irregularity(_) | EventKind::Penalty { .. } | EventKind::Displaced { .. }),
                "a ruling against a player: {e:?}"
            );
        }
    }
}

/// White (the player) e4, the engine e5 carried out, White Nf3, the engine's
/// Nc6 chosen.
fn opening() -> Game {
    let mut g = Game::new(Some(Color::Black));
    g.press(Color::Black); // starts White's clock
    g.carry("e2", "e4");
    g.press(Color::White);
    g.choose("e7e5");
    g.carry("e7", "e5");
    g.carry("g1", "f3");
    g.press(Color::White);
    g
}

#[test]
fn the_players_move_set_back_while_the_engine_thinks_is_taken_back() {
    let mut g = opening();
    assert_eq!(g.sans(), ["e4", "e5", "Nf3"]);
    let white_before = g.remaining(Color::White);
    // The engine has not chosen: the knight goes home.
    g.carry("f3", "g1");
    assert_eq!(g.sans(), ["e4", "e5"]);
    let backs = g.take_backs();
    assert_eq!(backs.len(), 1, "{backs:?}");
    assert_eq!(backs[0].0, 3, "White's second move, ply 3, is to be made again");
    assert_eq!(backs[0].1, ["Nf3"]);
    // White's clock shows what it showed when e5 stood, before Nf3 was
    // thought over and its increment added.
    let at_e5 = g
        .events
        .iter()
        .find_map(|e| match e.kind {
            EventKind::Complete { ply: 2, opponent_ms, .. } => opponent_ms,
            _ => None,
        })
        .unwrap();
    assert_eq!(backs[0].2, Some(at_e5));
    assert_ne!(at_e5, white_before);
    assert!(g.session.clock().unwrap().running() == Some(Color::White));
    assert!(!g.session.awaits_engine());
    assert_eq!(g.session.take_backs(), 1);
    // And the game goes on: another move, the engine answers it.
    g.carry("d2", "d4");
    g.press(Color::White);
    assert_eq!(g.sans(), ["e4", "e5", "d4"]);
    assert!(g.session.awaits_engine());
    g.no_rulings();
}

#[test]
fn both_moves_set_back_after_the_engines_move_stands_are_taken_back_together() {
    let mut g = opening();
    g.choose("b8c6");
    g.carry("b8", "c6");
    assert_eq!(g.sans(), ["e4", "e5", "Nf3", "Nc6"]);
    // The engine's knight home first: the board then shows the position
    // after Nf3, with the engine to move — nothing is taken back there.
    g.carry("c6", "b8");
    assert!(g.take_backs().is_empty(), "{:?}", g.take_backs());
    assert_eq!(g.sans(), ["e4", "e5", "Nf3", "Nc6"]);
    g.carry("f3", "g1");
    let backs = g.take_backs();
    assert_eq!(backs.len(), 1, "{backs:?}");
    assert_eq!(backs[0].1, ["Nf3", "Nc6"]);
    assert_eq!(g.sans(), ["e4", "e5"]);
    assert_eq!(g.session.game().turn(), Color::White);
    g.no_rulings();
}

#[test]
fn the_players_move_set_back_instead_of_carrying_out_the_engines_is_taken_back() {
    let mut g = opening();
    g.choose("b8c6");
    // Instead of the engine's knight, the player's goes home.
    g.carry("f3", "g1");
    assert_eq!(g.take_backs().len(), 1);
    assert_eq!(g.sans(), ["e4", "e5"]);
    // The clocks run again, the player's.
    assert_eq!(g.session.clock().unwrap().running(), Some(Color::White));
    // A stale choice for the ply taken back changes nothing now.
    let ply = g.session.game().ply() + 1;
    let before = g.events.len();
    g.feed(10, Record::Input(Input::Opponent { ply, uci: "b8c6".parse().unwrap(), eval: None }));
    assert!(!g.events[before..].iter().any(|e| matches!(e.kind, EventKind::OpponentMove { .. })));
    g.no_rulings();
}

#[test]
fn the_whole_game_set_back_to_the_start_is_taken_back() {
    let mut g = opening();
    g.choose("b8c6");
    g.carry("b8", "c6");
    g.carry("c6", "b8");
    g.carry("f3", "g1");
    g.carry("e5", "e7");
    g.carry("e4", "e2");
    let backs = g.take_backs();
    assert_eq!(backs.last().unwrap().1, ["e4", "e5"], "{backs:?}");
    assert!(g.sans().is_empty());
    let (_, _, white_ms, black_ms) = backs.last().unwrap().clone();
    assert_eq!((white_ms, black_ms), (Some(300_000), Some(300_000)), "the times as at the start");
    // White's clock runs from the take-back on.
    assert!(g.remaining(Color::White) < 300_000);
    assert_eq!(g.remaining(Color::Black), 300_000);
}

#[test]
fn between_two_players_a_board_set_back_takes_nothing_back() {
    let mut g = Game::new(None);
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    g.carry("e7", "e5");
    g.press(Color::Black);
    g.carry("e4", "e2");
    g.wait(5000);
    assert!(g.take_backs().is_empty());
    assert_eq!(g.sans(), ["e4", "e5"]);
    assert_eq!(g.session.take_backs(), 0);
}
