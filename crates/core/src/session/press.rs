//! The press (Article 6.2.1): it completes the move the board shows. At
//! blitz speed the press can come a few ms before the piece lands (two
//! hands, or the clock's and the sensors' clocks a little apart): it then
//! waits a short grace for the move to land, the mover's clock stopped at the
//! press. And the opponent may already have replied (1.3, 6.2.2): the press
//! completes the mover's move, and the reply goes on as the opponent's ply.
//! Without a clock to press (a DGT board with no DGT clock on it), the move
//! made (4.7) is complete once the board holds still on it.

use shakmaty::{Color, Position};
use tactus_clock::Clock;

use super::watch::{Completion, Shown};
use super::{CompletedBy, Phase, Session};
use crate::event::{Article, ClaimKind, EventKind, Ms, NotNow};

/// A press waiting for the piece still in the hand.
#[derive(Debug, Clone)]
pub(super) struct Pressed {
    pub side: Color,
    at: Ms,
    /// The grace runs out here.
    pub until: Ms,
    /// The clocks as the press left them: the mover's time after it, the
    /// opponent's at it.
    pub clock_ms: Option<i64>,
    pub opponent_ms: Option<i64>,
    /// The clock before the press, for an act the press did not complete
    /// (the clock does not switch on an illegal move, 7.5.1).
    before: Option<Clock>,
}

/// How many graces a press waits at most while hands keep moving.
const GRACE_LIMIT: Ms = 8;

/// What a press completes, as far as the board tells now.
enum Verdict {
    /// The move the board shows now.
    Shown,
    /// The move that stood before the opponent's reply began.
    Made,
    /// A piece is still in the hand: wait for it to land.
    Wait,
    /// No legal move: the press is ruled on (7.5.1, 7.5.3, 7.4.1, a stuck sensor).
    Rule,
}

impl Session {
    pub(super) fn on_press(&mut self, t: Ms, side: Color) {
        if matches!(self.phase, Phase::SettingBack { .. }) {
            // Nothing on the board is a move yet: what to set back, again.
            return self.tell_setting_back(t);
        }
        if self.engine_on_move() || self.carrying() {
            // One clock at the table: the partner's player pressed before
            // their move came.
            if self.engine_on_move() && self.hand_over(t, side) {
                return;
            }
            // The engine's move completes when the board shows it. A game
            // not yet started (or paused) is started as usual, by the player
            // not on move — not by a press while its move is carried out.
            let paused = self.clock.as_ref().is_some_and(|c| c.running().is_none());
            if paused && side != self.game.turn() && !self.carrying() {
                self.on_clock_input(t, tactus_trace::Input::Resume);
                return;
            }
            // Any other press is answered: what the game waits for.
            let why = match &self.phase {
                Phase::Carrying(c) if !c.exec().is_done() => Some(NotNow::CarryOutFirst),
                Phase::Carrying(_) => None,
                _ => Some(NotNow::EngineThinking),
            };
            if let Some(why) = why {
                self.emit(t, EventKind::NotNow { why });
            }
            return;
        }
        if let Phase::Pressed(p) = &self.phase {
            if p.side == side {
                return; // a clock already stopped, pressed again
            }
            // The opponent's press: the waiting one is settled first.
            self.resolve_press(t, true);
        }
        if self.finished() {
            return;
        }
        let paused = self.clock.as_ref().is_some_and(|c| c.running().is_none());
        if side != self.game.turn() {
            // A stopped clock is started the usual way: the player not to
            // move presses, starting the opponent's time (a game resumed after
            // a pause or a power cut). Otherwise that clock is already stopped
            // and pressing it again changes nothing.
            if paused {
                self.on_clock_input(t, tactus_trace::Input::Resume);
            }
            return;
        }
        if paused {
            return; // stopped by the arbiter (6.11)
        }
        match self.verdict(false) {
            Verdict::Wait => {
                let before = self.clock.clone();
                let clock_ms = self.press_clock(t, side);
                let opponent_ms = self.clock.as_ref().map(|c| c.remaining(!side, t));
                let until = t + self.policy.press_grace_ms;
                self.phase = Phase::Pressed(Pressed { side, at: t, until, clock_ms, opponent_ms, before });
            }
            verdict => self.act(t, verdict),
        }
    }

