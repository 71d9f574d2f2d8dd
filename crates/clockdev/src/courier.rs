//! One command at a time: each waits for its acknowledgement and is sent
//! again when none comes. Shared by both devices.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How long to wait for an acknowledgement before sending again.
pub(crate) const RESEND_AFTER: Duration = Duration::from_millis(300);
/// Sends of one command (the first included) before giving up on it.
pub(crate) const TRIES: u32 = 3;

#[derive(Debug)]
pub(crate) struct Courier<C> {
    queue: VecDeque<C>,
    flight: Option<Flight<C>>,
}

#[derive(Debug)]
struct Flight<C> {
    cmd: C,
    tries: u32,
    due: Instant,
}

/// What to do next.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Step<C> {
    /// Write this command now (first send or resend).
    Send(C),
    /// No acknowledgement after [`TRIES`] sends: the command is dropped.
    Failed(C),
    /// Nothing to send before [`Courier::deadline`].
    Wait,
}

impl<C: Clone> Courier<C> {
    pub(crate) fn new() -> Courier<C> {
        Courier { queue: VecDeque::new(), flight: None }
    }

    pub(crate) fn push(&mut self, cmd: C) {
        self.queue.push_back(cmd);
    }

    /// Queues `cmd` in place of the queued (not yet sent) commands it makes
    /// stale: a clock shows one text at a time and one beep is a beep, so
    /// however fast they come, at most one of each waits.
    pub(crate) fn push_replacing(&mut self, cmd: C, stale: impl Fn(&C) -> bool) {
        self.queue.retain(|queued| !stale(queued));
        self.queue.push_back(cmd);
    }

    /// Queued (not yet sent) commands.
    pub(crate) fn queued(&self) -> impl Iterator<Item = &C> {
        self.queue.iter()
    }

    pub(crate) fn is_idle(&self) -> bool {
        self.flight.is_none() && self.queue.is_empty()
    }

    /// The command in flight is acknowledged if `is_ack` says so; then the
    /// next one may go.
    pub(crate) fn ack(&mut self, is_ack: impl FnOnce(&C) -> bool) -> bool {
        let acked = self.flight.as_ref().is_some_and(|f| is_ack(&f.cmd));
        if acked {
            self.flight = None;
        }
        acked
    }

    pub(crate) fn next(&mut self, now: Instant) -> Step<C> {
        if let Some(f) = self.flight.take() {
            if now < f.due {
                self.flight = Some(f);
                return Step::Wait;
            }
            if f.tries >= TRIES {
                return Step::Failed(f.cmd);
            }
            let cmd = f.cmd.clone();
            self.flight = Some(Flight { cmd: f.cmd, tries: f.tries + 1, due: now + RESEND_AFTER });
            return Step::Send(cmd);
        }
        match self.queue.pop_front() {
            Some(cmd) => {
                self.flight = Some(Flight { cmd: cmd.clone(), tries: 1, due: now + RESEND_AFTER });
                Step::Send(cmd)
            }
            None => Step::Wait,
        }
    }

    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.flight.as_ref().map(|f| f.due)
    }

    pub(crate) fn clear(&mut self) {
        self.queue.clear();
        self.flight = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_at_a_time_resent_then_failed() {
        let t0 = Instant::now();
        let mut c = Courier::new();
        c.push(1);
        c.push(2);
        assert_eq!(c.next(t0), Step::Send(1));
        assert_eq!(c.next(t0), Step::Wait, "2 waits for 1's ack");
        assert_eq!(c.deadline(), Some(t0 + RESEND_AFTER));
        assert_eq!(c.next(t0 + RESEND_AFTER), Step::Send(1));
        assert_eq!(c.next(t0 + RESEND_AFTER * 2), Step::Send(1));
        assert_eq!(c.next(t0 + RESEND_AFTER * 3), Step::Failed(1));
        assert_eq!(c.next(t0 + RESEND_AFTER * 3), Step::Send(2));
        assert!(!c.ack(|&x| x == 1), "a stale ack is ignored");
        assert!(c.ack(|&x| x == 2));
        assert!(c.is_idle());
    }
}
