//! What the board shows (Article 4.7): the lifts and placements of a ply, the
//! move the board shows, and — once a move stands on the board — the
//! opponent's reply made before the press, watched from the position that
//! move makes. Article 1.3: a player "has the move" once the opponent's move
//! has been made, and 6.2.2 lets a player press after the opponent has
//! already replied; so the board can run a ply or two ahead of the clock.

use std::cell::OnceCell;

use shakmaty::{Bitboard, Chess, Move, Piece, Position, Role, Square};

use crate::Ms;
use crate::debounce::Change;
use crate::event::Article;
use crate::game::{Game, LegalMove, legal_moves};
use crate::recognise::{self, Decision, Observed};

/// How many plies the board is followed ahead of the clock: the mover's, the
/// opponent's reply before the press, and the mover's next move before the
/// opponent's press.
const DEPTH: usize = 3;

/// One ply as the board shows it, from the position it starts from.
#[derive(Debug, Clone)]
pub(super) struct Watch {
    pos: Chess,
    /// The legal moves, worked out when first needed: most replies watched
    /// are never begun before the press.
    options: OnceCell<Vec<LegalMove>>,
    pub seen: Observed,
    /// When watching began: the press that began the ply, or the moment the
    /// move before it stood on the board.
    pub started: Ms,
    /// Lifts of the opponent's pieces before this time bind nothing (4.3.2):
    /// they came before the opponent had completed their own move, most
    /// likely by the opponent's own hand.
    opp_binds_from: Ms,
    /// The piece touched in an illegal attempt: 4.3 binds the replacing
    /// move (7.5.1).
    pub carried: Option<Square>,
    /// The promotion selector as set for this ply: the piece a pawn
    /// promotes to (a queen unless set).
    pub promotion: Role,
    /// The move the board showed at the last change, and any that fit as well.
    shows: Decision,
    /// The board shows this ply's starting position.
    at_position: bool,
    /// The move last announced for this ply.
    pub announced: Option<Move>,
    /// The latest move the board has shown, and what came after it.
    made: Option<Box<Made>>,
    depth: usize,
}

/// A move that stood on the board, and the reply watched from it.
#[derive(Debug, Clone)]
struct Made {
    mv: Move,
    others: Vec<Move>,
    /// The board held still on the move (the settle time): only then are
    /// the opponent's lifts taken for their reply before the press is in.
    stood: bool,
    /// A square of the move changed since it showed.
    disturbed: bool,
    /// When the moved piece was last taken up from where the move put it.
    left: Option<Ms>,
    /// What the ply had shown when the move stood: the move's rulings rest
    /// on this, not on the hands that came after.
    seen: Observed,
    reply: Watch,
}

/// What the board shows, relative to the position of the ply being made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Shown {
    /// The position itself: nothing moved, or everything put back.
    Position,
    /// A move, and the replies made on top of it, in order.
    Moves(Vec<Move>),
    /// Neither: hands are at work, or the board is wrong.
    Hands,
}

/// A first lift of a piece, and whose touch it is.
#[derive(Debug, Clone, Copy)]
pub(super) struct Touch {
    /// 0: the player to move; 1: the opponent, replying before the press.
    pub ahead: usize,
    pub sq: Square,
    pub piece: Piece,
    pub binding: Option<Article>,
}

/// A move to complete, with what its rulings rest on.
pub(super) struct Completion {
    pub mv: Move,
    pub others: Vec<Move>,
    pub seen: Observed,
    /// Occupancy when the move stood on the board.
    pub board: Bitboard,
    /// The reply already under way, watched from the position the move makes.
    pub reply: Option<Watch>,
}

impl Watch {
    /// Watching the ply of the player to move in `pos`, from `t`, with the
    /// board as it reads now: a square of the position already empty (a piece
    /// in the hand) counts as lifted, but as no touch of this ply.
    pub fn new(game: &Game, t: Ms, board: Bitboard) -> Watch {
        Watch::with_options(game.position().clone(), OnceCell::from(game.options().to_vec()), t, board, 0)
    }

    fn at_depth(pos: Chess, t: Ms, board: Bitboard, depth: usize) -> Watch {
        Watch::with_options(pos, OnceCell::new(), t, board, depth)
    }

