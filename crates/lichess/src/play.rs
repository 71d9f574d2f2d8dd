//! Playing on the board through the Board API: an actor that keeps the
//! account's event stream open, follows the game that starts on it (one
//! board, one game at a time) with a [`Follower`], sends the board's moves
//! and the player's requests one at a time, and answers challenges.
//!
//! The owner (the daemon's game task) is never held: [`Play::command`]
//! never waits (a full queue is an error it can say), and the actor
//! reports through a bounded channel.
//!
//! Silence is not failure: a stream that stood and then fell silent or
//! was dropped is reopened at once; only a stream or a request the server
//! refuses, or that cannot connect, waits out a back-off. A loss of the
//! link is reported once ([`Update::Link`], a [`SteadyLink`]: a link that
//! flaps is said lost and back once), and so is each 429. A token Lichess
//! refuses (401, 403) is the account's trouble, not the network's
//! ([`Update::Token`]): said once, the game kept, everything tried again;
//! and asked of Lichess's token check whether it can come back at all.
//!
//! A game the board cannot play right — a `gameFull` of another game, a
//! move list that is not legal, an account that plays neither side — is
//! refused loudly ([`Update::NotPlayed`], with the reason and what to
//! change), never followed half-way. A game the actor stopped following
//! (its stream refused) and that starts again is resumed with the moves
//! the board has: the same game, nothing sent twice.
//!
//! Every task of the actor's — the actor itself, its streams, its requests —
//! runs on one [`TaskTracker`] that [`Play`] holds, and ends by a token:
//! streams by a child of the daemon's stop signal, at once; the board's
//! requests by [`Play::stop`]'s deadline, so that the moves the journal has
//! are sent, or their fate logged as unknown (the follower sends them after
//! a restart if Lichess lacks them), never dropped unsaid.

use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::time::{Duration, Instant};

use shakmaty::Color;
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};
use tokio_util::task::TaskTracker;

use crate::api::{BOARD_PLAY, ChallengeSpec, DeclineReason, EndRequest, SeekSpec};
use crate::follower::{Action, FollowError, Follower, MoveError, Sent};
use crate::http::{Client, Error, Lines, StreamEnd};
use crate::retry::{Backoff, Link, SteadyLink};
use crate::wire::{AccountEvent, Challenge, Declined, Direction, GameEvent, GameFull, GameInfo, VariantKey};

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
/// A stream that stood this long and then ended (dropped, closed) is
/// reopened at once: it worked. One that ends sooner waits out the back-off.
const STOOD: Duration = Duration::from_secs(10);
/// The same reason not to play a game is said once in this long: a flood
/// of games the board cannot play is one sentence, the rest logged.
const SAID_AGAIN_AFTER: Duration = Duration::from_secs(600);

/// How the actor plays.
#[derive(Debug, Clone, Default)]
pub struct PlayOptions {
    /// Lichess ids (lower case) whose challenges are accepted at once.
    pub accept_from: Vec<String>,
    /// The game the board was playing when the daemon stopped.
    pub resume: Option<Resume>,
    /// The account's id, if the owner asked for it already; else the actor
    /// asks before it follows anything (a game is checked against it).
    pub account: Option<String>,
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
    /// Lichess refuses the board's token, or takes it again.
    Token(TokenState),
    /// Lichess answered 429: nothing is sent for this long.
    RateLimited { for_s: u64 },
    /// A challenge to the account (`incoming`), or by it.
    Challenge { challenge: Box<Challenge>, incoming: bool },
    /// A challenge was canceled, or declined (with the reason given).
    ChallengeGone { id: String, declined: Option<Declined> },
    /// What the game's follower says: the game and everything in it.
    Game { id: String, action: Action },
    /// A game on the account that the board does not play (it plays one
    /// at a time, and only what the Board API allows), cannot play right,
    /// or can no longer follow (Lichess does not know it).
    NotPlayed { id: String, why: NotPlayed },
    /// The seek ended: a game started, it expired, or it failed.
    SeekEnded { why: String },
    /// A command that could not be carried out.
    Failed { command: Command, why: Failure },
}

/// Why a command was not carried out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    #[error("no game {0} is being played")]
    NoGame(String),
    /// The follower cannot send the board's move.
    #[error(transparent)]
    Move(#[from] MoveError),
    #[error("too many requests are waiting")]
    Busy,
    /// Lichess's answer, or the network's, after the tries it was worth.
    #[error(transparent)]
    Lichess(#[from] Error),
}

/// The board's token as Lichess takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenState {
    /// Refused (HTTP 401, or 403 for what it may do): the game is kept and
    /// everything tried again, in case the refusal passes.
    Refused { why: String },
    /// Lichess's token check says it will not pass: a new token is needed.
    ForGood(TokenFault),
    /// Taken again after a refusal.
    Accepted,
}

