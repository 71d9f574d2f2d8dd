//! `tactus run`: the daemon. One task owns the game (the core session and
//! its journal); the board, the voice and the outputs talk to it through
//! channels. Every input is journaled before the core sees it, and synced
//! before what it completes is announced.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use shakmaty::{Color, Position, Square};
use tactus_core::{Event, EventKind, Policy, Session, Supervision};
use tactus_speech::{Announcer, Choice, SpeechPolicy, SpeechQueue, Touches, VoiceSettings, Words};
use tactus_trace::{Entry, Header, Input, Ms, Record, Variant};
use tokio::sync::mpsc;

use tactus_clockdev::{Button, ClockLink, ClockReport, DeviceKind, Display};

use crate::config::{self, Config};
use crate::journal::Journal;
use crate::notify;
use crate::voice::{VoiceSink, speaker};

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
    /// Where speech goes: sound, text, wav:DIR, none.
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
        cfg.validate()?;
        Ok(cfg)
    }
}

/// Game time: milliseconds since the start of the game, running `speed`
/// times faster than the wall clock for a simulated board.
#[derive(Clone, Copy)]
struct GameTime {
    start: Instant,
    base: Ms,
    speed: f64,
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
    /// Sensed now, by the board or a person.
    Now(Record),
    /// Sensed at a known instant (a clock lever, timed by the device).
    At(Instant, Record),
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
            let mut session = Session::new(&r.header, policy)?;
            session.drain().for_each(drop);
            for entry in &r.entries {
                session.handle(*entry);
            }
            // What was said before the power went is not said again.
            session.drain().for_each(drop);
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
        if events.iter().any(|e| matches!(e.kind, EventKind::Complete { .. } | EventKind::GameOver { .. })) {
            self.journal.sync()?;
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
    voice: Option<Voice>,
}

impl Outputs {
    fn publish(&mut self, events: &[Event]) {
        for event in events {
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

/// The voice: its own thread, because synthesis and playback block. A queue
/// in front drops stale readouts, never a move or a ruling.
fn start_voice(cfg: &Config, to_stderr: bool) -> anyhow::Result<Option<Voice>> {
    let sink: VoiceSink = cfg.voice.sink.parse().map_err(|e: String| anyhow::anyhow!(e))?;
    if sink == VoiceSink::None {
        return Ok(None);
    }
    let choice: Choice = cfg.voice.say.parse()?;
    let settings = VoiceSettings { speed: cfg.voice.rate, voice: cfg.voice.espeak_voice.clone(), ..Default::default() };
    let policy = SpeechPolicy {
        touches: match cfg.voice.touches.as_str() {
            "binding" => Touches::Binding,
            "all" => Touches::All,
            _ => Touches::Never,
        },
        listener: match cfg.voice.listener.as_deref() {
            Some("white") => Some(Color::White),
            Some("black") => Some(Color::Black),
            _ => None,
        },
        time_warnings: cfg.voice.time_warnings.iter().map(|s| *s as i64 * 1000).collect(),
        observations: false,
    };
    let (tx, rx) = std::sync::mpsc::channel::<Event>();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), String>>();
    // The sound device lives on the voice thread; opening it there and
    // reporting back makes a missing sound card an error at start.
    let thread = std::thread::Builder::new().name("voice".into()).spawn(move || {
        let text_out: Box<dyn Write + Send> =
            if to_stderr { Box::new(std::io::stderr()) } else { Box::new(std::io::stdout()) };
        let mut speaker = match speaker(&sink, choice, &settings, text_out) {
            Ok(s) => {
                let _ = ready_tx.send(Ok(()));
                s
            }
            Err(e) => {
                let _ = ready_tx.send(Err(format!("{e:#}")));
                return;
            }
        };
        let mut announcer = Announcer::new(Words::new(choice.lang, choice.style), policy);
        let mut queue = SpeechQueue::new();
        while let Ok(event) = rx.recv() {
            let mut take = |e: &Event, q: &mut SpeechQueue| {
                if let Some(u) = announcer.hear(e) {
                    q.push(u);
                }
            };
            take(&event, &mut queue);
            while let Some(u) = queue.pop() {
                while let Ok(e) = rx.try_recv() {
                    take(&e, &mut queue);
                }
                if let Err(e) = speaker.speak(&u) {
                    eprintln!("tactus: voice: {e}");
                }
            }
        }
    })?;
    match ready_rx.recv() {
        Ok(Ok(())) => Ok(Some(Voice { tx, thread })),
        Ok(Err(e)) => anyhow::bail!("voice {}: {e}", cfg.voice.sink),
        Err(_) => anyhow::bail!("voice {}: the voice thread stopped", cfg.voice.sink),
    }
}

/// The voice thread and the way to it.
struct Voice {
    tx: std::sync::mpsc::Sender<Event>,
    thread: std::thread::JoinHandle<()>,
}

/// The simulated board playing a trace: every line at its own game time.
/// After a recovery, what the journal already holds is not played again.
fn start_sim_trace(path: PathBuf, done: Vec<Entry>, clock: GameTime, tx: mpsc::UnboundedSender<Incoming>) {
    std::thread::spawn(move || {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("tactus: cannot read {}: {e}", path.display());
                return;
            }
        };
        let entries = match tactus_trace::read_str(&text) {
            Ok((_, entries)) => entries,
            Err(e) => {
                eprintln!("tactus: {}: {e}", path.display());
                return;
            }
        };
        let skip = already_played(&entries, &done);
        for entry in entries.into_iter().skip(skip) {
            if let Some(wait) = clock.instant(entry.t).checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            if tx.send(Incoming::Exact(entry)).is_err() {
                return;
            }
        }
    });
}

/// How many of a trace's entries the journal already holds, in order; the
/// pauses and resumes the daemon added at each recovery are passed over.
fn already_played(trace: &[Entry], journal: &[Entry]) -> usize {
    let mut played = 0;
    for j in journal {
        if trace.get(played).is_some_and(|e| e.record == j.record) {
            played += 1;
        } else if !matches!(j.record, Record::Input(Input::Pause | Input::Resume)) {
            break;
        }
    }
    played
}

/// Game time for an input: never before what the game has already seen, so
/// the journal replays exactly as it was played.
fn stamp(msg: Incoming, clock: &GameTime, last_t: Ms) -> Entry {
    match msg {
        Incoming::Now(record) => Entry { t: clock.t(Instant::now()).max(last_t), record },
        Incoming::At(at, record) => Entry { t: clock.t(at).max(last_t), record },
        Incoming::Exact(entry) => Entry { t: entry.t.max(last_t), ..entry },
    }
}

/// The chess clock on its serial line: levers and buttons come in as
/// inputs; the core's times go out. Plugging and unplugging is reported and
/// survived — the core keeps the time.
fn start_clock_device(cfg: &Config, tx: mpsc::UnboundedSender<Incoming>) -> Option<ClockLink> {
    let kind = match cfg.clock.device.as_str() {
        "open" => DeviceKind::Open,
        "dgt3000" => DeviceKind::Dgt3000 { white_on_left: true },
        _ => return None,
    };
    let (link, reports) = ClockLink::open(kind, &cfg.clock.path, cfg.clock.baud);
    let path = cfg.clock.path.clone();
    let mut paused = false;
    std::thread::spawn(move || {
        for report in reports {
            let record = match report {
                ClockReport::Lever { side, at } => Some((at, Record::Clock(side))),
                ClockReport::Button { button, at } => match button {
                    Button::TimeRequest => Some((at, Record::Input(Input::Request(tactus_trace::Request::Time)))),
                    Button::LastMove => Some((at, Record::Input(Input::Request(tactus_trace::Request::LastMove)))),
                    Button::Pause => {
                        paused = !paused;
                        Some((at, Record::Input(if paused { Input::Pause } else { Input::Resume })))
                    }
                    other => {
                        eprintln!("tactus: clock {}: button {other:?} has no use here", path.display());
                        None
                    }
                },
                ClockReport::Connected { device, version } => {
                    eprintln!("tactus: clock {}: connected: {device} {version}", path.display());
                    None
                }
                ClockReport::Disconnected { reason } => {
                    eprintln!(
                        "tactus: clock {}: disconnected ({reason}); the game goes on, timed here",
                        path.display()
                    );
                    None
                }
                ClockReport::Garbage { line } => {
                    eprintln!("tactus: clock {}: ignored a garbled line {line:?}", path.display());
                    None
                }
                ClockReport::Error { message } => {
                    eprintln!("tactus: clock {}: {message}", path.display());
                    None
                }
            };
            if let Some((at, record)) = record
                && tx.send(Incoming::At(at, record)).is_err()
            {
                return;
            }
        }
    });
    Some(link)
}

/// The clock shows what the core computes.
fn show_clock(link: &Option<ClockLink>, session: &Session, t: Ms) {
    if let (Some(link), Some(clock)) = (link, session.clock()) {
        link.show(Display::from_clock(clock, t));
    }
}

/// The simulated board typed at a terminal: `e2-` lifts, `e4+` places,
/// `e2e4` does both, `w`/`b` press the clock, `promote n`, `time`, `resume`.
fn start_typed(tx: mpsc::UnboundedSender<Incoming>) {
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { return };
            match typed(&line) {
                Ok(records) => {
                    for r in records {
                        if tx.send(Incoming::Now(r)).is_err() {
                            return;
                        }
                    }
                }
                Err(e) => eprintln!("tactus: {e}"),
            }
        }
        let _ = tx.send(Incoming::Now(Record::End));
    });
}

