//! Two boards at one table, one chess clock between them (Appendix D: the
//! visually impaired player's board and the sighted opponent's side by
//! side). The clock is attached to one board (`TableClock::Here`); the
//! other (`TableClock::Partner`) takes its presses as `Input::TablePress`,
//! with the time that clock read.
//!
//! The partner's player presses before their move reaches this board: the
//! press hands the clock over then (6.2.1), as the clock at the table did,
//! and this board's player carries the move out on their own time — the
//! time the clock shows running (D.2.5). The move, once carried out,
//! completes with that press's readings. A move that comes with no press
//! before it (the clock gone) is carried out with both clocks stopped, as
//! an engine's.

use shakmaty::Color;
use tactus_clock::Clock;

use super::Session;
use crate::event::Ms;
use crate::policy::TableClock;

/// A press of the partner's player that handed the clock over before
/// their move for ply `ply` arrived; or, online, the server's move that
/// handed it over as it came, before the board shows it.
#[derive(Debug, Clone)]
pub(super) struct Handed {
    pub ply: u32,
    /// The presser's time after it, and the opponent's at it.
    pub clock_ms: Option<i64>,
    pub opponent_ms: Option<i64>,
    /// The clock before it, for a press the partner board rules as no move.
    before: Option<Clock>,
}

impl Handed {
    /// The online server's move of `ply` handed the clock over as it came.
    pub(super) fn by_server(ply: u32, clock_ms: Option<i64>, opponent_ms: Option<i64>) -> Handed {
        Handed { ply, clock_ms, opponent_ms, before: None }
    }
}

impl Session {
    /// The ply whose press handed the clock over while its move is still
    /// to come here, and the presser's time after that press.
    pub fn handed(&self) -> Option<(u32, Option<i64>)> {
        self.handed.as_ref().filter(|h| h.ply == self.game.ply()).map(|h| (h.ply, h.clock_ms))
    }

    /// Presses complete moves (a clock is at the board, or the table's
    /// presses come); else a move completes as the board holds still on it.
    pub fn presses_complete(&self) -> bool {
        self.completed_by == super::CompletedBy::Press
    }

    /// A press handed the clock over before the move being made here came.
    pub(super) fn handed_now(&self) -> bool {
        self.handed.as_ref().is_some_and(|h| h.ply == self.game.ply())
    }

    /// A press waits for the mover's piece still in the hand (6.2.1).
    pub fn press_waiting(&self) -> bool {
        matches!(self.phase, super::Phase::Pressed(_))
    }

    /// A press of the table's clock made at the partner board, `ms` the
    /// presser's time after it there.
    pub(super) fn on_table_press(&mut self, t: Ms, side: Color, ms: u64) {
        // The clock at the table runs, or its press would not have come:
        // this board's follows it (stopped by a restart here).
        if self.clock.as_ref().is_some_and(|c| c.running().is_none()) {
            self.on_clock_input(t, tactus_trace::Input::Resume);
        }
        self.reading = Some((side, ms));
        self.on_press(t, side);
        self.reading = None;
    }

    /// The partner's player pressed while their move is awaited here: with
    /// one clock at the table, the press hands it over now. Whether the
    /// press was the table's (taken here, or nothing to do).
    pub(super) fn hand_over(&mut self, t: Ms, side: Color) -> bool {
        if self.policy.table_clock.is_none() || side != self.game.turn() || self.carrying() {
            return false;
        }
        let ply = self.game.ply();
        // A clock already handed over, or stopped (6.11): pressed again, or
        // pressed while stopped, it changes nothing.
        let stopped = self.clock.as_ref().is_some_and(|c| c.running() != Some(side));
        if self.handed_now() || stopped {
            return true;
        }
        let before = self.clock.clone();
        let clock_ms = self.press_clock(t, side);
        let opponent_ms = self.clock.as_ref().map(|c| c.remaining(!side, t));
        self.handed = Some(Handed { ply, clock_ms, opponent_ms, before });
        true
    }

    /// The partner board ruled the press that handed the clock over as no
    /// move (7.5.1, 7.5.3): the clock goes back to before it, the partner's
    /// time running, as where a press completed nothing (`undo_press`).
    pub(super) fn on_press_ruled(&mut self, ply: u32) {
        if let Some(handed) = self.handed.take_if(|h| h.ply == ply && h.ply == self.game.ply())
            && let Some(before) = handed.before
        {
            self.clock = Some(before);
        }
    }

    /// The clock readings of a press that handed the clock over before the
    /// move for the ply being completed arrived.
    pub(super) fn take_handed(&mut self) -> Option<(Option<i64>, Option<i64>)> {
        let ply = self.game.ply();
        self.handed.take_if(|h| h.ply == ply).map(|h| (h.clock_ms, h.opponent_ms))
    }

    /// `side` presses: its time after it, as the clock at the table read
    /// it when the press came from there. `None`: its clock does not run.
    pub(super) fn press_clock(&mut self, t: Ms, side: Color) -> Option<i64> {
        let reading = self.reading.filter(|&(s, _)| s == side);
        let clock = self.clock.as_mut()?;
        let press = match reading {
            Some((_, ms)) => clock.press_as_kept(t, side, ms),
            None => clock.press(t, side),
        };
        let remaining = press.ok().map(|p| p.remaining_ms)?;
        // The online server's clock stands (Lichess's, before each side has
        // moved): the move cost nothing, and brought no increment.
        if self.policy.server_clock
            && let Some((white_ms, black_ms)) = self.server_stands
        {
            clock.set_times(t, white_ms, black_ms);
            return Some(clock.remaining(side, t));
        }
        Some(remaining)
    }

    /// Whether `side`'s flag is ruled on another board (6.9): the partner
    /// board's player's where each board keeps its player's clock (also at
    /// a table whose clock is gone); every flag where the table's clock is
    /// at the partner board, while its presses come.
    pub(super) fn flag_kept_elsewhere(&self, side: Color) -> bool {
        match self.policy.table_clock {
            Some(TableClock::Here) if self.completed_by == super::CompletedBy::Press => false,
            Some(TableClock::Partner) if self.completed_by == super::CompletedBy::Press => true,
            _ => self.policy.partner && self.policy.engine == Some(side),
        }
    }
}
