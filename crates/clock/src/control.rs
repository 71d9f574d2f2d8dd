//! Time controls: the notation, its parser and printer, and the game category.

use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The largest number of seconds accepted, so that sums of times stay far
/// from overflow (about 31 years).
const MAX_SECONDS: u64 = 1_000_000_000;

/// A validated time control. Built only by parsing, so its invariants hold:
/// at least one period, only the last period may lack a move count, byo-yomi
/// has at least one period of positive length and no delay beside it.
/// Serialised as its canonical string.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TimeControl {
    system: System,
}

/// What a [`TimeControl`] is made of, for callers that need to look inside
/// (for example Guidelines III.4 only applies without an increment).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum System {
    /// Periods played one after the other, optionally ending in byo-yomi.
    /// Sudden death, guillotines, repeating periods, FIDE rapid and
    /// tournament, Fischer, Fischer tournament, Bronstein, simple delay.
    Periods {
        /// Never empty; only the last may have `moves: None`.
        periods: Vec<Period>,
        /// Periods per move after the main time runs out.
        byoyomi: Option<ByoYomi>,
    },
    /// Each side starts with `ms`; while one side's sand runs down the
    /// other's runs up by the same amount.
    Hourglass {
        /// Initial time of each side.
        ms: u64,
    },
    /// A fixed time for every move; what is left is not carried over.
    Gong {
        /// Time for each move.
        ms: u64,
    },
}

/// One period of play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Period {
    /// Moves to complete in the period; `None` means the rest of the game.
    /// A last period with a count repeats.
    pub moves: Option<NonZeroU32>,
    /// Time added when the period begins (the first period's is the start time).
    pub time_ms: u64,
    /// What each move played in this period gets.
    pub bonus: Bonus,
}

/// Per-move extra time of a period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bonus {
    /// Nothing.
    None,
    /// Fischer: added after the move is completed; the clock can gain.
    Increment(u64),
    /// Bronstein: the time used, up to this much, is given back at the press;
    /// the clock never gains.
    Bronstein(u64),
    /// Simple (US) delay, Article 6.3.2: the main time only starts running
    /// after this much of the move has passed.
    Delay(u64),
}

/// Byo-yomi: after the main time, `periods` periods of `period_ms` each. A
/// move completed within a period resets it; a period that runs out is lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ByoYomi {
    /// Number of periods, at least one.
    pub periods: u32,
    /// Length of each period, positive.
    pub period_ms: u64,
}

/// Game category of Annexes A and B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Category {
    /// 60 minutes or more for 60 moves.
    Standard,
    /// More than 10 and less than 60 minutes for 60 moves (A.1).
    Rapid,
    /// 10 minutes or less for 60 moves (B.1).
    Blitz,
}

impl Category {
    /// Time given to the opponent for an illegal move (7.5.5, A.3) or an
    /// incorrect claim: two minutes in standard play, one otherwise.
    pub fn penalty_ms(self) -> u64 {
        match self {
            Category::Standard => 120_000,
            Category::Rapid | Category::Blitz => 60_000,
        }
    }
}

impl Bonus {
    /// Time per move this bonus can give, as counted for the category.
    fn per_move_ms(self) -> u64 {
        match self {
            Bonus::None => 0,
            Bonus::Increment(ms) | Bonus::Bronstein(ms) | Bonus::Delay(ms) => ms,
        }
    }
}

/// Index of the period that move `n` (1-based) is played in, and whether
/// completing move `n` ends that period. Relies on `periods` being non-empty.
pub(crate) fn locate(periods: &[Period], n: u32) -> (usize, bool) {
    let last = periods.len() - 1;
    let mut before = 0u32;
    for (i, p) in periods.iter().enumerate() {
        let Some(count) = p.moves else {
            return (i, false);
        };
        let end = before.saturating_add(count.get());
        if i == last {
            // A last period with a count repeats: it ends every `count` moves.
            let into = n.saturating_sub(before);
            return (i, into > 0 && into.is_multiple_of(count.get()));
        }
        if n <= end {
            return (i, n == end);
        }
        before = end;
    }
    (last, false)
}

/// The period that follows period `i` (a last period follows itself).
pub(crate) fn next_period(periods: &[Period], i: usize) -> &Period {
    periods.get(i + 1).unwrap_or(&periods[i])
}

