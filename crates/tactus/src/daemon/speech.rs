//! The voice: its own thread, because synthesis and playback block.

use std::io::Write;

use shakmaty::Color;
use tactus_core::Event;
use tactus_speech::{Announcer, Choice, SpeechPolicy, SpeechQueue, Touches, VoiceSettings, Words};

use crate::config::Config;

/// Hears what was said: game time and text.
pub type Said = std::sync::Arc<dyn Fn(tactus_trace::Ms, &str) + Send + Sync>;
use crate::voice::{VoiceSink, speaker};

/// Starts the voice. A queue in front drops stale readouts, never a move or
/// a ruling.
/// `said` hears every utterance once it has been said (the page shows them).
pub fn start(cfg: &Config, to_stderr: bool, said: Option<Said>) -> anyhow::Result<Option<Voice>> {
    let sink: VoiceSink = cfg.voice.sink.parse().map_err(|e: String| anyhow::anyhow!(e))?;
    if sink == VoiceSink::None {
        return Ok(None);
    }
    let choice: Choice = cfg.voice.say.parse()?;
    let settings = VoiceSettings { speed: cfg.voice.rate, voice: cfg.voice.espeak_voice.clone(), ..Default::default() };
    let policy = SpeechPolicy {
        touches: match cfg.voice.touches.as_str() {
            "binding" => Touches::Binding,
            "all" => Touches::All,
            _ => Touches::Never,
        },
        listener: match cfg.voice.listener.as_deref() {
            Some("white") => Some(Color::White),
            Some("black") => Some(Color::Black),
            _ => None,
        },
        observations: false,
    };
    let (tx, rx) = std::sync::mpsc::channel::<Event>();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), String>>();
    // The sound device lives on the voice thread; opening it there and
    // reporting back makes a missing sound card an error at start.
    let thread = std::thread::Builder::new().name("voice".into()).spawn(move || {
        let text_out: Box<dyn Write + Send> =
            if to_stderr { Box::new(std::io::stderr()) } else { Box::new(std::io::stdout()) };
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
        let mut announcer = Announcer::new(Words::new(choice.lang, choice.style), policy);
        let mut queue = SpeechQueue::new();
        while let Ok(event) = rx.recv() {
            let mut take = |e: &Event, q: &mut SpeechQueue| {
                if let Some(u) = announcer.hear(e) {
                    q.push(u);
                }
            };
            take(&event, &mut queue);
            while let Some(u) = queue.pop() {
                while let Ok(e) = rx.try_recv() {
                    take(&e, &mut queue);
                }
                if let Err(e) = speaker.speak(&u) {
                    eprintln!("tactus: voice: {e}");
                }
                if let Some(said) = &said {
                    said(u.t, &u.text);
                }
            }
        }
    })?;
    match ready_rx.recv() {
        Ok(Ok(())) => Ok(Some(Voice { tx, thread })),
        Ok(Err(e)) => anyhow::bail!("voice {}: {e}", cfg.voice.sink),
        Err(_) => anyhow::bail!("voice {}: the voice thread stopped", cfg.voice.sink),
    }
}

/// The voice thread and the way to it.
pub struct Voice {
    pub tx: std::sync::mpsc::Sender<Event>,
    pub thread: std::thread::JoinHandle<()>,
}
