//! `tactus replay TRACE [--pgn OUT] [--events OUT]`.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use tactus_core::{Policy, pgn, replay};

#[derive(clap::Args)]
pub struct Args {
    /// The trace (JSON Lines, docs/trace-format.md); `-` reads standard input.
    trace: PathBuf,
    /// Write the game in PGN here (default: standard output).
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Write the events as JSON Lines here (`-`: standard output).
    #[arg(long)]
    events: Option<PathBuf>,
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
    let replay = replay::replay(input, Policy::default()).with_context(|| args.trace.display().to_string())?;
    let pgn_text = pgn::write(&replay.header, replay.session.game());
    match &args.pgn {
        Some(path) => create(path)?.write_all(pgn_text.as_bytes())?,
        None => std::io::stdout().lock().write_all(pgn_text.as_bytes())?,
    }
    if let Some(path) = &args.events {
        let mut out = create(path)?;
        for event in &replay.events {
            serde_json::to_writer(&mut out, event)?;
            out.write_all(b"\n")?;
        }
        out.flush()?;
    }
    if let Some(e) = replay.error {
        eprintln!("tactus: {}: {e} (the game up to there was written)", args.trace.display());
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}
