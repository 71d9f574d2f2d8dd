//! Carrying out the opponent's move wrongly, every kind of slip, for every
//! kind of opponent the board hosts (an engine, a player online, the
//! partner board): what the board is told must be true of the pieces the
//! hands really moved. The test keeps its own board — which piece stands
//! where, which are in the hand — as the hands move them, and checks every
//! `opponent_fix` against it: the slip names a piece where it stands, and
//! its fix, followed step by step from that real board, names each piece
//! where it stands and ends in the position after the opponent's move.
//! Then the fix is followed by hand, and the move completes.

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Board, CastlingMode, Chess, Piece, Position, Square};
use tactus_core::{Event, EventKind, Fix, Policy, Session, Slip};
use tactus_trace::{Entry, Header, Input, Record};

/// Who plays the other side, as the header records it.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Engine,
    Online,
    Partner,
}

const KINDS: [Kind; 3] = [Kind::Engine, Kind::Online, Kind::Partner];

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
}

/// A game against `kind` playing the side to move in `fen`, and the board
/// as it really is: the pieces on it and those in the hand.
struct Table {
    kind: Kind,
    session: Session,
    t: u64,
    events: Vec<Event>,
    before: Chess,
    /// The opponent's move, once chosen.
    chosen: Option<shakmaty::Move>,
    board: Board,
    hand: Vec<Piece>,
    /// Every `opponent_fix` checked so far.
    fixes: usize,
}

impl Table {
    fn new(kind: Kind, fen: &str) -> Table {
        let before = pos(fen);
        let header = Header {
            start_fen: Some(fen.to_owned()),
            time_control: Some("900+10".into()),
            engine: Some(before.turn()),
            online: matches!(kind, Kind::Online),
            partner: matches!(kind, Kind::Partner),
            ..Header::default()
        };
        let mut session = Session::new(&header, Policy::default().with_recorded(&header)).unwrap();
        let events = session.drain().collect();
        let board = before.board().clone();
        Table { kind, session, t: 0, events, before, chosen: None, board, hand: Vec::new(), fixes: 0 }
    }

    fn feed(&mut self, dt: u64, record: Record) {
        self.t += dt;
        self.session.handle(Entry { t: self.t, record });
        self.take();
    }

    /// The timers due by `dt` from now run, on the board as it is, before
    /// the hands change it.
    fn until(&mut self, dt: u64) {
        self.session.advance(self.t + dt);
        self.take();
    }

    fn wait(&mut self, ms: u64) {
        self.t += ms;
        self.session.advance(self.t);
        self.take();
    }

    /// The events the last input or timer made, each fix checked against
    /// the board as it is now.
    fn take(&mut self) {
        let new: Vec<Event> = self.session.drain().collect();
        for e in &new {
            if let EventKind::OpponentFix { slip, fix, .. } = &e.kind {
                self.check(slip, fix);
            }
        }
        self.events.extend(new);
    }

    fn choose(&mut self, uci: &str) {
        let ply = self.session.game().ply();
        let uci: UciMove = uci.parse().unwrap();
        self.chosen = Some(uci.to_move(&self.before).unwrap());
        self.feed(1000, Record::Input(Input::Opponent { ply, uci, eval: None }));
    }

    /// A piece lifted from `at`: in the hand now.
    fn lift(&mut self, at: &str) {
        self.until(200);
        let piece = self.board.remove_piece_at(sq(at)).unwrap_or_else(|| panic!("nothing on {at} to lift"));
        self.hand.push(piece);
        self.feed(200, Record::Edge { sq: sq(at), on: false, piece: None });
    }

    /// The piece of the hand that `which` names (the last lifted when
    /// `None`), or a new one from the box when none in the hand is one,
    /// put on `at`.
    fn place(&mut self, at: &str, which: Option<char>) {
        self.until(200);
        let piece = match which.map(|c| Piece::from_char(c).unwrap()) {
            Some(p) => match self.hand.iter().rposition(|&h| h == p) {
                Some(i) => self.hand.remove(i),
                None => p,
            },
            None => self.hand.pop().expect("a piece in the hand"),
        };
        assert!(self.board.piece_at(sq(at)).is_none(), "{at} is taken");
        self.board.set_piece_at(sq(at), piece);
        self.feed(200, Record::Edge { sq: sq(at), on: true, piece: None });
    }

