//! Guiding a player's hands through the engine's move on a board that only
//! senses occupancy (FIDE Laws Appendix D for visually impaired players:
//! the player carries out the opponent's move on their own board).
//!
//! [`Execution`] follows the lifts and placements made after the engine's
//! move was announced, keeping track of which piece is where as well as
//! occupancy allows, and says what to do next: the piece to take off first
//! for a capture, castling king then rook, en passant's captured pawn, the
//! piece to put on for a promotion; or what went wrong (a piece lifted that
//! is not part of the move, a piece put on a wrong square, a different legal
//! move), and how to put it right ([`Execution::repair`]): each piece from
//! the square the hands put it on — never from where the move expected it
//! (issue 30: "move the pawn from b1" with the pawn on c3). It is pure: no
//! I/O, no clock, no words — the speech crate phrases the [`Guidance`].
//!
//! Why it follows the edges rather than looking at one occupancy frame:
//! after a capture, "the captured piece still stands on d5 and the knight is
//! in the hand" and "the knight stands on d5" read the same; only the order
//! of lifts and placements tells them apart.

use shakmaty::{Bitboard, Board, Chess, Move, Piece, Position, Role, Square};

use crate::event::Fix;

/// One thing to do on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Take this piece off the board (the piece captured).
    TakeOff { sq: Square, piece: Piece },
    /// Pick up this piece to move it.
    Lift { sq: Square, piece: Piece },
    /// Put the piece in hand on this square.
    Place { sq: Square, piece: Piece },
    /// Promotion: the pawn stays off the board and this piece goes on.
    Promote { sq: Square, piece: Piece },
}

/// Something done that is not part of the move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// A piece that is not part of the move was lifted from `sq` and is
    /// still off the board: "not that one"; `instead` is what was expected.
    NotThatOne { sq: Square, piece: Piece, instead: Option<Step> },
    /// A piece stands on `sq` where it does not belong; it belongs on
    /// `belongs` (`None`: off the board). `piece` is `None` for a piece put
    /// on from outside the board, which cannot be known.
    Misplaced { sq: Square, piece: Option<Piece>, belongs: Option<Square> },
    /// `sq` should hold `piece` and is empty, for no reason followed here.
    Missing { sq: Square, piece: Piece },
}

/// What the player should hear now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guidance {
    /// The board shows the engine's move.
    Done,
    /// The next step of the move.
    Next(Step),
    /// Put this right first.
    Fix(Fault),
    /// The board shows a different legal move of the engine's side; the
    /// game's policy decides between refusing it (the fix is
    /// [`Execution::faults`]) and taking it as the player's override.
    OtherMove { played: Move },
}

/// What a square holds, as far as the board and the lifts tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    Empty,
    Piece(Piece),
    /// A piece put on from outside the board.
    Unknown,
}

/// A square that differs from the position after the engine's move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrongSquare {
    pub sq: Square,
    pub expected: Option<Piece>,
    pub found: Found,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The piece that moves (the king in castling).
    Mover,
    /// The rook in castling.
    Rook,
    Captured,
    /// Not part of the move.
    Bystander,
    /// The piece put on for a promotion.
    Promoted,
    /// A piece put on from outside the board (not a promotion).
    Stranger,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    On(Square),
    Off,
}

#[derive(Debug, Clone, Copy)]
struct Tracked {
    piece: Option<Piece>,
    home: Option<Square>,
    part: Part,
}

/// At most this many pieces are followed (32 of the position, the rest put
/// on from outside); more placements from nowhere are ignored.
const MAX_TRACKED: usize = 128;

/// The engine's move being carried out on the board.
#[derive(Debug, Clone)]
pub struct Execution {
    before: Chess,
    mv: Move,
    after: Board,
    /// Where the mover goes: `to`, or the king's square when castling.
    mover_to: Square,
    rook_to: Option<Square>,
    pieces: Vec<Tracked>,
    on: [Option<u8>; 64],
    /// Lifted and not put down, in the order lifted.
    hand: Vec<u8>,
    /// Every square lifted from since the move was announced.
    touched: Bitboard,
    /// The pieces that must move, in the order the player is told.
    tasks: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a legal move in the position")]
pub struct NotLegal(pub String);

impl Execution {
    /// The engine's move `mv`, about to be carried out on a board that
    /// shows `before`.
    pub fn new(before: &Chess, mv: Move) -> Result<Execution, NotLegal> {
        if !before.is_legal(mv) {
            return Err(NotLegal(mv.to_uci(before.castles().mode()).to_string()));
        }
        let mut after_pos = before.clone();
        after_pos.play_unchecked(mv);
        Ok(Execution::carrying(before, mv, after_pos.board().clone()))
    }

