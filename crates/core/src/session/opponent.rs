//! The engine's ply (an engine hosted by the daemon plays one side): its
//! choice arrives as `Input::Opponent` (online, the player's own move made
//! on the website comes as `Input::WebsiteMove`, carried out the same way);
//! the engine's clock stops there; the
//! player carries the move out on the board, guided step by step, and the
//! move completes the moment the board holds still on it — no press, and no
//! ruling against anyone for how the engine's pieces were handled. A
//! different legal move is refused with the fix, or taken as the player's
//! override when the policy says so. A partner board's illegal move that
//! stood there (A.5.2, no arbiter) is carried out the same way and stands
//! here too, for this board's player to claim.

use shakmaty::uci::UciMove;
use shakmaty::{Move, Position};

use super::watch::Shown;
use super::{Phase, Session};
use tactus_trace::{Eval, Input, Score};

use crate::event::{Attempt, EngineEval, EventKind, Fix, Ms, Slip};
use crate::guide::{Execution, Fault, Guidance, Step};
use crate::policy::Supervision;

/// Why what the board shows is told now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Telling {
    /// The board held still: a slip is told once; a piece of the player's
    /// own in the hand waits for the mismatch time, since a take-back may
    /// be under way.
    Settled,
    /// The board stayed so for the mismatch time.
    Waited,
    /// The player asked: told again.
    Asked,
}

/// The engine's move, chosen and being carried out on the board.
#[derive(Debug, Clone)]
pub(super) struct Carrying {
    mv: Move,
    exec: Execution,
    /// The move's steps as told at the choice.
    steps: Vec<Fix>,
    /// How the engine saw it, as shown (unsupervised games only).
    eval: Option<EngineEval>,
    /// The slip told last, so a board that stays wrong is told once.
    told: Option<Slip>,
    /// Whether the clocks ran when the engine chose (and the arbiter has not
    /// stopped them since): they run again when the move stands.
    pub(super) clock_ran: bool,
    /// An illegal move that stood on the partner's board (A.5.2), carried
    /// out here as it was made there: complete once the board shows it.
    forced: Option<Attempt>,
    /// The player's own move, made on the online server's website.
    website: bool,
}

impl Carrying {
    pub(super) fn exec(&self) -> &Execution {
        &self.exec
    }
}

/// Two boards, one game: the partner's time after its move of ply `ply`,
/// as the partner board's clock kept it (it keeps its player's clock). The
/// move completes here with that time, so that both boards write the same
/// time for every move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Reported {
    pub ply: u32,
    pub side: shakmaty::Color,
    pub ms: u64,
}

impl Session {
    /// Whether the engine is on move: presses count for nothing then.
    pub(super) fn engine_on_move(&self) -> bool {
        self.policy.engine == Some(self.game.turn())
    }

    /// The engine is on move and has not chosen yet: the daemon asks it.
    pub fn awaits_engine(&self) -> bool {
        self.engine_on_move() && matches!(self.phase, Phase::Open | Phase::Restoring)
    }

    pub(super) fn carrying(&self) -> bool {
        matches!(self.phase, Phase::Carrying(_))
    }

    /// The engine's (or the partner's) move is being carried out on the board.
    pub fn carrying_move(&self) -> bool {
        self.carrying()
    }

    /// The engine's choice for ply `ply`. A choice for another ply (taken
    /// back, or stale) or not legal here changes nothing; one that comes
    /// while the board is set back waits for it.
    pub(super) fn on_opponent(&mut self, t: Ms, ply: u32, uci: UciMove, eval: Option<Eval>) {
        if self.hold(ply, self.engine_on_move(), Input::Opponent { ply, uci, eval }) {
            return;
        }
        if !self.awaits_engine() || ply != self.game.ply() {
            return;
        }
        self.carry(t, uci, eval, false);
    }

    /// The player's own move of `ply`, made on the online server's website:
    /// carried out on the board as the opponent's is. One for another ply
    /// (the board's own move completed first) changes nothing.
    pub(super) fn on_website_move(&mut self, t: Ms, ply: u32, uci: UciMove) {
        let ours = !self.engine_on_move();
        if self.hold(ply, ours, Input::WebsiteMove { ply, uci }) {
            return;
        }
        if !ours || !matches!(self.phase, Phase::Open | Phase::Restoring) || ply != self.game.ply() {
            return;
        }
        self.carry(t, uci, None, true);
    }

    /// While the board is set back, a move for the ply to be made (by the
    /// side `on_move`) waits for it. Returns whether the phase took it.
    fn hold(&mut self, ply: u32, on_move: bool, input: Input) -> bool {
        let fits = on_move && ply == self.game.ply();
        let Phase::SettingBack { held, .. } = &mut self.phase else { return false };
        if fits {
            *held = Some(input);
        }
        true
    }

