//! Taking moves back in a game against the engine: the player sets the
//! board back to an earlier position with the player to move, as one does
//! at home, and the game goes on from there — the moves since taken back,
//! the clocks as they stood then. Only against the engine: between two
//! players a board set back is a wrong board, not an agreement.

use shakmaty::{ByColor, Color};
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
    /// The arbiter's time added to each side by then.
    added_ms: ByColor<u64>,
}

impl Session {
    /// Keeps the clocks as the ply that begins now finds them.
    pub(super) fn keep_clock(&mut self, t: Ms) {
        if let Some(clock) = &self.clock {
            let plies = self.game.played.len();
            self.clocks_at.retain(|c| c.plies < plies);
            self.clocks_at.push(ClockAt { plies, t, clock: clock.clone(), added_ms: self.added_ms });
        }
    }

    /// The arbiter set the clocks or the move counts: the clocks kept for
    /// earlier plies no longer hold; a take-back keeps the clocks as they are.
    pub(super) fn forget_clocks(&mut self, t: Ms) {
        self.clocks_at.clear();
        self.keep_clock(t);
    }

    /// While the engine's move is carried out, the arbiter stopped (or
    /// restarted) the clocks: they stay so when the move stands.
    pub(super) fn set_carried_clock(&mut self, runs: bool) {
        if let Phase::Carrying(c) = &mut self.phase {
            c.clock_ran = runs;
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
        // Stopped while the engine's move is carried, to run again when it
        // stands — unless the arbiter stopped them.
        let running = match &self.phase {
            Phase::Carrying(c) => c.clock_ran,
            _ => self.clock.as_ref().is_some_and(|c| c.running().is_some()),
        };
        let Some(taken) = self.game.take_back(now - keep) else { return false };
        self.restore_clock(t, keep, running);
        self.take_backs += 1;
        self.claimable = None;
        self.question = None;
        self.draw_offer = None;
        self.handed = None;
        self.check.due = None;
        let times = self.times(t);
        let taken = taken.into_iter().map(|m| m.san).collect();
        let (white_ms, black_ms) = (times.map(|c| c.white), times.map(|c| c.black));
        self.emit(t, EventKind::TakeBack { ply: self.game.ply(), taken, white_ms, black_ms });
        self.report_board_ok(t);
        self.phase = Phase::Open;
        self.new_ply(t);
        true
    }

    /// The clocks as they stood when the ply after `plies` moves began,
    /// with what the arbiter gave since (time added, the increment of
    /// Guidelines III.4) still given; the side on move starts that move
    /// afresh now, if the clocks were running. Where the arbiter set the
    /// clocks since, they stay as set, handed to the side on move.
    fn restore_clock(&mut self, t: Ms, plies: usize, running: bool) {
        self.clocks_at.retain(|c| c.plies <= plies);
        let turn = self.game.turn();
        let added_now = self.added_ms;
        let kept = self.clocks_at.last().filter(|c| c.plies == plies).cloned();
        let Some(clock) = &mut self.clock else { return };
        match kept {
            Some(at) => {
                let mut restored = at.clock;
                // Stopped at the instant it was kept: the move in progress
                // then had used nothing yet.
                restored.pause(at.t);
                for side in Color::ALL {
                    let since = added_now[side].saturating_sub(at.added_ms[side]);
                    if since > 0 {
                        restored.add_time(at.t, side, since);
                    }
                }
                if clock.extra_increment_ms() > 0 {
                    restored.switch_to_increment(at.t, clock.extra_increment_ms());
                }
                *clock = restored;
            }
            None => {
                clock.start(t, turn);
                clock.pause(t);
            }
        }
        if running {
            clock.resume(t);
        }
        // Warnings already given for times now restored are given again.
        for side in Color::ALL {
            let left = clock.remaining(side, t);
            self.warned[side].retain(|w| left <= *w as i64);
        }
    }

    /// How many times moves were taken back in this game: an engine asked
    /// before a take-back must not have its answer taken after it.
    pub fn take_backs(&self) -> u32 {
        self.take_backs
    }
}
