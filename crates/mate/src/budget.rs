//! The work a search may do, counted in steps rather than time, so that a
//! replay on any machine reaches the same verdict as the live daemon did.

/// How many steps a search may take before it gives up with
/// [`Verdict::Undetermined`](crate::Verdict::Undetermined).
///
/// A step is one move tried by a search, or one square a piece moves from
/// in a pass of the static deduction: about the same work, 0.1 to 0.25 µs
/// on the development machine. The count depends only on the position and
/// this crate's version, never on the machine or its load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Budget(u64);

impl Budget {
    /// The default for the full search: 2,000,000 steps.
    ///
    /// The deadline it serves is 5 s for one side (6.9, 7.5.5) on a
    /// Raspberry Pi 4, 10 s for a dead-position ruling (5.2.2, both sides).
    /// Spending the whole budget took at most 0.46 s on the development
    /// machine (a shared two-core x86 VM); a Pi 4 is four to five times
    /// slower, so about 2.3 s there: half the deadline, for the rare
    /// position that spends it all.
    ///
    /// What it decides, on CHA-Solver's labelled sets: every one of the
    /// 131,072 questions of its Lichess set (real games; the hardest needs
    /// 287,088 steps, a sevenfold margin) and 6,779 of the 6,828 questions
    /// of its community set (constructed puzzles; the other 49 need more).
    pub const DEFAULT: Budget = Budget(2_000_000);

    /// What [`quick_check`](crate::quick_check) may spend: enough for the
    /// algorithm's first, shallow search phase (about a thousand moves) and
    /// a static deduction.
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
