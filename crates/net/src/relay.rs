//! The relay: one hall's boards gathered from MQTT into one [`SharedHall`],
//! served like a daemon's (`/games.pgn` of every board, the page, the
//! arbiter's view), with the arbiter's controls sent back to each board.
//!
//! A relay started late rebuilds every game from the boards' retained
//! states, then follows their changes; the `(epoch, seq)` of each change
//! drops what a state already held (see [`Hall::change_numbered`]).
//!
//! It trusts nothing it cannot check. With the hall key, only sealed
//! messages count (see [`crate::auth`]); whatever their seal, runs and
//! change numbers are bounded and only go forward, a state is rebuilt from
//! its moves on the relay's own position (see [`crate::vet`]), and at most
//! [`RelayOptions::max_boards`] boards are followed. Without a hall key it
//! says so: it cannot tell the boards from strangers.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::{Filter, Publish};
use rumqttc::v5::{AsyncClient, ConnectionError, EventLoop, Request};
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{info, warn};

use crate::auth::{HallKey, Refusals, random_id, unchecked_body};
use crate::feed::{Applied, BoardFeed, Change, Hall};
use crate::mqtt::{Connection, HallLink, MqttError, Peer, describe, trim_pending};
use crate::sse::SharedHall;
use crate::vet;
use crate::wire::{Control, ControlSeal, Envelope, Leaf, Topic, check_name, control_payload, unix_ms};

/// How many boards a relay follows unless told otherwise.
pub const MAX_BOARDS: usize = 256;

/// The arbiter's controls kept for the broker while it is away; older ones
/// are dropped (an arbiter acts again on what the page shows).
const PENDING_CONTROLS: usize = 64;

/// What a relay may hold.
#[derive(Debug, Clone, Copy)]
pub struct RelayOptions {
    /// The most boards followed, the boards of the team matches included,
    /// so that a stranger inventing boards cannot grow the hall without
    /// bound. When the hall is full, a new board takes the place of the one
    /// heard from least lately, if that one has been quiet (a board that a
    /// team match lists keeps its place); else it is refused.
    pub max_boards: usize,
}

impl Default for RelayOptions {
    fn default() -> RelayOptions {
        RelayOptions { max_boards: MAX_BOARDS }
    }
}

/// What the relay has received, for logs and the benchmark.
#[derive(Debug, Default)]
pub struct RelayStats {
    /// Connections the broker took.
    pub connections: AtomicU64,
    /// Messages on the hall's topics.
    pub messages: AtomicU64,
    /// Changes and states that changed the hall.
    pub applied: AtomicU64,
    /// Changes and states the hall already held.
    pub stale: AtomicU64,
    /// Payloads that were not what their topic carries: logged and skipped.
    pub malformed: AtomicU64,
    /// Messages refused: without a valid seal, out of bounds, or from a
    /// board beyond the cap. Logged, at most one line per ten seconds.
    pub refused: Refusals,
    /// Boards that made room for another (see [`RelayOptions::max_boards`]).
    pub replaced: Refusals,
}

/// How long a relay that stops goes on sending the arbiter's last controls.
const CLOSE_WITHIN: Duration = Duration::from_secs(2);

/// A running relay. It stops when its owner's token is cancelled, on
/// [`Relay::shutdown`], or when dropped: it sends the controls it holds (for
/// at most 2 s, and not at all while the broker is away), says goodbye and
/// waits for the broker to close the connection; [`Relay::stopped`] waits
/// for all that.
pub struct Relay {
    /// The hall, to serve ([`crate::AppState::new`]).
    pub hall: SharedHall,
    /// The arbiter's controls, each sealed and published to its board's
    /// control topic; `None` without a hall key (control is off).
    pub controls: Option<mpsc::Sender<Control>>,
    pub stats: Arc<RelayStats>,
    /// The boards whose games changed, for what passes the hall on.
    pub changed: Arc<Changed>,
    stop: CancellationToken,
    tasks: TaskTracker,
}

