//! Worked examples for each timing system, computed by hand from the rules.

use shakmaty::Color::{self, Black, White};
use tactus_clock::{Clock, Press, PressError, Reading};

fn clock(tc: &str) -> Clock {
    Clock::new(tc.parse().unwrap())
}

/// A game in progress: White's clock started at 0.
struct Game {
    clock: Clock,
    t: u64,
}

impl Game {
    fn new(tc: &str) -> Game {
        let mut clock = clock(tc);
        clock.start(0, White);
        Game { clock, t: 0 }
    }

    /// `side` thinks `used` ms and presses.
    fn play(&mut self, side: Color, used: u64) -> Press {
        self.t += used;
        self.clock.press(self.t, side).unwrap()
    }

    fn remaining(&self, side: Color) -> i64 {
        self.clock.remaining(side, self.t)
    }
}

#[test]
fn sudden_death() {
    let mut g = Game::new("300");
    // 300 000 − 12 000
    assert_eq!(g.play(White, 12_000).remaining_ms, 288_000);
    // 300 000 − 8 000
    assert_eq!(g.play(Black, 8_000).remaining_ms, 292_000);
    // White's clock restarted at 20 000 with 288 000 left.
    assert_eq!(g.clock.flag_deadline(), Some((White, 308_000)));
    assert_eq!(g.clock.remaining(White, 100_000), 208_000);
    assert_eq!(g.clock.remaining(Black, 100_000), 292_000);
    assert_eq!(g.clock.flag(307_999), None);
    assert_eq!(g.clock.running(), Some(White));
    assert_eq!(g.clock.flag(308_000), Some(White));
    assert_eq!(g.clock.running(), None);
    assert_eq!(g.clock.remaining(White, 400_000), 0);
    assert_eq!(g.clock.remaining(Black, 400_000), 292_000);
}

#[test]
fn fischer() {
    let mut g = Game::new("180+2");
    // 180 000 − 5 000 + 2 000
    assert_eq!(g.play(White, 5_000).remaining_ms, 177_000);
    // 180 000 − 1 500 + 2 000: the clock gains.
    assert_eq!(g.play(Black, 1_500).remaining_ms, 180_500);
    assert_eq!(g.clock.moves(White), 1);
    assert_eq!(g.clock.moves(Black), 1);
}

#[test]
fn fischer_press_after_flag() {
    let mut g = Game::new("10+2");
    // 15 s on a 10 s clock: the flag fell at 10 000; zero, then + 2 000.
    let p = g.play(White, 15_000);
    assert!(p.flagged);
    assert_eq!(p.remaining_ms, 2_000);
    assert_eq!(p.moves, 1);
    // Exactly at the deadline is too late: the time is zero then.
    let p = g.play(Black, 10_000);
    assert!(p.flagged);
}

#[test]
fn fide_tournament() {
    let mut g = Game::new("40/5400+30:1800+30");
    // Move 1: 5 400 000 − 26 032 + 30 000
    assert_eq!(g.play(White, 26_032).remaining_ms, 5_403_968);
    // Black at once: 5 400 000 + 30 000
    assert_eq!(g.play(Black, 0).remaining_ms, 5_430_000);
    // White's moves 2..=39 take 10 s each: +20 000 net each, 38 of them.
    for _ in 2..=39 {
        g.play(White, 10_000);
        g.play(Black, 0);
    }
    assert_eq!(g.remaining(White), 5_403_968 + 38 * 20_000);
    // Move 40: − 10 000 + 30 000, and the second period's 1 800 000.
    let p = g.play(White, 10_000);
    assert_eq!((p.moves, p.remaining_ms), (40, 6_163_968 + 20_000 + 1_800_000));
    // Black: 5 400 000 + 40 × 30 000 + 1 800 000
    assert_eq!(g.play(Black, 0).remaining_ms, 8_400_000);
    // Move 41 is in the last period: increment only.
    assert_eq!(g.play(White, 10_000).remaining_ms, 7_983_968 + 20_000);
}

