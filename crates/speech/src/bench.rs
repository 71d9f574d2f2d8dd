//! Time from an event to its first audio sample, with the phrase already
//! cached (warm) and not (cold). Called by `benches/latency.rs` and by
//! whatever `bench` command the binary offers.

use std::fmt;
use std::time::{Duration, Instant};

use tactus_core::{Event, EventKind};

use crate::{Announcer, Choice, SpeechError, SpeechPolicy, Voice, VoiceSettings, Words, moves_from_san};

/// Cole–Verma, British Championship 2017: the moves the benchmark says.
const GAME: &str = "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 g6 Be3 Bg7 f3 Nc6 Qd2 O-O O-O-O Nxd4 Bxd4 Be6 Kb1 Nd7 \
                    h4 Bxd4 Qxd4 Qa5 h5 Qe5 Qd2 Rfc8 a3 Rab8 hxg6 fxg6 f4 Qa5 f5 Bf7 Qh6 Nf8 g4 Rxc3 bxc3 Qxa3 \
                    Qc1 Qa2#";

#[derive(Debug, Clone, Copy)]
pub struct Stats {
    pub count: usize,
    pub median: Duration,
    pub p90: Duration,
    pub max: Duration,
}

impl Stats {
    fn of(times: Vec<Duration>) -> Stats {
        let times = tactus_stats::Sorted::new(times);
        let at = |p| times.percentile(p).unwrap_or_default();
        Stats { count: times.len(), median: at(50), p90: at(90), max: at(100) }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Latency {
    pub cold: Stats,
    pub warm: Stats,
}

impl fmt::Display for Latency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, s) in [("cold", self.cold), ("warm", self.warm)] {
            writeln!(
                f,
                "{name}: {} events, median {:.2} ms, p90 {:.2} ms, max {:.2} ms",
                s.count,
                s.median.as_secs_f64() * 1e3,
                s.p90.as_secs_f64() * 1e3,
                s.max.as_secs_f64() * 1e3
            )?;
        }
        Ok(())
    }
}

/// Says every move of a real game through espeak-ng: each phrase once with
/// an empty cache, then again from the cache. The clock stops when the
/// first sample is in hand, ready for a sink.
pub fn latency(choice: Choice, settings: VoiceSettings) -> Result<Latency, SpeechError> {
    let sans: Vec<&str> = GAME.split_whitespace().collect();
    let events: Vec<Event> = moves_from_san(None, &sans)?
        .into_iter()
        .map(|mv| Event { t: 0, kind: EventKind::Move { mv, correction: false } })
        .collect();
    let mut announcer = Announcer::new(Words::new(choice.lang, choice.style), SpeechPolicy::everything());
    let mut voice = Voice::espeak(choice.lang, settings);
    let mut time = |voice: &mut Voice, ev: &Event, cold: bool| -> Result<Option<Duration>, SpeechError> {
        if cold {
            voice.cache_mut().clear();
        }
        let start = Instant::now();
        let Some(utterance) = announcer.hear(ev) else { return Ok(None) };
        let audio = voice.render(&utterance.text)?;
        std::hint::black_box(audio.samples.first());
        Ok(Some(start.elapsed()))
    };
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    for ev in &events {
        cold.extend(time(&mut voice, ev, true)?);
        warm.extend(time(&mut voice, ev, false)?);
    }
    Ok(Latency { cold: Stats::of(cold), warm: Stats::of(warm) })
}
