//! The real-time clocks Lichess plays, as a challenge or a seek asks for
//! them (lichess-org/api: `clock.limit` and `clock.increment` of `POST
//! /api/challenge/{username}`, `time` and `increment` of `POST
//! /api/board/seek`): a limit of 15, 30, 45 or 90 seconds or whole minutes
//! up to 180, and an increment of whole seconds up to 180. The Board API
//! seeks rapid and slower games only.

use crate::api::{ChallengeClock, SeekSpec};

/// A clock Lichess takes: its limit and increment in whole seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    limit_s: u32,
    increment_s: u32,
}

/// Why Lichess would refuse a clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    #[error("Lichess takes whole seconds")]
    NotWholeSeconds,
    #[error("Lichess takes a limit of whole minutes up to 180, and an increment up to 180 s")]
    OutOfBounds,
    /// 10 minutes or more: rapid and slower, all a seek may ask.
    #[error("the Board API seeks rapid and slower games only: a limit of 600 s or more")]
    TooFastToSeek,
}

/// The shortest limit the Board API seeks (rapid).
const SEEK_LIMIT_S: u32 = 600;

impl Clock {
    /// The clock of a limit and an increment in milliseconds, if Lichess
    /// plays it.
    pub fn new(limit_ms: u64, increment_ms: u64) -> Result<Clock, ClockError> {
        if !limit_ms.is_multiple_of(1000) || !increment_ms.is_multiple_of(1000) {
            return Err(ClockError::NotWholeSeconds);
        }
        let (limit_s, increment_s) = (limit_ms / 1000, increment_ms / 1000);
        let limit_ok = matches!(limit_s, 15 | 30 | 45 | 60 | 90) || (limit_s % 60 == 0 && limit_s <= 10_800);
        if !limit_ok || increment_s > 180 {
            return Err(ClockError::OutOfBounds);
        }
        // Both are at most 10,800 here.
        Ok(Clock { limit_s: limit_s as u32, increment_s: increment_s as u32 })
    }

    pub fn limit_s(self) -> u32 {
        self.limit_s
    }

    pub fn increment_s(self) -> u32 {
        self.increment_s
    }

    /// The clock of a real-time challenge.
    pub fn challenge(self) -> ChallengeClock {
        ChallengeClock::RealTime { limit_s: self.limit_s, increment_s: self.increment_s }
    }

    /// A casual seek with this clock, if the Board API seeks it.
    pub fn seek(self) -> Result<SeekSpec, ClockError> {
        if self.limit_s < SEEK_LIMIT_S {
            return Err(ClockError::TooFastToSeek);
        }
        Ok(SeekSpec { minutes: self.limit_s / 60, increment_s: self.increment_s, rated: false })
    }
}

impl std::fmt::Display for Clock {
    /// As Lichess writes a clock: the limit in minutes, its short limits as
    /// fractions (`¼+0`, `1½+2`), then the increment in seconds (`5+3`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (minutes, quarters) = (self.limit_s / 60, self.limit_s % 60 / 15);
        let fraction = ["", "¼", "½", "¾"][quarters as usize];
        match (minutes, fraction) {
            (0, "") => f.write_str("0")?,
            (0, fraction) => f.write_str(fraction)?,
            (minutes, fraction) => write!(f, "{minutes}{fraction}")?,
        }
        write!(f, "+{}", self.increment_s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lichess_takes_whole_minutes_a_few_short_limits_and_increments_up_to_180_s() {
        let clock = |limit_s: u64, inc_s: u64| Clock::new(limit_s * 1000, inc_s * 1000);
        assert_eq!(clock(1800, 5).map(|c| (c.limit_s(), c.increment_s())), Ok((1800, 5)));
        assert!(clock(15, 0).is_ok() && clock(90, 0).is_ok() && clock(10_800, 180).is_ok());
        assert_eq!(clock(1830, 5), Err(ClockError::OutOfBounds));
        assert_eq!(clock(20_000, 0), Err(ClockError::OutOfBounds));
        assert_eq!(clock(1800, 200), Err(ClockError::OutOfBounds));
        assert_eq!(Clock::new(1_800_000, 500), Err(ClockError::NotWholeSeconds));
        assert_eq!(clock(300, 3).unwrap().seek(), Err(ClockError::TooFastToSeek));
        assert_eq!(
            clock(600, 5).unwrap().seek(),
            Ok(SeekSpec { minutes: 10, increment_s: 5, rated: false }),
            "rapid: seekable"
        );
    }

    #[test]
    fn a_clock_is_written_as_lichess_writes_it() {
        let clock = |limit_s: u64, inc_s: u64| Clock::new(limit_s * 1000, inc_s * 1000).unwrap().to_string();
        assert_eq!(
            [clock(300, 3), clock(15, 0), clock(30, 1), clock(45, 0), clock(90, 2)],
            ["5+3", "¼+0", "½+1", "¾+0", "1½+2"]
        );
        assert_eq!(clock(10_800, 180), "180+180");
    }
}