/// Why a token cannot come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenFault {
    /// Lichess does not know it: revoked, expired, or never made.
    Unknown,
    /// It lacks `board:play`.
    LacksScope,
}

/// Why a game on the account is not played on the board: said to the
/// player, and logged with what to change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotPlayed {
    /// The board plays one game at a time.
    AnotherGame,
    /// Lichess's `compat.board` says the Board API cannot play it.
    NotBoardApi,
    Variant(VariantKey),
    /// Lichess did not say which side the account plays.
    NoSide,
    /// The account (its id) plays neither side of the game.
    NotAPlayer {
        account: String,
    },
    /// The account plays the other side than the game's start said.
    SidesDisagree,
    /// The game's stream gave another game.
    OtherGame {
        id: String,
    },
    /// The move list at the start is not legal from the start position.
    IllegalMoves {
        ply: u32,
        uci: String,
    },
    /// The start position cannot be set up.
    Fen(String),
    /// Lichess refuses the game's stream (it does not know the game).
    Gone(String),
}

impl std::fmt::Display for NotPlayed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotPlayed::AnotherGame => f.write_str("the board is playing another game; play this one on the website"),
            NotPlayed::NotBoardApi => f.write_str("Lichess's Board API cannot play it (a bullet or blitz pairing?)"),
            NotPlayed::Variant(v) => write!(f, "the variant {v} cannot be played on the board"),
            NotPlayed::NoSide => f.write_str("Lichess did not say which side the account plays"),
            NotPlayed::NotAPlayer { account } => write!(
                f,
                "the account {account} plays neither White nor Black in it: is the token the board's player's own?"
            ),
            NotPlayed::SidesDisagree => {
                f.write_str("the game's start and its stream name different sides for the account: not played")
            }
            NotPlayed::OtherGame { id } => {
                write!(f, "its stream gave game {id} instead: the server does not follow Lichess's API ([lichess] url)")
            }
            NotPlayed::IllegalMoves { ply, uci } => {
                write!(f, "its move list is not legal at ply {ply} ({uci:?}): it cannot be set up on the board")
            }
            NotPlayed::Fen(fen) => write!(f, "the start position {fen:?} cannot be set up on the board"),
            NotPlayed::Gone(why) => write!(f, "Lichess does not give its stream: {why}"),
        }
    }
}

impl NotPlayed {
    /// The reason, without its details: the same reason is said once.
    fn kind(&self) -> std::mem::Discriminant<NotPlayed> {
        std::mem::discriminant(self)
    }
}

/// The command could not be queued.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("too many requests are waiting: try again")]
    Busy,
    #[error("the connection to Lichess has stopped")]
    Stopped,
}

/// Before [`Play::stop`]'s deadline, the requests still in flight are
/// given up this long, for their tasks to end by it.
const GIVE_UP_BEFORE: Duration = Duration::from_millis(100);

/// The handle of a running actor: stopped by [`Play::stop`] (or, dropped,
/// its tasks are told to end).
pub struct Play {
    commands: mpsc::Sender<Command>,
    /// The actor and every task of its.
    tasks: TaskTracker,
    /// A child of the daemon's stop signal: the streams close, and
    /// nothing new is asked of Lichess but the game's requests.
    stop: CancellationToken,
    /// [`Play::stop`] began: the actor sends what it holds, then ends.
    flush: CancellationToken,
    /// The requests still in flight are given up.
    give_up: CancellationToken,
}

impl Play {
    /// Starts the actor, stopped with `stop` (the daemon's stop signal) or
    /// [`Play::stop`]; its updates come on the returned receiver.
    pub fn start(client: Client, options: PlayOptions, stop: &CancellationToken) -> (Play, mpsc::Receiver<Update>) {
        let (commands, command_rx) = mpsc::channel(COMMANDS);
        let (updates, update_rx) = mpsc::channel(UPDATES);
        let (internal, internal_rx) = mpsc::channel(INTERNAL);
        let tasks = TaskTracker::new();
        let stop = stop.child_token();
        let (flush, give_up) = (CancellationToken::new(), CancellationToken::new());
        let actor = Actor {
            client,
            tasks: tasks.clone(),
            stop: stop.clone(),
            flush: flush.clone(),
            give_up: give_up.clone(),
            accept_from: options.accept_from.iter().map(|s| s.to_lowercase()).collect(),
            me: options.account.map(|a| a.to_lowercase()),
            resume: options.resume,
            updates,
            internal,
            link: SteadyLink::default(),
            token: TokenWatch::default(),
            events: Stream::default(),
            game: None,
            challenge_jobs: Jobs::default(),
            seek: None,
            events_open: false,
            other_games: HashSet::new(),
            refused: HashSet::new(),
            said_not_played: HashMap::new(),
        };
        tasks.spawn(actor.run(command_rx, internal_rx));
        (Play { commands, tasks, stop, flush, give_up }, update_rx)
    }

