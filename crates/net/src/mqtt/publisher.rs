//! A board's publisher: its changes on `events`, its feed retained on
//! `state`, the arbiter's controls taken from `control`, the round's
//! pairing taken from `pairing`, and its own state topic watched and put
//! back when anyone else writes there.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::{Filter, Publish};
use rumqttc::v5::{AsyncClient, ConnectionError, EventLoop, Request};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tactus_core::Event;
use tactus_trace::{Input, Ms, Pairing, PairingError};
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{error, info, warn};

use super::{Connection, HallLink, LinkState, MqttError, Peer, describe, trim_pending};
use crate::auth::{Counters, Refusals, Unsealed, unchecked_body};
use crate::feed::{BoardFeed, Change, Spoken, Tags, Told};
use crate::wire::{
    Control, ControlSeal, Envelope, Leaf, NotAControl, NotAnAction, Topic, check_arbiter_input, check_name,
    parse_control, unix_ms,
};

/// Changes waiting for the broker; past this the oldest passing ones
/// (touches, announced moves) make room, so the daemon never waits.
pub const QUEUE_CAPACITY: usize = 1024;

/// Requests the MQTT client holds for its connection, beyond the board's queue.
const CLIENT_QUEUE: usize = 64;

/// Messages a board keeps for the broker across a lost connection.
const UNSENT_KEPT: usize = 256;

/// States published and not yet heard back that a board remembers.
const UNECHOED_KEPT: usize = 256;

/// A board puts its state back at most this often when others overwrite it.
const HEAL_INTERVAL: Duration = Duration::from_secs(1);

/// Pairings taken and not yet read by the daemon; more wait for the
/// relay's next sending (it sends until the board shows the pairing).
const PAIRINGS_WAITING: usize = 4;

/// A round's pairing a relay sent this board, sealed with the hall key for
/// this run of the board: who sent it (`from`, the sender's run) and its
/// number (`n`, the sender's wall clock in µs, only growing), for the board
/// to tell a newer pairing from a replayed one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentPairing {
    pub from: u64,
    pub n: u64,
    pub pairing: Pairing,
}

/// How long a board stopped by its owner's token (rather than by
/// [`BoardPublisher::shutdown`]) goes on handing the broker what it holds.
const CLOSE_WITHIN: Duration = Duration::from_secs(2);