    /// An illegal move that stood on the partner's board (A.5.2): the piece
    /// on `from` goes to `to` all the same, taking what stands there.
    /// `None` when no piece of the side to move stands on `from`, or the
    /// position it makes cannot exist (see [`crate::game::play_anyway`]).
    pub fn forced(before: &Chess, from: Square, to: Square) -> Option<Execution> {
        let piece = before.board().piece_at(from).filter(|p| p.color == before.turn())?;
        let (after, _) = crate::game::play_anyway(before, from, to)?;
        let capture = before.board().role_at(to);
        let mv = Move::Normal { role: piece.role, from, capture, to, promotion: None };
        Some(Execution::carrying(before, mv, after.board().clone()))
    }

    fn carrying(before: &Chess, mv: Move, after: Board) -> Execution {
        let board = before.board();
        let turn = before.turn();
        let (mover_to, rook) = match mv {
            Move::Castle { king, rook } => {
                let side =
                    if king < rook { shakmaty::CastlingSide::KingSide } else { shakmaty::CastlingSide::QueenSide };
                (side.king_to(turn), Some((rook, side.rook_to(turn))))
            }
            _ => (mv.to(), None),
        };
        let captured_sq = match mv {
            Move::EnPassant { to, .. } => {
                Some(Square::from_coords(to.file(), mv.from().map_or(to.rank(), Square::rank)))
            }
            Move::Normal { capture: Some(_), to, .. } => Some(to),
            _ => None,
        };
        let mut exec = Execution {
            before: before.clone(),
            mv,
            after,
            mover_to,
            rook_to: rook.map(|(_, to)| to),
            pieces: Vec::new(),
            on: [None; 64],
            hand: Vec::new(),
            touched: Bitboard::EMPTY,
            tasks: Vec::new(),
        };
        let (mut mover, mut rook_id, mut captured) = (None, None, None);
        for (sq, piece) in board {
            let part = if Some(sq) == mv.from() {
                Part::Mover
            } else if rook.is_some_and(|(from, _)| from == sq) {
                Part::Rook
            } else if Some(sq) == captured_sq {
                Part::Captured
            } else {
                Part::Bystander
            };
            let id = exec.track(Tracked { piece: Some(piece), home: Some(sq), part });
            exec.on[sq as usize] = id;
            match part {
                Part::Mover => mover = id,
                Part::Rook => rook_id = id,
                Part::Captured => captured = id,
                _ => {}
            }
        }
        let moves = |id: Option<u8>| {
            id.filter(|&i| exec.dest(i) != exec.pieces[usize::from(i)].home.map_or(Dest::Off, Dest::On))
        };
        let (mover, rook_id, captured) = (moves(mover), moves(rook_id), moves(captured));
        exec.tasks = match mv {
            Move::EnPassant { .. } => [mover, captured].into_iter().flatten().collect(),
            // The rook goes first when it stands where the king goes
            // (Chess960).
            Move::Castle { rook, .. } if rook == mover_to => [rook_id, mover].into_iter().flatten().collect(),
            _ => [captured, mover, rook_id].into_iter().flatten().collect(),
        };
        exec
    }

    /// The engine's move.
    pub fn mv(&self) -> Move {
        self.mv
    }

    /// Every step of the move from the start, in the order told: for the
    /// announcement. (Followed on a copy, so the list is exactly what
    /// [`Execution::guidance`] will ask for.)
    pub fn steps(&self) -> Vec<Step> {
        let mut copy = self.clone();
        let mut steps = Vec::new();
        // A move has at most four steps (castling with the rook in the way).
        for _ in 0..8 {
            let Guidance::Next(step) = copy.guidance() else { break };
            steps.push(step);
            match step {
                Step::TakeOff { sq, .. } | Step::Lift { sq, .. } => copy.lift(sq),
                Step::Place { sq, .. } | Step::Promote { sq, .. } => copy.place(sq),
            }
        }
        steps
    }

    /// A piece was lifted from `sq`.
    pub fn lift(&mut self, sq: Square) {
        if let Some(id) = self.on[sq as usize].take() {
            self.hand.push(id);
            self.touched.add(sq);
        }
    }

    /// A piece was put on `sq`.
    pub fn place(&mut self, sq: Square) {
        if self.on[sq as usize].is_some() {
            return;
        }
        let id = self.placed_piece(sq);
        if let Some(id) = id {
            self.hand.retain(|&h| h != id);
            self.on[sq as usize] = Some(id);
        }
    }

