//! Maps an open clock's millisecond counter to the host's clock, so a
//! lever press is timed when it happened on the clock, not when its line
//! was read (USB latency, a resend after a lost line).

use std::time::{Duration, Instant};

/// A press line is never placed earlier than this before it was read.
const MAX_LAG: Duration = Duration::from_secs(1);
/// Allowed drift between the clock's crystal and the host: 200 ppm.
const DRIFT_DIVISOR: u64 = 5_000;

/// The anchor is the message that arrived fastest: its read time minus its
/// counter is the smallest seen, so the latest possible placement.
#[derive(Debug, Default)]
pub(crate) struct TimeMap {
    anchor: Option<(Instant, u32)>,
}

impl TimeMap {
    pub(crate) fn reset(&mut self) {
        self.anchor = None;
    }

    /// The host time of clock counter `clock_ms`, carried by a line read at
    /// `read`. Never later than `read`.
    pub(crate) fn place(&mut self, clock_ms: u32, read: Instant) -> Instant {
        if let Some((h0, c0)) = self.anchor {
            // Signed distance on a wrapping counter: ±24 days.
            let dt = i64::from(clock_ms.wrapping_sub(c0) as i32);
            let slack = dt.unsigned_abs() / DRIFT_DIVISOR;
            let predicted = if dt >= 0 {
                h0.checked_add(Duration::from_millis(dt.unsigned_abs() + slack))
            } else {
                h0.checked_sub(Duration::from_millis(dt.unsigned_abs()))
                    .and_then(|h| h.checked_add(Duration::from_millis(slack)))
            };
            if let Some(p) = predicted
                && p <= read
                && read.duration_since(p) <= MAX_LAG
            {
                return p;
            }
        }
        // First message, a faster one than the anchor, or a counter that
        // jumped (the clock restarted): this line becomes the anchor.
        self.anchor = Some((read, clock_ms));
        read
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_late_line_is_placed_when_the_clock_counted_it() {
        let t0 = Instant::now();
        let mut m = TimeMap::default();
        assert_eq!(m.place(1_000, t0), t0);
        // Pressed at clock 6_000, read 40 ms late.
        assert_eq!(m.place(6_000, t0 + ms(5_040)), t0 + ms(5_001));
    }

    #[test]
    fn a_faster_line_becomes_the_anchor() {
        let t0 = Instant::now();
        let mut m = TimeMap::default();
        m.place(1_000, t0 + ms(30));
        assert_eq!(m.place(2_000, t0 + ms(1_000)), t0 + ms(1_000));
        assert_eq!(m.place(3_000, t0 + ms(2_010)), t0 + ms(2_000));
    }

    #[test]
    fn a_counter_that_restarts_or_wraps_is_survived() {
        let t0 = Instant::now();
        let mut m = TimeMap::default();
        m.place(u32::MAX - 99, t0);
        assert_eq!(m.place(100, t0 + ms(205)), t0 + ms(200), "wrapped");
        assert_eq!(m.place(5, t0 + ms(9_000)), t0 + ms(9_000), "restarted");
    }
}
