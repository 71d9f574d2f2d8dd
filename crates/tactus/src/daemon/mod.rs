//! `tactus run`: the daemon. The board is opened first; then the game task
//! ([`game::GameTask`]) owns the game — session, journal, outputs, clock
//! link — and takes one input at a time from one bounded queue that the
//! board and the clock feed. One stop signal ends the board, the clock, the
//! engine, the journal, the voice, the events, HTTP and MQTT, all at once
//! and each waited for until one deadline (`shutdown.rs`): whatever a peer
//! does, SIGTERM ends the daemon within 2 s.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

mod board;
mod broadcast;
mod chess_clock;
mod dgt;
mod dgt_board;
mod engine;
mod event_log;
mod game;
mod journal;
mod opponent;
mod running;
mod shutdown;
mod source;
mod voice;

pub use board::{NoBoard, matrix};
pub use broadcast::web_dir;

use anyhow::Context;
use tactus_core::{MateSearch, Policy};
use tactus_trace::{Header, Ms, Variant};
use tokio::sync::mpsc;

use crate::config::{self, BoardKind, BrokerAddr, ClockKind, Config, EngineSide, Speed, TimeControlText};
use crate::notify;
use crate::sink::VoiceSink;
use event_log::EventLog;
use game::{Ended, GameTask, GameTime, Incoming, Setup};
use opponent::Opponent;
use running::Running;

#[derive(clap::Args, Default)]
pub struct Args {
    /// The configuration file (default /etc/tactus/tactus.toml, if present).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The board.
    #[arg(long, value_enum)]
    pub board: Option<BoardKind>,
    /// sim: play this trace (without it, type lifts and places: `e2-`, `e4+`, `w`, `b`).
    #[arg(long)]
    pub sim_trace: Option<PathBuf>,
    /// sim: how much faster than real time the trace plays (0.01 to 10000).
    #[arg(long)]
    pub sim_speed: Option<Speed>,
    /// Where games are journaled (default /var/lib/tactus).
    #[arg(long)]
    pub state_dir: Option<PathBuf>,
    /// Where speech goes: sound, text, wav:DIR, text+wav:DIR, none.
    #[arg(long)]
    pub voice: Option<VoiceSink>,
    /// Language and style of speech, e.g. de:annex-d.
    #[arg(long)]
    pub say: Option<tactus_speech::Choice>,
    /// The time control, e.g. 5400+30 (`-`: no clock).
    #[arg(long)]
    pub time_control: Option<TimeControlText>,
    /// Write the events as JSON Lines here; `-` is standard output.
    #[arg(long)]
    pub events: Option<PathBuf>,
    /// Be a DGT e-Board for chess software at this serial device, or on a
    /// pseudo-terminal linked at this path.
    #[arg(long, value_name = "PATH")]
    pub dgt_emulate: Option<PathBuf>,
    /// A UCI engine plays one side: its program, e.g. /usr/games/stockfish.
    #[arg(long, value_name = "PATH")]
    pub engine: Option<PathBuf>,
    /// The side the engine plays (default black).
    #[arg(long, value_enum)]
    pub engine_plays: Option<EngineSide>,
    /// The engine's level: 0 (first games) to 10 (full strength).
    #[arg(long, value_name = "N")]
    pub engine_level: Option<u8>,
    /// The chess clock.
    #[arg(long, value_enum)]
    pub clock: Option<ClockKind>,
    /// The clock's serial device (default /dev/tactus-clock; /dev/tactus-dgt for a DGT 3000).
    #[arg(long)]
    pub clock_path: Option<PathBuf>,
    /// Serve the live page, /games.pgn and /events (default address 127.0.0.1:8080).
    #[arg(long, num_args = 0..=1, default_missing_value = "127.0.0.1:8080")]
    pub http: Option<std::net::SocketAddr>,
    /// The built web page the live page is served from (default web/dist, or /usr/share/tactus/web).
    #[arg(long)]
    pub web: Option<PathBuf>,
    /// The token the arbiter's actions on the page need.
    #[arg(long)]
    pub token: Option<String>,
    /// The token, in a file (or the TACTUS_TOKEN environment variable).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// The hall key shared with the hall's relays, in a file only its owner may read.
    #[arg(long, value_name = "FILE")]
    pub hall_key: Option<PathBuf>,
    /// Publish to the hall's MQTT broker, host:port.
    #[arg(long)]
    pub mqtt: Option<BrokerAddr>,
    /// The hall's name on the broker.
    #[arg(long)]
    pub hall: Option<String>,
    /// This board's name in the hall.
    #[arg(long)]
    pub board_id: Option<String>,
}

