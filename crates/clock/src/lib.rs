//! A pure chess clock: the time controls of the FIDE Laws (Article 6,
//! Annexes A and B, Guidelines III) and the twelve timing systems of an
//! electronic clock (the 2001 FIDE collection, "Digital" clocks), in exact
//! integer milliseconds. No I/O and no wall clock: every call carries its
//! time `t` in milliseconds.
//!
//! # Notation
//!
//! [`TimeControl`] reads and writes (`FromStr`, [`TimeControl::parse`],
//! `Display`) the PGN `TimeControl` tag, extended. Times are seconds with up
//! to three decimals (`0.5` is 500 ms); `Display` writes the canonical form
//! (no trailing zeros) and parsing it gives back the same value.
//!
//! | Text | System |
//! |------|--------|
//! | `-`, `?`, empty | no clock: [`TimeControl::parse`] gives `Ok(None)`, `FromStr` an error |
//! | `300` | sudden death, 300 s for the game |
//! | `300+2` | Fischer: 2 s added after each completed move, from move 1 |
//! | `7200d30` | Bronstein delay: time used, up to 30 s, given back at the press |
//! | `7200s5` | simple delay (6.3.2): the main time starts after 5 s of each move |
//! | `40/7200:3600` | one period plus guillotine: 40 moves in 2 h, then 1 h for the rest |
//! | `40/7200:20/3600:1800` | two periods plus guillotine |
//! | `40/7200:20/3600` | repeating period: a last period with a move count repeats (+1 h after moves 60, 80, …) |
//! | `40/3600:0+10` | FIDE rapid: a period, then an increment per move |
//! | `40/5400:20/1800:0+20` or `40/5400+30:1800+30` | FIDE tournament |
//! | `40/4800+60:20/2400+60` | Fischer tournament: periods with an increment |
//! | `3600b5x30` | byo-yomi: 1 h main time, then 5 periods of 30 s |
//! | `*60` | hourglass: 60 s each, the opponent's sand runs into your glass |
//! | `g10` | gong: 10 s for every move, not carried over |
//!
//! Grammar: `control := "*" secs | "g" secs | period (":" period)* ["b" N "x" secs]`,
//! `period := [N "/"] secs ["+" secs | "d" secs | "s" secs]`. A period's
//! time is added when the player completes the previous period's move
//! count (after White's 40th move, say); its `+`, `d` or `s` applies to the
//! moves played in it. Only the last period may lack a count; then it is a
//! guillotine. Byo-yomi follows the main time whenever it runs out and
//! cannot be combined with a delay. A control that starts the clocks at 0:00
//! with neither a delay nor byo-yomi is refused: White's clock runs from the
//! start (6.6), so the flag would fall before the first move.
//!
//! # Category
//!
//! [`TimeControl::category`] counts the time for 60 moves (A.1, B.1):
//! blitz up to 10 minutes, rapid under 60, standard otherwise;
//! [`TimeControl::penalty_ms`] gives the 7.5.5 / A.3 penalty.

mod clock;
mod control;
mod hms;

pub use clock::{Clock, Press, PressError, Reading};
pub use control::{Bonus, ByoYomi, Category, Control, ParseError, ParseErrorKind, Period, System, TimeControl};
pub use hms::Hms;
