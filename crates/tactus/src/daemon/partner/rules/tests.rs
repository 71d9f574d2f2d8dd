//! The partner's rules on two boards in memory: each board a session and
//! its rules, the game task's part played here (inputs journaled, then
//! handled, then told to the rules), messages carried from one board's
//! rules to the other's as the link would deliver them.

use super::*;
use shakmaty::Square;
use tactus_core::{Event, Policy};
use tactus_trace::{GameResult, Header};

const A_GAME: u64 = 0xa1;
const B_GAME: u64 = 0xb1;

struct Board {
    rules: PartnerRules,
    session: Session,
    header: Header,
    t: u64,
    /// The journal: every entry the game took.
    journal: Vec<Entry>,
    events: Vec<Event>,
    notices: Vec<EventKind>,
    /// Sent and not yet carried to the other board.
    outbox: Vec<(PairGame, PairMessage)>,
}

fn header(side: Color, time_control: &str, table: Option<TableClock>) -> Header {
    Header {
        time_control: Some(time_control.into()),
        engine: Some(!side),
        partner: true,
        table_clock: table,
        ..Header::default()
    }
}

impl Board {
    fn new(name: &str, partner: &str, side: Color, time_control: &str, table: Option<TableClock>) -> Board {
        let header = header(side, time_control, table);
        let mut session = Session::new(&header, Policy::default().with_recorded(&header)).unwrap();
        let events = session.drain().collect();
        let setup = Setup { board: name.into(), partner: partner.into(), side, table };
        Board {
            rules: PartnerRules::new(setup),
            session,
            header,
            t: 0,
            journal: Vec::new(),
            events,
            notices: Vec::new(),
            outbox: Vec::new(),
        }
    }

    fn white() -> Board {
        Board::new("A", "B", Color::White, "300+2", None)
    }

    fn black() -> Board {
        Board::new("B", "A", Color::Black, "300+2", None)
    }

    fn seat(&mut self, fresh: u64, recovered: bool) {
        self.rules.seat(&self.session, fresh, recovered);
        self.run();
    }

    /// A board that died and starts again: its journal replayed, nothing
    /// else kept.
    fn restart(&mut self) {
        let mut session = Session::new(&self.header, Policy::default().with_recorded(&self.header)).unwrap();
        for entry in &self.journal {
            session.handle(entry.clone());
        }
        session.drain().for_each(drop);
        self.session = session;
        self.rules = PartnerRules::new(self.rules.setup.clone());
        self.outbox.clear();
        self.notices.clear();
        self.events.clear();
        self.seat(0xdead, true);
    }

    /// One step of the game, as the game task takes it.
    fn step(&mut self, dt: u64, record: Record) {
        self.t += dt;
        let entry = Entry { t: self.t, record };
        self.journal.push(entry.clone());
        self.session.handle(entry.clone());
        self.rules.committed(&self.session, Some(&entry));
        self.events.extend(self.session.drain());
        self.outbox.extend(self.rules.take_sends());
    }

    fn edge(&mut self, sq: &str, on: bool) {
        let sq: Square = sq.parse().unwrap();
        self.step(150, Record::Edge { sq, on, piece: None });
    }

    /// The board's player makes a move and presses.
    fn play(&mut self, from: &str, to: &str) {
        self.edge(from, false);
        self.edge(to, true);
        let side = self.session.game().turn();
        self.step(300, Record::Clock(side));
    }

    /// The partner's move, guided here, carried out on this board.
    fn carry(&mut self, from: &str, to: &str) {
        self.edge(from, false);
        self.edge(to, true);
        // The board held still: the timers ran, as the journal says.
        self.step(1000, Record::Timers);
    }

    /// What the rules say, taken as the game task takes it, until they are quiet.
    fn run(&mut self) {
        loop {
            self.outbox.extend(self.rules.take_sends());
            match self.rules.next(&self.session, Instant::now()) {
                Some(Said::Inputs(inputs)) => {
                    for input in inputs {
                        self.step(0, Record::Input(input));
                    }
                }
                Some(Said::Notice(kind)) => self.notices.push(kind),
                None => break,
            }
        }
        self.outbox.extend(self.rules.take_sends());
    }