/// Plays `n` moves each for White (1 s a move) and Black (instant) and
/// returns White's remaining time after each of White's moves.
fn white_times(tc: &str, n: u32) -> Vec<i64> {
    let mut g = Game::new(tc);
    (0..n)
        .map(|_| {
            let r = g.play(White, 1_000).remaining_ms;
            g.play(Black, 0);
            r
        })
        .collect()
}

#[test]
fn repeating_period() {
    let times = white_times("40/7200:20/3600", 100);
    // White's move n leaves 7 200 000 − 1 000 n, plus 3 600 000 for each of
    // the moves 40, 60, 80, 100 completed.
    for (i, &r) in times.iter().enumerate() {
        let n = i as i64 + 1;
        let bonuses = [40, 60, 80, 100].iter().filter(|&&m| m <= n).count() as i64;
        assert_eq!(r, 7_200_000 - 1_000 * n + 3_600_000 * bonuses, "move {n}");
    }
    assert_eq!(times[39], 10_760_000);
    assert_eq!(times[59], 14_340_000);
    assert_eq!(times[79], 17_920_000);
}

#[test]
fn one_period_and_guillotine() {
    let times = white_times("40/7200:3600", 80);
    assert_eq!(times[38], 7_200_000 - 39_000);
    assert_eq!(times[39], 7_200_000 - 40_000 + 3_600_000);
    // No more time after the guillotine's start.
    assert_eq!(times[79], 7_200_000 - 80_000 + 3_600_000);
}

#[test]
fn two_periods_and_guillotine() {
    // Mode 6: 2 h + 1 h + 30 min.
    let times = white_times("40/7200:20/3600:1800", 100);
    assert_eq!(times[39], 7_200_000 - 40_000 + 3_600_000);
    assert_eq!(times[58], 7_200_000 - 59_000 + 3_600_000);
    assert_eq!(times[59], 7_200_000 - 60_000 + 3_600_000 + 1_800_000);
    assert_eq!(times[99], 7_200_000 - 100_000 + 3_600_000 + 1_800_000);
}

#[test]
fn fide_rapid() {
    // Mode 11 with 40 moves: 20 min, then 5 s a move.
    let times = white_times("40/1200:0+5", 42);
    // No increment in the first period: 1 200 000 − 40 × 1 000.
    assert_eq!(times[39], 1_160_000);
    // Move 41: − 1 000 + 5 000.
    assert_eq!(times[40], 1_164_000);
    assert_eq!(times[41], 1_168_000);
}

#[test]
fn fischer_tournament() {
    // Mode 24: 80 min for 40 moves, 40 min for 20, 1 min a move.
    let times = white_times("40/4800+60:20/2400+60", 80);
    // Each move nets +59 000.
    assert_eq!(times[0], 4_859_000);
    assert_eq!(times[39], 4_800_000 + 40 * 59_000 + 2_400_000);
    assert_eq!(times[59], 4_800_000 + 60 * 59_000 + 2 * 2_400_000);
    assert_eq!(times[79], 4_800_000 + 80 * 59_000 + 3 * 2_400_000);
}

#[test]
fn bronstein() {
    // Mode 18: 5 min, 3 s delay.
    let mut g = Game::new("300d3");
    // The clock counts down at once; the delay left shows beside it.
    assert_eq!(g.clock.display(White, 1_000), Reading { main_ms: 299_000, delay_ms: 2_000, period_ms: 0, periods: 0 });
    assert_eq!(g.clock.flag_deadline(), Some((White, 300_000)));
    // 2 s used, 2 s given back: 300 000.
    assert_eq!(g.play(White, 2_000).remaining_ms, 300_000);
    // 5 s used, 3 s given back: 300 000 − 5 000 + 3 000.
    assert_eq!(g.play(Black, 5_000).remaining_ms, 298_000);
    assert_eq!(g.play(White, 3_000).remaining_ms, 300_000);
}