    fn with_options(pos: Chess, options: OnceCell<Vec<LegalMove>>, t: Ms, board: Bitboard, depth: usize) -> Watch {
        let mut seen = Observed::default();
        seen.already_off(pos.board().occupied() & !board, t);
        let at_position = board == pos.board().occupied();
        Watch {
            pos,
            options,
            seen,
            started: t,
            opp_binds_from: if depth == 0 { 0 } else { Ms::MAX },
            carried: None,
            promotion: Role::Queen,
            shows: Decision::default(),
            at_position,
            announced: None,
            made: None,
            depth,
        }
    }

    pub fn position(&self) -> &Chess {
        &self.pos
    }

    /// The legal moves of this ply, with what each leaves on the board.
    pub fn options(&self) -> &[LegalMove] {
        self.options.get_or_init(|| legal_moves(&self.pos))
    }

    /// Records a debounced change at every ply followed, and returns the
    /// touch it was, if any: the first lift of a piece, credited to the
    /// deepest ply whose player owns it (they have the move there), else to
    /// the ply being made.
    pub fn change(&mut self, c: Change, board: Bitboard, mask: Bitboard) -> Option<Touch> {
        let mut touches = Vec::new();
        self.record(c, 0, &mut touches);
        let owner = touches
            .iter()
            .rev()
            .find(|t| self.level(t.ahead).is_some_and(|w| w.pos.turn() == t.piece.color))
            .or(touches.first())
            .copied();
        self.refresh(c.t, board, mask);
        owner
    }

    /// A raw edge, at every ply followed: a lift is evidence even when
    /// shorter than the debounce window.
    pub fn raw(&mut self, t: Ms, sq: Square, on: bool) {
        self.seen.raw(t, sq, on);
        if let Some(made) = &mut self.made {
            made.reply.raw(t, sq, on);
        }
    }

    fn record(&mut self, c: Change, ahead: usize, touches: &mut Vec<Touch>) {
        if self.seen.change(c, self.pos.board().occupied())
            && let Some(piece) = self.pos.board().piece_at(c.sq)
        {
            touches.push(Touch { ahead, sq: c.sq, piece, binding: self.binding(c.sq, piece) });
        }
        if let Some(made) = &mut self.made {
            made.disturbed |= recognise::squares(made.mv).contains(c.sq);
            if !c.on && c.sq == recognise::destination(made.mv) {
                made.left = Some(c.t);
            }
            made.reply.record(c, ahead + 1, touches);
        }
    }

    /// Is this lift the touch that binds (4.3.1 for an own piece, 4.3.2 for
    /// the opponent's)?
    fn binding(&self, sq: Square, piece: Piece) -> Option<Article> {
        if piece.color == self.pos.turn() {
            (self.carried.is_none() && self.seen.first_of(self.pos.us()) == Some(sq)).then_some(Article::A4_3_1)
        } else {
            (self.seen.first_of_since(self.pos.them(), self.opp_binds_from) == Some(sq)).then_some(Article::A4_3_2)
        }
    }