    /// The board now reads `occupancy`: the squares that went empty were
    /// lifted, then the squares that filled were placed.
    pub fn observe(&mut self, occupancy: Bitboard) {
        let now = self.occupancy();
        for sq in now & !occupancy {
            self.lift(sq);
        }
        for sq in occupancy & !now {
            self.place(sq);
        }
    }

    /// The occupancy the board should read now, as followed here.
    pub fn occupancy(&self) -> Bitboard {
        Square::ALL.into_iter().filter(|sq| self.on[*sq as usize].is_some()).collect()
    }

    /// What to tell the player now.
    pub fn guidance(&self) -> Guidance {
        if self.is_done() {
            return Guidance::Done;
        }
        // A piece of the engine's move on another square it could go to is
        // a slip of the hand ("the knight belongs on f3"; the rook moved
        // first in castling); another piece moved is another move.
        let of_the_move = |sq: Square| self.tasks.iter().any(|&id| self.pieces[usize::from(id)].home == Some(sq));
        if let Some(played) = self.other_move().filter(|m| !m.from().is_some_and(of_the_move)) {
            return Guidance::OtherMove { played };
        }
        if let Some(fault) = self.faults().first() {
            return Guidance::Fix(*fault);
        }
        if let Some(step) = self.next_step() {
            return Guidance::Next(step);
        }
        // Nothing followed here explains the difference: name the first
        // wrong square (there is one, the move is not done).
        match self.wrong_squares().first() {
            Some(WrongSquare { sq, expected: Some(piece), found: Found::Empty }) => {
                Guidance::Fix(Fault::Missing { sq: *sq, piece: *piece })
            }
            Some(WrongSquare { sq, found, .. }) => Guidance::Fix(Fault::Misplaced {
                sq: *sq,
                piece: match found {
                    Found::Piece(p) => Some(*p),
                    _ => None,
                },
                belongs: None,
            }),
            None => Guidance::Done,
        }
    }

    /// Whether the move changes what stands on `sq`.
    pub fn changes(&self, sq: Square) -> bool {
        self.before.board().piece_at(sq) != self.after.piece_at(sq)
    }

    /// Whether the board, as followed here, has left the position before
    /// the move: part of it, or something else, is done.
    pub fn begun(&self) -> bool {
        self.occupancy() != self.before.board().occupied()
    }

    /// Whether the board shows the position after the engine's move.
    pub fn is_done(&self) -> bool {
        self.wrong_squares().is_empty()
    }

    /// Everything to put right, pieces lifted by mistake first.
    pub fn faults(&self) -> Vec<Fault> {
        let mut faults = Vec::new();
        let instead = self.next_step();
        for &id in self.hand.iter().rev() {
            let t = self.pieces[usize::from(id)];
            if let (Part::Bystander, Some(piece), Some(sq)) = (t.part, t.piece, t.home) {
                faults.push(Fault::NotThatOne { sq, piece, instead });
            }
        }
        for sq in Square::ALL {
            let Some(id) = self.on[sq as usize] else { continue };
            let t = self.pieces[usize::from(id)];
            let dest = self.dest(id);
            if dest != Dest::On(sq) && t.home != Some(sq) {
                let belongs = match dest {
                    Dest::On(d) => Some(d),
                    Dest::Off => None,
                };
                faults.push(Fault::Misplaced { sq, piece: self.named(id), belongs });
            }
        }
        faults
    }

    /// What stands on `sq`, as followed here.
    pub fn found(&self, sq: Square) -> Found {
        match self.on[sq as usize] {
            None => Found::Empty,
            Some(id) => self.pieces[usize::from(id)].piece.map_or(Found::Unknown, Found::Piece),
        }
    }

    /// Every square that differs from the position after the move.
    pub fn wrong_squares(&self) -> Vec<WrongSquare> {
        Square::ALL
            .into_iter()
            .filter_map(|sq| {
                let found = self.found(sq);
                let expected = self.after.piece_at(sq);
                let right = match (expected, found) {
                    (None, Found::Empty) => true,
                    (Some(e), Found::Piece(p)) => e == p,
                    _ => false,
                };
                (!right).then_some(WrongSquare { sq, expected, found })
            })
            .collect()
    }

