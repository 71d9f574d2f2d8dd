//! The engine's ply: its choice arrives as an input, the engine's clock
//! stops there, the player carries the move out on the board and it
//! completes when the board holds still on it — no press, no ruling. Wrong
//! executions get a fix, one case per kind of move.

use shakmaty::{Color, Piece, Square};
use tactus_core::{Event, EventKind, Fix, Policy, Session, Slip, Supervision};
use tactus_trace::{Entry, Header, Input, Record};

const BLACK: Color = Color::Black;
const WHITE: Color = Color::White;

struct Game {
    session: Session,
    t: u64,
    events: Vec<Event>,
}

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

impl Game {
    fn new(fen: Option<&str>, engine: Color, engine_override: bool) -> Game {
        let header = Header {
            start_fen: fen.map(str::to_string),
            time_control: Some("300+2".into()),
            engine: Some(engine),
            engine_override,
            ..Header::default()
        };
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

    fn lift(&mut self, name: &str) {
        self.feed(150, Record::Edge { sq: sq(name), on: false, piece: None });
    }

    fn place(&mut self, name: &str) {
        self.feed(150, Record::Edge { sq: sq(name), on: true, piece: None });
    }

    /// Lets the board hold still.
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

    fn since(&self, from: usize) -> &[Event] {
        &self.events[from..]
    }

    fn completed(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Complete { san, .. } => Some(san.clone()),
                _ => None,
            })
            .collect()
    }

    fn slips(&self, from: usize) -> Vec<Slip> {
        self.since(from)
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::OpponentFix { slip, .. } => Some(slip.clone()),
                _ => None,
            })
            .collect()
    }

    fn count_since(&self, from: usize, f: impl Fn(&EventKind) -> bool) -> usize {
        self.since(from).iter().filter(|e| f(&e.kind)).count()
    }

    fn no_rulings(&self) {
        for e in &self.events {
            assert!(
                !matches!(
                    e.kind,
                    EventKind::Irregularity(_)
                        | EventKind::Penalty { .. }
                        | EventKind::Displaced { .. }
                        | EventKind::BoardMismatch { .. }
                ),
                "a ruling or report against a player: {e:?}"
            );
        }
    }
}

fn steps_of(events: &[Event]) -> Vec<Fix> {
    events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::OpponentMove { steps, .. } => Some(steps.clone()),
            _ => None,
        })
        .expect("an opponent_move event")
}

fn step(piece: Option<Piece>, from: Option<&str>, to: Option<&str>) -> Fix {
    Fix { piece, from: from.map(sq), to: to.map(sq) }
}

fn piece(c: char) -> Option<Piece> {
    Piece::from_char(c)
}

#[test]
fn the_engines_move_completes_when_the_board_shows_it_and_its_clock_stops_at_the_choice() {
    let mut g = Game::new(None, BLACK, false);
    g.lift("e2");
    g.place("e4");
    g.press(WHITE);
    let pressed = g.t;
    let mark = g.events.len();
    g.choose("e7e5");
    let chosen = g.t;
    assert_eq!(steps_of(g.since(mark)), vec![step(piece('p'), Some("e7"), Some("e5"))]);
    // The player takes long to carry it out: nobody's time runs.
    g.wait(5000);
    g.lift("e7");
    g.place("e5");
    g.wait(500);
    assert_eq!(g.completed(), ["e4", "e5"]);
    let (clock_ms, opponent_ms) = g
        .events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Complete { ply: 2, clock_ms, opponent_ms, .. } => Some((*clock_ms, *opponent_ms)),
            _ => None,
        })
        .unwrap();
    let thought = (chosen - pressed) as i64;
    assert_eq!(clock_ms, Some(300_000 - thought + 2000), "black's time ran only while the engine thought");
    let white_after_e4 = 300_000 - pressed as i64 + 2000;
    assert_eq!(opponent_ms, Some(white_after_e4), "white's time stood while black's move was carried out");
    // The player's clock runs from the completion.
    let done = g.events.iter().rev().find(|e| matches!(e.kind, EventKind::Complete { .. })).unwrap().t;
    let white_now = g.session.clock().unwrap().remaining(WHITE, done + 1000);
    assert_eq!(white_now, white_after_e4 - 1000);
    g.no_rulings();
}

