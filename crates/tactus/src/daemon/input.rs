//! What reaches the game task from the board, the clock and the devices,
//! and the game time each input is journaled at.

use std::time::Instant;

use shakmaty::Color;
use tactus_core::{EventKind, Session};
use tactus_trace::{Entry, GameResult, Input, Ms, OffBoardReason, Record};

use super::time::GameTime;

/// What reaches the game task.
pub enum Incoming {
    /// Sensed at a known instant (a board edge, a clock lever).
    At(Instant, Record),
    /// The clock's pause button: stops running clocks, restarts stopped ones.
    PauseButton(Instant),
    /// A button of the player at this board, whose side only the game task
    /// knows (it is the side the hosted opponent does not play).
    PlayerButton(Instant, PlayerButton),
    /// From a trace, at its own game time.
    Exact(Entry),
    /// What a device says about itself (lost, back): published, not
    /// journaled — it is no input to the game.
    Notice(Instant, EventKind),
    /// A board playing a recording says nothing before this game time.
    Quiet(Ms),
}

/// What the player at a board with a hosted opponent asks by a button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayerButton {
    /// Offers a draw, or accepts the opponent's (9.1.2, 5.2.3).
    Draw,
    /// Resigns (5.1.2).
    Resign,
}

impl PlayerButton {
    /// The input it is for the player of `side`.
    pub fn input(self, side: Color) -> Input {
        match self {
            PlayerButton::Draw => Input::DrawOffer { side },
            PlayerButton::Resign => {
                Input::Result { result: GameResult::win_for(!side), reason: OffBoardReason::Resignation }
            }
        }
    }
}

/// Game time for an input: never before what the game has already seen, so
/// the journal replays exactly as it was played. `player`: the side of the
/// player at this board, when the daemon hosts the opponent.
/// A notice is no input: `None`; nor is a player's button with no player
/// known (two players at one board: whose would it be?).
pub fn stamp(msg: Incoming, session: &Session, time: &GameTime, last_t: Ms, player: Option<Color>) -> Option<Entry> {
    Some(match msg {
        Incoming::PlayerButton(at, button) => {
            let Some(side) = player else {
                tracing::info!("the {button:?} button is for a player against an opponent the daemon hosts: none here");
                return None;
            };
            Entry { t: time.t(at).max(last_t), record: Record::Input(button.input(side)) }
        }
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
