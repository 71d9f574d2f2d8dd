//! Playing on the board through the Board API: an actor that keeps the
//! account's event stream open, follows the game that starts on it (one
//! board, one game at a time) with a [`Follower`], sends the board's moves
//! and the player's requests one at a time, and answers challenges.
//!
//! The owner (the daemon's game task) is never held: [`Play::command`]
//! never waits (a full queue is an error it can say), and the actor
//! reports through a bounded channel. Streams that drop or fall silent are
//! reopened with back-off; a loss of the link is reported once
//! ([`Update::Link`]), and so is each 429.

use std::collections::{HashSet, VecDeque};
use std::time::{Duration, Instant};

use shakmaty::Color;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::api::{ChallengeSpec, DeclineReason, EndRequest, SeekSpec};
use crate::follower::{Action, FollowError, Follower, Sent};
use crate::http::{Client, Error, Lines, StreamEnd};
use crate::retry::{Backoff, Link, LinkWatch};
use crate::wire::{AccountEvent, Challenge, GameEvent, GameInfo};

/// Commands the owner may have queued at once.
const COMMANDS: usize = 32;
/// Updates the owner has not read yet, before the actor waits for it.
const UPDATES: usize = 256;
/// Lines and answers queued inside the actor.
const INTERNAL: usize = 256;
/// Requests of the game waiting their turn; more are refused.
const JOBS: usize = 16;
/// A request that failed on the network is tried this many times.
const ATTEMPTS: u32 = 5;
/// Games on the account not played on the board, remembered so that each
/// is said once.
const OTHER_GAMES: usize = 64;

/// How the actor plays.
#[derive(Debug, Clone, Default)]
pub struct PlayOptions {
    /// Lichess ids (lower case) whose challenges are accepted at once.
    pub accept_from: Vec<String>,
    /// The game the board was playing when the daemon stopped.
    pub resume: Option<Resume>,
}

/// The board's game as the daemon's journal holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resume {
    pub game_id: String,
    /// Every move the board's game holds, in UCI.
    pub moves: Vec<String>,
}

/// What the owner asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Something for the game being played, by its id.
    Game {
        id: String,
        what: GameCommand,
    },
    Accept {
        challenge: String,
    },
    Decline {
        challenge: String,
        reason: DeclineReason,
    },
    Challenge {
        username: String,
        spec: ChallengeSpec,
    },
    Seek(SeekSpec),
    CancelSeek,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameCommand {
    /// The board completed our move.
    Move {
        uci: String,
        offering_draw: bool,
    },
    /// Offer or accept a draw (true); decline one (false).
    Draw(bool),
    /// Propose or accept a takeback (true); decline one (false).
    Takeback(bool),
    End(EndRequest),
    Chat(String),
}

/// What the owner hears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update {
    /// The link to Lichess was lost (said once), or is back.
    Link(Link),
    /// Lichess answered 429: nothing is sent for this long.
    RateLimited { for_s: u64 },
    /// A challenge to the account (`incoming`), or by it.
    Challenge { challenge: Box<Challenge>, incoming: bool },
    /// A challenge was canceled, or declined (with the reason given).
    ChallengeGone { id: String, declined: Option<String> },
    /// What the game's follower says: the game and everything in it.
    Game { id: String, action: Action },
    /// A game on the account that the board does not play (it plays one
    /// at a time, and only what the Board API allows), or can no longer
    /// follow (Lichess does not know it).
    NotPlayed { id: String, why: String },
    /// The seek ended: a game started, it expired, or it failed.
    SeekEnded { why: String },
    /// A command that could not be carried out.
    Failed { command: Command, why: String },
}

/// The command could not be queued.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("too many requests are waiting: try again")]
    Busy,
    #[error("the connection to Lichess has stopped")]
    Stopped,
}

/// The handle of a running actor; dropping it stops the actor.
pub struct Play {
    commands: mpsc::Sender<Command>,
    task: JoinHandle<()>,
}

