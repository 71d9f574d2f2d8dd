//! The one percentile of every figure tactus prints — the benchmarks'
//! p50/p95/p99, `tactus bench`'s, the daemon's summaries at stop — so that
//! two figures called p95 are the same statistic.
//!
//! The definition is the **nearest rank**: the `p`th percentile of `n`
//! values in ascending order is the value of rank ⌈`p`·`n`/100⌉ (counting
//! from 1), the smallest for `p` = 0. It is always one of the values, never
//! an interpolation between two: a latency said to be the p95 is one that
//! happened. Of 20 values the p95 is the 19th, of 100 the p99 is the 99th,
//! and the p50 of an even count is the lower of the middle two. `p` is a
//! whole percent, so the rank is worked out in integers, exactly.
//!
//! No dependencies: a benchmark takes it as a dev-dependency for nothing.

/// Values in ascending order: the only way to their percentiles, so that
/// no percentile is taken of values left unsorted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sorted<T>(Vec<T>);

impl<T: Copy + PartialOrd> Sorted<T> {
    /// `values`, sorted. Values that do not compare (a NaN) sort as equal
    /// to any other: no panic, whatever a measurement gave.
    pub fn new(values: impl IntoIterator<Item = T>) -> Sorted<T> {
        let mut values: Vec<T> = values.into_iter().collect();
        values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        Sorted(values)
    }

    /// The `p`th percentile (`p` in percent; above 100 is 100), by nearest
    /// rank; `None` without values.
    pub fn percentile(&self, p: u32) -> Option<T> {
        let n = self.0.len();
        let p = usize::try_from(p.min(100)).unwrap_or(100);
        let rank = (p * n).div_ceil(100).max(1);
        self.0.get(rank - 1).copied()
    }

    /// The largest value (the 100th percentile).
    pub fn max(&self) -> Option<T> {
        self.0.last().copied()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The values, in ascending order.
    pub fn as_slice(&self) -> &[T] {
        &self.0
    }
}

impl<T: Copy + PartialOrd> FromIterator<T> for Sorted<T> {
    fn from_iter<I: IntoIterator<Item = T>>(values: I) -> Sorted<T> {
        Sorted::new(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rank_is_the_nearest_one_up() {
        let hundred: Sorted<u32> = (1..=100).rev().collect();
        assert_eq!(hundred.percentile(99), Some(99));
        assert_eq!(hundred.percentile(50), Some(50));
        assert_eq!(hundred.percentile(7), Some(7), "exact where 0.07 · 100 in floating point is not");
        assert_eq!(hundred.percentile(0), Some(1));
        assert_eq!(hundred.percentile(100), hundred.max());
        assert_eq!(hundred.percentile(250), Some(100));
        let twenty = Sorted::new(1..=20);
        assert_eq!(twenty.percentile(95), Some(19));
        assert_eq!(twenty.percentile(50), Some(10), "the lower middle of an even count");
        let three = Sorted::new([30, 10, 20]);
        assert_eq!((three.percentile(50), three.percentile(34), three.percentile(33)), (Some(20), Some(20), Some(10)));
    }

    #[test]
    fn always_one_of_the_values() {
        let odd = Sorted::new([0.5, 4.0, 1.5, 2.0]);
        for p in 0..=100 {
            let v = odd.percentile(p).unwrap();
            assert!(odd.as_slice().contains(&v), "p{p}: {v}");
        }
        assert_eq!(odd.as_slice(), [0.5, 1.5, 2.0, 4.0]);
    }

    #[test]
    fn nothing_measured_has_no_percentile_and_nan_does_not_panic() {
        let empty = Sorted::<f64>::new([]);
        assert_eq!((empty.percentile(50), empty.max(), empty.len()), (None, None, 0));
        let with_nan = Sorted::new([2.0, f64::NAN, 1.0]);
        assert_eq!(with_nan.len(), 3);
        assert!(with_nan.percentile(50).is_some());
    }
}
