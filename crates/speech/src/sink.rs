//! Where utterances go: a loudspeaker, WAV files, or lines of text.

use std::fs;
use std::io::Write;
use std::num::NonZero;
use std::path::PathBuf;

use crate::announcer::Utterance;
use crate::error::SpeechError;
use crate::voice::{Audio, Voice};

pub trait Sink {
    /// Whether the sink plays audio; nothing is synthesised for one that
    /// does not (text for screen readers and braille displays).
    fn wants_audio(&self) -> bool;
    /// Says one utterance, returning when it has been said. `audio` is
    /// `Some` whenever `wants_audio` is true.
    fn play(&mut self, utterance: &Utterance, audio: Option<&Audio>) -> Result<(), SpeechError>;
}

/// The default audio output device.
pub struct RodioSink {
    // The device stream must outlive the player that feeds it.
    _device: rodio::MixerDeviceSink,
    player: rodio::Player,
}

impl RodioSink {
    /// Opens the default output device; fails with a message that says what
    /// to do on a machine without one.
    pub fn open_default() -> Result<Self, SpeechError> {
        let mut device =
            rodio::DeviceSinkBuilder::open_default_sink().map_err(|e| SpeechError::NoDevice(e.to_string()))?;
        device.log_on_drop(false);
        let player = rodio::Player::connect_new(device.mixer());
        Ok(RodioSink { _device: device, player })
    }
}

impl Sink for RodioSink {
    fn wants_audio(&self) -> bool {
        true
    }

    fn play(&mut self, _: &Utterance, audio: Option<&Audio>) -> Result<(), SpeechError> {
        let Some(audio) = audio else { return Ok(()) };
        let Some(rate) = NonZero::new(audio.sample_rate) else { return Ok(()) };
        let samples: Vec<rodio::Sample> = audio.samples.iter().map(|&s| rodio::Sample::from(s) / 32768.0).collect();
        self.player.append(rodio::buffer::SamplesBuffer::new(NonZero::<u16>::MIN, rate, samples));
        self.player.sleep_until_end();
        Ok(())
    }
}

/// One numbered WAV file per utterance: `0001.wav`, `0002.wav`, …
#[derive(Debug)]
pub struct WavDirSink {
    dir: PathBuf,
    count: usize,
}

impl WavDirSink {
    pub fn new(dir: impl Into<PathBuf>) -> Result<Self, SpeechError> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(SpeechError::io(&dir))?;
        Ok(WavDirSink { dir, count: 0 })
    }
}

impl Sink for WavDirSink {
    fn wants_audio(&self) -> bool {
        true
    }

    fn play(&mut self, _: &Utterance, audio: Option<&Audio>) -> Result<(), SpeechError> {
        let Some(audio) = audio else { return Ok(()) };
        self.count += 1;
        let path = self.dir.join(format!("{:04}.wav", self.count));
        let file = fs::File::create(&path).map_err(SpeechError::io(&path))?;
        audio.write_wav(std::io::BufWriter::new(file))
    }
}

/// Text lines: the bare phrase (for screen readers and braille displays) or
/// a transcript line `t_ms<TAB>text`.
#[derive(Debug)]
pub struct TextSink<W: Write> {
    out: W,
    timed: bool,
}

impl<W: Write> TextSink<W> {
    pub fn plain(out: W) -> Self {
        TextSink { out, timed: false }
    }

    pub fn transcript(out: W) -> Self {
        TextSink { out, timed: true }
    }
}

impl<W: Write> Sink for TextSink<W> {
    fn wants_audio(&self) -> bool {
        false
    }

    fn play(&mut self, utterance: &Utterance, _: Option<&Audio>) -> Result<(), SpeechError> {
        let line = if self.timed { utterance.transcript_line() } else { utterance.text.clone() };
        // Flushed at once: a screen reader should not wait for a buffer.
        writeln!(self.out, "{line}").and_then(|()| self.out.flush()).map_err(SpeechError::io("text output"))
    }
}

/// A voice and the sinks it speaks to.
pub struct Speaker<'a> {
    voice: Option<Voice>,
    sinks: Vec<Box<dyn Sink + 'a>>,
}

impl<'a> Speaker<'a> {
    /// `voice` may be `None` when every sink takes text only.
    pub fn new(voice: Option<Voice>) -> Self {
        Speaker { voice, sinks: Vec::new() }
    }

    pub fn add(&mut self, sink: Box<dyn Sink + 'a>) {
        self.sinks.push(sink);
    }

    /// Renders the utterance once (if a sink wants audio) and gives it to
    /// every sink in turn.
    pub fn speak(&mut self, utterance: &Utterance) -> Result<(), SpeechError> {
        let audio = match (self.sinks.iter().any(|s| s.wants_audio()), self.voice.as_mut()) {
            (false, _) => None,
            (true, Some(voice)) => Some(voice.render(&utterance.text)?),
            (true, None) => return Err(SpeechError::NoVoice),
        };
        for sink in &mut self.sinks {
            sink.play(utterance, audio.as_ref())?;
        }
        Ok(())
    }
}
