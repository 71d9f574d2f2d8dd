//! Taking moves back in a game against the engine: the player sets the
//! board back to an earlier position with the player to move, as one does
//! at home, and the game goes on from there — the moves since taken back,
//! the clocks as they stood then. Only against the engine: between two
//! players a board set back is a wrong board, not an agreement.

use tactus_clock::Clock;

use super::{Phase, Session};
use crate::event::{EventKind, Ms};

/// The clocks as they stood when a ply began.
#[derive(Debug, Clone)]
pub(super) struct ClockAt {
    /// Moves played before that ply.
    plies: usize,
    t: Ms,
    clock: Clock,
}

impl Session {
    /// Keeps the clocks as the ply that begins now finds them.
    pub(super) fn keep_clock(&mut self, t: Ms) {
        if let Some(clock) = &self.clock {
            let plies = self.game.played.len();
            self.clocks_at.retain(|c| c.plies < plies);
            self.clocks_at.push(ClockAt { plies, t, clock: clock.clone() });
        }
    }

    /// The board has held still on an earlier position of a game against
    /// the engine, the player to move there: the moves since are taken
    /// back. Returns whether they were. The latest such position counts
    /// (the fewest moves back); positions with the engine to move do not,
    /// so that the board passing through one while both moves are set back
    /// takes nothing back half-way.
    pub(super) fn take_back_shown(&mut self, t: Ms) -> bool {
        let Some(engine) = self.policy.engine else { return false };
        if !matches!(self.phase, Phase::Open | Phase::Carrying(_)) || !self.sensors.idle() {
            return false;
        }
        let board = self.board();
        if board == self.game.occupancy() {
            return false;
        }
        let Some(positions) = self.game.positions() else { return false };
        let now = positions.len() - 1;
        let Some(keep) = (0..now).rev().find(|&k| {
            let pos = &positions[k];
            shakmaty::Position::turn(pos) != engine && shakmaty::Position::board(pos).occupied() == board
        }) else {
            return false;
        };
        let running = self.clock.as_ref().is_some_and(|c| c.running().is_some()) || self.carrying();
        let Some(taken) = self.game.take_back(now - keep) else { return false };
        self.restore_clock(t, keep, running);
        self.take_backs += 1;
        self.claimable = None;
        self.question = None;
        self.draw_offer = None;
        self.check.due = None;
        let (white_ms, black_ms) = self.times(t);
        let taken = taken.into_iter().map(|m| m.san).collect();
        self.emit(t, EventKind::TakeBack { ply: self.game.ply(), taken, white_ms, black_ms });
        self.report_board_ok(t);
        self.phase = Phase::Open;
        self.new_ply(t);
        true
    }

    /// The clocks as they stood when the ply after `plies` moves began; the
    /// side on move starts that move afresh now, if a clock was running.
    fn restore_clock(&mut self, t: Ms, plies: usize, running: bool) {
        self.clocks_at.retain(|c| c.plies <= plies);
        let (Some(clock), Some(at)) = (&mut self.clock, self.clocks_at.last().filter(|c| c.plies == plies)) else {
            return;
        };
        let mut restored = at.clock.clone();
        // Stopped at the instant it was kept: the move in progress then
        // had used nothing yet.
        restored.pause(at.t);
        if running {
            restored.resume(t);
        }
        *clock = restored;
    }

    /// How many times moves were taken back in this game: an engine asked
    /// before a take-back must not have its answer taken after it.
    pub fn take_backs(&self) -> u32 {
        self.take_backs
    }
}
