//! What is said at all. A value, so a tournament, a training game and a
//! broadcast differ in data, not in `if`s.

use serde::{Deserialize, Serialize};
use shakmaty::Color;

/// Which touches of a piece are announced (D.2.2, D.2.10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Touches {
    #[default]
    Never,
    /// Only the touches that bind under touch-move (4.3.1, 4.3.2).
    Binding,
    All,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpeechPolicy {
    pub touches: Touches,
    /// The side of the player who listens: sides are "you" and "your
    /// opponent", their time comes first, their touches are not read back
    /// and their own moves come back as an echo or a tone
    /// (`Announcer::with_own_moves`). `None`: say both sides by name.
    #[serde(with = "tactus_core::serde_chess::opt_color")]
    pub listener: Option<Color>,
    /// Say what the sensors could not settle (`Observation`); for arbiters.
    pub observations: bool,
}

impl Default for SpeechPolicy {
    fn default() -> Self {
        SpeechPolicy { touches: Touches::Never, listener: None, observations: false }
    }
}

impl SpeechPolicy {
    /// Everything that has words: for transcripts, tests and trying voices.
    pub fn everything() -> Self {
        SpeechPolicy { touches: Touches::All, observations: true, ..SpeechPolicy::default() }
    }
}
