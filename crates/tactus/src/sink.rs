//! Choosing where speech goes: the sound card, WAV files, text lines, or
//! nowhere; shared by `replay --say`, `say`, `demo` and `run`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::Context;
use tactus_speech::{Choice, RodioSink, Speaker, TextSink, Voice, VoiceSettings, WavDirSink};

/// `--voice` / `[voice] sink`: `sound`, `text`, `wav:DIR`, `text+wav:DIR` or `none`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VoiceSink {
    Sound,
    Text,
    Wav(PathBuf),
    /// Text lines and a WAV file per utterance: for a machine without a sound card.
    TextWav(PathBuf),
    None,
}

/// A `--voice` / `[voice] sink` that names no sink.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown voice {0:?}: choose sound, text, wav:DIR, text+wav:DIR or none")]
pub struct UnknownSink(String);

impl FromStr for VoiceSink {
    type Err = UnknownSink;
    fn from_str(s: &str) -> Result<Self, UnknownSink> {
        match s {
            "sound" => Ok(VoiceSink::Sound),
            "text" => Ok(VoiceSink::Text),
            "none" => Ok(VoiceSink::None),
            _ => match (s.strip_prefix("wav:"), s.strip_prefix("text+wav:")) {
                (Some(dir), _) if !dir.is_empty() => Ok(VoiceSink::Wav(dir.into())),
                (_, Some(dir)) if !dir.is_empty() => Ok(VoiceSink::TextWav(dir.into())),
                _ => Err(UnknownSink(s.to_owned())),
            },
        }
    }
}

impl fmt::Display for VoiceSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VoiceSink::Sound => f.write_str("sound"),
            VoiceSink::Text => f.write_str("text"),
            VoiceSink::Wav(dir) => write!(f, "wav:{}", dir.display()),
            VoiceSink::TextWav(dir) => write!(f, "text+wav:{}", dir.display()),
            VoiceSink::None => f.write_str("none"),
        }
    }
}

impl VoiceSink {
    /// Whether espeak-ng renders audio for this sink.
    pub fn synthesises(&self) -> bool {
        matches!(self, VoiceSink::Sound | VoiceSink::Wav(_) | VoiceSink::TextWav(_))
    }
}

/// The first sound card the kernel lists, if any. Read from `/proc` so that
/// a machine without one is told so plainly, instead of the ALSA library
/// printing its errors while it searches.
pub fn sound_card() -> Option<String> {
    let cards = std::fs::read_to_string("/proc/asound/cards").ok()?;
    let first = cards.lines().next()?.trim();
    (Path::new("/dev/snd").exists() && !first.is_empty() && !first.contains("no soundcards")).then(|| first.to_string())
}

/// A speaker for one sink; `text_out` receives plain lines for `text`.
pub fn speaker(
    sink: &VoiceSink,
    choice: Choice,
    settings: &VoiceSettings,
    text_out: Box<dyn std::io::Write + Send>,
) -> anyhow::Result<Speaker<'static>> {
    let voice = || Voice::espeak(choice.lang, settings.clone());
    Ok(match sink {
        VoiceSink::None => Speaker::new(None),
        VoiceSink::Text => {
            let mut s = Speaker::new(None);
            s.add(Box::new(TextSink::plain(text_out)));
            s
        }
        VoiceSink::Wav(dir) | VoiceSink::TextWav(dir) => {
            let mut s = Speaker::new(Some(voice()));
            if matches!(sink, VoiceSink::TextWav(_)) {
                s.add(Box::new(TextSink::plain(text_out)));
            }
            s.add(Box::new(
                WavDirSink::new(dir).with_context(|| format!("cannot write WAV files to {}", dir.display()))?,
            ));
            s
        }
        VoiceSink::Sound => {
            anyhow::ensure!(
                sound_card().is_some(),
                "no sound card here (/proc/asound/cards lists none): plug one in, or choose the voice text, wav:DIR or text+wav:DIR"
            );
            let mut s = Speaker::new(Some(voice()));
            let device = RodioSink::open_default().map_err(|e| {
                // The speech crate's own hint names flags of another command.
                let why = match e {
                    tactus_speech::SpeechError::NoDevice(why) => why,
                    other => other.to_string(),
                };
                anyhow::anyhow!(
                    "the sound card cannot be opened ({why}); choose the voice text, wav:DIR or text+wav:DIR"
                )
            })?;
            s.add(Box::new(device));
            s
        }
    })
}
