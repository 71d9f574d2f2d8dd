//! The engine opponent in the daemon. A task of its own owns the UCI engine
//! (`tactus_engine::Opponent`: levels, book, quick restarts of a crashed or
//! hung engine); the game task asks when the engine is on move and journals
//! the answer as an `opponent` input, so a game against the engine replays
//! exactly.
//!
//! The task takes requests in as they come, even while the engine searches:
//! what the game wants is kept as the latest of each kind (an [`Inbox`]),
//! so its queue never fills, and work that a newer request makes stale (a
//! new game, a take-back, a newer position) is dropped mid-search. A move
//! or hint the engine could not give, even after its quick restarts, is
//! asked again on the task's own timer, with back-off, until it comes: no
//! game waits for another input to wake its engine. The player hears once
//! that the engine has stopped, and once that it answers again
//! (`device_lost`, `device_back` for [`Device::Engine`]). A panic while
//! serving a request costs the opponent, not the task: a fresh one is
//! started on the same timer.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;
use std::time::{Duration, Instant};

use anyhow::Context;
use shakmaty::uci::UciMove;
use shakmaty::{Color, Position};
use tactus_core::{Device, EventKind, Session};
use tactus_engine::conduct::Stance;
use tactus_engine::protocol::{ClockTimes, Score as EngineScore};
use tactus_engine::{EngineConfig, Level, Line, Opponent, OpponentConfig, OpponentError, Source};
use tactus_retry::Backoff;
use tactus_stats::Sorted;
use tactus_trace::{Eval, Ms, PV_MAX, Score};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::EnginePlan;

/// After a request the engine could not answer it is asked again after
/// this, doubled at each failure up to [`RETRY_MAX`]: an engine that cannot
/// be started is not started in a tight loop, and one that comes back is
/// asked again within seconds. The steps are exact: the engine is this
/// board's alone, so no crowd comes back with it.
const RETRY_FIRST: Duration = Duration::from_secs(1);
const RETRY_MAX: Duration = Duration::from_secs(10);

/// Requests on their way to the engine's task, which reads them at once.
const REQUESTS: usize = 8;
/// Replies on their way to the game task.
const REPLIES: usize = 8;

/// How long the engine thinks, at full strength, about a hint.
const HINT_THINK: Duration = Duration::from_secs(1);

enum Request {
    NewGame {
        chess960: bool,
    },
    Level(Level),
    /// Moves were taken back: the engine's judgement of the game so far
    /// (for resigning and draws) starts again.
    TakeBack,
    Choose(Wanted),
    Hint(Wanted),
}

/// A position the engine is asked about.
#[derive(Clone)]
struct Wanted {
    asked: Asked,
    line: Box<Line>,
    /// The game's clocks when asked; none without a clock, and for hints.
    clock: Option<ClockTimes>,
    /// When the game asked: retries are charged to the engine's clock.
    at: Instant,
}

/// What the engine's task tells the game.
pub enum Reply {
    Answer(Answer),
    /// What the engine's task says about the engine (lost, back):
    /// published, not journaled.
    Notice(EventKind),
}

/// The engine's answer to one request.
pub struct Answer {
    /// What it answers: answers for an earlier game, or for a position
    /// since taken back, are dropped.
    pub asked: Asked,
    pub answered: Answered,
}

pub enum Answered {
    /// Its move.
    Move(Chosen),
    /// Its suggestion for the player.
    Hint(UciMove),
}

pub struct Chosen {
    pub uci: UciMove,
    /// Its score and line, when the move is the engine's own best.
    pub eval: Option<Eval>,
    pub san: String,
    pub stance: Stance,
    /// From the request to the choice: the engine's search, and its
    /// restarts and retries.
    pub search: Duration,
    pub restarts: u32,
}

