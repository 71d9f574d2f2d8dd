//! systemd's watchdog: the game task tells the service manager it is
//! alive, as often as the service asks (not at all without a watchdog).

use std::time::{Duration, Instant};

use crate::notify;

pub struct Watchdog {
    interval: Option<Duration>,
    next: Instant,
}

impl Watchdog {
    pub fn new() -> Self {
        Watchdog { interval: notify::watchdog_interval(), next: Instant::now() }
    }

    /// When it is next to be told; never, without a watchdog.
    pub fn due(&self) -> Option<Instant> {
        self.interval.map(|_| self.next)
    }

    /// Tells it the daemon is alive, if that is due at `now`.
    pub fn tell(&mut self, now: Instant) {
        if let Some(interval) = self.interval
            && now >= self.next
        {
            notify::watchdog();
            self.next = now + interval;
        }
    }
}
