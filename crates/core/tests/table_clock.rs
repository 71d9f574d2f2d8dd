//! Two boards at one table, one clock between them (Appendix D, D.2.5):
//! on the board the clock is attached to, the partner's player presses
//! before their move arrives, and this board's player carries it out on
//! their own time; on the other board the presses come with the times that
//! clock read, and complete the moves as any press does (6.2.1).

use shakmaty::{Color, Square};
use tactus_core::{Event, EventKind, Policy, Session};
use tactus_trace::{Entry, Header, Input, Record, TableClock};

const WHITE: Color = Color::White;
const BLACK: Color = Color::Black;

struct Game {
    session: Session,
    t: u64,
    events: Vec<Event>,
}

impl Game {
    /// This board's player has `player`; the partner board's the other.
    fn new(player: Color, table: TableClock, time_control: &str) -> Game {
        let header = Header {
            time_control: Some(time_control.into()),
            engine: Some(!player),
            partner: true,
            table_clock: Some(table),
            ..Header::default()
        };
        let session = Session::new(&header, Policy::default().with_recorded(&header)).unwrap();
        Game { session, t: 0, events: Vec::new() }
    }

    fn at(&mut self, t: u64, record: Record) {
        self.t = t;
        self.session.handle(Entry { t, record });
        self.events.extend(self.session.drain());
    }

    fn edge(&mut self, t: u64, name: &str, on: bool) {
        let sq: Square = name.parse().unwrap();
        self.at(t, Record::Edge { sq, on, piece: None });
    }

    fn wait_until(&mut self, t: u64) {
        self.t = t;
        self.session.advance(t);
        self.events.extend(self.session.drain());
    }

    fn input(&mut self, t: u64, input: Input) {
        self.at(t, Record::Input(input));
    }

    fn choose(&mut self, t: u64, uci: &str) {
        let ply = self.session.game().ply();
        self.input(t, Input::Opponent { ply, uci: uci.parse().unwrap(), eval: None });
    }

    fn remaining(&self, side: Color) -> i64 {
        self.session.clock().unwrap().remaining(side, self.t)
    }

    /// The `complete` events: the move, and the mover's and the opponent's times.
    fn completed(&self) -> Vec<(String, Option<i64>, Option<i64>)> {
        self.events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Complete { san, clock_ms, opponent_ms, .. } => Some((san.clone(), *clock_ms, *opponent_ms)),
                _ => None,
            })
            .collect()
    }

    fn over(&self) -> bool {
        self.events.iter().any(|e| matches!(e.kind, EventKind::GameOver { .. }))
    }
}

/// The board the clock is attached to: White's player's. Black's player
/// presses at 9 s, before their move reaches this board at 9.5 s; White's
/// time runs from the press, while White carries the move out, as the
/// clock at the table shows.
#[test]
fn the_partner_s_press_hands_the_clock_over_before_the_move_arrives() {
    let mut g = Game::new(WHITE, TableClock::Here, "300+2");
    g.edge(1000, "e2", false);
    g.edge(1200, "e4", true);
    g.at(2000, Record::Clock(WHITE));
    assert_eq!(g.completed(), [("e4".into(), Some(300_000), Some(300_000))]);
    g.at(9000, Record::Clock(BLACK));
    // Black's 7 s and increment, and White's clock running.
    assert_eq!(g.session.clock().unwrap().running(), Some(WHITE));
    assert_eq!(g.session.handed(), Some((2, Some(295_000))));
    g.at(9100, Record::Clock(BLACK));
    assert_eq!(g.session.handed(), Some((2, Some(295_000))), "a stopped clock pressed again changes nothing");
    g.choose(9500, "e7e5");
    assert_eq!(g.remaining(WHITE), 299_500, "White carries the move out on White's own time");
    g.edge(12_000, "e7", false);
    g.edge(12_300, "e5", true);
    g.wait_until(13_000);
    assert_eq!(g.completed()[1], ("e5".into(), Some(295_000), Some(300_000)), "the press's readings");
    assert_eq!(g.session.handed(), None);
    assert_eq!(g.remaining(WHITE), 300_000 - 4000);
    assert_eq!(g.remaining(BLACK), 295_000, "Black's clock stays stopped since the press");
    assert!(g.events.iter().all(|e| !matches!(e.kind, EventKind::NotNow { .. })), "{:?}", g.events);
}

/// Every flag is ruled on the board with the clock (6.9): the partner's
/// player's too, whose time runs there.
#[test]
fn the_board_with_the_clock_rules_every_flag() {
    let mut g = Game::new(WHITE, TableClock::Here, "60");
    g.edge(1000, "e2", false);
    g.edge(1200, "e4", true);
    g.at(2000, Record::Clock(WHITE));
    g.wait_until(62_001);
    assert!(g.over(), "Black's flag falls on the board with the clock: {:?}", g.events);
}

/// On the board without the clock, no flag is ruled while its presses come
/// (the board with the clock rules them); once there is none to press the
/// game goes on timed by the boards, this board ruling its own player's.
#[test]
fn the_board_without_the_clock_rules_no_flag_while_its_presses_come() {
    let mut g = Game::new(BLACK, TableClock::Partner, "60");
    g.wait_until(61_000);
    assert!(!g.over(), "White's flag is not ruled here: {:?}", g.events);
    g.input(61_000, Input::TablePress { side: WHITE, ms: 30_000 });
    g.choose(61_000, "e2e4");
    g.edge(61_500, "e2", false);
    g.edge(61_700, "e4", true);
    g.wait_until(62_000);
    g.wait_until(200_000);
    assert!(!g.over(), "nor Black's: {:?}", g.events);
    // The clock is gone: Black's flag is this board's again.
    g.input(200_000, Input::ClockConnected(false));
    g.wait_until(200_001);
    assert!(g.over(), "{:?}", g.events);
}

