//! `tactus run`: the daemon. One task owns the game (the core session and
//! its journal); the board, the voice and the outputs talk to it through
//! channels. Every input is journaled before the core sees it, and synced
//! before what it completes is announced.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

mod broadcast;
mod clockdev;
mod sources;
mod speech;

pub use broadcast::web_dir;
pub use sources::matrix;

use anyhow::Context;
use shakmaty::{Color, Position};
use tactus_core::{Event, EventKind, Policy, Session, Supervision};
use tactus_trace::{Entry, Header, Input, Ms, Record, Variant};
use tokio::sync::mpsc;

use crate::config::{self, Config};
use crate::journal::Journal;
use crate::notify;

#[derive(clap::Args, Default)]
pub struct Args {
    /// The configuration file (default /etc/tactus/tactus.toml, if present).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The board: sim, gpio-matrix, mcp23017.
    #[arg(long)]
    pub board: Option<String>,
    /// sim: play this trace (without it, type lifts and places: `e2-`, `e4+`, `w`, `b`).
    #[arg(long)]
    pub sim_trace: Option<PathBuf>,
    /// sim: how much faster than real time the trace plays.
    #[arg(long)]
    pub sim_speed: Option<f64>,
    /// Where games are journaled (default /var/lib/tactus).
    #[arg(long)]
    pub state_dir: Option<PathBuf>,
    /// Where speech goes: sound, text, wav:DIR, text+wav:DIR, none.
    #[arg(long)]
    pub voice: Option<String>,
    /// Language and style of speech, e.g. de:annex-d.
    #[arg(long)]
    pub say: Option<String>,
    /// Write the events as JSON Lines here; `-` is standard output.
    #[arg(long)]
    pub events: Option<PathBuf>,
    /// The chess clock: none, open (the open line protocol), dgt3000.
    #[arg(long)]
    pub clock: Option<String>,
    /// The clock's serial device (default /dev/tactus-clock).
    #[arg(long)]
    pub clock_path: Option<PathBuf>,
    /// Serve the live page, /games.pgn and /events (default address 127.0.0.1:8080).
    #[arg(long, num_args = 0..=1, default_missing_value = "127.0.0.1:8080")]
    pub http: Option<String>,
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
    pub mqtt: Option<String>,
    /// The hall's name on the broker.
    #[arg(long)]
    pub hall: Option<String>,
    /// This board's name in the hall.
    #[arg(long)]
    pub board_id: Option<String>,
}

