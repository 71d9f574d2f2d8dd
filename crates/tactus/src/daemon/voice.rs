//! The daemon's voice: tactus-speech's Narrator, which speaks on a thread
//! of its own (synthesis and playback block) and cuts a long readout short
//! when a move, a ruling or a new question comes.

use std::io::Write;

use shakmaty::Color;
use tactus_core::Event;
use tactus_speech::{Announcer, Narrator, Opponent, SpeechError, SpeechPolicy, VoiceSettings, Words};

use crate::config::{Listener, OpponentPlan, Plan};
use crate::sink::{VoiceSink, speaker};
use crate::terminal::{LineWriter, Stream};

/// Hears what was said: game time and text.
pub type OnSaid = std::sync::Arc<dyn Fn(tactus_trace::Ms, &str) + Send + Sync>;

/// The voice.
pub struct VoiceThread {
    narrator: Narrator,
}

impl VoiceThread {
    /// Starts the voice; `None` when the sink is `none`. Text lines go to
    /// standard output, or to standard error when `text_to_stderr` (the
    /// events have standard output). `said` hears every utterance once it
    /// has been said (the page shows them). Stale readouts give way; a move
    /// or a ruling is never dropped.
    pub fn start(plan: &Plan, text_to_stderr: bool, said: Option<OnSaid>) -> anyhow::Result<Option<VoiceThread>> {
        let cfg = &plan.config;
        let sink = cfg.voice.sink.clone();
        if sink == VoiceSink::None {
            return Ok(None);
        }
        let choice = cfg.voice.say;
        let settings =
            VoiceSettings { speed: cfg.voice.rate.get(), voice: cfg.voice.espeak_voice.clone(), ..Default::default() };
        let policy = SpeechPolicy {
            touches: cfg.voice.touches,
            // At a board that hosts the opponent (the partner board, an
            // engine) its own player listens, and hears "you play White"
            // and what the result means to them. Online, the side comes
            // with the game (the announcer hears it).
            listener: cfg
                .voice
                .listener
                .map(|l| match l {
                    Listener::White => Color::White,
                    Listener::Black => Color::Black,
                })
                // Against an engine, its player; on two boards, this
                // board's side (the partner's side's other).
                .or(plan.opponent.guided_side().map(|opponent| !opponent)),
            observations: false,
        };
        let opponent = match &plan.opponent {
            OpponentPlan::Partner(_) => Opponent::Partner,
            OpponentPlan::Lichess(_) => Opponent::Online,
            OpponentPlan::Engine(_) | OpponentPlan::None => Opponent::Engine,
        };
        let words = Words::new(choice.lang, choice.style).with_readout(cfg.voice.readout).with_opponent(opponent);
        let announcer = Announcer::new(words, policy);
        let opened = sink.clone();
        // The sound device belongs to the voice thread: it is opened there,
        // and a missing sound card is an error at start.
        let open = move || {
            let to = if text_to_stderr { Stream::Stderr } else { Stream::Stdout };
            let text_out: Box<dyn Write + Send> = Box::new(LineWriter::new(to));
            speaker(&opened, choice, &settings, text_out).map_err(|e| SpeechError::NoDevice(format!("{e:#}")))
        };
        let heard: tactus_speech::Said = Box::new(move |u, outcome| match outcome {
            Ok(_) => {
                if let Some(said) = &said {
                    said(u.t, &u.text);
                }
            }
            Err(e) => tracing::warn!("voice: {e}"),
        });
        match Narrator::spawn(announcer, open, heard) {
            Ok(narrator) => Ok(Some(VoiceThread { narrator })),
            Err(e) => anyhow::bail!("voice {}: {e}", cfg.voice.sink),
        }
    }

    /// Gives the voice an event. It never waits: the narrator's queue is
    /// bounded, and drops only stale readouts.
    pub fn hear(&self, event: &Event) {
        self.narrator.hear(event);
    }

    /// Lets the voice say what it still has to say until `deadline`, then
    /// cuts it off; a voice stuck in its device or in a write to a pipe
    /// nobody reads is left behind, said in the log.
    pub async fn stop(self, deadline: std::time::Instant) {
        let narrator = self.narrator;
        // Bounded by the deadline and the narrator's cut-off.
        let ended = tokio::task::spawn_blocking(move || narrator.finish_by(deadline)).await;
        if !matches!(ended, Ok(true)) {
            tracing::warn!("voice: still stuck in its output at the end; left behind");
        }
    }
}