pub struct EngineHost {
    side: Color,
    requests: mpsc::Sender<Request>,
    /// The engine task's replies; none once the task has ended (and the
    /// player has been told).
    replies: Option<mpsc::Receiver<Reply>>,
    /// What a move was asked for, and since when (the input that made the
    /// engine's turn).
    asked: Option<(Asked, Instant)>,
    /// The session's take-backs the engine has been told of.
    take_backs: u32,
    /// Whether the engine would accept a draw now, by its judgement after
    /// its latest move (kept by its task).
    accepts_draw: Arc<AtomicBool>,
    /// Per move (the latest [`KEPT`]): the engine's search, and the time
    /// from the input that made its turn to its move announced besides it.
    timings: std::collections::VecDeque<(Duration, Duration)>,
    /// The move chosen, until it is announced: timed then.
    choosing: Option<Choosing>,
    /// Ends the engine's task: a child of the daemon's stop signal.
    stop: CancellationToken,
    /// On the daemon's tracker.
    task: JoinHandle<()>,
}

/// The game, its take-backs and the ply a move was asked for: an answer
/// for a ply since taken back and played again is not for this position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asked {
    pub game: u32,
    pub take_backs: u32,
    pub ply: u32,
}

impl Asked {
    /// The position `session` is at, in the daemon's game number `game`.
    pub fn now(session: &Session, game: u32) -> Asked {
        Asked { game, take_backs: session.take_backs(), ply: session.game().ply() }
    }
}

/// A move chosen, on its way to being announced.
struct Choosing {
    since: Instant,
    search: Duration,
    restarts: u32,
    san: String,
}

/// How many moves' timings are kept for the summary.
const KEPT: usize = 10_000;

impl EngineHost {
    /// Starts the engine: a bad path, or a program that does not speak UCI,
    /// is reported now, naming it. Its task is one of `tasks`, and ends
    /// (quitting the engine) when `stop` is cancelled or the host stops.
    pub async fn start(
        plan: &EnginePlan,
        chess960: bool,
        tasks: &TaskTracker,
        stop: &CancellationToken,
    ) -> anyhow::Result<EngineHost> {
        let (path, level) = (&plan.path, plan.level);
        let mut config = OpponentConfig::new(EngineConfig::new(path), level);
        config.book = plan.book.clone();
        config.book_plies = plan.book_plies;
        config.syzygy = plan.syzygy.clone();
        config.think_ms = plan.think_ms;
        let mut opponent = Opponent::start(config.clone())
            .await
            .with_context(|| format!("the engine {} did not start", path.display()))?;
        opponent.new_game(chess960).await.with_context(|| format!("the engine {}", path.display()))?;
        tracing::info!(
            "the engine {} plays {} at level {}",
            opponent.engine_id().name,
            side_name(plan.side),
            level.get()
        );
        let accepts_draw = Arc::new(AtomicBool::new(false));
        let (requests, rx) = mpsc::channel(REQUESTS);
        let (tx, replies) = mpsc::channel(REPLIES);
        let host = Host {
            config,
            opponent: Some(opponent),
            chess960,
            inbox: Inbox::default(),
            health: Health::Up,
            replies: tx,
            accepts_draw: Arc::clone(&accepts_draw),
        };
        let stop = stop.child_token();
        let task = tasks.spawn(host.run(rx, stop.clone()));
        Ok(EngineHost {
            side: plan.side,
            requests,
            replies: Some(replies),
            asked: None,
            take_backs: 0,
            accepts_draw,
            timings: Default::default(),
            choosing: None,
            stop,
            task,
        })
    }

    /// Asks for the engine's move when it is on move and waits for one;
    /// `since` is when the input that made its turn came in. A move the
    /// engine could not give is asked again by its task, not here.
    pub fn ask(&mut self, session: &Session, game: u32, t: Ms, since: Instant) {
        if session.take_backs() != self.take_backs {
            self.take_backs = session.take_backs();
            self.asked = None;
            // Judged anew by the task; until then, no judgement to draw on.
            self.accepts_draw.store(false, Ordering::Relaxed);
            self.send(Request::TakeBack);
        }
        let asked = Asked::now(session, game);
        if !session.awaits_engine() || self.asked.is_some_and(|(a, _)| a == asked) {
            return;
        }
        let Some(line) = line_of(session) else { return };
        let wanted = Wanted { asked, line: Box::new(line), clock: clock_times(session, t), at: Instant::now() };
        if self.send(Request::Choose(wanted)) {
            self.asked = Some((asked, since));
        }
    }

