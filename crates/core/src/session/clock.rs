//! The clock: a flag fall (Article 6.9), the arbiter stopping, setting and
//! correcting the clocks (6.10, 6.11, 12), the increment switched on during
//! the game (Guidelines III.4), and time warnings while a player thinks.

use shakmaty::{ByColor, Color};
use tactus_trace::Input;

use super::watch::Shown;
use super::{Reported, Session};
use crate::event::{Article, EndReason, EventKind, Ms};

/// A server's clock that moves the board's by more than this is said: less
/// is the network's delay.
const SERVER_CLOCK_SAID_MS: i64 = 10_000;

impl Session {
    /// Both clocks at `t`; `None` for a game without a clock.
    pub(super) fn times(&self, t: Ms) -> Option<ByColor<i64>> {
        self.clock.as_ref().map(|c| ByColor::new_with(|side| c.remaining(side, t)))
    }

    /// 6.9: the flag falls. A waiting press is settled first (the mover's
    /// clock stopped at it); a mate on the board before the flag fell ends
    /// the game first (5.1.1); else the opponent wins, unless they cannot
    /// mate.
    pub(super) fn on_flag(&mut self, t: Ms) {
        self.resolve_press(t, true);
        if self.finished() {
            return;
        }
        let Some(clock) = &mut self.clock else { return };
        let Some(side) = clock.flag(t) else { return };
        if side == self.game.turn()
            && let Shown::Moves(moves) = self.watch.shown()
            && self.watch.announced == Some(moves[0])
            && self.game.ends_game(moves[0])
            && let Some(c) = self.watch.take_shown().or_else(|| self.watch.take_made())
        {
            self.complete(t, c);
            return;
        }
        self.judge(t, side, EndReason::FlagFall, Article::A6_9);
    }

    /// When the running side's time reaches the next warning threshold.
    pub(super) fn warning_deadline(&self) -> Option<Ms> {
        // Asked for after every input: without thresholds, read no clock.
        if self.policy.time_warnings.is_empty() {
            return None;
        }
        let clock = self.clock.as_ref()?;
        let side = clock.running()?;
        let left = clock.remaining(side, self.now);
        let warned = &self.warned[side];
        let next = self.policy.time_warnings.iter().filter(|w| (**w as i64) < left && !warned.contains(w)).max()?;
        Some(self.now + (left - *next as i64) as Ms)
    }

    pub(super) fn on_warning(&mut self, t: Ms) {
        let Some(clock) = &self.clock else { return };
        let Some(side) = clock.running() else { return };
        let left = clock.remaining(side, t);
        let warned = &mut self.warned[side];
        let crossed: Vec<Ms> =
            self.policy.time_warnings.iter().copied().filter(|w| left <= *w as i64 && !warned.contains(w)).collect();
        if crossed.is_empty() {
            return;
        }
        warned.extend(crossed);
        self.emit(t, EventKind::TimeWarning { side, remaining_ms: left });
    }

    /// A warning is armed again once its side's time is well above it: a
    /// new period, an increment that adds up, time added by the arbiter.
    pub(super) fn rearm_warnings(&mut self, t: Ms) {
        let Some(clock) = &self.clock else { return };
        for side in [Color::White, Color::Black] {
            let left = clock.remaining(side, t);
            self.warned[side].retain(|w| left <= 2 * *w as i64);
        }
    }

