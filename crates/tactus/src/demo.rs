//! `tactus demo`: the daemon on the built-in simulated board. A real blitz
//! game, recorded on a sensor board, is played back at real speed through
//! the whole pipeline — debouncing, the arbiter, the journal, the voice — with
//! both clocks shown on the terminal. No hardware needed.
//!
//! A newcomer should not wait for a recorded player's minute of thought:
//! any quiet in the recording longer than [`LONGEST_QUIET`] is shortened to
//! it, and the clocks are charged the whole recorded time when the move
//! comes — they show what the players had.

use std::io::Write;
use std::process::ExitCode;

use tactus_core::{Policy, pgn, replay};

use crate::config::{BoardKind, Config, Draft, Speed};
use crate::daemon::{Options, run_with};
use crate::sink::{self, VoiceSink};
use crate::terminal;

/// xd009642 – dvmivnb, Chess.com 2023, 3+2: an illegal move that leaves the
/// king in check (7.5.1), a penalty minute, and a mate.
const DEMO_TRACE: &str = include_str!("../assets/demo.trace.jsonl");

/// The longest a recorded quiet lasts in the demo (game milliseconds): the
/// first move comes within 3 s, and the moves keep coming.
pub const LONGEST_QUIET: tactus_trace::Ms = 1500;

#[derive(clap::Args)]
pub struct Args {
    /// Play faster than real time (e.g. 10 plays ten times as fast; 0.01 to 10000).
    #[arg(long, default_value = "1")]
    speed: Speed,
    /// Where speech goes: sound, text, wav:DIR, text+wav:DIR, none (default:
    /// the sound card, or text lines and WAV files where there is none).
    #[arg(long)]
    voice: Option<VoiceSink>,
    /// Language and style of speech, e.g. de:annex-d, ru:natural.
    #[arg(long, default_value = "en:natural")]
    say: tactus_speech::Choice,
    /// Write the events as JSON Lines here; `-` is standard output (speech
    /// printed as text then goes to standard error).
    #[arg(long)]
    events: Option<std::path::PathBuf>,
}

/// The demo's scratch folder (the trace, the journal, the WAV files): gone
/// when the demo ends, however it ends.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let scratch = Scratch(std::env::temp_dir().join(format!("tactus-demo-{}", std::process::id())));
    let dir = &scratch.0;
    std::fs::create_dir_all(dir)?;
    let trace = dir.join("demo.trace.jsonl");
    std::fs::write(&trace, DEMO_TRACE)?;
    let voice = match args.voice {
        Some(v) => v,
        None if sink::sound_card().is_some() => VoiceSink::Sound,
        None => {
            let wav = dir.join("speech");
            tracing::info!(
                "no sound card here: what is said is printed, and rendered to WAV files in {} (removed at the end; keep them with --voice text+wav:DIR)",
                wav.display()
            );
            VoiceSink::TextWav(wav)
        }
    };
    let mut cfg = Config::default();
    cfg.board.kind = BoardKind::Sim;
    cfg.board.sim_trace = Some(trace);
    cfg.board.sim_speed = args.speed;
    cfg.state.dir = dir.join("state");
    cfg.voice.sink = voice;
    cfg.voice.say = args.say;
    let lang = args.say.lang;
    let (header, _) = tactus_trace::read_str(DEMO_TRACE)?;
    tracing::info!(
        "demo: {} – {}, {} ({}, {}), from its sensor trace at {}× speed; Ctrl-C stops",
        header.white.as_deref().unwrap_or("?"),
        header.black.as_deref().unwrap_or("?"),
        header.event.as_deref().unwrap_or("?"),
        header.date.as_deref().unwrap_or("?"),
        header.time_control.as_deref().unwrap_or("no clock"),
        args.speed
    );
    let opts =
        Options { events: args.events, terminal: terminal::can_show_status(), longest_quiet: Some(LONGEST_QUIET) };
    let code = run_with(Draft::of(cfg).plan()?, opts)?;
    // The journal is the game: show it as the record a broadcast would get.
    let games = dir.join("state/games");
    let journal = std::fs::read_dir(&games)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".trace.jsonl"));
    if let Some(journal) = journal {
        let r = replay::replay(std::io::BufReader::new(std::fs::File::open(&journal)?), Policy::default())?;
        let mut out = std::io::stdout().lock();
        let words = tactus_speech::Scribe::natural(lang);
        writeln!(out, "\n{}", pgn::write(&r.header, r.session.game(), words.words()))?;
    }
    Ok(code)
}
