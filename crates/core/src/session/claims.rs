//! Claims and results: a claim of an illegal move that stood (A.5.2), draw
//! claims (9.2, 9.3) and an incorrect one (9.5.3), draw offers (9.1.2),
//! results off the board (5.1.2, 5.2.3, 12), and a player's requests for the times, the position
//! and the last move (D.2.6).

use shakmaty::{Color, Piece, Position, Square};
use tactus_trace::{Claim, GameResult, OffBoardReason, Request};

use super::watch::Shown;
use super::{Phase, Session};
use crate::event::{Article, EndReason, EventKind, Ms, NotNow, OnBoard};
use crate::game::{Ending, Game};
use crate::guide::Found;

/// A standing illegal move under A.5.2 that the opponent may still claim.
#[derive(Debug, Clone)]
pub(super) struct Claimable {
    pub before: Game,
    pub offender: Color,
}

impl Session {
    pub(super) fn on_claim(&mut self, t: Ms, side: Color, claim: Claim) {
        match claim {
            Claim::Illegal => {
                // A.5.2: only before the claimant completes their own move.
                let Some(c) = self.claimable.take().filter(|c| c.offender != side) else {
                    self.emit(t, EventKind::NotNow { why: NotNow::NothingToClaim });
                    return;
                };
                self.game = c.before;
                let offender = c.offender;
                if self.count_illegal(t, offender) {
                    return;
                }
                // The offender moves again, on their own time (7.1).
                if let Some(clock) = &mut self.clock {
                    clock.hand_over(t, offender);
                }
                self.new_ply(t);
            }
            Claim::Threefold | Claim::Fifty => {
                let valid = side == self.game.turn()
                    && match claim {
                        Claim::Threefold => self.game.repetitions() >= 3,
                        _ => self.game.position().halfmoves() >= 100,
                    };
                if valid {
                    let (reason, article) = match claim {
                        Claim::Threefold => (EndReason::ThreefoldRepetition, Article::A9_2),
                        _ => (EndReason::FiftyMoves, Article::A9_3),
                    };
                    self.end(t, Ending { result: GameResult::Draw, reason, article });
                } else {
                    // 9.5.3: an incorrect claim costs what an illegal move does (A.3).
                    self.penalise(t, Article::A9_5_3, !side);
                }
            }
        }
    }

    /// 9.1.2: `side` offers a draw — or accepts the opponent's offer that
    /// stands, which ends the game by agreement (5.2.3).
    pub(super) fn on_draw_offer(&mut self, t: Ms, side: Color) {
        if self.draw_offer == Some(!side) {
            self.draw_offer = None;
            self.on_result(t, GameResult::Draw, OffBoardReason::Agreement);
            return;
        }
        self.draw_offer = Some(side);
        // 9.1.2.1: after the offerer's move, before their press; the
        // engine's offer comes with its move.
        let timely = side == self.game.turn() && matches!(self.watch.shown(), Shown::Moves(_));
        let irregular = self.policy.engine != Some(side) && !timely;
        self.emit(t, EventKind::DrawOffer { side, irregular });
    }

    /// 9.1.2.3: a move of the side an offer was made to declines it; the
    /// offerer's own move (the offer comes with the move) does not.
    pub(super) fn offer_after_move(&mut self, t: Ms, mover: Color) {
        if self.draw_offer == Some(!mover) {
            self.draw_offer = None;
            self.emit(t, EventKind::DrawDeclined { side: mover });
        }
    }

    /// The player declines the opponent's offer that stands (online:
    /// `draw_no`), as their move would.
    pub(super) fn decline_offer(&mut self, t: Ms) {
        let Some(offerer) = self.draw_offer.filter(|&side| self.policy.engine == Some(side)) else { return };
        self.draw_offer = None;
        self.emit(t, EventKind::DrawDeclined { side: !offerer });
    }

    pub(super) fn on_result(&mut self, t: Ms, result: GameResult, reason: OffBoardReason) {
        let (reason, article) = match reason {
            OffBoardReason::Resignation => (EndReason::Resignation, Article::A5_1_2),
            OffBoardReason::Agreement => (EndReason::Agreement, Article::A5_2_3),
            OffBoardReason::Arbiter => (EndReason::Arbiter, Article::A12),
        };
        self.end(t, Ending { result, reason, article });
    }