impl TimeControl {
    /// Parses a time control; `Ok(None)` for "no clock" (`-`, `?` or empty).
    pub fn parse(s: &str) -> Result<Option<TimeControl>, ParseError> {
        if matches!(s, "" | "-" | "?") {
            return Ok(None);
        }
        Parser { s, pos: 0 }.control().map(Some)
    }

    /// One period for the whole game with an increment after each move
    /// (none when 0): the clock of Lichess and of most online play, written
    /// `limit+increment` in seconds. `None` without time at the start
    /// ([`ParseErrorKind::NoTimeAtStart`]: 6.6, the flag would fall before
    /// the first move).
    pub fn with_increment(limit_ms: u64, increment_ms: u64) -> Option<TimeControl> {
        let bonus = if increment_ms == 0 { Bonus::None } else { Bonus::Increment(increment_ms) };
        let periods = vec![Period { moves: None, time_ms: limit_ms, bonus }];
        (limit_ms > 0).then_some(TimeControl { system: System::Periods { periods, byoyomi: None } })
    }

    /// The parts of the time control.
    pub fn system(&self) -> &System {
        &self.system
    }

    /// Category of Annex A.1 / B.1 from the time for 60 moves: the periods'
    /// time reached within 60 moves plus every move's bonus (delays counted
    /// like increments); byo-yomi counts its periods' total once, the
    /// hourglass its start time, the gong 60 moves' time.
    pub fn category(&self) -> Category {
        let ms = match &self.system {
            System::Hourglass { ms } => *ms,
            System::Gong { ms } => ms.saturating_mul(60),
            System::Periods { periods, byoyomi } => {
                let mut total = periods[0].time_ms;
                for n in 1..=60 {
                    let (i, ends) = locate(periods, n);
                    total = total.saturating_add(periods[i].bonus.per_move_ms());
                    // A period beginning after move 60 is not part of the 60 moves.
                    if ends && n < 60 {
                        total = total.saturating_add(next_period(periods, i).time_ms);
                    }
                }
                let byo = byoyomi.map_or(0, |b| u64::from(b.periods).saturating_mul(b.period_ms));
                total.saturating_add(byo)
            }
        };
        if ms <= 600_000 {
            Category::Blitz
        } else if ms < 3_600_000 {
            Category::Rapid
        } else {
            Category::Standard
        }
    }

    /// Penalty time of Article 7.5.5 / A.3 for this control's category.
    pub fn penalty_ms(&self) -> u64 {
        self.category().penalty_ms()
    }

    /// The next time control for a side that has completed `moves_done`
    /// moves: the move whose completion ends the period being played, and
    /// the time the next period then adds. `None` when no control is ahead
    /// (sudden death, the rest of the game, hourglass, gong).
    pub fn next_control(&self, moves_done: u32) -> Option<Control> {
        let System::Periods { periods, .. } = &self.system else { return None };
        let playing = moves_done.saturating_add(1);
        let (i, _) = locate(periods, playing);
        let count = periods[i].moves?.get();
        // Moves before period `i` began; a repeating last period ends every
        // `count` moves after that.
        let before: u32 = periods[..i].iter().filter_map(|p| p.moves).map(|m| m.get()).fold(0, u32::saturating_add);
        let into = playing.saturating_sub(before);
        let at_move = before.saturating_add(into.div_ceil(count).saturating_mul(count));
        Some(Control { at_move, added_ms: next_period(periods, i).time_ms })
    }
}

/// A time control ahead: completing move `at_move` adds `added_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Control {
    pub at_move: u32,
    pub added_ms: u64,
}

/// Fails with [`ParseErrorKind::NoClock`] for `-`, `?` and the empty string;
/// use [`TimeControl::parse`] to accept them.
impl FromStr for TimeControl {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TimeControl::parse(s)?.ok_or_else(|| ParseError { input: s.to_owned(), pos: 0, kind: ParseErrorKind::NoClock })
    }
}

