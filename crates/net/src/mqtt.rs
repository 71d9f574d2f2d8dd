//! MQTT: each board publishes its changes to `tactus/<hall>/<board>/events`
//! (QoS 1) and its [`BoardFeed`] retained on `tactus/<hall>/<board>/state`,
//! and takes the arbiter's controls from `tactus/<hall>/<board>/control`.
//!
//! A change travels as `{"epoch": e, "seq": n, "event" | "spoken" | "tags": …}`:
//! `epoch` names the publisher's run (its start in Unix ms) and `seq` counts
//! the changes of the run, as the feed's own `seq` does, so a relay drops what
//! it already has from a retained state and notices what it missed. A
//! control is one trace input line (`docs/trace-format.md`), its `t` ignored.
//!
//! With a [`HallKey`] every message is sealed (see [`crate::auth`]); a board
//! takes controls only with one, and only sealed for its own run, each once.
//! A board also watches its own state topic and puts its state back when
//! anyone else writes there.

use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::{ConnectReturnCode, Filter, Packet, Publish};
use rumqttc::v5::{AsyncClient, ConnectionError, Event as MqttEvent, EventLoop, MqttOptions, Request};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tactus_core::Event;
use tactus_trace::{Input, Ms};
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use crate::auth::{Counters, HallKey, Refusals, SecretError, random_id, read_secret, unchecked_body};
use crate::feed::{BoardFeed, Change, Spoken, Tags};
use crate::wire::{BadName, Control, Envelope, Leaf, Topic, check_arbiter_input, check_name, parse_control, unix_ms};

/// Changes waiting for the broker; past this the oldest passing ones
/// (touches, announced moves) make room, so the daemon never waits.
pub const QUEUE_CAPACITY: usize = 1024;

/// Large enough for the retained state of a long game with its rulings.
/// The broker is told (MQTT 5's Maximum Packet Size) and passes over
/// anything larger rather than send it.
pub(crate) const MAX_PACKET: u32 = 4 << 20;

/// Messages a board keeps for the broker across a lost connection.
const UNSENT_KEPT: usize = 256;

/// States published and not yet heard back that a board remembers.
const UNECHOED_KEPT: usize = 256;

/// A board puts its state back at most this often when others overwrite it.
const HEAL_INTERVAL: Duration = Duration::from_secs(1);

/// Where TLS finds the authorities it trusts when no CA file is given
/// (Debian's bundle, from the `ca-certificates` package).
pub const SYSTEM_CA_FILE: &str = "/etc/ssl/certs/ca-certificates.crt";

/// The environment variable that may hold the broker password.
pub const PASSWORD_ENV: &str = "TACTUS_MQTT_PASSWORD";

/// Where the broker is: `host`, `host:port` (1883 by default), or with a
/// scheme: `mqtt://host:port`, `mqtts://host:port` (TLS, 8883 by default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broker {
    pub host: String,
    pub port: u16,
    /// Connect with TLS (rustls), checking the broker's certificate.
    pub tls: bool,
}

impl Broker {
    /// A broker without TLS.
    pub fn new(host: impl Into<String>, port: u16) -> Broker {
        Broker { host: host.into(), port, tls: false }
    }
}

impl FromStr for Broker {
    type Err = MqttError;

