//! From events to utterances: the policy decides what is said, `Words` how.

use shakmaty::Color;
use tactus_core::{Event, EventKind, Ms};

use crate::policy::{SpeechPolicy, Touches};
use crate::words::Words;

/// What an utterance is about; the queue's rules go by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A move, its correction or its withdrawal: never dropped.
    Move,
    /// Rulings, results, penalties, clock stops, the start: never dropped.
    Ruling,
    /// A touched piece: stale once another touch or a move follows.
    Touch,
    /// A board that differs from the game, or matches again.
    Board,
    /// A time readout on request.
    Clock,
    /// A time warning for one side.
    Warning(Color),
    /// A position or last-move readout on request.
    Readout,
}

impl Kind {
    fn of(kind: &EventKind) -> Kind {
        match kind {
            EventKind::Move { .. } | EventKind::Withdrawn { .. } => Kind::Move,
            EventKind::Touch { .. } => Kind::Touch,
            EventKind::BoardMismatch { .. } | EventKind::BoardOk => Kind::Board,
            EventKind::Time { .. } => Kind::Clock,
            EventKind::TimeWarning { side, .. } => Kind::Warning(*side),
            EventKind::Position { .. } | EventKind::LastMove { .. } => Kind::Readout,
            _ => Kind::Ruling,
        }
    }
}

/// One thing to say, at the time of the event that caused it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Utterance {
    pub t: Ms,
    pub kind: Kind,
    pub text: String,
}

impl Utterance {
    /// `t_ms<TAB>text`: one line of a transcript.
    pub fn transcript_line(&self) -> String {
        format!("{}\t{}", self.t, self.text)
    }
}

/// Hears every event of a game and says what the policy wants said. Time
/// warnings are the core's (`time_warning` events, given while a player
/// thinks, never muted); they are said as they come.
#[derive(Debug, Clone)]
pub struct Announcer {
    words: Words,
    policy: SpeechPolicy,
}

impl Announcer {
    pub fn new(words: Words, policy: SpeechPolicy) -> Self {
        Announcer { words, policy }
    }

    pub fn words(&self) -> &Words {
        &self.words
    }

    pub fn policy(&self) -> &SpeechPolicy {
        &self.policy
    }

    pub fn hear(&mut self, ev: &Event) -> Option<Utterance> {
        let said = |kind: Kind, text: String| Some(Utterance { t: ev.t, kind, text });
        match &ev.kind {
            EventKind::Touch { binding, ply, .. } => {
                let wanted = match self.policy.touches {
                    Touches::Never => false,
                    Touches::Binding => binding.is_some(),
                    Touches::All => true,
                };
                if !wanted || !self.policy.hears_side(mover(*ply)) {
                    return None;
                }
            }
            EventKind::Move { mv, .. } if !self.policy.hears_side(mv.side) => return None,
            EventKind::Withdrawn { ply, .. } if !self.policy.hears_side(mover(*ply)) => return None,
            EventKind::Observation { .. } if !self.policy.observations => return None,
            _ => {}
        }
        said(Kind::of(&ev.kind), self.words.say(ev)?)
    }
}

/// The side that plays a ply; ply 1 is White's first move.
fn mover(ply: u32) -> Color {
    if ply % 2 == 1 { Color::White } else { Color::Black }
}
