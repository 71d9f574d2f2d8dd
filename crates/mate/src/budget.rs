//! The work a search may do, counted in steps rather than time, so that a
//! replay on any machine reaches the same verdict as the live daemon did.

/// How many steps a search may take before it gives up with
/// [`Verdict::Undetermined`](crate::Verdict::Undetermined).
///
/// A step is one move tried in a search, or one piece visited in one pass of
/// the static deduction (the two cost about the same, tens to a few hundred
/// nanoseconds). The count depends only on the position and this crate's
/// version, never on the machine or its load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Budget(u64);

impl Budget {
    /// The default for the full search: 2,000,000 steps, about a second on
    /// the development machine and a few seconds on a Raspberry Pi 4.
    ///
    /// Chosen from CHA-Solver's labelled sets: no position of its Lichess
    /// set (65,536 positions from real games) needs more than 290,000 steps
    /// (a sevenfold margin), and 6,788 of the 6,828 questions of its
    /// community set (constructed puzzles) are decided within it. Spending
    /// the whole budget took at most 0.85 s on the development machine,
    /// shared with other builds; a Pi 4 is four to five times slower, so
    /// the deadline is about 5 s for one side (6.9, 7.5.5) and 10 s for a
    /// dead-position ruling (5.2.2: both sides), reached only by positions
    /// that no real game in the sets came near.
    pub const DEFAULT: Budget = Budget(2_000_000);

    /// What [`quick_check`](crate::quick_check) may spend: enough for the
    /// algorithm's first, shallow search phase (about a thousand moves).
    pub const QUICK: Budget = Budget(2_000);

    /// A budget of `steps` steps.
    pub const fn steps(steps: u64) -> Budget {
        Budget(steps)
    }

    /// The number of steps this budget allows.
    pub const fn get(self) -> u64 {
        self.0
    }
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::DEFAULT
    }
}

/// The budget ran out; the search unwinds and reports `Undetermined`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutOfBudget;

/// Counts the steps a search spends against its budget.
#[derive(Debug)]
pub(crate) struct Meter {
    used: u64,
    limit: u64,
}

impl Meter {
    pub(crate) fn new(budget: Budget) -> Meter {
        Meter { used: 0, limit: budget.0 }
    }

    /// Spends `steps`; fails once the budget is exceeded.
    pub(crate) fn charge(&mut self, steps: u64) -> Result<(), OutOfBudget> {
        self.used = self.used.saturating_add(steps);
        if self.used > self.limit { Err(OutOfBudget) } else { Ok(()) }
    }

    pub(crate) fn used(&self) -> u64 {
        self.used.min(self.limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meter_fails_only_past_the_budget() {
        let mut meter = Meter::new(Budget::steps(3));
        assert_eq!(meter.charge(2), Ok(()));
        assert_eq!(meter.charge(1), Ok(()));
        assert_eq!(meter.charge(1), Err(OutOfBudget));
        assert_eq!(meter.used(), 3);
    }
}