    fn from_str(s: &str) -> Result<Broker, MqttError> {
        let bad = || MqttError::Broker(s.to_string());
        let (tls, rest) = match s.split_once("://") {
            Some(("mqtt" | "tcp", rest)) => (false, rest),
            Some(("mqtts" | "ssl" | "tls", rest)) => (true, rest),
            Some(_) => return Err(bad()),
            None => (false, s),
        };
        let default_port = if tls { 8883 } else { 1883 };
        // `[::1]:1883`, `[::1]`, `::1` (no port), `host:1883`, or a bare host.
        let (host, port) = if let Some(bracketed) = rest.strip_prefix('[') {
            let (address, after) = bracketed.split_once(']').ok_or_else(bad)?;
            address.parse::<std::net::Ipv6Addr>().map_err(|_| bad())?;
            let port = match after {
                "" => default_port,
                after => port(after.strip_prefix(':').ok_or_else(bad)?).ok_or_else(bad)?,
            };
            (address, port)
        } else if rest.parse::<std::net::Ipv6Addr>().is_ok() {
            (rest, default_port)
        } else {
            match rest.split_once(':') {
                Some((host, p)) => (host, port(p).ok_or_else(bad)?),
                None => (rest, default_port),
            }
        };
        if !(host.contains(':') || is_host_name(host)) {
            return Err(bad());
        }
        Ok(Broker { host: host.to_string(), port, tls })
    }
}

/// A port a broker can listen on: 1 to 65535.
fn port(text: &str) -> Option<u16> {
    text.parse().ok().filter(|&p| p > 0)
}

