//! Policies are values: what the board treats as made, announced or ruled is
//! decided here, not by conditions spread through the interpreter.

use crate::Ms;
use tactus_trace::range;
pub use tactus_trace::{MateSearch, Supervision, TableClock};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// A square's new reading must hold this long to count (contact bounce).
    pub debounce_ms: Ms,
    /// A board that shows a legal move must hold still this long before the
    /// move is announced: longer than a slide's brush over a passed square.
    pub settle_ms: Ms,
    /// A clock press that comes while the mover's piece is still in the hand
    /// (two hands at blitz speed, or the clock's and the sensors' times a few
    /// ms apart) completes the move that lands within this window after it;
    /// only a board that still shows no legal move then is ruled (7.5.1, 7.5.3).
    pub press_grace_ms: Ms,
    /// A board that differs from the game this long is reported, with the fix.
    pub mismatch_ms: Ms,
    /// A square that reads against the game, unchanged since this long
    /// before a move began while the rest shows the move, has a stuck sensor.
    pub stuck_ms: Ms,
    pub supervision: Supervision,
    /// A `time_warning` is given when the running side's time falls to each
    /// of these (ms), while they think — not only when they press.
    pub time_warnings: Vec<Ms>,
    /// Where the full search for who can still mate runs (5.2.2, 6.9, 7.5.5).
    pub mate_search: MateSearch,
    /// The side a UCI engine plays, its moves completed when the board shows
    /// them (`Input::Opponent`).
    pub engine: Option<shakmaty::Color>,
    /// A different legal move made for the engine's side is the player's
    /// override, not a slip to fix.
    pub engine_override: bool,
    /// The engine's side is a player on a partner board that keeps its
    /// clock (two boards, one game): its flag is ruled there (6.9), never
    /// here, where its time runs until its move arrives.
    pub partner: bool,
    /// The engine's side is a player on an online server (Lichess) that
    /// judges take-backs: the board set back asks for one
    /// (`take_back_asked`), and only the server's `Input::TakeBack` takes
    /// moves back.
    pub online: bool,
    /// The online server's clock is the game's: its times come as
    /// `Input::ServerClock` and are shown unsaid; its move hands the clock
    /// to the player when it comes (the server charges the player from
    /// then), and completing it on the board adds nothing. While its clock
    /// stands (Lichess's, before each side has moved), a move costs no time.
    pub server_clock: bool,
    /// Two boards at one table, one clock between them (`partner` too):
    /// where the clock is. `Here`: a press of the partner's player hands
    /// the clock over before their move arrives, and every flag is ruled
    /// here. `Partner`: presses come as `Input::TablePress`, and no flag is
    /// ruled here while they do.
    pub table_clock: Option<TableClock>,
}

impl Policy {
    /// This policy, ruling as the recording board did wherever its trace's
    /// header says how: a replay then rules exactly as the live game did.
    pub fn with_recorded(mut self, header: &tactus_trace::Header) -> Policy {
        if let Some(ms) = header.debounce_ms {
            self.debounce_ms = ms;
        }
        if let Some(ms) = header.settle_ms {
            self.settle_ms = ms;
        }
        if let Some(ms) = header.press_grace_ms {
            self.press_grace_ms = ms;
        }
        self.engine = header.engine;
        self.engine_override = header.engine_override;
        self.partner = header.partner;
        self.online = header.online;
        self.server_clock = header.server_clock;
        self.table_clock = header.table_clock;
        if header.mate_search == MateSearch::Asked {
            self.mate_search = MateSearch::Asked;
        }
        if let Some(supervision) = header.supervision {
            self.supervision = supervision;
        }
        self
    }

    /// The header fields that record this policy.
    pub fn record(&self, header: &mut tactus_trace::Header) {
        header.debounce_ms = Some(self.debounce_ms);
        header.settle_ms = Some(self.settle_ms);
        header.press_grace_ms = Some(self.press_grace_ms);
        header.mate_search = self.mate_search;
        header.engine = self.engine;
        header.engine_override = self.engine_override;
        header.partner = self.partner;
        header.online = self.online;
        header.server_clock = self.server_clock;
        header.table_clock = self.table_clock;
        header.supervision = Some(self.supervision);
    }
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            debounce_ms: range::DEFAULT_DEBOUNCE_MS,
            settle_ms: range::DEFAULT_SETTLE_MS,
            press_grace_ms: range::DEFAULT_PRESS_GRACE_MS,
            mismatch_ms: 4000,
            stuck_ms: 3000,
            supervision: Supervision::Arbiter,
            time_warnings: Vec::new(),
            mate_search: MateSearch::Inline,
            engine: None,
            engine_override: false,
            partner: false,
            online: false,
            server_clock: false,
            table_clock: None,
        }
    }
}