    /// The player asked for a hint: the engine's suggestion at full
    /// strength, when the player is on move.
    pub fn ask_hint(&mut self, session: &Session, game: u32) {
        if session.finished() || session.game().turn() == self.side {
            return;
        }
        let Some(line) = line_of(session) else { return };
        let asked = Asked::now(session, game);
        self.send(Request::Hint(Wanted { asked, line: Box::new(line), clock: None, at: Instant::now() }));
    }

    /// The level was set at the board.
    pub fn set_level(&mut self, level: u8) {
        let Some(level) = Level::new(level) else { return };
        tracing::info!("the engine's level is now {}", level.get());
        self.send(Request::Level(level));
    }

    /// Whether the request went to the engine's task. Its queue is read at
    /// once, so it is full only if the task is stuck; then the game goes
    /// on and asks again at its next turn.
    fn send(&self, request: Request) -> bool {
        match self.requests.try_send(request) {
            Ok(()) => true,
            Err(e) => {
                tracing::error!("the engine is not taking requests: {e}");
                false
            }
        }
    }

    /// The engine task's next reply. If the task has ended, the player is
    /// told once; then nothing more comes.
    pub async fn next(&mut self) -> Reply {
        let Some(replies) = &mut self.replies else { return std::future::pending().await };
        if let Some(reply) = replies.recv().await {
            return reply;
        }
        self.replies = None;
        let detail = "the engine's task has ended: no engine plays from now on".to_owned();
        tracing::error!("{detail}");
        Reply::Notice(EventKind::DeviceLost { device: Device::Engine, detail })
    }

    /// The answer for the game and ply asked, with when the asking began;
    /// `None` for a stale one.
    pub fn take(&mut self, answer: &Answer) -> Option<Instant> {
        if !matches!(answer.answered, Answered::Move(_)) {
            return None;
        }
        let (asked, since) = self.asked?;
        if answer.asked != asked {
            return None;
        }
        self.asked = None;
        Some(since)
    }

    /// Its move was chosen: `since` is when the asking began.
    pub fn choosing(&mut self, since: Instant, search: Duration, restarts: u32, san: String) {
        self.choosing = Some(Choosing { since, search, restarts, san });
    }

    /// Its move has been announced: from the input that made its turn to
    /// now, less the engine's own search, is the time besides the search.
    pub fn announced(&mut self) {
        let Some(Choosing { since, search, restarts, san }) = self.choosing.take() else { return };
        let besides = since.elapsed().saturating_sub(search);
        tracing::debug!(
            "the engine plays {san} (search {:.1} ms, {restarts} restarts; {:.2} ms besides the search)",
            search.as_secs_f64() * 1000.0,
            besides.as_secs_f64() * 1000.0
        );
        if self.timings.len() == KEPT {
            self.timings.pop_front();
        }
        self.timings.push_back((search, besides));
    }

    /// A new game on this board.
    pub fn new_game(&mut self, chess960: bool) {
        self.asked = None;
        self.take_backs = 0;
        self.send(Request::NewGame { chess960 });
    }

    /// Whether the engine accepts a draw offered now (9.1.2): by its score
    /// over its last moves, never at the weakest levels.
    pub fn accepts_draw(&self) -> bool {
        self.accepts_draw.load(Ordering::Relaxed)
    }

    /// The side the engine plays.
    pub fn side(&self) -> Color {
        self.side
    }

    /// Quits the engine (`quit`, then SIGTERM, then SIGKILL), until
    /// `deadline`; one still there then is killed.
    pub async fn stop(self, deadline: Instant) {
        if !self.timings.is_empty() {
            let ms = |d: Option<Duration>| d.unwrap_or_default().as_secs_f64() * 1000.0;
            let search = Sorted::new(self.timings.iter().map(|&(s, _)| s));
            let besides = Sorted::new(self.timings.iter().map(|&(_, b)| b));
            tracing::info!(
                "the engine made {} moves: search p50 {:.1} ms; besides the search p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
                search.len(),
                ms(search.percentile(50)),
                ms(besides.percentile(50)),
                ms(besides.percentile(95)),
                ms(besides.max())
            );
        }
        self.stop.cancel();
        drop(self.replies);
        let mut task = self.task;
        if tokio::time::timeout_at(deadline.into(), &mut task).await.is_err() {
            // Dropping the engine kills its process.
            task.abort();
            let _ = task.await;
        }
    }
}