    /// Every piece to move, in an order a player can follow, to bring the
    /// board from what it shows (as followed here) to the position after the
    /// move: each from where it stands (`from`; none: in the hand) to where
    /// it goes (`to`; none: off the board). Pieces in the hand go down
    /// first, then pieces that are not part of the move go back, then the
    /// move's own pieces in the order told, the new piece of a promotion
    /// last; a piece goes only to a square already empty, so one in the
    /// way moves first. Never the move as it was expected to be made: each
    /// piece from where the lifts and placements put it.
    pub fn repair(&self) -> Vec<Fix> {
        #[derive(Clone, Copy)]
        struct Task {
            id: Option<u8>,
            fix: Fix,
        }
        let rank = |id: u8| -> usize {
            let t = self.pieces[usize::from(id)];
            if self.hand.contains(&id) {
                0
            } else if matches!(t.part, Part::Bystander | Part::Stranger) {
                1
            } else {
                // The move's pieces in the order told; the others of the
                // move (a piece put back off its square) after them.
                2 + self.tasks.iter().position(|&task| task == id).unwrap_or(self.tasks.len())
            }
        };
        let mut ids: Vec<u8> = (0..self.pieces.len()).filter_map(|i| u8::try_from(i).ok()).collect();
        ids.sort_by_key(|&id| rank(id));
        let mut todo: Vec<Task> = ids
            .into_iter()
            .filter_map(|id| {
                let from = self.square_of(id);
                if from.is_none() && !self.hand.contains(&id) {
                    return None;
                }
                let to = match self.dest(id) {
                    Dest::On(sq) => Some(sq),
                    Dest::Off => None,
                };
                (from != to).then_some(Task { id: Some(id), fix: Fix { piece: self.named(id), from, to } })
            })
            .collect();
        if self.mv.is_promotion() && self.promoted().is_none() {
            let fix = Fix { piece: Some(self.promote_piece()), from: None, to: Some(self.mv.to()) };
            todo.push(Task { id: None, fix });
        }
        let mut on = self.on;
        let mut plan = Vec::with_capacity(todo.len());
        while !todo.is_empty() {
            let free = |t: &Task| t.fix.to.is_none_or(|sq| on[sq as usize].is_none());
            let task = match (todo.iter().position(free), todo.iter().position(|t| t.fix.from.is_some())) {
                (Some(i), _) => todo.remove(i),
                // Pieces in each other's way (two swapped): the first comes
                // off into the hand, and goes down later.
                (None, Some(i)) => {
                    let lifted = Task { fix: Fix { to: None, ..todo[i].fix }, ..todo[i] };
                    todo[i].fix.from = None;
                    lifted
                }
                // Only pieces in the hand, each for a square taken by a
                // piece where it belongs: no order helps.
                (None, None) => {
                    plan.extend(todo.drain(..).map(|t| t.fix));
                    break;
                }
            };
            if let Some(from) = task.fix.from {
                on[from as usize] = None;
            }
            if let Some(to) = task.fix.to {
                on[to as usize] = task.id.or(Some(u8::MAX));
            }
            plan.push(task.fix);
        }
        plan
    }

    /// The piece followed as `id`, as it may be named: not the promoting
    /// pawn once it is off its square, since a piece put down while it is
    /// in the hand may as well be the new piece.
    fn named(&self, id: u8) -> Option<Piece> {
        let t = self.pieces[usize::from(id)];
        let promoting = t.part == Part::Mover && self.mv.is_promotion();
        if promoting && self.square_of(id).is_some_and(|sq| Some(sq) != t.home) { None } else { t.piece }
    }

    /// The legal move other than the engine's that the board shows, if
    /// any: its occupancy, with every square it empties or captures on
    /// lifted at some point.
    pub fn other_move(&self) -> Option<Move> {
        let occupancy = self.occupancy();
        if occupancy == self.after.occupied() {
            return None;
        }
        let board = self.before.board();
        self.before.legal_moves().into_iter().find(|&m| {
            if m.from() == self.mv.from() && m.to() == self.mv.to() {
                return false; // Another promotion piece: the sensors cannot tell.
            }
            let mut pos = self.before.clone();
            pos.play_unchecked(m);
            let changed: Bitboard =
                board.occupied().into_iter().filter(|&sq| board.piece_at(sq) != pos.board().piece_at(sq)).collect();
            pos.board().occupied() == occupancy && self.touched.is_superset(changed)
        })
    }

    fn square_of(&self, id: u8) -> Option<Square> {
        Square::ALL.into_iter().find(|sq| self.on[*sq as usize] == Some(id))
    }

    fn promoted(&self) -> Option<u8> {
        (0..self.pieces.len()).find(|&i| self.pieces[i].part == Part::Promoted).and_then(|i| u8::try_from(i).ok())
    }