impl Relay {
    /// Stops following the hall, and waits until the relay's tasks have ended.
    pub async fn shutdown(&self) {
        self.stop.cancel();
        self.stopped().await;
    }

    /// Waits until the relay has stopped (its owner's token cancelled, or
    /// [`Relay::shutdown`]) and its tasks have ended.
    pub async fn stopped(&self) {
        self.tasks.wait().await;
    }
}

impl Drop for Relay {
    /// The tasks stop the orderly way, unwaited.
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// The boards whose games changed since they were last taken, for what
/// passes the hall on (a Lichess broadcast): a set, so that a board that
/// changes often is one entry, and it never holds more than the hall.
#[derive(Debug, Default)]
pub struct Changed {
    boards: Mutex<BTreeSet<String>>,
    notify: Notify,
}

impl Changed {
    fn mark(&self, board: &str) {
        let mut boards = self.boards.lock().unwrap_or_else(PoisonError::into_inner);
        if !boards.contains(board) {
            boards.insert(board.to_string());
        }
        self.notify.notify_one();
    }

    /// Waits until a board's game changed, and takes every board changed
    /// since the last call. For one taker.
    pub async fn take(&self) -> BTreeSet<String> {
        loop {
            let boards = std::mem::take(&mut *self.boards.lock().unwrap_or_else(PoisonError::into_inner));
            if !boards.is_empty() {
                return boards;
            }
            self.notify.notified().await;
        }
    }
}

/// What a relay without a hall key says, in its log and on its page.
pub const UNTRUSTED: &str = "this relay has no hall key: it cannot tell the hall's boards from strangers on the \
     broker, so anyone who can publish there can change what it shows; the arbiter's actions over MQTT are off";

/// Starts relaying `hall` (its name, and its team matches) from the broker
/// until `stop` (needs a Tokio runtime). It connects in the background and
/// reconnects until it stops.
pub fn relay(link: &HallLink, hall: Hall, options: RelayOptions, stop: &CancellationToken) -> Result<Relay, MqttError> {
    let name = hall.name().to_string();
    check_name("hall", &name)?;
    // Several relays may follow one hall: each needs its own client id.
    let client_id = format!("tactus-relay-{name}-{:016x}", random_id());
    let (client, eventloop) = AsyncClient::new(link.options(client_id)?, 256);
    let listed = hall.matches().iter().flat_map(|m| m.boards().iter().cloned()).collect();
    let shared = SharedHall::new(hall.trusting(link.key.is_some()));
    let stats = Arc::new(RelayStats::default());
    let changed = Arc::new(Changed::default());
    if link.key.is_none() {
        warn!(hall = %name, "{UNTRUSTED}");
    }
    let connection = Connection::new(client, stop);
    let (stop, tasks) = (connection.stop.clone(), connection.tasks.clone());
    let follower = Follower {
        link: link.clone(),
        hall: name.clone(),
        shared: shared.clone(),
        stats: stats.clone(),
        changed: changed.clone(),
        options,
        places: Places::keeping(listed),
    };
    let (controls, sending) = match link.key.clone() {
        Some(key) => {
            let (tx, rx) = mpsc::channel(64);
            let sender = Sender { client: connection.client.clone(), hall: name, shared: shared.clone(), key };
            let task = tasks.spawn(sender.send(rx, stop.clone(), connection.over.clone()));
            (Some(tx), Some(task))
        }
        None => (None, None),
    };
    tasks.spawn(connection.drive(eventloop, follower, sending, || CLOSE_WITHIN));
    // Only its own tasks start more (subscriptions).
    tasks.close();
    Ok(Relay { hall: shared, controls, stats, changed, stop, tasks })
}

/// Sends the arbiter's controls to the boards.
struct Sender {
    client: AsyncClient,
    hall: String,
    shared: SharedHall,
    key: HallKey,
}

impl Sender {
    /// Seals each control for the run of the board it is for, numbered so
    /// that the board takes it once. Once stopped, it sends what it holds
    /// and ends; once the connection is `over`, at once.
    async fn send(self, mut rx: mpsc::Receiver<Control>, stop: CancellationToken, over: CancellationToken) {
        let from = random_id();
        let mut n = 0u64;
        loop {
            let control = tokio::select! {
                control = rx.recv() => control,
                () = stop.cancelled(), if !rx.is_closed() => {
                    // No more come in; those already here still go.
                    rx.close();
                    continue;
                }
            };
            let Some(c) = control else { return };
            // Microseconds of the wall clock, and never the same twice.
            n = (n + 1).max(unix_ms().saturating_mul(1000));
            let Some(epoch) = self.shared.read(|h| h.feed(&c.board).map(|f| f.epoch)).filter(|&e| e > 0) else {
                warn!(board = %c.board, "a control was not sent: the board has not been heard from on the broker");
                continue;
            };
            let topic = Topic::new(&self.hall, &c.board, Leaf::Control).to_string();
            let seal = ControlSeal { epoch, from, n };
            let payload = self.key.seal(&topic, &seal.params(), control_payload(c.input).as_bytes());
            match over.run_until_cancelled(self.client.publish(topic, QoS::AtLeastOnce, false, payload)).await {
                Some(Ok(())) => {}
                Some(Err(e)) => warn!(board = %c.board, "a control could not be published: {e}"),
                None => return,
            }
        }
    }
}

struct Follower {
    link: HallLink,
    hall: String,
    shared: SharedHall,
    stats: Arc<RelayStats>,
    changed: Arc<Changed>,
    options: RelayOptions,
    places: Places,
}

impl Peer for Follower {
    /// A clean session forgets subscriptions: renew them. Retained states
    /// come first, on subscribing.
    fn connected(&mut self) -> Vec<Filter> {
        info!(hall = %self.hall, "relay connected to the MQTT broker {}", self.link.broker);
        self.stats.connections.fetch_add(1, Ordering::Relaxed);
        [Leaf::State, Leaf::Events]
            .map(|leaf| Filter::new(Topic::every_board(&self.hall, leaf), QoS::AtLeastOnce))
            .to_vec()
    }

