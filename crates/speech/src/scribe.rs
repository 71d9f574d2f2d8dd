//! The written word: what the page, the events' `detail` and the game record
//! say of a ruling, a penalty, a result or a note. The sentences are the
//! voice's, said to nobody in particular, with a few only a reader needs
//! (why an observation is no ruling, a search that did not settle).
//!
//! A ruling is written as what it is (who did what) and not what comes
//! next, so that the page, the events and the record say it alike; a
//! penalty and a result are written in the context of the game heard so
//! far, as the voice says them (a claim upheld, whose flag fell).

use tactus_core::pgn::Commentary;
use tactus_core::{Event, EventKind};

use crate::scene::Scene;
use crate::words::Words;
use crate::{Lang, Style};

/// Writes the events of one game, in order.
#[derive(Debug, Clone)]
pub struct Scribe {
    words: Words,
    scene: Scene,
}

impl Scribe {
    /// In the language and style of `words`; text is read, so the daemon
    /// gives its language in the natural style (squares as written, `e4`).
    pub fn new(words: Words) -> Scribe {
        Scribe { words, scene: Scene::new(None) }
    }

    /// In `lang`, in the natural style: what the daemon and `tactus replay`
    /// write for a reader.
    pub fn natural(lang: Lang) -> Scribe {
        Scribe::new(Words::new(lang, Style::Natural))
    }

    pub fn words(&self) -> &Words {
        &self.words
    }

    /// The text of `ev` when it is one a reader is told of (a ruling, a
    /// penalty, a result, a note on the board, the engine or a device);
    /// `None` for the others. Every event of the game goes through here, in
    /// order: the context is the game's.
    pub fn write(&mut self, ev: &Event) -> Option<String> {
        let words = &self.words;
        let text = match &ev.kind {
            EventKind::Irregularity(ruling) => Some(words.ruling(ruling)),
            EventKind::Observation { side, first, then, .. } => Some(words.observed(*side, first, then)),
            EventKind::GameOver { result, reason, undetermined, .. } => {
                Some(words.ended(*result, *reason, *undetermined, &self.scene))
            }
            kind if told(kind) => Some(words.phrase(ev, &self.scene).join(" ")),
            _ => None,
        };
        self.scene.heard(ev);
        text
    }

    /// `ev` as a line of the events' JSON (docs/events.md): its data, and
    /// `detail` in these words where the contract has one (`irregularity`,
    /// `observation`, `device_lost`). No line break.
    pub fn json_line(&mut self, ev: &Event) -> String {
        let text = self.write(ev);
        let mut line = serde_json::to_string(ev).expect("events serialise");
        if let (Some(text), EventKind::Irregularity(_) | EventKind::Observation { .. } | EventKind::DeviceLost { .. }) =
            (text, &ev.kind)
        {
            // The object's closing brace gives way to one more field.
            line.pop();
            line.push_str(",\"detail\":");
            line.push_str(&serde_json::Value::from(text).to_string());
            line.push('}');
        }
        line
    }
}

/// The kinds a reader is told of besides rulings, observations and results:
/// their text is what the voice says of them.
fn told(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Penalty { .. }
            | EventKind::Claimable { .. }
            | EventKind::BoardMismatch { .. }
            | EventKind::Ambiguous { .. }
            | EventKind::OpponentMove { .. }
            | EventKind::OpponentFix { .. }
            | EventKind::DeviceLost { .. }
            | EventKind::DeviceBack { .. }
            | EventKind::Online(_)
            | EventKind::Pair(_)
            | EventKind::DrawOffer { .. }
            | EventKind::DrawDeclined { .. }
            | EventKind::TakeBack { .. }
            | EventKind::TakeBackAsked { .. }
            | EventKind::SensorFault { .. }
    )
}