    /// The next step of the move, from where the pieces of the move are: a
    /// piece of the move in the hand goes down first, whatever the order
    /// told.
    fn next_step(&self) -> Option<Step> {
        let held = self.tasks.iter().filter(|id| self.hand.contains(id));
        let rest = self.tasks.iter().filter(|id| !self.hand.contains(id));
        for &id in held.chain(rest) {
            let t = self.pieces[usize::from(id)];
            let piece = t.piece?;
            let here = self.square_of(id);
            match (t.part, self.dest(id)) {
                (Part::Captured, _) => match here {
                    None => continue,
                    Some(sq) => return Some(Step::TakeOff { sq, piece }),
                },
                (_, Dest::Off) => {
                    // The promoting pawn.
                    let queen_on = self.promoted().and_then(|p| self.square_of(p)) == Some(self.mv.to());
                    match (here, queen_on) {
                        (Some(sq), true) => return Some(Step::TakeOff { sq, piece }),
                        (Some(sq), false) => return Some(Step::Lift { sq, piece }),
                        (None, true) => continue,
                        (None, false) => return Some(self.blocker(self.mv.to()).unwrap_or(self.promote_step())),
                    }
                }
                (_, Dest::On(dest)) => match here {
                    Some(sq) if sq == dest => continue,
                    Some(sq) => return Some(Step::Lift { sq, piece }),
                    None => return Some(self.blocker(dest).unwrap_or(Step::Place { sq: dest, piece })),
                },
            }
        }
        None
    }

    /// What must leave `sq` before a piece can go there.
    fn blocker(&self, sq: Square) -> Option<Step> {
        let id = self.on[sq as usize]?;
        let t = self.pieces[usize::from(id)];
        let piece = t.piece?;
        Some(if t.part == Part::Captured { Step::TakeOff { sq, piece } } else { Step::Lift { sq, piece } })
    }

    fn promote_step(&self) -> Step {
        let role = self.mv.promotion().unwrap_or(Role::Queen);
        Step::Promote { sq: self.mv.to(), piece: role.of(self.before.turn()) }
    }

    fn dest(&self, id: u8) -> Dest {
        let t = self.pieces[usize::from(id)];
        match t.part {
            Part::Mover if self.mv.is_promotion() => Dest::Off,
            Part::Mover => Dest::On(self.mover_to),
            Part::Rook => self.rook_to.map_or(Dest::Off, Dest::On),
            Part::Captured | Part::Stranger => Dest::Off,
            Part::Bystander => t.home.map_or(Dest::Off, Dest::On),
            Part::Promoted => Dest::On(self.mv.to()),
        }
    }

    fn track(&mut self, t: Tracked) -> Option<u8> {
        if self.pieces.len() >= MAX_TRACKED {
            return None;
        }
        self.pieces.push(t);
        u8::try_from(self.pieces.len() - 1).ok()
    }

    /// Which piece was just put on `sq`: the piece of the move that goes
    /// there; one put back where it was lifted; else the one lifted last
    /// that stays on the board; else the one lifted last; with an empty hand,
    /// the promotion piece or a piece from outside.
    fn placed_piece(&mut self, sq: Square) -> Option<u8> {
        let promotion_square = self.mv.is_promotion() && sq == self.mv.to() && self.promoted().is_none();
        if promotion_square {
            let pawn = self.hand.iter().copied().find(|&id| self.pieces[usize::from(id)].part == Part::Mover);
            let only_captured = self.hand.iter().all(|&id| self.pieces[usize::from(id)].part == Part::Captured);
            if pawn.is_some() || only_captured {
                // The pawn stays in the hand, off the board; the new piece goes on.
                return self.track(Tracked { piece: Some(self.promote_piece()), home: None, part: Part::Promoted });
            }
        }
        let held = |f: &dyn Fn(u8) -> bool| self.hand.iter().rev().copied().find(|&id| f(id));
        let chosen = held(&|id| {
            matches!(self.pieces[usize::from(id)].part, Part::Mover | Part::Rook) && self.dest(id) == Dest::On(sq)
        })
        .or_else(|| held(&|id| self.pieces[usize::from(id)].home == Some(sq)))
        .or_else(|| held(&|id| self.dest(id) != Dest::Off))
        .or_else(|| held(&|_| true));
        match chosen {
            Some(id) => Some(id),
            None => self.track(Tracked { piece: None, home: None, part: Part::Stranger }),
        }
    }

    fn promote_piece(&self) -> Piece {
        self.mv.promotion().unwrap_or(Role::Queen).of(self.before.turn())
    }

    #[cfg(test)]
    fn in_hand(&self) -> Vec<Option<Piece>> {
        self.hand.iter().map(|id| self.pieces[usize::from(*id)].piece).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;

    fn pos(fen: &str, mode: CastlingMode) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
    }