    /// Stops by `deadline`: the streams close at once; the board's acts
    /// queued so far (its last move first) are sent, and the requests in
    /// flight answered, until shortly before `deadline`; what has no answer
    /// then is given up and logged (a move so left is sent after a restart
    /// if Lichess lacks it). No update is read meanwhile: drop the
    /// receiver first, so that the actor never waits on it.
    pub async fn stop(self, deadline: Instant) {
        self.stop.cancel();
        self.flush.cancel();
        self.tasks.close();
        let give_up_at = deadline.checked_sub(GIVE_UP_BEFORE).unwrap_or(deadline);
        if tokio::time::timeout_at(give_up_at.into(), self.tasks.wait()).await.is_ok() {
            return;
        }
        self.give_up.cancel();
        if tokio::time::timeout_at(deadline.into(), self.tasks.wait()).await.is_err() {
            tracing::warn!("Lichess: a task did not end by the stop's deadline; left behind");
        }
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
        self.stop.cancel();
        self.flush.cancel();
        self.give_up.cancel();
    }
}

/// How a stream ended.
#[derive(Debug)]
enum Ended {
    /// It could not be opened: the server's answer, or the network's.
    Refused(Error),
    /// It was open, then fell silent (`silent`), or was dropped, closed or
    /// cut short.
    Stood { why: String, silent: bool },
}

impl Ended {
    fn of(end: StreamEnd) -> Ended {
        Ended::Stood { silent: matches!(end, StreamEnd::Silent(_)), why: end.to_string() }
    }
}

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ended::Refused(e) => e.fmt(f),
            Ended::Stood { why, .. } => f.write_str(why),
        }
    }
}

/// What the actor's own tasks report.
enum Internal {
    /// Who the token plays as.
    Me {
        id: String,
    },
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
        end: Ended,
    },
    GameLine {
        generation: u64,
        event: Box<GameEvent>,
    },
    GameEnded {
        generation: u64,
        end: Ended,
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
    /// Lichess's token check, asked while the token is refused.
    TokenChecked(Result<Option<crate::api::TokenCheck>, Error>),
}

/// A seek asked for, and once the event stream is open, standing.
enum Seek {
    Wanted(SeekSpec),
    /// Held for its task: dropped, the seek's stream closes and Lichess
    /// cancels the seek.
    Running {
        _task: DropGuard,
    },
}

/// A reconnecting stream: its generation (lines of older ones are
/// dropped), its task, and when to try again.
struct Stream {
    generation: u64,
    /// Dropped, the stream's task ends.
    task: Option<DropGuard>,
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