impl Play {
    /// Starts the actor; its updates come on the returned receiver.
    pub fn start(client: Client, options: PlayOptions) -> (Play, mpsc::Receiver<Update>) {
        let (commands, command_rx) = mpsc::channel(COMMANDS);
        let (updates, update_rx) = mpsc::channel(UPDATES);
        let (internal, internal_rx) = mpsc::channel(INTERNAL);
        let actor = Actor {
            client,
            accept_from: options.accept_from.iter().map(|s| s.to_lowercase()).collect(),
            resume: options.resume,
            updates,
            internal,
            link: LinkWatch::default(),
            events: Stream::default(),
            game: None,
            challenge_jobs: Jobs::default(),
            seek: None,
            events_open: false,
            other_games: HashSet::new(),
        };
        let task = tokio::spawn(actor.run(command_rx, internal_rx));
        (Play { commands, task }, update_rx)
    }

    /// Queues a command; never waits.
    pub fn command(&self, command: Command) -> Result<(), CommandError> {
        self.commands.try_send(command).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => CommandError::Busy,
            mpsc::error::TrySendError::Closed(_) => CommandError::Stopped,
        })
    }
}

impl Drop for Play {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What the actor's own tasks report.
enum Internal {
    /// The event stream is open: the link stands, events or not.
    AccountOpened {
        generation: u64,
    },
    AccountLine {
        generation: u64,
        event: Box<AccountEvent>,
    },
    AccountEnded {
        generation: u64,
        why: String,
    },
    GameLine {
        generation: u64,
        event: GameEvent,
    },
    GameEnded {
        generation: u64,
        why: String,
        transient: bool,
    },
    GameJobDone {
        id: String,
        job: Job,
        result: Result<(), Error>,
    },
    ChallengeJobDone {
        job: Job,
        result: Result<(), Error>,
    },
    SeekEnded {
        why: String,
    },
}

/// A task of the actor's that ends with it.
struct Owned(JoinHandle<()>);

impl Drop for Owned {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A seek asked for, and once the event stream is open, standing.
enum Seek {
    Wanted(SeekSpec),
    /// Held for its task: dropped, the seek's stream closes and Lichess
    /// cancels the seek.
    Running {
        _task: Owned,
    },
}

/// A reconnecting stream: its generation (lines of older ones are
/// dropped), its task, and when to try again.
struct Stream {
    generation: u64,
    task: Option<Owned>,
    retry_at: Option<Instant>,
    backoff: Backoff,
    opened_at: Instant,
}

impl Default for Stream {
    fn default() -> Stream {
        Stream {
            generation: 0,
            task: None,
            retry_at: Some(Instant::now()),
            backoff: Backoff::default(),
            opened_at: Instant::now(),
        }
    }
}

impl Stream {
    fn stop(&mut self) {
        self.task = None;
    }

    /// The stream ended: when to try again. One that stood a minute
    /// starts the back-off afresh.
    fn ended(&mut self, now: Instant) {
        self.task = None;
        if now.duration_since(self.opened_at) >= Duration::from_secs(60) {
            self.backoff.reset();
        }
        self.retry_at = Some(now + self.backoff.next_wait());
    }
}

/// A request of the game or of challenges, with its attempts.
#[derive(Debug, Clone)]
struct Job {
    command: Command,
    /// For a move: the ply the follower sent.
    ply: Option<u32>,
    attempts: u32,
}

/// Requests that go one at a time.
#[derive(Default)]
struct Jobs {
    queue: VecDeque<Job>,
    running: bool,
    /// After a failure: not before the back-off's wait.
    not_before: Option<Instant>,
    backoff: Option<Backoff>,
}

impl Jobs {
    /// The next request, if none runs and none waits out a back-off.
    fn start(&mut self, now: Instant) -> Option<Job> {
        if self.running || self.not_before.is_some_and(|t| t > now) {
            return None;
        }
        let job = self.queue.pop_front()?;
        self.running = true;
        self.not_before = None;
        Some(job)
    }

    /// The request ended: a transient failure delays the next one.
    fn done(&mut self, failed_transiently: bool, now: Instant) {
        self.running = false;
        if failed_transiently {
            let wait = self.backoff.get_or_insert_with(Backoff::default).next_wait();
            self.not_before = Some(now + wait);
        } else {
            self.backoff = None;
        }
    }