/// The board without the clock: the partner's move comes after its press,
/// with the time the clock at the table read; this board's player's press
/// comes from there too, late, and completes their move with that clock's
/// time — also when the piece lands only after it (the grace).
#[test]
fn presses_from_the_table_complete_moves_with_that_clock_s_times() {
    let mut g = Game::new(BLACK, TableClock::Partner, "300+2");
    g.input(2050, Input::TablePress { side: WHITE, ms: 300_000 });
    g.choose(2050, "e2e4");
    g.edge(3000, "e2", false);
    g.edge(3300, "e4", true);
    g.wait_until(4000);
    assert_eq!(g.completed(), [("e4".into(), Some(300_000), Some(300_000))]);
    assert_eq!(g.session.clock().unwrap().running(), Some(BLACK), "Black's time runs from the press");
    // Black moves; the press made at 9 s reaches this board at 9.04 s.
    g.edge(6000, "e7", false);
    g.edge(6300, "e5", true);
    g.input(9040, Input::TablePress { side: BLACK, ms: 295_000 });
    assert_eq!(g.completed()[1], ("e5".into(), Some(295_000), Some(300_000)));
    // White's next move, pressed at 15 s; Black's press comes before the
    // knight lands here.
    g.input(15_030, Input::TablePress { side: WHITE, ms: 296_000 });
    g.choose(15_030, "g1f3");
    g.edge(16_000, "g1", false);
    g.edge(16_300, "f3", true);
    g.wait_until(17_000);
    assert_eq!(g.completed()[2], ("Nf3".into(), Some(296_000), Some(295_000)));
    g.edge(20_000, "b8", false);
    g.input(20_100, Input::TablePress { side: BLACK, ms: 284_000 });
    g.edge(20_200, "c6", true);
    g.wait_until(21_000);
    assert_eq!(g.completed()[3], ("Nc6".into(), Some(284_000), Some(296_000)));
    assert!(!g.events.iter().any(|e| matches!(e.kind, EventKind::Irregularity(_))), "{:?}", g.events);
}

/// The board without the clock restarted: its recovered clock stands, but
/// the clock at the table runs; the next press from there restarts it.
#[test]
fn a_press_from_the_table_restarts_a_clock_stopped_here() {
    let mut g = Game::new(BLACK, TableClock::Partner, "300+2");
    g.input(2050, Input::TablePress { side: WHITE, ms: 300_000 });
    g.choose(2050, "e2e4");
    g.edge(3000, "e2", false);
    g.edge(3300, "e4", true);
    g.wait_until(4000);
    g.input(5000, Input::Pause);
    g.edge(6000, "e7", false);
    g.edge(6300, "e5", true);
    g.input(9040, Input::TablePress { side: BLACK, ms: 295_000 });
    assert_eq!(g.completed()[1], ("e5".into(), Some(295_000), Some(300_000)));
    assert_eq!(g.session.clock().unwrap().running(), Some(WHITE));
}

/// A game at the table with no time control: the partner's press still
/// counts, quietly (nothing to hand over), and its move completes on its
/// arrival as carried out.
#[test]
fn without_a_time_control_the_partner_s_press_is_taken_quietly() {
    let header =
        Header { engine: Some(BLACK), partner: true, table_clock: Some(TableClock::Here), ..Header::default() };
    let session = Session::new(&header, Policy::default().with_recorded(&header)).unwrap();
    let mut g = Game { session, t: 0, events: Vec::new() };
    g.edge(1000, "e2", false);
    g.edge(1200, "e4", true);
    g.at(2000, Record::Clock(WHITE));
    g.at(9000, Record::Clock(BLACK));
    assert_eq!(g.session.handed(), Some((2, None)));
    g.choose(9500, "e7e5");
    g.edge(12_000, "e7", false);
    g.edge(12_300, "e5", true);
    g.wait_until(13_000);
    assert_eq!(g.completed(), [("e4".into(), None, None), ("e5".into(), None, None)]);
    assert!(g.events.iter().all(|e| !matches!(e.kind, EventKind::NotNow { .. })), "{:?}", g.events);
}

/// The partner board ruled the press that handed the clock over as no
/// move (7.5.3): the clock goes back to before it, the partner's time
/// running; their next press hands it over again.
#[test]
fn a_press_ruled_as_no_move_on_the_partner_board_is_undone_here() {
    let mut g = Game::new(WHITE, TableClock::Here, "300+2");
    g.edge(1000, "e2", false);
    g.edge(1200, "e4", true);
    g.at(2000, Record::Clock(WHITE));
    g.at(5000, Record::Clock(BLACK));
    assert_eq!(g.session.clock().unwrap().running(), Some(WHITE));
    g.input(5100, Input::PressRuled { ply: 2 });
    assert_eq!(g.session.handed(), None);
    assert_eq!(g.session.clock().unwrap().running(), Some(BLACK));
    assert_eq!(g.remaining(BLACK), 300_000 - 3100, "Black's time ran on");
    assert_eq!(g.remaining(WHITE), 300_000);
    g.at(9000, Record::Clock(BLACK));
    assert_eq!(g.session.handed(), Some((2, Some(295_000))));
    g.input(9100, Input::PressRuled { ply: 1 });
    assert_eq!(g.session.handed(), Some((2, Some(295_000))), "a ruling for another ply changes nothing");
}
