//! `tactus bench`: the figures the core promises, measured on real traces.
//! Throughput is parse + recognise (edges per second of wall time), with the
//! full search for who can still mate left to a worker as in the daemon; the
//! searches the traces ask for are timed on their own. Latency is from a
//! move's final settling edge to its `move` event, in the trace's own
//! milliseconds (what a player would wait on a live board).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use tactus_core::{EventKind, MateSearch, Policy, Session, replay, search_mate};
use tactus_stats::Sorted;
use tactus_trace::{Entry, Input, Record};

#[derive(clap::Args)]
pub struct Args {
    /// Folders of `*.trace.jsonl` files (searched one level deep).
    #[arg(default_value = "tests/traces")]
    dirs: Vec<PathBuf>,
    /// How many times to replay the whole set for the throughput figure.
    #[arg(long, default_value_t = 20)]
    repeat: u32,
    /// Instead: the words and seconds of what a blind player hears (needs espeak-ng).
    #[arg(long)]
    speech: bool,
    /// With --speech: the style the four languages are measured in.
    #[arg(long, default_value = "natural", requires = "speech")]
    style: tactus_speech::Style,
    /// With --speech: espeak-ng's rate, in words a minute.
    #[arg(long, default_value_t = 160, requires = "speech")]
    rate: u32,
}

fn traces_in(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            traces_in(&path, out)?;
        } else if path.to_string_lossy().ends_with(".trace.jsonl") {
            out.push(path);
        }
    }
    Ok(())
}