#[test]
fn simple_delay() {
    let mut g = Game::new("300s5");
    // 3 s into the move: the main time has not moved, 2 s of delay left.
    assert_eq!(g.clock.remaining(White, 3_000), 300_000);
    assert_eq!(g.clock.display(White, 3_000).delay_ms, 2_000);
    // Delay, then the whole main time.
    assert_eq!(g.clock.flag_deadline(), Some((White, 305_000)));
    assert_eq!(g.play(White, 3_000).remaining_ms, 300_000);
    // 8 s: 5 s delay, then 3 s of main time.
    assert_eq!(g.play(Black, 8_000).remaining_ms, 297_000);
    assert_eq!(g.clock.remaining(White, g.t + 7_000), 298_000);
}

#[test]
fn byoyomi() {
    // 1 min main time, then 3 periods of 10 s.
    let mut g = Game::new("60b3x10");
    // Main time plus the current period.
    assert_eq!(g.remaining(White), 70_000);
    // All periods are part of the deadline: 60 000 + 3 × 10 000.
    assert_eq!(g.clock.flag_deadline(), Some((White, 90_000)));
    // 65 s: main time gone, 5 s into the first period, which resets.
    let p = g.play(White, 65_000);
    assert_eq!(p.remaining_ms, 10_000);
    assert!(!p.flagged);
    g.play(Black, 0);
    // 25 s: two periods run out, 5 s into the third.
    assert_eq!(g.clock.display(White, g.t + 25_000), Reading { main_ms: 0, delay_ms: 0, period_ms: 5_000, periods: 1 });
    assert_eq!(g.play(White, 25_000).remaining_ms, 10_000);
    assert_eq!(g.clock.display(White, g.t).periods, 1);
    g.play(Black, 0);
    // One period of 10 s left.
    assert_eq!(g.clock.flag_deadline(), Some((White, g.t + 10_000)));
    assert_eq!(g.clock.flag(g.t + 9_999), None);
    assert_eq!(g.clock.flag(g.t + 10_000), Some(White));
}

#[test]
fn byoyomi_nine_hours() {
    // The handbook's example: 9 h, then 5 periods of 1 min. A move made
    // before the clock reaches 4 min returns it to 5 min; after that, to 4.
    let mut g = Game::new("32400b5x60");
    g.t = 32_400_000;
    assert_eq!(g.remaining(White), 60_000);
    assert_eq!(g.clock.display(White, g.t).periods, 5);
    assert_eq!(g.play(White, 59_999).remaining_ms, 60_000);
    assert_eq!(g.clock.display(White, g.t).periods, 5);
    g.play(Black, 0);
    g.play(White, 60_000);
    assert_eq!(g.clock.display(White, g.t).periods, 4);
}

#[test]
fn hourglass() {
    let mut g = Game::new("*300");
    // White: 300 000 − 12 626; Black: 300 000 + 12 626.
    assert_eq!(g.play(White, 12_626).remaining_ms, 287_374);
    assert_eq!(g.remaining(Black), 312_626);
    // Black: 312 626 − 13 212; White: 287 374 + 13 212.
    assert_eq!(g.play(Black, 13_212).remaining_ms, 299_414);
    assert_eq!(g.remaining(White), 300_586);
    // While White thinks, Black's glass fills.
    assert_eq!(g.clock.remaining(Black, g.t + 1_000), 300_414);
    assert_eq!(g.clock.flag_deadline(), Some((White, g.t + 300_586)));
    // Once White's glass is empty, Black gains nothing more.
    assert_eq!(g.clock.remaining(Black, g.t + 1_000_000), 600_000);
}

#[test]
fn gong() {
    let mut g = Game::new("g10");
    // Mode 31: 10 s for each move, nothing carried over.
    assert_eq!(g.play(White, 7_000).remaining_ms, 10_000);
    assert_eq!(g.play(Black, 1_000).remaining_ms, 10_000);
    assert_eq!(g.clock.remaining(White, g.t + 4_000), 6_000);
    assert_eq!(g.clock.flag_deadline(), Some((White, g.t + 10_000)));
    assert!(g.play(White, 10_000).flagged);
}

