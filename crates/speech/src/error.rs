use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum SpeechError {
    #[error("cannot run {program}: {source} (install the Debian package espeak-ng)")]
    SynthMissing { program: String, source: io::Error },
    #[error("{program} failed on {text:?}: {detail}")]
    Synth { program: String, text: String, detail: String },
    #[error("unreadable WAV: {0}")]
    Wav(#[from] hound::Error),
    #[error("no audio output: {0} (on a machine without sound use --wav DIR or text output)")]
    NoDevice(String),
    #[error("a sink needs audio but no voice was given")]
    NoVoice,
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("move {san:?} in {fen}: {detail}")]
    BadMove { san: String, fen: String, detail: String },
}

impl SpeechError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> SpeechError {
        let path = path.into();
        move |source| SpeechError::Io { path, source }
    }
}
