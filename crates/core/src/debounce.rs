//! Contact bounce filter. A reed switch toggles for a few milliseconds when a
//! piece lands or leaves; a square's new reading is accepted only after it has
//! held for `window` ms. The window must stay shorter than the shortest real
//! off-time of a capture (a captured piece swapped for the capturing one),
//! measured at 20 ms on real handling; bounce edges come 1–5 ms apart.

use shakmaty::{Bitboard, Square};

use crate::Ms;

/// `last_edge` of a square that has not had one.
const NEVER: Ms = Ms::MAX;

/// Per-square debouncer over the 64 squares.
#[derive(Debug, Clone)]
pub struct Debouncer {
    window: Ms,
    /// The accepted (debounced) occupancy.
    stable: Bitboard,
    /// The latest raw reading.
    raw: Bitboard,
    /// Squares whose raw reading differs from the stable one.
    pending: Bitboard,
    /// Time of each square's latest raw edge.
    last_edge: [Ms; 64],
    /// When each pending square's burst of edges began: the moment the hand
    /// acted, which orders touches better than when the bouncing stopped.
    burst_start: [Ms; 64],
}

/// A debounced change: the square reads `on` from time `t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    pub t: Ms,
    pub sq: Square,
    pub on: bool,
    /// The first raw edge of the burst that led to this reading.
    pub since: Ms,
}

impl Debouncer {
    pub fn new(window: Ms, initial: Bitboard) -> Debouncer {
        Debouncer {
            window,
            stable: initial,
            raw: initial,
            pending: Bitboard::EMPTY,
            last_edge: [NEVER; 64],
            burst_start: [0; 64],
        }
    }

    pub fn stable(&self) -> Bitboard {
        self.stable
    }

    /// A raw edge. Repeated edges that do not change the reading are
    /// tolerated (the spec allows them) and do not restart the window.
    pub fn edge(&mut self, t: Ms, sq: Square, on: bool) {
        if self.raw.contains(sq) == on {
            return;
        }
        self.raw.toggle(sq);
        let i = sq as usize;
        let steady = self.last_edge[i] == NEVER || t.saturating_sub(self.last_edge[i]) > self.window;
        if !self.pending.contains(sq) && steady {
            // The square had been steady: a new burst begins.
            self.burst_start[i] = t;
        }
        self.last_edge[i] = t;
        self.pending.toggle(sq);
    }

    /// When the next pending reading will be accepted.
    pub fn next_deadline(&self) -> Option<Ms> {
        self.pending.into_iter().map(|sq| self.last_edge[sq as usize] + self.window).min()
    }

    /// Accepts every reading that has held for the window by time `t`, in
    /// time order (ties by square), and returns the first one due, if any.
    /// Call repeatedly until `None` to drain.
    pub fn pop_due(&mut self, t: Ms) -> Option<Change> {
        let (sq, due) = self
            .pending
            .into_iter()
            .map(|sq| (sq, self.last_edge[sq as usize] + self.window))
            .filter(|&(_, due)| due <= t)
            .min_by_key(|&(sq, due)| (due, sq))?;
        self.pending.discard(sq);
        self.stable.toggle(sq);
        Some(Change { t: due, sq, on: self.stable.contains(sq), since: self.burst_start[sq as usize] })
    }

    /// Accepts every pending reading now: a clock press means the hand has
    /// left the board, so what the sensors read is what stands.
    pub fn flush(&mut self, t: Ms) -> impl Iterator<Item = Change> + use<> {
        let pending = self.pending;
        self.pending = Bitboard::EMPTY;
        self.stable = self.raw;
        let raw = self.raw;
        let since = self.burst_start;
        pending.into_iter().map(move |sq| Change { t, sq, on: raw.contains(sq), since: since[sq as usize] })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(d: &mut Debouncer, t: Ms) -> Vec<Change> {
        std::iter::from_fn(|| d.pop_due(t)).collect()
    }

    #[test]
    fn bounce_becomes_one_lift() {
        let mut d = Debouncer::new(10, Bitboard::from(Square::E2));
        for (t, on) in [(100, false), (103, true), (104, false), (106, true), (108, false)] {
            d.edge(t, Square::E2, on);
        }
        assert_eq!(drain(&mut d, 117), vec![]);
        assert_eq!(d.next_deadline(), Some(118));
        assert_eq!(drain(&mut d, 200), vec![Change { t: 118, sq: Square::E2, on: false, since: 100 }]);
        assert_eq!(d.stable(), Bitboard::EMPTY);
    }

    #[test]
    fn bounce_that_ends_where_it_started_is_nothing() {
        let mut d = Debouncer::new(10, Bitboard::from(Square::E2));
        for (t, on) in [(100, false), (102, true), (103, false), (105, true)] {
            d.edge(t, Square::E2, on);
        }
        assert_eq!(drain(&mut d, 1000), vec![]);
        assert_eq!(d.next_deadline(), None);
        assert!(d.stable().contains(Square::E2));
    }

    #[test]
    fn a_twenty_ms_capture_swap_survives() {
        let mut d = Debouncer::new(10, Bitboard::from(Square::F5));
        d.edge(1000, Square::F5, false);
        // The session runs the timers due before each new edge.
        let mut changes = drain(&mut d, 1020);
        d.edge(1020, Square::F5, true);
        changes.extend(drain(&mut d, 2000));
        assert_eq!(
            changes,
            vec![
                Change { t: 1010, sq: Square::F5, on: false, since: 1000 },
                Change { t: 1030, sq: Square::F5, on: true, since: 1020 }
            ]
        );
    }

    #[test]
    fn changes_come_out_in_time_order() {
        let mut d = Debouncer::new(10, Bitboard::EMPTY);
        d.edge(5, Square::H8, true);
        d.edge(7, Square::A1, true);
        d.edge(3, Square::C3, true);
        let order: Vec<_> = drain(&mut d, 100).iter().map(|c| c.sq).collect();
        assert_eq!(order, vec![Square::C3, Square::H8, Square::A1]);
    }

    #[test]
    fn flush_accepts_what_is_pending() {
        let mut d = Debouncer::new(10, Bitboard::EMPTY);
        d.edge(5, Square::D4, true);
        let flushed: Vec<_> = d.flush(8).collect();
        assert_eq!(flushed, vec![Change { t: 8, sq: Square::D4, on: true, since: 5 }]);
        assert_eq!(d.next_deadline(), None);
        assert!(d.stable().contains(Square::D4));
    }
}
