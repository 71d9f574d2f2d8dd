//! Who can still checkmate (5.2.2, 6.9, 7.5.5), answered by tactus-mate.
//!
//! - After every move, a position whose pawns can no longer move gets the
//!   quick sound check: a dead position (neither side can mate) ends the
//!   game at once (5.2.2). Bare material is caught before that, by the
//!   game itself.
//! - A flag fall (6.9) and a second illegal move (7.5.5) lose only if the
//!   opponent can checkmate by some series of legal moves; else draw.
//!
//! What the quick check leaves open goes to the full search, which can take
//! seconds on a Raspberry Pi. The live daemon runs it off the game loop and
//! hands the answer back as a journaled `verdict` input
//! ([`MateSearch::Asked`]); meanwhile a game that was only asked about goes
//! on, and a game stopped by a flag or a second illegal move waits
//! (`Phase::Judging`). Replaying a trace that holds no answers, the core
//! searches inline with the same step budget: the verdict depends on the
//! position and the budget only, so it is the live game's.

use shakmaty::{ByColor, Chess, Color, Position};
use tactus_mate::{Budget, Deadness, Verdict};
use tactus_trace::{GameResult, MateVerdict, Ms};

use super::{Phase, Session};
use crate::event::{Article, EndReason};
use crate::game::Ending;
use crate::pgn::{Note, Settled};
use crate::policy::MateSearch;

/// What the game waits to know.
#[derive(Debug, Clone)]
pub(super) struct Question {
    /// The plies played when it was asked: answers name it, so an answer
    /// to an older question is told apart.
    ply: u32,
    pos: Chess,
    about: About,
}

#[derive(Debug, Clone, Copy)]
enum About {
    /// 5.2.2: is the position dead? White is asked first, then Black.
    Dead { white: Option<MateVerdict> },
    /// 6.9 or 7.5.5 against `loser`: can the opponent mate? The game has
    /// stopped.
    Result { loser: Color, reason: EndReason, article: Article },
}

/// What only a capture or a pawn move changes: the pawns where they stand
/// and the pieces each side has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Structure {
    pawns: ByColor<u64>,
    pieces: ByColor<[u8; 5]>,
}

impl Structure {
    fn of(pos: &Chess) -> Structure {
        let board = pos.board();
        let pawns = ByColor::new_with(|side| (board.pawns() & board.by_color(side)).0);
        let pieces = ByColor::new_with(|side| {
            let ours = board.by_color(side);
            [board.knights(), board.bishops(), board.rooks(), board.queens(), board.kings()]
                .map(|set| (set & ours).count() as u8)
        });
        Structure { pawns, pieces }
    }
}

/// A search the driver runs and answers with `Input::Verdict`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MateQuestion {
    pub ply: u32,
    /// The side whose mating chances are asked about.
    pub side: Color,
    pub position: Chess,
}

/// The full search's budget: deterministic, about half a second on the
/// development machine and a few seconds on a Raspberry Pi 4.
pub const SEARCH_BUDGET: Budget = Budget::DEFAULT;

/// The full search, as the driver runs it: its verdict for the trace.
pub fn search(question: &MateQuestion) -> MateVerdict {
    to_trace(tactus_mate::can_mate(&question.position, question.side, SEARCH_BUDGET).verdict)
}

fn to_trace(verdict: Verdict) -> MateVerdict {
    match verdict {
        Verdict::CanMate { .. } => MateVerdict::CanMate,
        Verdict::CannotMate => MateVerdict::CannotMate,
        Verdict::Undetermined => MateVerdict::Undetermined,
    }
}

impl Session {
    /// The search the game waits for, if any: the driver runs
    /// [`search`] on it (off its loop) and answers with `Input::Verdict`.
    pub fn mate_question(&self) -> Option<MateQuestion> {
        let q = self.question.as_ref()?;
        let side = match q.about {
            About::Dead { white: None } => Color::White,
            About::Dead { white: Some(_) } => Color::Black,
            About::Result { loser, .. } => !loser,
        };
        Some(MateQuestion { ply: q.ply, side, position: q.pos.clone() })
    }

    /// A game whose starting position is already dead ends at once (5.2.2).
    pub(super) fn check_start(&mut self) {
        if self.game.position().is_insufficient_material() {
            let ending =
                Ending { result: GameResult::Draw, reason: EndReason::InsufficientMaterial, article: Article::A5_2_2 };
            self.end(0, ending);
        } else {
            self.check_dead(0);
        }
    }