    /// A player's question (D.2.6): the times, the position, the last move,
    /// pieces, a rank, a file, a square, the moves to the time control —
    /// each answered, if only with why there is nothing to say. A hint is
    /// the engine's to give, through `Input::Hint`.
    pub(super) fn on_request(&mut self, t: Ms, what: Request) {
        let not_now = match what {
            Request::Hint => self.no_hint(),
            Request::LastMove if self.game.played.is_empty() => Some(NotNow::NoMoveYet),
            _ => None,
        };
        if let Some(why) = not_now {
            return self.emit(t, EventKind::NotNow { why });
        }
        let times = self.times(t).unwrap_or_default();
        let (white_moves, black_moves, running) = match &self.clock {
            Some(c) => (c.moves(Color::White), c.moves(Color::Black), c.running()),
            None => {
                let n = self.game.played.len() as u32;
                let white_first = self.game.start().turn() == Color::White;
                let (a, b) = (n.div_ceil(2), n / 2);
                if white_first { (a, b, None) } else { (b, a, None) }
            }
        };
        let clocks = crate::query::Clocks {
            white_ms: times.white,
            black_ms: times.black,
            white_moves,
            black_moves,
            running,
            control: self.time_control.as_ref(),
        };
        let last = self.game.played.last().map(|p| &p.info);
        if let Some(mut kind) = crate::query::answer(self.game.position(), last, &clocks, what) {
            match &mut kind {
                EventKind::OnSquare { sq, board, pending, .. } => {
                    *board = self.board_differs().into_iter().find(|(at, _)| at == sq).map(|(_, shows)| shows);
                    *pending = self.pending_move(Some(*sq));
                }
                EventKind::Position { pending, .. } => *pending = self.pending_move(None),
                EventKind::Pieces { side, role: Some(role), pieces, board } => {
                    *board = self.kind_on_board(role.of(*side), pieces);
                }
                _ => {}
            }
            self.emit(t, kind);
        }
    }

    /// Where the board shows `piece`, when that differs from where the
    /// game has the pieces of its kind (`pieces`).
    fn kind_on_board(&self, piece: Piece, pieces: &[crate::event::Placed]) -> Option<Vec<Square>> {
        let differs = self.board_differs();
        let concerned =
            |(sq, shows): &(Square, OnBoard)| *shows == OnBoard::Piece(piece) || pieces.iter().any(|p| p.sq == *sq);
        if !differs.iter().any(concerned) {
            return None;
        }
        let mut on_board: Vec<Square> = pieces
            .iter()
            .map(|p| p.sq)
            .filter(|sq| !differs.iter().any(|(at, _)| at == sq))
            .chain(differs.iter().filter(|(_, shows)| *shows == OnBoard::Piece(piece)).map(|(sq, _)| *sq))
            .collect();
        on_board.sort();
        Some(on_board)
    }

    /// Why the engine cannot give a hint now, if it cannot.
    fn no_hint(&self) -> Option<NotNow> {
        if self.finished() {
            Some(NotNow::GameOver)
        } else if self.policy.engine.is_none() || self.policy.partner || self.policy.online {
            // A player far away gives no hints.
            Some(NotNow::NoEngine)
        } else if self.carrying() {
            Some(NotNow::CarryOutFirst)
        } else if self.engine_on_move() {
            Some(NotNow::EngineThinking)
        } else {
            None
        }
    }

    /// The squares where the board differs from the game, and what it shows
    /// there: the guide's account while the engine's move is carried out;
    /// else the position after the moves the board shows, while a ply is
    /// being made; else the squares it reads otherwise, a piece where the
    /// fix for the board says which.
    fn board_differs(&self) -> Vec<(Square, OnBoard)> {
        let of = |piece: Option<Piece>| piece.map_or(OnBoard::Empty, OnBoard::Piece);
        let game = self.game.position().board();
        let shown: Box<dyn Fn(Square) -> OnBoard + '_> = if let Phase::Carrying(c) = &self.phase {
            Box::new(|sq| match c.exec().found(sq) {
                Found::Empty => OnBoard::Empty,
                Found::Piece(p) => OnBoard::Piece(p),
                Found::Unknown => OnBoard::Unknown,
            })
        } else if let (Phase::Open | Phase::Pressed(_), Shown::Moves(moves)) = (&self.phase, self.watch.shown()) {
            let mut pos = self.game.position().clone();
            for mv in moves {
                pos.play_unchecked(mv);
            }
            Box::new(move |sq| of(pos.board().piece_at(sq)))
        } else {
            let board = self.board();
            let (_, _, fix) = crate::recognise::board_fix(game, board);
            Box::new(move |sq| match (board.contains(sq), game.piece_at(sq)) {
                (false, _) => OnBoard::Empty,
                (true, Some(p)) => OnBoard::Piece(p),
                (true, None) => fix
                    .iter()
                    .find(|f| f.from == Some(sq))
                    .and_then(|f| f.piece)
                    .map_or(OnBoard::Unknown, OnBoard::Piece),
            })
        };
        Square::ALL
            .into_iter()
            .filter_map(|sq| {
                let shows = shown(sq);
                (shows != of(game.piece_at(sq))).then_some((sq, shows))
            })
            .collect()
    }
}