    /// Reads the board again at every ply followed: the promotion selector
    /// changed, or a square changed.
    pub fn refresh(&mut self, t: Ms, board: Bitboard, mask: Bitboard) {
        let occupied = self.pos.board().occupied();
        self.at_position = (board ^ occupied) & !mask == Bitboard::EMPTY;
        let before = self.shows.chosen;
        // Every move lifts one of the mover's own pieces: until one was seen
        // lifted, no move can fit (and the legal moves need not be known).
        self.shows = if (self.seen.evidence() & self.pos.us() & !mask).is_empty() {
            Decision::default()
        } else {
            recognise::decide(self.options(), self.pos.us(), board, mask, &self.seen, self.promotion)
        };
        if let Some(made) = &self.made
            && !made.disturbed
            && self.shows.others.contains(&made.mv)
        {
            // Two moves fit the board equally, and one of them showed on it
            // before, its squares untouched since: the board went on from
            // there (the opponent touched a piece and let go), so that is the
            // move — positions in the order they stood.
            self.shows.chosen = Some(made.mv);
            self.shows.others.clear();
        }
        let shows = std::mem::take(&mut self.shows);
        self.shows = self.moved_on_in_order(shows);
        let back = self.shows.chosen.filter(|mv| before != Some(*mv));
        if self.at_position && self.shows.chosen.is_none() {
            self.made = None;
        } else if let Some(mv) = back
            && let Some(made) = &mut self.made
            && made.mv == mv
            && (made.reply.seen.lifted() & made.reply.pos.us()).is_empty()
        {
            // The board left the move and came back to it, with none of the
            // opponent's own pieces taken up meanwhile: the hands were still
            // the mover's, finishing the move (a capture's piece set down
            // after the move already showed) or adjusting it. The move is
            // judged on all of that, and the reply starts afresh.
            made.seen = self.seen.clone();
            made.others = self.shows.others.clone();
            made.disturbed = false;
            let after = made.reply.pos.clone();
            made.reply = Watch::at_depth(after, t, board, self.depth + 1);
        } else if let Some(mv) = self.shows.chosen
            && self.made.as_ref().is_none_or(|m| m.mv != mv)
            && self.depth + 1 < DEPTH
        {
            let mut after = self.pos.clone();
            after.play_unchecked(mv);
            self.made = Some(Box::new(Made {
                mv,
                others: self.shows.others.clone(),
                stood: false,
                disturbed: false,
                left: None,
                seen: self.seen.clone(),
                reply: Watch::at_depth(after, t, board, self.depth + 1),
            }));
        }
        if let Some(made) = &mut self.made {
            made.reply.refresh(t, board, mask);
        }
    }

    /// A piece that showed a move and then left that square again (4.7, or
    /// a slow slide) lands on its next square after it left the first: a
    /// move of the same piece whose square was last set down on before then
    /// is no move of it (that was the opponent touching a piece and letting
    /// go).
    fn moved_on_in_order(&self, shows: Decision) -> Decision {
        let Some(made) = &self.made else { return shows };
        let from = made.mv.from();
        let possible = |mv: &Move| {
            *mv == made.mv
                || mv.from() != from
                || made.left.is_none_or(|left| self.seen.placed_at(recognise::destination(*mv)) > left)
        };
        let mut fit = shows.chosen.into_iter().chain(shows.others).filter(possible);
        Decision { chosen: fit.next(), others: fit.collect() }
    }

    /// What the board shows, from this ply on.
    pub fn shown(&self) -> Shown {
        // A move first: in Chess960 a king and rook that trade squares leave
        // the occupancy as it was.
        if let Some(mv) = self.shows.chosen {
            return Shown::Moves(vec![mv]);
        }
        if self.at_position {
            return Shown::Position;
        }
        match &self.made {
            Some(made) => match made.reply.shown() {
                Shown::Moves(mut rest) => {
                    rest.insert(0, made.mv);
                    Shown::Moves(rest)
                }
                Shown::Position => Shown::Moves(vec![made.mv]),
                Shown::Hands => Shown::Hands,
            },
            None => Shown::Hands,
        }
    }

    /// The moves standing on the board, from this ply on, in order: what it
    /// shows, or — while hands are at work — the moves it showed last that
    /// were not taken back (a piece taken up again from where a move put it
    /// is in the air, not back where it came from).
    pub fn standing(&self) -> Vec<Move> {
        if let Some(mv) = self.shows.chosen {
            return vec![mv];
        }
        match &self.made {
            Some(made) if !self.at_position => {
                let mut moves = vec![made.mv];
                moves.extend(made.reply.standing());
                moves
            }
            _ => Vec::new(),
        }
    }

    /// The promotion selector was set: it is for the last ply the board
    /// shows begun — the opponent's reply once they have taken hold of one
    /// of their pieces, else this one.
    pub fn select_promotion(&mut self, role: Role) {
        match &mut self.made {
            Some(made) if (made.reply.seen.lifted() & made.reply.pos.us()).any() => {
                made.reply.select_promotion(role);
            }
            _ => self.promotion = role,
        }
    }

    /// The ply `ahead` plies on (0: this one), while the board shows it begun.
    pub fn level(&self, ahead: usize) -> Option<&Watch> {
        match ahead {
            0 => Some(self),
            n => self.made.as_ref()?.reply.level(n - 1),
        }
    }

    pub fn level_mut(&mut self, ahead: usize) -> Option<&mut Watch> {
        match ahead {
            0 => Some(self),
            n => self.made.as_mut()?.reply.level_mut(n - 1),
        }
    }