impl TryFrom<String> for TimeControl {
    type Error = ParseError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<TimeControl> for String {
    fn from(tc: TimeControl) -> String {
        tc.to_string()
    }
}

/// Writes milliseconds as seconds, with only the decimals needed.
struct Seconds(u64);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (s, ms) = (self.0 / 1000, self.0 % 1000);
        if ms == 0 {
            write!(f, "{s}")
        } else {
            let frac = format!("{ms:03}");
            write!(f, "{s}.{}", frac.trim_end_matches('0'))
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.system {
            System::Hourglass { ms } => write!(f, "*{}", Seconds(*ms)),
            System::Gong { ms } => write!(f, "g{}", Seconds(*ms)),
            System::Periods { periods, byoyomi } => {
                for (i, p) in periods.iter().enumerate() {
                    if i > 0 {
                        f.write_str(":")?;
                    }
                    if let Some(n) = p.moves {
                        write!(f, "{n}/")?;
                    }
                    write!(f, "{}", Seconds(p.time_ms))?;
                    match p.bonus {
                        Bonus::None => {}
                        Bonus::Increment(ms) => write!(f, "+{}", Seconds(ms))?,
                        Bonus::Bronstein(ms) => write!(f, "d{}", Seconds(ms))?,
                        Bonus::Delay(ms) => write!(f, "s{}", Seconds(ms))?,
                    }
                }
                if let Some(b) = byoyomi {
                    write!(f, "b{}x{}", b.periods, Seconds(b.period_ms))?;
                }
                Ok(())
            }
        }
    }
}

/// A time control that could not be parsed: what is wrong and at which byte.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("time control {input:?}, at byte {pos}: {kind}")]
pub struct ParseError {
    /// The text given.
    pub input: String,
    /// Byte offset of the problem.
    pub pos: usize,
    /// The problem.
    pub kind: ParseErrorKind,
}

/// What is wrong in a time control.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    /// `-`, `?` or empty given where a clock is required.
    #[error("this means no clock")]
    NoClock,
    /// Something else than what the notation allows here.
    #[error("expected {expected}, found {}", found.map_or("the end".to_owned(), |c| format!("{c:?}")))]
    Expected {
        /// What the notation allows here.
        expected: &'static str,
        /// What was there, `None` at the end.
        found: Option<char>,
    },
    /// Times are kept in whole milliseconds.
    #[error("at most three decimals (milliseconds)")]
    TooManyDecimals,
    /// Beyond the accepted range.
    #[error("number too large")]
    TooLarge,
    /// A move count of zero.
    #[error("a period needs at least one move")]
    ZeroMoves,
    /// An hourglass, gong or byo-yomi without time or periods.
    #[error("{0} must be more than zero")]
    Zero(&'static str),
    /// Moves after a period for the rest of the game.
    #[error("only the last period may be without a move count")]
    UncountedNotLast,
    /// Byo-yomi's periods already play the role of a delay.
    #[error("byo-yomi cannot be combined with a delay")]
    ByoYomiWithDelay,
    /// No time at the start, and neither a delay nor byo-yomi to give
    /// some: White's clock runs from the start (6.6), so the flag falls
    /// before the first move.
    #[error("it starts the clocks at 0:00, so White's flag falls before the first move")]
    NoTimeAtStart,
}