/// Per move: the `move` event's time minus the last sensor edge before the
/// press that completed it (the last announcement counts, as a player hears it).
fn latencies(text: &str) -> anyhow::Result<Vec<u64>> {
    let r = replay::replay(text.as_bytes(), Policy::default())?;
    let clean = !r.events.iter().any(|e| matches!(e.kind, EventKind::Irregularity(_)));
    if !clean {
        return Ok(Vec::new());
    }
    let (_, entries) = tactus_trace::read_str(text)?;
    let mut last_edge = None;
    let mut settled = Vec::new();
    for e in &entries {
        match e.record {
            Record::Edge { .. } => last_edge = Some(e.t),
            Record::Clock(_) => settled.push(last_edge),
            _ => {}
        }
    }
    let mut announced = std::collections::BTreeMap::new();
    for e in &r.events {
        if let EventKind::Move { mv, .. } = &e.kind {
            announced.insert(mv.ply, e.t);
        }
    }
    Ok(announced
        .iter()
        .filter_map(|(ply, t)| settled.get(*ply as usize - 1).copied().flatten().map(|edge| t.saturating_sub(edge)))
        .collect())
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.speech {
        let settings = tactus_speech::VoiceSettings { speed: args.rate, ..Default::default() };
        crate::speech_bench::run(&mut std::io::stdout().lock(), args.style, &settings)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut paths = Vec::new();
    for dir in &args.dirs {
        traces_in(dir, &mut paths)?;
    }
    anyhow::ensure!(!paths.is_empty(), "no *.trace.jsonl under {:?}", args.dirs);
    // The handling profile is the folder a trace is in.
    let profiles: Vec<String> = paths
        .iter()
        .map(|p| p.parent().and_then(|d| d.file_name()).map_or("?".into(), |n| n.to_string_lossy().into_owned()))
        .collect();
    let texts: Vec<String> = paths
        .iter()
        .map(|p| std::fs::read_to_string(p).with_context(|| p.display().to_string()))
        .collect::<Result<_, _>>()?;
    let lines_per_set: u64 = texts.iter().map(|t| t.lines().count() as u64).sum();
    let mut edges = 0;
    // As the daemon's game loop runs: the full mate searches go to a worker.
    let game_loop = Policy { mate_search: MateSearch::Asked, ..Policy::default() };
    let started = Instant::now();
    for _ in 0..args.repeat {
        for text in &texts {
            let r = replay::replay(text.as_bytes(), game_loop.clone())?;
            edges += r.edges;
            std::hint::black_box(&r.events);
        }
    }
    let mut out = std::io::stdout().lock();
    let lines = lines_per_set * u64::from(args.repeat);
    let secs = started.elapsed().as_secs_f64();
    writeln!(out, "traces: {} files, replayed {} times", texts.len(), args.repeat)?;
    writeln!(
        out,
        "throughput (parse + recognise): {:.0} edges/s, {:.0} lines/s, {:.1} µs per game",
        edges as f64 / secs,
        lines as f64 / secs,
        secs * 1e6 / (texts.len() as f64 * f64::from(args.repeat))
    )?;
    let mut lat = Vec::new();
    for text in &texts {
        lat.extend(latencies(text)?);
    }
    let lat = Sorted::new(lat);
    match (lat.percentile(50), lat.percentile(95), lat.max()) {
        (Some(p50), Some(p95), Some(max)) => writeln!(
            out,
            "latency from the final settling edge to the move event: p50 {p50} ms, p95 {p95} ms, max {max} ms over {} moves",
            lat.len()
        )?,
        _ => writeln!(out, "latency: no moves in traces without irregularities")?,
    }
    revisions(&mut out, &profiles, &texts)?;
    mate_searches(&mut out, &texts)?;
    Ok(ExitCode::SUCCESS)
}

/// The full searches for who can still mate that the traces ask for (the
/// quick check after each move is in the throughput), each timed as the
/// daemon's worker runs it.
fn mate_searches(out: &mut impl Write, texts: &[String]) -> anyhow::Result<()> {
    let mut times = Vec::new();
    for text in texts {
        let (header, entries) = tactus_trace::read_str(text)?;
        let policy = Policy { mate_search: MateSearch::Asked, ..Policy::default() }.with_recorded(&header);
        let mut session = Session::new(&header, policy)?;
        let mut answer = |session: &mut Session, t| {
            while let Some(q) = session.mate_question() {
                let started = Instant::now();
                let verdict = search_mate(&q);
                times.push(started.elapsed().as_micros() as u64);
                session
                    .handle(Entry { t, record: Record::Input(Input::Verdict { ply: q.ply, side: q.side, verdict }) });
            }
        };
        answer(&mut session, 0);
        for entry in entries {
            let t = entry.t;
            session.handle(entry);
            answer(&mut session, t);
        }
    }
    let times = Sorted::new(times);
    match (times.percentile(50), times.percentile(99), times.max()) {
        (Some(p50), Some(p99), Some(max)) => writeln!(
            out,
            "who can still mate: {} full searches (off the game loop), p50 {p50} µs, p99 {p99} µs, max {max} µs",
            times.len()
        )?,
        _ => writeln!(out, "who can still mate: no full search asked for")?,
    }
    Ok(())
}

/// Per handling profile: how many plies had a move announced and then
/// revised (a correction, or a move withdrawn), of all plies announced.
fn revisions(out: &mut impl Write, profiles: &[String], texts: &[String]) -> anyhow::Result<()> {
    let mut by_profile: std::collections::BTreeMap<&str, (usize, usize)> = std::collections::BTreeMap::new();
    for (profile, text) in profiles.iter().zip(texts) {
        let r = replay::replay(text.as_bytes(), Policy::default())?;
        let mut announced: std::collections::BTreeMap<u32, usize> = std::collections::BTreeMap::new();
        for e in &r.events {
            match &e.kind {
                EventKind::Move { mv, .. } => *announced.entry(mv.ply).or_default() += 1,
                EventKind::Withdrawn { ply, .. } => *announced.entry(*ply).or_default() += 1,
                _ => {}
            }
        }
        let entry = by_profile.entry(profile).or_default();
        entry.0 += announced.values().filter(|n| **n > 1).count();
        entry.1 += announced.len();
    }
    writeln!(out, "moves announced, then revised (a correction or a withdrawal), per handling profile:")?;
    for (profile, (revised, plies)) in by_profile {
        let share = if plies == 0 { 0.0 } else { 100.0 * revised as f64 / plies as f64 };
        writeln!(out, "  {profile:<12} {revised:>4} of {plies:>5} plies ({share:.1} %)")?;
    }
    Ok(())
}
