//! From events to utterances: the policy decides what is said, `Words` how,
//! in the context of the game heard so far.

use serde::{Deserialize, Serialize};
use shakmaty::Color;
use tactus_core::{Device, Event, EventKind, Ms, Online};

use crate::policy::{SpeechPolicy, Touches};
use crate::scene::Scene;
use crate::words::Words;

/// What an utterance is about; the queue's rules go by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A move, its correction or its withdrawal: never dropped.
    Move,
    /// The listener's own move read back, to check the board read it right.
    Echo,
    /// The listener's own move as a short tone (the text is for text sinks).
    Tone,
    /// Rulings, results, penalties, clock stops, the start: never dropped.
    Ruling,
    /// A touched piece: stale once another touch or a move follows.
    Touch,
    /// A board that differs from the game, or matches again.
    Board,
    /// What the online server says besides the game (a chat line, a game
    /// not played, the link or the token): said after anything else that
    /// waits, so that no move, clock or ruling waits behind it.
    Note,
    /// A time readout on request.
    Clock,
    /// A time warning for one side.
    Warning(Color),
    /// An answer to a question about the board (position, pieces, a rank,
    /// a file, a square, the last move, the time control), one chunk of it;
    /// or the answer to a press that changes nothing now.
    Readout,
}

impl Kind {
    fn of(kind: &EventKind) -> Kind {
        match kind {
            EventKind::Move { .. } | EventKind::Withdrawn { .. } => Kind::Move,
            EventKind::Touch { .. } => Kind::Touch,
            EventKind::BoardMismatch { .. } | EventKind::BoardOk | EventKind::OpponentFix { .. } => Kind::Board,
            EventKind::Time { .. } => Kind::Clock,
            EventKind::TimeWarning { side, .. } => Kind::Warning(*side),
            EventKind::Position { .. }
            | EventKind::LastMove { .. }
            | EventKind::Pieces { .. }
            | EventKind::OnRank { .. }
            | EventKind::OnFile { .. }
            | EventKind::OnSquare { .. }
            | EventKind::MovesToControl { .. }
            | EventKind::Hint { .. }
            | EventKind::PromotionChoice { .. }
            | EventKind::NotNow { .. }
            | EventKind::NotUnderstood { .. }
            | EventKind::Online(Online::ChatLines { .. } | Online::Asked { .. }) => Kind::Readout,
            EventKind::Online(
                Online::Chat { .. }
                | Online::ChatHeld { .. }
                | Online::NotPlayed { .. }
                | Online::Challenge { .. }
                | Online::ChallengeGone { .. }
                | Online::RateLimited { .. }
                | Online::Failed { .. }
                | Online::Token { .. },
            )
            | EventKind::DeviceLost { device: Device::Online, .. }
            | EventKind::DeviceBack { device: Device::Online } => Kind::Note,
            _ => Kind::Ruling,
        }
    }
}

/// How the listener's own moves come back to them (D.2: a move is
/// announced by the player who makes it; hearing it read back is the check
/// that the board read the peg right).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OwnMoves {
    /// Said as any move is.
    #[default]
    Echo,
    /// A short tone; text sinks still get the words.
    Tone,
    Silent,
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
    own_moves: OwnMoves,
    scene: Scene,
}

impl Announcer {
    pub fn new(words: Words, policy: SpeechPolicy) -> Self {
        let scene = Scene::new(policy.listener);
        Announcer { words, policy, own_moves: OwnMoves::default(), scene }
    }

    /// How the listener's own moves are said (with a `listener` set).
    pub fn with_own_moves(self, own_moves: OwnMoves) -> Self {
        Announcer { own_moves, ..self }
    }

    pub fn words(&self) -> &Words {
        &self.words
    }

    pub fn policy(&self) -> &SpeechPolicy {
        &self.policy
    }

    /// Everything said for `ev`, as one utterance (chunks joined): for text
    /// transcripts and callers that do not interrupt.
    pub fn hear(&mut self, ev: &Event) -> Option<Utterance> {
        let chunks = self.hear_chunks(ev);
        let first = chunks.first()?;
        let (t, kind) = (first.t, first.kind);
        let text: Vec<String> = chunks.into_iter().map(|u| u.text).collect();
        Some(Utterance { t, kind, text: text.join(" ") })
    }

    /// Everything said for `ev`, in short chunks: a long readout is many,
    /// so a move or a new question can cut in between (see `SpeechQueue`).
    pub fn hear_chunks(&mut self, ev: &Event) -> Vec<Utterance> {
        let kind = self.kind_for(ev);
        let chunks = match kind {
            Some(kind) => {
                self.words.phrase(ev, &self.scene).into_iter().map(|text| Utterance { t: ev.t, kind, text }).collect()
            }
            None => Vec::new(),
        };
        self.scene.heard(ev);
        chunks
    }

    /// The kind an event is said as, or `None` when the policy keeps it quiet.
    fn kind_for(&self, ev: &Event) -> Option<Kind> {
        let own = |side: Color| self.scene.listener == Some(side);
        let own_move = match self.own_moves {
            OwnMoves::Echo => Some(Kind::Echo),
            OwnMoves::Tone => Some(Kind::Tone),
            OwnMoves::Silent => None,
        };
        match &ev.kind {
            EventKind::Touch { binding, ply, .. } => {
                let wanted = match self.policy.touches {
                    Touches::Never => false,
                    Touches::Binding => binding.is_some(),
                    Touches::All => true,
                };
                // The listener knows what they touched.
                (wanted && !own(mover(*ply))).then_some(Kind::Touch)
            }
            EventKind::Move { mv, .. } if own(mv.side) => own_move,
            EventKind::Withdrawn { ply, .. } if own(mover(*ply)) => own_move,
            EventKind::Observation { .. } if !self.policy.observations => None,
            kind => Some(Kind::of(kind)),
        }
    }
}

/// The side that plays a ply; ply 1 is White's first move.
fn mover(ply: u32) -> Color {
    if ply % 2 == 1 { Color::White } else { Color::Black }
}