    /// What the press completes. `force`: the grace is over (or something
    /// else needs the press settled now), so take what the board shows.
    fn verdict(&self, force: bool) -> Verdict {
        let still = self.settle_at.is_none() && self.sensors.idle();
        match self.watch.shown() {
            Shown::Moves(moves) if still || force => {
                if moves.len() == 1 {
                    Verdict::Shown
                } else {
                    Verdict::Made
                }
            }
            // The opponent took hold of their piece after the move stood.
            _ if self.watch.reply_in_hand(self.board(), true) => Verdict::Made,
            // The grace is over: a move showed, and what came after it is the
            // opponent's reply under way.
            _ if force
                && (self.watch.reply_in_hand(self.board(), false)
                    || self.watch.reply_under_way(self.board(), self.sensors.faulty)) =>
            {
                Verdict::Made
            }
            _ if force => Verdict::Rule,
            Shown::Position if still => Verdict::Rule,
            // Hands still at work: the piece in flight, or a move shown and
            // something under way after it; the grace tells which.
            _ if !still || self.watch.has_made() || self.watch.in_flight(self.board(), self.sensors.faulty) => {
                Verdict::Wait
            }
            _ => Verdict::Rule,
        }
    }

    /// Acts on a verdict: completes the move, rules, or waits.
    fn act(&mut self, t: Ms, verdict: Verdict) {
        let completion = match verdict {
            Verdict::Wait => return,
            Verdict::Rule => None,
            Verdict::Shown => self.watch.take_shown(),
            Verdict::Made => self.watch.take_made(),
        };
        match completion {
            Some(c) => self.complete(t, c),
            None => self.rule_press(t),
        }
    }

    /// Settles a waiting press if the board now tells (or, with `force`,
    /// whatever it shows).
    pub(super) fn resolve_press(&mut self, t: Ms, force: bool) {
        if matches!(self.phase, Phase::Pressed(_)) {
            self.act(t, self.verdict(force));
        }
    }

    /// The grace is over. While hands are still moving on the board (a piece
    /// sliding home, the opponent's reply under way) it runs on until the
    /// board holds still, up to a limit; then the press is settled on what
    /// the board shows.
    pub(super) fn on_grace(&mut self, t: Ms) {
        let Phase::Pressed(p) = &mut self.phase else { return };
        let limit = p.at + GRACE_LIMIT * self.policy.press_grace_ms;
        let moving = self.settle_at.filter(|&s| s > t).or_else(|| self.sensors.next_deadline());
        if let Some(still_at) = moving
            && t < limit
        {
            p.until = still_at.min(limit).max(t + 1);
            return;
        }
        self.resolve_press(t, true);
    }

    /// The clock readings of the press that completes a move: the waiting
    /// press's, or a press now.
    pub(super) fn take_press(&mut self, t: Ms, side: Color) -> (Option<i64>, Option<i64>) {
        if let Phase::Pressed(p) = &self.phase {
            let times = (p.clock_ms, p.opponent_ms);
            self.phase = Phase::Open;
            return times;
        }
        if let Some(times) = self.take_handed() {
            return times;
        }
        // A move completed with no press: the board held still on it, or
        // it was the engine's (or the partner's) carried out.
        let unpressed = self.completed_by == CompletedBy::HeldStill || self.carrying();
        // The partner's move: its time as the partner board's clock kept it.
        let ply = self.game.ply();
        let kept = self.reported.take().filter(|r| r.ply == ply && r.side == side && self.carrying()).map(|r| r.ms);
        let press = |c: &mut tactus_clock::Clock| match kept {
            Some(ms) => c.press_as_kept(t, side, ms),
            None => c.press(t, side),
        };
        let clock_ms = if unpressed && self.clock.as_ref().is_some_and(|c| c.running().is_none()) {
            // Stopped (6.11, or a restart), with no press to come that
            // would restart it: the move still hands it over, so that it
            // restarts for the side on move.
            self.clock.as_mut().and_then(|c| {
                c.resume(t);
                let pressed = press(c);
                c.pause(t);
                pressed.ok().map(|p| p.remaining_ms)
            })
        } else if kept.is_some() {
            self.clock.as_mut().and_then(|c| press(c).ok().map(|p| p.remaining_ms))
        } else {
            self.press_clock(t, side)
        };
        (clock_ms, self.clock.as_ref().map(|c| c.remaining(!side, t)))
    }

