//! A hall's games pushed to Lichess broadcast rounds (`POST
//! /api/broadcast/round/{id}/push`, scope `study:write`).
//!
//! A round holds at most 100 games (the push endpoint's reference: "up to
//! 100 games"), so a larger hall maps board ranges to several rounds
//! (`ROUND=1-100`). Each round is pushed at most once per
//! [`PushOptions::min_interval`] (Lichess's own handler takes a round's
//! pushes a second apart), within that interval of a change, and only the
//! games that changed; now and then ([`PushOptions::whole_every`]), and
//! after any failure, the round's every game, so that a push lost heals.
//! Lichess matches pushed games to a round's games by their tags (event,
//! round, board, players), not by their place in the push, so a push of
//! some games leaves the others as they are.
//!
//! The reply lists the games in the order pushed: each one's error is the
//! board's ([`PushStatus::errors`]). A 429 stops every request for a
//! minute (the [`Client`] does that); other failures are tried again with
//! back-off. The owner hands games over with [`Pusher::set_game`], which
//! never waits: the newest PGN of each board wins.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::http::{Client, Error};
use crate::retry::{Backoff, LinkWatch};
use crate::wire::PushReply;

/// The most games a round takes.
pub const ROUND_GAMES: u32 = 100;
/// The largest PGN of one game taken (a long game with clocks and rulings
/// is some tens of kilobytes).
pub const MAX_GAME_PGN: usize = 256 * 1024;

/// A round and the boards it shows: `ID` (boards 1-100) or `ID=FIRST-LAST`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundSpec {
    pub id: String,
    pub boards: RangeInclusive<u32>,
}

/// Rounds that cannot be pushed to, as given (`--lichess-broadcast`,
/// `[lichess] broadcast`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoundsError {
    #[error("{0:?}: a Lichess round id is 8 letters and digits (the end of the round's URL)")]
    NotAnId(String),
    #[error("{spec:?}: the boards are FIRST-LAST, such as {id}=101-200")]
    NotBoards { spec: String, id: String },
    #[error("{0:?}: a round holds at most {ROUND_GAMES} games")]
    TooManyBoards(String),
    #[error("no broadcast round to push to")]
    NoRound,
    #[error("the round {0} is given twice")]
    Twice(String),
    #[error("the rounds {0} and {1} share boards")]
    SharedBoards(RoundSpec, RoundSpec),
}

impl FromStr for RoundSpec {
    type Err = RoundsError;

    fn from_str(s: &str) -> Result<RoundSpec, RoundsError> {
        let (id, range) = match s.split_once('=') {
            Some((id, range)) => (id, Some(range)),
            None => (s, None),
        };
        // Round ids are 8 letters and digits (the push endpoint's reference).
        if id.len() != 8 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(RoundsError::NotAnId(s.to_owned()));
        }
        let boards = match range {
            None => 1..=ROUND_GAMES,
            Some(range) => {
                let bad = || RoundsError::NotBoards { spec: s.to_owned(), id: id.to_owned() };
                let (a, b) = range.split_once('-').ok_or_else(bad)?;
                let (a, b): (u32, u32) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
                if a == 0 || b < a {
                    return Err(bad());
                }
                if b - a >= ROUND_GAMES {
                    return Err(RoundsError::TooManyBoards(s.to_owned()));
                }
                a..=b
            }
        };
        Ok(RoundSpec { id: id.to_string(), boards })
    }
}

impl fmt::Display for RoundSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}-{}", self.id, self.boards.start(), self.boards.end())
    }
}

/// How the pusher behaves.
#[derive(Debug, Clone)]
pub struct PushOptions {
    pub rounds: Vec<RoundSpec>,
    /// Between two pushes to a round; default 1 s.
    pub min_interval: Duration,
    /// A round's every game at least this often; default 60 s.
    pub whole_every: Duration,
}

