//! Game time: the milliseconds the game's clocks and timers count, and
//! whose time they follow — the wall clock for a live board, the
//! recording's own for a board that plays one.

use std::time::{Duration, Instant};

use tactus_board::Warp;
use tactus_trace::Ms;

use crate::config::Speed;

/// Game time: milliseconds since the start of the game, running `speed`
/// times faster than the wall clock for a simulated board, and jumping
/// where the recording it plays has a long quiet shortened (its [`Warp`]):
/// the board and the game share the warp, so the clocks stay right.
#[derive(Clone)]
pub struct GameTime {
    /// When game time `base` was.
    pub start: Instant,
    pub base: Ms,
    pub speed: Speed,
    pub warp: Warp,
}

impl GameTime {
    /// Game time `base` now, passing at `speed`, without jumps.
    pub fn new(base: Ms, speed: Speed) -> Self {
        GameTime { start: Instant::now(), base, speed, warp: Warp::default() }
    }

    pub fn t(&self, at: Instant) -> Ms {
        let since = at.saturating_duration_since(self.start).as_secs_f64() * 1000.0 * self.speed.factor();
        self.warp.recorded(self.warp.played(self.base) + since as Ms)
    }

    pub fn instant(&self, t: Ms) -> Instant {
        let played = self.warp.played(t).saturating_sub(self.warp.played(self.base));
        self.start + Duration::from_secs_f64(played as f64 / 1000.0 / self.speed.factor())
    }
}

/// Whose time the game's timers follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardTime {
    /// A live board: the wall clock. What it senses comes as it happens.
    Live,
    /// A board playing a recording: the recording's own time. Its thread may
    /// be scheduled late, so a timer runs only before the next line it has
    /// promised (`quiet_before`), never ahead of a line still on its way —
    /// the game is the one a replay makes, at any speed, on any machine.
    Recorded { quiet_before: Ms },
}

impl BoardTime {
    /// Whether a timer due at `due` may run now that the wall clock is there.
    pub fn lets_run(self, due: Ms) -> bool {
        match self {
            BoardTime::Live => true,
            BoardTime::Recorded { quiet_before } => due < quiet_before,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_time_scales_with_speed() {
        let start = Instant::now();
        let g = GameTime { start, base: 1000, speed: Speed::try_from(50.0).unwrap(), warp: Warp::default() };
        assert_eq!(g.t(start + Duration::from_millis(20)), 2000);
        assert_eq!(g.instant(2000), start + Duration::from_millis(20));
    }
}