    /// Tried again first, unless it was tried enough; a 429 is no attempt.
    fn again(&mut self, job: Job, e: &Error) -> Option<Job> {
        let attempts = job.attempts + u32::from(!matches!(e, Error::RateLimited(_)));
        if e.is_transient() && attempts < ATTEMPTS {
            self.queue.push_front(Job { attempts, ..job });
            None
        } else {
            Some(job)
        }
    }
}

struct GameRun {
    id: String,
    follower: Follower,
    stream: Stream,
    jobs: Jobs,
    /// A follower error said already.
    said_error: bool,
}

struct Actor {
    client: Client,
    accept_from: HashSet<String>,
    resume: Option<Resume>,
    updates: mpsc::Sender<Update>,
    internal: mpsc::Sender<Internal>,
    link: LinkWatch,
    events: Stream,
    game: Option<GameRun>,
    challenge_jobs: Jobs,
    seek: Option<Seek>,
    /// Whether the event stream is open now.
    events_open: bool,
    other_games: HashSet<String>,
}

/// Reads a stream's lines into the actor as typed events until it ends
/// (then `ended` says why). Lines that are not what the API describes are
/// skipped; the first of a stream is logged.
async fn pump<T: serde::de::DeserializeOwned>(
    mut lines: Lines,
    tx: mpsc::Sender<Internal>,
    wrap: impl Fn(T) -> Internal,
    ended: impl FnOnce(String) -> Internal,
) {
    let mut said = false;
    loop {
        match lines.next().await {
            Ok(text) => match serde_json::from_str::<T>(&text) {
                Ok(event) => {
                    if tx.send(wrap(event)).await.is_err() {
                        return;
                    }
                }
                Err(e) if !std::mem::replace(&mut said, true) => {
                    tracing::warn!("a Lichess stream line was not what the API describes, skipped: {e}")
                }
                Err(e) => tracing::debug!("a Lichess stream line skipped: {e}"),
            },
            Err(end) => {
                let _ = tx.send(ended(end.to_string())).await;
                return;
            }
        }
    }
}

impl Actor {
    async fn run(mut self, mut commands: mpsc::Receiver<Command>, mut internal: mpsc::Receiver<Internal>) {
        loop {
            let now = Instant::now();
            self.start_due(now);
            let wake = self.next_wake();
            tokio::select! {
                command = commands.recv() => match command {
                    Some(c) => self.command(c).await,
                    None => break,
                },
                Some(msg) = internal.recv() => self.internal(msg).await,
                () = sleep_until(wake) => {}
            }
        }
    }

    async fn say(&self, update: Update) {
        // The owner reads its updates; if it stopped, so do we (the loop
        // ends when its commands close).
        let _ = self.updates.send(update).await;
    }

    async fn failed(&mut self, why: &str) {
        if let Some(link) = self.link.failed(why) {
            tracing::warn!("Lichess: {why}; retrying");
            self.say(Update::Link(link)).await;
        }
    }

    async fn worked(&mut self) {
        if let Some(link) = self.link.worked() {
            tracing::info!("Lichess: connected again");
            self.say(Update::Link(link)).await;
        }
    }

    async fn error(&mut self, e: &Error) {
        if let Error::RateLimited(pause) = e {
            tracing::warn!("Lichess answered 429: no request for {} s", pause.as_secs());
            self.say(Update::RateLimited { for_s: pause.as_secs() }).await;
        } else if e.is_transient() {
            self.failed(&e.to_string()).await;
        }
    }

    /// The earliest instant something is due.
    fn next_wake(&self) -> Option<Instant> {
        let mut due = [self.events.retry_at, self.challenge_jobs.not_before].into_iter().flatten().min();
        if let Some(g) = &self.game {
            for t in [g.stream.retry_at, g.jobs.not_before].into_iter().flatten() {
                due = Some(due.map_or(t, |d| d.min(t)));
            }
        }
        due
    }