    fn exec(fen: &str, uci: &str) -> Execution {
        exec_mode(fen, uci, CastlingMode::Standard)
    }

    fn exec_mode(fen: &str, uci: &str, mode: CastlingMode) -> Execution {
        let p = pos(fen, mode);
        let m = uci.parse::<UciMove>().unwrap().to_move(&p).unwrap();
        Execution::new(&p, m).unwrap()
    }

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn piece(c: char) -> Piece {
        Piece::from_char(c).unwrap()
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn quiet_move() {
        let mut e = exec(START, "g1f3");
        assert_eq!(
            e.steps(),
            vec![Step::Lift { sq: sq("g1"), piece: piece('N') }, Step::Place { sq: sq("f3"), piece: piece('N') }]
        );
        assert_eq!(e.guidance(), Guidance::Next(Step::Lift { sq: sq("g1"), piece: piece('N') }));
        e.lift(sq("g1"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Place { sq: sq("f3"), piece: piece('N') }));
        e.place(sq("f3"));
        assert_eq!(e.guidance(), Guidance::Done);
        assert!(e.wrong_squares().is_empty());
    }

    #[test]
    fn capture_takes_the_captured_piece_off_first() {
        // 1.e4 d5: the engine plays exd5.
        let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
        let mut e = exec(fen, "e4d5");
        assert_eq!(e.steps()[0], Step::TakeOff { sq: sq("d5"), piece: piece('p') });
        e.lift(sq("d5"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Lift { sq: sq("e4"), piece: piece('P') }));
        e.lift(sq("e4"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Place { sq: sq("d5"), piece: piece('P') }));
        e.place(sq("d5"));
        assert_eq!(e.guidance(), Guidance::Done);
    }

    #[test]
    fn capture_with_the_capturing_piece_lifted_first() {
        let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
        let mut e = exec(fen, "e4d5");
        e.lift(sq("e4"));
        // Same occupancy as the finished capture: not done, the pawn on d5 must come off.
        assert_eq!(e.occupancy(), e.after.occupied());
        assert_eq!(e.guidance(), Guidance::Next(Step::TakeOff { sq: sq("d5"), piece: piece('p') }));
        e.lift(sq("d5"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Place { sq: sq("d5"), piece: piece('P') }));
        e.place(sq("d5"));
        assert_eq!(e.guidance(), Guidance::Done);
        assert_eq!(e.in_hand(), vec![Some(piece('p'))]);
    }

    #[test]
    fn captured_piece_put_back_is_not_a_capture() {
        let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
        let mut e = exec(fen, "e4d5");
        e.lift(sq("d5"));
        e.place(sq("d5"));
        e.lift(sq("e4"));
        assert_eq!(e.guidance(), Guidance::Next(Step::TakeOff { sq: sq("d5"), piece: piece('p') }));
    }

    #[test]
    fn castling_king_then_rook() {
        let fen = "r3k2r/pppq1ppp/2n2n2/4p3/4P3/2N2N2/PPPQ1PPP/R3K2R b KQkq - 0 1";
        let mut e = exec(fen, "e8g8");
        assert_eq!(
            e.steps(),
            vec![
                Step::Lift { sq: sq("e8"), piece: piece('k') },
                Step::Place { sq: sq("g8"), piece: piece('k') },
                Step::Lift { sq: sq("h8"), piece: piece('r') },
                Step::Place { sq: sq("f8"), piece: piece('r') },
            ]
        );
        e.lift(sq("e8"));
        e.place(sq("g8"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Lift { sq: sq("h8"), piece: piece('r') }));
        e.lift(sq("h8"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Place { sq: sq("f8"), piece: piece('r') }));
        e.place(sq("f8"));
        assert_eq!(e.guidance(), Guidance::Done);
    }

    #[test]
    fn castling_rook_first_is_followed_too() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let mut e = exec(fen, "e1c1");
        e.lift(sq("a1"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Place { sq: sq("d1"), piece: piece('R') }));
        e.place(sq("d1"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Lift { sq: sq("e1"), piece: piece('K') }));
        e.lift(sq("e1"));
        e.place(sq("c1"));
        assert_eq!(e.guidance(), Guidance::Done);
    }

    #[test]
    fn castling_king_on_the_rooks_square_is_misplaced() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let mut e = exec(fen, "e1g1");
        e.lift(sq("e1"));
        e.place(sq("f1"));
        assert_eq!(
            e.guidance(),
            Guidance::Fix(Fault::Misplaced { sq: sq("f1"), piece: Some(piece('K')), belongs: Some(sq("g1")) })
        );
        e.lift(sq("f1"));
        e.place(sq("g1"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Lift { sq: sq("h1"), piece: piece('R') }));
    }