#[test]
fn press_refusals() {
    let mut c = clock("300");
    assert_eq!(c.press(0, White), Err(PressError::NotRunning));
    c.start(0, White);
    assert_eq!(c.press(1_000, Black), Err(PressError::NotOnMove(Black)));
    c.pause(2_000);
    assert_eq!(c.press(3_000, White), Err(PressError::NotRunning));
    c.resume(4_000);
    // 2 s before the pause and 1 s after.
    assert_eq!(c.press(5_000, White).unwrap().remaining_ms, 297_000);
    assert_eq!(c.moves(White), 1);
}

#[test]
fn time_never_goes_backwards() {
    let mut c = clock("300+2");
    c.start(10_000, White);
    // An earlier time counts as 10 000: nothing used.
    assert_eq!(c.press(5_000, White).unwrap().remaining_ms, 302_000);
    assert_eq!(c.remaining(Black, 0), 300_000);
    assert_eq!(c.flag_deadline(), Some((Black, 310_000)));
}

#[test]
fn pause_keeps_the_delay() {
    let mut c = clock("300s5");
    c.start(0, White);
    c.pause(3_000);
    assert_eq!(c.running(), None);
    assert_eq!(c.flag_deadline(), None);
    c.resume(100_000);
    // 3 s of delay used before the pause, 2 s left.
    assert_eq!(c.flag_deadline(), Some((White, 402_000)));
    assert_eq!(c.remaining(White, 104_000), 298_000);
}

#[test]
fn arbiter_sets_times_and_moves() {
    let mut c = clock("40/5400:1800");
    c.start(0, White);
    c.press(10_000, White).unwrap();
    c.set_times(20_000, 100_000, 200_000);
    assert_eq!(c.remaining(White, 20_000), 100_000);
    assert_eq!(c.remaining(Black, 20_000), 200_000);
    assert_eq!(c.flag_deadline(), Some((Black, 220_000)));
    c.set_moves(39, 38);
    assert_eq!(c.moves(White), 39);
    // Black's 39th move does not end the period; White's 40th does.
    assert_eq!(c.press(21_000, Black).unwrap().remaining_ms, 199_000);
    assert_eq!(c.press(22_000, White).unwrap().remaining_ms, 99_000 + 1_800_000);
}

#[test]
fn restart_the_other_side() {
    // 7.5: after an illegal move the mover must move again: the opponent's
    // move is not completed and its time is charged without increment.
    let mut c = clock("300+5");
    c.start(0, White);
    c.press(2_000, White).unwrap(); // 300 000 − 2 000 + 5 000
    c.start(3_000, White); // Black ran 1 s, no increment
    assert_eq!(c.remaining(Black, 3_000), 299_000);
    assert_eq!(c.running(), Some(White));
    c.set_moves(0, 0);
    assert_eq!(c.press(4_000, White).unwrap().moves, 1);
}

#[test]
fn penalty_time() {
    let mut c = clock("180+2");
    c.start(0, White);
    // Added to the running side: exactly 60 000 more, now and later.
    c.add_time(5_000, White, 60_000);
    assert_eq!(c.remaining(White, 5_000), 235_000);
    assert_eq!(c.press(6_000, White).unwrap().remaining_ms, 236_000);
    // To the side not on move.
    c.add_time(7_000, White, 60_000);
    assert_eq!(c.remaining(White, 7_000), 296_000);
}

#[test]
fn penalty_time_in_byoyomi() {
    let mut c = clock("60b3x10");
    c.start(0, White);
    // 85 s: main gone, two periods lost, 5 s into the third.
    c.add_time(85_000, White, 120_000);
    assert_eq!(c.display(White, 85_000), Reading { main_ms: 120_000, delay_ms: 0, period_ms: 10_000, periods: 1 });
    assert_eq!(c.flag_deadline(), Some((White, 85_000 + 130_000)));
}

