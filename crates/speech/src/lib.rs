//! tactus-speech: what the board says, and the voice that says it.
//!
//! - [`Words`] turns a core [`Event`](tactus_core::Event) into a phrase in a
//!   [`Lang`] and a [`Style`] (Annex D, natural, NATO, literate).
//! - [`Announcer`] applies a [`SpeechPolicy`] (what is said at all: touches,
//!   the listener's own moves, time warnings), phrases each event in the
//!   context of the game heard so far (who committed a ruling and what
//!   happens next; "you" for the listener) and labels each [`Utterance`]
//!   with a [`Kind`] for the [`SpeechQueue`], which may drop a stale readout
//!   but never a move or a ruling. Long readouts come in short chunks.
//! - [`Voice`] renders text to [`Audio`] through a [`Synth`] ([`EspeakNg`])
//!   fed the [`spoken`] form of the text, and a [`PhraseCache`]; a [`Sink`]
//!   plays it ([`RodioSink`]), files it ([`WavDirSink`]) or writes the text
//!   ([`TextSink`]).
//! - [`Scribe`] writes what a reader is told of (the page, the events'
//!   `detail`): rulings, penalties, results and notes, in the same words;
//!   [`Words`] writes the game record's remarks (`pgn::Commentary`).
//! - [`Narrator`] runs it all on a thread of its own: a move, a ruling or a
//!   new question cuts off a readout being said ([`Interrupt`]).

mod announcer;
#[cfg(feature = "test-support")]
pub mod bench;
mod cache;
mod choice;
mod error;
mod lang;
mod narrator;
mod policy;
mod queue;
mod sample;
mod scene;
mod scribe;
mod sink;
mod voice;
mod words;

pub use announcer::{Announcer, Kind, OwnMoves, Utterance};
pub use cache::PhraseCache;
pub use choice::{Choice, ChoiceError, Lang, Style};
pub use error::SpeechError;
pub use lang::spoken;
pub use narrator::{Narrator, Said};
pub use policy::{SpeechPolicy, Touches};
pub use queue::{MAX_WAITING, SpeechQueue, supersedes};
pub use sample::moves_from_san;
pub use scribe::Scribe;
pub use sink::{Interrupt, Played, RodioSink, Sink, Speaker, TextSink, WavDirSink};
pub use voice::{Audio, EspeakNg, Synth, Voice, VoiceSettings};
pub use words::{Opponent, Readout, Words};
