//! `tactus run`: the daemon. The board is opened first; then the game task
//! ([`game::GameTask`]) owns the game — session, journal, outputs, clock
//! link, opponent — and takes one input at a time from one bounded queue
//! that the board and the clock feed. Each part is pushed into one
//! [`Running`] as it starts; its `shutdown()` stops them all, in order,
//! by one deadline (`running.rs`, `shutdown.rs`), on one stop signal
//! (`signals.rs`): whatever a peer does, SIGTERM ends the daemon within 2 s.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

mod args;
mod board;
mod broadcast;
mod chess_clock;
mod date;
mod dgt;
mod dgt_board;
mod engine;
mod event_log;
mod game;
mod input;
mod journal;
mod lichess;
mod mate;
mod opening;
mod opponent;
mod outputs;
mod pairing;
mod partner;
mod running;
mod shutdown;
mod source;
mod time;
mod view;
mod voice;
mod watchdog;

pub use args::Args;
pub use board::{NoBoard, matrix};
pub use broadcast::web_dir;

use anyhow::Context;
use tactus_core::{MateSearch, Policy};
use tactus_trace::{Header, Ms, Variant};
use tokio::sync::mpsc;

use crate::config::{BoardKind, ClockKind, Config, Plan, Speed};
use crate::notify;
use crate::sink::VoiceSink;
use event_log::EventLog;
use game::{Ended, GameTask};
use input::Incoming;
use opening::Setup;
use opponent::{Opponent, Recovered};
use running::Running;
use time::GameTime;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let plan = args.plan()?;
    let terminal = crate::terminal::can_show_status();
    run_with(plan, Options { events: args.events, terminal, ..Options::default() })
}

/// What a caller adds to the configuration.
#[derive(Default)]
pub struct Options {
    /// Where the events go as JSON Lines (`-`: standard output).
    pub events: Option<PathBuf>,
    /// Show both clocks on the terminal, updated every second, and draw the
    /// board when asked.
    pub terminal: bool,
    /// A recording's quiets longer than this (game milliseconds) are
    /// shortened to it, its clocks still charged the whole time (the demo).
    pub longest_quiet: Option<Ms>,
}

pub fn run_with(plan: Plan, opts: Options) -> anyhow::Result<ExitCode> {
    // Standard output and error are peers too: the game never waits for them.
    crate::terminal::queue()?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let ran = runtime.block_on(daemon(plan, opts));
    // Every task has ended or been left behind at the shutdown's deadline.
    runtime.shutdown_timeout(std::time::Duration::from_millis(50));
    ran
}

/// How the board rules, for the core and for the journal's header.
fn policy_of(plan: &Plan) -> Policy {
    let cfg = &plan.config;
    let dgt = cfg.board.kind == BoardKind::Dgt;
    let (debounce_ms, settle_ms) = (cfg.game.debounce_ms.get(), cfg.game.settle_ms.get());
    Policy {
        // A DGT board's own timing (tactus-dgt's `follow`).
        debounce_ms: if dgt { tactus_dgt::follow::DEBOUNCE_MS } else { debounce_ms },
        settle_ms: if dgt { settle_ms.max(tactus_dgt::follow::SETTLE_MS) } else { settle_ms },
        press_grace_ms: cfg.game.press_grace_ms.get(),
        supervision: cfg.game.supervision,
        // Given while a player thinks, never muted for low time.
        time_warnings: if cfg.voice.sink == VoiceSink::None {
            Vec::new()
        } else {
            cfg.voice.time_warnings.seconds().map(|s| s * 1000).collect()
        },
        // Who can still mate is searched off the game loop (mate.rs).
        mate_search: MateSearch::Asked,
        // The partner board's side is guided onto this board as an engine's is.
        engine: plan.opponent.guided_side(),
        partner: plan.opponent.partner().is_some(),
        table_clock: plan.opponent.table_clock(),
        engine_override: plan.opponent.takes_other_moves(),
        ..Policy::default()
    }
}

/// The game's tags: from the trace a simulated board plays, or the config;
/// and for a board that knows its pieces (a DGT board), its kind, so that
/// the journal is written in version 2, with the pieces put down.
fn header_of(cfg: &Config, trace: Option<&Header>) -> Header {
    if let Some(header) = trace {
        return header.clone();
    }
    let tc = &cfg.game.time_control;
    Header {
        variant: cfg.game.variant,
        start_fen: cfg.game.start_fen.clone(),
        time_control: tc.clock().map(|_| tc.text().to_owned()),
        white: cfg.game.white.clone(),
        black: cfg.game.black.clone(),
        event: cfg.game.event.clone(),
        site: cfg.game.site.clone(),
        round: cfg.game.round.clone(),
        board: (cfg.board.kind == BoardKind::Dgt).then_some(tactus_trace::BoardKind::Dgt),
        ..Header::default()
    }
}

fn events_log(path: Option<&PathBuf>, lang: tactus_speech::Lang) -> anyhow::Result<Option<EventLog>> {
    Ok(match path {
        None => None,
        Some(p) if p.as_os_str() == "-" => {
            Some(EventLog::start(Box::new(std::io::stdout()), "standard output".into(), lang)?)
        }
        // Appended to: after a restart the log of a recovered game goes on.
        Some(p) => Some(EventLog::start(
            Box::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .with_context(|| format!("cannot open {}", p.display()))?,
            ),
            p.display().to_string(),
            lang,
        )?),
    })
}