impl Args {
    /// The configuration: the file, then the flags on top; and which file.
    fn config(&self) -> anyhow::Result<(Config, Option<PathBuf>)> {
        let (mut cfg, file) = config::load_default(self.config.as_deref())?;
        if let Some(b) = self.board {
            cfg.board.kind = b;
        }
        if let Some(t) = &self.sim_trace {
            cfg.board.sim_trace = Some(t.clone());
        }
        if let Some(s) = self.sim_speed {
            cfg.board.sim_speed = s;
        }
        if let Some(d) = &self.state_dir {
            cfg.state.dir = d.clone();
        }
        if let Some(v) = &self.voice {
            cfg.voice.sink = v.clone();
        }
        if let Some(s) = self.say {
            cfg.voice.say = s;
        }
        if let Some(tc) = &self.time_control {
            cfg.game.time_control = tc.clone();
        }
        if let Some(p) = &self.dgt_emulate {
            cfg.board.dgt_emulate = Some(p.clone());
        }
        if let Some(p) = &self.engine {
            cfg.engine.path = Some(p.clone());
        }
        if let Some(side) = self.engine_plays {
            cfg.engine.plays = side;
        }
        if let Some(level) = self.engine_level {
            cfg.engine.level = level;
        }
        if let Some(c) = self.clock {
            cfg.clock.device = c;
        }
        if let Some(p) = &self.clock_path {
            cfg.clock.path = Some(p.clone());
        }
        if let Some(h) = self.http {
            cfg.http.listen = Some(h);
        }
        if let Some(w) = &self.web {
            cfg.http.assets = Some(w.clone());
        }
        if let Some(t) = &self.token {
            cfg.http.token = Some(t.clone());
        }
        if let Some(f) = &self.token_file {
            cfg.http.token_file = Some(f.clone());
        }
        if let Some(k) = &self.hall_key {
            cfg.mqtt.hall_key_file = Some(k.clone());
        }
        if let Some(m) = &self.mqtt {
            cfg.mqtt.broker = Some(m.clone());
        }
        if let Some(h) = &self.hall {
            cfg.mqtt.hall = h.clone();
        }
        if let Some(b) = &self.board_id {
            cfg.mqtt.board_id = b.clone();
        }
        cfg.check().map_err(|e| anyhow::anyhow!("{}: {e}", config::origin(file.as_deref())))?;
        Ok((cfg, file))
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (cfg, file) = args.config()?;
    let terminal = crate::terminal::can_show_status();
    run_with(cfg, Options { events: args.events, terminal, config_file: file, longest_quiet: None })
}

/// What a caller adds to the configuration.
#[derive(Default)]
pub struct Options {
    /// Where the events go as JSON Lines (`-`: standard output).
    pub events: Option<PathBuf>,
    /// Show both clocks on the terminal, updated every second, and draw the
    /// board when asked.
    pub terminal: bool,
    /// The configuration file, for messages.
    pub config_file: Option<PathBuf>,
    /// A recording's quiets longer than this (game milliseconds) are
    /// shortened to it, its clocks still charged the whole time (the demo).
    pub longest_quiet: Option<Ms>,
}

pub fn run_with(cfg: Config, opts: Options) -> anyhow::Result<ExitCode> {
    // Standard output and error are peers too: the game never waits for them.
    crate::terminal::queue()?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let ran = runtime.block_on(daemon(cfg, opts));
    // Every task has ended or been left behind at the shutdown's deadline.
    runtime.shutdown_timeout(std::time::Duration::from_millis(50));
    ran
}

/// How the board rules, for the core and for the journal's header.
fn policy_of(cfg: &Config) -> Policy {
    let dgt = cfg.board.kind == BoardKind::Dgt;
    Policy {
        // A DGT board's own timing (tactus-dgt's `follow`).
        debounce_ms: if dgt { tactus_dgt::follow::DEBOUNCE_MS } else { cfg.game.debounce_ms },
        settle_ms: if dgt { cfg.game.settle_ms.max(tactus_dgt::follow::SETTLE_MS) } else { cfg.game.settle_ms },
        press_grace_ms: cfg.game.press_grace_ms,
        supervision: cfg.game.supervision,
        // Given while a player thinks, never muted for low time.
        time_warnings: if cfg.voice.sink == VoiceSink::None {
            Vec::new()
        } else {
            cfg.voice.time_warnings.iter().map(|s| s * 1000).collect()
        },
        // Who can still mate is searched off the game loop (game.rs).
        mate_search: MateSearch::Asked,
        engine: cfg.engine.side(),
        engine_override: cfg.engine.accept_other_moves,
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
    let tc = &cfg.game.time_control.0;
    Header {
        variant: cfg.game.variant,
        start_fen: cfg.game.start_fen.clone(),
        time_control: (!matches!(tc.as_str(), "" | "-" | "?")).then(|| tc.clone()),
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

async fn daemon(cfg: Config, opts: Options) -> anyhow::Result<ExitCode> {
    let mut running = Running::new();
    let played = match start(&cfg, &opts, &mut running).await {
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
async fn start(cfg: &Config, opts: &Options, running: &mut Running) -> anyhow::Result<Started> {
    // The board first: a daemon without one writes nothing.
    let (board, source) = board::open(cfg, opts.config_file.as_deref())?;
    let mut header = header_of(cfg, board.header());
    let policy = policy_of(cfg);
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
        // A simulated board's presses are typed or in its trace.
        clock_connected: sim || cfg.clock.device != ClockKind::None,
        speed,
        draw_board: opts.terminal,
        status_line: opts.terminal && !typed_at_terminal,
    };
    setup.start_occupancy().context("the game's start position")?;

    running.outputs.events = events_log(opts.events.as_ref(), cfg.voice.say.lang)?;
    let (control_tx, controls) = mpsc::channel::<tactus_net::Control>(64);
    running.outputs.broadcast = broadcast::Broadcast::start(cfg, &setup.header, control_tx).await?;
    let said = running.outputs.broadcast.as_ref().map(|b| b.said());
    // Text goes to standard error when the events have standard output.
    running.outputs.voice = voice::VoiceThread::start(cfg, events_to_stdout, said)?;
    let opened = game::open(&setup, board.shows(), &mut running.outputs).await?;
    let recovered = opened.recovered.clone();
    let assume = opened.occupancy();
    let warp = board.warp(opened.last_t(), opts.longest_quiet);
    let time = GameTime { warp, ..GameTime::new(opened.last_t(), speed) };
    let chess960 = setup.header.variant == Variant::Chess960;
    let outputs = std::mem::take(&mut running.outputs);
    let task = running.game.insert(GameTask::new(setup, opened, outputs, time.clone()));
    if let Some(path) = &cfg.board.dgt_emulate {
        task.emulate_dgt(dgt::DgtEmulation::start(path, task.session(), cfg.clock.white)?);
    }
    let (tx, inputs) = mpsc::channel(256);
    let stop = running.stop.clone();
    running.board = Some(board::start(board, cfg, assume, recovered.as_deref(), time, tx.clone(), stop)?);
    if let Some(clock) = chess_clock::ChessClock::start(cfg, tx)? {
        task.link_clock(clock);
    }
    if let Some(path) = &cfg.engine.path {
        task.seat(Opponent::Engine(engine::EngineHost::start(&cfg.engine, path, chess960).await?));
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
