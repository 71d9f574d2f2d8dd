//! Trying again: a jittered back-off, and a link that is said to be lost
//! once, not at every failed attempt.

use std::time::Duration;

/// Waits that double from `first` up to `max`, each spread ±20 % so that
/// many clients do not come back in step.
#[derive(Debug, Clone)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    pub fn new(first: Duration, max: Duration) -> Backoff {
        Backoff { first, max, next: first }
    }

    /// The wait before the next attempt.
    pub fn next_wait(&mut self) -> Duration {
        let base = self.next;
        self.next = (self.next * 2).min(self.max);
        let spread = getrandom::u64().unwrap_or(0) % 401; // 0..=400 ‰
        base * (800 + spread as u32) / 1000
    }

    /// It worked: the next failure starts from the first wait again.
    pub fn reset(&mut self) {
        self.next = self.first;
    }
}

impl Default for Backoff {
    /// From 1 s to 60 s.
    fn default() -> Backoff {
        Backoff::new(Duration::from_secs(1), Duration::from_secs(60))
    }
}

/// The state of a link as the owner hears it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    /// The first failure since the link was up: "connection lost, retrying".
    Lost { why: String },
    /// Up again after a loss.
    Restored,
}

/// Says [`Link::Lost`] at the first failure and [`Link::Restored`] at the
/// first success after it; nothing in between.
#[derive(Debug, Default, Clone)]
pub struct LinkWatch {
    down: bool,
}

impl LinkWatch {
    pub fn failed(&mut self, why: impl std::fmt::Display) -> Option<Link> {
        (!std::mem::replace(&mut self.down, true)).then(|| Link::Lost { why: why.to_string() })
    }

    pub fn worked(&mut self) -> Option<Link> {
        std::mem::replace(&mut self.down, false).then_some(Link::Restored)
    }

    pub fn is_down(&self) -> bool {
        self.down
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_with_a_spread_up_to_the_cap() {
        let mut b = Backoff::new(Duration::from_millis(1000), Duration::from_millis(8000));
        let waits: Vec<Duration> = (0..6).map(|_| b.next_wait()).collect();
        for (w, base) in waits.iter().zip([1000u64, 2000, 4000, 8000, 8000, 8000]) {
            assert!(*w >= Duration::from_millis(base * 8 / 10) && *w <= Duration::from_millis(base * 12 / 10), "{w:?}");
        }
        b.reset();
        assert!(b.next_wait() <= Duration::from_millis(1200));
    }

    #[test]
    fn a_loss_is_said_once_and_so_is_the_return() {
        let mut l = LinkWatch::default();
        assert_eq!(l.worked(), None);
        assert_eq!(l.failed("refused"), Some(Link::Lost { why: "refused".into() }));
        assert_eq!(l.failed("refused"), None);
        assert_eq!(l.failed("timeout"), None);
        assert_eq!(l.worked(), Some(Link::Restored));
        assert_eq!(l.worked(), None);
    }
}
