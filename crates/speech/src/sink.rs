//! Where utterances go: a loudspeaker, WAV files, or lines of text; and the
//! signal that cuts off what is being said.

use std::fs;
use std::io::Write;
use std::num::NonZero;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use crate::announcer::{Kind, Utterance};
use crate::error::SpeechError;
use crate::voice::{Audio, Voice};

/// How far an utterance got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Played {
    Whole,
    /// Cut off (or never begun) because something newer made it stale.
    Cut,
}

#[derive(Debug, Default)]
struct Flags {
    raised: bool,
    finished: bool,
}

/// Cuts off what a sink is saying. Whoever hears something newer raises it
/// (`Narrator::hear`); a sink playing in real time waits on it (`wait`)
/// until its playback ends (`finished`, from the audio thread) or it is
/// raised. Cheap to clone: clones share the signal.
#[derive(Debug, Clone, Default)]
pub struct Interrupt {
    inner: Arc<(Mutex<Flags>, Condvar)>,
}

impl Interrupt {
    pub fn new() -> Self {
        Interrupt::default()
    }

    fn flags(&self) -> std::sync::MutexGuard<'_, Flags> {
        // The flags are two booleans: a panic elsewhere leaves them valid.
        self.inner.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Cuts off the utterance being said; the next ones too, until `reset`.
    pub fn raise(&self) {
        self.flags().raised = true;
        self.inner.1.notify_all();
    }

    pub fn is_raised(&self) -> bool {
        self.flags().raised
    }

    /// Clears the signal before the next utterance.
    pub fn reset(&self) {
        *self.flags() = Flags::default();
    }

    /// For a sink, as playback starts.
    pub fn begin(&self) {
        self.flags().finished = false;
    }

    /// For a sink's audio thread: playback of the utterance has ended.
    pub fn finished(&self) {
        self.flags().finished = true;
        self.inner.1.notify_all();
    }

    /// For a sink: waits until playback has ended or the signal is raised.
    pub fn wait(&self) -> Played {
        let mut flags = self.flags();
        loop {
            if flags.raised {
                return Played::Cut;
            }
            if flags.finished {
                return Played::Whole;
            }
            flags = self.inner.1.wait(flags).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

pub trait Sink {
    /// Whether the sink plays audio; nothing is synthesised for one that
    /// does not (text for screen readers and braille displays).
    fn wants_audio(&self) -> bool;
    /// Says one utterance, returning when it has been said. `audio` is
    /// `Some` whenever `wants_audio` is true.
    fn play(&mut self, utterance: &Utterance, audio: Option<&Audio>) -> Result<(), SpeechError>;
    /// Says one utterance unless `interrupt` is raised, returning early when
    /// it is. Sinks that take no time (files, text) keep this default: an
    /// utterance already stale is skipped, any other said whole.
    fn play_until(
        &mut self,
        utterance: &Utterance,
        audio: Option<&Audio>,
        interrupt: &Interrupt,
    ) -> Result<Played, SpeechError> {
        if interrupt.is_raised() {
            return Ok(Played::Cut);
        }
        self.play(utterance, audio)?;
        Ok(Played::Whole)
    }
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

    fn play(&mut self, utterance: &Utterance, audio: Option<&Audio>) -> Result<(), SpeechError> {
        self.play_until(utterance, audio, &Interrupt::new()).map(|_| ())
    }

    fn play_until(
        &mut self,
        _: &Utterance,
        audio: Option<&Audio>,
        interrupt: &Interrupt,
    ) -> Result<Played, SpeechError> {
        let Some(audio) = audio else { return Ok(Played::Whole) };
        let Some(rate) = NonZero::new(audio.sample_rate) else { return Ok(Played::Whole) };
        let samples: Vec<rodio::Sample> = audio.samples.iter().map(|&s| rodio::Sample::from(s) / 32768.0).collect();
        interrupt.begin();
        self.player.append(rodio::buffer::SamplesBuffer::new(NonZero::<u16>::MIN, rate, samples));
        // Played after the samples: the end of this utterance.
        let done = interrupt.clone();
        self.player.append(rodio::source::EmptyCallback::new(Box::new(move || done.finished())));
        let played = interrupt.wait();
        if played == Played::Cut {
            self.player.stop();
        }
        Ok(played)
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
        self.speak_until(utterance, &Interrupt::new()).map(|_| ())
    }

    /// As `speak`, cut off when `interrupt` is raised. A `Tone` is a short
    /// beep for ears and its words for text sinks.
    pub fn speak_until(&mut self, utterance: &Utterance, interrupt: &Interrupt) -> Result<Played, SpeechError> {
        let audio = match (self.sinks.iter().any(|s| s.wants_audio()), self.voice.as_mut()) {
            (false, _) => None,
            (true, _) if utterance.kind == Kind::Tone => Some(Audio::tone()),
            (true, Some(voice)) => Some(voice.render(&utterance.text)?),
            (true, None) => return Err(SpeechError::NoVoice),
        };
        for sink in &mut self.sinks {
            if sink.play_until(utterance, audio.as_ref(), interrupt)? == Played::Cut {
                return Ok(Played::Cut);
            }
        }
        Ok(Played::Whole)
    }
}
