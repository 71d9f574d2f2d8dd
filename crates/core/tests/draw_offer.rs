//! Draw offers (9.1.2): an offer stands until the opponent accepts it with
//! an offer of their own (5.2.3) or declines it by making a move; the
//! offerer's own move, with which the offer is made, does not withdraw it.
//! The engine offers with its move.

use shakmaty::{Color, Square};
use tactus_core::{EndReason, Event, EventKind, Policy, Session};
use tactus_trace::{Entry, GameResult, Header, Input, Record};

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
        let mut session = Session::new(&header, Policy::default().with_recorded(&header)).unwrap();
        let events = session.drain().collect();
        Game { session, t: 0, events }
    }

    fn feed(&mut self, dt: u64, record: Record) {
        self.t += dt;
        self.session.handle(Entry { t: self.t, record });
        self.events.extend(self.session.drain());
    }

    fn carry(&mut self, from: &str, to: &str) {
        self.feed(150, Record::Edge { sq: sq(from), on: false, piece: None });
        self.feed(150, Record::Edge { sq: sq(to), on: true, piece: None });
        self.t += 1000;
        self.session.advance(self.t);
        self.events.extend(self.session.drain());
    }

    fn press(&mut self, side: Color) {
        self.feed(300, Record::Clock(side));
    }

    fn offer(&mut self, side: Color) {
        self.feed(100, Record::Input(Input::DrawOffer { side }));
    }

    fn count(&self, f: impl Fn(&EventKind) -> bool) -> usize {
        self.events.iter().filter(|e| f(&e.kind)).count()
    }

    fn over(&self) -> Option<(String, EndReason)> {
        self.events.iter().find_map(|e| match &e.kind {
            EventKind::GameOver { result, reason, .. } => Some((result.clone(), *reason)),
            _ => None,
        })
    }
}

#[test]
fn an_offer_made_with_the_move_stands_through_the_press_and_is_accepted() {
    let mut g = Game::new(None);
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.offer(Color::White);
    g.press(Color::White);
    assert_eq!(g.count(|k| matches!(k, EventKind::DrawOffer { side: Color::White })), 1);
    assert!(g.over().is_none());
    g.offer(Color::Black);
    assert_eq!(g.over(), Some((GameResult::Draw.as_str().to_string(), EndReason::Agreement)));
    assert!(g.session.finished());
}

#[test]
fn the_opponents_move_declines_the_offer_and_a_later_offer_is_a_new_one() {
    let mut g = Game::new(None);
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.offer(Color::White);
    g.press(Color::White);
    g.carry("e7", "e5");
    g.press(Color::Black);
    assert_eq!(g.count(|k| matches!(k, EventKind::DrawDeclined { side: Color::Black })), 1);
    // Black's offer now is an offer of its own, not an acceptance.
    g.offer(Color::Black);
    assert!(g.over().is_none());
    assert_eq!(g.count(|k| matches!(k, EventKind::DrawOffer { side: Color::Black })), 1);
    // Offering twice is not accepting one's own offer.
    g.offer(Color::Black);
    assert!(g.over().is_none());
    g.offer(Color::White);
    assert!(matches!(g.over(), Some((_, EndReason::Agreement))));
}

#[test]
fn the_engines_offer_with_its_move_is_accepted_by_the_players_offer() {
    let mut g = Game::new(Some(Color::Black));
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    let ply = g.session.game().ply();
    g.feed(2000, Record::Input(Input::Opponent { ply, uci: "e7e5".parse().unwrap(), eval: None }));
    g.offer(Color::Black);
    g.carry("e7", "e5");
    // Carrying out the engine's move completes its move: the offer stands.
    assert_eq!(g.session.game().played.len(), 2);
    assert_eq!(g.count(|k| matches!(k, EventKind::DrawDeclined { .. })), 0);
    g.offer(Color::White);
    assert!(matches!(g.over(), Some((r, EndReason::Agreement)) if r == "1/2-1/2"));
}

#[test]
fn a_take_back_withdraws_the_offer_that_stood() {
    let mut g = Game::new(Some(Color::Black));
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    g.offer(Color::White);
    // The player sets e4 back while the engine thinks: taken back.
    g.carry("e4", "e2");
    assert_eq!(g.count(|k| matches!(k, EventKind::TakeBack { .. })), 1);
    g.offer(Color::Black);
    assert!(g.over().is_none(), "the offer went with the moves taken back");
}