    fn hear(&mut self, from: FromPartner) {
        self.rules.heard(from, &self.session, Instant::now());
        self.run();
    }

    fn completed(&self) -> Vec<(String, Option<i64>)> {
        self.events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Complete { san, clock_ms, .. } => Some((san.clone(), *clock_ms)),
                _ => None,
            })
            .collect()
    }

    fn inputs(&self, f: impl Fn(&Input) -> bool) -> usize {
        self.journal.iter().filter(|e| matches!(e.record, Record::Input(i) if f(&i))).count()
    }

    fn pairs(&self) -> Vec<Pair> {
        self.notices
            .iter()
            .filter_map(|k| match k {
                EventKind::Pair(p) => Some(p.clone()),
                _ => None,
            })
            .collect()
    }
}

/// Carries what each board sent to the other until both are quiet; every
/// message carried, in order.
fn pump(a: &mut Board, b: &mut Board) -> Vec<(PairGame, PairMessage)> {
    let mut carried = Vec::new();
    loop {
        let (to_b, to_a) = (std::mem::take(&mut a.outbox), std::mem::take(&mut b.outbox));
        if to_b.is_empty() && to_a.is_empty() {
            return carried;
        }
        for (game, msg) in to_b {
            carried.push((game, msg.clone()));
            b.hear(FromPartner::Message { game, msg });
        }
        for (game, msg) in to_a {
            carried.push((game, msg.clone()));
            a.hear(FromPartner::Message { game, msg });
        }
    }
}

/// Two boards seated and agreed on their game.
fn agreed() -> (Board, Board) {
    let (mut a, mut b) = (Board::white(), Board::black());
    a.seat(A_GAME, false);
    b.seat(B_GAME, false);
    pump(&mut a, &mut b);
    (a, b)
}

#[test]
fn the_boards_agree_on_their_game_and_journal_it() {
    let (a, b) = agreed();
    let game = PairGame { white: A_GAME, black: B_GAME };
    for board in [&a, &b] {
        assert_eq!(board.rules.binding, Binding::Agreed { game });
        let pair = board.session.pair_game().unwrap();
        assert_eq!((pair.white, pair.black), (A_GAME, B_GAME));
        assert_eq!(board.inputs(|i| matches!(i, Input::PairGame { .. })), 1, "journaled once");
        assert!(board.pairs().is_empty(), "nothing to say: {:?}", board.pairs());
    }
}

/// A move made before the partner is heard is sent from the partner's ply
/// once the game is agreed; every message after names the agreed game.
#[test]
fn a_move_made_before_the_partner_is_heard_goes_once_the_game_is_agreed() {
    let (mut a, mut b) = (Board::white(), Board::black());
    a.seat(A_GAME, false);
    a.play("e2", "e4");
    a.outbox.retain(|(_, m)| matches!(m, PairMessage::Hello { .. }));
    b.seat(B_GAME, false);
    let carried = pump(&mut a, &mut b);
    let game = PairGame { white: A_GAME, black: B_GAME };
    assert!(carried.iter().all(|(g, m)| *g == game || matches!(m, PairMessage::Hello { .. })), "{carried:?}");
    b.carry("e2", "e4");
    assert_eq!(b.completed().len(), 1, "{:?}", b.events);
}

