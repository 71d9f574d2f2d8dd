//! The feed after a take-back: the rulings about the plies taken back go
//! with them, and are not written on the moves played again there.

use shakmaty::{Color, Square};
use tactus_core::{Event, EventKind, Policy, Session};
use tactus_net::BoardFeed;
use tactus_speech::{Lang, Scribe, Style, Words};
use tactus_trace::{Entry, Header, Input, Record};

struct Game {
    header: Header,
    session: Session,
    t: u64,
    events: Vec<Event>,
}

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

impl Game {
    fn new() -> Game {
        let header = Header { time_control: Some("300+2".into()), engine: Some(Color::Black), ..Header::default() };
        let mut session = Session::new(&header, Policy::default().with_recorded(&header)).unwrap();
        let events = session.drain().collect();
        Game { header, session, t: 0, events }
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

    fn choose(&mut self, uci: &str) {
        let ply = self.session.game().ply();
        self.feed(2000, Record::Input(Input::Opponent { ply, uci: uci.parse().unwrap(), eval: None }));
    }
}

/// White tries an illegal queen move at ply 3 (ruled under 7.5.1), puts it
/// back, then sets the board back to the start: e4 and e5 are taken back,
/// and the core's record keeps no trace of the attempt at ply 3 (its
/// pending rulings go with the take-back). The game goes on 1. e4 e5
/// 2. Nf3. The feed's PGN writes no comment of the old ruling on the new
/// 2. Nf3, which has the same ply number.
#[test]
fn a_ruling_at_a_ply_taken_back_is_not_written_on_the_move_played_again() {
    let mut g = Game::new();
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    g.choose("e7e5");
    g.carry("e7", "e5");
    // The queen jumps its own d2 pawn: ruled (7.5.1), then put back.
    g.carry("d1", "d3");
    g.press(Color::White);
    assert!(g.events.iter().any(|e| matches!(e.kind, EventKind::Irregularity(_))));
    g.carry("d3", "d1");
    // Both moves set back: the game starts again.
    g.carry("e5", "e7");
    g.carry("e4", "e2");
    assert!(g.events.iter().any(|e| matches!(e.kind, EventKind::TakeBack { ply: 1, .. })), "{:?}", g.events);
    g.carry("e2", "e4");
    g.press(Color::White);
    g.choose("e7e5");
    g.carry("e7", "e5");
    g.carry("g1", "f3");
    g.press(Color::White);
    let words = Words::new(Lang::En, Style::Natural);
    let core_pgn = tactus_core::pgn::write(&g.header, g.session.game(), &words);
    assert!(!core_pgn.contains("7.5.1") && !core_pgn.contains("d3"), "{core_pgn}");

    // The board's words for each event, as the daemon sends them.
    let mut scribe = Scribe::new(words);
    let mut feed = BoardFeed::new("a");
    let mut worded = 0;
    for e in &g.events {
        let text = scribe.write(e);
        worded += usize::from(matches!(e.kind, EventKind::Irregularity(_)) && text.is_some());
        feed.apply(e, text.as_deref());
    }
    assert_eq!(worded, 1, "the ruling came with its words");
    assert_eq!(feed.moves.iter().map(|m| m.san.to_string()).collect::<Vec<_>>(), ["e4", "e5", "Nf3"]);
    assert_eq!(feed.fen, g.session.game().fen());
    let pgn = feed.pgn(None);
    assert!(
        !pgn.contains("7.5.1") && !pgn.contains("d3"),
        "a ruling on a move taken back, on Nf3:\n{pgn}\ncore:\n{core_pgn}"
    );
}