#[test]
fn penalty_time_after_the_flag() {
    let mut c = clock("*60");
    c.start(0, White);
    assert_eq!(c.flag(70_000), Some(White));
    c.add_time(70_000, White, 60_000);
    assert_eq!(c.remaining(White, 70_000), 60_000);
    assert_eq!(c.remaining(Black, 70_000), 120_000);
    c.resume(70_000);
    assert_eq!(c.remaining(White, 80_000), 50_000);
    assert_eq!(c.remaining(Black, 80_000), 130_000);
}

#[test]
fn quickplay_finish_increment() {
    // Guidelines III.4: 5 s for both from now on, two minutes to the opponent.
    let mut c = clock("1800");
    c.start(0, White);
    c.press(1_000, White).unwrap();
    c.switch_to_increment(1_500, 5_000);
    c.add_time(1_500, White, 120_000);
    // Black: 1 800 000 − 1 000 + 5 000
    assert_eq!(c.press(2_000, Black).unwrap().remaining_ms, 1_804_000);
    // White: 1 799 000 + 120 000 − 1 000 + 5 000
    assert_eq!(c.press(3_000, White).unwrap().remaining_ms, 1_923_000);
}

#[test]
fn snapshot_round_trip() {
    let mut c = clock("40/5400+30:1800b2x30");
    c.start(0, White);
    c.press(1_234, White).unwrap();
    let json = serde_json::to_string(&c).unwrap();
    assert!(json.contains("\"40/5400+30:1800b2x30\""), "{json}");
    assert!(json.contains("\"black\""), "{json}");
    let back: Clock = serde_json::from_str(&json).unwrap();
    assert_eq!(back, c);
}

#[test]
fn illegal_move_withdrawn() {
    // 7.5.1 / 7.5.5: White's 40th move was illegal; Black gets the
    // penalty and White moves again on its own time.
    let mut g = Game::new("40/5400+30:1800+30");
    for _ in 1..40 {
        g.play(White, 0);
        g.play(Black, 0);
    }
    // 5 400 000 + 39 × 30 000 = 6 570 000; the 40th move: − 10 000 + 30 000 + 1 800 000.
    assert_eq!(g.play(White, 10_000).remaining_ms, 8_390_000);
    g.t += 2_000; // Black's clock ran 2 s
    g.clock.add_time(g.t, Black, g.clock.time_control().penalty_ms());
    g.clock.hand_over(g.t, White);
    assert_eq!(g.clock.running(), Some(White));
    assert_eq!(g.clock.moves(White), 39);
    // The period time is taken back, the increment stays.
    assert_eq!(g.remaining(White), 6_590_000);
    // Black: 6 570 000 − 2 000 (no increment) + 120 000.
    assert_eq!(g.remaining(Black), 6_688_000);
    // The replacement 40th move brings the period time again.
    let p = g.play(White, 5_000);
    assert_eq!((p.moves, p.remaining_ms), (40, 6_590_000 - 5_000 + 30_000 + 1_800_000));
    // Nothing to withdraw when the side is already on move.
    let before = g.clock.clone();
    g.clock.hand_over(g.t, Black);
    assert_eq!(g.clock, before);
}

#[test]
fn a_press_kept_by_a_clock_elsewhere_has_that_clock_s_time() {
    // The press reached this clock 40 ms late: the time after it is the one
    // the clock at the table read, the move counted, the opponent on move.
    let mut c = clock("40/5400+30:1800+30");
    c.start(0, White);
    let press = c.press_as_kept(10_040, White, 5_420_000).unwrap();
    assert_eq!((press.remaining_ms, press.moves), (5_420_000, 1));
    assert_eq!(c.remaining(White, 20_000), 5_420_000);
    assert_eq!(c.running(), Some(Black));
    assert_eq!(c.remaining(Black, 10_040 + 1_000), 5_399_000);
    assert_eq!(c.press_as_kept(20_000, White, 1), Err(PressError::NotOnMove(White)));
    // In byo-yomi the reading is main time and the current period.
    let mut c = clock("60b3x10");
    c.start(0, White);
    assert_eq!(c.press_as_kept(500, White, 62_000).unwrap().remaining_ms, 62_000);
}
