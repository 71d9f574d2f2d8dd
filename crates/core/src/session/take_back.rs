//! Taking moves back in a game against the engine: the player sets the
//! board back to an earlier position with the player to move, as one does
//! at home, and the game goes on from there — the moves since taken back,
//! the clocks as they stood then. Only against the engine: between two
//! players a board set back is a wrong board, not an agreement.
//!
//! Online, the server is the judge: the board set back asks it for the
//! take-back (`TakeBackAsked`), and the moves go back only when the server
//! takes them back (`Input::TakeBack`) — a takeback agreed either way, or
//! the board's move refused — whichever side is then to move; the board is
//! guided back to the position, and is no move until it shows it.

use shakmaty::{ByColor, Color};
use tactus_clock::Clock;

use super::{Phase, Session};
use crate::event::{EventKind, MoveInfo, Ms};

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
    /// takes nothing back half-way. Online, the take-back is asked of the
    /// server instead, once (and true returned: the board is accounted for).
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
        if self.policy.online {
            let ask = (self.game.ply(), self.game.ply() - (now - keep) as u32);
            if self.asked_back.replace(ask) != Some(ask) {
                self.emit(t, EventKind::TakeBackAsked { ply: ask.1 });
            }
            return true;
        }
        if self.take_back_plies(t, now - keep).is_none() {
            return false;
        }
        self.report_board_ok(t);
        self.phase = Phase::Open;
        self.new_ply(t);
        true
    }

    /// The online server took moves back: the game goes back to where
    /// `ply` is to be made, and the board is told at once how to follow.
    pub(super) fn on_take_back(&mut self, t: Ms, ply: u32) {
        let Some(plies) = self.game.ply().checked_sub(ply).filter(|&n| n > 0) else { return };
        let Some(first) = self.take_back_plies(t, plies as usize) else { return };
        let undone =
            first.uci.parse::<shakmaty::uci::UciMove>().ok().and_then(|u| u.to_move(self.game.position()).ok());
        self.watch = super::Watch::new(&self.game, t, self.board());
        let Some(undone) = undone.filter(|_| self.board() != self.game.occupancy()) else {
            self.report_board_ok(t);
            self.phase = Phase::Open;
            self.reread(t);
            return;
        };
        self.phase = Phase::SettingBack { undone, held: None };
        self.reread(t);
        self.tell_setting_back(t);
    }

    /// What to put where to set the board back; said again while it is
    /// wrong (the mismatch time, a press).
    pub(super) fn tell_setting_back(&mut self, t: Ms) {
        self.check.due = None;
        let (missing, extra, fix) =
            crate::recognise::board_fix(shakmaty::Position::board(self.game.position()), self.board());
        self.check.reported = true;
        self.emit(t, EventKind::BoardMismatch { missing, extra, fix });
    }

    /// Whether the board is set back after a take-back: it shows the
    /// game's position, or a move from it other than the first taken back
    /// (the player's hands moved on as they put it back).
    pub(super) fn is_set_back(&self) -> bool {
        let Phase::SettingBack { undone, .. } = &self.phase else { return false };
        match self.watch.shown() {
            super::watch::Shown::Position => true,
            super::watch::Shown::Moves(moves) => moves[0] != *undone,
            super::watch::Shown::Hands => self.board() == self.game.occupancy(),
        }
    }

    /// The board is set back after a take-back: a move that came meanwhile
    /// is carried out now.
    pub(super) fn set_back(&mut self, t: Ms) {
        let Phase::SettingBack { held, .. } = std::mem::replace(&mut self.phase, Phase::Open) else { return };
        self.renew_watch(t);
        self.report_board_ok(t);
        if let Some(input) = held {
            self.on_input(t, input);
        }
    }

    /// Takes the last `plies` moves back: the clocks as they stood then,
    /// claims, questions and offers of the positions gone. Returns the
    /// first move taken back, if they were (a move that stood illegal
    /// cannot be).
    fn take_back_plies(&mut self, t: Ms, plies: usize) -> Option<MoveInfo> {
        // Stopped while a move is carried, to run again when it stands —
        // unless the arbiter stopped them.
        let running = match &self.phase {
            Phase::Carrying(c) => c.clock_ran,
            _ => self.clock.as_ref().is_some_and(|c| c.running().is_some()),
        };
        let taken = self.game.take_back(plies)?;
        let keep = self.game.played.len();
        self.restore_clock(t, keep, running);
        self.take_backs += 1;
        self.claimable = None;
        self.question = None;
        self.draw_offer = None;
        self.asked_back = None;
        self.handed = None;
        self.check.due = None;
        let times = self.times(t);
        let first = taken.first().cloned();
        let taken = taken.into_iter().map(|m| m.san).collect();
        let (white_ms, black_ms) = (times.map(|c| c.white), times.map(|c| c.black));
        self.emit(t, EventKind::TakeBack { ply: self.game.ply(), taken, white_ms, black_ms });
        first
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