fn typed(line: &str) -> Result<Vec<Record>, String> {
    let sq = |s: &str| Square::from_ascii(s.as_bytes()).map_err(|_| format!("{s:?} is not a square"));
    let mut out = Vec::new();
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        [] => {}
        ["w" | "white"] => out.push(Record::Clock(Color::White)),
        ["b" | "black"] => out.push(Record::Clock(Color::Black)),
        ["time"] => out.push(Record::Input(Input::Request(tactus_trace::Request::Time))),
        ["resume"] => out.push(Record::Input(Input::Resume)),
        ["pause"] => out.push(Record::Input(Input::Pause)),
        ["promote", p] => {
            let role = shakmaty::Role::from_char(p.chars().next().unwrap_or('?'))
                .filter(|r| !matches!(r, shakmaty::Role::King | shakmaty::Role::Pawn))
                .ok_or_else(|| format!("promote to q, r, b or n, not {p:?}"))?;
            out.push(Record::Input(Input::Promote(role)));
        }
        words => {
            for w in words {
                match (w.len(), w.as_bytes().last()) {
                    (3, Some(b'-')) => out.push(Record::Edge { sq: sq(&w[..2])?, on: false }),
                    (3, Some(b'+')) => out.push(Record::Edge { sq: sq(&w[..2])?, on: true }),
                    (4, _) => {
                        out.push(Record::Edge { sq: sq(&w[..2])?, on: false });
                        out.push(Record::Edge { sq: sq(&w[2..])?, on: true });
                    }
                    _ => return Err(format!("{w:?}: type e2- (lift), e4+ (place), e2e4, w or b (clock)")),
                }
            }
        }
    }
    Ok(out)
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
        Some(p) => Some(Box::new(std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?)),
    };
    let mut out = Outputs { events: events_out, voice: start_voice(&cfg, events_to_stdout)? };
    let header = header_of(&cfg)?;
    let (mut game, recovered) = Game::open(&cfg, &header, &mut out)?;
    let sim = cfg.board.kind == "sim";
    let speed = if sim && cfg.board.sim_trace.is_some() { cfg.board.sim_speed } else { 1.0 };
    let clock = GameTime { start: Instant::now(), base: game.journal.last_t(), speed };
    let (tx, mut rx) = mpsc::unbounded_channel();
    match (&cfg.board.kind[..], &cfg.board.sim_trace) {
        ("sim", Some(trace)) => {
            let was_recovered = recovered.is_some();
            start_sim_trace(trace.clone(), recovered.unwrap_or_default(), clock, tx.clone());
            if was_recovered {
                // A replayed game has no hands to restart the clock: it goes on.
                let t = game.journal.last_t();
                game.feed(Entry { t, record: Record::Input(Input::Resume) }, &mut out)?;
            }
        }
        ("sim", None) => start_typed(tx.clone()),
        (other, _) => anyhow::bail!(
            "board {other:?} is not available in this build yet: use --board sim (see hardware/ for the wiring)"
        ),
    }
    let clock_link = start_clock_device(&cfg, tx.clone());
    show_clock(&clock_link, &game.session, game.journal.last_t());
    drop(tx);
    notify::ready();
    let watchdog = notify::watchdog_interval();
    let mut last_t = game.journal.last_t();
    let mut sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut next_ping = Instant::now();
    let mut next_status = Instant::now();
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
                let entry = stamp(msg, &clock, last_t);
                last_t = entry.t;
                game.feed(entry, &mut out)?;
                show_clock(&clock_link, &game.session, last_t);
            }
            _ = async { match sleep_until { Some(at) => tokio::time::sleep_until(at.into()).await, None => std::future::pending().await } } => {
                if let (Some(d), Some(w)) = (deadline, wake) && Instant::now() >= w {
                    // Timers never run ahead of an input already waiting.
                    while let Ok(msg) = rx.try_recv() {
                        let entry = stamp(msg, &clock, last_t);
                        last_t = entry.t;
                        game.feed(entry, &mut out)?;
                    }
                    let d = d.max(last_t);
                    last_t = d;
                    game.advance(d, &mut out)?;
                    show_clock(&clock_link, &game.session, last_t);
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
            _ = tokio::signal::ctrl_c() => break,
            _ = sigterm.recv() => break,
        }
    }
    game.journal.sync()?;
    if game.session.finished() {
        game.journal.finish()?;
    }
    notify::stopping();
    // Let the voice finish what it has to say.
    if let Some(voice) = out.voice.take() {
        drop(voice.tx);
        let _ = voice.thread.join();
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_moves() {
        assert_eq!(
            typed("e2e4").unwrap(),
            vec![Record::Edge { sq: Square::E2, on: false }, Record::Edge { sq: Square::E4, on: true }]
        );
        assert_eq!(typed("w").unwrap(), vec![Record::Clock(Color::White)]);
        assert!(typed("e9-").unwrap_err().contains("not a square"));
        assert!(typed("promote k").is_err());
    }

    #[test]
    fn pgn_dates() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(1_795_303_930), "2026.11.21");
        assert_eq!(pgn_date(951_782_400), "2000.02.29");
    }

    #[test]
    fn a_recovered_trace_goes_on_where_the_journal_stopped() {
        let e = |t, on| Entry { t, record: Record::Edge { sq: Square::E2, on } };
        let pause = |t| Entry { t, record: Record::Input(Input::Pause) };
        let resume = |t| Entry { t, record: Record::Input(Input::Resume) };
        let trace = [e(1, false), e(2, true), e(3, false), e(4, true)];
        assert_eq!(already_played(&trace, &[e(1, false), pause(1), resume(1), e(2, true)]), 2);
        assert_eq!(already_played(&trace, &[]), 0);
    }

    #[test]
    fn game_time_scales_with_speed() {
        let start = Instant::now();
        let g = GameTime { start, base: 1000, speed: 50.0 };
        assert_eq!(g.t(start + Duration::from_millis(20)), 2000);
        assert_eq!(g.instant(2000), start + Duration::from_millis(20));
    }
}