/// What the game wants of the engine, the latest of each kind.
#[derive(Default)]
struct Inbox {
    new_game: Option<bool>,
    take_back: bool,
    level: Option<Level>,
    /// The move the game waits for, until it is given.
    choose: Option<Wanted>,
    hint: Option<Wanted>,
}

/// What a request makes stale of the work under way.
#[derive(Clone, Copy)]
enum Stale {
    Nothing,
    /// A search: the position it is for has gone.
    Searches,
    /// A search or a new game: a newer game has begun.
    Games,
}

impl Inbox {
    fn take(&mut self, request: Request) -> Stale {
        match request {
            Request::NewGame { chess960 } => {
                *self = Inbox { new_game: Some(chess960), level: self.level, ..Inbox::default() };
                Stale::Games
            }
            Request::TakeBack => {
                self.take_back = true;
                self.choose = None;
                self.hint = None;
                Stale::Searches
            }
            Request::Choose(wanted) => {
                // The player has moved: a hint for them is for no position.
                self.choose = Some(wanted);
                self.hint = None;
                Stale::Searches
            }
            Request::Level(level) => {
                self.level = Some(level);
                Stale::Nothing
            }
            Request::Hint(wanted) => {
                self.hint = Some(wanted);
                Stale::Nothing
            }
        }
    }
}

/// Work for the engine.
enum Job {
    NewGame(bool),
    Choose(Wanted),
    Hint(Wanted),
    /// The engine is down and nothing is asked of it: start it again, so
    /// the player hears it is back and the next move does not wait.
    Revive,
}

impl Job {
    fn made_stale(&self, stale: Stale) -> bool {
        match stale {
            Stale::Nothing => false,
            Stale::Searches => matches!(self, Job::Choose(_) | Job::Hint(_)),
            Stale::Games => !matches!(self, Job::Revive),
        }
    }
}

/// Whether the engine answers.
enum Health {
    Up,
    /// Since a request failed: the failures so far, when to try again, and
    /// the waits after the next failures.
    Down {
        failures: u32,
        retry_at: Instant,
        backoff: Backoff,
    },
}

/// The engine's task.
struct Host {
    /// The opponent's configuration, with the level last set: a fresh
    /// opponent after a panic starts from it.
    config: OpponentConfig,
    /// None after a panic cost it, until it is started again.
    opponent: Option<Opponent>,
    chess960: bool,
    inbox: Inbox,
    health: Health,
    replies: mpsc::Sender<Reply>,
    accepts_draw: Arc<AtomicBool>,
}

