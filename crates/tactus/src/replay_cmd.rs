//! `tactus replay TRACE [--pgn OUT] [--events OUT] [--say LANG:STYLE [--transcript FILE] [--speak | --wav DIR]]`.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use tactus_core::{Event, Policy, Supervision, pgn, replay};
use tactus_speech::{Announcer, Choice, Lang, Scribe, SpeechPolicy, Touches, VoiceSettings, Words};

use crate::sink::{VoiceSink, speaker};

#[derive(clap::Args)]
pub struct Args {
    /// The trace (JSON Lines, docs/trace-format.md); `-` reads standard input.
    trace: PathBuf,
    /// Write the game in PGN here (default: standard output).
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Write the events as JSON Lines here (`-`: standard output); a
    /// ruling's `detail` is in the language of --say, English without it.
    #[arg(long)]
    events: Option<PathBuf>,
    /// Let illegal moves stand unless claimed (A.5.2, unsupervised rapid and
    /// blitz), whatever the recording board did.
    #[arg(long)]
    unsupervised: bool,
    /// Say the game: language and style, e.g. `de:annex-d`, `en:natural`, `ru:nato`, `pl:literate`.
    #[arg(long)]
    say: Option<Choice>,
    /// Write what would be said, one `t_ms<TAB>text` line per utterance (needs --say).
    #[arg(long, requires = "say")]
    transcript: Option<PathBuf>,
    /// Also speak it on the sound card (needs --say).
    #[arg(long, requires = "say", conflicts_with = "wav")]
    speak: bool,
    /// Also render each utterance to a numbered WAV file in this folder (needs --say).
    #[arg(long, requires = "say")]
    wav: Option<PathBuf>,
    /// Seconds left at which a player is warned (with --say), e.g. 300,60,10.
    #[arg(long, value_delimiter = ',', default_value = "300,60,10")]
    time_warnings: Vec<u64>,
    /// Which touches are said: never, binding (the touch-move ones), all.
    #[arg(long, default_value = "never", value_parser = parse_touches)]
    touches: Touches,
}

/// A `--touches` that names no choice.
#[derive(Debug, thiserror::Error)]
#[error("{0:?}: choose never, binding or all")]
struct UnknownTouches(String);

fn parse_touches(s: &str) -> Result<Touches, UnknownTouches> {
    match s {
        "never" => Ok(Touches::Never),
        "binding" => Ok(Touches::Binding),
        "all" => Ok(Touches::All),
        _ => Err(UnknownTouches(s.to_owned())),
    }
}

fn create(path: &PathBuf) -> anyhow::Result<Box<dyn Write>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(std::io::stdout().lock()));
    }
    let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(Box::new(BufWriter::new(file)))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let input: Box<dyn std::io::BufRead> = if args.trace.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = File::open(&args.trace).with_context(|| format!("cannot open {}", args.trace.display()))?;
        Box::new(BufReader::new(file))
    };
    let policy_for = |header: &tactus_trace::Header| {
        let mut policy = Policy::default().with_recorded(header);
        if args.unsupervised {
            policy.supervision = Supervision::Unsupervised;
        }
        // What is said includes the warnings a player gets while thinking.
        if args.say.is_some() {
            policy.time_warnings = args.time_warnings.iter().map(|s| s * 1000).collect();
        }
        policy
    };
    let replay = replay::replay_with(input, policy_for).with_context(|| args.trace.display().to_string())?;
    // The record's remarks and the events' `detail` in the language spoken,
    // English without one.
    let mut scribe = Scribe::natural(args.say.map_or(Lang::En, |c| c.lang));
    let pgn_text = pgn::write(&replay.header, replay.session.game(), scribe.words());
    match &args.pgn {
        Some(path) => create(path)?.write_all(pgn_text.as_bytes())?,
        None if args.say.is_none() => std::io::stdout().lock().write_all(pgn_text.as_bytes())?,
        None => {}
    }
    if let Some(path) = &args.events {
        let mut out = create(path)?;
        for event in &replay.events {
            writeln!(out, "{}", scribe.json_line(event))?;
        }
        out.flush()?;
    }
    if let Some(choice) = args.say {
        say(&args, choice, &replay.events)?;
    }
    if let Some(e) = replay.error {
        tracing::error!("{}: {e} (the game up to there was written)", args.trace.display());
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}

fn say(args: &Args, choice: Choice, events: &[Event]) -> anyhow::Result<()> {
    let policy = SpeechPolicy { touches: args.touches, ..SpeechPolicy::default() };
    let mut announcer = Announcer::new(Words::new(choice.lang, choice.style), policy);
    let sink = match (&args.wav, args.speak) {
        (Some(dir), _) => VoiceSink::Wav(dir.clone()),
        (None, true) => VoiceSink::Sound,
        (None, false) => VoiceSink::None,
    };
    let mut speaker = speaker(&sink, choice, &VoiceSettings::default(), Box::new(std::io::sink()))?;
    let mut transcript = match &args.transcript {
        Some(path) => Some(create(path)?),
        None if sink == VoiceSink::None => Some(Box::new(std::io::stdout().lock()) as Box<dyn Write>),
        None => None,
    };
    for event in events {
        if let Some(u) = announcer.hear(event) {
            if let Some(out) = &mut transcript {
                writeln!(out, "{}", u.transcript_line())?;
            }
            speaker.speak(&u)?;
        }
    }
    if let Some(out) = &mut transcript {
        out.flush()?;
    }
    Ok(())
}