    /// Opens streams and starts requests that are due.
    fn start_due(&mut self, now: Instant) {
        if self.events.retry_at.is_some_and(|t| t <= now) {
            self.open_events(now);
        }
        let reopen = self.game.as_ref().is_some_and(|g| g.stream.retry_at.is_some_and(|t| t <= now));
        if reopen {
            self.open_game_stream(now);
        }
        if let Some(g) = &mut self.game
            && let Some(job) = g.jobs.start(now)
        {
            let client = self.client.clone();
            let tx = self.internal.clone();
            let id = g.id.clone();
            tokio::spawn(async move {
                let Command::Game { what, .. } = &job.command else { return };
                let result = match what {
                    GameCommand::Move { uci, offering_draw } => client.board_move(&id, uci, *offering_draw).await,
                    GameCommand::Draw(yes) => client.draw(&id, *yes).await,
                    GameCommand::Takeback(yes) => client.takeback(&id, *yes).await,
                    GameCommand::End(what) => client.game_end(&id, *what).await,
                    GameCommand::Chat(text) => client.chat(&id, false, text).await,
                };
                let _ = tx.send(Internal::GameJobDone { id, job, result }).await;
            });
        }
        // A game that starts must find the event stream open (the seek's
        // reference says so): challenges and seeks wait for it.
        if !self.events_open {
            return;
        }
        if let Some(Seek::Wanted(spec)) = self.seek {
            let client = self.client.clone();
            let tx = self.internal.clone();
            self.seek = Some(Seek::Running {
                _task: Owned(tokio::spawn(async move {
                    let why = match client.seek(&spec).await {
                        Ok(mut lines) => loop {
                            match lines.next().await {
                                Ok(_) => {}
                                Err(StreamEnd::Closed) => break "the seek ended: a game started, or it expired".into(),
                                Err(end) => break end.to_string(),
                            }
                        },
                        Err(e) => e.to_string(),
                    };
                    let _ = tx.send(Internal::SeekEnded { why }).await;
                })),
            });
        }
        if let Some(job) = self.challenge_jobs.start(now) {
            let client = self.client.clone();
            let tx = self.internal.clone();
            tokio::spawn(async move {
                let result = match &job.command {
                    Command::Accept { challenge } => client.accept(challenge).await,
                    Command::Decline { challenge, reason } => client.decline(challenge, *reason).await,
                    Command::Challenge { username, spec } => client.challenge(username, spec).await.map(drop),
                    _ => Ok(()),
                };
                let _ = tx.send(Internal::ChallengeJobDone { job, result }).await;
            });
        }
    }

    fn open_events(&mut self, now: Instant) {
        self.events.stop();
        self.events.generation += 1;
        self.events.retry_at = None;
        self.events.opened_at = now;
        let generation = self.events.generation;
        let client = self.client.clone();
        let tx = self.internal.clone();
        self.events.task = Some(Owned(tokio::spawn(async move {
            match client.event_stream().await {
                Ok(lines) => {
                    if tx.send(Internal::AccountOpened { generation }).await.is_err() {
                        return;
                    }
                    pump(
                        lines,
                        tx,
                        move |event| Internal::AccountLine { generation, event: Box::new(event) },
                        move |why| Internal::AccountEnded { generation, why },
                    )
                    .await
                }
                Err(e) => {
                    let _ = tx.send(Internal::AccountEnded { generation, why: e.to_string() }).await;
                }
            }
        })));
    }

    fn open_game_stream(&mut self, now: Instant) {
        let Some(g) = &mut self.game else { return };
        g.stream.stop();
        g.stream.generation += 1;
        g.stream.retry_at = None;
        g.stream.opened_at = now;
        g.follower.stream_opened();
        let generation = g.stream.generation;
        let client = self.client.clone();
        let tx = self.internal.clone();
        let id = g.id.clone();
        g.stream.task = Some(Owned(tokio::spawn(async move {
            match client.game_stream(&id).await {
                Ok(lines) => {
                    pump(
                        lines,
                        tx,
                        move |event| Internal::GameLine { generation, event },
                        move |why| Internal::GameEnded { generation, why, transient: true },
                    )
                    .await
                }
                Err(e) => {
                    let transient = e.is_transient();
                    let _ = tx.send(Internal::GameEnded { generation, why: e.to_string(), transient }).await;
                }
            }
        })));
    }

    async fn command(&mut self, command: Command) {
        match &command {
            Command::Game { id, what } => {
                let Some(g) = self.game.as_mut().filter(|g| &g.id == id) else {
                    let why = format!("no game {id} is being played");
                    self.say(Update::Failed { command, why }).await;
                    return;
                };
                if let GameCommand::Move { uci, offering_draw } = what {
                    if let Err(e) = g.follower.our_move(uci, *offering_draw) {
                        self.say(Update::Failed { command, why: e.to_string() }).await;
                        return;
                    }
                    self.follow().await;
                } else if g.jobs.queue.len() >= JOBS {
                    self.say(Update::Failed { command, why: "too many requests are waiting".into() }).await;
                } else {
                    g.jobs.queue.push_back(Job { command, ply: None, attempts: 0 });
                }
            }
            Command::Accept { .. } | Command::Decline { .. } | Command::Challenge { .. } => {
                if self.challenge_jobs.queue.len() >= JOBS {
                    self.say(Update::Failed { command, why: "too many requests are waiting".into() }).await;
                } else {
                    self.challenge_jobs.queue.push_back(Job { command, ply: None, attempts: 0 });
                }
            }
            Command::Seek(spec) => self.seek = Some(Seek::Wanted(*spec)),
            Command::CancelSeek => {
                if self.seek.take().is_some() {
                    self.say(Update::SeekEnded { why: "canceled".into() }).await;
                }
            }
        }
    }