#[test]
fn presses_count_for_nothing_while_the_engine_is_on_move() {
    let mut g = Game::new(None, WHITE, false);
    g.press(WHITE);
    g.press(BLACK);
    g.choose("g1f3");
    g.press(WHITE);
    g.press(BLACK);
    g.lift("g1");
    g.place("f3");
    g.wait(500);
    assert_eq!(g.completed(), ["Nf3"]);
    g.no_rulings();
    // The human's move needs the press as always.
    g.lift("d7");
    g.place("d5");
    g.wait(500);
    assert_eq!(g.completed(), ["Nf3"]);
    g.press(BLACK);
    assert_eq!(g.completed(), ["Nf3", "d5"]);
}

#[test]
fn a_capture_takes_the_captured_piece_off_first() {
    let mut g = Game::new(Some("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"), WHITE, false);
    let mark = g.events.len();
    g.choose("e4d5");
    assert_eq!(
        steps_of(g.since(mark)),
        vec![step(piece('p'), Some("d5"), None), step(piece('P'), Some("e4"), Some("d5"))]
    );
    // Done the other way round (the pawn lifted first) is still the move.
    g.lift("e4");
    g.lift("d5");
    g.place("d5");
    g.wait(500);
    assert_eq!(g.completed(), ["exd5"]);
    g.no_rulings();
}

#[test]
fn a_capture_done_in_the_steps_told_completes() {
    let mut g = Game::new(None, BLACK, false);
    g.lift("e2");
    g.place("e4");
    g.press(WHITE);
    g.choose("d7d5");
    g.lift("d7");
    g.place("d5");
    g.wait(500);
    g.lift("a2");
    g.place("a3");
    g.press(WHITE);
    g.choose("d5e4");
    g.lift("e4");
    g.lift("d5");
    g.place("e4");
    g.wait(500);
    assert_eq!(g.completed(), ["e4", "d5", "a3", "dxe4"]);
    g.no_rulings();
}

#[test]
fn castling_is_king_then_rook() {
    let mut g = Game::new(Some("r3k2r/pppqbppp/2np1n2/4p3/4P3/2NP1N2/PPPQBPPP/R3K2R b KQkq - 0 8"), BLACK, false);
    let mark = g.events.len();
    g.choose("e8g8");
    assert_eq!(
        steps_of(g.since(mark)),
        vec![step(piece('k'), Some("e8"), Some("g8")), step(piece('r'), Some("h8"), Some("f8"))]
    );
    g.lift("e8");
    g.place("g8");
    g.wait(500);
    assert!(g.completed().is_empty(), "the king alone is not castling");
    g.lift("h8");
    g.place("f8");
    g.wait(500);
    assert_eq!(g.completed(), ["O-O"]);
    g.no_rulings();
}

#[test]
fn en_passant_takes_the_pawn_beside() {
    let mut g = Game::new(Some("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"), WHITE, false);
    let mark = g.events.len();
    g.choose("e5f6");
    let steps = steps_of(g.since(mark));
    assert!(steps.contains(&step(piece('p'), Some("f5"), None)), "{steps:?}");
    assert!(steps.contains(&step(piece('P'), Some("e5"), Some("f6"))), "{steps:?}");
    g.lift("e5");
    g.place("f6");
    g.wait(500);
    assert!(g.completed().is_empty());
    g.lift("f5");
    g.wait(500);
    assert_eq!(g.completed(), ["exf6"]);
    g.no_rulings();
}

#[test]
fn an_underpromotion_is_the_piece_the_engine_chose() {
    let mut g = Game::new(Some("8/4P1k1/8/8/8/8/6K1/8 w - - 0 1"), WHITE, false);
    let mark = g.events.len();
    g.choose("e7e8n");
    assert_eq!(steps_of(g.since(mark)), vec![step(piece('P'), Some("e7"), None), step(piece('N'), None, Some("e8"))]);
    g.lift("e7");
    g.place("e8");
    g.wait(500);
    assert_eq!(g.completed(), ["e8=N+"]);
    g.no_rulings();
}

