//! A UCI engine that has shaken hands: its name, its options, and searches
//! that end in a legal move, a clear error, or a timeout.
//!
//! Hangs are found by asking `isready` every [`Timeouts::heartbeat`] while
//! the engine searches: the protocol requires `readyok` at once, even
//! mid-search. An engine silent for [`Timeouts::hang`] is hung.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Color, EnPassantMode, Move, Position};

use crate::line::Line;
use crate::process::{Ended, EngineProcess};
use crate::protocol::{Best, Command, Go, Info, Message, OptionKind, Score, UciOption, parse_line};

/// At most this many options are kept from the handshake.
pub const MAX_OPTIONS: usize = 512;
/// At most this many MultiPV lines are kept from a search.
pub const MAX_LINES: usize = 64;

/// How long to wait for an engine, and how often to check it is alive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// `uci` to `uciok`.
    pub handshake: Duration,
    /// `isready` to `readyok` when the engine is not searching (loading a
    /// network after `setoption` can take a while).
    pub ready: Duration,
    /// How often `isready` is sent during a search.
    pub heartbeat: Duration,
    /// An unanswered `isready` older than this during a search: hung.
    pub hang: Duration,
    /// `stop` to `bestmove`.
    pub stop: Duration,
    /// After the search's own limit (movetime, the engine's clock), how long
    /// before `stop` is sent.
    pub overrun: Duration,
    /// A search with only depth or node limits is stopped after this.
    pub unbounded: Duration,
    /// Each of `quit` and SIGTERM gets this long before the next step.
    pub quit: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            handshake: Duration::from_secs(10),
            ready: Duration::from_secs(10),
            heartbeat: Duration::from_millis(250),
            hang: Duration::from_millis(1000),
            stop: Duration::from_millis(1000),
            overrun: Duration::from_millis(1000),
            unbounded: Duration::from_secs(300),
            quit: Duration::from_millis(1000),
        }
    }
}

/// Which engine to run and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineConfig {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Options set after the handshake (`Threads`, `Hash`, …), checked
    /// against what the engine offers.
    pub options: Vec<(String, String)>,
    pub timeouts: Timeouts,
}

impl EngineConfig {
    pub fn new(program: impl Into<PathBuf>) -> EngineConfig {
        EngineConfig { program: program.into(), args: Vec::new(), options: Vec::new(), timeouts: Timeouts::default() }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("cannot start engine {program}: {source}")]
    Spawn { program: PathBuf, source: std::io::Error },
    #[error("engine {program} exited{status}")]
    Exited { program: PathBuf, status: String },
    #[error("engine {program} did not answer {awaited} within {ms} ms")]
    Timeout { program: PathBuf, awaited: &'static str, ms: u128 },
    #[error("engine {program}: lost contact: {source}")]
    Io { program: PathBuf, source: std::io::Error },
    #[error("engine {program} was interrupted mid-command and must be restarted")]
    Broken { program: PathBuf },
    #[error("engine {program} has no option {name:?}")]
    UnknownOption { program: PathBuf, name: String },
    #[error("engine {program}: option {name:?}: {reason}")]
    BadOption { program: PathBuf, name: String, reason: String },
    #[error("engine {program} answered bestmove {answer}, not a legal move in {fen}")]
    IllegalMove { program: PathBuf, answer: String, fen: String },
    #[error("engine {program} sees no legal move in {fen}, which has legal moves")]
    NoMove { program: PathBuf, fen: String },
    #[error("engine {program} does not play Chess960 (it has no UCI_Chess960 option)")]
    NoChess960 { program: PathBuf },
}

impl EngineError {
    /// Whether a fresh process may do better: the engine died, hung, or
    /// said something that makes no sense in the position.
    pub fn calls_for_restart(&self) -> bool {
        matches!(
            self,
            EngineError::Exited { .. }
                | EngineError::Timeout { .. }
                | EngineError::Io { .. }
                | EngineError::Broken { .. }
                | EngineError::IllegalMove { .. }
                | EngineError::NoMove { .. }
        )
    }
}

/// The engine's name and author from the handshake.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EngineId {
    pub name: String,
    pub author: String,
}

/// One line of a (MultiPV) search: its last report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PvLine {
    /// 1 for the best line.
    pub multipv: u32,
    pub depth: u32,
    /// From the side to move's point of view.
    pub score: Score,
    pub pv: Vec<UciMove>,
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    /// The engine's choice, legal in the position; `None` only when the
    /// position has no legal move.
    pub best: Option<Move>,
    pub ponder: Option<UciMove>,
    /// The last report of each MultiPV line, best first.
    pub lines: Vec<PvLine>,
    /// The engine's own account of its search time (last `info time`).
    pub engine_ms: Option<u64>,
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    /// From `go` sent to `bestmove` read, measured here.
    pub elapsed: Duration,
}

