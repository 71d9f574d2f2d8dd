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
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

mod board;
mod broadcast;
mod chess_clock;
mod dgt;
mod dgt_board;
mod engine;
mod event_log;
mod game;
mod journal;
mod lichess;
mod opponent;
mod shutdown;
mod source;
mod voice;

pub use board::{NoBoard, matrix};
pub use broadcast::web_dir;

use anyhow::Context;
use tactus_core::{MateSearch, Policy};
use tactus_trace::{Header, Variant};
use tokio::sync::{mpsc, watch};

use crate::config::{self, BoardKind, BrokerAddr, ClockKind, Config, EngineSide, Speed, TimeControlText};
use crate::notify;
use crate::sink::VoiceSink;
use event_log::EventLog;
use game::{Ended, GameTask, GameTime, Outputs, Setup};

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
    /// Play online on Lichess (the Board API) with the token in this file
    /// (mode 600; scope board:play).
    #[arg(long, value_name = "FILE")]
    pub lichess_token_file: Option<PathBuf>,
    /// Lichess's address (default https://lichess.org; a test server's http://127.0.0.1:PORT).
    #[arg(long, value_name = "URL")]
    pub lichess_url: Option<String>,
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
        if let Some(f) = &self.lichess_token_file {
            cfg.lichess.token_file = Some(f.clone());
        }
        if let Some(url) = &self.lichess_url {
            cfg.lichess.url = config::lichess_url_checked(url).map_err(|e| anyhow::anyhow!("--lichess-url {e}"))?;
        }
        cfg.check().map_err(|e| anyhow::anyhow!("{}: {e}", config::origin(file.as_deref())))?;
        Ok((cfg, file))
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (cfg, file) = args.config()?;
    let terminal = crate::terminal::can_show_status();
    run_with(cfg, Options { events: args.events, terminal, config_file: file })
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
}

pub fn run_with(cfg: Config, opts: Options) -> anyhow::Result<ExitCode> {
    let l = &cfg.lichess;
    if (l.challenge.is_some() || l.seek || !l.accept_from.is_empty()) && l.token_file.is_none() {
        anyhow::bail!(
            "[lichess] challenge, seek and accept_from need a token: [lichess] token_file or --lichess-token-file (scope board:play)"
        );
    }
    if l.token_file.is_some() && cfg.engine.path.is_some() {
        anyhow::bail!("the board plays one opponent: [engine] path or [lichess] token_file (online), not both");
    }
    // Standard output and error are peers too: the game never waits for them.
    crate::terminal::queue()?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let ran = runtime.block_on(daemon(cfg, opts));
    // A mate search still running is not waited for (it has its own thread).
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

/// The one stop signal: a flag for threads, a channel for tasks.
struct Stop {
    flag: Arc<AtomicBool>,
    tx: watch::Sender<bool>,
}

impl Stop {
    fn new() -> Self {
        Stop { flag: Arc::new(AtomicBool::new(false)), tx: watch::channel(false).0 }
    }

    fn trigger(&self) {
        self.flag.store(true, Ordering::Relaxed);
        let _ = self.tx.send(true);
    }
}

/// Triggers the stop signal on Ctrl-C or SIGTERM.
fn on_signals(stop: &Stop) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    let mut sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let (flag, tx) = (stop.flag.clone(), stop.tx.clone());
    let mut stopped = stop.tx.subscribe();
    Ok(tokio::spawn(async move {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = sigterm.recv() => {}
            _ = stopped.changed() => return,
        }
        flag.store(true, Ordering::Relaxed);
        let _ = tx.send(true);
    }))
}

