//! The announcer's thread: synthesis and playback block, so they run on a
//! thread of their own, fed through a bounded queue.

use std::io::Write;
use std::thread::JoinHandle;

use shakmaty::Color;
use tactus_core::Event;
use tactus_speech::{Announcer, SpeechPolicy, SpeechQueue, VoiceSettings, Words};
use tokio::sync::mpsc;

use crate::config::{Config, Listener};
use crate::sink::{VoiceSink, speaker};
use crate::terminal::{LineWriter, Stream};

/// Hears what was said: game time and text.
pub type Said = std::sync::Arc<dyn Fn(tactus_trace::Ms, &str) + Send + Sync>;

/// Events waiting for the voice; past this the game task waits for it.
const QUEUE: usize = 64;

/// The voice thread and the way to it.
pub struct VoiceThread {
    tx: mpsc::Sender<Event>,
    thread: JoinHandle<()>,
}

impl VoiceThread {
    /// Starts the voice; `None` when the sink is `none`. Text lines go to
    /// standard output, or to standard error when `text_to_stderr` (the
    /// events have standard output). `said` hears every utterance once it
    /// has been said (the page shows them). A queue in front drops stale
    /// readouts, never a move or a ruling.
    pub fn start(cfg: &Config, text_to_stderr: bool, said: Option<Said>) -> anyhow::Result<Option<VoiceThread>> {
        let sink = cfg.voice.sink.clone();
        if sink == VoiceSink::None {
            return Ok(None);
        }
        let choice = cfg.voice.say;
        let settings =
            VoiceSettings { speed: cfg.voice.rate, voice: cfg.voice.espeak_voice.clone(), ..Default::default() };
        let policy = SpeechPolicy {
            touches: cfg.voice.touches,
            listener: cfg.voice.listener.map(|l| match l {
                Listener::White => Color::White,
                Listener::Black => Color::Black,
            }),
            observations: false,
        };
        let readout = cfg.voice.readout;
        let (tx, mut rx) = mpsc::channel::<Event>(QUEUE);
        let (ready_tx, ready_rx) = std::sync::mpsc::sync_channel::<Result<(), String>>(1);
        // The sound device lives on the voice thread; opening it there and
        // reporting back makes a missing sound card an error at start.
        let thread = std::thread::Builder::new().name("voice".into()).spawn(move || {
            let to = if text_to_stderr { Stream::Stderr } else { Stream::Stdout };
            let text_out: Box<dyn Write + Send> = Box::new(LineWriter::new(to));
            let mut speaker = match speaker(&sink, choice, &settings, text_out) {
                Ok(s) => {
                    let _ = ready_tx.send(Ok(()));
                    s
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(format!("{e:#}")));
                    return;
                }
            };
            let mut announcer = Announcer::new(Words::new(choice.lang, choice.style).with_readout(readout), policy);
            let mut queue = SpeechQueue::new();
            while let Some(event) = rx.blocking_recv() {
                let mut take = |e: &Event, q: &mut SpeechQueue| {
                    if let Some(u) = announcer.hear(e) {
                        q.push(u);
                    }
                };
                take(&event, &mut queue);
                while let Some(u) = queue.pop() {
                    // Newer events join the queue (where stale readouts give
                    // way) only while it is short; the rest wait in the channel.
                    while queue.len() < QUEUE
                        && let Ok(e) = rx.try_recv()
                    {
                        take(&e, &mut queue);
                    }
                    if let Err(e) = speaker.speak(&u) {
                        tracing::warn!("voice: {e}");
                    }
                    if let Some(said) = &said {
                        said(u.t, &u.text);
                    }
                }
            }
        })?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(Some(VoiceThread { tx, thread })),
            Ok(Err(e)) => anyhow::bail!("voice {}: {e}", cfg.voice.sink),
            Err(_) => anyhow::bail!("voice {}: the voice thread stopped", cfg.voice.sink),
        }
    }

    /// Gives the voice an event; waits while its queue is full. `false`
    /// once the voice has stopped.
    pub async fn hear(&self, event: &Event) -> bool {
        self.tx.send(event.clone()).await.is_ok()
    }

    /// Lets the voice finish what it has to say, then waits for its thread.
    pub async fn stop(self) {
        let VoiceThread { tx, thread } = self;
        drop(tx);
        let _ = tokio::task::spawn_blocking(move || thread.join()).await;
    }
}