/// A host name (RFC 1123) or an IPv4 address: dot-separated labels of
/// letters, digits and inner hyphens, each at most 63, 253 in all.
fn is_host_name(host: &str) -> bool {
    host.len() <= 253
        && host.split('.').all(|label| {
            (1..=63).contains(&label.len())
                && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

impl fmt::Display for Broker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.tls {
            f.write_str("mqtts://")?;
        }
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MqttError {
    #[error(transparent)]
    Name(#[from] BadName),
    #[error(
        "{0:?} is not a broker address: expected host, host:port or mqtts://host:port, a host name or IP address and a port from 1 to 65535 (e.g. 127.0.0.1:1883)"
    )]
    Broker(String),
    #[error("{path}: cannot read the broker's certificate authorities: {reason}")]
    CaFile { path: PathBuf, reason: String },
    #[error(transparent)]
    Secret(#[from] SecretError),
    #[error("a broker password needs a user name too")]
    PasswordWithoutUser,
}

/// A broker login.
#[derive(Clone)]
pub struct Login {
    pub username: String,
    password: String,
}

impl Login {
    pub fn new(username: impl Into<String>, password: impl Into<String>) -> Login {
        Login { username: username.into(), password: password.into() }
    }
}

impl fmt::Debug for Login {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Login({:?}, …)", self.username)
    }
}

/// Everything needed to take part in a hall: its broker, the login and
/// TLS authorities the broker may demand, and the hall key.
#[derive(Debug, Clone)]
pub struct HallLink {
    pub broker: Broker,
    pub login: Option<Login>,
    /// The PEM certificates TLS trusts (default [`SYSTEM_CA_FILE`]).
    pub ca_file: Option<PathBuf>,
    /// Without one, nothing on the broker can be told from a stranger.
    pub key: Option<HallKey>,
}

impl From<Broker> for HallLink {
    fn from(broker: Broker) -> HallLink {
        HallLink { broker, login: None, ca_file: None, key: None }
    }
}

/// A hall link as a configuration names it: files for the secrets, which
/// stay out of the configuration and off the command line.
#[derive(Debug, Clone, Default)]
pub struct LinkSettings<'a> {
    pub broker: &'a str,
    pub username: Option<&'a str>,
    /// The broker password's file; without one, [`PASSWORD_ENV`] if set.
    pub password_file: Option<&'a Path>,
    pub ca_file: Option<&'a Path>,
    pub hall_key_file: Option<&'a Path>,
}

impl HallLink {
    pub fn new(broker: Broker) -> HallLink {
        broker.into()
    }

    pub fn with_login(mut self, login: Login) -> HallLink {
        self.login = Some(login);
        self
    }

    pub fn with_ca_file(mut self, path: impl Into<PathBuf>) -> HallLink {
        self.ca_file = Some(path.into());
        self
    }

    pub fn with_key(mut self, key: HallKey) -> HallLink {
        self.key = Some(key);
        self
    }

    /// Reads the files a configuration names. Errors name the file.
    pub fn from_settings(s: &LinkSettings) -> Result<HallLink, MqttError> {
        let mut link = HallLink::new(s.broker.parse()?);
        let password = match s.password_file {
            Some(path) => Some(String::from_utf8_lossy(&read_secret(path, "broker password")?).into_owned()),
            None => std::env::var(PASSWORD_ENV).ok().filter(|p| !p.is_empty()),
        };
        match (s.username, password) {
            (Some(user), password) => link.login = Some(Login::new(user, password.unwrap_or_default())),
            (None, Some(_)) if s.password_file.is_some() => return Err(MqttError::PasswordWithoutUser),
            (None, _) => {}
        }
        link.ca_file = s.ca_file.map(Path::to_path_buf);
        link.key = s.hall_key_file.map(HallKey::load).transpose()?;
        Ok(link)
    }

    /// The client's options: keep-alive, packet size, login and TLS.
    pub(crate) fn options(&self, client_id: String) -> Result<MqttOptions, MqttError> {
        let mut opts = MqttOptions::new(client_id, self.broker.host.clone(), self.broker.port);
        opts.set_keep_alive(Duration::from_secs(10));
        // MQTT 5 tells the broker the largest packet we take, and the broker
        // must pass over a larger message instead of sending it (MQTT 5.0,
        // 3.1.2.11.4). MQTT 3.1.1 has no such word: a client could only
        // drop the connection, and a huge retained message came back with
        // every reconnection.
        opts.set_max_packet_size(Some(MAX_PACKET));
        if let Some(login) = &self.login {
            opts.set_credentials(login.username.clone(), login.password.clone());
        }
        if self.broker.tls {
            let path = self.ca_file.clone().unwrap_or_else(|| SYSTEM_CA_FILE.into());
            let ca =
                std::fs::read(&path).map_err(|e| MqttError::CaFile { path: path.clone(), reason: e.to_string() })?;
            if !String::from_utf8_lossy(&ca).contains("-----BEGIN CERTIFICATE-----") {
                return Err(MqttError::CaFile { path, reason: "no PEM certificate in it".into() });
            }
            let tls = rumqttc::TlsConfiguration::Simple { ca, alpn: None, client_auth: None };
            opts.set_transport(rumqttc::Transport::tls_with_config(tls));
        }
        Ok(opts)
    }
}

/// The first wait before connecting again, after a connection that lasted.
const RETRY_FIRST: Duration = Duration::from_millis(500);

/// The longest wait between attempts; a connection that lasts this long
/// counts as good, and the next failure is retried after [`RETRY_FIRST`].
const RETRY_MAX: Duration = Duration::from_secs(15);

/// When to try the broker again: soon after a connection that lasted,
/// then twice as long after each attempt that fails or whose connection
/// ends at once (a broker that closes on us must not be hammered), up to
/// [`RETRY_MAX`]. Each wait is drawn from 80 % to 120 % of its step, so
/// that a hall's boards do not all come back in the same instant.
#[derive(Debug)]
pub(crate) struct Backoff {
    step: Duration,
    connected_at: Option<Instant>,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff { step: RETRY_FIRST, connected_at: None }
    }
}

impl Backoff {
    /// The broker took the connection.
    pub fn connected(&mut self, now: Instant) {
        self.connected_at = Some(now);
    }

    /// The connection failed or ended: how long to wait before the next attempt.
    pub fn failed(&mut self, now: Instant) -> Duration {
        if self.connected_at.take().is_some_and(|at| now.duration_since(at) >= RETRY_MAX) {
            self.step = RETRY_FIRST;
        }
        let step = self.step;
        self.step = (self.step * 2).min(RETRY_MAX);
        let spread = random_id() % 401;
        step * (800 + spread as u32) / 1000
    }
}