    /// The move `uci` of the side on move, to be carried out on the board:
    /// the clocks stop until it stands. One not legal here is carried out
    /// only as a partner's illegal move that stood on its board (A.5.2).
    fn carry(&mut self, t: Ms, uci: UciMove, eval: Option<Eval>, website: bool) {
        let (mv, exec, forced) = match uci.to_move(self.game.position()) {
            Ok(mv) => {
                let Ok(exec) = Execution::new(self.game.position(), mv) else { return };
                (mv, exec, None)
            }
            Err(_) => match self.stood_on_partner_board(uci) {
                Some((exec, attempt)) => (exec.mv(), exec, Some(attempt)),
                None => return,
            },
        };
        // The engine's time stops at its choice; the player's starts when
        // the move stands on the board. A press at the table handed the
        // clock over already: the player's time runs (`table`). Online, the
        // server's clock is the game's: its move handed the clock over as it
        // came, and the player carries it out on their own time.
        self.server_hands_over(t);
        let handed = self.handed_now();
        let clock_ran = !handed && self.clock.as_ref().is_some_and(|c| c.running().is_some());
        if !handed && let Some(clock) = &mut self.clock {
            clock.pause(t);
        }
        if let Some(role) = mv.promotion() {
            self.watch.select_promotion(role);
        }
        let steps = fixes(&exec.steps());
        let info = self.describe_carried(mv, forced);
        // An arbiter's game shows no engine's view of it.
        let eval = eval.filter(|_| self.policy.supervision == Supervision::Unsupervised).map(|e| self.eval(e));
        self.emit(
            t,
            EventKind::OpponentMove { mv: info, steps: steps.clone(), eval: eval.clone(), left: None, website },
        );
        // The partner's player made the move at their board, which declined
        // this board's player's offer there (9.1.2.3): said now, not once
        // the move is carried out here.
        if self.policy.partner && !website {
            let mover = self.game.turn();
            self.offer_after_move(t, mover);
        }
        let mut carrying = Carrying { mv, exec, steps: steps.clone(), eval, told: None, clock_ran, forced, website };
        // Hands may already be at work on the board.
        carrying.exec.observe(self.board());
        self.phase = Phase::Carrying(Box::new(carrying));
        self.check.due = None;
        self.reread(t);
        self.carry_on(t, Telling::Settled);
    }

    /// Online with the server's clock: the move that comes was made on the
    /// server now, which charges the player from now — the clock is handed
    /// over at once (a stopped clock stays stopped).
    fn server_hands_over(&mut self, t: Ms) {
        let mover = self.game.turn();
        if !self.policy.server_clock
            || self.handed_now()
            || self.clock.as_ref().and_then(|c| c.running()) != Some(mover)
        {
            return;
        }
        let ply = self.game.ply();
        let clock_ms = self.press_clock(t, mover);
        let opponent_ms = self.clock.as_ref().map(|c| c.remaining(!mover, t));
        self.handed = Some(super::table::Handed::by_server(ply, clock_ms, opponent_ms));
    }

    /// The move being carried out as it is said: one that stood on the
    /// partner's board as it was written there (`Ng1-g3`).
    fn describe_carried(&self, mv: shakmaty::Move, forced: Option<Attempt>) -> crate::event::MoveInfo {
        forced.and_then(|a| self.game.clone().force(a)).unwrap_or_else(|| self.game.describe(mv))
    }

    /// The move being carried out, while it is: what a question about the
    /// board (about `sq`, when it changes that square) is answered with,
    /// since the game's position is still the one before it.
    pub(super) fn pending_move(&self, sq: Option<shakmaty::Square>) -> Option<crate::event::MoveInfo> {
        let Phase::Carrying(c) = &self.phase else { return None };
        sq.is_none_or(|sq| c.exec.changes(sq)).then(|| self.describe_carried(c.mv, c.forced))
    }

    /// The partner's move that is not legal here: under A.5.2 (no arbiter)
    /// it stood on the partner's board, and is carried out here as made
    /// there — a piece from one square to another. Anything else (an
    /// arbiter's game, no piece of the mover's there, a position that
    /// cannot exist) is not a move at all.
    fn stood_on_partner_board(&self, uci: UciMove) -> Option<(Execution, Attempt)> {
        if !self.policy.partner || self.policy.supervision != Supervision::Unsupervised {
            return None;
        }
        let UciMove::Normal { from, to, promotion: None } = uci else { return None };
        let pos = self.game.position();
        let exec = Execution::forced(pos, from, to)?;
        let piece = pos.board().piece_at(from)?;
        Some((exec, Attempt { piece, from, to }))
    }

