//! The one back-off of tactus — Lichess's requests and streams, the hall's
//! broker, the engine restarted, a round's pairing sent again — so that
//! every "try again later" waits the same way.
//!
//! Each wait is twice the last, from a first step up to a cap. Clients of
//! one server (a hall's boards, after the broker restarts) draw each wait
//! from 80 % to 120 % of its step, so that they do not all come back in the
//! same instant ([`Backoff::next_wait`]); code whose tests give the time,
//! or that is the only client of what it retries (its own engine), takes
//! the step itself ([`Backoff::next_step`]).

use std::time::Duration;

/// Waits that double from `first` up to `max`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    pub const fn new(first: Duration, max: Duration) -> Backoff {
        Backoff { first, max, next: first }
    }

    /// The step of the next wait, exactly; the one after is twice as long,
    /// up to the cap.
    pub fn next_step(&mut self) -> Duration {
        let step = self.next;
        self.next = self.next.saturating_mul(2).min(self.max);
        step
    }

    /// The next wait: the next step, spread ±20 %.
    pub fn next_wait(&mut self) -> Duration {
        spread(self.next_step())
    }

    /// It worked: the next failure starts from the first step again.
    pub fn reset(&mut self) {
        self.next = self.first;
    }

    /// The longest step.
    pub fn max(&self) -> Duration {
        self.max
    }
}

impl Default for Backoff {
    /// From 1 s to 60 s.
    fn default() -> Backoff {
        Backoff::new(Duration::from_secs(1), Duration::from_secs(60))
    }
}

/// `step`, drawn from 80 % to 120 % of it. Without the system's randomness
/// the step itself.
pub fn spread(step: Duration) -> Duration {
    let permille = getrandom::u64().map_or(200, |r| r % 401) as u32; // 0..=400 ‰
    (step / 1000).checked_mul(800 + permille).unwrap_or(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn steps_double_up_to_the_cap_and_start_again_after_a_success() {
        let mut b = Backoff::new(MS * 500, MS * 3000);
        let steps: Vec<Duration> = (0..6).map(|_| b.next_step()).collect();
        assert_eq!(steps, [500, 1000, 2000, 3000, 3000, 3000].map(|ms| MS * ms));
        b.reset();
        assert_eq!(b.next_step(), MS * 500);
        assert_eq!(b.max(), MS * 3000);
    }

    #[test]
    fn waits_are_their_step_spread_by_a_fifth() {
        let mut b = Backoff::new(MS * 1000, MS * 8000);
        let waits: Vec<Duration> = (0..6).map(|_| b.next_wait()).collect();
        for (w, step) in waits.iter().zip([1000u32, 2000, 4000, 8000, 8000, 8000]) {
            assert!(*w >= MS * step * 4 / 5 && *w <= MS * step * 6 / 5, "{w:?} for {step} ms");
        }
        // Spread, not constant: forty waits of one step are not all alike.
        let drawn: std::collections::HashSet<Duration> = (0..40).map(|_| spread(MS * 1000)).collect();
        assert!(drawn.len() > 1, "{drawn:?}");
    }

    #[test]
    fn a_step_never_overflows() {
        let mut b = Backoff::new(Duration::MAX / 3, Duration::MAX);
        for _ in 0..4 {
            b.next_step();
        }
        assert_eq!(b.next_step(), Duration::MAX);
        assert!(b.next_wait() >= Duration::MAX / 5 * 4);
    }
}