    /// The arbiter's and the clock's own inputs.
    pub(super) fn on_clock_input(&mut self, t: Ms, input: Input) {
        match input {
            Input::Pause => {
                if let Some(c) = &mut self.clock {
                    c.pause(t);
                }
                self.set_carried_clock(false);
                self.emit(t, EventKind::Paused);
            }
            Input::Resume => {
                // While the engine's move is carried out both clocks stand,
                // to run when it stands; unless a press at the table handed
                // the clock over before it came.
                if (!self.carrying() || self.handed_now())
                    && let Some(c) = &mut self.clock
                {
                    c.resume(t);
                }
                self.set_carried_clock(true);
                self.emit(t, EventKind::Resumed);
            }
            Input::SetClock { white_ms, black_ms } => {
                if let Some(c) = &mut self.clock {
                    c.set_times(t, white_ms, black_ms);
                }
                // The arbiter's times stand: a take-back keeps them.
                self.forget_clocks(t);
                self.emit(t, EventKind::ClockSet { white_ms: white_ms as i64, black_ms: black_ms as i64 });
            }
            Input::PartnerClock { side, ms } if self.engine_on_move() && side == self.game.turn() => {
                // The partner's move of this ply is awaited or carried out:
                // it completes here with the time the partner board's clock
                // kept for it, so both boards write the same time.
                self.reported = Some(Reported { ply: self.game.ply(), side, ms });
            }
            Input::PartnerClock { side, ms } => {
                // After the move (as older journals have it): the other
                // side's time stands as this board keeps it. Not said: both
                // boards already show the same game.
                if let Some(c) = &mut self.clock {
                    let other = u64::try_from(c.remaining(!side, t)).unwrap_or(0);
                    let (white, black) = if side == Color::White { (ms, other) } else { (other, ms) };
                    c.set_times(t, white, black);
                }
            }
            Input::ServerClock { white_ms, black_ms, running } => self.on_server_clock(t, white_ms, black_ms, running),
            Input::SetMoves { white_moves, black_moves } => {
                if let Some(c) = &mut self.clock {
                    c.set_moves(white_moves, black_moves);
                }
                self.forget_clocks(t);
                self.emit_clock_set(t);
            }
            Input::AddTime { side, ms } => {
                if let Some(c) = &mut self.clock {
                    c.add_time(t, side, ms);
                }
                self.added_ms[side] = self.added_ms[side].saturating_add(ms);
                self.emit(t, EventKind::Penalty { article: Article::A12, side, ms: ms as i64 });
            }
            Input::Increment { ms } => {
                if let Some(c) = &mut self.clock {
                    c.switch_to_increment(t, ms);
                }
                self.emit_clock_set(t);
            }
            Input::Promote(_)
            | Input::Claim { .. }
            | Input::Result { .. }
            | Input::Request(_)
            | Input::Verdict { .. }
            | Input::Opponent { .. }
            | Input::Hint { .. }
            | Input::EngineLevel(_)
            | Input::TakeBack { .. }
            | Input::WebsiteMove { .. }
            | Input::DrawOffer { .. }
            | Input::Online(_)
            | Input::ClockConnected(_)
            | Input::TablePress { .. }
            | Input::PressRuled { .. }
            | Input::PairGame { .. } => {}
        }
    }

    /// The online server's clocks, as its state gave them: shown from now
    /// on, unsaid — the server's clock is the game's — unless they moved
    /// the board's by more than [`SERVER_CLOCK_SAID_MS`] (the board was
    /// away a while, or time was given there): then said as set. A move of
    /// the server's being carried out completes with them; while the
    /// server's clock stands, moves cost nothing (`press_clock`).
    fn on_server_clock(&mut self, t: Ms, white_ms: Ms, black_ms: Ms, running: bool) {
        let Some(c) = &mut self.clock else { return };
        let moved = |side: Color, ms: Ms| (c.remaining(side, t) - ms as i64).abs() > SERVER_CLOCK_SAID_MS;
        let said = moved(Color::White, white_ms) || moved(Color::Black, black_ms);
        c.set_times(t, white_ms, black_ms);
        if said {
            self.emit(t, EventKind::ClockSet { white_ms: white_ms as i64, black_ms: black_ms as i64 });
        }
        self.server_stands = (!running).then_some((white_ms, black_ms));
        let ply = self.game.ply();
        let mover = self.game.turn();
        if let Some(h) = self.handed.as_mut().filter(|h| h.ply == ply && self.policy.server_clock) {
            let (mine, other) = if mover == Color::White { (white_ms, black_ms) } else { (black_ms, white_ms) };
            h.clock_ms = Some(mine as i64);
            h.opponent_ms = Some(other as i64);
        }
    }

    fn emit_clock_set(&mut self, t: Ms) {
        let times = self.times(t).unwrap_or_default();
        self.emit(t, EventKind::ClockSet { white_ms: times.white, black_ms: times.black });
    }
}