/// Issue 29, item 1: every message of an earlier game between the same two
/// boards, played back into a new game, changes nothing — no move, no
/// offer, no claim, no end.
#[test]
fn nothing_of_an_earlier_game_counts_in_the_next() {
    let (mut a, mut b) = agreed();
    a.play("e2", "e4");
    let mut recorded = pump(&mut a, &mut b);
    b.carry("e2", "e4");
    b.play("e7", "e5");
    b.step(100, Record::Input(Input::DrawOffer { side: Color::Black }));
    recorded.extend(pump(&mut a, &mut b));
    a.carry("e7", "e5");
    b.step(100, Record::Input(Input::Result { result: GameResult::WhiteWins, reason: OffBoardReason::Resignation }));
    recorded.extend(pump(&mut a, &mut b));
    assert!(a.session.finished() && b.session.finished());
    assert!(recorded.iter().any(|(_, m)| matches!(m, PairMessage::Over { .. })), "{recorded:?}");

    // The next game, on new sessions: new numbers.
    let (mut a2, mut b2) = (Board::white(), Board::black());
    a2.seat(A_GAME + 1, false);
    b2.seat(B_GAME + 1, false);
    pump(&mut a2, &mut b2);
    for (game, msg) in &recorded {
        a2.hear(FromPartner::Message { game: *game, msg: msg.clone() });
        b2.hear(FromPartner::Message { game: *game, msg: msg.clone() });
    }
    for board in [&a2, &b2] {
        assert!(!board.session.finished(), "no old result ends the new game");
        assert!(board.session.game().played.is_empty());
        assert_eq!(board.session.draw_offered(), None);
        let taken = board.inputs(|i| !matches!(i, Input::PairGame { .. }));
        assert_eq!(taken, 0, "nothing of the old game journaled: {:?}", board.journal);
        assert!(board.rules.refused > 0);
        let game = PairGame { white: A_GAME + 1, black: B_GAME + 1 };
        assert_eq!(board.rules.binding, Binding::Agreed { game }, "an old hello does not unbind the game");
    }
    // The new game goes on.
    a2.play("d2", "d4");
    pump(&mut a2, &mut b2);
    b2.carry("d2", "d4");
    assert_eq!(b2.completed().len(), 1);
}

/// Issue 29, item 8: both boards set to play White, or with two time
/// controls, or both with the table's clock: refused at the handshake and
/// said on both boards; nothing of the other is taken until one changes.
#[test]
fn a_partner_that_does_not_fit_is_refused_at_the_handshake_on_both_boards() {
    /// The two boards, and what each says.
    type Case = (Board, Board, fn(&Pair) -> bool);
    let cases: [Case; 3] = [
        (Board::white(), Board::new("B", "A", Color::White, "300+2", None), |p| matches!(p, Pair::SameSide { .. })),
        (
            Board::white(),
            Board::new("B", "A", Color::Black, "600+5", None),
            |p| matches!(p, Pair::TimeControl { ours, theirs, .. } if ours.is_some() && theirs.is_some() && ours != theirs),
        ),
        (
            Board::new("A", "B", Color::White, "300+2", Some(TableClock::Here)),
            Board::new("B", "A", Color::Black, "300+2", Some(TableClock::Here)),
            |p| matches!(p, Pair::TableClock { .. }),
        ),
    ];
    for (mut a, mut b, said) in cases {
        a.seat(A_GAME, false);
        b.seat(B_GAME, false);
        pump(&mut a, &mut b);
        for board in [&a, &b] {
            let pairs = board.pairs();
            assert_eq!(pairs.len(), 1, "said once: {pairs:?}");
            assert!(said(&pairs[0]), "{pairs:?}");
        }
        a.play("e2", "e4");
        let carried = pump(&mut a, &mut b);
        assert!(!carried.iter().any(|(_, m)| matches!(m, PairMessage::Move { .. })), "{carried:?}");
        assert!(b.session.awaits_engine() || b.session.game().played.is_empty());
        assert_eq!(b.inputs(|i| matches!(i, Input::Opponent { .. })), 0);
    }
    // The board that played White too is started again as Black: the two
    // agree, say so, and White's move made meanwhile comes.
    let mut a = Board::white();
    let mut wrong = Board::new("B", "A", Color::White, "300+2", None);
    a.seat(A_GAME, false);
    wrong.seat(B_GAME, false);
    pump(&mut a, &mut wrong);
    a.play("e2", "e4");
    let mut b = Board::black();
    b.seat(B_GAME + 7, false);
    pump(&mut a, &mut b);
    assert!(a.pairs().iter().any(|p| matches!(p, Pair::Agreed { .. })), "{:?}", a.pairs());
    assert_eq!(b.inputs(|i| matches!(i, Input::Opponent { .. })), 1, "White's move reaches Black's board");
}

