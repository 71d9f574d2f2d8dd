//! The relay passes take-backs on, through a real mosquitto as in
//! `relay.rs`: one move, and a whole game back to the start.

mod common;

use std::time::Duration;

use common::{Mosquitto, eventually};
use shakmaty::{Color, Square};
use tactus_core::{Event, EventKind, Policy, Session};
use tactus_net::{BoardPublisher, Broker, Hall, HallKey, HallLink, RelayOptions, Tags, relay};
use tactus_trace::{Entry, Header, Input, Record};
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(10);

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

struct Game {
    session: Session,
    t: u64,
    events: Vec<Event>,
}

impl Game {
    fn feed(&mut self, dt: u64, record: Record) {
        self.t += dt;
        self.session.handle(Entry { t: self.t, record });
        self.events.extend(self.session.drain());
    }

    fn edge(&mut self, dt: u64, name: &str, on: bool) {
        self.feed(dt, Record::Edge { sq: sq(name), on, piece: None });
    }

    fn carry(&mut self, from: &str, to: &str) {
        self.edge(150, from, false);
        self.edge(150, to, true);
        self.t += 1000;
        self.session.advance(self.t);
        self.events.extend(self.session.drain());
    }
}

/// 1. e4 e5 2. Nf3, and while the engine thinks the player puts all three
/// moves back at once (the board never holds still on the way): one
/// take-back of three moves to ply 1, which the relay passes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_relay_takes_a_take_back_of_three_moves_to_the_start() {
    relay_a_take_back(true).await;
}

/// The same game with only Nf3 taken back is relayed too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_relay_takes_a_take_back_of_one_move() {
    relay_a_take_back(false).await;
}

async fn relay_a_take_back(three: bool) {
    let header = Header { time_control: Some("300+2".into()), engine: Some(Color::Black), ..Header::default() };
    let mut session = Session::new(&header, Policy::default().with_recorded(&header)).unwrap();
    let events = session.drain().collect();
    let mut g = Game { session, t: 0, events };
    g.carry("e2", "e4");
    g.feed(300, Record::Clock(Color::White));
    let ply = g.session.game().ply();
    g.feed(2000, Record::Input(Input::Opponent { ply, uci: "e7e5".parse().unwrap(), eval: None }));
    g.carry("e7", "e5");
    g.carry("g1", "f3");
    g.feed(300, Record::Clock(Color::White));
    // Quicker than the board's settle time between changes.
    let back: &[(&str, bool)] = if three {
        &[("f3", false), ("g1", true), ("e5", false), ("e7", true), ("e4", false), ("e2", true)]
    } else {
        &[("f3", false), ("g1", true)]
    };
    for &(name, on) in back {
        g.edge(40, name, on);
    }
    g.t += 1000;
    g.session.advance(g.t);
    g.events.extend(g.session.drain());
    let taken: Vec<_> = g
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TakeBack { ply, taken, .. } => Some((*ply, taken.clone())),
            _ => None,
        })
        .collect();
    if three {
        assert_eq!(taken, [(1, vec!["e4".to_string(), "e5".into(), "Nf3".into()])]);
    } else {
        assert_eq!(taken, [(3, vec!["Nf3".to_string()])]);
    }

    let mosquitto = Mosquitto::start();
    let link = HallLink::new(Broker::new("127.0.0.1", mosquitto.port))
        .with_key(HallKey::from_bytes(b"the take-back tests' hall key").unwrap());
    let relayed = relay(&link, Hall::new("hall9"), RelayOptions::default(), &CancellationToken::new()).unwrap();
    let board = BoardPublisher::start(&link, "hall9", "a", None, &CancellationToken::new()).unwrap();
    board.set_tags(Tags::from(&header));
    for ev in &g.events {
        board.event(ev, None);
    }
    assert!(board.flush(WAIT).await);
    let mut expected = Hall::new("hall9");
    expected.set_tags("a", Tags::from(&header));
    for ev in &g.events {
        expected.apply("a", ev, None);
    }
    eventually(WAIT, "the relay to hold the game", async || {
        relayed.hall.read(|h| h.games_pgn()) == expected.games_pgn()
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(relayed.stats.refused.count(), 0, "the relay refused the take_back event");
}