impl Search {
    /// The evaluation of the best line, from the side to move's view.
    pub fn score(&self) -> Option<Score> {
        self.lines.first().map(|l| l.score)
    }
}

/// A search before and after its time ran out.
#[derive(Debug, Clone, Copy)]
enum Phase {
    Running { stop_at: Instant },
    Stopping { give_up: Instant },
}

/// Where the conversation with the engine stands between calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    /// A search was started and the caller went away before its
    /// `bestmove` (the future was dropped): stop it before anything else.
    Searching,
    /// A write may have been cut short: only a restart helps.
    Broken,
}

/// A running engine after its handshake.
#[derive(Debug)]
pub struct Engine {
    process: EngineProcess,
    id: EngineId,
    options: Vec<UciOption>,
    /// Values we set, so an unchanged option is not sent again.
    set: Vec<(String, String)>,
    /// Send times of `isready` not yet answered.
    pings: VecDeque<Instant>,
    state: State,
    timeouts: Timeouts,
}

impl Engine {
    /// Starts the engine, shakes hands (`uci` … `uciok`), sets the
    /// configured options and waits until it is ready.
    pub async fn start(config: &EngineConfig) -> Result<Engine, EngineError> {
        let process = EngineProcess::spawn(&config.program, &config.args)
            .map_err(|source| EngineError::Spawn { program: config.program.clone(), source })?;
        let mut engine = Engine {
            process,
            id: EngineId::default(),
            options: Vec::new(),
            set: Vec::new(),
            pings: VecDeque::new(),
            state: State::Idle,
            timeouts: config.timeouts,
        };
        engine.send(&Command::Uci).await?;
        let deadline = Instant::now() + config.timeouts.handshake;
        let program = config.program.display();
        let mut offered = 0_usize;
        loop {
            let option = match engine.next_message(deadline, "uciok").await? {
                Message::IdName(name) => {
                    engine.id.name = name;
                    continue;
                }
                Message::IdAuthor(author) => {
                    engine.id.author = author;
                    continue;
                }
                Message::UciOk => break,
                Message::Option(option) => option,
                Message::OptionFault { name, reason, kept: None } => {
                    tracing::warn!("engine {program}: option {name:?} refused: {reason}");
                    continue;
                }
                Message::OptionFault { name, reason, kept: Some(option) } => {
                    tracing::warn!("engine {program}: option {name:?}: {reason}");
                    option
                }
                _ => continue,
            };
            offered += 1;
            if engine.options.len() < MAX_OPTIONS {
                engine.options.push(option);
            }
        }
        if offered > MAX_OPTIONS {
            tracing::warn!("engine {program} offers {offered} options: the first {MAX_OPTIONS} are kept");
        }
        for (name, value) in &config.options {
            engine.set_option(name, value).await?;
        }
        engine.sync().await?;
        Ok(engine)
    }

    pub fn id(&self) -> &EngineId {
        &self.id
    }

    pub fn program(&self) -> &Path {
        self.process.program()
    }

    pub fn pid(&self) -> Option<u32> {
        self.process.pid()
    }

    /// The options the engine offered.
    pub fn options(&self) -> &[UciOption] {
        &self.options
    }