    #[test]
    fn chess960_castling_where_the_king_goes_to_the_rooks_square() {
        // King c1, rook b1: queen-side castling leaves the king on c1 and puts the rook on d1.
        let fen = "1rk5/8/8/8/8/8/8/1RK5 w Bb - 0 1";
        let e = exec_mode(fen, "c1b1", CastlingMode::Chess960);
        assert!(matches!(e.mv(), Move::Castle { .. }));
        assert_eq!(
            e.steps(),
            vec![Step::Lift { sq: sq("b1"), piece: piece('R') }, Step::Place { sq: sq("d1"), piece: piece('R') },]
        );
        let mut e = e;
        e.lift(sq("b1"));
        e.place(sq("d1"));
        assert_eq!(e.guidance(), Guidance::Done);
    }

    #[test]
    fn chess960_rook_first_when_the_king_lands_on_it() {
        // King d1, rook c1, queen side: the king goes to c1 where the rook stands and
        // the rook to d1 where the king stands: the king must be in the hand.
        let fen = "k7/8/8/8/8/8/8/2RK4 w C - 0 1";
        let mut e = exec_mode(fen, "d1c1", CastlingMode::Chess960);
        assert_eq!(
            e.steps(),
            vec![
                Step::Lift { sq: sq("c1"), piece: piece('R') },
                Step::Lift { sq: sq("d1"), piece: piece('K') },
                Step::Place { sq: sq("d1"), piece: piece('R') },
                Step::Place { sq: sq("c1"), piece: piece('K') },
            ]
        );
        // Lifting the king first: the rook is in the way of the king.
        e.lift(sq("d1"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Lift { sq: sq("c1"), piece: piece('R') }));
        e.lift(sq("c1"));
        e.place(sq("d1"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Place { sq: sq("c1"), piece: piece('K') }));
        e.place(sq("c1"));
        assert_eq!(e.guidance(), Guidance::Done);
    }

    #[test]
    fn en_passant_names_the_captured_pawn() {
        let fen = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
        let mut e = exec(fen, "e5f6");
        assert_eq!(e.steps().last(), Some(&Step::TakeOff { sq: sq("f5"), piece: piece('p') }));
        e.lift(sq("e5"));
        e.place(sq("f6"));
        assert_eq!(e.guidance(), Guidance::Next(Step::TakeOff { sq: sq("f5"), piece: piece('p') }));
        e.lift(sq("f5"));
        assert_eq!(e.guidance(), Guidance::Done);
    }

    #[test]
    fn en_passant_with_the_wrong_pawn_taken_off() {
        let fen = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
        let mut e = exec(fen, "e5f6");
        e.lift(sq("e5"));
        e.place(sq("f6"));
        e.lift(sq("d5"));
        assert_eq!(
            e.guidance(),
            Guidance::Fix(Fault::NotThatOne {
                sq: sq("d5"),
                piece: piece('p'),
                instead: Some(Step::TakeOff { sq: sq("f5"), piece: piece('p') })
            })
        );
        e.place(sq("d5"));
        e.lift(sq("f5"));
        assert_eq!(e.guidance(), Guidance::Done);
    }

    #[test]
    fn promotion_names_the_piece_to_put_on() {
        let fen = "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1";
        let mut e = exec(fen, "e7e8q");
        assert_eq!(
            e.steps(),
            vec![Step::Lift { sq: sq("e7"), piece: piece('P') }, Step::Promote { sq: sq("e8"), piece: piece('Q') },]
        );
        e.lift(sq("e7"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Promote { sq: sq("e8"), piece: piece('Q') }));
        e.place(sq("e8"));
        assert_eq!(e.guidance(), Guidance::Done);
        assert_eq!(e.wrong_squares(), vec![]);
    }

    #[test]
    fn under_promotion_with_capture_queen_put_on_first() {
        let fen = "3r2k1/4P3/8/8/8/8/6K1/8 w - - 0 1";
        let mut e = exec(fen, "e7d8n");
        assert_eq!(e.guidance(), Guidance::Next(Step::TakeOff { sq: sq("d8"), piece: piece('r') }));
        e.lift(sq("d8"));
        // The knight goes on d8 before the pawn is taken off.
        e.place(sq("d8"));
        assert_eq!(e.guidance(), Guidance::Next(Step::TakeOff { sq: sq("e7"), piece: piece('P') }));
        e.lift(sq("e7"));
        assert_eq!(e.guidance(), Guidance::Done);
    }