impl PushOptions {
    pub fn new(rounds: Vec<RoundSpec>) -> Result<PushOptions, RoundsError> {
        if rounds.is_empty() {
            return Err(RoundsError::NoRound);
        }
        for (i, a) in rounds.iter().enumerate() {
            for b in &rounds[i + 1..] {
                if a.id == b.id {
                    return Err(RoundsError::Twice(a.id.clone()));
                }
                if a.boards.start() <= b.boards.end() && b.boards.start() <= a.boards.end() {
                    return Err(RoundsError::SharedBoards(a.clone(), b.clone()));
                }
            }
        }
        Ok(PushOptions { rounds, min_interval: Duration::from_secs(1), whole_every: Duration::from_secs(60) })
    }
}

/// A board no round shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("board {0} is in no broadcast round (--lichess-broadcast ROUND=FIRST-LAST maps boards to rounds)")]
    Unmapped(u32),
    #[error("board {board}'s PGN is {len} bytes: more than the {MAX_GAME_PGN} pushed")]
    TooLarge { board: u32, len: usize },
}

#[derive(Debug, Clone)]
struct Slot {
    pgn: Arc<str>,
    version: u64,
    /// The version Lichess read last, without an error.
    pushed: u64,
}

#[derive(Debug)]
struct Round {
    spec: RoundSpec,
    games: BTreeMap<u32, Slot>,
    last_push: Option<Instant>,
    last_whole: Option<Instant>,
    /// Every game goes in the next push (after a failure, or a reply that
    /// did not match the push).
    whole_due: bool,
}

/// One push: the round, the boards in the order of the body, and the body.
#[derive(Debug, Clone)]
pub struct Push {
    pub round: usize,
    pub round_id: String,
    pub boards: Vec<(u32, u64)>,
    pub body: String,
    pub whole: bool,
}

/// What to do next.
#[derive(Debug)]
pub enum Next {
    Push(Push),
    /// Nothing before this instant.
    At(Instant),
    /// Nothing until a game changes.
    Idle,
}

/// The pure part: which games go in which push, and when.
#[derive(Debug)]
pub struct Plan {
    rounds: Vec<Round>,
    min_interval: Duration,
    whole_every: Duration,
    /// After a failure, nothing before this.
    retry_at: Option<Instant>,
    backoff: Backoff,
    /// Each board's error in Lichess's last reply.
    errors: BTreeMap<u32, String>,
}

impl Plan {
    pub fn new(options: &PushOptions) -> Plan {
        Plan {
            rounds: options
                .rounds
                .iter()
                .map(|spec| Round {
                    spec: spec.clone(),
                    games: BTreeMap::new(),
                    last_push: None,
                    last_whole: None,
                    whole_due: true,
                })
                .collect(),
            min_interval: options.min_interval,
            whole_every: options.whole_every,
            retry_at: None,
            backoff: Backoff::default(),
            errors: BTreeMap::new(),
        }
    }

    fn round_of(&self, board: u32) -> Option<usize> {
        self.rounds.iter().position(|r| r.spec.boards.contains(&board))
    }

    /// A board's game as it is now.
    pub fn set(&mut self, board: u32, pgn: Arc<str>) -> Result<(), GameError> {
        let r = self.round_of(board).ok_or(GameError::Unmapped(board))?;
        if pgn.len() > MAX_GAME_PGN {
            return Err(GameError::TooLarge { board, len: pgn.len() });
        }
        let games = &mut self.rounds[r].games;
        match games.get_mut(&board) {
            Some(slot) if *slot.pgn == *pgn => {}
            Some(slot) => {
                slot.pgn = pgn;
                slot.version += 1;
            }
            None => {
                games.insert(board, Slot { pgn, version: 1, pushed: 0 });
            }
        }
        Ok(())
    }

    pub fn errors(&self) -> &BTreeMap<u32, String> {
        &self.errors
    }

    fn wants(&self, r: &Round, now: Instant) -> bool {
        let dirty = r.games.values().any(|s| s.pushed != s.version);
        let whole_late = r.last_whole.is_none_or(|t| now.duration_since(t) >= self.whole_every);
        !r.games.is_empty() && (dirty || r.whole_due || whole_late)
    }