    /// The stream ended: when to open it again. Silence, or an end after
    /// it stood a while, is no failure: at once, the back-off afresh. A
    /// stream refused, or one that ends as soon as it opens, waits out the
    /// back-off. Returns whether the end counts as a failure.
    fn ended(&mut self, now: Instant, end: &Ended) -> bool {
        self.task = None;
        let stood = match end {
            Ended::Stood { silent: true, .. } => true,
            Ended::Stood { .. } => now.duration_since(self.opened_at) >= STOOD,
            Ended::Refused(_) => false,
        };
        if stood {
            self.backoff.reset();
            self.retry_at = Some(now);
        } else {
            self.retry_at = Some(now + self.backoff.next_wait());
        }
        !stood
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

/// Whether a request that failed so is worth trying again: the network, the
/// server's trouble, a 429 — or a token refused, which may pass.
fn worth_again(e: &Error) -> bool {
    e.is_transient() || e.is_token()
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

    /// The request ended: a failure worth trying again delays the next one.
    fn done(&mut self, failed_for_now: bool, now: Instant) {
        self.running = false;
        if failed_for_now {
            let wait = self.backoff.get_or_insert_with(Backoff::default).next_wait();
            self.not_before = Some(now + wait);
        } else {
            self.backoff = None;
        }
    }

    /// Tried again first, unless it was tried enough; a 429 is no attempt.
    fn again(&mut self, job: Job, e: &Error) -> Option<Job> {
        let attempts = job.attempts + u32::from(!matches!(e, Error::RateLimited(_)));
        if worth_again(e) && attempts < ATTEMPTS {
            self.queue.push_front(Job { attempts, ..job });
            None
        } else {
            Some(job)
        }
    }
}

/// The token as the actor heard it last.
#[derive(Default)]
struct TokenWatch {
    /// Refused since the last success: said once.
    refused: bool,
    /// Lichess's token check is being asked.
    checking: bool,
    /// Said to be refused for good (once).
    for_good: bool,
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
    /// Where its tasks run; [`Play`] waits for them.
    tasks: TaskTracker,
    stop: CancellationToken,
    flush: CancellationToken,
    give_up: CancellationToken,
    accept_from: HashSet<String>,
    /// The account's id, lower case: known before any game is followed.
    me: Option<String>,
    resume: Option<Resume>,
    updates: mpsc::Sender<Update>,
    internal: mpsc::Sender<Internal>,
    link: SteadyLink,
    token: TokenWatch,
    events: Stream,
    game: Option<GameRun>,
    challenge_jobs: Jobs,
    seek: Option<Seek>,
    /// Whether the event stream is open now.
    events_open: bool,
    other_games: HashSet<String>,
    /// Games refused once they were seen whole: not followed again.
    refused: HashSet<String>,
    /// When each reason not to play a game was said last.
    said_not_played: HashMap<std::mem::Discriminant<NotPlayed>, Instant>,
}

/// Reads a stream's lines into the actor as typed events until it ends
/// (then `ended` says why). Lines that are not what the API describes are
/// skipped; the first of a stream is logged. A line too long to keep may
/// have taken one of Lichess's with it: the stream ends, to be opened
/// again and give the whole state.
async fn pump<T: serde::de::DeserializeOwned>(
    mut lines: Lines,
    tx: mpsc::Sender<Internal>,
    wrap: impl Fn(T) -> Internal,
    ended: impl FnOnce(Ended) -> Internal,
) {
    let mut said = false;
    loop {
        match lines.next().await {
            Ok(text) => {
                match serde_json::from_str::<T>(&text) {
                    Ok(event) => {
                        if tx.send(wrap(event)).await.is_err() {
                            return;
                        }
                    }
                    Err(e) if !std::mem::replace(&mut said, true) => {
                        tracing::warn!("a Lichess stream line was not what the API describes, skipped: {e}")
                    }
                    Err(e) => tracing::debug!("a Lichess stream line skipped: {e}"),
                }
                if lines.dropped() > 0 {
                    let why = "a line too long to keep: opened again for the whole state".to_string();
                    let _ = tx.send(ended(Ended::Stood { why, silent: false })).await;
                    return;
                }
            }
            Err(end) => {
                let _ = tx.send(ended(Ended::of(end))).await;
                return;
            }
        }
    }
}

impl Actor {
    async fn run(mut self, mut commands: mpsc::Receiver<Command>, mut internal: mpsc::Receiver<Internal>) {
        let (flush, give_up) = (self.flush.clone(), self.give_up.clone());
        loop {
            let now = Instant::now();
            if let Some(link) = self.link.tick(now) {
                tracing::warn!("Lichess: still not answering");
                self.say(Update::Link(link)).await;
            }
            self.start_due(now);
            let wake = self.next_wake();
            tokio::select! {
                command = commands.recv() => match command {
                    Some(c) => self.command(c).await,
                    None => return,
                },
                Some(msg) = internal.recv() => self.internal(msg).await,
                () = sleep_until(wake) => {}
                () = flush.cancelled() => break,
                () = give_up.cancelled() => return,
            }
        }
        // Stopping: the commands queued before the flush are the board's
        // last acts, journaled already.
        while let Ok(c) = commands.try_recv() {
            self.command(c).await;
        }
        self.finish(internal).await;
    }

    /// The daemon stops: no stream, challenge or seek any more; the game's
    /// requests are sent and answered, until [`Play::stop`] gives them up.
    /// Our move left without an answer is logged: known unsent.
    async fn finish(mut self, mut internal: mpsc::Receiver<Internal>) {
        self.events.stop();
        self.seek = None;
        self.challenge_jobs.queue.clear();
        let give_up = self.give_up.clone();
        loop {
            // The game's requests only (streams stay closed).
            self.start_due(Instant::now());
            let Some(g) = &self.game else { return };
            if !g.jobs.running && g.jobs.queue.is_empty() {
                break;
            }
            let wake = g.jobs.not_before;
            tokio::select! {
                Some(msg) = internal.recv() => self.internal(msg).await,
                () = sleep_until(wake) => {}
                () = give_up.cancelled() => break,
            }
        }
        let Some(g) = &self.game else { return };
        match g.follower.unanswered() {
            Some((ply, uci)) => tracing::warn!(
                "Lichess: our move {uci} (ply {ply}) of game {} has no answer at the stop: after a restart it is sent if Lichess lacks it",
                g.id
            ),
            None => tracing::info!("Lichess: every move of game {} the board made has Lichess's answer", g.id),
        }
        let unsent = g.jobs.queue.len() + usize::from(g.jobs.running);
        if unsent > 0 {
            tracing::warn!("Lichess: {unsent} request(s) of game {} not answered at the stop", g.id);
        }
    }

    /// Spawns `work` on the actor's tracker, to end when `until` is cancelled.
    fn spawn_until(&self, until: CancellationToken, work: impl Future<Output = ()> + Send + 'static) {
        self.tasks.spawn(async move {
            tokio::select! {
                () = until.cancelled() => {}
                () = work => {}
            }
        });
    }

    /// A stream's task: it ends when the returned guard is dropped, or the
    /// daemon stops.
    fn spawn_stream(&self, work: impl Future<Output = ()> + Send + 'static) -> DropGuard {
        let token = self.stop.child_token();
        self.spawn_until(token.clone(), work);
        token.drop_guard()
    }

    /// Sends a request of the game; its outcome comes as
    /// [`Internal::GameJobDone`]. It runs until answered, even as the
    /// daemon stops, until [`Play::stop`] gives it up.
    fn send_game_job(&self, id: String, job: Job) {
        let client = self.client.clone();
        let tx = self.internal.clone();
        self.spawn_until(self.give_up.clone(), async move {
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

    async fn say(&self, update: Update) {
        // The owner reads its updates; if it stopped, so do we (the loop
        // ends when its commands close).
        let _ = self.updates.send(update).await;
    }

    async fn failed(&mut self, why: &str) {
        match self.link.failed(Instant::now(), why) {
            Some(link) => {
                tracing::warn!("Lichess: {why}; retrying");
                self.say(Update::Link(link)).await;
            }
            None => tracing::info!("Lichess: {why}; retrying"),
        }
    }

    /// Something the token was needed for worked: the link stands, and the
    /// token is taken.
    async fn worked(&mut self) {
        if let Some(link) = self.link.worked(Instant::now()) {
            tracing::info!("Lichess: connected again");
            self.say(Update::Link(link)).await;
        }
        if std::mem::take(&mut self.token.refused) {
            tracing::info!("Lichess takes the board's token again");
            self.token.for_good = false;
            self.say(Update::Token(TokenState::Accepted)).await;
        }
    }

    async fn error(&mut self, e: &Error) {
        if let Error::RateLimited(pause) = e {
            tracing::warn!("Lichess answered 429: no request for {} s", pause.as_secs());
            self.say(Update::RateLimited { for_s: pause.as_secs() }).await;
        } else if e.is_token() {
            self.token_refused(e).await;
        } else if e.is_transient() {
            self.failed(&e.to_string()).await;
        }
    }

    /// Lichess refused the token: said once, and its token check asked
    /// whether the refusal can pass. The network answered: the link stands.
    async fn token_refused(&mut self, e: &Error) {
        if let Some(link) = self.link.worked(Instant::now()) {
            self.say(Update::Link(link)).await;
        }
        if std::mem::replace(&mut self.token.refused, true) {
            return;
        }
        tracing::error!("Lichess refuses the board's token: {e}; the game is kept and tried again");
        self.say(Update::Token(TokenState::Refused { why: e.to_string() })).await;
        if !std::mem::replace(&mut self.token.checking, true) {
            let client = self.client.clone();
            let tx = self.internal.clone();
            self.spawn_until(self.stop.clone(), async move {
                let _ = tx.send(Internal::TokenChecked(client.token_check().await)).await;
            });
        }
    }

    async fn token_checked(&mut self, check: Result<Option<crate::api::TokenCheck>, Error>) {
        self.token.checking = false;
        let fault = match check {
            Ok(None) => Some(TokenFault::Unknown),
            Ok(Some(c)) if !c.has(BOARD_PLAY) => Some(TokenFault::LacksScope),
            Ok(Some(_)) => None,
            Err(e) => {
                tracing::info!("Lichess's token check did not answer: {e}");
                None
            }
        };
        if let Some(fault) = fault
            && self.token.refused
            && !std::mem::replace(&mut self.token.for_good, true)
        {
            tracing::error!(
                "Lichess refuses the board's token for good ({fault:?}): make a token with board:play, save it in the token file and restart tactus"
            );
            self.say(Update::Token(TokenState::ForGood(fault))).await;
        }
    }

    /// A game not played, said once per game and once per reason in
    /// [`SAID_AGAIN_AFTER`]; always logged.
    async fn not_played(&mut self, id: String, why: NotPlayed) {
        tracing::warn!("the Lichess game {id} is not played on the board: {why}");
        let now = Instant::now();
        let last = self.said_not_played.insert(why.kind(), now);
        if last.is_some_and(|t| now.duration_since(t) < SAID_AGAIN_AFTER) {
            return;
        }
        self.say(Update::NotPlayed { id, why }).await;
    }

    /// The earliest instant something is due.
    fn next_wake(&self) -> Option<Instant> {
        let mut due =
            [self.events.retry_at, self.challenge_jobs.not_before, self.link.due()].into_iter().flatten().min();
        if let Some(g) = &self.game {
            for t in [g.stream.retry_at, g.jobs.not_before].into_iter().flatten() {
                due = Some(due.map_or(t, |d| d.min(t)));
            }
        }
        due
    }

    /// Opens streams and starts requests that are due; once the daemon
    /// stops, the game's requests only.
    fn start_due(&mut self, now: Instant) {
        let stopping = self.stop.is_cancelled();
        if stopping {
            // Nothing is opened again: nothing to wake for.
            self.events.retry_at = None;
            if let Some(g) = &mut self.game {
                g.stream.retry_at = None;
            }
        }
        if !stopping && self.events.retry_at.is_some_and(|t| t <= now) {
            self.open_events(now);
        }
        let reopen = self.game.as_ref().is_some_and(|g| g.stream.retry_at.is_some_and(|t| t <= now));
        if !stopping && reopen {
            self.open_game_stream(now);
        }
        if let Some(g) = &mut self.game
            && let Some(job) = g.jobs.start(now)
        {
            let id = g.id.clone();
            self.send_game_job(id, job);
        }
        // A game that starts must find the event stream open (the seek's
        // reference says so): challenges and seeks wait for it.
        if stopping || !self.events_open {
            return;
        }
        if let Some(Seek::Wanted(spec)) = self.seek {
            let client = self.client.clone();
            let tx = self.internal.clone();
            self.seek = Some(Seek::Running {
                _task: self.spawn_stream(async move {
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
                }),
            });
        }
        if let Some(job) = self.challenge_jobs.start(now) {
            let client = self.client.clone();
            let tx = self.internal.clone();
            self.spawn_until(self.stop.clone(), async move {
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

    /// Opens the event stream — once who the token plays as is known: a
    /// game is checked against it.
    fn open_events(&mut self, now: Instant) {
        self.events.stop();
        self.events.generation += 1;
        self.events.retry_at = None;
        self.events.opened_at = now;
        let generation = self.events.generation;
        let client = self.client.clone();
        let tx = self.internal.clone();
        let known = self.me.is_some();
        let task = self.spawn_stream(async move {
            if !known {
                match client.account().await {
                    Ok(me) => {
                        if tx.send(Internal::Me { id: me.id.to_lowercase() }).await.is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Internal::AccountEnded { generation, end: Ended::Refused(e) }).await;
                        return;
                    }
                }
            }
            match client.event_stream().await {
                Ok(lines) => {
                    if tx.send(Internal::AccountOpened { generation }).await.is_err() {
                        return;
                    }
                    pump(
                        lines,
                        tx,
                        move |event| Internal::AccountLine { generation, event: Box::new(event) },
                        move |end| Internal::AccountEnded { generation, end },
                    )
                    .await
                }
                Err(e) => {
                    let _ = tx.send(Internal::AccountEnded { generation, end: Ended::Refused(e) }).await;
                }
            }
        });
        self.events.task = Some(task);
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
        let task = self.spawn_stream(async move {
            match client.game_stream(&id).await {
                Ok(lines) => {
                    pump(
                        lines,
                        tx,
                        move |event| Internal::GameLine { generation, event: Box::new(event) },
                        move |end| Internal::GameEnded { generation, end },
                    )
                    .await
                }
                Err(e) => {
                    let _ = tx.send(Internal::GameEnded { generation, end: Ended::Refused(e) }).await;
                }
            }
        });
        if let Some(g) = &mut self.game {
            g.stream.task = Some(task);
        }
    }

    async fn command(&mut self, command: Command) {
        match &command {
            Command::Game { id, what } => {
                let Some(g) = self.game.as_mut().filter(|g| &g.id == id) else {
                    let why = Failure::NoGame(id.clone());
                    self.say(Update::Failed { command, why }).await;
                    return;
                };
                if let GameCommand::Move { uci, offering_draw } = what {
                    if let Err(e) = g.follower.our_move(uci, *offering_draw) {
                        self.say(Update::Failed { command, why: e.into() }).await;
                        return;
                    }
                    self.follow().await;
                } else if g.jobs.queue.len() >= JOBS {
                    self.say(Update::Failed { command, why: Failure::Busy }).await;
                } else {
                    g.jobs.queue.push_back(Job { command, ply: None, attempts: 0 });
                }
            }
            Command::Accept { .. } | Command::Decline { .. } | Command::Challenge { .. } => {
                if self.challenge_jobs.queue.len() >= JOBS {
                    self.say(Update::Failed { command, why: Failure::Busy }).await;
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
            Internal::Me { id } => {
                tracing::info!("Lichess: the token plays as {id}");
                self.me = Some(id);
            }
            Internal::AccountOpened { generation } if generation == self.events.generation => {
                self.events_open = true;
                self.worked().await
            }
            Internal::AccountLine { generation, event } if generation == self.events.generation => {
                self.worked().await;
                self.account_event(*event).await;
            }
            Internal::AccountEnded { generation, end } if generation == self.events.generation => {
                self.events_open = false;
                let failure = self.events.ended(now, &end);
                self.stream_failed("the event stream", &end, failure).await;
            }
            Internal::GameLine { generation, event } => {
                let Some(g) = self.game.as_ref().filter(|g| g.stream.generation == generation) else { return };
                let fresh = g.follower.id().is_none();
                if fresh
                    && let GameEvent::GameFull(full) = &*event
                    && let Some(why) = self.unplayable(full)
                {
                    self.worked().await;
                    return self.refuse_game(why).await;
                }
                let g = self.game.as_mut().expect("checked above");
                let started = g.follower.id().is_some();
                let result = g.follower.server(*event);
                self.worked().await;
                if let Err(e) = result {
                    self.follow_error(e, started).await;
                }
                self.follow().await;
            }
            Internal::GameEnded { generation, end } => {
                let Some(g) = self.game.as_mut().filter(|g| g.stream.generation == generation) else { return };
                if g.follower.ending().is_some() {
                    return self.end_game();
                }
                let failure = g.stream.ended(now, &end);
                match end {
                    // Lichess does not know the game (404): nothing more to follow.
                    Ended::Refused(e) if !worth_again(&e) => {
                        let id = g.id.clone();
                        self.end_game();
                        self.not_played(id, NotPlayed::Gone(e.to_string())).await;
                    }
                    end => self.stream_failed("the game stream", &end, failure).await,
                }
            }
            Internal::GameJobDone { id, job, result } => self.game_job_done(id, job, result, now).await,
            Internal::ChallengeJobDone { job, result } => {
                self.challenge_jobs.done(result.as_ref().is_err_and(worth_again), now);
                match result {
                    Ok(()) => self.worked().await,
                    Err(e) => {
                        self.error(&e).await;
                        if let Some(job) = self.challenge_jobs.again(job, &e) {
                            self.say(Update::Failed { command: job.command, why: e.into() }).await;
                        }
                    }
                }
            }
            Internal::SeekEnded { why } => {
                self.seek = None;
                self.say(Update::SeekEnded { why }).await;
            }
            Internal::TokenChecked(check) => self.token_checked(check).await,
            // Lines of streams replaced since.
            Internal::AccountOpened { .. } | Internal::AccountLine { .. } | Internal::AccountEnded { .. } => {}
        }
    }

    /// A stream ended (`failure`: not after standing): a refusal of the
    /// token, a 429, or the link failing is said as such; an end after it
    /// stood, or a silence, only logged.
    async fn stream_failed(&mut self, what: &str, end: &Ended, failure: bool) {
        match end {
            Ended::Refused(e) if e.is_token() || matches!(e, Error::RateLimited(_)) => self.error(e).await,
            _ if failure => self.failed(&format!("{what}: {end}")).await,
            _ => tracing::info!("Lichess: {what}: {end}; opened again"),
        }
    }

    /// Why the board cannot play the game the first `gameFull` describes,
    /// if it cannot: another game's, an account that plays neither side (or
    /// not the side the game's start said).
    fn unplayable(&self, full: &GameFull) -> Option<NotPlayed> {
        let g = self.game.as_ref()?;
        if full.id != g.id {
            return Some(NotPlayed::OtherGame { id: full.id.chars().take(16).collect() });
        }
        let me = self.me.as_deref()?;
        let plays = |p: &crate::wire::Player| p.id.as_deref().is_some_and(|id| id.eq_ignore_ascii_case(me));
        let side = match (plays(&full.white), plays(&full.black)) {
            (true, _) => Color::White,
            (_, true) => Color::Black,
            _ => return Some(NotPlayed::NotAPlayer { account: me.to_string() }),
        };
        (side != g.follower.color()).then_some(NotPlayed::SidesDisagree)
    }

    /// The game followed cannot be played: said and logged, and not
    /// followed again.
    async fn refuse_game(&mut self, why: NotPlayed) {
        let Some(g) = self.game.take() else { return };
        if self.refused.len() >= OTHER_GAMES {
            self.refused.clear();
        }
        self.refused.insert(g.id.clone());
        self.not_played(g.id, why).await;
    }

    async fn game_job_done(&mut self, id: String, job: Job, result: Result<(), Error>, now: Instant) {
        let Some(g) = self.game.as_mut().filter(|g| g.id == id) else { return };
        g.jobs.done(result.as_ref().is_err_and(worth_again), now);
        // A move the server's list already showed (taken, or refused):
        // what became of its request is old news, said to no one.
        let stale = job.ply.is_some_and(|ply| g.follower.pending_ply() != Some(ply));
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
            Err(e) if stale => tracing::info!("Lichess: the answer to a move it has since shown: {e}"),
            Err(e) => {
                self.error(&e).await;
                // A move is the follower's to try again (by its rule).
                let g = self.game.as_mut().expect("checked above");
                if let Some(job) = job.ply.is_none().then(|| g.jobs.again(job, &e)).flatten() {
                    self.say(Update::Failed { command: job.command, why: e.into() }).await;
                }
            }
        }
        self.follow().await;
    }

    /// What the server sent cannot be followed: a game that cannot even
    /// start is refused; a move list gone wrong mid-game is logged once
    /// (the next line may mend it).
    async fn follow_error(&mut self, e: FollowError, started: bool) {
        let Some(g) = &mut self.game else { return };
        match e {
            FollowError::Variant(v) => self.refuse_game(NotPlayed::Variant(v)).await,
            FollowError::Fen(fen) => self.refuse_game(NotPlayed::Fen(fen)).await,
            FollowError::Moves { ply, uci } if !started => self.refuse_game(NotPlayed::IllegalMoves { ply, uci }).await,
            FollowError::Moves { .. } => {
                if !std::mem::replace(&mut g.said_error, true) {
                    tracing::warn!("Lichess game {}: {e}", g.id);
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

    /// Stops following the game. One the server has not ended is resumed
    /// with the moves the board has, if it starts again.
    fn end_game(&mut self) {
        let Some(mut g) = self.game.take() else { return };
        g.stream.stop();
        if g.follower.ending().is_none() && g.follower.id().is_some() {
            self.resume = Some(Resume { game_id: g.id, moves: g.follower.line() });
        }
    }

    async fn account_event(&mut self, event: AccountEvent) {
        match event {
            AccountEvent::GameStart { game } => self.game_start(game).await,
            AccountEvent::GameFinish { .. } | AccountEvent::Other => {}
            AccountEvent::Challenge { challenge } => {
                let incoming = challenge.direction != Some(Direction::Out);
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
                let why = challenge.decline_reason.unwrap_or(Declined::Unlisted);
                self.say(Update::ChallengeGone { id: challenge.id, declined: Some(why) }).await
            }
        }
    }

    async fn game_start(&mut self, info: GameInfo) {
        let id = info.game_id.clone();
        if self.game.as_ref().is_some_and(|g| g.id == id) || self.refused.contains(&id) {
            return; // the event stream, reopened, lists the current games again
        }
        let why = if self.game.is_some() {
            Some(NotPlayed::AnotherGame)
        } else if info.compat.and_then(|c| c.board) == Some(false) {
            Some(NotPlayed::NotBoardApi)
        } else if let Some(v) = info
            .variant
            .as_ref()
            .filter(|v| !matches!(v.key, VariantKey::Standard | VariantKey::Chess960 | VariantKey::FromPosition))
        {
            Some(NotPlayed::Variant(v.key.clone()))
        } else if info.color.is_none() {
            Some(NotPlayed::NoSide)
        } else {
            None
        };
        if let Some(why) = why {
            if self.other_games.len() >= OTHER_GAMES {
                self.other_games.clear();
            }
            if self.other_games.insert(id.clone()) {
                self.not_played(id, why).await;
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