    /// The board says whether a clock is there to press: without one, a move
    /// is complete once the board holds still on it — at once, for one the
    /// board already holds still on.
    pub(super) fn on_clock_connected(&mut self, t: Ms, connected: bool) {
        self.completed_by = if connected { CompletedBy::Press } else { CompletedBy::HeldStill };
        self.complete_made(t);
    }

    /// No clock to press: the moves the board holds still on are complete,
    /// in order. Not the engine's, which its own phase completes, nor a
    /// move while the position is being put back.
    pub(super) fn complete_made(&mut self, t: Ms) {
        while self.completed_by == CompletedBy::HeldStill
            && matches!(self.phase, Phase::Open)
            && !self.engine_on_move()
            && self.settle_at.is_none()
            && self.sensors.idle()
        {
            let completion = match self.watch.shown() {
                Shown::Moves(moves) if moves.len() == 1 => self.watch.take_shown(),
                Shown::Moves(_) => self.watch.take_made(),
                Shown::Position | Shown::Hands => None,
            };
            let Some(c) = completion else { return };
            self.complete(t, c);
        }
    }

    /// A waiting press that completed nothing: the clock as it was before it.
    pub(super) fn undo_press(&mut self) {
        if let Phase::Pressed(p) = std::mem::replace(&mut self.phase, Phase::Open)
            && let Some(before) = p.before
        {
            self.clock = Some(before);
        }
    }

    /// Completes a move (6.2.1): the press's clock readings, rulings on how
    /// it was made, the end of the game on the board, and the next ply —
    /// with the reply, if the opponent has already begun it.
    pub(super) fn complete(&mut self, t: Ms, c: Completion) {
        let Completion { mv, others, seen, board, reply } = c;
        if self.watch.announced != Some(mv) {
            self.announce_first(t, mv);
        }
        let side = self.game.turn();
        let ply = self.game.ply();
        if !others.is_empty() {
            let chosen = self.game.describe(mv).san;
            let mut candidates = vec![chosen.clone()];
            candidates.extend(others.iter().map(|m| self.game.describe(*m).san));
            self.emit(t, EventKind::Ambiguous { ply, candidates, chosen });
        }
        // The player's hands carried out the engine's move: nothing to rule.
        let carried = self.carrying();
        let rulings = if carried { Vec::new() } else { self.touch_rulings(mv, &seen) };
        if !carried {
            for placed in self.displaced(mv, &seen, board) {
                self.emit(t, EventKind::Displaced { sq: placed.sq, piece: placed.piece, ply });
            }
        }
        let (clock_ms, opponent_ms) = self.take_press(t, side);
        self.claimable = None;
        // The reply watched before the press knows the legal moves after it.
        let known = reply.as_ref().map(|w| w.options().to_vec());
        let (info, claim) = self.game.play_known(mv, clock_ms, known);
        self.emit(t, EventKind::Complete { ply, side, san: info.san, uci: info.uci, clock_ms, opponent_ms });
        self.keep_clock(t);
        self.offer_after_move(t, side);
        for ruling in rulings {
            self.rule(t, ruling);
        }
        if let Some(ending) = self.game.ending {
            self.end(t, ending);
            return;
        }
        self.check_dead(t);
        if self.finished() {
            return;
        }
        if let Some(claim) = claim {
            let article = match claim {
                ClaimKind::Threefold => Article::A9_2,
                ClaimKind::Fifty => Article::A9_3,
            };
            self.emit(t, EventKind::Claimable { claim, article, side: !side, ply: ply + 1 });
        }
        match reply {
            Some(reply) => {
                self.watch = reply.adopt(t);
                self.phase = Phase::Open;
                self.reread(t);
            }
            None => self.new_ply(t),
        }
    }

    /// A move completed without having been announced (it never held still,
    /// or the recording ended): it is announced first.
    fn announce_first(&mut self, t: Ms, mv: shakmaty::Move) {
        let previous = self.watch.announced.replace(mv);
        let info = self.game.describe(mv);
        self.emit(t, EventKind::Move { mv: info, correction: previous.is_some() });
    }

    /// The next ply begins from the position on the board.
    pub(super) fn new_ply(&mut self, t: Ms) {
        self.watch = super::Watch::new(&self.game, t, self.board());
        self.phase =
            if self.board() != self.game.position().board().occupied() { Phase::Restoring } else { Phase::Open };
        self.reread(t);
    }
}