    /// When a round is next due: at once when a game changed, its whole
    /// re-push is late or a failure wants it whole (but not within the
    /// interval of its last push, nor in a failure's back-off); else when
    /// its whole re-push falls due.
    fn due(&self, r: &Round, now: Instant) -> Instant {
        let earliest = r.last_push.map_or(now, |t| t + self.min_interval);
        let at = if self.wants(r, now) {
            earliest
        } else {
            r.last_whole.map_or(now, |t| t + self.whole_every).max(earliest)
        };
        at.max(self.retry_at.unwrap_or(at))
    }

    /// The next push, or when to look again. Of the rounds due, the one
    /// pushed least lately goes first.
    pub fn next(&self, now: Instant) -> Next {
        let due: Vec<(usize, Instant)> = self
            .rounds
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.games.is_empty())
            .map(|(i, r)| (i, self.due(r, now)))
            .collect();
        let Some(i) = due.iter().filter(|(_, t)| *t <= now).map(|&(i, _)| i).min_by_key(|&i| self.rounds[i].last_push)
        else {
            return due.iter().map(|&(_, t)| t).min().map_or(Next::Idle, Next::At);
        };
        let r = &self.rounds[i];
        let whole = r.whole_due || r.last_whole.is_none_or(|t| now.duration_since(t) >= self.whole_every);
        let mut boards = Vec::new();
        let mut body = String::new();
        for (&board, slot) in &r.games {
            if whole || slot.pushed != slot.version {
                boards.push((board, slot.version));
                // Games are separated by a blank line (the push endpoint's reference).
                body.push_str(slot.pgn.trim_end());
                body.push_str("\n\n");
            }
        }
        Next::Push(Push { round: i, round_id: r.spec.id.clone(), boards, body, whole })
    }

    /// What became of a push. The reply's games are the pushed ones, in order.
    pub fn done(&mut self, push: &Push, result: &Result<PushReply, Error>, now: Instant) {
        let r = &mut self.rounds[push.round];
        r.last_push = Some(now);
        match result {
            Ok(reply) => {
                self.retry_at = None;
                self.backoff.reset();
                if push.whole {
                    r.last_whole = Some(now);
                }
                r.whole_due = reply.games.len() != push.boards.len();
                if r.whole_due {
                    tracing::warn!(
                        "Lichess read {} games of the {} pushed to round {}: all of them go again",
                        reply.games.len(),
                        push.boards.len(),
                        r.spec.id
                    );
                }
                for (&(board, _), game) in push.boards.iter().zip(&reply.games) {
                    match &game.error {
                        Some(error) => {
                            let error: String = error.chars().filter(|c| !c.is_control()).take(300).collect();
                            if self.errors.get(&board) != Some(&error) {
                                tracing::warn!("Lichess refused board {board} of round {}: {error}", r.spec.id);
                            }
                            self.errors.insert(board, error);
                        }
                        None => {
                            self.errors.remove(&board);
                        }
                    }
                }
                // A game Lichess refused is not pushed again until it
                // changes or the round goes whole.
                for &(board, version) in &push.boards {
                    if let Some(slot) = r.games.get_mut(&board) {
                        slot.pushed = slot.pushed.max(version);
                    }
                }
            }
            Err(e) => {
                r.whole_due = true;
                // A 429 holds every request already (the client's pause).
                if !matches!(e, Error::RateLimited(_)) {
                    self.retry_at = Some(now + self.backoff.next_wait());
                }
            }
        }
    }
}

/// What the pusher has done, for the arbiter's page and the logs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushStatus {
    /// Why pushing fails now, while it does.
    pub failing: Option<String>,
    /// Until when Lichess asked for no request (a 429).
    pub paused_until: Option<Instant>,
    pub pushes: u64,
    pub bytes: u64,
    pub last_ok: Option<Instant>,
    /// Each board's error in Lichess's last reply about it.
    pub errors: BTreeMap<u32, String>,
}

/// The games handed over since the pusher last looked: the newest of each board.
#[derive(Default)]
struct Inbox {
    games: HashMap<u32, Arc<str>>,
}

