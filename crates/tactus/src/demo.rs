//! `tactus demo`: a real blitz game, recorded on a sensor board, played back
//! at real speed through the core, with every touch, move, ruling and clock
//! reading printed as it happens. No hardware needed.

use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use tactus_core::{Event, EventKind, Policy, Session, pgn::clock_text};
use tactus_trace::{Entry, read_str};

/// xd009642 – dvmivnb, Chess.com 2023, 3+2: an illegal move that leaves the
/// king in check (7.5.1) and a mate.
const DEMO_TRACE: &str = include_str!("../assets/demo.trace.jsonl");

#[derive(clap::Args)]
pub struct Args {
    /// Play faster than real time (e.g. 10 plays ten times as fast).
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
}

/// Feeds entries to the session at their times (scaled by `speed`), running
/// the session's timers in between, and hands every event to `sink`.
pub fn play(session: &mut Session, entries: &[Entry], speed: f64, mut sink: impl FnMut(&Event)) {
    let start = Instant::now();
    let wait_until = |t: u64| {
        let due = start + Duration::from_secs_f64(t as f64 / 1000.0 / speed);
        if let Some(d) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(d);
        }
    };
    for event in session.drain() {
        sink(&event);
    }
    for entry in entries {
        while let Some(deadline) = session.next_deadline().filter(|d| *d < entry.t) {
            wait_until(deadline);
            session.advance(deadline);
            for event in session.drain() {
                sink(&event);
            }
        }
        wait_until(entry.t);
        session.handle(*entry);
        for event in session.drain() {
            sink(&event);
        }
        if session.finished() {
            break;
        }
    }
}

/// One line for the arbiter's log.
pub fn log_line(e: &Event) -> Option<String> {
    let s = e.t / 1000;
    let stamp = format!("{:>2}:{:02}.{}", s / 60, s % 60, e.t % 1000 / 100);
    let side = |c: shakmaty::Color| if c == shakmaty::Color::White { "White" } else { "Black" };
    let text = match &e.kind {
        EventKind::Start { fen, time_control, .. } => {
            format!("game starts — {} — time control {}", fen, time_control.as_deref().unwrap_or("none"))
        }
        EventKind::Touch { sq, piece, binding, .. } => {
            format!("touch  {} on {sq}{}", piece.char(), if binding.is_some() { " (binding)" } else { "" })
        }
        EventKind::Move { mv, correction } => {
            format!("{}{} {}", if *correction { "move (correction) " } else { "move   " }, mv.ply, mv.san)
        }
        EventKind::Complete { ply, side: s, san, clock_ms, .. } => format!(
            "press  {} completes {ply}. {san}{}",
            side(*s),
            clock_ms.map(|ms| format!(" — {} left", clock_text(ms))).unwrap_or_default()
        ),
        EventKind::Irregularity(i) => {
            format!("RULING {} {} (ply {}): {}", i.article.as_str(), side(i.side), i.ply, i.detail)
        }
        EventKind::Penalty { article, side: s, ms } => {
            format!("PENALTY {}: {} s to {}", article.as_str(), ms / 1000, side(*s))
        }
        EventKind::GameOver { result, reason, article } => {
            format!("GAME OVER {result} ({reason:?}, article {})", article.as_str())
        }
        EventKind::Observation { detail, .. } => format!("note   {detail}"),
        EventKind::Displaced { sq, piece, .. } => format!("note   {} knocked off {sq} and put back", piece.char()),
        EventKind::Withdrawn { san, .. } => format!("note   {san} taken back before the press"),
        EventKind::Ambiguous { candidates, chosen, .. } => {
            format!("NOTE   the board fits {}; recorded {chosen}", candidates.join(" or "))
        }
        EventKind::Claimable { claim, side: s, .. } => format!("claim  {} may claim a draw ({claim:?})", side(*s)),
        EventKind::BoardMismatch { fix, .. } => format!("BOARD  differs from the game; {} step(s) to fix", fix.len()),
        EventKind::BoardOk => "board  matches the game again".to_string(),
        _ => return None,
    };
    Some(format!("[{stamp}] {text}"))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.speed > 0.0, "--speed must be above 0");
    let (header, entries) = read_str(DEMO_TRACE)?;
    let mut session = Session::new(&header, Policy::default())?;
    println!(
        "tactus demo: {} – {}, {} ({}), replayed from its sensor trace at {}× speed",
        header.white.as_deref().unwrap_or("?"),
        header.black.as_deref().unwrap_or("?"),
        header.event.as_deref().unwrap_or("?"),
        header.date.as_deref().unwrap_or("?"),
        args.speed
    );
    let mut out = std::io::stdout().lock();
    play(&mut session, &entries, args.speed, |e| {
        if let Some(line) = log_line(e) {
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    });
    println!("\n{}", tactus_core::pgn::write(&header, session.game()));
    Ok(ExitCode::SUCCESS)
}