impl Host {
    async fn run(mut self, mut requests: mpsc::Receiver<Request>, stop: CancellationToken) {
        'serving: loop {
            self.apply_quick();
            let Some(job) = self.next_job() else {
                // Nothing to do until a request comes, or the time to try again.
                let retry_at = match self.health {
                    Health::Down { retry_at, .. } => Some(retry_at),
                    Health::Up => None,
                };
                tokio::select! {
                    request = requests.recv() => match request {
                        Some(request) => {
                            self.inbox.take(request);
                        }
                        None => break 'serving,
                    },
                    () = sleep_until(retry_at) => {}
                    () = stop.cancelled() => break 'serving,
                }
                continue;
            };
            let done = {
                let mut work = Guarded::new(work(&job, &mut self.opponent, &self.config, self.chess960));
                loop {
                    tokio::select! {
                        done = &mut work => break Some(done),
                        request = requests.recv() => match request {
                            Some(request) => {
                                if job.made_stale(self.inbox.take(request)) {
                                    break None;
                                }
                            }
                            None => break 'serving,
                        },
                        () = stop.cancelled() => break 'serving,
                    }
                }
            };
            let replied = match done {
                // Dropped: the inbox holds what the game wants instead.
                None => true,
                Some(Ok(Ok(answer))) => self.done(&job, answer).await,
                Some(Ok(Err(e))) => self.failed(Failed::Engine(e)).await,
                Some(Err(panic)) => {
                    // Its state is unknown: dropped (its engine killed), and
                    // a fresh one started at the next try.
                    self.opponent = None;
                    self.failed(Failed::Host(panic)).await
                }
            };
            if !replied {
                break;
            }
        }
        if let Some(opponent) = self.opponent.take() {
            let _ = opponent.quit().await;
        }
    }

    /// Level and take-back, which need no engine.
    fn apply_quick(&mut self) {
        if let Some(level) = self.inbox.level.take() {
            self.config.level = level;
            if let Some(opponent) = &mut self.opponent {
                opponent.set_level(level);
            }
        }
        if std::mem::take(&mut self.inbox.take_back)
            && let Some(opponent) = &mut self.opponent
        {
            opponent.take_back();
            self.accepts_draw.store(opponent.accepts_draw(), Ordering::Relaxed);
        }
    }

    /// A new game first; then, while the engine is down only when it is
    /// time to try again: the move owed, a hint, or just the engine.
    fn next_job(&self) -> Option<Job> {
        if let Some(chess960) = self.inbox.new_game {
            return Some(Job::NewGame(chess960));
        }
        if let Health::Down { retry_at, .. } = self.health
            && Instant::now() < retry_at
        {
            return None;
        }
        if let Some(wanted) = &self.inbox.choose {
            return Some(Job::Choose(wanted.clone()));
        }
        if let Some(wanted) = &self.inbox.hint {
            return Some(Job::Hint(wanted.clone()));
        }
        matches!(self.health, Health::Down { .. }).then_some(Job::Revive)
    }

    /// `job` is done; whether the game still listens.
    async fn done(&mut self, job: &Job, answer: Option<Answer>) -> bool {
        match job {
            Job::NewGame(chess960) => {
                self.chess960 = *chess960;
                self.inbox.new_game = None;
                // A new game says nothing of the engine's health.
                return self.reply(answer).await;
            }
            Job::Choose(wanted) => {
                if self.inbox.choose.as_ref().is_some_and(|w| w.asked == wanted.asked) {
                    self.inbox.choose = None;
                }
                if let Some(opponent) = &self.opponent {
                    self.accepts_draw.store(opponent.accepts_draw(), Ordering::Relaxed);
                }
            }
            Job::Hint(wanted) => {
                if self.inbox.hint.as_ref().is_some_and(|w| w.asked == wanted.asked) {
                    self.inbox.hint = None;
                }
            }
            Job::Revive => {}
        }
        if let Health::Down { failures, .. } = self.health {
            self.health = Health::Up;
            tracing::info!("the engine answers again, after {failures} failed tries");
            let back = Reply::Notice(EventKind::DeviceBack { device: Device::Engine });
            if self.replies.send(back).await.is_err() {
                return false;
            }
        }
        self.reply(answer).await
    }

    async fn reply(&self, answer: Option<Answer>) -> bool {
        match answer {
            Some(answer) => self.replies.send(Reply::Answer(answer)).await.is_ok(),
            None => true,
        }
    }

    /// The engine could not do its work: the player is told once, and it
    /// is tried again later, and later still while it keeps failing.
    async fn failed(&mut self, why: Failed) -> bool {
        let (failures, mut backoff) = match std::mem::replace(&mut self.health, Health::Up) {
            Health::Up => (1, Backoff::new(RETRY_FIRST, RETRY_MAX)),
            Health::Down { failures, backoff, .. } => (failures.saturating_add(1), backoff),
        };
        let wait = backoff.next_step();
        self.health = Health::Down { failures, retry_at: Instant::now() + wait, backoff };
        tracing::warn!("{why}; trying the engine again in {:.0} s", wait.as_secs_f64());
        if failures > 1 {
            return true;
        }
        let lost = EventKind::DeviceLost { device: Device::Engine, detail: why.to_string() };
        self.replies.send(Reply::Notice(lost)).await.is_ok()
    }
}

