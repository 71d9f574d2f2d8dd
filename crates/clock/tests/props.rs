//! Property tests: time changes only as each system says.

use proptest::prelude::*;
use shakmaty::Color::{self, Black, White};
use tactus_clock::{Clock, TimeControl};

/// Seconds as the canonical notation writes them, written independently.
fn secs(ms: u64) -> String {
    let s = format!("{}.{:03}", ms / 1000, ms % 1000);
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn ms() -> impl Strategy<Value = u64> {
    prop_oneof![(0..4_000u64).prop_map(|s| s * 1000), 0..4_000_000u64]
}

fn positive_ms() -> impl Strategy<Value = u64> {
    ms().prop_map(|ms| ms.max(1))
}

/// `[n/]secs[bonus]` with a bonus letter among `+`, `d`, `s` or none.
fn period(counted: bool, delay: bool) -> impl Strategy<Value = String> {
    let count = if counted {
        (1..60u32).prop_map(|n| format!("{n}/")).boxed()
    } else {
        prop_oneof![Just(String::new()), (1..60u32).prop_map(|n| format!("{n}/"))].boxed()
    };
    let letters: &[&str] = if delay { &["", "+", "d", "s"] } else { &["", "+"] };
    (count, ms(), prop::sample::select(letters), ms()).prop_map(|(count, time, letter, bonus)| {
        let bonus = if letter.is_empty() { String::new() } else { format!("{letter}{}", secs(bonus)) };
        format!("{count}{}{bonus}", secs(time))
    })
}

fn periods(delay: bool) -> impl Strategy<Value = String> {
    (prop::collection::vec(period(true, delay), 0..3), period(false, delay)).prop_map(|(mut init, last)| {
        init.push(last);
        init.join(":")
    })
}

/// Whether the first period of `periods` puts time on the clock: 6.6,
/// White's clock runs from the start, so one with no time and no simple
/// delay (`s`: the clock waits before it counts down) flags before the
/// first move, and the parser refuses it.
fn time_at_start(periods: &str) -> bool {
    let first = periods.split(':').next().unwrap_or_default();
    let first = first.split_once('/').map_or(first, |(_, rest)| rest);
    let seconds = first.find(['+', 'd', 's']).unwrap_or(first.len());
    &first[..seconds] != "0" || first[seconds..].starts_with('s')
}

/// Canonical strings of every system.
fn control() -> impl Strategy<Value = String> {
    prop_oneof![
        periods(true).prop_filter("time on the clock at the start (6.6)", |p| time_at_start(p)),
        (periods(false), 1..6u32, positive_ms()).prop_map(|(p, n, period)| format!("{p}b{n}x{}", secs(period))),
        positive_ms().prop_map(|ms| format!("*{}", secs(ms))),
        positive_ms().prop_map(|ms| format!("g{}", secs(ms))),
    ]
}

/// Times for arbitrary calls, extremes included.
fn time() -> impl Strategy<Value = u64> {
    prop_oneof![8 => 0..400_000u64, 1 => Just(u64::MAX), 1 => Just(u64::MAX / 2)]
}

fn clock(tc: &str) -> Clock {
    Clock::new(tc.parse().unwrap())
}

fn other(side: Color) -> Color {
    !side
}

proptest! {
    #[test]
    fn canonical_strings_round_trip(s in control()) {
        let tc: TimeControl = s.parse().unwrap();
        prop_assert_eq!(tc.to_string(), s.clone());
        prop_assert_eq!(tc.to_string().parse::<TimeControl>(), Ok(tc));
    }

    #[test]
    fn any_text_parses_or_fails_cleanly(s in "[0-9./:+dsbxg*?-]{0,16}") {
        if let Ok(Some(tc)) = TimeControl::parse(&s) {
            prop_assert_eq!(TimeControl::parse(&tc.to_string()), Ok(Some(tc)));
        }
    }

    /// Fischer: remaining_after = remaining_before − used + increment,
    /// exactly once per completed move; the waiting side does not change.
    #[test]
    fn fischer_exact(base in 1..10_000u64, inc in 0..60u64, used in prop::collection::vec(0..20_000u64, 1..60)) {
        let mut c = clock(&format!("{base}+{inc}"));
        let mut t = 0;
        c.start(t, White);
        let mut side = White;
        for u in used {
            let before = c.remaining(side, t);
            let waiting = c.remaining(other(side), t);
            t += u;
            prop_assert_eq!(c.remaining(other(side), t), waiting);
            let p = c.press(t, side).unwrap();
            if (u as i64) < before {
                prop_assert!(!p.flagged);
                prop_assert_eq!(p.remaining_ms, before - u as i64 + inc as i64 * 1000);
            } else {
                prop_assert!(p.flagged);
                prop_assert_eq!(p.remaining_ms, inc as i64 * 1000);
            }
            side = other(side);
        }
    }

    /// Periods: the next period's time comes exactly when its move count is
    /// completed, the last period repeating when it has a count.
    #[test]
    fn periods_exact(
        n1 in 1..30u32, t1 in 1..10_000u64, n2 in prop::option::of(1..30u32), t2 in 0..10_000u64,
        used in prop::collection::vec(0..2_000u64, 1..200),
    ) {
        let tc = match n2 {
            Some(n2) => format!("{n1}/{t1}:{n2}/{t2}"),
            None => format!("{n1}/{t1}:{t2}"),
        };
        let mut c = clock(&tc);
        let mut t = 0;
        c.start(t, White);
        let mut side = White;
        for u in used {
            let before = c.remaining(side, t);
            t += u;
            let p = c.press(t, side).unwrap();
            let n = p.moves;
            let ends = n == n1 || n2.is_some_and(|n2| n > n1 && (n - n1).is_multiple_of(n2));
            let bonus = if ends { t2 as i64 * 1000 } else { 0 };
            prop_assert_eq!(p.remaining_ms, (before - u as i64).max(0) + bonus);
            side = other(side);
        }
    }

    /// Hourglass: the two sides' sum never changes, mid-move included.
    #[test]
    fn hourglass_sum_constant(base in 1..1_000u64, used in prop::collection::vec((0..200_000u64, 0..200_000u64), 1..40)) {
        let mut c = clock(&format!("*{base}"));
        let mut t = 0;
        c.start(t, White);
        let mut side = White;
        for (mid, u) in used {
            let sum = |c: &Clock, t| c.remaining(White, t) + c.remaining(Black, t);
            prop_assert_eq!(sum(&c, t + mid), 2 * base as i64 * 1000);
            t += u;
            c.press(t, side).unwrap();
            prop_assert_eq!(sum(&c, t), 2 * base as i64 * 1000);
            side = other(side);
        }
    }

    /// Bronstein never gains; it loses exactly the time used beyond the
    /// delay; its flag falls with the main time.
    #[test]
    fn bronstein_never_gains(base in 1..600u64, delay in 0..30u64, used in prop::collection::vec(0..60_000u64, 1..60)) {
        let mut c = clock(&format!("{base}d{delay}"));
        let mut t = 0;
        c.start(t, White);
        let mut side = White;
        for u in used {
            let before = c.remaining(side, t);
            prop_assert_eq!(c.flag_deadline(), Some((side, t + before as u64)));
            t += u;
            let p = c.press(t, side).unwrap();
            prop_assert!(p.remaining_ms <= before);
            if !p.flagged {
                prop_assert_eq!(p.remaining_ms, before - u.saturating_sub(delay * 1000) as i64);
            }
            side = other(side);
        }
    }

    /// Simple delay: the main time does not move during the delay, then
    /// loses exactly the time beyond it.
    #[test]
    fn simple_delay_exact(base in 0..600u64, delay in 0..30u64, used in prop::collection::vec(0..60_000u64, 1..60)) {
        let mut c = clock(&format!("{base}s{delay}"));
        let mut t = 0;
        c.start(t, White);
        let mut side = White;
        let delay = delay * 1000;
        for u in used {
            let before = c.remaining(side, t);
            prop_assert_eq!(c.flag_deadline(), Some((side, t + delay + before as u64)));
            prop_assert_eq!(c.remaining(side, t + u.min(delay)), before);
            t += u;
            let p = c.press(t, side).unwrap();
            prop_assert_eq!(p.flagged, u >= delay + before as u64);
            if !p.flagged {
                prop_assert_eq!(p.remaining_ms, before - u.saturating_sub(delay) as i64);
            }
            side = other(side);
        }
    }

    /// Byo-yomi: main time only runs down, periods are only lost, and a
    /// move made in time leaves a full period.
    #[test]
    fn byoyomi_periods(base in 0..100u64, count in 1..5u32, period in 1..30u64, used in prop::collection::vec(0..80_000u64, 1..60)) {
        let mut c = clock(&format!("{base}b{count}x{period}"));
        let mut t = 0;
        c.start(t, White);
        let mut side = White;
        for u in used {
            let before = c.display(side, t);
            t += u;
            let p = c.press(t, side).unwrap();
            let after = c.display(side, t);
            prop_assert!(after.main_ms <= before.main_ms);
            prop_assert!(after.periods <= before.periods);
            let budget = before.main_ms + u64::from(before.periods) * period * 1000;
            prop_assert_eq!(p.flagged, u >= budget);
            if !p.flagged {
                prop_assert_eq!(after.main_ms, before.main_ms.saturating_sub(u));
                let lost = u.saturating_sub(before.main_ms) / (period * 1000);
                prop_assert_eq!(after.periods, before.periods - lost as u32);
                prop_assert_eq!(after.period_ms, period * 1000);
            }
            side = other(side);
        }
    }

    /// A pause changes nothing but the deadline, which moves by its length.
    #[test]
    fn pause_is_neutral(tc in control(), a in 0..100_000u64, pause in 0..100_000u64, b in 0..100_000u64) {
        let mut paused = clock(&tc);
        paused.start(0, White);
        let mut plain = paused.clone();
        paused.pause(a);
        paused.resume(a + pause);
        let shift = |d: Option<(Color, u64)>| d.map(|(s, d)| (s, d + pause));
        prop_assert_eq!(paused.flag_deadline(), shift(plain.flag_deadline()));
        for side in [White, Black] {
            prop_assert_eq!(paused.display(side, a + pause + b), plain.display(side, a + b));
        }
        let p = paused.press(a + pause + b, White).unwrap();
        let q = plain.press(a + b, White).unwrap();
        prop_assert_eq!(p, q);
    }

    /// Any sequence of calls, times going back included: no panic, and the
    /// deadline is exactly when `flag` starts reporting.
    #[test]
    fn any_calls(tc in control(), ops in prop::collection::vec((0..11u8, time(), any::<bool>(), time()), 0..40)) {
        let mut c = clock(&tc);
        let mut now = 0;
        for (op, t, white, ms) in ops {
            let side = if white { White } else { Black };
            match op {
                0 | 1 => { let _ = c.press(t, c.running().unwrap_or(side)); }
                2 => c.start(t, side),
                3 => c.pause(t),
                4 => c.resume(t),
                5 => c.set_times(t, ms, ms / 2),
                6 => c.set_moves(ms as u32 % 100, ms as u32 % 97),
                7 => c.add_time(t, side, ms),
                8 => c.switch_to_increment(t, ms % 10_000),
                9 => c.hand_over(t, side),
                _ => { c.flag(t); }
            }
            if op != 6 {
                // Every call but `set_moves` carries a time.
                now = now.max(t);
            }
            for s in [White, Black] {
                prop_assert!(c.remaining(s, now) >= 0);
                prop_assert_eq!(c.remaining(s, 0), c.remaining(s, now));
            }
            // A deadline past the end of `u64` time saturates; skip it.
            if let Some((side, deadline)) = c.flag_deadline().filter(|&(_, d)| d < u64::MAX) {
                let mut probe = c.clone();
                if deadline > now {
                    prop_assert_eq!(probe.flag(deadline - 1), None);
                }
                prop_assert_eq!(probe.flag(deadline), Some(side));
                prop_assert_eq!(probe.remaining(side, deadline), 0);
            }
        }
    }
}