#[test]
fn a_piece_put_on_a_wrong_square_is_told_where_it_belongs_and_the_corrected_move_is_taken() {
    let mut g = Game::new(None, BLACK, false);
    g.lift("e2");
    g.place("e4");
    g.press(WHITE);
    g.choose("g8f6");
    let mark = g.events.len();
    g.lift("g8");
    g.place("g6");
    g.wait(500);
    assert_eq!(g.slips(mark), vec![Slip::Misplaced { sq: sq("g6"), piece: piece('n'), belongs: Some(sq("f6")) }]);
    let fix = g
        .since(mark)
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::OpponentFix { fix, .. } => Some(fix.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(fix, vec![step(piece('n'), Some("g6"), Some("f6"))]);
    // Told once while it stays wrong.
    g.wait(5000);
    assert_eq!(g.slips(mark).len(), 1);
    g.lift("g6");
    g.place("f6");
    g.wait(500);
    assert_eq!(g.completed(), ["e4", "Nf6"]);
    g.no_rulings();
}

#[test]
fn a_piece_not_of_the_move_lifted_is_not_that_one() {
    let mut g = Game::new(None, BLACK, false);
    g.lift("d2");
    g.place("d4");
    g.press(WHITE);
    g.choose("g8f6");
    let mark = g.events.len();
    g.lift("b8");
    g.wait(500);
    assert_eq!(
        g.slips(mark),
        vec![Slip::NotThatOne {
            sq: sq("b8"),
            piece: piece('n').unwrap(),
            instead: Some(step(piece('n'), Some("g8"), Some("f6")))
        }]
    );
    g.place("b8");
    g.lift("g8");
    g.place("f6");
    g.wait(500);
    assert_eq!(g.completed(), ["d4", "Nf6"]);
    g.no_rulings();
}

#[test]
fn another_legal_move_is_refused_with_the_fix_then_the_engines_move_is_taken() {
    let mut g = Game::new(None, BLACK, false);
    g.lift("e2");
    g.place("e4");
    g.press(WHITE);
    g.choose("g8f6");
    let mark = g.events.len();
    g.lift("b8");
    g.place("c6");
    g.wait(500);
    let slips = g.slips(mark);
    assert!(slips.iter().any(|s| matches!(s, Slip::OtherMove { san, .. } if san == "Nc6")), "{slips:?}");
    assert_eq!(g.completed(), ["e4"], "the other move is not taken");
    g.lift("c6");
    g.place("b8");
    g.lift("g8");
    g.place("f6");
    g.wait(500);
    assert_eq!(g.completed(), ["e4", "Nf6"]);
    g.no_rulings();
}

#[test]
fn another_legal_move_is_the_players_override_when_the_policy_says_so() {
    let mut g = Game::new(None, BLACK, true);
    g.lift("e2");
    g.place("e4");
    g.press(WHITE);
    g.choose("g8f6");
    g.lift("b8");
    g.place("c6");
    g.wait(500);
    assert_eq!(g.completed(), ["e4", "Nc6"]);
    g.no_rulings();
}

#[test]
fn asking_for_the_last_move_repeats_the_engines_move() {
    let mut g = Game::new(None, WHITE, false);
    g.choose("e2e4");
    let mark = g.events.len();
    g.feed(100, Record::Input(Input::Request(tactus_trace::Request::LastMove)));
    let repeated = g.since(mark).iter().filter(|e| matches!(e.kind, EventKind::OpponentMove { .. })).count();
    assert_eq!(repeated, 1);
}

#[test]
fn a_stale_or_illegal_choice_changes_nothing() {
    let mut g = Game::new(None, BLACK, false);
    let mark = g.events.len();
    // Not the engine's turn; then a wrong ply; then an illegal move.
    g.feed(10, Record::Input(Input::Opponent { ply: 0, uci: "e7e5".parse().unwrap(), eval: None }));
    g.lift("e2");
    g.place("e4");
    g.press(WHITE);
    g.feed(10, Record::Input(Input::Opponent { ply: 0, uci: "e7e5".parse().unwrap(), eval: None }));
    g.feed(10, Record::Input(Input::Opponent { ply: 1, uci: "e7e4".parse().unwrap(), eval: None }));
    assert!(!g.since(mark).iter().any(|e| matches!(e.kind, EventKind::OpponentMove { .. })));
}

#[test]
fn a_hint_is_for_the_player_on_move_and_a_stale_one_is_dropped() {
    let mut g = Game::new(None, BLACK, false);
    let mark = g.events.len();
    let first = g.session.game().ply();
    g.feed(10, Record::Input(Input::Hint { ply: first, uci: "g1f3".parse().unwrap() }));
    let hints: Vec<String> = g
        .since(mark)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Hint { mv } => Some(mv.san.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(hints, ["Nf3"]);
    g.lift("e2");
    g.place("e4");
    g.press(WHITE);
    let mark = g.events.len();
    // Asked before the move, answered after it: no longer for this ply.
    g.feed(10, Record::Input(Input::Hint { ply: first, uci: "g1f3".parse().unwrap() }));
    g.feed(10, Record::Input(Input::EngineLevel(4)));
    let kinds: Vec<&EventKind> = g.since(mark).iter().map(|e| &e.kind).collect();
    assert_eq!(kinds, [&EventKind::EngineLevel { level: 4 }]);
}

#[test]
fn the_engines_view_is_shown_only_where_no_arbiter_supervises() {
    use tactus_trace::{Eval, PV_MAX, Score};
    let mut pv = [None; PV_MAX];
    for (i, m) in ["e7e5", "g1f3", "b8c6"].iter().enumerate() {
        pv[i] = Some(m.parse().unwrap());
    }
    let eval = Eval { score: Score::Cp(-25), pv };
    for (supervision, shown) in [(Supervision::Arbiter, false), (Supervision::Unsupervised, true)] {
        let header = Header { engine: Some(BLACK), supervision: Some(supervision), ..Header::default() };
        let mut session = Session::new(&header, Policy::default().with_recorded(&header)).unwrap();
        for (t, record) in [
            (100, Record::Edge { sq: sq("e2"), on: false, piece: None }),
            (200, Record::Edge { sq: sq("e4"), on: true, piece: None }),
            (600, Record::Clock(WHITE)),
            (900, Record::Input(Input::Opponent { ply: 2, uci: "e7e5".parse().unwrap(), eval: Some(eval) })),
        ] {
            session.handle(tactus_trace::Entry { t, record });
        }
        let got = session.drain().find_map(|e| match e.kind {
            EventKind::OpponentMove { eval, .. } => Some(eval),
            _ => None,
        });
        let got = got.expect("the engine's move");
        assert_eq!(got.is_some(), shown, "{supervision}");
        if let Some(e) = got {
            assert_eq!((e.cp, e.mate), (Some(-25), None));
            assert_eq!(e.line, ["e5", "Nf3", "Nc6"]);
        }
    }
}

/// The rook moved first in castling reads as a rook move of its own: the
/// player is told the king's step, not that the rook move is another move
/// to put "back" (issue 20, 1).
#[test]
fn castling_begun_with_the_rook_is_told_the_kings_step() {
    let fen = "r3k2r/pppqbppp/2np1n2/4p3/4P3/2NP1N2/PPPQBPPP/R3K2R b KQkq - 0 8";
    for engine_override in [false, true] {
        let mut g = Game::new(Some(fen), BLACK, engine_override);
        g.choose("e8g8");
        let mark = g.events.len();
        g.lift("h8");
        g.place("f8");
        g.wait(500);
        let king = step(piece('k'), Some("e8"), Some("g8"));
        assert_eq!(g.slips(mark), vec![Slip::Halfway { next: king }], "override {engine_override}");
        assert!(g.completed().is_empty(), "the rook alone is no move of the player's (override {engine_override})");
        g.lift("e8");
        g.place("g8");
        g.wait(500);
        assert_eq!(g.completed(), ["O-O"]);
        g.no_rulings();
    }
}

/// 1.e4 e5 2.Qh5 Nc6, the engine's knight move pending.
fn queen_out_knight_chosen() -> Game {
    let mut g = Game::new(None, BLACK, false);
    g.lift("e2");
    g.place("e4");
    g.press(WHITE);
    g.choose("e7e5");
    g.lift("e7");
    g.place("e5");
    g.wait(500);
    g.lift("d1");
    g.place("h5");
    g.press(WHITE);
    g.choose("b8c6");
    g
}

/// Setting the board back while the engine's move is pending is a
/// take-back: the player's own piece in the hand is not told "not that
/// one" on the way (issue 20, 2).
#[test]
fn a_take_back_under_way_is_not_told_as_a_slip() {
    let mut g = queen_out_knight_chosen();
    let mark = g.events.len();
    g.lift("h5");
    // The queen travels back at a human pace.
    g.wait(1500);
    g.place("d1");
    g.wait(1000);
    assert_eq!(g.slips(mark), vec![], "no slip told before the take-back");
    assert_eq!(g.count_since(mark, |k| matches!(k, EventKind::TakeBack { .. })), 1);
    let played: Vec<&str> = g.session.game().played.iter().map(|p| p.info.san.as_str()).collect();
    assert_eq!(played, ["e4", "e5"]);
}

/// An own piece held while the engine's move waits is told after a while.
#[test]
fn an_own_piece_held_long_is_not_that_one() {
    let mut g = queen_out_knight_chosen();
    let mark = g.events.len();
    g.lift("h5");
    g.wait(1000);
    assert_eq!(g.slips(mark), vec![]);
    g.wait(4000);
    let instead = Some(step(piece('n'), Some("b8"), Some("c6")));
    assert_eq!(g.slips(mark), vec![Slip::NotThatOne { sq: sq("h5"), piece: piece('Q').unwrap(), instead }]);
    // The engine's own pieces are told at once.
    g.place("h5");
    g.wait(500);
    let mark = g.events.len();
    g.lift("g8");
    g.wait(500);
    assert!(matches!(g.slips(mark).as_slice(), [Slip::NotThatOne { .. }]), "{:?}", g.slips(mark));
}

/// The engine's move asked for again mid-move gives the steps still to
/// do, not those done (issue 20, 6).
#[test]
fn the_engines_move_asked_for_mid_move_gives_the_steps_left() {
    let mut g = Game::new(Some("r3k2r/pppqbppp/2np1n2/4p3/4P3/2NP1N2/PPPQBPPP/R3K2R b KQkq - 0 8"), BLACK, false);
    g.choose("e8g8");
    g.lift("e8");
    g.place("g8");
    g.wait(500);
    let mark = g.events.len();
    g.feed(100, Record::Input(Input::Request(tactus_trace::Request::LastMove)));
    let left = g.since(mark).iter().find_map(|e| match &e.kind {
        EventKind::OpponentMove { left, steps, .. } => Some((left.clone(), steps.len())),
        _ => None,
    });
    assert_eq!(left, Some((Some(vec![step(piece('r'), Some("h8"), Some("f8"))]), 2)));
}

/// Two boards, one game: the partner's time runs here until its move
/// arrives, but its flag is the partner board's to rule (6.9); an engine's
/// is ruled here.
#[test]
fn a_partner_s_flag_is_ruled_on_its_own_board_not_here() {
    for partner in [false, true] {
        let header = Header { time_control: Some("60".into()), engine: Some(BLACK), partner, ..Header::default() };
        let mut game = Game {
            session: Session::new(&header, Policy::default().with_recorded(&header)).unwrap(),
            t: 0,
            events: Vec::new(),
        };
        game.lift("e2");
        game.place("e4");
        game.press(WHITE);
        // Black's minute runs out here before its move arrives.
        game.wait(61_000);
        let over = game.events.iter().any(|e| matches!(e.kind, EventKind::GameOver { .. }));
        assert_eq!(over, !partner, "partner: {partner}");
        if partner {
            // The move, pressed in time on its own board, still comes.
            game.choose("e7e5");
            game.lift("e7");
            game.place("e5");
            game.wait(1000);
            assert_eq!(game.completed(), ["e4", "e5"]);
        }
    }
}

/// Two boards, one game, no arbiter: an illegal move that stood on the
/// partner's board (A.5.2) is carried out here as it was made there, and
/// this board's player may claim it before their own move. An engine's
/// illegal choice, or the partner's under an arbiter, is no move at all.
#[test]
fn a_partner_s_illegal_move_that_stood_is_carried_out_here_and_may_be_claimed() {
    for (partner, supervision) in
        [(true, Supervision::Unsupervised), (false, Supervision::Unsupervised), (true, Supervision::Arbiter)]
    {
        let header = Header {
            time_control: Some("300+2".into()),
            engine: Some(BLACK),
            partner,
            supervision: Some(supervision),
            ..Header::default()
        };
        let mut g = Game {
            session: Session::new(&header, Policy::default().with_recorded(&header)).unwrap(),
            t: 0,
            events: Vec::new(),
        };
        g.lift("e2");
        g.place("e4");
        g.press(WHITE);
        let mark = g.events.len();
        // The knight jumps g8-g6.
        g.choose("g8g6");
        let carried = partner && supervision == Supervision::Unsupervised;
        let told = g.since(mark).iter().find_map(|e| match &e.kind {
            EventKind::OpponentMove { mv, steps, .. } => Some((mv.san.clone(), steps.clone())),
            _ => None,
        });
        if !carried {
            assert_eq!(told, None, "partner {partner}, {supervision:?}");
            continue;
        }
        assert_eq!(told, Some(("Ng8-g6".into(), vec![step(piece('n'), Some("g8"), Some("g6"))])));
        // A slip is told as for any move; the board that shows it completes it.
        g.lift("g8");
        g.place("h6");
        g.wait(1000);
        assert!(!g.slips(mark).is_empty(), "{:?}", g.since(mark));
        g.lift("h6");
        g.place("g6");
        g.wait(1000);
        assert_eq!(g.completed(), ["e4", "Ng8-g6"]);
        assert_eq!(shakmaty::Position::board(g.session.game().position()).piece_at(sq("g6")), piece('n'));
        // White claims before moving: the move is taken back and counted.
        g.feed(100, Record::Input(Input::Claim { side: WHITE, claim: tactus_trace::Claim::Illegal }));
        assert_eq!(g.session.game().played.len(), 1);
        assert_eq!(g.count_since(mark, |k| matches!(k, EventKind::Penalty { side: WHITE, .. })), 1);
        assert!(g.session.awaits_engine(), "Black moves again");
    }
}

/// Asked for the last move while carrying out a partner's move that stood,
/// the player hears it as it was written on the partner's board.
#[test]
fn a_partner_s_move_that_stood_is_said_again_as_written_there() {
    let header = Header {
        engine: Some(BLACK),
        partner: true,
        supervision: Some(Supervision::Unsupervised),
        ..Header::default()
    };
    let mut g = Game {
        session: Session::new(&header, Policy::default().with_recorded(&header)).unwrap(),
        t: 0,
        events: Vec::new(),
    };
    g.lift("e2");
    g.place("e4");
    g.wait(1000);
    g.press(WHITE);
    g.choose("g8g6");
    let mark = g.events.len();
    g.feed(100, Record::Input(Input::Request(tactus_trace::Request::LastMove)));
    let again: Vec<String> = g
        .since(mark)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::OpponentMove { mv, .. } => Some(mv.san.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(again, ["Ng8-g6"]);
}

/// The clocks stopped (6.11, or a restart) while the engine's move is
/// carried out: the move still hands them over, so that they restart for
/// the player, not for the engine.
#[test]
fn an_engine_s_move_carried_out_while_the_clocks_stand_hands_them_over() {
    let mut game = Game::new(None, BLACK, false);
    game.lift("e2");
    game.place("e4");
    game.press(WHITE);
    game.choose("e7e5");
    game.feed(100, Record::Input(Input::Pause));
    game.lift("e7");
    game.place("e5");
    game.wait(1000);
    assert_eq!(game.completed(), ["e4", "e5"]);
    game.feed(100, Record::Input(Input::Resume));
    assert_eq!(game.session.clock().unwrap().running(), Some(WHITE), "the player's clock runs again");
}

/// A game on two boards, this board playing White against the partner's
/// Black.
fn partner_game() -> Game {
    let header = Header { time_control: Some("300+2".into()), engine: Some(BLACK), partner: true, ..Header::default() };
    let mut session = Session::new(&header, Policy::default().with_recorded(&header)).unwrap();
    let events = session.drain().collect();
    Game { session, t: 0, events }
}

/// The clock times of the `complete` events, in order.
fn completed_times(game: &Game) -> Vec<Option<i64>> {
    game.events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Complete { clock_ms, .. } => Some(clock_ms),
            _ => None,
        })
        .collect()
}

/// Two boards, one game: the partner's move completes here with the time
/// its own board's clock kept for it (a `partner_clock` input before the
/// move), not the time this board ran for that player meanwhile — so both
/// boards write the same time for every move. A `partner_clock` after the
/// move (older journals) still sets the clock.
#[test]
fn the_partner_s_move_completes_with_the_time_its_board_kept() {
    let mut g = partner_game();
    g.lift("e2");
    g.place("e4");
    g.press(WHITE);
    // Black's time ran here 7 s before the move came; its board kept 297.5 s.
    g.wait(7000);
    g.feed(0, Record::Input(Input::PartnerClock { side: BLACK, ms: 297_500 }));
    g.choose("e7e5");
    g.lift("e7");
    g.place("e5");
    g.wait(1000);
    assert_eq!(completed_times(&g)[1], Some(297_500), "{:?}", completed_times(&g));
    // Sent again (the partner's board restarted): the latest reading counts.
    g.lift("g1");
    g.place("f3");
    g.press(WHITE);
    g.feed(0, Record::Input(Input::PartnerClock { side: BLACK, ms: 250_000 }));
    g.feed(0, Record::Input(Input::PartnerClock { side: BLACK, ms: 280_000 }));
    g.choose("b8c6");
    g.lift("b8");
    g.place("c6");
    g.wait(1000);
    assert_eq!(completed_times(&g)[3], Some(280_000), "{:?}", completed_times(&g));
    // After the move, as older journals have it: the clock shows it.
    g.feed(0, Record::Input(Input::PartnerClock { side: BLACK, ms: 123_000 }));
    assert_eq!(g.session.clock().unwrap().remaining(BLACK, g.t), 123_000);
}

/// Two boards, one game: an offer of this board's player stands until the
/// partner's move comes, which declined it at the partner's board
/// (9.1.2.3): said as the move comes, not once it is carried out here.
#[test]
fn the_partner_s_move_declines_an_offer_as_it_comes() {
    let mut g = partner_game();
    g.lift("e2");
    g.place("e4");
    g.feed(100, Record::Input(Input::DrawOffer { side: WHITE }));
    g.press(WHITE);
    let from = g.events.len();
    g.choose("e7e5");
    let kinds: Vec<&EventKind> = g.since(from).iter().map(|e| &e.kind).collect();
    assert!(
        matches!(kinds[..], [EventKind::OpponentMove { .. }, EventKind::DrawDeclined { side: BLACK }, ..]),
        "{kinds:?}"
    );
    assert_eq!(g.session.draw_offered(), None);
    g.lift("e7");
    g.place("e5");
    g.wait(1000);
    let declined = g.count_since(from, |k| matches!(k, EventKind::DrawDeclined { .. }));
    assert_eq!(declined, 1, "said once");
}