/// Recursive-descent parser over the notation documented in the crate root.
struct Parser<'a> {
    s: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.pos += c.len_utf8();
        }
        hit
    }

    fn error_at(&self, pos: usize, kind: ParseErrorKind) -> ParseError {
        ParseError { input: self.s.to_owned(), pos, kind }
    }

    fn expected(&self, expected: &'static str) -> ParseError {
        self.error_at(self.pos, ParseErrorKind::Expected { expected, found: self.peek() })
    }

    /// A run of decimal digits as an integer no larger than `max`.
    fn integer(&mut self, what: &'static str, max: u64) -> Result<u64, ParseError> {
        let start = self.pos;
        let len = self.s[start..].bytes().take_while(u8::is_ascii_digit).count();
        if len == 0 {
            return Err(self.expected(what));
        }
        self.pos += len;
        self.s[start..self.pos]
            .parse::<u64>()
            .ok()
            .filter(|&v| v <= max)
            .ok_or_else(|| self.error_at(start, ParseErrorKind::TooLarge))
    }

    /// Seconds with up to three decimals, as milliseconds.
    fn seconds(&mut self) -> Result<u64, ParseError> {
        let whole = self.integer("a number of seconds", MAX_SECONDS)?;
        let mut ms = whole * 1000;
        if self.eat('.') {
            let start = self.pos;
            let frac = self.integer("decimals", u64::MAX)?;
            let digits = self.pos - start;
            if digits > 3 {
                return Err(self.error_at(start + 3, ParseErrorKind::TooManyDecimals));
            }
            ms += frac * 10u64.pow(3 - digits as u32);
        }
        Ok(ms)
    }

    fn positive_seconds(&mut self, what: &'static str) -> Result<u64, ParseError> {
        let start = self.pos;
        let ms = self.seconds()?;
        if ms == 0 {
            return Err(self.error_at(start, ParseErrorKind::Zero(what)));
        }
        Ok(ms)
    }

    fn end(&self) -> Result<(), ParseError> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.expected("the end")),
        }
    }

    fn control(mut self) -> Result<TimeControl, ParseError> {
        let system = if self.eat('*') {
            System::Hourglass { ms: self.positive_seconds("the hourglass time")? }
        } else if self.eat('g') {
            System::Gong { ms: self.positive_seconds("the gong time")? }
        } else {
            self.periods()?
        };
        self.end()?;
        Ok(TimeControl { system })
    }

    fn periods(&mut self) -> Result<System, ParseError> {
        let mut periods = Vec::new();
        loop {
            let start = self.pos;
            if periods.last().is_some_and(|p: &Period| p.moves.is_none()) {
                return Err(self.error_at(start, ParseErrorKind::UncountedNotLast));
            }
            periods.push(self.period()?);
            if !self.eat(':') {
                break;
            }
        }
        let mut byoyomi = None;
        let start = self.pos;
        if self.eat('b') {
            if periods.iter().any(|p| matches!(p.bonus, Bonus::Bronstein(_) | Bonus::Delay(_))) {
                return Err(self.error_at(start, ParseErrorKind::ByoYomiWithDelay));
            }
            let count_at = self.pos;
            let count = self.integer("the number of byo-yomi periods", u64::from(u32::MAX))?;
            if count == 0 {
                return Err(self.error_at(count_at, ParseErrorKind::Zero("the number of periods")));
            }
            if !self.eat('x') {
                return Err(self.expected("'x' and the byo-yomi period in seconds"));
            }
            byoyomi = Some(ByoYomi { periods: count as u32, period_ms: self.positive_seconds("the byo-yomi period")? });
        }
        let first = periods[0];
        if first.time_ms == 0 && byoyomi.is_none() && !matches!(first.bonus, Bonus::Delay(_)) {
            return Err(self.error_at(0, ParseErrorKind::NoTimeAtStart));
        }
        Ok(System::Periods { periods, byoyomi })
    }

    /// `[moves/]seconds[bonus]`
    fn period(&mut self) -> Result<Period, ParseError> {
        let start = self.pos;
        let first = self.integer("a number of seconds or moves", MAX_SECONDS)?;
        let (moves, time_ms) = if self.eat('/') {
            let count = u32::try_from(first).map_err(|_| self.error_at(start, ParseErrorKind::TooLarge))?;
            let moves = NonZeroU32::new(count).ok_or_else(|| self.error_at(start, ParseErrorKind::ZeroMoves))?;
            (Some(moves), self.seconds()?)
        } else {
            // Re-read as seconds, which may have decimals.
            self.pos = start;
            (None, self.seconds()?)
        };
        let bonus = if self.eat('+') {
            Bonus::Increment(self.seconds()?)
        } else if self.eat('d') {
            Bonus::Bronstein(self.seconds()?)
        } else if self.eat('s') {
            Bonus::Delay(self.seconds()?)
        } else {
            Bonus::None
        };
        Ok(Period { moves, time_ms, bonus })
    }
}

#[cfg(test)]
mod next_control_tests {
    use super::*;

    fn tc(s: &str) -> TimeControl {
        s.parse().unwrap()
    }

    #[test]
    fn the_control_ends_the_period_being_played() {
        let classic = tc("40/5400+30:1800+30");
        assert_eq!(classic.next_control(0), Some(Control { at_move: 40, added_ms: 1_800_000 }));
        assert_eq!(classic.next_control(39), Some(Control { at_move: 40, added_ms: 1_800_000 }));
        // After move 40 the rest of the game has no control.
        assert_eq!(classic.next_control(40), None);
        let three = tc("40/7200:20/3600:900");
        assert_eq!(three.next_control(40), Some(Control { at_move: 60, added_ms: 900_000 }));
        assert_eq!(three.next_control(60), None);
    }