    /// An offered option, by name in any case (UCI names are not case
    /// sensitive).
    pub fn option(&self, name: &str) -> Option<&UciOption> {
        self.options.iter().find(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// Sets an option the engine offers, checked against its type and
    /// bounds. A value already set is not sent again.
    pub async fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        let program = self.program().to_owned();
        let option = self
            .option(name)
            .ok_or_else(|| EngineError::UnknownOption { program: program.clone(), name: name.to_owned() })?;
        let bad = |reason: String| EngineError::BadOption { program: program.clone(), name: name.to_owned(), reason };
        let value = match &option.kind {
            OptionKind::Check { .. } => match value {
                "true" | "false" => Some(value.to_owned()),
                _ => return Err(bad(format!("{value:?} is not true or false"))),
            },
            OptionKind::Spin(spin) => match value.parse::<i64>() {
                Ok(n) if spin.contains(n) => Some(n.to_string()),
                _ => return Err(bad(format!("{value:?} is not a whole number from {} to {}", spin.min(), spin.max()))),
            },
            OptionKind::Combo { choices, .. } => match choices.iter().find(|c| c.eq_ignore_ascii_case(value)) {
                Some(choice) => Some(choice.clone()),
                None => return Err(bad(format!("{value:?} is not one of {}", choices.join(", ")))),
            },
            OptionKind::Button => None,
            OptionKind::String { .. } => Some(value.to_owned()),
        };
        let name = option.name.clone();
        if let Some(v) = &value
            && self.set.iter().any(|(n, old)| *n == name && old == v)
        {
            return Ok(());
        }
        let command = Command::set_option(&name, value.as_deref()).map_err(|e| bad(e.to_string()))?;
        self.prepare().await?;
        self.send(&command).await?;
        if let Some(v) = value {
            self.set.retain(|(n, _)| *n != name);
            self.set.push((name, v));
        }
        Ok(())
    }

    /// `isready` … `readyok`: everything sent before has been taken in.
    pub async fn sync(&mut self) -> Result<(), EngineError> {
        self.prepare().await?;
        self.ping().await?;
        let deadline = Instant::now() + self.timeouts.ready;
        while !self.pings.is_empty() {
            self.next_message(deadline, "readyok").await?;
        }
        Ok(())
    }

    /// `ucinewgame`, then waits until the engine is ready.
    pub async fn new_game(&mut self) -> Result<(), EngineError> {
        self.prepare().await?;
        self.send(&Command::UciNewGame).await?;
        self.sync().await
    }

    /// Searches the position at the end of `line` within `go`'s limits and
    /// returns the engine's move, checked to be legal.
    ///
    /// Dropping the future mid-search is allowed: the next call stops the
    /// abandoned search first.
    pub async fn search(&mut self, line: &Line, go: Go) -> Result<Search, EngineError> {
        self.prepare().await?;
        let start = Instant::now();
        self.send(&Command::position(line)).await?;
        self.send(&Command::Go(go)).await?;
        self.state = State::Searching;
        let limit = search_limit(&go, line.position().turn()).unwrap_or(self.timeouts.unbounded);
        // A limit too far to add up (a clock of centuries) is no limit.
        let stop_at = start.checked_add(limit.saturating_add(self.timeouts.overrun));
        let mut phase = Phase::Running { stop_at: stop_at.unwrap_or(start + self.timeouts.unbounded) };
        let mut report = Report::default();
        let mut heartbeat = tokio::time::interval(self.timeouts.heartbeat);
        heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let wake = match phase {
                Phase::Running { stop_at } => stop_at,
                Phase::Stopping { give_up } => give_up,
            };
            tokio::select! {
                read = self.process.next_line() => {
                    let text = self.read_result(read)?;
                    match parse_line(&text) {
                        Message::ReadyOk => { self.pings.pop_front(); }
                        Message::Info(info) => report.add(*info),
                        Message::BestMove { best, ponder } => {
                            self.state = State::Idle;
                            return self.conclude(line, best, ponder, report, start.elapsed());
                        }
                        _ => {}
                    }
                }
                _ = heartbeat.tick() => {
                    if let Some(sent) = self.pings.front() {
                        if sent.elapsed() > self.timeouts.hang {
                            return Err(self.timeout("readyok during the search", self.timeouts.hang));
                        }
                    } else {
                        self.ping().await?;
                    }
                }
                _ = tokio::time::sleep_until(wake.into()) => match phase {
                    Phase::Stopping { .. } => return Err(self.timeout("bestmove after stop", self.timeouts.stop)),
                    Phase::Running { .. } => {
                        self.send(&Command::Stop).await?;
                        phase = Phase::Stopping { give_up: Instant::now() + self.timeouts.stop };
                    }
                },
            }
        }
    }

    /// Stops a search abandoned by a dropped [`Engine::search`] future and
    /// reads its `bestmove`. Nothing to do when idle.
    pub async fn stop(&mut self) -> Result<(), EngineError> {
        match self.state {
            State::Idle => Ok(()),
            State::Broken => Err(EngineError::Broken { program: self.program().to_owned() }),
            State::Searching => {
                self.send(&Command::Stop).await?;
                let deadline = Instant::now() + self.timeouts.stop;
                loop {
                    if let Message::BestMove { .. } = self.next_message(deadline, "bestmove after stop").await? {
                        self.state = State::Idle;
                        return Ok(());
                    }
                }
            }
        }
    }

    /// Ends the engine: `quit`, then SIGTERM, then SIGKILL.
    pub async fn quit(self) -> std::io::Result<Ended> {
        self.process.shutdown(self.timeouts.quit).await
    }

    /// Ends the engine at once (SIGKILL), for one that misbehaved.
    pub async fn kill(self) {
        let _ = self.process.kill().await;
    }

    async fn prepare(&mut self) -> Result<(), EngineError> {
        self.stop().await
    }

    async fn ping(&mut self) -> Result<(), EngineError> {
        self.send(&Command::IsReady).await?;
        self.pings.push_back(Instant::now());
        Ok(())
    }