    /// The last ply the board has begun.
    pub fn deepest(&self) -> &Watch {
        match &self.made {
            Some(made) => made.reply.deepest(),
            None => self,
        }
    }

    /// The board has held still on what it shows: each move shown has stood.
    pub fn held_still(&mut self) {
        if let Some(made) = &mut self.made
            && (self.shows.chosen == Some(made.mv) || self.shows.chosen.is_none())
        {
            made.stood = true;
            made.reply.held_still();
        }
    }

    /// A move showed on the board and still stands where it landed, and the
    /// opponent has taken hold of one of their own pieces: their hands are
    /// at work on the reply. With `stood`, only if the move held still first
    /// (the settle time), which the sensors cannot mistake for a slide.
    pub fn reply_in_hand(&self, board: Bitboard, stood: bool) -> bool {
        self.made.as_ref().is_some_and(|m| {
            let landed =
                Bitboard::from(recognise::destination(m.mv)) | Bitboard::from(recognise::rook_destination(m.mv));
            (m.stood || !stood) && landed.is_subset(board) && (m.reply.seen.lifted() & m.reply.pos.us()).any()
        })
    }

    /// A move showed on the board, and what changed since is the
    /// opponent's reply under way: every square that differs from the
    /// position the move made is a square of one legal reply.
    pub fn reply_under_way(&self, board: Bitboard, mask: Bitboard) -> bool {
        self.made.as_ref().is_some_and(|m| m.reply.in_progress(board, mask))
    }

    /// A legal move of this ply is under way: the board differs from the
    /// position only on that move's squares.
    fn in_progress(&self, board: Bitboard, mask: Bitboard) -> bool {
        let differ = (board ^ self.pos.board().occupied()) & !mask;
        self.options().iter().any(|o| differ.is_subset(recognise::squares(o.mv)))
    }

    /// A piece is still in the hand: the board differs from the position
    /// only on the squares of a legal move that it does not yet show.
    pub fn in_flight(&self, board: Bitboard, mask: Bitboard) -> bool {
        self.shows.chosen.is_none() && !self.at_position && self.in_progress(board, mask)
    }

    /// A move has shown on the board in this ply.
    pub fn has_made(&self) -> bool {
        self.made.is_some()
    }

    /// The move the board shows at this ply, ready to complete, judged by
    /// everything seen in the ply. What it takes, the completion owns: the
    /// watch is replaced once the move completes.
    pub fn take_shown(&mut self) -> Option<Completion> {
        let mv = self.shows.chosen?;
        let board = self.options().iter().find(|o| o.mv == mv).map_or(Bitboard::EMPTY, |o| o.after);
        let reply = self.made.take().filter(|m| m.mv == mv).map(|m| m.reply);
        let others = std::mem::take(&mut self.shows.others);
        Some(Completion { mv, others, seen: std::mem::take(&mut self.seen), board, reply })
    }

    /// The move that stood on the board before the reply began, judged by
    /// what was seen until it stood.
    pub fn take_made(&mut self) -> Option<Completion> {
        let made = self.made.take()?;
        let board = self.options().iter().find(|o| o.mv == made.mv).map_or(Bitboard::EMPTY, |o| o.after);
        Some(Completion { mv: made.mv, others: made.others, seen: made.seen, board, reply: Some(made.reply) })
    }

    /// This reply becomes the ply being made: the opponent's move is
    /// complete from `t`, so touches of the opponent's pieces bind from now.
    pub fn adopt(mut self, t: Ms) -> Watch {
        self.shift(t);
        self
    }

    fn shift(&mut self, t: Ms) {
        self.depth = self.depth.saturating_sub(1);
        if self.opp_binds_from == Ms::MAX {
            self.opp_binds_from = t;
        }
        if let Some(made) = &mut self.made {
            made.reply.shift(t);
        }
    }

    /// The first own piece lifted (or the opponent's, since they bind), not
    /// counting squares in `mask` (a stuck sensor was never touched).
    pub fn first_touched(&self, seen: &Observed, own: bool, mask: Bitboard) -> Option<Square> {
        if own {
            seen.first_of(self.pos.us() & !mask)
        } else {
            seen.first_of_since(self.pos.them() & !mask, self.opp_binds_from)
        }
    }
}
