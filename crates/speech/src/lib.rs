//! tactus-speech: what the board says, and the voice that says it.
//!
//! - [`Words`] turns a core [`Event`](tactus_core::Event) into a phrase in a
//!   [`Lang`] and a [`Style`] (Annex D, natural, NATO, literate).
//! - [`Announcer`] applies a [`SpeechPolicy`] (what is said at all: touches,
//!   the listener's own moves, time warnings) and labels each [`Utterance`]
//!   with a [`Kind`] for the [`SpeechQueue`], which may drop a stale readout
//!   but never a move or a ruling.
//! - [`Voice`] renders text to [`Audio`] through a [`Synth`] ([`EspeakNg`])
//!   and a [`PhraseCache`]; a [`Sink`] plays it ([`RodioSink`]), files it
//!   ([`WavDirSink`]) or writes the text ([`TextSink`]).

mod announcer;
pub mod bench;
mod cache;
mod choice;
mod error;
mod lang;
mod policy;
mod queue;
mod sample;
mod sink;
mod voice;
mod words;

pub use announcer::{Announcer, Kind, Utterance};
pub use cache::PhraseCache;
pub use choice::{Choice, ChoiceError, Lang, Style};
pub use error::SpeechError;
pub use lang::spoken;
pub use policy::{SpeechPolicy, Touches};
pub use queue::SpeechQueue;
pub use sample::moves_from_san;
pub use sink::{RodioSink, Sink, Speaker, TextSink, WavDirSink};
pub use voice::{Audio, EspeakNg, Synth, Voice, VoiceSettings};
pub use words::{Readout, Words};