    /// The hands' acts, `e2-` a lift and `e4+` a placement of the piece
    /// lifted last (`e8+Q`: that piece, from the hand or the box), then the
    /// board holds still long enough for anything wrong to be told.
    fn hands(&mut self, acts: &str) {
        for act in acts.split_whitespace() {
            let (at, rest) = act.split_at(2);
            match rest.as_bytes() {
                [b'-'] => self.lift(at),
                [b'+'] => self.place(at, None),
                [b'+', c] => self.place(at, Some(char::from(*c))),
                _ => panic!("{act}: neither a lift nor a placement"),
            }
        }
        // Longer than the board check's 4 s.
        self.wait(5000);
    }

    /// The position after the opponent's move.
    fn after(&self) -> Board {
        let mut p = self.before.clone();
        p.play_unchecked(self.chosen.expect("a move chosen"));
        p.board().clone()
    }

    /// A fix as told must be true of the board as it is: the slip names
    /// pieces where they stand, and the steps, followed from the real
    /// board, name each piece where it stands and end in the position
    /// after the move.
    fn check(&mut self, slip: &Slip, fix: &[Fix]) {
        self.fixes += 1;
        let (board, hand) = (&self.board, &self.hand);
        let here = |at: Square, piece: Option<Piece>| match piece {
            Some(p) => board.piece_at(at) == Some(p),
            None => board.piece_at(at).is_some(),
        };
        match slip {
            Slip::Misplaced { sq, piece, .. } => {
                assert!(here(*sq, *piece), "{:?}: {slip:?}, but {sq} holds {:?}", self.kind, board.piece_at(*sq))
            }
            Slip::NotThatOne { sq, piece, instead } => {
                assert!(hand.contains(piece) && board.piece_at(*sq).is_none(), "{:?}: {slip:?}", self.kind);
                if let Some(Fix { piece, from: Some(from), .. }) = instead {
                    assert!(here(*from, *piece), "{:?}: {slip:?}, but {from} holds something else", self.kind);
                }
            }
            Slip::Missing { sq, .. } => assert!(board.piece_at(*sq).is_none(), "{:?}: {slip:?}", self.kind),
            Slip::OtherMove { uci, .. } => {
                let mut shown = self.before.clone();
                shown.play_unchecked(uci.parse::<UciMove>().unwrap().to_move(&self.before).unwrap());
                assert_eq!(shown.board(), board, "{:?}: {slip:?} is not what the board shows", self.kind);
            }
            Slip::Halfway { next } => {
                if let Some(from) = next.from {
                    assert!(here(from, next.piece), "{:?}: {slip:?}, but {from} holds something else", self.kind);
                }
            }
        }
        // The fix, followed from the real board.
        let (mut board, mut hand) = (board.clone(), hand.clone());
        let promoted = self.chosen.and_then(|m| m.promotion()).map(|r| r.of(self.before.turn()));
        for f in fix {
            let piece = match f.from {
                Some(from) => {
                    let p = board.remove_piece_at(from);
                    assert!(
                        p.is_some() && f.piece.is_none_or(|want| p == Some(want)),
                        "{:?}: {f:?} of {fix:?}: {from} holds {p:?}",
                        self.kind
                    );
                    p.unwrap()
                }
                None => {
                    let want = f.piece.expect("a piece to put on is named");
                    match hand.iter().position(|&h| h == want) {
                        Some(i) => hand.remove(i),
                        None if Some(want) == promoted => want,
                        None => panic!("{:?}: {f:?} of {fix:?}: no {want:?} in the hand", self.kind),
                    }
                }
            };
            match f.to {
                Some(to) => {
                    assert!(board.piece_at(to).is_none(), "{:?}: {f:?} of {fix:?}: {to} is taken", self.kind);
                    board.set_piece_at(to, piece);
                }
                None => hand.push(piece),
            }
        }
        assert_eq!(board, self.after(), "{:?}: {slip:?}, {fix:?} does not end in the move", self.kind);
    }

    /// The last fix told, followed by hand: the move then completes.
    fn follow_the_fix(&mut self) {
        let fix = self
            .events
            .iter()
            .rev()
            .find_map(|e| match &e.kind {
                EventKind::OpponentFix { fix, .. } => Some(fix.clone()),
                _ => None,
            })
            .expect("a fix was told");
        let promoted = self.chosen.and_then(|m| m.promotion()).map(|r| r.of(self.before.turn()));
        let mut acts = Vec::new();
        for f in &fix {
            let to = f.to.map(|to| {
                // A piece put on from the hand, or the promotion's new piece.
                let named = if f.from.is_none() { f.piece.or(promoted) } else { None };
                format!("{to}+{}", named.map_or(String::new(), |p| p.char().to_string()))
            });
            acts.extend(f.from.map(|from| format!("{from}-")));
            acts.extend(to);
        }
        self.hands(&acts.join(" "));
        self.completes();
    }