    #[test]
    fn wrong_piece_lifted_not_that_one() {
        let mut e = exec(START, "g1f3");
        e.lift(sq("b1"));
        assert_eq!(
            e.guidance(),
            Guidance::Fix(Fault::NotThatOne {
                sq: sq("b1"),
                piece: piece('N'),
                instead: Some(Step::Lift { sq: sq("g1"), piece: piece('N') })
            })
        );
        e.place(sq("b1"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Lift { sq: sq("g1"), piece: piece('N') }));
    }

    #[test]
    fn piece_on_a_wrong_square_belongs_elsewhere() {
        let mut e = exec(START, "g1f3");
        e.lift(sq("g1"));
        e.place(sq("e4")); // not a knight move
        assert_eq!(
            e.guidance(),
            Guidance::Fix(Fault::Misplaced { sq: sq("e4"), piece: Some(piece('N')), belongs: Some(sq("f3")) })
        );
        assert_eq!(
            e.wrong_squares(),
            vec![
                WrongSquare { sq: sq("f3"), expected: Some(piece('N')), found: Found::Empty },
                WrongSquare { sq: sq("e4"), expected: None, found: Found::Piece(piece('N')) },
            ]
        );
        e.lift(sq("e4"));
        e.place(sq("f3"));
        assert_eq!(e.guidance(), Guidance::Done);
    }

    #[test]
    fn a_different_legal_move_is_named_and_its_fix_listed() {
        let mut e = exec(START, "g1f3");
        e.lift(sq("g1"));
        e.place(sq("h3"));
        // The engine's own piece on another legal square: "the knight belongs on f3",
        // and the core may still take Nh3 as the player's override.
        let played = "g1h3".parse::<UciMove>().unwrap().to_move(&Chess::default()).unwrap();
        let misplaced = Fault::Misplaced { sq: sq("h3"), piece: Some(piece('N')), belongs: Some(sq("f3")) };
        assert_eq!(e.guidance(), Guidance::Fix(misplaced));
        assert_eq!(e.other_move(), Some(played));
        assert_eq!(e.faults(), vec![misplaced]);

        // The other knight: Nc3 instead of Nf3.
        let mut e = exec(START, "g1f3");
        e.lift(sq("b1"));
        e.place(sq("c3"));
        let played = "b1c3".parse::<UciMove>().unwrap().to_move(&Chess::default()).unwrap();
        assert_eq!(e.guidance(), Guidance::OtherMove { played });
        assert_eq!(
            e.faults(),
            vec![Fault::Misplaced { sq: sq("c3"), piece: Some(piece('N')), belongs: Some(sq("b1")) }]
        );
    }

    #[test]
    fn a_piece_from_outside_the_board() {
        let mut e = exec(START, "g1f3");
        e.place(sq("d4"));
        assert_eq!(e.guidance(), Guidance::Fix(Fault::Misplaced { sq: sq("d4"), piece: None, belongs: None }));
        assert!(e.wrong_squares().contains(&WrongSquare { sq: sq("d4"), expected: None, found: Found::Unknown }));
        e.lift(sq("d4"));
        assert_eq!(e.guidance(), Guidance::Next(Step::Lift { sq: sq("g1"), piece: piece('N') }));
    }

    #[test]
    fn occupancy_frames_drive_it_too() {
        let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
        let p = pos(fen, CastlingMode::Standard);
        let m = "e4d5".parse::<UciMove>().unwrap().to_move(&p).unwrap();
        let mut e = Execution::new(&p, m).unwrap();
        let start = p.board().occupied();
        e.observe(start.without(sq("d5")));
        e.observe(start.without(sq("d5")).without(sq("e4")));
        e.observe(start.without(sq("e4")));
        assert_eq!(e.guidance(), Guidance::Done);
        // A frame with nothing new changes nothing.
        e.observe(start.without(sq("e4")));
        assert_eq!(e.guidance(), Guidance::Done);
    }

    #[test]
    fn glitches_are_ignored() {
        let mut e = exec(START, "g1f3");
        e.lift(sq("e4")); // nothing there
        e.place(sq("e2")); // already occupied
        assert_eq!(e.guidance(), Guidance::Next(Step::Lift { sq: sq("g1"), piece: piece('N') }));
    }

    #[test]
    fn an_illegal_move_is_refused() {
        let p = Chess::default();
        let m = Move::Normal { role: Role::Knight, from: sq("g1"), capture: None, to: sq("g3"), promotion: None };
        assert!(Execution::new(&p, m).is_err());
    }
}
