//! Trying again: the jittered back-off, and a link that is said to be lost
//! once, not at every failed attempt.

use std::time::{Duration, Instant};

/// The one back-off of tactus (tactus-retry): from 1 s to 60 s by default,
/// each wait spread ±20 % (`next_wait`).
pub use tactus_retry::Backoff;

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

/// How long a link that came back must stand before a new loss is said at
/// once; and how long an unsaid loss lasts before it is said all the same.
pub const QUIET: Duration = Duration::from_secs(30);

/// A [`LinkWatch`] for a link that may flap (a server that drops its
/// streams, answers, drops them again): lost and back are said once, not
/// at every cycle. A loss within [`QUIET`] of the link coming back is said
/// only if it lasts [`QUIET`] ([`SteadyLink::due`], [`SteadyLink::tick`]);
/// its end is said only if it was.
#[derive(Debug, Clone)]
pub struct SteadyLink {
    state: LinkState,
}

#[derive(Debug, Clone)]
enum LinkState {
    Up { back_at: Option<Instant> },
    Down { since: Instant, why: String, said: bool },
}

impl Default for SteadyLink {
    fn default() -> SteadyLink {
        SteadyLink { state: LinkState::Up { back_at: None } }
    }
}

impl SteadyLink {
    pub fn failed(&mut self, now: Instant, why: impl std::fmt::Display) -> Option<Link> {
        let LinkState::Up { back_at } = self.state else { return None };
        let said = back_at.is_none_or(|back| now.duration_since(back) >= QUIET);
        self.state = LinkState::Down { since: now, why: why.to_string(), said };
        said.then(|| Link::Lost { why: why.to_string() })
    }

    pub fn worked(&mut self, now: Instant) -> Option<Link> {
        let LinkState::Down { said, .. } = self.state else { return None };
        self.state = LinkState::Up { back_at: Some(now) };
        said.then_some(Link::Restored)
    }

    /// When an unsaid loss is to be said, if one is.
    pub fn due(&self) -> Option<Instant> {
        match &self.state {
            LinkState::Down { since, said: false, .. } => Some(*since + QUIET),
            _ => None,
        }
    }

    /// An unsaid loss that has lasted [`QUIET`]: said now.
    pub fn tick(&mut self, now: Instant) -> Option<Link> {
        match &mut self.state {
            LinkState::Down { since, why, said } if !*said && now.duration_since(*since) >= QUIET => {
                *said = true;
                Some(Link::Lost { why: why.clone() })
            }
            _ => None,
        }
    }

    pub fn is_down(&self) -> bool {
        matches!(self.state, LinkState::Down { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_flapping_link_is_said_lost_and_back_once() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut l = SteadyLink::default();
        assert!(matches!(l.failed(at(0), "refused"), Some(Link::Lost { .. })));
        assert_eq!(l.worked(at(2)), Some(Link::Restored));
        // Down and up every few seconds: nothing more is said.
        for cycle in 0..10 {
            let s = 3 + cycle * 2;
            assert_eq!(l.failed(at(s), "refused"), None);
            assert_eq!(l.due(), Some(at(s) + QUIET));
            assert_eq!(l.tick(at(s + 1)), None);
            assert_eq!(l.worked(at(s + 1)), None);
        }
        // A loss that lasts is said all the same, and its end.
        assert_eq!(l.failed(at(30), "refused"), None);
        assert_eq!(l.tick(at(30) + QUIET), Some(Link::Lost { why: "refused".into() }));
        assert_eq!(l.tick(at(100)), None);
        assert_eq!(l.worked(at(101)), Some(Link::Restored));
        // Long up: the next loss is said at once.
        assert!(l.failed(at(101) + QUIET, "timeout").is_some());
        assert!(l.is_down());
    }
}