    /// After a move that did not end the game: is the position dead (5.2.2)?
    pub(super) fn check_dead(&mut self, t: Ms) {
        let pos = self.game.position();
        // Bare material is the game's own test. Beyond it, a position is
        // dead through a pawn structure that can no longer change, or
        // through forced moves that lead to bare material (found by the
        // material test once they are played). So the quick check (up to a
        // few hundred µs) runs only while pawns stand and none can move; a
        // dead position whose pawns can still move is found once they are
        // fixed.
        if pos.board().pawns().is_empty() || tactus_mate::pawns_can_move(pos) {
            return;
        }
        // A mate shown possible stays possible while only pieces move: each
        // such move can be undone, so the same mating line is still there.
        let structure = Structure::of(pos);
        let asked = self
            .question
            .as_ref()
            .is_some_and(|q| matches!(q.about, About::Dead { .. }) && Structure::of(&q.pos) == structure);
        // Nor is the question asked again while the search for one position
        // of this structure is still running.
        if self.alive == Some(structure) || asked {
            return;
        }
        match tactus_mate::quick_dead_position(pos) {
            Deadness::Dead => self.end_dead(t),
            Deadness::NotDead => {
                self.question = None;
                self.alive = Some(structure);
            }
            Deadness::Undetermined => self.ask(t, About::Dead { white: None }),
        }
    }

    /// 6.9 or 7.5.5 against `loser`: the opponent wins if they can mate,
    /// else the game is drawn. The quick check settles most positions; the
    /// rest wait for the full search.
    pub(super) fn judge(&mut self, t: Ms, loser: Color, reason: EndReason, article: Article) {
        let opponent = !loser;
        let pos = self.game.position();
        let verdict = if pos.has_insufficient_material(opponent) {
            MateVerdict::CannotMate
        } else {
            to_trace(tactus_mate::quick_check(pos, opponent))
        };
        match verdict {
            MateVerdict::Undetermined => {
                self.phase = Phase::Judging;
                self.settle_at = None;
                if let Some(clock) = &mut self.clock {
                    clock.pause(t);
                }
                self.ask(t, About::Result { loser, reason, article });
            }
            known => self.rule_result(t, loser, reason, article, known),
        }
    }

    fn ask(&mut self, t: Ms, about: About) {
        self.question = Some(Question { ply: self.game.ply(), pos: self.game.position().clone(), about });
        if self.policy.mate_search == MateSearch::Inline {
            self.answer_inline(t);
        }
    }

    /// Runs the searches the game waits for, here and now.
    fn answer_inline(&mut self, t: Ms) {
        while let Some(q) = self.mate_question() {
            self.on_verdict(t, q.ply, q.side, search(&q));
        }
    }

    /// The full search's answer. One to a question already settled or
    /// replaced is ignored.
    pub(super) fn on_verdict(&mut self, t: Ms, ply: u32, side: Color, verdict: MateVerdict) {
        let Some(asked) = self.mate_question() else { return };
        if asked.ply != ply || asked.side != side {
            return;
        }
        let Some(q) = self.question.take() else { return };
        match q.about {
            About::Dead { .. } if verdict == MateVerdict::CanMate => self.alive = Some(Structure::of(&q.pos)),
            About::Dead { white: None } => {
                self.question = Some(Question { about: About::Dead { white: Some(verdict) }, ..q });
            }
            // Dead stays dead: whatever was played since, the game ended
            // when the position arose.
            About::Dead { white: Some(white) } => {
                if white == MateVerdict::CannotMate && verdict == MateVerdict::CannotMate {
                    self.end_dead(t);
                }
            }
            About::Result { loser, reason, article } => self.rule_result(t, loser, reason, article, verdict),
        }
    }

    /// The result of 6.9 or 7.5.5 by the opponent's verdict. Undetermined,
    /// the loss stands (the Laws draw only when the opponent *cannot* mate),
    /// and the arbiter is told the search did not settle it.
    fn rule_result(&mut self, t: Ms, loser: Color, reason: EndReason, article: Article, verdict: MateVerdict) {
        let opponent = !loser;
        let result = match verdict {
            MateVerdict::CannotMate => GameResult::Draw,
            MateVerdict::CanMate | MateVerdict::Undetermined => GameResult::win_for(opponent),
        };
        let undetermined = verdict == MateVerdict::Undetermined;
        self.note_last(Settled::Lost { article, loser, opponent: verdict });
        self.end_with(t, Ending { result, reason, article }, undetermined);
    }

    fn end_dead(&mut self, t: Ms) {
        self.note_last(Settled::Dead);
        self.end(t, Ending { result: GameResult::Draw, reason: EndReason::DeadPosition, article: Article::A5_2_2 });
    }

    /// A note after the last move played (before any, if none was).
    fn note_last(&mut self, settled: Settled) {
        let ply = self.game.played.last().map_or(self.game.ply(), |p| p.info.ply);
        self.game.note(ply, Note::Settled(settled));
    }
}