    fn received(&mut self, p: &Publish) {
        self.receive(p);
    }

    fn lost(&mut self, eventloop: &mut EventLoop, why: &ConnectionError, first: bool) {
        if first {
            warn!(hall = %self.hall, "{}; retrying", describe(why, &self.link));
        }
        let dropped = trim_pending(eventloop, PENDING_CONTROLS);
        let controls = dropped.iter().filter(|r| matches!(r, Request::Publish(_))).count();
        if controls > 0 {
            warn!(hall = %self.hall, "{controls} arbiter's controls were not sent: the broker was away too long");
        }
    }

    fn closed(&mut self, _away: bool) {}
}

impl Follower {
    fn refuse(&self, board: &str, leaf: Leaf, why: impl std::fmt::Display) {
        self.stats.refused.warn(|| format!("hall {}: board {board:?}: {leaf} refused: {why}", self.hall));
    }

    fn malformed(&self, topic: &str, why: impl std::fmt::Display) {
        self.stats.malformed.fetch_add(1, Ordering::Relaxed);
        warn!(topic = %topic, "a malformed message was skipped: {why}");
    }

    /// Applies one message; one that is malformed or cannot be trusted is
    /// logged and counted, never fatal.
    fn receive(&mut self, p: &Publish) {
        self.stats.messages.fetch_add(1, Ordering::Relaxed);
        let Ok(topic) = std::str::from_utf8(&p.topic) else {
            return self.malformed(&String::from_utf8_lossy(&p.topic), "a topic that is not UTF-8");
        };
        let (board, leaf) = match Topic::parse(topic) {
            Err(why) => return self.malformed(topic, why),
            Ok(Some(t)) if t.hall == self.hall && t.leaf != Leaf::Control => (t.board, t.leaf),
            // Not subscribed: nothing else is for the relay.
            Ok(_) => return,
        };
        if leaf == Leaf::State && p.payload.is_empty() {
            // A retained state cleared: nothing to apply.
            return;
        }
        if check_name("board", board).is_err() {
            return self.refuse(board, leaf, "a board name must be plain (letters, digits, '-', '_')");
        }
        let body = match &self.link.key {
            Some(key) => match key.open(topic, &p.payload) {
                Ok(opened) => opened.body,
                Err(e) => return self.refuse(board, leaf, e),
            },
            None => unchecked_body(&p.payload),
        };
        let Some(vetted) = self.vet(topic, board, leaf, body) else { return };
        // A run of the board's before the one the hall follows: its game is
        // over for the hall (a board restarted, or a stranger playing back
        // what went by). Refused, and said, rather than counted as stale.
        let (run, following) = (vetted.epoch(), self.shared.read(|h| h.feed(board).map(|f| f.epoch)));
        if let Some(following) = following
            && run < following
        {
            return self.refuse(board, leaf, format!("of run {run}, before the board's run {following}: replayed?"));
        }
        let now = Instant::now();
        if let Err(why) = self.make_room(board, now) {
            return self.refuse(board, leaf, why);
        }
        let applied = match vetted {
            Vetted::State(feed) => self.shared.replace(*feed),
            Vetted::Change { epoch, seq, change } => self.shared.change_numbered(board, epoch, seq, &change),
        };
        self.places.heard(board, now);
        let counter = if applied == Applied::Stale {
            &self.stats.stale
        } else {
            self.changed.mark(board);
            &self.stats.applied
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// A message's state or change, checked; `None` (logged and counted)
    /// when it is malformed or out of bounds.
    fn vet(&self, topic: &str, board: &str, leaf: Leaf, body: &[u8]) -> Option<Vetted> {
        if leaf == Leaf::State {
            let claimed = match serde_json::from_slice::<BoardFeed>(body) {
                Ok(feed) => feed,
                Err(e) => {
                    self.malformed(topic, e);
                    return None;
                }
            };
            if let Err(e) = vet::numbers(claimed.epoch, claimed.seq, unix_ms()) {
                self.refuse(board, leaf, e);
                return None;
            }
            match vet::state(board, claimed) {
                Ok(feed) => Some(Vetted::State(Box::new(feed))),
                Err(e) => {
                    self.refuse(board, leaf, e);
                    None
                }
            }
        } else {
            let e = match serde_json::from_slice::<Envelope<Change>>(body) {
                Ok(e) => e,
                Err(e) => {
                    self.malformed(topic, e);
                    return None;
                }
            };
            if let Err(why) = vet::numbers(e.epoch, e.seq, unix_ms()) {
                self.refuse(board, leaf, why);
                return None;
            }
            let chess960 = self.shared.read(|h| h.feed(board).is_some_and(|f| f.chess960));
            match vet::change(e.change, chess960) {
                Ok(change) => Some(Vetted::Change { epoch: e.epoch, seq: e.seq, change: Box::new(change) }),
                Err(why) => {
                    self.refuse(board, leaf, why);
                    None
                }
            }
        }
    }

    /// A place for `board` in the hall: it has one, or there is one free,
    /// or the board with the least traffic makes room (see [`Places`]).
    fn make_room(&mut self, board: &str, now: Instant) -> Result<(), HallFull> {
        let max = self.options.max_boards;
        let (known, count) = self.shared.read(|h| (h.feed(board).is_some(), h.len()));
        if known || count < max {
            return Ok(());
        }
        // With the hall key every board proved it is the hall's: none is
        // invented, and the cap is the operator's to keep.
        let replaceable = if self.link.key.is_some() { None } else { self.places.replaceable(now) };
        let Some(quiet) = replaceable else {
            return Err(HallFull { max });
        };
        let quiet = quiet.to_string();
        self.shared.remove(&quiet);
        self.places.forget(&quiet);
        self.stats.replaced.warn(|| {
            format!("hall {}: board {quiet:?}, heard from least lately, made room for board {board:?}", self.hall)
        });
        Ok(())
    }
}

/// A new board past the cap with no place to take.
#[derive(Debug, thiserror::Error)]
#[error("this relay follows at most {max} boards (--max-boards), and all of them have been heard from lately")]
struct HallFull {
    max: usize,
}

/// A message that passed the checks.
enum Vetted {
    State(Box<BoardFeed>),
    Change { epoch: u64, seq: u64, change: Box<Change> },
}

impl Vetted {
    /// The board's run it is of.
    fn epoch(&self) -> u64 {
        match self {
            Vetted::State(feed) => feed.epoch,
            Vetted::Change { epoch, .. } => *epoch,
        }
    }
}

/// How long a board's traffic takes to count half as much.
const TRAFFIC_HALF_LIFE: Duration = Duration::from_secs(600);

/// How much a board has been heard from lately: each message that passed
/// the checks counts one, halving every [`TRAFFIC_HALF_LIFE`].
#[derive(Debug, Clone, Copy)]
struct Traffic {
    level: f64,
    at: Instant,
}

impl Traffic {
    fn now(&self, now: Instant) -> f64 {
        let halvings = now.saturating_duration_since(self.at).as_secs_f64() / TRAFFIC_HALF_LIFE.as_secs_f64();
        self.level * 0.5f64.powf(halvings)
    }
}

/// The places of a full hall go to the boards heard from most lately, so
/// that boards invented once (or a finished game long quiet) cannot keep a
/// real board out: a board heard from for the first time takes the place
/// of the board with the least traffic, if that is less than its own one
/// message now. A board that a team match lists keeps its place. A stranger
/// who keeps inventing boards only displaces them, and the boards that play
/// stay; only the hall key keeps strangers out altogether — and with it no
/// board is invented, so a full hall refuses a newcomer instead.
#[derive(Debug, Default)]
struct Places {
    /// The boards of the hall that were heard from (at most `max_boards`).
    traffic: HashMap<String, Traffic>,
    /// The boards that keep their place: the team matches'.
    listed: HashSet<String>,
}

impl Places {
    fn keeping(listed: HashSet<String>) -> Places {
        Places { traffic: HashMap::new(), listed }
    }

    fn heard(&mut self, board: &str, now: Instant) {
        match self.traffic.get_mut(board) {
            Some(t) => *t = Traffic { level: t.now(now) + 1.0, at: now },
            None => {
                self.traffic.insert(board.to_string(), Traffic { level: 1.0, at: now });
            }
        }
    }

    /// The board that a board heard from now for the first time may
    /// replace: the one with the least traffic, if less than one message
    /// now; never a listed one.
    fn replaceable(&self, now: Instant) -> Option<&str> {
        self.traffic
            .iter()
            .map(|(id, t)| (id, t.now(now)))
            .filter(|(id, level)| *level < 1.0 && !self.listed.contains(*id))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(id, _)| id.as_str())
    }

    fn forget(&mut self, board: &str) {
        self.traffic.remove(board);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_heard_from_least_makes_room_but_not_for_nothing() {
        let start = Instant::now();
        let mut places = Places::keeping(["match-1".to_string()].into());
        places.heard("invented", start);
        places.heard("match-1", start);
        for i in 0..10 {
            places.heard("playing", start + Duration::from_secs(i * 30));
        }
        let later = start + Duration::from_secs(300);
        assert_eq!(places.replaceable(later), Some("invented"), "not match-1: a listed board stays");
        // Heard from this instant, once: it does not make room for another heard once.
        places.forget("invented");
        places.heard("new", later);
        assert_eq!(places.replaceable(later), None);
        // A game long over counts for less and less.
        let hours = later + Duration::from_secs(4 * 3600);
        places.heard("new", hours);
        assert_eq!(places.replaceable(hours), Some("playing"));
    }
}