async fn daemon(cfg: Config, opts: Options) -> anyhow::Result<ExitCode> {
    // The board first: a daemon without one writes nothing.
    let (board, source) = board::open(&cfg, opts.config_file.as_deref())?;
    let mut header = header_of(&cfg, board.header());
    let policy = policy_of(&cfg);
    // The journal records how this board rules, so that a replay rules the same.
    policy.record(&mut header);
    std::fs::create_dir_all(&cfg.state.dir).with_context(|| format!("cannot create {}", cfg.state.dir.display()))?;
    let events_to_stdout = opts.events.as_deref() == Some(std::path::Path::new("-"));
    let events = events_log(opts.events.as_ref(), cfg.voice.say.lang)?;
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

    let stop = Stop::new();
    let (control_tx, control_rx) = mpsc::channel::<tactus_net::Control>(64);
    let broadcast = broadcast::Broadcast::start(&cfg, &setup.header, control_tx).await?;
    let said = broadcast.as_ref().map(|b| b.said());
    // Text goes to standard error when the events have standard output.
    let voice = match voice::VoiceThread::start(&cfg, events_to_stdout, said) {
        Ok(voice) => voice,
        Err(e) => {
            Outputs { events: None, voice: None, broadcast, dgt: None }.stop(shutdown::deadline()).await;
            return Err(e);
        }
    };
    let mut out = Outputs { events, voice, broadcast, dgt: None };
    let opened = match game::open(&setup, board.shows(), &mut out).await {
        Ok(opened) => opened,
        Err(e) => {
            out.stop(shutdown::deadline()).await;
            return Err(e);
        }
    };
    if let Some(path) = &cfg.board.dgt_emulate {
        match dgt::DgtEmulation::start(path, opened.session(), cfg.clock.white) {
            Ok(d) => out.dgt = Some(d),
            Err(e) => {
                let time = GameTime { start: Instant::now(), base: opened.last_t(), speed };
                let _ = GameTask::new(setup, opened, out, None, time).stop(shutdown::deadline()).await;
                return Err(e);
            }
        }
    }
    let time = GameTime { start: Instant::now(), base: opened.last_t(), speed };
    let (tx, rx) = mpsc::channel(256);
    let recovered = opened.recovered.clone();
    let threads = match board::start(
        board,
        &cfg,
        opened.occupancy(),
        recovered.as_deref(),
        time,
        tx.clone(),
        stop.flag.clone(),
    ) {
        Ok(threads) => threads,
        Err(e) => {
            let _ = GameTask::new(setup, opened, out, None, time).stop(shutdown::deadline()).await;
            return Err(e);
        }
    };
    let clock = match chess_clock::ChessClock::start(&cfg, tx) {
        Ok(clock) => clock,
        Err(e) => {
            stop.trigger();
            drop(rx);
            let deadline = shutdown::deadline();
            threads.join(deadline).await;
            let _ = GameTask::new(setup, opened, out, None, time).stop(deadline).await;
            return Err(e);
        }
    };
    if let (Some(dgt), Some(clock)) = (&out.dgt, &clock) {
        dgt.attach_clock(clock.texts());
    }
    let chess960 = setup.header.variant == Variant::Chess960;
    let mut task = GameTask::new(setup, opened, out, clock, time);
    if let Some(path) = &cfg.engine.path {
        match engine::EngineHost::start(&cfg.engine, path, chess960).await {
            Ok(engine) => task.seat(opponent::Opponent::Engine(engine)),
            Err(e) => {
                stop.trigger();
                drop(rx);
                let deadline = shutdown::deadline();
                threads.join(deadline).await;
                let _ = task.stop(deadline).await;
                return Err(e);
            }
        }
    }
    if let Some(token_file) = &cfg.lichess.token_file {
        let resume = recovered.as_ref().and_then(|_| task.online_resume(&cfg.lichess.url));
        match lichess::LichessHost::start(&cfg, token_file, resume).await {
            Ok(online) => task.seat(opponent::Opponent::Lichess(online)),
            Err(e) => {
                stop.trigger();
                drop(rx);
                let deadline = shutdown::deadline();
                threads.join(deadline).await;
                let _ = task.stop(deadline).await;
                return Err(e);
            }
        }
    }
    let mut stopped = stop.tx.subscribe();
    // From here on Ctrl-C and SIGTERM stop the daemon the orderly way.
    let signals = match on_signals(&stop) {
        Ok(signals) => signals,
        Err(e) => {
            stop.trigger();
            drop(rx);
            let deadline = shutdown::deadline();
            threads.join(deadline).await;
            let _ = task.stop(deadline).await;
            return Err(e);
        }
    };
    notify::ready();
    let mut played = match task.begin(recovered.is_some()).await {
        Ok(()) => task.run(rx, control_rx, &mut stopped).await,
        Err(e) => Err(e),
    };
    // With the page served, a simulated game that ended stays on it.
    if matches!(played, Ok(Ended::GameOver)) && task.serving() {
        tracing::info!("the game is over; still serving it — Ctrl-C stops");
        task.serve_until(&mut stopped).await;
        played = Ok(Ended::Stopped);
    }
    // Shutdown always runs, within its budget: the board and its forwarder
    // end (the game task's queue is gone, so neither waits on it), then the
    // task's parts, all at once.
    let deadline = shutdown::deadline();
    stop.trigger();
    threads.join(deadline).await;
    let stopped = task.stop(deadline).await;
    let _ = signals.await;
    crate::log::summarise(true);
    played?;
    stopped?;
    Ok(ExitCode::SUCCESS)
}
