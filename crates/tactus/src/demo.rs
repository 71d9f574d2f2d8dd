//! `tactus demo`: the daemon on the built-in simulated board. A real blitz
//! game, recorded on a sensor board, is played back at real speed through
//! the whole pipeline — debouncing, the arbiter, the journal, the voice — with
//! both clocks shown on the terminal. No hardware needed.

use std::io::IsTerminal;
use std::process::ExitCode;

use tactus_core::{Policy, pgn, replay};

use crate::config::Config;
use crate::daemon::{Options, run_with};

/// xd009642 – dvmivnb, Chess.com 2023, 3+2: an illegal move that leaves the
/// king in check (7.5.1), a penalty minute, and a mate.
const DEMO_TRACE: &str = include_str!("../assets/demo.trace.jsonl");

#[derive(clap::Args)]
pub struct Args {
    /// Play faster than real time (e.g. 10 plays ten times as fast).
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// Where speech goes: sound, text, wav:DIR, text+wav:DIR, none (default:
    /// the sound card, or text lines and WAV files where there is none).
    #[arg(long)]
    voice: Option<String>,
    /// Language and style of speech, e.g. de:annex-d, ru:natural.
    #[arg(long, default_value = "en:natural")]
    say: String,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.speed > 0.0, "--speed must be above 0");
    let dir = std::env::temp_dir().join(format!("tactus-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let trace = dir.join("demo.trace.jsonl");
    std::fs::write(&trace, DEMO_TRACE)?;
    let voice = match args.voice {
        Some(v) => v,
        None if tactus_speech::RodioSink::open_default().is_ok() => "sound".to_string(),
        None => {
            let wav = dir.join("speech");
            eprintln!("tactus demo: no sound card here: speech is printed, and rendered to {}", wav.display());
            format!("text+wav:{}", wav.display())
        }
    };
    let mut cfg = Config::default();
    cfg.board.kind = "sim".into();
    cfg.board.sim_trace = Some(trace);
    cfg.board.sim_speed = args.speed;
    cfg.state.dir = dir.join("state");
    cfg.voice.sink = voice;
    cfg.voice.say = args.say;
    cfg.validate()?;
    let (header, _) = tactus_trace::read_str(DEMO_TRACE)?;
    eprintln!(
        "tactus demo: {} – {}, {} ({}, {}), from its sensor trace at {}× speed; Ctrl-C stops",
        header.white.as_deref().unwrap_or("?"),
        header.black.as_deref().unwrap_or("?"),
        header.event.as_deref().unwrap_or("?"),
        header.date.as_deref().unwrap_or("?"),
        header.time_control.as_deref().unwrap_or("no clock"),
        args.speed
    );
    let code = run_with(cfg, Options { events: None, terminal_clock: std::io::stderr().is_terminal() })?;
    // The journal is the game: show it as the record a broadcast would get.
    let games = dir.join("state/games");
    if let Some(journal) = std::fs::read_dir(&games)?.filter_map(Result::ok).map(|e| e.path()).next() {
        let r = replay::replay(std::io::BufReader::new(std::fs::File::open(&journal)?), Policy::default())?;
        println!("\n{}", pgn::write(&r.header, r.session.game()));
    }
    Ok(code)
}