/// Why the engine could not do the work asked of it.
#[derive(Debug, thiserror::Error)]
enum Failed {
    #[error(transparent)]
    Engine(OpponentError),
    #[error("the engine's host failed: {0}")]
    Host(Panicked),
}

/// Does `job` with the opponent, started first if a panic cost it. `Ok`:
/// what to answer, if anything; `Err`: why the engine could not.
async fn work(
    job: &Job,
    opponent: &mut Option<Opponent>,
    config: &OpponentConfig,
    chess960: bool,
) -> Result<Option<Answer>, OpponentError> {
    let opponent = match opponent {
        Some(opponent) => opponent,
        // The fresh one starts with the new game's variant.
        None if matches!(job, Job::NewGame(_)) => return Ok(None),
        None => {
            let mut fresh = Opponent::start(config.clone()).await?;
            fresh.new_game(chess960).await?;
            opponent.insert(fresh)
        }
    };
    let (asked, answered) = match job {
        Job::NewGame(chess960) => {
            if let Err(e) = opponent.new_game(*chess960).await {
                tracing::error!("the engine's new game: {e}");
            }
            return Ok(None);
        }
        Job::Revive => return opponent.revive().await.map(|()| None),
        Job::Choose(wanted) => {
            let line = &wanted.line;
            let clock = wanted.clock.map(|c| c.after(line.position().turn(), wanted.at.elapsed()));
            let chosen = opponent.choose(line, clock).await.map(|c| {
                Answered::Move(Chosen {
                    uci: UciMove::from_move(c.mv, line.castling_mode()),
                    eval: eval_of(&c, line.position().turn(), line.castling_mode()),
                    san: c.san,
                    stance: c.stance,
                    search: wanted.at.elapsed(),
                    restarts: c.restarts,
                })
            });
            (wanted.asked, chosen)
        }
        Job::Hint(wanted) => {
            let line = &wanted.line;
            let hint = opponent.hint(line, HINT_THINK).await;
            (wanted.asked, hint.map(|h| Answered::Hint(UciMove::from_move(h.mv, line.castling_mode()))))
        }
    };
    match answered {
        Ok(answered) => Ok(Some(Answer { asked, answered })),
        Err(OpponentError::NoLegalMove) => {
            tracing::error!("the engine was asked in a position without a legal move");
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Sleeps until `at`; for ever without one.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// A future whose panic becomes an error: a bug met while serving one
/// request costs that request's opponent, not the engine's task.
struct Guarded<'a, T>(Pin<Box<dyn Future<Output = T> + Send + 'a>>);

impl<'a, T> Guarded<'a, T> {
    fn new(future: impl Future<Output = T> + Send + 'a) -> Self {
        Guarded(Box::pin(future))
    }
}

/// A panic met while serving a request: what it said.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
struct Panicked(String);

impl<T> Future for Guarded<'_, T> {
    type Output = Result<T, Panicked>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<Self::Output> {
        match std::panic::catch_unwind(AssertUnwindSafe(|| self.0.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Err(panic) => Poll::Ready(Err(Panicked(panic_text(panic.as_ref())))),
        }
    }
}

fn panic_text(panic: &(dyn Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(text), _) => (*text).to_owned(),
        (_, Some(text)) => text.clone(),
        _ => "a panic".to_owned(),
    }
}

/// The engine's view of its own best move, from White's point of view, for
/// the journal (and, in a game no arbiter supervises, the page).
fn eval_of(choice: &tactus_engine::Choice, turn: Color, mode: shakmaty::CastlingMode) -> Option<Eval> {
    if choice.source != Source::Engine || choice.pv.first() != Some(&choice.mv) {
        return None;
    }
    // Negated without overflow (`cp -2147483648` is the engine's to write).
    let own = choice.score?;
    let score = match if turn == Color::White { own } else { own.negate() } {
        EngineScore::Cp(cp) => Score::Cp(cp),
        EngineScore::Mate(n) => Score::Mate(n),
    };
    let mut pv = [None; PV_MAX];
    for (slot, m) in pv.iter_mut().zip(&choice.pv) {
        *slot = Some(UciMove::from_move(*m, mode));
    }
    Some(Eval { score, pv })
}

/// The game as the engine is told it: the start and the moves since.
fn line_of(session: &Session) -> Option<Line> {
    let mut line = Line::new(session.game().start().clone());
    for played in &session.game().played {
        if line.push_uci(&played.info.uci).is_err() {
            tracing::error!("the engine cannot be asked: {} does not follow in its line", played.info.uci);
            return None;
        }
    }
    Some(line)
}

fn side_name(side: Color) -> &'static str {
    match side {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The game's clock as the engine is told it (`wtime btime winc binc
/// movestogo`); none without a clock.
fn clock_times(session: &Session, t: Ms) -> Option<ClockTimes> {
    let clock = session.clock()?;
    let remaining = |side: Color| u64::try_from(clock.remaining(side, t)).unwrap_or(0);
    let turn = session.game().turn();
    let moves_to_go = session
        .time_control()
        .and_then(|tc| tc.next_control(clock.moves(turn)))
        .map(|control| control.at_move.saturating_sub(clock.moves(turn)).max(1));
    Some(ClockTimes {
        white_ms: remaining(Color::White),
        black_ms: remaining(Color::Black),
        white_inc_ms: clock.per_move_ms(Color::White),
        black_inc_ms: clock.per_move_ms(Color::Black),
        moves_to_go,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_while_serving_becomes_an_error() {
        let panicking = Guarded::new(async {
            if Level::new(11).is_none() {
                panic!("the engine said nonsense");
            }
        });
        assert_eq!(panicking.await, Err(Panicked("the engine said nonsense".to_owned())));
        assert_eq!(Guarded::new(async { 7 }).await, Ok(7));
    }

    fn wanted(ply: u32) -> Wanted {
        let asked = Asked { game: 1, take_backs: 0, ply };
        Wanted { asked, line: Box::new(Line::new(shakmaty::Chess::default())), clock: None, at: Instant::now() }
    }

    #[test]
    fn newer_requests_make_work_stale_and_keep_the_latest() {
        let mut inbox = Inbox::default();
        let search = Job::Choose(wanted(1));
        // A level or a hint waits for the search; a newer position or a
        // take-back replaces it; a new game replaces everything but a revival.
        assert!(!search.made_stale(inbox.take(Request::Level(Level::MIN))));
        assert!(!search.made_stale(inbox.take(Request::Hint(wanted(1)))));
        assert!(search.made_stale(inbox.take(Request::Choose(wanted(3)))));
        assert!(inbox.hint.is_none(), "the player has moved: no hint for them");
        assert!(search.made_stale(inbox.take(Request::TakeBack)));
        assert!(inbox.choose.is_none() && inbox.take_back);
        inbox.take(Request::Choose(wanted(5)));
        assert!(Job::NewGame(false).made_stale(inbox.take(Request::NewGame { chess960: true })));
        assert!(!Job::Revive.made_stale(inbox.take(Request::NewGame { chess960: false })));
        assert!(inbox.choose.is_none() && !inbox.take_back);
        assert_eq!((inbox.new_game, inbox.level), (Some(false), Some(Level::MIN)));
    }

    #[test]
    fn scores_at_the_ends_of_32_bits_turn_to_whites_view_without_overflow() {
        let mut line = Line::new(shakmaty::Chess::default());
        line.push_uci("e2e4").unwrap();
        let mv = line.position().legal_moves()[0];
        let choice = |score| tactus_engine::Choice {
            mv,
            uci: String::new(),
            san: String::new(),
            source: Source::Engine,
            score: Some(score),
            pv: vec![mv],
            stance: Stance::Play,
            depth: None,
            nodes: None,
            engine_ms: None,
            elapsed: Duration::ZERO,
            restarts: 0,
        };
        let white = |score| eval_of(&choice(score), Color::Black, shakmaty::CastlingMode::Standard).map(|e| e.score);
        assert_eq!(white(EngineScore::Cp(i32::MIN)), Some(Score::Cp(i32::MAX)));
        assert_eq!(white(EngineScore::Mate(i32::MIN)), Some(Score::Mate(i32::MAX)));
        assert_eq!(white(EngineScore::Cp(35)), Some(Score::Cp(-35)));
    }
}
