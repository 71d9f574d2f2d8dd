//! Text to samples: a synthesiser behind a phrase cache.

use std::io::{Cursor, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::cache::PhraseCache;
use crate::error::SpeechError;
use crate::{Lang, spoken};

/// Mono 16-bit samples, shared cheaply between the cache and the sinks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audio {
    pub sample_rate: u32,
    pub samples: Arc<[i16]>,
}

impl Audio {
    pub fn duration(&self) -> Duration {
        Duration::from_secs_f64(self.samples.len() as f64 / f64::from(self.sample_rate.max(1)))
    }

    /// The memory the samples take: what the cache counts.
    pub fn bytes(&self) -> usize {
        self.samples.len() * 2
    }

    /// A short soft beep (880 Hz, 120 ms, faded in and out): the listener's
    /// own move, read right, without words.
    pub fn tone() -> Audio {
        const RATE: u32 = 22_050;
        let n = RATE as usize * 120 / 1000;
        let fade = n / 6;
        let samples: Vec<i16> = (0..n)
            .map(|i| {
                let envelope = (i.min(n - 1 - i) as f64 / fade as f64).min(1.0);
                let phase = 2.0 * std::f64::consts::PI * 880.0 * i as f64 / f64::from(RATE);
                (phase.sin() * envelope * 8000.0) as i16
            })
            .collect();
        Audio { sample_rate: RATE, samples: samples.into() }
    }

    /// Root mean square of the samples, 0 for silence.
    pub fn rms(&self) -> f64 {
        if self.samples.is_empty() {
            return 0.0;
        }
        let sum: f64 = self.samples.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
        (sum / self.samples.len() as f64).sqrt()
    }

    pub fn write_wav<W: std::io::Write + std::io::Seek>(&self, w: W) -> Result<(), SpeechError> {
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: self.sample_rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut writer = hound::WavWriter::new(w, spec)?;
        for &s in self.samples.iter() {
            writer.write_sample(s)?;
        }
        writer.finalize()?;
        Ok(())
    }

    /// Reads a 16-bit WAV. espeak-ng streams its WAV to stdout with a
    /// placeholder length, so samples are read until the data ends; only the
    /// first channel is kept.
    pub fn read_wav(bytes: &[u8]) -> Result<Audio, SpeechError> {
        let mut reader = hound::WavReader::new(Cursor::new(bytes))?;
        let spec = reader.spec();
        let channels = usize::from(spec.channels.max(1));
        let samples: Vec<i16> = reader.samples::<i16>().map_while(Result::ok).step_by(channels).collect();
        Ok(Audio { sample_rate: spec.sample_rate, samples: samples.into() })
    }
}

/// Something that turns text into speech.
pub trait Synth: Send {
    /// Names the voice and its settings: the same text in another voice is
    /// another cache entry.
    fn id(&self) -> String;
    fn synth(&self, text: &str) -> Result<Audio, SpeechError>;
}

/// How espeak-ng speaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct VoiceSettings {
    /// Words per minute (espeak-ng `-s`).
    pub speed: u32,
    /// 0–99 (`-p`).
    pub pitch: u32,
    /// 0–200 (`-a`).
    pub amplitude: u32,
    /// Extra pause between words, in units of 10 ms (`-g`).
    pub word_gap: u32,
    /// An espeak-ng voice instead of the language's own, e.g. `de+f3`.
    pub voice: Option<String>,
}

impl Default for VoiceSettings {
    fn default() -> Self {
        // A little slower than espeak-ng's 175: moves must be understood at once.
        VoiceSettings { speed: 160, pitch: 50, amplitude: 100, word_gap: 0, voice: None }
    }
}

/// The espeak-ng program, run once per phrase, WAV on its standard output.
#[derive(Debug, Clone)]
pub struct EspeakNg {
    program: PathBuf,
    voice: String,
    settings: VoiceSettings,
}

impl EspeakNg {
    pub fn new(lang: Lang, settings: VoiceSettings) -> Self {
        let voice = settings.voice.clone().unwrap_or_else(|| lang.code().to_owned());
        EspeakNg { program: PathBuf::from("espeak-ng"), voice, settings }
    }

    /// Another program than `espeak-ng` on the PATH.
    pub fn with_program(self, program: impl Into<PathBuf>) -> Self {
        EspeakNg { program: program.into(), ..self }
    }

    fn args(&self) -> Vec<String> {
        let s = &self.settings;
        let mut args: Vec<String> = ["-v", &self.voice, "-b", "1", "--stdout", "--stdin"].map(str::to_owned).into();
        for (flag, value) in [("-s", s.speed), ("-p", s.pitch), ("-a", s.amplitude), ("-g", s.word_gap)] {
            args.push(flag.to_owned());
            args.push(value.to_string());
        }
        args
    }
}

impl Synth for EspeakNg {
    fn id(&self) -> String {
        format!("espeak-ng {}", self.args().join(" "))
    }

    fn synth(&self, text: &str) -> Result<Audio, SpeechError> {
        let program = self.program.display().to_string();
        let mut child = Command::new(&self.program)
            .args(self.args())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| SpeechError::SynthMissing { program: program.clone(), source })?;
        let failed = |detail: String| SpeechError::Synth { program: program.clone(), text: text.to_owned(), detail };
        // Dropping stdin after writing closes it, so espeak-ng sees the end.
        child
            .stdin
            .take()
            .map(|mut stdin| stdin.write_all(text.as_bytes()))
            .transpose()
            .map_err(|e| failed(e.to_string()))?;
        let out = child.wait_with_output().map_err(|e| failed(e.to_string()))?;
        if !out.status.success() {
            return Err(failed(format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr).trim())));
        }
        Audio::read_wav(&out.stdout)
    }
}

/// A language's voice: the synthesiser, fed the spoken form of the text,
/// behind a cache so a repeated phrase starts at once.
pub struct Voice {
    lang: Lang,
    synth: Box<dyn Synth>,
    cache: PhraseCache,
}

impl Voice {
    pub fn new(lang: Lang, synth: Box<dyn Synth>, cache: PhraseCache) -> Self {
        Voice { lang, synth, cache }
    }

    /// The in-memory phrase cache of [`Voice::espeak`]: 16 MiB, some six
    /// minutes of speech (22,050 samples of 16 bits a second), the phrases
    /// a game repeats. It is most of what the daemon's memory can grow by,
    /// held so that the whole stays within 64 MB on a Pi Zero 2 W (512 MB);
    /// a phrase not cached is rendered in time even there (`cargo bench -p
    /// tactus --bench pi`).
    pub const CACHE_BYTES: usize = 16 << 20;

    /// espeak-ng in the language's voice, with an in-memory cache of
    /// [`Voice::CACHE_BYTES`].
    pub fn espeak(lang: Lang, settings: VoiceSettings) -> Self {
        Voice::new(lang, Box::new(EspeakNg::new(lang, settings)), PhraseCache::new(Self::CACHE_BYTES))
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    pub fn render(&mut self, text: &str) -> Result<Audio, SpeechError> {
        let spoken = spoken(self.lang, text);
        let key = format!("{}\u{1f}{spoken}", self.synth.id());
        if let Some(audio) = self.cache.get(&key) {
            return Ok(audio);
        }
        let audio = self.synth.synth(&spoken)?;
        self.cache.put(key, audio.clone());
        Ok(audio)
    }

    pub fn cache(&self) -> &PhraseCache {
        &self.cache
    }

    pub fn cache_mut(&mut self) -> &mut PhraseCache {
        &mut self.cache
    }
}
