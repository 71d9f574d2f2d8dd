//! The numbers of the file, each a type that knows its range (a
//! [`tactus_trace::range::Range`], the trace's own where the trace carries
//! the number too). The file (serde) and the flags (clap) read them
//! alike, so a value out of range is refused wherever it comes from, in the
//! same words, and nothing checks it again later.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use serde::de::{Deserialize, Deserializer, Visitor};
use tactus_net::{MAX_ELO, MAX_FIDE_ID};
use tactus_trace::range::{self as trace, Range};

/// A number its key does not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    #[error("{value} is out of range: {lo} to {hi} {means}")]
    OutOfRange { value: String, lo: u64, hi: u64, means: &'static str },
    #[error("{text:?} is not a whole number (the range is {lo} to {hi} {means})")]
    NotANumber { text: String, lo: u64, hi: u64, means: &'static str },
}

/// A whole number in a range: what the types of [`ranged!`] share.
trait Ranged: Sized {
    type Int: TryFrom<i128>;
    const RANGE: Range<u64>;
    fn wrap(v: Self::Int) -> Self;
}

fn out_of_range<T: Ranged>(value: impl fmt::Display) -> NumberError {
    let (lo, hi) = (*T::RANGE.values.start(), *T::RANGE.values.end());
    NumberError::OutOfRange { value: value.to_string(), lo, hi, means: T::RANGE.means }
}

/// `v` as a `T`, if in its range.
fn checked<T: Ranged>(v: i128) -> Result<T, NumberError> {
    let (lo, hi) = (*T::RANGE.values.start(), *T::RANGE.values.end());
    if !(i128::from(lo)..=i128::from(hi)).contains(&v) {
        return Err(out_of_range::<T>(v));
    }
    T::Int::try_from(v).map(T::wrap).map_err(|_| out_of_range::<T>(v))
}

fn parsed<T: Ranged>(s: &str) -> Result<T, NumberError> {
    let v = s.trim().parse::<i128>().map_err(|_| {
        let (lo, hi) = (*T::RANGE.values.start(), *T::RANGE.values.end());
        NumberError::NotANumber { text: s.to_owned(), lo, hi, means: T::RANGE.means }
    })?;
    checked(v)
}

/// Reads any whole number TOML holds, so that one past `u64` is still
/// named with its range.
struct RangedVisitor<T>(PhantomData<T>);

impl<T: Ranged> Visitor<'_> for RangedVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let (lo, hi) = (T::RANGE.values.start(), T::RANGE.values.end());
        write!(f, "a whole number (the range is {lo} to {hi} {})", T::RANGE.means)
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<T, E> {
        checked(v.into()).map_err(E::custom)
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<T, E> {
        checked(v.into()).map_err(E::custom)
    }

    fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<T, E> {
        checked(v).map_err(E::custom)
    }

    fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<T, E> {
        Err(E::custom(out_of_range::<T>(v)))
    }
}

/// Declares whole numbers with a range, read from the file and from flags.
macro_rules! ranged {
    ($($(#[$doc:meta])* $name:ident($int:ty) in $range:expr;)+) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name($int);

        impl $name {
            pub const RANGE: Range<u64> = $range;

            /// A value known when compiled: `const { Self::of(100) }`
            /// refuses to build when it is out of range. (Not every
            /// number has a default to make with it.)
            #[allow(dead_code)]
            pub const fn of(v: $int) -> $name {
                assert!(
                    v as u64 >= *Self::RANGE.values.start() && v as u64 <= *Self::RANGE.values.end(),
                    "out of its range"
                );
                $name(v)
            }

            pub fn get(self) -> $int {
                self.0
            }
        }

        impl Ranged for $name {
            type Int = $int;
            const RANGE: Range<u64> = $name::RANGE;
            fn wrap(v: $int) -> $name {
                $name(v)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                d.deserialize_any(RangedVisitor(PhantomData))
            }
        }

        impl FromStr for $name {
            type Err = NumberError;
            fn from_str(s: &str) -> Result<$name, NumberError> {
                parsed(s)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    )+};
}

ranged! {
    /// `[board] scan_hz`: scans a second of a sensor matrix.
    ScanHz(u32) in Range { values: 1..=2000, means: "scans a second" };
    /// `[board] i2c_address`: the MCP23017's address, set by its straps.
    I2cAddress(u16) in Range { values: 0x20..=0x27, means: "(0x20 to 0x27: an MCP23017's A2 A1 A0 straps)" };
    /// `[board] settle_us`: microseconds a column's pull-up needs to
    /// recharge after a row pulled it low.
    SettleUs(u64) in Range { values: 0..=1000, means: "µs for a pull-up to recharge" };
    /// `[game] debounce_ms`: how long a sensor reading must hold to count.
    DebounceMs(u64) in trace::DEBOUNCE_MS;
    /// `[game] settle_ms`: how long a board holds still before its move is
    /// announced.
    SettleMs(u64) in trace::SETTLE_MS;
    /// `[game] press_grace_ms`: how long a clock press waits for a piece
    /// still in the hand to land.
    PressGraceMs(u64) in trace::PRESS_GRACE_MS;
    /// `[game] white_fide_id`, `black_fide_id`.
    FideId(u32) in Range { values: 1..=MAX_FIDE_ID as u64, means: "(a FIDE ID, at most nine digits)" };
    /// `[game] white_elo`, `black_elo`.
    Elo(u16) in Range { values: 1..=MAX_ELO as u64, means: "rating points" };
    /// `[voice] rate`: words a minute.
    VoiceRate(u32) in Range { values: 80..=450, means: "words a minute (what espeak-ng speaks)" };
    /// One of `[voice] time_warnings`: seconds left, at most what a clock shows.
    WarningSeconds(u64) in Range {
        values: 1..=*trace::CLOCK_MS.values.end() / 1000,
        means: "seconds left (a clock shows at most 9:59:59)",
    };
    /// `[clock] baud`.
    Baud(u32) in Range { values: 1200..=4_000_000, means: "baud" };
    /// `[engine] level`, the trace's `engine_level`.
    EngineLevel(u8) in Range { values: trace::LEVEL.values, means: "(0 first games, 10 full strength)" };
    /// `[engine] book_plies`: how deep the opening book is used.
    BookPlies(u32) in Range { values: 0..=200, means: "plies (no book goes deeper)" };
    /// `[engine] think_ms`: thinking time a move at full strength without a clock.
    ThinkMs(u64) in Range { values: 1..=600_000, means: "ms a move, ten minutes at most" };
    /// `[round] number`, the relay's `--round`: a round of a TRF's columns.
    RoundNumber(u32) in Range { values: 1..=tactus_trace::MAX_ROUND as u64, means: "(a round of the TRF's columns)" };
}

impl DebounceMs {
    pub const DEFAULT: DebounceMs = DebounceMs::of(trace::DEFAULT_DEBOUNCE_MS);
}

impl SettleMs {
    pub const DEFAULT: SettleMs = SettleMs::of(trace::DEFAULT_SETTLE_MS);
}

impl PressGraceMs {
    pub const DEFAULT: PressGraceMs = PressGraceMs::of(trace::DEFAULT_PRESS_GRACE_MS);
}

/// `[voice] time_warnings`: the seconds left at which a player is warned,
/// at most [`TimeWarnings::MAX`] of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeWarnings(Vec<WarningSeconds>);

impl TimeWarnings {
    pub const MAX: usize = 10;

    pub fn seconds(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.iter().map(|w| w.get())
    }
}

impl Default for TimeWarnings {
    fn default() -> Self {
        TimeWarnings(vec![
            const { WarningSeconds::of(300) },
            const { WarningSeconds::of(60) },
            const { WarningSeconds::of(10) },
        ])
    }
}

impl<'de> Deserialize<'de> for TimeWarnings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TimeWarnings, D::Error> {
        let warnings = Vec::<WarningSeconds>::deserialize(d)?;
        if warnings.len() > TimeWarnings::MAX {
            let e = format!("{} warnings: at most {}", warnings.len(), TimeWarnings::MAX);
            return Err(serde::de::Error::custom(e));
        }
        Ok(TimeWarnings(warnings))
    }
}

/// How much faster than real time a simulated board plays: a finite factor
/// from 0.01 to 10,000, so that game time always fits a `Duration`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
#[serde(try_from = "f64")]
pub struct Speed(f64);

/// A speed that is no factor a board plays at.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpeedError {
    #[error("a speed factor from 0.01 to 10000, not {0:?}")]
    OutOfRange(f64),
    #[error("{0:?} is not a number")]
    NotANumber(String),
}

impl Speed {
    pub const REAL_TIME: Speed = Speed(1.0);
    const RANGE: std::ops::RangeInclusive<f64> = 0.01..=10_000.0;

    pub fn factor(self) -> f64 {
        self.0
    }
}

impl TryFrom<f64> for Speed {
    type Error = SpeedError;
    fn try_from(v: f64) -> Result<Speed, SpeedError> {
        if Speed::RANGE.contains(&v) { Ok(Speed(v)) } else { Err(SpeedError::OutOfRange(v)) }
    }
}

impl FromStr for Speed {
    type Err = SpeedError;
    fn from_str(s: &str) -> Result<Speed, SpeedError> {
        let v: f64 = s.parse().map_err(|_| SpeedError::NotANumber(s.to_owned()))?;
        Speed::try_from(v)
    }
}

impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_and_the_file_refuse_a_number_in_the_same_words() {
        let from_file =
            |text: &str| toml::from_str::<toml::Table>(text).unwrap()["v"].clone().try_into::<EngineLevel>();
        let file = from_file("v = 11").unwrap_err().to_string();
        let flag = "11".parse::<EngineLevel>().unwrap_err().to_string();
        assert!(file.contains(&flag), "{file} / {flag}");
        assert_eq!(flag, "11 is out of range: 0 to 10 (0 first games, 10 full strength)");
        assert_eq!("7".parse::<EngineLevel>().map(EngineLevel::get), Ok(7));
        assert!("seven".parse::<EngineLevel>().unwrap_err().to_string().contains("the range is 0 to 10"));
        assert!("-1".parse::<ScanHz>().unwrap_err().to_string().starts_with("-1 is out of range: 1 to 2000"));
    }

    #[test]
    fn the_engine_levels_are_the_engines() {
        for n in EngineLevel::RANGE.values {
            assert!(tactus_engine::Level::new(n as u8).is_some(), "{n}");
        }
        assert_eq!(tactus_engine::Level::new(*EngineLevel::RANGE.values.end() as u8 + 1), None);
    }
}