/// A new run's number: the Unix ms of its start, and always more than the
/// last run started in this process (two may start within a millisecond).
fn next_epoch() -> u64 {
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = unix_ms();
    let previous = LAST.fetch_max(now, Ordering::SeqCst);
    if previous < now { now } else { LAST.fetch_add(1, Ordering::SeqCst) + 1 }
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

struct Queued {
    essential: bool,
    payload: Vec<u8>,
}

struct Outbox {
    link: LinkState,
    feed: BoardFeed,
    queue: VecDeque<Queued>,
    /// The retained state is behind the feed.
    state_due: bool,
    /// The feed's `seq` as last handed to the client.
    sent_seq: u64,
    /// The states published and not yet heard back, oldest first: the
    /// broker passes them back in order.
    unechoed: VecDeque<[u8; 32]>,
    /// When the state was last put back after someone else wrote there.
    healed_at: Option<Instant>,
}

impl Outbox {
    /// Everything so far is in the client's hands.
    fn handed(&self) -> bool {
        self.queue.is_empty() && !self.state_due && self.sent_seq == self.feed.seq
    }
}

struct Shared {
    outbox: Mutex<Outbox>,
    /// Something was queued, or a state is due.
    wake: Notify,
    /// The link changed, or more was handed to the client.
    progress: Notify,
    /// How long the board goes on once stopped (ms).
    close_within: AtomicU64,
    dropped: AtomicU64,
    malformed: AtomicU64,
    refused: Refusals,
    counters: Mutex<Counters>,
    /// A later run of this board's name writes its state: a second daemon
    /// started by mistake. This one no longer puts its state back (a relay
    /// follows the later run anyway), so the two never fight over it.
    yielded: AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Outbox> {
        self.outbox.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn set_link(&self, link: LinkState) {
        self.lock().link = link;
        self.progress.notify_waiters();
    }
}

/// A board's link to the hall's broker: publishes its changes and retained
/// state, and passes the arbiter's controls from the relay to the daemon.
/// Its methods never block: a bounded queue sits between them and the broker.
///
/// It stops when its owner's token is cancelled, or on [`shutdown`], or
/// when dropped: it hands the broker what it holds (for at most 2 s, or the
/// time [`close_within`] or [`shutdown`] gives, and not at all while the
/// broker is away), says goodbye, and waits for the broker to close the
/// connection.
/// [`stopped`] waits for all that.
///
/// [`shutdown`]: BoardPublisher::shutdown
/// [`close_within`]: BoardPublisher::close_within
/// [`stopped`]: BoardPublisher::stopped
pub struct BoardPublisher {
    shared: Arc<Shared>,
    /// The round's pairings taken, until the daemon takes the receiver.
    pairings: Mutex<Option<mpsc::Receiver<SentPairing>>>,
    stop: CancellationToken,
    tasks: TaskTracker,
}

impl BoardPublisher {
    /// Starts publishing board `board` of hall `hall` (needs a Tokio runtime)
    /// until `stop`. With `controls` and a hall key, the board also takes the
    /// arbiter's controls from its control topic; without a hall key control
    /// over MQTT is off (anyone on the broker could send them). It connects
    /// in the background and reconnects until it stops.
    pub fn start(
        link: &HallLink,
        hall: &str,
        board: &str,
        controls: Option<mpsc::Sender<Control>>,
        stop: &CancellationToken,
    ) -> Result<BoardPublisher, MqttError> {
        check_name("hall", hall)?;
        check_name("board", board)?;
        let epoch = next_epoch();
        // The run's own client id: a second daemon by this board's name
        // does not knock this one off the broker (nor this one it).
        let (client, eventloop) =
            AsyncClient::new(link.options(format!("tactus-{hall}-{board}-{epoch:x}"))?, CLIENT_QUEUE);
        let controls = match (controls, &link.key) {
            (Some(tx), Some(_)) => Some(tx),
            (Some(_), None) => {
                warn!(board, "MQTT control is off: without a hall key, a control cannot be told from a stranger's");
                None
            }
            (None, _) => None,
        };
        if link.key.is_none() {
            warn!(board, "no hall key: what this board publishes is not sealed, and a relay with one will refuse it");
        }
        // Pairings, as controls, only with the hall key.
        let (pairings_tx, pairings) = match &controls {
            Some(_) => {
                let (tx, rx) = mpsc::channel(PAIRINGS_WAITING);
                (Some(tx), Some(rx))
            }
            None => (None, None),
        };
        let shared = Arc::new(Shared {
            outbox: Mutex::new(Outbox {
                link: LinkState::Connecting,
                feed: BoardFeed { epoch, ..BoardFeed::new(board) },
                queue: VecDeque::new(),
                state_due: true,
                sent_seq: 0,
                unechoed: VecDeque::new(),
                healed_at: None,
            }),
            wake: Notify::new(),
            progress: Notify::new(),
            close_within: AtomicU64::new(CLOSE_WITHIN.as_millis() as u64),
            dropped: AtomicU64::new(0),
            malformed: AtomicU64::new(0),
            refused: Refusals::default(),
            counters: Mutex::new(Counters::default()),
            yielded: AtomicBool::new(false),
        });
        let connection = Connection::new(client, stop);
        let (stop, tasks) = (connection.stop.clone(), connection.tasks.clone());
        let link = Link {
            shared: shared.clone(),
            client: connection.client.clone(),
            stop: connection.stop.clone(),
            over: connection.over.clone(),
            tasks: tasks.clone(),
            hall_link: link.clone(),
            board: board.to_string(),
            events: Topic::new(hall, board, Leaf::Events).to_string(),
            state: Topic::new(hall, board, Leaf::State).to_string(),
            control: Topic::new(hall, board, Leaf::Control).to_string(),
            pairing: Topic::new(hall, board, Leaf::Pairing).to_string(),
            controls,
            pairings: pairings_tx,
        };
        let publishing = tasks.spawn(link.clone().publish());
        let within = {
            let shared = shared.clone();
            move || Duration::from_millis(shared.close_within.load(Ordering::Relaxed))
        };
        tasks.spawn(connection.drive(eventloop, link, Some(publishing), within));
        // Only its own tasks start more (subscriptions, put-backs).
        tasks.close();
        Ok(BoardPublisher { shared, pairings: Mutex::new(pairings), stop, tasks })
    }

    /// The round's pairings a relay sends this board (with the hall key and
    /// controls on; `None` otherwise, or once taken): each sealed for this
    /// run of the board, each taken once. Whether one is newer than the
    /// pairing the board has is the daemon's to decide.
    pub fn pairings(&self) -> Option<mpsc::Receiver<SentPairing>> {
        self.pairings.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// Publishes one core event, with the board's words for it if it has
    /// any (the seal covers them with the rest).
    pub fn event(&self, ev: &Event, text: Option<&str>) {
        self.push(Change::Event(Told { event: ev.clone(), text: text.map(str::to_string) }));
    }

    /// Publishes a line the daemon spoke.
    pub fn spoken(&self, t: Ms, text: &str) {
        self.push(Change::Spoken(Spoken { t, text: text.to_string() }));
    }

    /// Publishes the game's tags.
    pub fn set_tags(&self, tags: Tags) {
        self.push(Change::Tags(tags));
    }

    fn push(&self, change: Change) {
        let essential = change.changes_feed();
        let mut out = self.shared.lock();
        out.feed.change(&change);
        let envelope = Envelope { epoch: out.feed.epoch, seq: out.feed.seq, change: &change };
        let Ok(payload) = serde_json::to_vec(&envelope) else {
            return;
        };
        if out.queue.len() >= QUEUE_CAPACITY {
            // The retained state carries every essential change, so dropping
            // one costs a relay only its live notice; passing ones go first.
            if let Some(i) = out.queue.iter().position(|q| !q.essential) {
                out.queue.remove(i);
            } else if !essential {
                self.shared.dropped.fetch_add(1, Ordering::Relaxed);
                return;
            } else {
                out.queue.pop_front();
            }
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
        }
        out.queue.push_back(Queued { essential, payload });
        out.state_due |= essential;
        drop(out);
        self.shared.wake.notify_one();
    }

    /// Changes dropped because the broker could not keep up.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Control messages that were sealed but not trace input lines.
    pub fn malformed(&self) -> u64 {
        self.shared.malformed.load(Ordering::Relaxed)
    }

    /// Messages refused: controls without a valid seal, replayed, for
    /// another run or out of range, and others' writes to the board's state.
    pub fn refused(&self) -> u64 {
        self.shared.refused.count()
    }

    /// Whether the broker has the connection now.
    pub fn connected(&self) -> bool {
        self.shared.lock().link == LinkState::Up
    }

    /// The board as published.
    pub fn feed(&self) -> BoardFeed {
        self.shared.lock().feed.clone()
    }

    /// Waits until every change so far has been handed to the MQTT client,
    /// at most `timeout`; false if it had not. It does not wait for a
    /// broker that is away, nor once the board has stopped: then it is
    /// false at once.
    pub async fn flush(&self, timeout: Duration) -> bool {
        let handed = async {
            loop {
                let progress = self.shared.progress.notified();
                tokio::pin!(progress);
                // Listening before looking: nothing that happens after the look is missed.
                progress.as_mut().enable();
                {
                    let out = self.shared.lock();
                    if out.handed() {
                        return true;
                    }
                    if matches!(out.link, LinkState::Down | LinkState::Closed) {
                        return false;
                    }
                }
                progress.await;
            }
        };
        tokio::time::timeout(timeout, handed).await.unwrap_or(false)
    }

    /// Stops: hands the broker what the board holds for at most `timeout`
    /// (not at all while the broker is away), says goodbye, and waits until
    /// the board's tasks have ended.
    pub async fn shutdown(&self, timeout: Duration) {
        self.close_within(timeout);
        self.stop.cancel();
        self.stopped().await;
    }

    /// How long stopping goes on handing the broker what the board holds
    /// (2 s unless set), however the stop comes: an owner whose token is
    /// cancelled on a deadline of its own sets it to fit.
    pub fn close_within(&self, within: Duration) {
        let ms = u64::try_from(within.as_millis()).unwrap_or(u64::MAX);
        self.shared.close_within.store(ms, Ordering::Relaxed);
    }

    /// Waits until the board has stopped (its owner's token cancelled, or
    /// [`BoardPublisher::shutdown`]) and its tasks have ended.
    pub async fn stopped(&self) {
        self.tasks.wait().await;
    }
}

impl Drop for BoardPublisher {
    /// The tasks stop the orderly way, unwaited.
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A board's side of its connection: shared by the task that hands the
/// client what is queued and the one that drives the connection.
#[derive(Clone)]
struct Link {
    shared: Arc<Shared>,
    client: AsyncClient,
    stop: CancellationToken,
    over: CancellationToken,
    tasks: TaskTracker,
    hall_link: HallLink,
    board: String,
    events: String,
    state: String,
    control: String,
    pairing: String,
    controls: Option<mpsc::Sender<Control>>,
    pairings: Option<mpsc::Sender<SentPairing>>,
}

impl Link {
    fn seal(&self, topic: &str, body: Vec<u8>) -> Vec<u8> {
        match &self.hall_link.key {
            Some(key) => key.seal(topic, "", &body),
            None => body,
        }
    }

    /// Hands one publication to the client; false once the connection is over.
    async fn hand(&self, topic: &str, retain: bool, payload: Vec<u8>) -> bool {
        let publish = self.client.publish(topic, QoS::AtLeastOnce, retain, payload);
        matches!(self.over.run_until_cancelled(publish).await, Some(Ok(())))
    }

    /// Hands the queued changes, then the retained state, to the client. The
    /// state is taken with the batch, so it never runs ahead of the changes
    /// published before it. Once the board is stopped, it hands what is
    /// left and ends.
    async fn publish(self) {
        loop {
            let (batch, state, seq) = {
                let mut out = self.shared.lock();
                let batch: Vec<Queued> = out.queue.drain(..).collect();
                let state = if std::mem::take(&mut out.state_due) { serde_json::to_vec(&out.feed).ok() } else { None };
                (batch, state, out.feed.seq)
            };
            if batch.is_empty() && state.is_none() {
                self.shared.lock().sent_seq = seq;
                self.shared.progress.notify_waiters();
                if self.stop.is_cancelled() {
                    return;
                }
                tokio::select! {
                    () = self.shared.wake.notified() => {}
                    () = self.stop.cancelled() => {}
                }
                continue;
            }
            for q in batch {
                let payload = self.seal(&self.events, q.payload);
                if !self.hand(&self.events, false, payload).await {
                    return;
                }
            }
            if let Some(state) = state {
                let payload = self.seal(&self.state, state);
                {
                    let mut out = self.shared.lock();
                    out.unechoed.push_back(digest(&payload));
                    while out.unechoed.len() > UNECHOED_KEPT {
                        out.unechoed.pop_front();
                    }
                }
                if !self.hand(&self.state, true, payload).await {
                    return;
                }
            }
            self.shared.lock().sent_seq = seq;
            self.shared.progress.notify_waiters();
        }
    }

    /// The board's own state topic: what it published comes back, in order,
    /// and is known; anything else (a stranger's state, an old one replayed,
    /// the retained message cleared) is overwritten with the board's own, at
    /// most once a second. An earlier run's state, retained by the broker,
    /// is overwritten without a warning.
    fn watch_state(&self, p: &Publish) {
        {
            let mut out = self.shared.lock();
            let seen = digest(&p.payload);
            if let Some(i) = out.unechoed.iter().position(|d| *d == seen) {
                out.unechoed.drain(..=i);
                return;
            }
        }
        if self.shared.yielded.load(Ordering::Relaxed) {
            return;
        }
        let own = self.shared.lock().feed.epoch;
        match self.run_of(&p.payload) {
            // An earlier run's state, retained by the broker: put right quietly.
            Some(run) if p.retain && run < own => {}
            // Sealed, live, and of a later run: only a second daemon makes one.
            Some(run) if !p.retain && run > own && self.hall_link.key.is_some() => {
                self.shared.yielded.store(true, Ordering::Relaxed);
                error!(
                    board = %self.board,
                    "another daemon on the broker {} publishes as board {:?}, started after this one: this one no \
                     longer puts its state back. Give each board its own name ([mqtt] board_id, --board-id)",
                    self.hall_link.broker, self.board
                );
                return;
            }
            _ => self.shared.refused.warn(|| {
                format!(
                    "board {}: someone else wrote to its state topic; the board's own state is put back",
                    self.board
                )
            }),
        }
        let mut out = self.shared.lock();
        let now = Instant::now();
        match out.healed_at {
            // A put-back is already planned: this write is undone with it.
            Some(at) if at > now => {}
            Some(at) if now.duration_since(at) < HEAL_INTERVAL => {
                let when = at + HEAL_INTERVAL;
                out.healed_at = Some(when);
                drop(out);
                let (shared, stop) = (self.shared.clone(), self.stop.clone());
                self.tasks.spawn(async move {
                    // A board that stops puts nothing back.
                    if stop.run_until_cancelled(tokio::time::sleep_until(when.into())).await.is_some() {
                        shared.lock().state_due = true;
                        shared.wake.notify_one();
                    }
                });
            }
            _ => {
                out.healed_at = Some(now);
                out.state_due = true;
                drop(out);
                self.shared.wake.notify_one();
            }
        }
    }

    /// The run a state written on this board's topic names (as far as the
    /// hall key, or without one the payload, can tell).
    fn run_of(&self, payload: &[u8]) -> Option<u64> {
        #[derive(Deserialize)]
        struct Run {
            epoch: u64,
        }
        let body = match &self.hall_link.key {
            Some(key) => key.open(&self.state, payload).ok()?.body,
            None => unchecked_body(payload),
        };
        serde_json::from_slice::<Run>(body).ok().map(|r| r.epoch)
    }

    /// A control, if it carries the hall key's seal for this board's run
    /// and is newer than its sender's last, and is an arbiter's action in range.
    fn take_control(&self, p: &Publish) -> Result<Input, Refused> {
        let (seal, body) = self.open_for_this_run(&self.control, p)?;
        let input = parse_control(body).inspect_err(|_| {
            self.shared.malformed.fetch_add(1, Ordering::Relaxed);
        })?;
        check_arbiter_input(&input)?;
        self.take_number(seal)?;
        Ok(input)
    }

    /// A round's pairing, if it carries the hall key's seal for this board's
    /// run, is newer than its sender's last, and its values are in range.
    fn take_pairing(&self, p: &Publish) -> Result<SentPairing, Refused> {
        let (seal, body) = self.open_for_this_run(&self.pairing, p)?;
        let pairing = serde_json::from_slice::<Pairing>(body)
            .map_err(|e| Refused::NotAPairing(e.to_string()))
            .and_then(|pairing| Ok(pairing.check().map(|()| pairing)?))
            .inspect_err(|_| {
                self.shared.malformed.fetch_add(1, Ordering::Relaxed);
            })?;
        self.take_number(seal)?;
        Ok(SentPairing { from: seal.from, n: seal.n, pairing })
    }

    /// A message for `topic` sealed with the hall key for this run of the
    /// board (never retained: a relay's messages to a board never are).
    fn open_for_this_run<'p>(&self, topic: &str, p: &'p Publish) -> Result<(ControlSeal, &'p [u8]), Refused> {
        if p.retain {
            return Err(Refused::Retained);
        }
        let key = self.hall_link.key.as_ref().ok_or(Refused::NoKey)?;
        let opened = key.open(topic, &p.payload)?;
        let Some(seal) = ControlSeal::read(|name| opened.number(name)) else {
            return Err(Refused::SealIncomplete);
        };
        let own = self.shared.lock().feed.epoch;
        if seal.epoch != own {
            return Err(Refused::OtherRun { epoch: seal.epoch, own });
        }
        Ok((seal, opened.body))
    }

    /// Takes the seal's number: each message once, and after its sender's
    /// earlier ones.
    fn take_number(&self, seal: ControlSeal) -> Result<(), Refused> {
        if self.shared.counters.lock().unwrap_or_else(PoisonError::into_inner).take(seal.from, seal.n) {
            Ok(())
        } else {
            Err(Refused::Replayed(seal.n))
        }
    }
}

/// Why a board refuses what came on its control or pairing topic.
#[derive(Debug, thiserror::Error)]
enum Refused {
    #[error("it was retained by the broker (a relay's messages to a board never are)")]
    Retained,
    #[error("no hall key")]
    NoKey,
    #[error(transparent)]
    Seal(#[from] Unsealed),
    #[error("its seal lacks the board's run, the sender or the counter")]
    SealIncomplete,
    #[error("it was sealed for run {epoch} of the board, not this one ({own}): replayed?")]
    OtherRun { epoch: u64, own: u64 },
    #[error(transparent)]
    Line(#[from] NotAControl),
    #[error(transparent)]
    Action(#[from] NotAnAction),
    /// A pairing that is not one (serde's words).
    #[error("{0}")]
    NotAPairing(String),
    #[error(transparent)]
    Pairing(#[from] PairingError),
    #[error("its sender already sent number {0} or a later one: replayed")]
    Replayed(u64),
}

impl Peer for Link {
    /// Re-publishes the retained state (a restarted broker may have lost it)
    /// on every connection, and renews the subscriptions: one request for
    /// both, so that once the broker passes on one, both are in place.
    fn connected(&mut self) -> Vec<Filter> {
        info!(board = %self.board, "connected to the MQTT broker {}", self.hall_link.broker);
        self.shared.lock().state_due = true;
        self.shared.set_link(LinkState::Up);
        self.shared.wake.notify_one();
        let mut topics = vec![Filter::new(self.state.clone(), QoS::AtLeastOnce)];
        if self.controls.is_some() {
            topics.push(Filter::new(self.control.clone(), QoS::AtLeastOnce));
        }
        if self.pairings.is_some() {
            topics.push(Filter::new(self.pairing.clone(), QoS::AtLeastOnce));
        }
        topics
    }

    fn received(&mut self, p: &Publish) {
        if p.topic == self.state.as_bytes() {
            return self.watch_state(p);
        }
        if p.topic == self.pairing.as_bytes() {
            let Some(pairings) = &self.pairings else { return };
            match self.take_pairing(p) {
                Ok(sent) => {
                    if pairings.try_send(sent).is_err() {
                        warn!(board = %self.board, "a pairing was dropped: the daemon is not taking them (the relay sends it again)");
                    }
                }
                Err(why) => self.shared.refused.warn(|| format!("board {}: a pairing was refused: {why}", self.board)),
            }
            return;
        }
        if p.topic != self.control.as_bytes() {
            return;
        }
        let Some(controls) = &self.controls else { return };
        match self.take_control(p) {
            Ok(input) => {
                if controls.try_send(Control { board: self.board.clone(), input }).is_err() {
                    warn!(board = %self.board, "a control was dropped: the daemon is not taking them");
                }
            }
            Err(why) => self.shared.refused.warn(|| format!("board {}: a control was refused: {why}", self.board)),
        }
    }

    /// What the client held for a connection that ended is sent again on
    /// the next, oldest first, as QoS 1 wants; the newest [`UNSENT_KEPT`]
    /// of it, so that it cannot grow with every connection that ends
    /// before it is sent (the state published on connecting carries every
    /// change dropped). The subscriptions are renewed anyway.
    fn lost(&mut self, eventloop: &mut EventLoop, why: &ConnectionError, first: bool) {
        self.shared.set_link(LinkState::Down);
        if first {
            warn!(board = %self.board, "{}; retrying", describe(why, &self.hall_link));
        }
        let dropped = trim_pending(eventloop, UNSENT_KEPT);
        let changes = dropped.iter().filter(|r| matches!(r, Request::Publish(p) if p.topic == self.events.as_bytes()));
        self.shared.dropped.fetch_add(changes.count() as u64, Ordering::Relaxed);
    }

    fn closed(&mut self, away: bool) {
        let unsent = {
            let out = self.shared.lock();
            (!out.handed()).then(|| out.queue.len())
        };
        self.shared.set_link(LinkState::Closed);
        if let (true, Some(unsent)) = (away, unsent) {
            warn!(board = %self.board, "mqtt: the broker is away: {unsent} changes and the board's last state were not sent");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tactus_core::EventKind;

    #[test]
    fn envelopes_round_trip() {
        let paused = Change::Event(Told { event: Event { t: 5, kind: EventKind::Paused }, text: None });
        let text = serde_json::to_string(&Envelope { epoch: 9, seq: 3, change: &paused }).unwrap();
        assert_eq!(text, r#"{"epoch":9,"seq":3,"event":{"t":5,"event":"paused"}}"#);
        let back: Envelope<Change> = serde_json::from_str(&text).unwrap();
        assert_eq!((back.epoch, back.seq, back.change), (9, 3, paused));
        // The board's words ride inside the event's object.
        let ruling = EventKind::Irregularity(tactus_core::Irregularity {
            article: tactus_core::Article::A7_5_3,
            side: shakmaty::Color::White,
            ply: 3,
            reason: tactus_core::Reason::NoMove,
            stands: false,
            attempt: None,
            touched: None,
            fix: Vec::new(),
        });
        let told = Change::Event(Told { event: Event { t: 6, kind: ruling }, text: Some("Weiß drückte".into()) });
        let text = serde_json::to_string(&Envelope { epoch: 9, seq: 4, change: &told }).unwrap();
        assert!(text.ends_with(r#""reason":"no_move","text":"Weiß drückte"}}"#), "{text}");
        let back: Envelope<Change> = serde_json::from_str(&text).unwrap();
        assert_eq!(back.change, told);
        let spoken: Envelope<Change> =
            serde_json::from_str(r#"{"epoch":1,"seq":2,"spoken":{"t":4,"text":"e4"}}"#).unwrap();
        assert_eq!(spoken.change, Change::Spoken(Spoken { t: 4, text: "e4".into() }));
        assert!(serde_json::from_str::<Envelope<Change>>(r#"{"epoch":1,"seq":2}"#).is_err());
    }
}
