//! Choosing where speech goes: the sound card, WAV files, text lines, or
//! nowhere; shared by `replay --say`, `say`, `demo` and `run`.

use std::path::PathBuf;
use std::str::FromStr;

use anyhow::Context;
use tactus_speech::{Choice, RodioSink, Speaker, TextSink, Voice, VoiceSettings, WavDirSink};

/// `--voice`: `sound`, `text`, `wav:DIR` or `none`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VoiceSink {
    Sound,
    Text,
    Wav(PathBuf),
    /// Text lines and a WAV file per utterance: for a machine without a sound card.
    TextWav(PathBuf),
    None,
}

impl FromStr for VoiceSink {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "sound" => Ok(VoiceSink::Sound),
            "text" => Ok(VoiceSink::Text),
            "none" => Ok(VoiceSink::None),
            _ => match (s.strip_prefix("wav:"), s.strip_prefix("text+wav:")) {
                (Some(dir), _) if !dir.is_empty() => Ok(VoiceSink::Wav(dir.into())),
                (_, Some(dir)) if !dir.is_empty() => Ok(VoiceSink::TextWav(dir.into())),
                _ => Err(format!("unknown voice {s:?}: choose sound, text, wav:DIR, text+wav:DIR or none")),
            },
        }
    }
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
            let mut s = Speaker::new(Some(voice()));
            s.add(Box::new(RodioSink::open_default()?));
            s
        }
    })
}
