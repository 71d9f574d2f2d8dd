//! The clock: a state machine driven by calls that carry their own time.

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::control::{Bonus, System, TimeControl, locate, next_period};

/// Serde shape of [`Color`], which shakmaty does not serialise without a
/// feature the rest of the workspace does not need.
#[derive(Serialize, Deserialize)]
#[serde(remote = "Color", rename_all = "lowercase")]
enum ColorDef {
    Black,
    White,
}

/// A chess clock for one game.
///
/// Every call carries its time `t` in milliseconds; time never goes
/// backwards: a `t` earlier than one already seen counts as that one.
/// Nothing here panics or overflows, whatever the order of calls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    tc: TimeControl,
    /// White, then Black.
    sides: [SideState; 2],
    /// The move in progress, running or paused; `None` before the start.
    turn: Option<Turn>,
    /// The latest time seen.
    now: u64,
    /// Guidelines III.4: an increment for both sides added on top of the
    /// control's own.
    extra_increment_ms: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct SideState {
    /// Main time at the start of the side's move in progress (hourglass:
    /// sand; gong: time for this move). Charged only when the move ends, so
    /// delays and refunds can be computed from the whole move.
    main_ms: u64,
    moves: u32,
    byoyomi_left: u32,
    /// Period time the last completed move brought, taken back if that
    /// move is withdrawn ([`Clock::hand_over`]).
    last_bonus_ms: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Turn {
    #[serde(with = "ColorDef")]
    side: Color,
    /// Time of the move spent before `since`, i.e. before the last pause.
    used_ms: u64,
    /// When the clock was last started or resumed; `None` while paused.
    since: Option<u64>,
}

/// The outcome of a press.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Press {
    /// Who completed a move.
    pub side: Color,
    /// That side's time after the press, as [`Clock::remaining`] reports it.
    pub remaining_ms: i64,
    /// Moves completed by that side, this one included.
    pub moves: u32,
    /// The flag had already fallen: the press came too late (6.9). The move
    /// still counts and the clock goes on; the time left was taken as zero
    /// before the increment or period bonus was added, with no delay refund.
    pub flagged: bool,
}

/// Why a press was refused. The clock is left unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PressError {
    /// Not started, or paused by the arbiter (6.11).
    #[error("the clock is not running")]
    NotRunning,
    /// The other side's clock is running.
    #[error("the {0:?} clock is not the one running")]
    NotOnMove(Color),
}

/// Everything a side's clock face shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reading {
    /// Main time left (hourglass: sand left; gong: time left for the move).
    pub main_ms: u64,
    /// Delay (Bronstein or simple) not yet used in the move; the full delay
    /// for a side not on move; zero without a delay.
    pub delay_ms: u64,
    /// Byo-yomi: time left in the current period (full while in main time);
    /// zero without byo-yomi or with no period left.
    pub period_ms: u64,
    /// Byo-yomi periods left, the current one included.
    pub periods: u32,
}