    /// A debounced square change while the move is carried out.
    pub(super) fn follow_carrying(&mut self, sq: shakmaty::Square, on: bool) {
        if let Phase::Carrying(c) = &mut self.phase {
            if on {
                c.exec.place(sq);
            } else {
                c.exec.lift(sq);
            }
        }
    }

    /// The board held still (or the choice just came, or the player asked,
    /// or it stayed wrong a while): completes the engine's move if the board
    /// shows it, else tells what is wrong — see [`Telling`].
    pub(super) fn carry_on(&mut self, t: Ms, telling: Telling) {
        let Phase::Carrying(c) = &self.phase else { return };
        let still = self.settle_at.is_none() && self.sensors.idle();
        let chosen = c.mv;
        let guidance = c.exec.guidance();
        // Part of the engine's move that reads as a move of its own (the
        // rook first in castling) is under way, not the player's override.
        let halfway = matches!(guidance, Guidance::Next(_));
        if let Some(a) = c.forced
            && still
            && matches!(guidance, Guidance::Done)
        {
            return self.complete_forced(t, a);
        }
        match self.watch.shown() {
            Shown::Moves(moves) if still && moves[0] == chosen => return self.complete_carried(t, moves.len()),
            Shown::Moves(moves) if still && self.policy.engine_override && !halfway => {
                return self.complete_carried(t, moves.len());
            }
            _ => {}
        }
        let other_shown = match self.watch.shown() {
            Shown::Moves(moves) if still && moves[0] != chosen => Some(moves[0]),
            _ => None,
        };
        // Part of the move done and the board left so a while (a capture's
        // victim still on the board, en passant's pawn, the promoting
        // pawn): the next step is told.
        let stuck = telling == Telling::Waited && c.exec.begun();
        let repair = c.exec.repair();
        let slip = match guidance {
            // The board shows another legal move although the hands' order
            // was not followed (a piece slid): still a different move.
            Guidance::Done => other_shown.map(|played| self.other_move(played)),
            Guidance::Next(_) if other_shown.is_some() || stuck => {
                fixes(&c.exec.steps()).first().map(|&next| Slip::Halfway { next })
            }
            Guidance::Next(_) => {
                if still && telling == Telling::Settled && c.exec.begun() {
                    self.check.due = Some(t + self.policy.mismatch_ms);
                }
                None
            }
            Guidance::Fix(fault) => Some(slip_of(fault, &repair)),
            Guidance::OtherMove { played } => Some(self.other_move(played)),
        };
        let engine = self.game.turn();
        let Phase::Carrying(c) = &mut self.phase else { return };
        let Some(slip) = slip else {
            c.told = None;
            return;
        };
        if !still || (telling != Telling::Asked && c.told.as_ref() == Some(&slip)) {
            return;
        }
        // Asked for, the move is said again with the steps left: the next
        // step of a move half done is among them.
        if telling == Telling::Asked && matches!(slip, Slip::Halfway { .. }) {
            return;
        }
        // A piece of the player's own in the hand may be a take-back under
        // way: told only if the board stays so.
        let own_lifted = matches!(slip, Slip::NotThatOne { piece, .. } if piece.color != engine);
        if own_lifted && telling == Telling::Settled {
            self.check.due = Some(t + self.policy.mismatch_ms);
            return;
        }
        c.told = Some(slip.clone());
        let ply = self.game.ply();
        self.emit(t, EventKind::OpponentFix { ply, slip, fix: repair });
    }

    fn other_move(&self, played: Move) -> Slip {
        let info = self.game.describe(played);
        Slip::OtherMove { san: info.san, uci: info.uci }
    }

    /// The board shows a move of the engine's side: the engine's clock runs
    /// again for the instant of the completion, which hands over to the
    /// player. `levels`: how many plies the board shows.
    fn complete_carried(&mut self, t: Ms, levels: usize) {
        let completion = if levels == 1 { self.watch.take_shown() } else { self.watch.take_made() };
        let Some(completion) = completion else { return };
        // Stopped by the arbiter meanwhile: they stay stopped (6.11).
        let ran = matches!(&self.phase, Phase::Carrying(c) if c.clock_ran);
        if ran && let Some(clock) = &mut self.clock {
            clock.resume(t);
        }
        self.complete(t, completion);
    }