    #[test]
    fn a_last_period_with_a_count_repeats() {
        let repeating = tc("40/7200:20/3600");
        assert_eq!(repeating.next_control(45), Some(Control { at_move: 60, added_ms: 3_600_000 }));
        assert_eq!(repeating.next_control(60), Some(Control { at_move: 80, added_ms: 3_600_000 }));
        assert_eq!(tc("40/300").next_control(40), Some(Control { at_move: 80, added_ms: 300_000 }));
    }

    #[test]
    fn no_control_without_move_counts() {
        for s in ["5400+30", "300", "*60", "g10"] {
            assert_eq!(tc(s).next_control(0), None, "{s}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(s: &str) -> TimeControl {
        s.parse().unwrap()
    }

    fn err(s: &str) -> (usize, ParseErrorKind) {
        let e = TimeControl::parse(s).unwrap_err();
        (e.pos, e.kind)
    }

    #[test]
    fn a_limit_and_an_increment_are_the_control_they_are_written_as() {
        for (limit_ms, increment_ms, text) in
            [(180_000, 2_000, "180+2"), (600_000, 0, "600"), (15_000, 1_500, "15+1.5")]
        {
            let control = TimeControl::with_increment(limit_ms, increment_ms).unwrap();
            assert_eq!(control.to_string(), text);
            assert_eq!(tc(text), control);
        }
        assert_eq!(TimeControl::with_increment(0, 1_000), None, "as 0+1 is refused");
    }

    #[test]
    fn no_clock() {
        for s in ["", "-", "?"] {
            assert_eq!(TimeControl::parse(s), Ok(None));
            assert_eq!(s.parse::<TimeControl>().unwrap_err().kind, ParseErrorKind::NoClock);
        }
    }

    #[test]
    fn parses_the_systems() {
        let p = |moves: Option<u32>, time_ms, bonus| Period { moves: moves.and_then(NonZeroU32::new), time_ms, bonus };
        let periods = |s: &str| match tc(s).system {
            System::Periods { periods, byoyomi } => (periods, byoyomi),
            other => panic!("{other:?}"),
        };
        assert_eq!(periods("300").0, [p(None, 300_000, Bonus::None)]);
        assert_eq!(periods("300+0.5").0, [p(None, 300_000, Bonus::Increment(500))]);
        assert_eq!(
            periods("40/5400+30:1800+30").0,
            [p(Some(40), 5_400_000, Bonus::Increment(30_000)), p(None, 1_800_000, Bonus::Increment(30_000)),]
        );
        assert_eq!(
            periods("40/7200:20/3600").0,
            [p(Some(40), 7_200_000, Bonus::None), p(Some(20), 3_600_000, Bonus::None),]
        );
        assert_eq!(periods("5400d30").0, [p(None, 5_400_000, Bonus::Bronstein(30_000))]);
        assert_eq!(periods("5400s5").0, [p(None, 5_400_000, Bonus::Delay(5_000))]);
        assert_eq!(
            periods("3600b5x30"),
            (vec![p(None, 3_600_000, Bonus::None)], Some(ByoYomi { periods: 5, period_ms: 30_000 }))
        );
        assert_eq!(tc("*300").system, System::Hourglass { ms: 300_000 });
        assert_eq!(tc("g30").system, System::Gong { ms: 30_000 });
        assert_eq!(tc("g0.25").system, System::Gong { ms: 250 });
    }

    #[test]
    fn canonical_display() {
        for (input, out) in [
            ("300", "300"),
            ("300+2", "300+2"),
            ("300.000+0.50", "300+0.5"),
            ("40/5400+30:1800+30", "40/5400+30:1800+30"),
            ("40/7200:20/3600", "40/7200:20/3600"),
            ("40/180:0+2", "40/180:0+2"),
            ("*300", "*300"),
            ("g10", "g10"),
            ("5400d30", "5400d30"),
            ("5400s5", "5400s5"),
            ("3600b5x30", "3600b5x30"),
            ("40/5400+30:1800b1x30.125", "40/5400+30:1800b1x30.125"),
        ] {
            assert_eq!(tc(input).to_string(), out);
        }
    }

    #[test]
    fn parse_errors() {
        use ParseErrorKind::*;
        let expected = |expected, found| Expected { expected, found };
        assert_eq!(err("abc"), (0, expected("a number of seconds or moves", Some('a'))));
        assert_eq!(err("300+"), (4, expected("a number of seconds", None)));
        assert_eq!(err("300x"), (3, expected("the end", Some('x'))));
        assert_eq!(err("0/300"), (0, ZeroMoves));
        assert_eq!(err("40/"), (3, expected("a number of seconds", None)));
        assert_eq!(err("300:40/300"), (4, UncountedNotLast));
        assert_eq!(err("1.2345"), (5, TooManyDecimals));
        assert_eq!(err("1."), (2, expected("decimals", None)));
        assert_eq!(err("99999999999"), (0, TooLarge));
        assert_eq!(err("5000000000/60"), (0, TooLarge));
        assert_eq!(err("*0"), (1, Zero("the hourglass time")));
        assert_eq!(err("g"), (1, expected("a number of seconds", None)));
        assert_eq!(err("3600b0x30"), (5, Zero("the number of periods")));
        assert_eq!(err("3600b5x0"), (7, Zero("the byo-yomi period")));
        // 6.6: White's clock runs from the start; with no time, no delay and
        // no byo-yomi, the flag falls before the first move.
        assert_eq!(err("0"), (0, NoTimeAtStart));
        assert_eq!(err("0+5"), (0, NoTimeAtStart));
        assert_eq!(err("40/0:3600"), (0, NoTimeAtStart));
        assert!(TimeControl::parse("0s5").is_ok() && TimeControl::parse("0b3x30").is_ok());
        assert_eq!(err("3600b5"), (6, expected("'x' and the byo-yomi period in seconds", None)));
        assert_eq!(err("3600s5b5x30"), (6, ByoYomiWithDelay));
        assert_eq!(err(" 300"), (0, expected("a number of seconds or moves", Some(' '))));
        assert_eq!(err("*300+2"), (4, expected("the end", Some('+'))));
        let e = TimeControl::parse("40/54x").unwrap_err();
        assert_eq!(e.to_string(), "time control \"40/54x\", at byte 5: expected the end, found 'x'");
    }

    #[test]
    fn categories() {
        use Category::*;
        for (s, cat) in [
            ("180+2", Blitz),                 // 180 + 60 × 2 = 300 s ≤ 600
            ("300", Blitz),                   // 300 s
            ("600", Blitz),                   // exactly 10 min is still blitz
            ("600.001", Rapid),               // just over 10 min
            ("900+10", Rapid),                // 900 + 60 × 10 = 1500 s
            ("3599", Rapid),                  // under 60 min
            ("3600", Standard),               // 60 min is standard
            ("40/5400+30:1800+30", Standard), // 5400 + 1800 + 60 × 30 = 9000 s
            ("*300", Blitz),                  // the hourglass start time, 300 s
            ("40/7200:20/3600", Standard),    // 7200 + 3600 (moves 41-60) = 10800 s
            ("60/300:3600", Blitz),           // the second period begins after move 60
            ("59/300:3600", Standard),        // ... or with move 60: 300 + 3600 s
            ("g10", Blitz),                   // 60 × 10 s = 600 s
            ("g30", Rapid),                   // 60 × 30 s = 1800 s
            ("300d5", Blitz),                 // 300 + 60 × 5 = 600 s
            ("300b5x60", Blitz),              // 300 + 5 × 60 = 600 s
            ("300b5x61", Rapid),              // 300 + 5 × 61 = 605 s
            ("1500s10", Rapid),               // 1500 + 60 × 10 = 2100 s
        ] {
            assert_eq!(tc(s).category(), cat, "{s}");
        }
        assert_eq!(tc("180+2").penalty_ms(), 60_000);
        assert_eq!(tc("900+10").penalty_ms(), 60_000);
        assert_eq!(tc("40/5400+30:1800+30").penalty_ms(), 120_000);
    }

    #[test]
    fn serde_as_string() {
        let t = tc("40/5400+30:1800+30");
        let s: String = t.clone().into();
        assert_eq!(TimeControl::try_from(s), Ok(t));
    }
}