/// Bounds what a client keeps to send again once its connection ended:
/// subscriptions are dropped (they are made again on every connection),
/// and of the rest the newest `keep`. Returns what was dropped.
pub(crate) fn trim_pending(eventloop: &mut EventLoop, keep: usize) -> Vec<Request> {
    let (renewed, mut kept): (VecDeque<Request>, VecDeque<Request>) =
        eventloop.pending.drain(..).partition(|r| matches!(r, Request::Subscribe(_) | Request::Unsubscribe(_)));
    let mut dropped: Vec<Request> = renewed.into();
    dropped.extend(kept.drain(..kept.len().saturating_sub(keep)));
    eventloop.pending = kept;
    dropped
}

/// Says why the broker could not be reached, in words an operator can act on.
pub(crate) fn describe(e: &ConnectionError, link: &HallLink) -> String {
    match e {
        ConnectionError::ConnectionRefused(
            ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized,
        ) => match &link.login {
            Some(l) => format!(
                "the broker {} refused the login of user {:?}: check the user and password",
                link.broker, l.username
            ),
            None => format!("the broker {} wants a login: give a user name and a password file", link.broker),
        },
        ConnectionError::Tls(e) => {
            format!("TLS with {} failed ({e}): check the broker's name and the CA file", link.broker)
        }
        e => format!("the broker {} is unreachable ({e})", link.broker),
    }
}

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

/// Where the publisher's connection to the broker stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LinkState {
    /// Not connected yet, and no attempt has failed.
    Connecting,
    Up,
    /// The last attempt failed, or the connection ended: nothing handed to
    /// the client now reaches the broker until it is back.
    Down,
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

struct Shared {
    outbox: Mutex<Outbox>,
    wake: Notify,
    dropped: AtomicU64,
    malformed: AtomicU64,
    refused: Refusals,
    counters: Mutex<Counters>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Outbox> {
        self.outbox.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A board's link to the hall's broker: publishes its changes and retained
/// state, and passes the arbiter's controls from the relay to the daemon.
/// Its methods never block: a bounded queue sits between them and the broker.
pub struct BoardPublisher {
    shared: Arc<Shared>,
    client: AsyncClient,
    tasks: Vec<JoinHandle<()>>,
}

impl BoardPublisher {
    /// Starts publishing board `board` of hall `hall` (needs a Tokio runtime).
    /// With `controls` and a hall key, the board also takes the arbiter's
    /// controls from its control topic; without a hall key control over MQTT
    /// is off (anyone on the broker could send them). It connects in the
    /// background and reconnects for as long as it lives.
    pub fn start(
        link: &HallLink,
        hall: &str,
        board: &str,
        controls: Option<mpsc::Sender<Control>>,
    ) -> Result<BoardPublisher, MqttError> {
        check_name("hall", hall)?;
        check_name("board", board)?;
        let (client, eventloop) = AsyncClient::new(link.options(format!("tactus-{hall}-{board}"))?, 64);
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
        let epoch = next_epoch();
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
            dropped: AtomicU64::new(0),
            malformed: AtomicU64::new(0),
            refused: Refusals::default(),
            counters: Mutex::new(Counters::default()),
        });
        let link = Link {
            shared: shared.clone(),
            client: client.clone(),
            hall_link: link.clone(),
            board: board.to_string(),
            events: Topic::new(hall, board, Leaf::Events).to_string(),
            state: Topic::new(hall, board, Leaf::State).to_string(),
            control: Topic::new(hall, board, Leaf::Control).to_string(),
        };
        let publishing = tokio::spawn(link.clone().publish());
        let connection = tokio::spawn(link.connection(eventloop, controls));
        Ok(BoardPublisher { shared, client, tasks: vec![publishing, connection] })
    }