    /// The board shows the illegal move that stood on the partner's board:
    /// it stands here too, and this board's player may claim it before
    /// completing their own move (A.5.2), as on the board where it was made.
    fn complete_forced(&mut self, t: Ms, a: Attempt) {
        let ran = matches!(&self.phase, Phase::Carrying(c) if c.clock_ran);
        if ran && let Some(clock) = &mut self.clock {
            clock.resume(t);
        }
        let offender = self.game.turn();
        let ply = self.game.ply();
        let Some((info, clock_ms, opponent_ms)) = self.stand(t, a) else { return };
        self.emit(t, EventKind::Complete { ply, side: offender, san: info.san, uci: info.uci, clock_ms, opponent_ms });
        self.keep_clock(t);
        self.offer_after_move(t, offender);
        self.new_ply(t);
    }

    /// The engine's suggestion for the player on move, as asked for; one
    /// for another ply (the player moved meanwhile) or not legal is dropped.
    pub(super) fn on_hint(&mut self, t: Ms, ply: u32, uci: UciMove) {
        if ply != self.game.ply() || self.engine_on_move() {
            return;
        }
        let Ok(mv) = uci.to_move(self.game.position()) else { return };
        let mv = self.game.describe(mv);
        self.emit(t, EventKind::Hint { mv });
    }

    /// The engine's move said again, with the steps still to do when some
    /// are done, and what is wrong on the board now.
    pub(super) fn repeat_opponent_move(&mut self, t: Ms) {
        let Phase::Carrying(c) = &self.phase else { return };
        let (info, steps, eval, website) =
            (self.describe_carried(c.mv, c.forced), c.steps.clone(), c.eval.clone(), c.website);
        let left = Some(fixes(&c.exec.steps())).filter(|left| *left != steps);
        self.emit(t, EventKind::OpponentMove { mv: info, steps, eval, left, website });
        self.carry_on(t, Telling::Asked);
    }
}

impl Session {
    /// The engine's view as shown: its line in SAN, as far as it is legal.
    fn eval(&self, eval: Eval) -> EngineEval {
        let mut pos = self.game.position().clone();
        let mut line = Vec::new();
        for uci in eval.line() {
            let Ok(mv) = uci.to_move(&pos) else { break };
            line.push(shakmaty::san::SanPlus::from_move_and_play_unchecked(&mut pos, mv).to_string());
        }
        let (cp, mate) = match eval.score {
            Score::Cp(cp) => (Some(cp), None),
            Score::Mate(n) => (None, Some(n)),
        };
        EngineEval { cp, mate, line }
    }
}

/// A fault as told; "not that one" names the step of the move whose piece
/// the guide expected instead, from where that piece is now (`repair`).
fn slip_of(fault: Fault, repair: &[Fix]) -> Slip {
    match fault {
        Fault::NotThatOne { sq, piece, instead } => {
            let instead = instead.map(|step| {
                let found = match step {
                    Step::TakeOff { sq, .. } | Step::Lift { sq, .. } => repair.iter().find(|f| f.from == Some(sq)),
                    Step::Place { sq, .. } | Step::Promote { sq, .. } => {
                        repair.iter().find(|f| f.from.is_none() && f.to == Some(sq))
                    }
                };
                found.copied().unwrap_or_else(|| fixes(&[step])[0])
            });
            Slip::NotThatOne { sq, piece, instead }
        }
        Fault::Misplaced { sq, piece, belongs } => Slip::Misplaced { sq, piece, belongs },
        Fault::Missing { sq, piece } => Slip::Missing { sq, piece },
    }
}

/// The guide's steps as moves of pieces: a lift and the placement of the
/// same piece are one step; a lift not followed by a placement takes the
/// piece off (the promoting pawn).
fn fixes(steps: &[Step]) -> Vec<Fix> {
    let mut out = Vec::new();
    let mut lifted: Option<Fix> = None;
    for step in steps {
        match *step {
            Step::Lift { sq, piece } => {
                out.extend(lifted.take());
                lifted = Some(Fix { piece: Some(piece), from: Some(sq), to: None });
            }
            Step::Place { sq, piece } => match lifted.take() {
                Some(l) if l.piece == Some(piece) => out.push(Fix { to: Some(sq), ..l }),
                other => {
                    out.extend(other);
                    out.push(Fix { piece: Some(piece), from: None, to: Some(sq) });
                }
            },
            Step::TakeOff { sq, piece } => {
                out.extend(lifted.take());
                out.push(Fix { piece: Some(piece), from: Some(sq), to: None });
            }
            Step::Promote { sq, piece } => {
                out.extend(lifted.take());
                out.push(Fix { piece: Some(piece), from: None, to: Some(sq) });
            }
        }
    }
    out.extend(lifted);
    out
}