/// The partner began a new game while this board's goes on: before any
/// move of the partner's here it is taken as the game (a board restarted
/// before its first move); after, it is another game, said once.
#[test]
fn a_partner_begun_anew_is_another_game_once_it_has_moved_here() {
    let (mut a, _) = agreed();
    // Black's board loses its game before its first move: taken anew.
    let mut b_anew = Board::black();
    b_anew.seat(B_GAME + 1, false);
    pump(&mut a, &mut b_anew);
    assert!(a.pairs().is_empty(), "{:?}", a.pairs());
    assert_eq!(a.rules.game(), PairGame { white: A_GAME, black: B_GAME + 1 });
    // Moves on both sides, then Black's board begins anew again.
    a.play("e2", "e4");
    pump(&mut a, &mut b_anew);
    b_anew.carry("e2", "e4");
    b_anew.play("e7", "e5");
    pump(&mut a, &mut b_anew);
    a.carry("e7", "e5");
    let mut b = Board::black();
    b.seat(B_GAME + 2, false);
    pump(&mut a, &mut b);
    assert!(a.pairs().iter().any(|p| matches!(p, Pair::OtherGame { .. })), "{:?}", a.pairs());
    assert!(b.pairs().iter().any(|p| matches!(p, Pair::OtherGame { .. })), "{:?}", b.pairs());
    assert_eq!(b.inputs(|i| matches!(i, Input::Opponent { .. })), 0, "the old game's moves are not the new game's");
}

/// Issue 30, item 5: the partner's move completes here with the time its
/// own board kept: both boards write the same time for every move.
#[test]
fn both_boards_write_the_same_time_for_every_move() {
    let (mut a, mut b) = agreed();
    let moves = [("e2", "e4"), ("e7", "e5"), ("g1", "f3"), ("b8", "c6")];
    for (i, (from, to)) in moves.into_iter().enumerate() {
        let (mover, other) = if i % 2 == 0 { (&mut a, &mut b) } else { (&mut b, &mut a) };
        // The move reaches the other board late, and is carried out slowly.
        mover.play(from, to);
        other.t += 4000 + 1000 * i as u64;
        pump(mover, other);
        other.carry(from, to);
    }
    assert_eq!(a.completed(), b.completed());
    assert_eq!(a.completed().len(), 4);
}

/// Issue 30, item 3: a board recovered while the partner's move was being
/// carried out says it again, with who moves next and that the clocks run;
/// one recovered on its own move says so.
#[test]
fn a_board_recovered_mid_game_says_how_it_goes_on() {
    let (mut a, mut b) = agreed();
    a.play("e2", "e4");
    pump(&mut a, &mut b);
    assert!(b.session.carrying_move());
    b.restart();
    assert_eq!(b.rules.binding, Binding::Agreed { game: PairGame { white: A_GAME, black: B_GAME } });
    let repeated = b.journal.iter().rev().take(1).any(|e| e.record == Record::Input(Input::Request(Request::LastMove)));
    assert!(repeated, "the move asked for again: {:?}", b.journal.last());
    assert_eq!(
        b.pairs(),
        [Pair::GoesOn { to_move: Color::White, carrying: true, clocks: Some(Restarted::Run) }],
        "{:?}",
        b.notices
    );
    // Its hello answered, the game goes on: the move carried out, Black moves.
    pump(&mut a, &mut b);
    b.carry("e2", "e4");
    b.play("e7", "e5");
    pump(&mut a, &mut b);
    a.restart();
    assert_eq!(a.pairs(), [Pair::GoesOn { to_move: Color::Black, carrying: true, clocks: Some(Restarted::Run) }]);
    pump(&mut a, &mut b);
    a.carry("e7", "e5");
    a.restart();
    assert_eq!(a.pairs(), [Pair::GoesOn { to_move: Color::White, carrying: false, clocks: Some(Restarted::Run) }]);
}

/// A message of the partner's for a later ply waits its turn; the queue
/// of them and the waits kept are bounded.
#[test]
fn what_the_rules_keep_is_bounded() {
    let (mut a, mut b) = agreed();
    let game = a.rules.game();
    for ply in (2..200).step_by(2) {
        let msg = PairMessage::Move { ply, uci: "e7e5".parse().unwrap(), san: "e5".parse().ok(), clock_ms: None };
        a.hear(FromPartner::Message { game, msg });
    }
    assert!(a.rules.pending.len() <= PENDING_KEPT);
    for _ in 0..HELD_KEPT + 10 {
        b.rules.binding = Binding::Alone { mine: 1 };
        b.rules.send(PairMessage::TableClock { connected: true });
    }
    assert!(b.rules.held.len() <= HELD_KEPT);
}