    /// Publishes one core event.
    pub fn event(&self, ev: &Event) {
        self.push(Change::Event(ev.clone()));
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
    /// broker that is away: then it is false at once.
    pub async fn flush(&self, timeout: Duration) -> bool {
        let done = async {
            loop {
                {
                    let out = self.shared.lock();
                    if out.queue.is_empty() && !out.state_due && out.sent_seq == out.feed.seq {
                        return true;
                    }
                    if out.link == LinkState::Down {
                        return false;
                    }
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(timeout, done).await.unwrap_or(false)
    }

    /// Flushes (for at most `timeout`, and not at all while the broker is
    /// away), disconnects and stops.
    pub async fn shutdown(self, timeout: Duration) {
        if !self.flush(timeout).await {
            let out = self.shared.lock();
            if out.link == LinkState::Down {
                let unsent = out.queue.len();
                warn!(board = %out.feed.id, "mqtt: the broker is away: {unsent} changes and the board's last state were not sent");
                return;
            }
        }
        // Give the client a moment to write what it was handed.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let _ = self.client.try_disconnect();
    }
}

impl Drop for BoardPublisher {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

#[derive(Clone)]
struct Link {
    shared: Arc<Shared>,
    client: AsyncClient,
    hall_link: HallLink,
    board: String,
    events: String,
    state: String,
    control: String,
}

impl Link {
    fn seal(&self, topic: &str, body: Vec<u8>) -> Vec<u8> {
        match &self.hall_link.key {
            Some(key) => key.seal(topic, "", &body),
            None => body,
        }
    }

    /// Hands the queued changes, then the retained state, to the client. The
    /// state is taken with the batch, so it never runs ahead of the changes
    /// published before it.
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
                self.shared.wake.notified().await;
                continue;
            }
            for q in batch {
                let payload = self.seal(&self.events, q.payload);
                if self.client.publish(&self.events, QoS::AtLeastOnce, false, payload).await.is_err() {
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
                if self.client.publish(&self.state, QoS::AtLeastOnce, true, payload).await.is_err() {
                    return;
                }
            }
            self.shared.lock().sent_seq = seq;
        }
    }

    /// Drives the connection: reconnects, re-publishes the retained state
    /// (a restarted broker may have lost it) and renews the subscriptions on
    /// every connection, and passes controls on.
    async fn connection(self, mut eventloop: EventLoop, controls: Option<mpsc::Sender<Control>>) {
        let mut backoff = Backoff::default();
        loop {
            match eventloop.poll().await {
                Ok(MqttEvent::Incoming(Packet::ConnAck(_))) => {
                    info!(board = %self.board, "connected to the MQTT broker {}", self.hall_link.broker);
                    backoff.connected(Instant::now());
                    {
                        let mut out = self.shared.lock();
                        out.link = LinkState::Up;
                        out.state_due = true;
                    }
                    self.shared.wake.notify_one();
                    let client = self.client.clone();
                    // One request for both: once the broker passes on one,
                    // both are in place.
                    let mut topics = vec![Filter::new(self.state.clone(), QoS::AtLeastOnce)];
                    if controls.is_some() {
                        topics.push(Filter::new(self.control.clone(), QoS::AtLeastOnce));
                    }
                    tokio::spawn(async move { client.subscribe_many(topics).await });
                }
                Ok(MqttEvent::Incoming(Packet::Publish(p))) if p.topic == self.state.as_bytes() => self.watch_state(&p),
                Ok(MqttEvent::Incoming(Packet::Publish(p))) if p.topic == self.control.as_bytes() => {
                    let Some(controls) = &controls else { continue };
                    match self.take_control(&p) {
                        Ok(input) => {
                            if controls.try_send(Control { board: self.board.clone(), input }).is_err() {
                                warn!(board = %self.board, "a control was dropped: the daemon is not taking them");
                            }
                        }
                        Err(why) => {
                            self.shared.refused.warn(|| format!("board {}: a control was refused: {why}", self.board))
                        }
                    }
                }
                Ok(other) => debug!(board = %self.board, "mqtt: {other:?}"),
                Err(e) => {
                    let was = std::mem::replace(&mut self.shared.lock().link, LinkState::Down);
                    if was != LinkState::Down {
                        warn!(board = %self.board, "{}; retrying", describe(&e, &self.hall_link));
                    }
                    self.trim_unsent(&mut eventloop);
                    tokio::time::sleep(backoff.failed(Instant::now())).await;
                }
            }
        }
    }

    /// What the client held for a connection that ended is sent again on
    /// the next, oldest first, as QoS 1 wants; the newest [`UNSENT_KEPT`]
    /// of it, so that it cannot grow with every connection that ends
    /// before it is sent (the state published on connecting carries every
    /// change dropped). The subscriptions are renewed anyway.
    fn trim_unsent(&self, eventloop: &mut EventLoop) {
        let dropped = trim_pending(eventloop, UNSENT_KEPT);
        let changes = dropped.iter().filter(|r| matches!(r, Request::Publish(p) if p.topic == self.events.as_bytes()));
        self.shared.dropped.fetch_add(changes.count() as u64, Ordering::Relaxed);
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
        if !(p.retain && self.earlier_run(&p.payload)) {
            self.shared.refused.warn(|| {
                format!(
                    "board {}: someone else wrote to its state topic; the board's own state is put back",
                    self.board
                )
            });
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
                let shared = self.shared.clone();
                tokio::spawn(async move {
                    tokio::time::sleep_until(when.into()).await;
                    shared.lock().state_due = true;
                    shared.wake.notify_one();
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

    /// Whether a state is this board's from an earlier run (as far as the
    /// hall key, or without one the payload, can tell).
    fn earlier_run(&self, payload: &[u8]) -> bool {
        #[derive(Deserialize)]
        struct Run {
            epoch: u64,
        }
        let body = match &self.hall_link.key {
            Some(key) => match key.open(&self.state, payload) {
                Ok(opened) => opened.body,
                Err(_) => return false,
            },
            None => unchecked_body(payload),
        };
        let own = self.shared.lock().feed.epoch;
        serde_json::from_slice::<Run>(body).is_ok_and(|r| r.epoch < own)
    }

    /// A control, if it carries the hall key's seal for this board's run
    /// and is newer than its sender's last, and is an arbiter's action in range.
    fn take_control(&self, p: &Publish) -> Result<Input, String> {
        if p.retain {
            return Err("it was retained by the broker (controls never are)".into());
        }
        let key = self.hall_link.key.as_ref().ok_or("no hall key")?;
        let opened = key.open(&self.control, &p.payload).map_err(|e| e.to_string())?;
        let (Some(epoch), Some(from), Some(n)) = (opened.number("epoch"), opened.number("from"), opened.number("n"))
        else {
            return Err("its seal lacks the board's run, the sender or the counter".into());
        };
        let own = self.shared.lock().feed.epoch;
        if epoch != own {
            return Err(format!("it was sealed for run {epoch} of the board, not this one ({own}): replayed?"));
        }
        let input = parse_control(opened.body).inspect_err(|_| {
            self.shared.malformed.fetch_add(1, Ordering::Relaxed);
        })?;
        check_arbiter_input(&input)?;
        if !self.shared.counters.lock().unwrap_or_else(PoisonError::into_inner).take(from, n) {
            return Err(format!("its sender already sent number {n} or a later one: replayed"));
        }
        Ok(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tactus_core::EventKind;

    #[test]
    fn broker_addresses() {
        assert_eq!("127.0.0.1:1884".parse(), Ok(Broker::new("127.0.0.1", 1884)));
        assert_eq!("mqtt.local".parse(), Ok(Broker::new("mqtt.local", 1883)));
        assert_eq!("[::1]:1885".parse(), Ok(Broker::new("::1", 1885)));
        assert_eq!("mqtt://hall:1999".parse(), Ok(Broker::new("hall", 1999)));
        let tls: Broker = "mqtts://mqtt.club.example".parse().unwrap();
        assert_eq!((tls.host.as_str(), tls.port, tls.tls), ("mqtt.club.example", 8883, true));
        assert_eq!(tls.to_string(), "mqtts://mqtt.club.example:8883");
        assert_eq!("::1".parse(), Ok(Broker::new("::1", 1883)));
        assert_eq!("[fe80::1]".parse(), Ok(Broker::new("fe80::1", 1883)));
        assert_eq!("hall-3.club.example:65535".parse(), Ok(Broker::new("hall-3.club.example", 65535)));
        for bad in [
            "host:port",
            "",
            "http://host",
            "::::",
            "[::::]:1883",
            "[::1",
            "[::1]1883",
            "host:0",
            "host:65536",
            "host:",
            ":1883",
            "a b:1",
            "-host",
            "host-.example",
            "two..dots",
            "under_score",
            "host/x",
            "mqtts://",
        ] {
            assert!(bad.parse::<Broker>().is_err(), "{bad:?}");
        }
        assert_eq!(Broker::new("::1", 1885).to_string(), "[::1]:1885");
    }

    #[test]
    fn retries_back_off_until_a_connection_lasts() {
        let start = Instant::now();
        let mut backoff = Backoff::default();
        let within = |wait: Duration, step: Duration| wait >= step * 4 / 5 && wait <= step * 6 / 5;
        let mut step = RETRY_FIRST;
        for _ in 0..8 {
            let wait = backoff.failed(start);
            assert!(within(wait, step), "{wait:?} for a step of {step:?}");
            step = (step * 2).min(RETRY_MAX);
        }
        // A connection the broker closes at once does not start again from the first step…
        backoff.connected(start);
        assert!(within(backoff.failed(start + Duration::from_secs(1)), RETRY_MAX));
        // …one that lasted does.
        backoff.connected(start);
        assert!(within(backoff.failed(start + RETRY_MAX), RETRY_FIRST));
    }

    #[test]
    fn envelopes_round_trip() {
        let ev = Event { t: 5, kind: EventKind::Paused };
        let text = serde_json::to_string(&Envelope { epoch: 9, seq: 3, change: &Change::Event(ev.clone()) }).unwrap();
        assert_eq!(text, r#"{"epoch":9,"seq":3,"event":{"t":5,"event":"paused"}}"#);
        let back: Envelope<Change> = serde_json::from_str(&text).unwrap();
        assert_eq!((back.epoch, back.seq, back.change), (9, 3, Change::Event(ev)));
        let spoken: Envelope<Change> =
            serde_json::from_str(r#"{"epoch":1,"seq":2,"spoken":{"t":4,"text":"e4"}}"#).unwrap();
        assert_eq!(spoken.change, Change::Spoken(Spoken { t: 4, text: "e4".into() }));
        assert!(serde_json::from_str::<Envelope<Change>>(r#"{"epoch":1,"seq":2}"#).is_err());
    }

    #[test]
    fn settings_read_the_secrets_from_files() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("hall.key");
        let password = dir.path().join("password");
        for (path, text) in [(&key, "a hall key of some length\n"), (&password, "pw\n")] {
            std::fs::write(path, text).unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let s = LinkSettings {
            broker: "mqtts://127.0.0.1:8883",
            username: Some("b1"),
            password_file: Some(&password),
            ca_file: Some(Path::new("/nonexistent/ca.pem")),
            hall_key_file: Some(&key),
        };
        let link = HallLink::from_settings(&s).unwrap();
        assert!(link.key.is_some() && link.broker.tls);
        assert_eq!(format!("{:?}", link.login), r#"Some(Login("b1", …))"#, "the password is never printed");
        let e = link.options("x".into()).unwrap_err().to_string();
        assert!(e.contains("/nonexistent/ca.pem"), "{e}");
        let e = HallLink::from_settings(&LinkSettings { username: None, ..s.clone() }).unwrap_err();
        assert_eq!(e, MqttError::PasswordWithoutUser);
    }
}