/// The running pusher. It stops when its owner's token is cancelled, or
/// when it is dropped: a push under way is cut off (what it held is
/// pushed whole by the next run's first push of the round).
pub struct Pusher {
    rounds: Vec<RoundSpec>,
    inbox: Arc<Mutex<Inbox>>,
    wake: Arc<Notify>,
    status: watch::Receiver<PushStatus>,
    /// A child of the owner's token.
    stop: CancellationToken,
}

impl Pusher {
    /// Starts pushing (needs a Tokio runtime), on the owner's `tasks`,
    /// until `stop` is cancelled.
    pub fn start(client: Client, options: PushOptions, tasks: &TaskTracker, stop: &CancellationToken) -> Pusher {
        let inbox = Arc::new(Mutex::new(Inbox::default()));
        let wake = Arc::new(Notify::new());
        let (status_tx, status) = watch::channel(PushStatus::default());
        let rounds = options.rounds.clone();
        let stop = stop.child_token();
        let pushing = run(client, Plan::new(&options), inbox.clone(), wake.clone(), status_tx);
        tasks.spawn(stop.clone().run_until_cancelled_owned(pushing));
        Pusher { rounds, inbox, wake, status, stop }
    }

    /// Hands over a board's game (its whole PGN). Never waits; the newest
    /// PGN of a board replaces one not pushed yet.
    pub fn set_game(&self, board: u32, pgn: impl Into<Arc<str>>) -> Result<(), GameError> {
        if !self.rounds.iter().any(|r| r.boards.contains(&board)) {
            return Err(GameError::Unmapped(board));
        }
        let pgn = pgn.into();
        if pgn.len() > MAX_GAME_PGN {
            return Err(GameError::TooLarge { board, len: pgn.len() });
        }
        self.inbox.lock().unwrap_or_else(PoisonError::into_inner).games.insert(board, pgn);
        self.wake.notify_one();
        Ok(())
    }

    /// The rounds pushed to.
    pub fn rounds(&self) -> &[RoundSpec] {
        &self.rounds
    }

    /// The pusher's state, updated after every push.
    pub fn status(&self) -> watch::Receiver<PushStatus> {
        self.status.clone()
    }
}

impl Drop for Pusher {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn run(
    client: Client,
    mut plan: Plan,
    inbox: Arc<Mutex<Inbox>>,
    wake: Arc<Notify>,
    status: watch::Sender<PushStatus>,
) {
    let mut link = LinkWatch::default();
    loop {
        // A push made now would wait out a 429's pause in the client, and
        // go with the games as they were: it is made when the pause ends.
        if let Some(until) = client.paused_until() {
            tokio::time::sleep_until(until.into()).await;
            continue;
        }
        let games = std::mem::take(&mut inbox.lock().unwrap_or_else(PoisonError::into_inner).games);
        for (board, pgn) in games {
            // Checked when handed over: the plan maps the same boards.
            let _ = plan.set(board, pgn);
        }
        let push = match plan.next(Instant::now()) {
            Next::Push(push) => push,
            Next::At(t) => {
                tokio::select! {
                    () = tokio::time::sleep_until(t.into()) => {}
                    () = wake.notified() => {}
                }
                continue;
            }
            Next::Idle => {
                wake.notified().await;
                continue;
            }
        };
        let bytes = push.body.len() as u64;
        let result = client.push_pgn(&push.round_id, push.body.clone()).await;
        let now = Instant::now();
        plan.done(&push, &result, now);
        match &result {
            Ok(_) => {
                if link.worked().is_some() {
                    tracing::info!("Lichess broadcast: pushing again");
                }
            }
            Err(e) => {
                if link.failed(e).is_some() {
                    tracing::warn!("Lichess broadcast: the push to round {} failed: {e}; retrying", push.round_id);
                }
            }
        }
        status.send_modify(|s| {
            s.pushes += 1;
            s.bytes += bytes;
            s.paused_until = client.paused_until();
            s.failing = result.as_ref().err().map(ToString::to_string);
            if result.is_ok() {
                s.last_ok = Some(now);
            }
            s.errors.clone_from(plan.errors());
        });
    }
}

#[cfg(test)]
mod tests;