fn index(side: Color) -> usize {
    match side {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn to_i64(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

impl Turn {
    fn elapsed(&self, t: u64) -> u64 {
        self.used_ms.saturating_add(self.since.map_or(0, |s| t.saturating_sub(s)))
    }
}

impl Clock {
    /// Both sides at their initial times, nothing running.
    pub fn new(tc: TimeControl) -> Clock {
        let (main_ms, byoyomi_left) = match tc.system() {
            System::Periods { periods, byoyomi } => (periods[0].time_ms, byoyomi.map_or(0, |b| b.periods)),
            System::Hourglass { ms } | System::Gong { ms } => (*ms, 0),
        };
        let side = SideState { main_ms, moves: 0, byoyomi_left, last_bonus_ms: 0 };
        Clock { tc, sides: [side; 2], turn: None, now: 0, extra_increment_ms: 0 }
    }

    /// The time control being played.
    pub fn time_control(&self) -> &TimeControl {
        &self.tc
    }

    fn tick(&mut self, t: u64) -> u64 {
        self.now = self.now.max(t);
        self.now
    }

    fn side(&self, side: Color) -> &SideState {
        &self.sides[index(side)]
    }

    fn side_mut(&mut self, side: Color) -> &mut SideState {
        &mut self.sides[index(side)]
    }

    /// The bonus of the move `side` is playing or will play next.
    fn bonus(&self, side: Color) -> Bonus {
        match self.tc.system() {
            System::Periods { periods, .. } => {
                periods[locate(periods, self.side(side).moves.saturating_add(1)).0].bonus
            }
            System::Hourglass { .. } | System::Gong { .. } => Bonus::None,
        }
    }

    fn byoyomi_period_ms(&self) -> u64 {
        match self.tc.system() {
            System::Periods { byoyomi: Some(b), .. } => b.period_ms,
            _ => 0,
        }
    }

    /// How much of a move lasting `elapsed` is taken from the main time.
    fn charged(&self, side: Color, elapsed: u64) -> u64 {
        match self.bonus(side) {
            Bonus::Delay(d) => elapsed.saturating_sub(d),
            _ => elapsed,
        }
    }

    /// How long `side`'s move may last before its flag falls.
    fn budget(&self, side: Color) -> u64 {
        let s = self.side(side);
        let delay = match self.bonus(side) {
            Bonus::Delay(d) => d,
            _ => 0,
        };
        let byoyomi = u64::from(s.byoyomi_left).saturating_mul(self.byoyomi_period_ms());
        s.main_ms.saturating_add(delay).saturating_add(byoyomi)
    }

    /// Elapsed time of `side`'s move at `t`, if it is on move.
    fn elapsed(&self, side: Color, t: u64) -> Option<u64> {
        self.turn.filter(|turn| turn.side == side).map(|turn| turn.elapsed(t))
    }

    /// The face of `side`'s clock at `t`.
    pub fn display(&self, side: Color, t: u64) -> Reading {
        let t = t.max(self.now);
        let s = self.side(side);
        let elapsed = self.elapsed(side, t);
        let e = elapsed.unwrap_or(0);
        let mut reading = Reading { main_ms: s.main_ms.saturating_sub(e), delay_ms: 0, period_ms: 0, periods: 0 };
        match self.tc.system() {
            System::Hourglass { .. } => {
                if elapsed.is_none() {
                    // The opponent's sand runs into this side's glass.
                    let gained = self.elapsed(!side, t).map_or(0, |oe| oe.min(self.side(!side).main_ms));
                    reading.main_ms = s.main_ms.saturating_add(gained);
                }
            }
            System::Gong { .. } => {}
            System::Periods { .. } => {
                if let Bonus::Delay(d) | Bonus::Bronstein(d) = self.bonus(side) {
                    reading.delay_ms = d.saturating_sub(e);
                }
                let charged = self.charged(side, e);
                let period = self.byoyomi_period_ms();
                if charged <= s.main_ms {
                    reading.main_ms = s.main_ms - charged;
                    reading.periods = s.byoyomi_left;
                    reading.period_ms = if s.byoyomi_left > 0 { period } else { 0 };
                } else if let Some(lost) = (charged - s.main_ms).checked_div(period) {
                    let over = charged - s.main_ms;
                    if lost < u64::from(s.byoyomi_left) {
                        reading.periods = s.byoyomi_left - lost as u32;
                        reading.period_ms = period - over % period;
                    }
                }
            }
        }
        reading
    }

    /// Time left for `side` at `t`, never negative: the main time, plus in
    /// byo-yomi the current period. A simple delay not yet used is not
    /// included (see [`Clock::display`]).
    pub fn remaining(&self, side: Color, t: u64) -> i64 {
        let r = self.display(side, t);
        to_i64(r.main_ms.saturating_add(r.period_ms))
    }

    /// When the running side's flag falls if nothing happens: main time
    /// plus, for a simple delay, the delay, or for byo-yomi, every period
    /// left. A Bronstein clock counts down from the start of the move and
    /// only refunds at the press, so its flag falls with the main time.
    /// `None` when no clock runs; in the past when the flag has already
    /// fallen (counted in running time, so shifted by any pause since).
    pub fn flag_deadline(&self) -> Option<(Color, u64)> {
        let turn = self.turn?;
        let started = turn.since?.saturating_sub(turn.used_ms);
        Some((turn.side, started.saturating_add(self.budget(turn.side))))
    }

    /// If the flag of the side on move has fallen by `t` (its time is zero),
    /// stops the clock and reports that side. Also reports a fallen flag
    /// while paused. A flag that fell on an earlier move was reported by
    /// [`Press::flagged`].
    pub fn flag(&mut self, t: u64) -> Option<Color> {
        let t = self.tick(t);
        let turn = self.turn?;
        if turn.elapsed(t) < self.budget(turn.side) {
            return None;
        }
        self.pause(t);
        Some(turn.side)
    }

    /// The side whose clock is running.
    pub fn running(&self) -> Option<Color> {
        self.turn.filter(|turn| turn.since.is_some()).map(|turn| turn.side)
    }

    /// What `side`'s next move brings back or gains per move: the
    /// increment, or the delay (which an engine's `winc` approximates).
    pub fn per_move_ms(&self, side: Color) -> u64 {
        match self.bonus(side) {
            Bonus::None => 0,
            Bonus::Increment(ms) | Bonus::Bronstein(ms) | Bonus::Delay(ms) => ms,
        }
    }

    /// What Guidelines III.4 added to every move ([`Clock::switch_to_increment`]).
    pub fn extra_increment_ms(&self) -> u64 {
        self.extra_increment_ms
    }

    /// Moves completed by `side`.
    pub fn moves(&self, side: Color) -> u32 {
        self.side(side).moves
    }

    /// Starts `side`'s clock (6.6: White's at the start). A move in
    /// progress of the other side ends without being completed: its time is
    /// charged, with no increment, refund or bonus. Starting the side
    /// already on move resumes it if paused.
    pub fn start(&mut self, t: u64, side: Color) {
        let t = self.tick(t);
        if let Some(turn) = self.turn {
            if turn.side == side {
                self.resume(t);
                return;
            }
            self.settle(turn.side, turn.elapsed(t), false);
        }
        self.turn = Some(Turn { side, used_ms: 0, since: Some(t) });
    }

    /// 7.5.1: `side`'s last completed move was illegal and is withdrawn;
    /// `side` moves again on its own time. The opponent's move in progress
    /// ends without being completed (as in [`Clock::start`]), `side`'s
    /// clock starts and its move count goes back by one, taking back the
    /// period time that move brought so it comes with the replacement move.
    /// The increment stays: the clock's time is not otherwise corrected.
    /// Does nothing if `side` is already on move.
    pub fn hand_over(&mut self, t: u64, side: Color) {
        let t = self.tick(t);
        if self.turn.is_none_or(|turn| turn.side == side) {
            return;
        }
        self.start(t, side);
        let s = self.side_mut(side);
        s.moves = s.moves.saturating_sub(1);
        s.main_ms = s.main_ms.saturating_sub(s.last_bonus_ms);
        s.last_bonus_ms = 0;
    }

    /// `side` completes a move (6.2.1): its clock stops, the system's
    /// per-move rule applies (increment, delay refund, period bonus,
    /// byo-yomi reset, gong reset), and the opponent's clock starts.
    /// Refused, changing nothing, unless `side`'s clock is running.
    pub fn press(&mut self, t: u64, side: Color) -> Result<Press, PressError> {
        let t = self.tick(t);
        let turn = match self.turn {
            Some(turn) if turn.since.is_none() => return Err(PressError::NotRunning),
            Some(turn) if turn.side != side => return Err(PressError::NotOnMove(side)),
            Some(turn) => turn,
            None => return Err(PressError::NotRunning),
        };
        let flagged = self.settle(side, turn.elapsed(t), true);
        self.turn = Some(Turn { side: !side, used_ms: 0, since: Some(t) });
        Ok(Press { side, remaining_ms: self.remaining(side, t), moves: self.moves(side), flagged })
    }

    /// `side` completes a move as [`Clock::press`] does, but a clock
    /// elsewhere keeps the time (two boards at one table, the clock at the
    /// partner board): its time after the press is `remaining_ms`, as that
    /// clock read it, however late the press reached this one.
    pub fn press_as_kept(&mut self, t: u64, side: Color, remaining_ms: u64) -> Result<Press, PressError> {
        let press = self.press(t, side)?;
        let t = self.tick(t);
        let shown = u64::try_from(press.remaining_ms).unwrap_or(0);
        let s = self.side_mut(side);
        s.main_ms = s.main_ms.saturating_add(remaining_ms).saturating_sub(shown);
        Ok(Press { remaining_ms: self.remaining(side, t), ..press })
    }

    /// Ends `side`'s move of `elapsed` ms, completed or not. Returns whether
    /// its flag had fallen.
    fn settle(&mut self, side: Color, elapsed: u64, completed: bool) -> bool {
        let flagged = elapsed >= self.budget(side);
        let bonus = self.bonus(side);
        let charged = match bonus {
            Bonus::Bronstein(d) if completed && !flagged => elapsed.saturating_sub(d),
            _ => self.charged(side, elapsed),
        };
        let period = self.byoyomi_period_ms();
        let [white, black] = &mut self.sides;
        let (s, other) = match side {
            Color::White => (white, black),
            Color::Black => (black, white),
        };
        // What completing the move adds to the main time: increment, and
        // the next period's time.
        let mut gain = 0;
        let mut period_bonus = 0;
        match self.tc.system() {
            System::Hourglass { .. } => {
                let ran = elapsed.min(s.main_ms);
                s.main_ms -= ran;
                other.main_ms = other.main_ms.saturating_add(ran);
            }
            System::Gong { ms } => {
                s.main_ms = if completed { *ms } else { s.main_ms.saturating_sub(elapsed) };
            }
            System::Periods { periods, .. } => {
                if flagged {
                    s.main_ms = 0;
                    s.byoyomi_left = 0;
                } else if charged <= s.main_ms {
                    s.main_ms -= charged;
                } else {
                    // Within byo-yomi (not flagged, so `period` > 0 and
                    // fewer periods were lost than were left).
                    let lost = (charged - s.main_ms) / period;
                    s.byoyomi_left -= lost as u32;
                    s.main_ms = 0;
                }
                let (i, ends) = locate(periods, s.moves.saturating_add(1));
                if let Bonus::Increment(inc) = bonus {
                    gain = inc;
                }
                if ends {
                    period_bonus = next_period(periods, i).time_ms;
                }
            }
        }
        if completed {
            let gain = gain.saturating_add(period_bonus).saturating_add(self.extra_increment_ms);
            s.main_ms = s.main_ms.saturating_add(gain);
            s.moves = s.moves.saturating_add(1);
            s.last_bonus_ms = period_bonus;
        }
        flagged
    }

    /// Stops the running clock (6.11.1); the move in progress keeps what it
    /// has used, delay included.
    pub fn pause(&mut self, t: u64) {
        let t = self.tick(t);
        if let Some(turn) = self.turn.as_mut()
            && let Some(since) = turn.since.take()
        {
            turn.used_ms = turn.used_ms.saturating_add(t.saturating_sub(since));
        }
    }

    /// Restarts a paused clock for the side on move (6.11.3).
    pub fn resume(&mut self, t: u64) {
        let t = self.tick(t);
        if let Some(turn) = self.turn.as_mut() {
            turn.since.get_or_insert(t);
        }
    }

    /// The arbiter sets the main times (6.10.2, 7.1). The side on move
    /// starts its move afresh at `t` (a new delay, a full byo-yomi period),
    /// so both faces show exactly what was set; byo-yomi periods left and
    /// move counts are kept.
    pub fn set_times(&mut self, t: u64, white_ms: u64, black_ms: u64) {
        let t = self.tick(t);
        self.sides[index(Color::White)].main_ms = white_ms;
        self.sides[index(Color::Black)].main_ms = black_ms;
        if let Some(turn) = self.turn.as_mut() {
            turn.used_ms = 0;
            turn.since = turn.since.map(|_| t);
        }
    }

    /// The arbiter corrects the move counts (7.1, 7.5). Period bonuses are
    /// not given or taken back; correct the times with [`Clock::set_times`].
    pub fn set_moves(&mut self, white: u32, black: u32) {
        self.sides[index(Color::White)].moves = white;
        self.sides[index(Color::Black)].moves = black;
    }

    /// Adds `ms` to `side`'s time (7.5.5, 9.5.3, 12.9.2): its remaining
    /// time grows by exactly `ms`. For a side in byo-yomi the time is main
    /// time again, with the current period full after it.
    pub fn add_time(&mut self, t: u64, side: Color, ms: u64) {
        let t = self.tick(t);
        let Some(elapsed) = self.elapsed(side, t) else {
            let s = self.side_mut(side);
            s.main_ms = s.main_ms.saturating_add(ms);
            return;
        };
        if elapsed >= self.budget(side) {
            // Flag fallen: charge the move so far, then start it afresh
            // from the time given.
            self.settle(side, elapsed, false);
            if let Some(turn) = self.turn.as_mut() {
                turn.used_ms = 0;
                turn.since = turn.since.map(|_| t);
            }
        } else if !matches!(self.tc.system(), System::Hourglass { .. }) {
            let charged = self.charged(side, elapsed);
            let period = self.byoyomi_period_ms();
            let s = self.side_mut(side);
            if charged > s.main_ms {
                // In byo-yomi: the periods run out so far are lost, and the
                // main time is set so that `ms` of it is left now.
                s.byoyomi_left -= ((charged - s.main_ms) / period) as u32;
                s.main_ms = charged;
            }
        }
        let s = self.side_mut(side);
        s.main_ms = s.main_ms.saturating_add(ms);
    }

    /// Guidelines III.4: from now on every completed move of either side
    /// gets `inc_ms` more, on top of the control's own increment (in gong,
    /// the next move's time). The opponent's two minutes are
    /// [`Clock::add_time`].
    pub fn switch_to_increment(&mut self, t: u64, inc_ms: u64) {
        self.tick(t);
        self.extra_increment_ms = inc_ms;
    }
}
