//! What reaches the game task from the board, the clock and the devices,
//! and the game time each input is journaled at.

use std::time::Instant;

use tactus_core::{EventKind, Session};
use tactus_trace::{Entry, Input, Ms, Record};

use super::time::GameTime;

/// What reaches the game task.
pub enum Incoming {
    /// Sensed at a known instant (a board edge, a clock lever).
    At(Instant, Record),
    /// The clock's pause button: stops running clocks, restarts stopped ones.
    PauseButton(Instant),
    /// From a trace, at its own game time.
    Exact(Entry),
    /// What a device says about itself (lost, back): published, not
    /// journaled — it is no input to the game.
    Notice(Instant, EventKind),
    /// A board playing a recording says nothing before this game time.
    Quiet(Ms),
}

/// Game time for an input: never before what the game has already seen, so
/// the journal replays exactly as it was played.
/// A notice is no input: `None`.
pub fn stamp(msg: Incoming, session: &Session, time: &GameTime, last_t: Ms) -> Option<Entry> {
    Some(match msg {
        Incoming::PauseButton(at) => {
            let running = session.clock().is_some_and(|c| c.running().is_some());
            let input = if running { Input::Pause } else { Input::Resume };
            Entry { t: time.t(at).max(last_t), record: Record::Input(input) }
        }
        Incoming::At(at, record) => Entry { t: time.t(at).max(last_t), record },
        Incoming::Exact(entry) => Entry { t: entry.t.max(last_t), ..entry },
        Incoming::Notice(..) | Incoming::Quiet(_) => return None,
    })
}