impl Args {
    /// The configuration: the file, then the flags on top.
    fn config(&self) -> anyhow::Result<Config> {
        let default = PathBuf::from("/etc/tactus/tactus.toml");
        let mut cfg = match &self.config {
            Some(path) => config::load(path)?,
            None if default.exists() => config::load(&default)?,
            None => Config::default(),
        };
        if let Some(b) = &self.board {
            cfg.board.kind = b.clone();
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
        if let Some(s) = &self.say {
            cfg.voice.say = s.clone();
        }
        if let Some(c) = &self.clock {
            cfg.clock.device = c.clone();
        }
        if let Some(p) = &self.clock_path {
            cfg.clock.path = p.clone();
        }
        if let Some(h) = &self.http {
            cfg.http.listen = Some(h.clone());
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
        cfg.validate()?;
        Ok(cfg)
    }
}

/// Game time: milliseconds since the start of the game, running `speed`
/// times faster than the wall clock for a simulated board.
#[derive(Clone, Copy)]
struct GameTime {
    pub start: Instant,
    pub base: Ms,
    pub speed: f64,
}

impl GameTime {
    fn t(&self, at: Instant) -> Ms {
        self.base + (at.saturating_duration_since(self.start).as_secs_f64() * 1000.0 * self.speed) as Ms
    }

    fn instant(&self, t: Ms) -> Instant {
        self.start + Duration::from_secs_f64(t.saturating_sub(self.base) as f64 / 1000.0 / self.speed)
    }
}

/// What reaches the game task.
enum Incoming {
    /// Sensed at a known instant (a clock lever, timed by the device).
    At(Instant, Record),
    /// The clock's pause button: stops running clocks, restarts stopped ones.
    PauseButton(Instant),
    /// From a trace, at its own game time.
    Exact(Entry),
}

/// The game's tags: from the config, or the trace a simulated board plays.
fn header_of(cfg: &Config) -> anyhow::Result<Header> {
    if cfg.board.kind == "sim"
        && let Some(path) = &cfg.board.sim_trace
    {
        let file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let (header, _) = tactus_trace::TraceReader::new(std::io::BufReader::new(file))
            .with_context(|| path.display().to_string())?;
        return Ok(header);
    }
    Ok(Header {
        variant: if cfg.game.variant == "chess960" { Variant::Chess960 } else { Variant::Standard },
        start_fen: cfg.game.start_fen.clone(),
        time_control: cfg.game.time_control.clone().filter(|tc| tc != "-"),
        white: cfg.game.white.clone(),
        black: cfg.game.black.clone(),
        event: cfg.game.event.clone(),
        site: cfg.game.site.clone(),
        round: cfg.game.round.clone(),
        date: Some(pgn_date(unix_seconds())),
        ..Header::default()
    })
}

/// `YYYY.MM.DD` of a Unix time (UTC), for the PGN `Date` tag.
fn pgn_date(unix: u64) -> String {
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = (unix / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

fn policy_of(cfg: &Config) -> Policy {
    Policy {
        debounce_ms: cfg.game.debounce_ms,
        settle_ms: cfg.game.settle_ms,
        supervision: if cfg.game.supervision == "unsupervised" {
            Supervision::Unsupervised
        } else {
            Supervision::Arbiter
        },
        // Given while a player thinks, never muted for low time.
        time_warnings: if cfg.voice.sink == "none" {
            Vec::new()
        } else {
            cfg.voice.time_warnings.iter().map(|s| s * 1000).collect()
        },
        ..Policy::default()
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let cfg = args.config()?;
    run_with(cfg, Options { events: args.events, terminal_clock: false })
}

/// What a caller adds to the configuration.
#[derive(Default)]
pub struct Options {
    /// Where the events go as JSON Lines (`-`: standard output).
    pub events: Option<PathBuf>,
    /// Show both clocks on the terminal, updated every second.
    pub terminal_clock: bool,
}

pub fn run_with(cfg: Config, opts: Options) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(daemon(cfg, opts))
}

/// `White 1:29:56 · Black 1:30:00 · move 12, Black to move`
fn clock_line(session: &Session, t: Ms) -> Option<String> {
    let clock = session.clock()?;
    let show = |c: Color| tactus_core::pgn::clock_text(clock.remaining(c, t));
    let game = session.game();
    let mover = if game.turn() == Color::White { "White" } else { "Black" };
    let state = if clock.running().is_none() { "clocks stopped".to_string() } else { format!("{mover} to move") };
    Some(format!(
        "White {} · Black {} · move {}, {state}",
        show(Color::White),
        show(Color::Black),
        game.position().fullmoves()
    ))
}

/// A game being played: the session and its journal.
struct Game {
    session: Session,
    journal: Journal,
}

impl Game {
    /// Recovers the unfinished game, or starts a new one.
    /// On recovery, also the entries the journal already holds.
    fn open(cfg: &Config, header: &Header, out: &mut Outputs) -> anyhow::Result<(Game, Option<Vec<Entry>>)> {
        let policy = policy_of(cfg);
        if let Some(r) = Journal::recover(&cfg.state.dir)? {
            let mut session = Session::new(&r.header, policy.clone().with_recorded(&r.header))?;
            let mut past: Vec<Event> = session.drain().collect();
            for entry in &r.entries {
                session.handle(*entry);
                past.extend(session.drain());
            }
            out.restore(&past);
            if !session.finished() {
                if r.cut > 0 {
                    eprintln!("tactus: {}: cut a torn last line ({} bytes)", r.journal.path().display(), r.cut);
                }
                eprintln!("tactus: recovered the game in {}", r.journal.path().display());
                let mut game = Game { session, journal: r.journal };
                let t = game.journal.last_t();
                game.feed(Entry { t, record: Record::Input(Input::Pause) }, out)?;
                return Ok((game, Some(r.entries)));
            }
            r.journal.finish()?;
        }
        let mut session = Session::new(header, policy)?;
        let name = format!("{}-{}", unix_seconds(), std::process::id());
        let journal = Journal::create(&cfg.state.dir, header, &name)?;
        let events: Vec<Event> = session.drain().collect();
        out.publish(&events);
        Ok((Game { session, journal }, None))
    }

    /// Journal first, then the core, then the world.
    fn feed(&mut self, entry: Entry, out: &mut Outputs) -> anyhow::Result<()> {
        self.journal.append(&entry).context("journal")?;
        self.session.handle(entry);
        let events: Vec<Event> = self.session.drain().collect();
        out.publish(&events);
        Ok(())
    }

    fn advance(&mut self, t: Ms, out: &mut Outputs) -> anyhow::Result<()> {
        self.session.advance(t);
        let events: Vec<Event> = self.session.drain().collect();
        if events.iter().any(|e| matches!(e.kind, EventKind::GameOver { .. })) {
            // A game a timer ended (a flag fall) ends in the journal too, so
            // that replaying it, or recovering it, ends it the same way.
            self.journal.append(&Entry { t, record: Record::End })?;
        }
        out.publish(&events);
        Ok(())
    }
}

fn unix_seconds() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Where events go: JSON Lines, the voice.
struct Outputs {
    events: Option<Box<dyn Write + Send>>,
    voice: Option<speech::Voice>,
    broadcast: Option<broadcast::Broadcast>,
}

impl Outputs {
    /// A recovered game's past: the page and the hall get it again; what
    /// was said and written before the power went is not repeated.
    fn restore(&mut self, events: &[Event]) {
        if let Some(b) = &self.broadcast {
            events.iter().for_each(|e| b.event(e));
        }
    }

    fn publish(&mut self, events: &[Event]) {
        for event in events {
            if let Some(b) = &self.broadcast {
                b.event(event);
            }
            if let Some(out) = &mut self.events {
                let mut line = serde_json::to_vec(event).expect("events serialise");
                line.push(b'\n');
                // A reader that went away must not stop the game.
                if out.write_all(&line).and_then(|_| out.flush()).is_err() {
                    self.events = None;
                }
            }
            if let Some(voice) = &self.voice
                && voice.tx.send(event.clone()).is_err()
            {
                self.voice = None;
            }
        }
    }
}

/// Game time for an input: never before what the game has already seen, so
/// the journal replays exactly as it was played.
fn stamp(msg: Incoming, session: &Session, clock: &GameTime, last_t: Ms) -> Entry {
    match msg {
        Incoming::PauseButton(at) => {
            let running = session.clock().is_some_and(|c| c.running().is_some());
            let input = if running { Input::Pause } else { Input::Resume };
            Entry { t: clock.t(at).max(last_t), record: Record::Input(input) }
        }
        Incoming::At(at, record) => Entry { t: clock.t(at).max(last_t), record },
        Incoming::Exact(entry) => Entry { t: entry.t.max(last_t), ..entry },
    }
}

async fn daemon(cfg: Config, opts: Options) -> anyhow::Result<ExitCode> {
    let events = opts.events;
    std::fs::create_dir_all(&cfg.state.dir).with_context(|| format!("cannot create {}", cfg.state.dir.display()))?;
    let events_to_stdout = events.as_deref() == Some(std::path::Path::new("-"));
    let events_out: Option<Box<dyn Write + Send>> = match &events {
        None => None,
        Some(p) if events_to_stdout => {
            let _ = p;
            Some(Box::new(std::io::stdout()))
        }
        // Appended to: after a restart the log of a recovered game goes on.
        Some(p) => Some(Box::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .with_context(|| format!("cannot open {}", p.display()))?,
        )),
    };
    let mut header = header_of(&cfg)?;
    // The journal records how this board rules, so that a replay rules the same.
    policy_of(&cfg).record(&mut header);
    let (control_tx, mut control_rx) = mpsc::channel::<tactus_net::Control>(64);
    let broadcast = broadcast::Broadcast::start(&cfg, &header, control_tx).await?;
    let said = broadcast.as_ref().map(|b| b.said());
    let mut out = Outputs { events: events_out, voice: speech::start(&cfg, events_to_stdout, said)?, broadcast };
    let (mut game, recovered) = Game::open(&cfg, &header, &mut out)?;
    let sim = cfg.board.kind == "sim";
    let speed = if sim && cfg.board.sim_trace.is_some() { cfg.board.sim_speed } else { 1.0 };
    let clock = GameTime { start: Instant::now(), base: game.journal.last_t(), speed };
    let (tx, mut rx) = mpsc::unbounded_channel();
    let occupied = game.session.game().occupancy();
    let board_stop = sources::start(&cfg, occupied, recovered.as_deref(), clock, tx.clone())?;
    if recovered.is_none() && !sim {
        // A real board's game starts when Black presses, starting White's
        // clock, as players start a clock — not when the daemon starts.
        game.feed(Entry { t: 0, record: Record::Input(Input::Pause) }, &mut out)?;
    }
    if recovered.is_some() && cfg.board.kind == "sim" && cfg.board.sim_trace.is_some() {
        // A replayed game has no hands to restart the clock: it goes on.
        let t = game.journal.last_t();
        game.feed(Entry { t, record: Record::Input(Input::Resume) }, &mut out)?;
    }
    let clock_link = clockdev::start(&cfg, tx.clone());
    clockdev::show(&clock_link, &game.session, game.journal.last_t());
    drop(tx);
    notify::ready();
    let watchdog = notify::watchdog_interval();
    let mut last_t = game.journal.last_t();
    let mut sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut next_ping = Instant::now();
    let mut next_status = Instant::now();
    let mut stopped = false;
    loop {
        if game.session.finished() {
            break;
        }
        let deadline = game.session.next_deadline();
        let wake = deadline.map(|d| clock.instant(d));
        let ping_at = watchdog.map(|_| next_ping);
        let status_at = opts.terminal_clock.then_some(next_status);
        let sleep_until = [wake, ping_at, status_at].into_iter().flatten().min();
        tokio::select! {
            msg = rx.recv() => {
                let Some(msg) = msg else { break };
                let entry = stamp(msg, &game.session, &clock, last_t);
                last_t = entry.t;
                game.feed(entry, &mut out)?;
                clockdev::show(&clock_link, &game.session, last_t);
            }
            _ = async { match sleep_until { Some(at) => tokio::time::sleep_until(at.into()).await, None => std::future::pending().await } } => {
                if let (Some(d), Some(w)) = (deadline, wake) && Instant::now() >= w {
                    // Timers never run ahead of an input already waiting.
                    while let Ok(msg) = rx.try_recv() {
                        let entry = stamp(msg, &game.session, &clock, last_t);
                        last_t = entry.t;
                        game.feed(entry, &mut out)?;
                    }
                    let d = d.max(last_t);
                    last_t = d;
                    game.advance(d, &mut out)?;
                    clockdev::show(&clock_link, &game.session, last_t);
                }
                if opts.terminal_clock && Instant::now() >= next_status {
                    if let Some(line) = clock_line(&game.session, clock.t(Instant::now()).max(last_t)) {
                        eprint!("\r\x1b[K{line}");
                    }
                    next_status = Instant::now() + Duration::from_secs(1);
                }
                if let Some(interval) = watchdog && Instant::now() >= next_ping {
                    notify::watchdog();
                    next_ping = Instant::now() + interval;
                }
            }
            Some(control) = control_rx.recv() => {
                if out.broadcast.as_ref().is_some_and(|b| b.board() == control.board) {
                    let entry = stamp(Incoming::At(Instant::now(), Record::Input(control.input)), &game.session, &clock, last_t);
                    last_t = entry.t;
                    game.feed(entry, &mut out)?;
                    clockdev::show(&clock_link, &game.session, last_t);
                }
            }
            _ = tokio::signal::ctrl_c() => { stopped = true; break }
            _ = sigterm.recv() => { stopped = true; break }
        }
    }
    board_stop.store(true, std::sync::atomic::Ordering::Relaxed);
    // With a page being served, a game that ended stays on it.
    // A simulated game that ended stays on the page; a real board's daemon
    // exits so that its service starts the next game.
    let serving = sim && cfg.http.listen.is_some() && game.session.finished() && !stopped;
    game.journal.sync()?;
    if game.session.finished() {
        game.journal.finish()?;
    }
    notify::stopping();
    // Let the voice finish what it has to say, and the broker what it has to send.
    if let Some(voice) = out.voice.take() {
        drop(voice.tx);
        let _ = voice.thread.join();
    }
    if let Some(b) = out.broadcast.take() {
        if serving {
            eprintln!("tactus: the game is over; still serving it — Ctrl-C stops");
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = sigterm.recv() => {}
            }
        }
        b.stop().await;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgn_dates() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(1_795_303_930), "2026.11.21");
        assert_eq!(pgn_date(951_782_400), "2000.02.29");
    }

    #[test]
    fn game_time_scales_with_speed() {
        let start = Instant::now();
        let g = GameTime { start, base: 1000, speed: 50.0 };
        assert_eq!(g.t(start + Duration::from_millis(20)), 2000);
        assert_eq!(g.instant(2000), start + Duration::from_millis(20));
    }
}