async fn daemon(plan: Plan, opts: Options) -> anyhow::Result<ExitCode> {
    let mut running = Running::new();
    let played = match start(&plan, &opts, &mut running).await {
        Ok(started) => play(&mut running, started).await,
        Err(e) => Err(e),
    };
    // Shutdown always runs, within its budget, whatever had started.
    let stopped = running.shutdown().await;
    crate::log::summarise(true);
    played?;
    stopped?;
    Ok(ExitCode::SUCCESS)
}

/// What the game task plays from, once every part has started.
struct Started {
    inputs: mpsc::Receiver<Incoming>,
    controls: mpsc::Receiver<tactus_net::Control>,
    recovered: bool,
}

/// Starts every part in order, each pushed into `running` as it starts.
async fn start(plan: &Plan, opts: &Options, running: &mut Running) -> anyhow::Result<Started> {
    let cfg = &plan.config;
    // The board first: a daemon without one writes nothing.
    let (board, source) = board::open(cfg, plan.file.as_deref())?;
    let mut header = header_of(cfg, board.header());
    let policy = policy_of(plan);
    // The journal records how this board rules, so that a replay rules the same.
    policy.record(&mut header);
    std::fs::create_dir_all(&cfg.state.dir).with_context(|| format!("cannot create {}", cfg.state.dir.display()))?;
    let events_to_stdout = opts.events.as_deref() == Some(std::path::Path::new("-"));
    let sim = board.is_sim();
    let typed_at_terminal = matches!(board, board::OpenBoard::SimTyped) && std::io::stdin().is_terminal();
    let speed = match board {
        board::OpenBoard::SimTrace { .. } => cfg.board.sim_speed,
        _ => Speed::REAL_TIME,
    };
    let setup = Setup {
        header,
        policy,
        source,
        state_dir: cfg.state.dir.clone(),
        real_board: !sim,
        // A simulated board's presses are typed or in its trace; the
        // table's clock's come from the partner board.
        clock_connected: sim
            || cfg.clock.device != ClockKind::None
            || plan.opponent.table_clock() == Some(tactus_trace::TableClock::Partner),
        speed,
        draw_board: opts.terminal,
        status_line: (opts.terminal && !typed_at_terminal).then_some(cfg.voice.say.lang),
        stops_clocks_on_recovery: plan.opponent.partner().is_none_or(|pair| pair.table_clock.is_some()),
        online: cfg.lichess.token_file.is_some(),
    };
    setup.start_occupancy().context("the game's start position")?;

    running.outputs.events = events_log(opts.events.as_ref(), cfg.voice.say.lang)?;
    let (control_tx, controls) = mpsc::channel::<tactus_net::Control>(64);
    running.outputs.broadcast =
        broadcast::Broadcast::start(plan, &setup.header, control_tx, &running.tasks, &running.stop).await?;
    let said = running.outputs.broadcast.as_ref().map(|b| b.said());
    // Text goes to standard error when the events have standard output.
    running.outputs.voice = voice::VoiceThread::start(plan, events_to_stdout, said)?;
    let opened = opening::open(&setup, board.shows(), &mut running.outputs).await?;
    let recovered = opened.recovered.clone();
    let assume = opened.occupancy();
    let warp = board.warp(opened.last_t(), opts.longest_quiet);
    let time = GameTime { warp, ..GameTime::new(opened.last_t(), speed) };
    let chess960 = setup.header.variant == Variant::Chess960;
    let pairings = running.outputs.broadcast.as_ref().and_then(|b| b.pairings());
    let outputs = std::mem::take(&mut running.outputs);
    let task = running.game.insert(GameTask::new(setup, opened, outputs, time.clone()));
    if let Some(pairings) = pairings {
        task.take_pairings(pairings);
    }
    if let Some(path) = &cfg.board.dgt_emulate {
        task.emulate_dgt(dgt::DgtEmulation::start(path, task.session(), cfg.clock.white)?);
    }
    let (tx, inputs) = mpsc::channel(256);
    let stop = running.stop.clone();
    running.board = Some(board::start(board, cfg, assume, recovered.as_deref(), time, tx.clone(), stop)?);
    if let Some(clock) = chess_clock::ChessClock::start(cfg, tx)? {
        task.link_clock(clock);
    }
    let recovered_game = recovered.is_some().then(|| Recovered { session: task.session(), site: task.site() });
    let opponent = Opponent::start(&plan.opponent, chess960, recovered_game, &running.tasks, &running.stop).await?;
    if let Some(opponent) = opponent {
        task.seat(opponent);
    }
    // From here on Ctrl-C and SIGTERM stop the daemon the orderly way.
    crate::signals::cancel_on_signals(&running.stop, &running.tasks)?;
    Ok(Started { inputs, controls, recovered: recovered.is_some() })
}

/// Plays until the daemon is stopped, or a simulated board's game ends.
async fn play(running: &mut Running, started: Started) -> anyhow::Result<()> {
    let Some(task) = &mut running.game else { return Ok(()) };
    notify::ready();
    task.begin(started.recovered).await?;
    let ended = task.run(started.inputs, started.controls, &running.stop).await?;
    // With the page served, a simulated game that ended stays on it.
    if ended == Ended::GameOver && task.serving() {
        tracing::info!("the game is over; still serving it — Ctrl-C stops");
        task.serve_until(&running.stop).await;
    }
    Ok(())
}