    async fn send(&mut self, command: &Command) -> Result<(), EngineError> {
        if self.state == State::Broken {
            return Err(EngineError::Broken { program: self.program().to_owned() });
        }
        let previous = self.state;
        // Marked broken while the write is under way: a dropped future
        // leaves it so.
        self.state = State::Broken;
        // An engine that stopped reading fills the pipe and blocks the write.
        match tokio::time::timeout(self.timeouts.hang, self.process.send(command)).await {
            Ok(Ok(())) => {
                self.state = previous;
                Ok(())
            }
            Ok(Err(e)) => Err(self.lost(e)),
            Err(_) => Err(self.timeout("a write to its input", self.timeouts.hang)),
        }
    }

    /// The next message before `deadline`; `readyok` is counted against
    /// the pings on the way.
    async fn next_message(&mut self, deadline: Instant, awaited: &'static str) -> Result<Message, EngineError> {
        let started = Instant::now();
        match tokio::time::timeout_at(deadline.into(), self.process.next_line()).await {
            Err(_) => Err(self.timeout(awaited, deadline.saturating_duration_since(started))),
            Ok(line) => {
                let message = parse_line(&self.read_result(line)?);
                if message == Message::ReadyOk {
                    self.pings.pop_front();
                }
                Ok(message)
            }
        }
    }

    fn read_result(&mut self, line: std::io::Result<Option<String>>) -> Result<String, EngineError> {
        match line {
            Ok(Some(text)) => Ok(text),
            Ok(None) => {
                self.state = State::Broken;
                let status = self.process.exit_status().map(|s| format!(" ({s})")).unwrap_or_default();
                Err(EngineError::Exited { program: self.program().to_owned(), status })
            }
            Err(e) => Err(self.lost(e)),
        }
    }

    fn lost(&mut self, source: std::io::Error) -> EngineError {
        self.state = State::Broken;
        if self.process.exit_status().is_some() {
            let status = self.process.exit_status().map(|s| format!(" ({s})")).unwrap_or_default();
            return EngineError::Exited { program: self.program().to_owned(), status };
        }
        EngineError::Io { program: self.program().to_owned(), source }
    }

    fn timeout(&mut self, awaited: &'static str, waited: Duration) -> EngineError {
        self.state = State::Broken;
        EngineError::Timeout { program: self.program().to_owned(), awaited, ms: waited.as_millis() }
    }

    fn conclude(
        &self,
        line: &Line,
        best: Best,
        ponder: Option<UciMove>,
        report: Report,
        elapsed: Duration,
    ) -> Result<Search, EngineError> {
        let pos = line.position();
        let fen = || Fen::from_position(pos, EnPassantMode::Legal).to_string();
        let program = || self.program().to_owned();
        let best = match best {
            Best::Move(uci) => Some(uci.to_move(pos).map_err(|_| EngineError::IllegalMove {
                program: program(),
                answer: uci.to_string(),
                fen: fen(),
            })?),
            Best::Garbled(text) => {
                return Err(EngineError::IllegalMove { program: program(), answer: text, fen: fen() });
            }
            Best::NoMove if pos.legal_moves().is_empty() => None,
            Best::NoMove => return Err(EngineError::NoMove { program: program(), fen: fen() }),
        };
        Ok(Search {
            best,
            ponder,
            lines: report.lines,
            engine_ms: report.time_ms,
            nodes: report.nodes,
            depth: report.depth,
            elapsed,
        })
    }
}

/// How long the search may take by its own limits: its movetime, or the
/// time on the mover's clock.
fn search_limit(go: &Go, turn: Color) -> Option<Duration> {
    let clock = go.clock.map(|c| turn.fold_wb(c.white_ms, c.black_ms));
    match (go.movetime_ms, clock) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
    .map(Duration::from_millis)
}

/// What the `info` lines of one search added up to.
#[derive(Debug, Default)]
struct Report {
    lines: Vec<PvLine>,
    time_ms: Option<u64>,
    nodes: Option<u64>,
    depth: Option<u32>,
}

impl Report {
    fn add(&mut self, info: Info) {
        self.time_ms = info.time_ms.or(self.time_ms);
        self.nodes = info.nodes.or(self.nodes);
        self.depth = info.depth.or(self.depth);
        let (Some(score), Some(depth)) = (info.score, info.depth) else { return };
        if info.pv.is_empty() {
            return;
        }
        let multipv = info.multipv.unwrap_or(1);
        let line = PvLine { multipv, depth, score, pv: info.pv };
        let full = self.lines.len() >= MAX_LINES;
        match self.lines.iter_mut().find(|l| l.multipv == multipv) {
            Some(old) => *old = line,
            None if !full => self.lines.push(line),
            None => {}
        }
        self.lines.sort_by_key(|l| l.multipv);
    }
}