    async fn internal(&mut self, msg: Internal) {
        let now = Instant::now();
        match msg {
            Internal::AccountOpened { generation } if generation == self.events.generation => {
                self.events_open = true;
                self.worked().await
            }
            Internal::AccountLine { generation, event } if generation == self.events.generation => {
                self.worked().await;
                self.account_event(*event).await;
            }
            Internal::AccountEnded { generation, why } if generation == self.events.generation => {
                self.events_open = false;
                // Even a token refused is tried again, after the back-off:
                // said once all the same.
                self.events.ended(now);
                self.failed(&format!("the event stream: {why}")).await;
            }
            Internal::GameLine { generation, event } => {
                let Some(g) = self.game.as_mut().filter(|g| g.stream.generation == generation) else { return };
                let result = g.follower.server(event);
                self.worked().await;
                if let Err(e) = result {
                    self.follow_error(e).await;
                }
                self.follow().await;
            }
            Internal::GameEnded { generation, why, transient } => {
                let Some(g) = self.game.as_mut().filter(|g| g.stream.generation == generation) else { return };
                if g.follower.ending().is_some() {
                    return self.end_game();
                }
                g.stream.ended(now);
                if transient {
                    self.failed(&format!("the game stream: {why}")).await;
                } else {
                    let id = g.id.clone();
                    self.say(Update::NotPlayed { id, why }).await;
                    self.end_game();
                }
            }
            Internal::GameJobDone { id, job, result } => self.game_job_done(id, job, result, now).await,
            Internal::ChallengeJobDone { job, result } => {
                self.challenge_jobs.done(result.as_ref().is_err_and(Error::is_transient), now);
                match result {
                    Ok(()) => self.worked().await,
                    Err(e) => {
                        self.error(&e).await;
                        if let Some(job) = self.challenge_jobs.again(job, &e) {
                            self.say(Update::Failed { command: job.command, why: e.to_string() }).await;
                        }
                    }
                }
            }
            Internal::SeekEnded { why } => {
                self.seek = None;
                self.say(Update::SeekEnded { why }).await;
            }
            // Lines of streams replaced since.
            Internal::AccountOpened { .. } | Internal::AccountLine { .. } | Internal::AccountEnded { .. } => {}
        }
    }

    async fn game_job_done(&mut self, id: String, job: Job, result: Result<(), Error>, now: Instant) {
        let Some(g) = self.game.as_mut().filter(|g| g.id == id) else { return };
        g.jobs.done(result.as_ref().is_err_and(Error::is_transient), now);
        let is_move = job.ply.is_some();
        if let Some(ply) = job.ply {
            // The follower decides what a failed move needs (see its diagram).
            let outcome = match &result {
                Ok(()) => Sent::Accepted,
                Err(Error::Refused { error, .. }) => Sent::Refused(error.clone()),
                Err(Error::BadInput(s)) => Sent::Refused(format!("{s:?} cannot be sent")),
                Err(_) => Sent::Unknown,
            };
            g.follower.sent(ply, outcome);
        }
        match result {
            Ok(()) => self.worked().await,
            Err(e) => {
                self.error(&e).await;
                // A move is the follower's to try again (by its rule).
                let g = self.game.as_mut().expect("checked above");
                if let Some(job) = (!is_move).then(|| g.jobs.again(job, &e)).flatten() {
                    self.say(Update::Failed { command: job.command, why: e.to_string() }).await;
                }
            }
        }
        self.follow().await;
    }

