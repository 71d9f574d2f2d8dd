//! A time as a clock face shows it: hours, minutes and seconds — the one
//! split of milliseconds into them, for the PGN's `%clk`, the terminal's
//! status line, a DGT clock's face and the durations a player hears.

use std::fmt;

/// Hours, minutes (0–59) and seconds (0–59).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hms {
    pub h: u64,
    pub m: u8,
    pub s: u8,
}

impl Hms {
    /// `ms` in whole seconds rounded down — the time left as the PGN's
    /// `%clk` and the status line write it; 0 below 0.
    pub fn down(ms: i64) -> Hms {
        Hms::of_seconds(u64::try_from(ms).unwrap_or(0) / 1000)
    }

    /// `ms` in whole seconds rounded up — as a clock's face shows the time
    /// left, 0:00 only once it is gone; 0 below 0.
    pub fn up(ms: i64) -> Hms {
        Hms::of_seconds(u64::try_from(ms).unwrap_or(0).div_ceil(1000))
    }

    pub fn of_seconds(seconds: u64) -> Hms {
        // Each of m and s is below 60.
        Hms { h: seconds / 3600, m: (seconds / 60 % 60) as u8, s: (seconds % 60) as u8 }
    }

    /// The whole time in seconds.
    pub fn seconds(self) -> u64 {
        self.h * 3600 + u64::from(self.m) * 60 + u64::from(self.s)
    }
}

impl fmt::Display for Hms {
    /// `h:mm:ss`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{:02}:{:02}", self.h, self.m, self.s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_split_rounded_either_way() {
        assert_eq!(Hms::down(5_403_968).to_string(), "1:30:03");
        assert_eq!(Hms::up(5_403_968).to_string(), "1:30:04");
        assert_eq!((Hms::down(59_999), Hms::up(59_001)), (Hms::of_seconds(59), Hms::of_seconds(60)));
        assert_eq!(
            (Hms::down(-5), Hms::up(-5), Hms::up(0)),
            (Hms::of_seconds(0), Hms::of_seconds(0), Hms::of_seconds(0))
        );
        assert_eq!(Hms::of_seconds(36_000).to_string(), "10:00:00");
        assert_eq!(Hms::of_seconds(4_321).seconds(), 4_321);
    }
}