    /// The opponent's move has completed.
    fn completes(&self) {
        let san = {
            let m = self.chosen.unwrap();
            shakmaty::san::San::from_move(&self.before, m).to_string()
        };
        let completed: Vec<&str> = self
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Complete { san, .. } => Some(san.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            completed.iter().any(|c| c.trim_end_matches(['+', '#']) == san),
            "{:?}: {san} completes: {completed:?}",
            self.kind
        );
    }

    fn slips(&self) -> Vec<Slip> {
        self.events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::OpponentFix { slip, .. } => Some(slip.clone()),
                _ => None,
            })
            .collect()
    }

    fn last_fix(&self) -> Vec<Fix> {
        self.events
            .iter()
            .rev()
            .find_map(|e| match &e.kind {
                EventKind::OpponentFix { fix, .. } => Some(fix.clone()),
                _ => None,
            })
            .expect("a fix was told")
    }
}

fn fix(piece: char, from: Option<&str>, to: Option<&str>) -> Fix {
    Fix { piece: Piece::from_char(piece), from: from.map(sq), to: to.map(sq) }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const CASTLES: &str = "r3k2r/pppq1ppp/2n2n2/4p3/4P3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1";
const PROMOTES: &str = "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1";

/// Issue 30's slip: the opponent's knight b1–c3, the player's hands carry
/// the c2 pawn to c3 instead. The pawn is on c3, the knight still on b1.
#[test]
fn another_piece_onto_the_target_is_put_back_from_where_it_stands() {
    for kind in KINDS {
        let mut g = Table::new(kind, START);
        g.choose("b1c3");
        g.hands("c2- c3+");
        let slips = g.slips();
        assert!(matches!(slips.last(), Some(Slip::OtherMove { san, .. }) if san == "c3"), "{kind:?}: {slips:?}");
        assert_eq!(g.last_fix(), [fix('P', Some("c3"), Some("c2")), fix('N', Some("b1"), Some("c3"))], "{kind:?}");
        g.follow_the_fix();
    }
}

/// A piece that cannot go there at all: the d2 pawn put on c3.
#[test]
fn another_piece_onto_the_target_by_no_legal_move() {
    for kind in KINDS {
        let mut g = Table::new(kind, START);
        g.choose("b1c3");
        g.hands("d2- c3+");
        let slip = Slip::Misplaced { sq: sq("c3"), piece: Piece::from_char('P'), belongs: Some(sq("d2")) };
        assert_eq!(g.slips().last(), Some(&slip), "{kind:?}");
        assert_eq!(g.last_fix(), [fix('P', Some("c3"), Some("d2")), fix('N', Some("b1"), Some("c3"))], "{kind:?}");
        g.follow_the_fix();
    }
}

/// The knight of the move to another square: one it could go to (a3),
/// and one it could not (d4).
#[test]
fn the_right_piece_to_the_wrong_square() {
    for (kind, wrong) in KINDS.into_iter().flat_map(|k| [(k, "a3"), (k, "d4")]) {
        let mut g = Table::new(kind, START);
        g.choose("b1c3");
        g.hands(&format!("b1- {wrong}+"));
        let slip = Slip::Misplaced { sq: sq(wrong), piece: Piece::from_char('N'), belongs: Some(sq("c3")) };
        assert_eq!(g.slips().last(), Some(&slip), "{kind:?}");
        assert_eq!(g.last_fix(), [fix('N', Some(wrong), Some("c3"))], "{kind:?}");
        g.follow_the_fix();
    }
}

/// exd5: the captured pawn set down on the board (on c6) instead of off
/// it, or the capture never made (the capturing pawn beside its victim).
#[test]
fn a_captures_victim_left_on_the_board() {
    let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
    for kind in KINDS {
        let mut g = Table::new(kind, fen);
        g.choose("e4d5");
        g.hands("d5- c6+p");
        let slip = Slip::Misplaced { sq: sq("c6"), piece: Piece::from_char('p'), belongs: None };
        assert_eq!(g.slips(), std::slice::from_ref(&slip), "{kind:?}");
        assert_eq!(g.last_fix(), [fix('p', Some("c6"), None), fix('P', Some("e4"), Some("d5"))], "{kind:?}");
        // The capture made, the victim still on c6: told once, it is not
        // told again; taken off, the move stands.
        g.hands("e4- d5+P");
        assert_eq!(g.slips(), [slip], "{kind:?}");
        g.hands("c6-");
        g.completes();

        let mut g = Table::new(kind, fen);
        g.choose("e4d5");
        g.hands("e4- e5+");
        assert!(!g.slips().is_empty(), "{kind:?}: the pawn on e5 is told");
        assert_eq!(g.last_fix(), [fix('p', Some("d5"), None), fix('P', Some("e5"), Some("d5"))], "{kind:?}");
        g.follow_the_fix();
    }
}

/// En passant with the captured pawn left where it stands: once the board
/// has held still a while, the step still to do is told.
#[test]
fn en_passants_victim_left_on_the_board() {
    let fen = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
    for kind in KINDS {
        let mut g = Table::new(kind, fen);
        g.choose("e5f6");
        g.hands("e5- f6+");
        let halfway = Slip::Halfway { next: fix('p', Some("f5"), None) };
        assert_eq!(g.slips(), [halfway], "{kind:?}: told once");
        assert_eq!(g.last_fix(), [fix('p', Some("f5"), None)], "{kind:?}");
        g.follow_the_fix();
    }
}

/// Castling begun wrong: the rook first (the king's step is told), the
/// other rook (a move of its own, put back), the king to a wrong square,
/// the king and rook of the other castling.
#[test]
fn castling_begun_wrong() {
    for kind in KINDS {
        let mut g = Table::new(kind, CASTLES);
        g.choose("e1g1");
        g.hands("h1- f1+");
        assert_eq!(g.slips(), [Slip::Halfway { next: fix('K', Some("e1"), Some("g1")) }], "{kind:?}");
        g.follow_the_fix();

        let mut g = Table::new(kind, CASTLES);
        g.choose("e1g1");
        g.hands("a1- d1+");
        assert!(matches!(g.slips().last(), Some(Slip::OtherMove { san, .. }) if san == "Rd1"), "{kind:?}");
        assert_eq!(
            g.last_fix(),
            [fix('R', Some("d1"), Some("a1")), fix('K', Some("e1"), Some("g1")), fix('R', Some("h1"), Some("f1"))],
            "{kind:?}"
        );
        g.follow_the_fix();

        let mut g = Table::new(kind, CASTLES);
        g.choose("e1g1");
        g.hands("e1- f1+");
        let slip = Slip::Misplaced { sq: sq("f1"), piece: Piece::from_char('K'), belongs: Some(sq("g1")) };
        assert_eq!(g.slips().last(), Some(&slip), "{kind:?}");
        g.follow_the_fix();

        let mut g = Table::new(kind, CASTLES);
        g.choose("e1g1");
        g.hands("e1- c1+ a1- d1+");
        assert!(!g.slips().is_empty(), "{kind:?}");
        assert_eq!(
            g.last_fix(),
            [fix('R', Some("d1"), Some("a1")), fix('K', Some("c1"), Some("g1")), fix('R', Some("h1"), Some("f1"))],
            "{kind:?}"
        );
        g.follow_the_fix();
    }
}

/// A promotion: the pawn to a wrong square (which the sensors cannot tell
/// from the new piece put there: "the piece"), and the new piece put on
/// with the pawn still on its square.
#[test]
fn promotion_carried_out_wrong() {
    for kind in KINDS {
        let mut g = Table::new(kind, PROMOTES);
        g.choose("e7e8q");
        g.hands("e7- d8+");
        let slip = Slip::Misplaced { sq: sq("d8"), piece: None, belongs: None };
        assert_eq!(g.slips().last(), Some(&slip), "{kind:?}");
        assert_eq!(g.last_fix(), [Fix { piece: None, from: Some(sq("d8")), to: None }, fix('Q', None, Some("e8"))]);
        g.follow_the_fix();

        let mut g = Table::new(kind, PROMOTES);
        g.choose("e7e8q");
        g.hands("e8+Q");
        assert_eq!(g.slips(), [Slip::Halfway { next: fix('P', Some("e7"), None) }], "{kind:?}");
        g.follow_the_fix();
    }
}

/// A piece of the opponent's not part of the move lifted: put back, then
/// the move from where its piece stands.
#[test]
fn not_that_one_names_the_move_from_where_its_piece_stands() {
    for kind in KINDS {
        let mut g = Table::new(kind, START);
        g.choose("b1c3");
        g.hands("g1-");
        let slip = Slip::NotThatOne {
            sq: sq("g1"),
            piece: Piece::from_char('N').unwrap(),
            instead: Some(fix('N', Some("b1"), Some("c3"))),
        };
        assert_eq!(g.slips(), [slip], "{kind:?}");
        assert_eq!(g.last_fix(), [fix('N', None, Some("g1")), fix('N', Some("b1"), Some("c3"))], "{kind:?}");
        g.follow_the_fix();
    }
}
