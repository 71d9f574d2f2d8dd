//! What a clock face shows, as the core computes it.

use std::time::Duration;

use shakmaty::Color;
use tactus_clock::{Bonus, Clock, System};

/// Both faces of the clock: what the device shows, and what a player who
/// asks for the times hears (D.2.6.1, D.2.10.4: the `time` event's fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Display {
    /// White's time left; never shown below zero.
    pub white_ms: i64,
    /// Black's time left; never shown below zero.
    pub black_ms: i64,
    /// The side whose time runs; `None` before the start, paused or ended.
    pub running: Option<Color>,
    /// Moves completed by White.
    pub white_moves: u32,
    /// Moves completed by Black.
    pub black_moves: u32,
    /// Simple delay (6.3.2) the running side has left before its main
    /// time counts down; zero otherwise. Lets the device count on its own.
    pub delay_ms: u64,
}

impl Display {
    /// The clock's faces at `t` (ms since the start of the game).
    pub fn from_clock(clock: &Clock, t: u64) -> Display {
        let running = clock.running();
        let simple_delay = match clock.time_control().system() {
            System::Periods { periods, .. } => periods.iter().any(|p| matches!(p.bonus, Bonus::Delay(_))),
            System::Hourglass { .. } | System::Gong { .. } => false,
        };
        let delay_ms = match running {
            Some(side) if simple_delay => clock.display(side, t).delay_ms,
            _ => 0,
        };
        Display {
            white_ms: clock.remaining(Color::White, t),
            black_ms: clock.remaining(Color::Black, t),
            running,
            white_moves: clock.moves(Color::White),
            black_moves: clock.moves(Color::Black),
            delay_ms,
        }
    }

    /// Time left for `side`.
    pub fn ms(&self, side: Color) -> i64 {
        match side {
            Color::White => self.white_ms,
            Color::Black => self.black_ms,
        }
    }

    /// The faces `elapsed` later, counted as a device counts between two
    /// updates: the running side's delay first, then its time, down to zero.
    /// Used to resend a display that waited (resends, resync after a replug).
    pub fn aged(&self, elapsed: Duration) -> Display {
        let Some(side) = self.running else { return *self };
        let elapsed = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        let charged = i64::try_from(elapsed.saturating_sub(self.delay_ms)).unwrap_or(i64::MAX);
        let mut aged = *self;
        aged.delay_ms = self.delay_ms.saturating_sub(elapsed);
        let left = self.ms(side).max(0).saturating_sub(charged).max(0);
        match side {
            Color::White => aged.white_ms = left,
            Color::Black => aged.black_ms = left,
        }
        aged
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tactus_clock::TimeControl;

    #[test]
    fn from_clock_reads_times_moves_and_running_side() {
        let mut clock = Clock::new("180+2".parse::<TimeControl>().unwrap());
        clock.start(0, Color::White);
        clock.press(1_000, Color::White).unwrap();
        let d = Display::from_clock(&clock, 1_500);
        assert_eq!(
            d,
            Display {
                white_ms: 181_000,
                black_ms: 179_500,
                running: Some(Color::Black),
                white_moves: 1,
                black_moves: 0,
                delay_ms: 0
            }
        );
    }

    #[test]
    fn simple_delay_is_carried_and_used_first_when_aged() {
        let mut clock = Clock::new("60s5".parse::<TimeControl>().unwrap());
        clock.start(0, Color::White);
        let d = Display::from_clock(&clock, 2_000);
        assert_eq!((d.white_ms, d.delay_ms), (60_000, 3_000));
        let later = d.aged(Duration::from_millis(4_000));
        assert_eq!((later.white_ms, later.delay_ms, later.black_ms), (59_000, 0, 60_000));
    }

    #[test]
    fn aged_never_goes_below_zero_and_leaves_a_stopped_clock_alone() {
        let d = Display { white_ms: 500, black_ms: 9, running: Some(Color::White), ..Display::default() };
        assert_eq!(d.aged(Duration::from_secs(5)).white_ms, 0);
        let stopped = Display { running: None, ..d };
        assert_eq!(stopped.aged(Duration::from_secs(5)), stopped);
    }
}