    async fn follow_error(&mut self, e: FollowError) {
        let Some(g) = &mut self.game else { return };
        let id = g.id.clone();
        match e {
            FollowError::Variant(_) | FollowError::Fen(_) => {
                self.say(Update::NotPlayed { id, why: e.to_string() }).await;
                self.end_game();
            }
            FollowError::Moves { .. } => {
                if !std::mem::replace(&mut g.said_error, true) {
                    tracing::warn!("Lichess game {id}: {e}");
                }
            }
        }
    }

    /// Carries out what the follower says.
    async fn follow(&mut self) {
        let Some(g) = &mut self.game else { return };
        let actions: Vec<Action> = g.follower.drain().collect();
        let id = g.id.clone();
        let mut resync = false;
        let mut over = false;
        for action in actions {
            match action {
                Action::Send { ply, uci, offering_draw } => {
                    let command = Command::Game { id: id.clone(), what: GameCommand::Move { uci, offering_draw } };
                    // A move goes before the requests waiting.
                    if let Some(g) = &mut self.game {
                        g.jobs.queue.push_front(Job { command, ply: Some(ply), attempts: 0 });
                    }
                }
                Action::Resync => resync = true,
                action => {
                    over |= matches!(action, Action::Ended(_));
                    self.say(Update::Game { id: id.clone(), action }).await;
                }
            }
        }
        if resync
            && !over
            && let Some(g) = &mut self.game
        {
            // Opened again at once, or after the requests' back-off.
            g.stream.stop();
            g.stream.retry_at = Some(g.jobs.not_before.unwrap_or_else(Instant::now));
        }
        if over {
            self.end_game();
        }
    }

    fn end_game(&mut self) {
        if let Some(mut g) = self.game.take() {
            g.stream.stop();
        }
    }

    async fn account_event(&mut self, event: AccountEvent) {
        match event {
            AccountEvent::GameStart { game } => self.game_start(game).await,
            AccountEvent::GameFinish { .. } | AccountEvent::Other => {}
            AccountEvent::Challenge { challenge } => {
                let incoming = challenge.direction.as_deref() != Some("out");
                if incoming && self.accept_from.contains(&challenge.challenger.id.to_lowercase()) {
                    let command = Command::Accept { challenge: challenge.id.clone() };
                    self.challenge_jobs.queue.push_back(Job { command, ply: None, attempts: 0 });
                }
                self.say(Update::Challenge { challenge: Box::new(challenge), incoming }).await;
            }
            AccountEvent::ChallengeCanceled { challenge } => {
                self.say(Update::ChallengeGone { id: challenge.id, declined: None }).await
            }
            AccountEvent::ChallengeDeclined { challenge } => {
                let why = challenge.decline_reason.unwrap_or_else(|| "declined".into());
                self.say(Update::ChallengeGone { id: challenge.id, declined: Some(why) }).await
            }
        }
    }

    async fn game_start(&mut self, info: GameInfo) {
        let id = info.game_id.clone();
        if self.game.as_ref().is_some_and(|g| g.id == id) {
            return; // the event stream, reopened, lists the current games again
        }
        let why = if self.game.is_some() {
            Some("the board is playing another game".to_string())
        } else if info.compat.and_then(|c| c.board) == Some(false) {
            Some("the Board API cannot play it".to_string())
        } else if info
            .variant
            .as_ref()
            .is_some_and(|v| !matches!(v.key.as_str(), "standard" | "chess960" | "fromPosition"))
        {
            Some(format!("the variant {} cannot be played on the board", info.variant.as_ref().map_or("", |v| &v.key)))
        } else if info.color.is_none() {
            Some("Lichess did not say which side the account plays".to_string())
        } else {
            None
        };
        if let Some(why) = why {
            if self.other_games.len() >= OTHER_GAMES {
                self.other_games.clear();
            }
            if self.other_games.insert(id.clone()) {
                self.say(Update::NotPlayed { id, why }).await;
            }
            return;
        }
        let color: Color = info.color.expect("checked above").into();
        let follower = match self.resume.take() {
            Some(r) if r.game_id == id => Follower::resume(color, r.moves),
            other => {
                self.resume = other;
                Follower::new(color)
            }
        };
        self.game = Some(GameRun { id, follower, stream: Stream::default(), jobs: Jobs::default(), said_error: false });
    }
}

async fn sleep_until(t: Option<Instant>) {
    match t {
        Some(t) => tokio::time::sleep_until(t.into()).await,
        None => std::future::pending().await,
    }
}
