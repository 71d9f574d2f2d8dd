//! MQTT: each board publishes its changes to `tactus/<hall>/<board>/events`
//! (QoS 1) and its [`BoardFeed`] retained on `tactus/<hall>/<board>/state`,
//! and takes the arbiter's controls from `tactus/<hall>/<board>/control`.
//!
//! A change travels as `{"epoch": e, "seq": n, "event" | "spoken" | "tags": …}`:
//! `epoch` names the publisher's run (its start in Unix ms) and `seq` counts
//! the changes of the run, as the feed's own `seq` does, so a relay drops what
//! it already has from a retained state and notices what it missed. A
//! control is one trace input line (`docs/trace-format.md`), its `t` ignored.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rumqttc::{AsyncClient, EventLoop, MqttOptions, Packet, QoS};
use serde::{Deserialize, Serialize};
use tactus_core::Event;
use tactus_trace::{Entry, Input, Ms, Record};
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use crate::feed::{BoardFeed, Change, Spoken, Tags};
use crate::http::Control;

/// Changes waiting for the broker; past this the oldest passing ones
/// (touches, announced moves) make room, so the daemon never waits.
pub const QUEUE_CAPACITY: usize = 1024;

/// Large enough for the retained state of a long game with its rulings.
pub(crate) const MAX_PACKET: usize = 4 << 20;

/// How long to wait before connecting again after the broker went away.
pub(crate) const RECONNECT: Duration = Duration::from_millis(500);

/// Where the broker is: `host` or `host:port` (1883 by default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broker {
    pub host: String,
    pub port: u16,
}

impl Broker {
    pub fn new(host: impl Into<String>, port: u16) -> Broker {
        Broker { host: host.into(), port }
    }
}

impl FromStr for Broker {
    type Err = MqttError;

    fn from_str(s: &str) -> Result<Broker, MqttError> {
        let bad = || MqttError::Broker(s.to_string());
        // `[::1]:1883`, `host:1883`, or a bare host.
        let (host, port) = match s.rsplit_once(':') {
            Some((host, port)) if !host.is_empty() && (!host.contains(':') || host.ends_with(']')) => {
                (host.trim_start_matches('[').trim_end_matches(']'), port.parse().map_err(|_| bad())?)
            }
            _ => (s, 1883),
        };
        if host.is_empty() || host.contains(char::is_whitespace) {
            return Err(bad());
        }
        Ok(Broker::new(host, port))
    }
}

impl fmt::Display for Broker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MqttError {
    #[error("{what} {name:?} cannot be part of an MQTT topic: use letters, digits, '-' or '_' (no '/', '+', '#')")]
    Name { what: &'static str, name: String },
    #[error("{0:?} is not a broker address: expected host or host:port (e.g. 127.0.0.1:1883)")]
    Broker(String),
}

/// Checks one level of a topic: a hall or board name.
pub(crate) fn check_name(what: &'static str, name: &str) -> Result<(), MqttError> {
    let bad = name.is_empty() || name.contains(['/', '+', '#', '\0']);
    if bad { Err(MqttError::Name { what, name: name.to_string() }) } else { Ok(()) }
}

pub(crate) fn topic(hall: &str, board: &str, leaf: &str) -> String {
    format!("tactus/{hall}/{board}/{leaf}")
}

/// One change on the `events` topic.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Envelope<C> {
    pub epoch: u64,
    pub seq: u64,
    #[serde(flatten)]
    pub change: C,
}

pub(crate) fn control_payload(input: Input) -> String {
    let mut line = String::new();
    tactus_trace::format_entry(&mut line, &Entry { t: 0, record: Record::Input(input) });
    line
}

pub(crate) fn parse_control(payload: &[u8]) -> Result<Input, String> {
    let text = std::str::from_utf8(payload).map_err(|e| e.to_string())?;
    match tactus_trace::parse_entry(1, text.trim()) {
        Ok(Entry { record: Record::Input(input), .. }) => Ok(input),
        Ok(_) => Err("not an input line".to_string()),
        Err(e) => Err(e.message),
    }
}

pub(crate) fn options(client_id: String, broker: &Broker) -> MqttOptions {
    let mut opts = MqttOptions::new(client_id, broker.host.clone(), broker.port);
    opts.set_keep_alive(Duration::from_secs(10));
    opts.set_max_packet_size(MAX_PACKET, MAX_PACKET);
    opts
}

pub(crate) fn unix_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

struct Queued {
    essential: bool,
    payload: Vec<u8>,
}

struct Outbox {
    feed: BoardFeed,
    queue: VecDeque<Queued>,
    /// The retained state is behind the feed.
    state_due: bool,
    /// The feed's `seq` as last handed to the client.
    sent_seq: u64,
}

struct Shared {
    outbox: Mutex<Outbox>,
    wake: Notify,
    dropped: AtomicU64,
    malformed: AtomicU64,
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
    /// With `controls`, the board also takes controls from its control topic.
    /// It connects in the background and reconnects for as long as it lives.
    pub fn start(
        broker: &Broker,
        hall: &str,
        board: &str,
        controls: Option<mpsc::Sender<Control>>,
    ) -> Result<BoardPublisher, MqttError> {
        check_name("hall", hall)?;
        check_name("board", board)?;
        let (client, eventloop) = AsyncClient::new(options(format!("tactus-{hall}-{board}"), broker), 64);
        let epoch = unix_ms();
        let shared = Arc::new(Shared {
            outbox: Mutex::new(Outbox {
                feed: BoardFeed { epoch, ..BoardFeed::new(board) },
                queue: VecDeque::new(),
                state_due: true,
                sent_seq: 0,
            }),
            wake: Notify::new(),
            dropped: AtomicU64::new(0),
            malformed: AtomicU64::new(0),
        });
        let link = Link {
            shared: shared.clone(),
            client: client.clone(),
            board: board.to_string(),
            events: topic(hall, board, "events"),
            state: topic(hall, board, "state"),
            control: topic(hall, board, "control"),
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

    /// Control messages that were not trace input lines.
    pub fn malformed(&self) -> u64 {
        self.shared.malformed.load(Ordering::Relaxed)
    }

    /// The board as published.
    pub fn feed(&self) -> BoardFeed {
        self.shared.lock().feed.clone()
    }

    /// Waits until every change so far has been handed to the MQTT client,
    /// at most `timeout`; false if it had not.
    pub async fn flush(&self, timeout: Duration) -> bool {
        let done = async {
            loop {
                {
                    let out = self.shared.lock();
                    if out.queue.is_empty() && !out.state_due && out.sent_seq == out.feed.seq {
                        return;
                    }
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(timeout, done).await.is_ok()
    }

    /// Flushes (for at most `timeout`), disconnects and stops.
    pub async fn shutdown(self, timeout: Duration) {
        self.flush(timeout).await;
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
    board: String,
    events: String,
    state: String,
    control: String,
}

impl Link {
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
                if self.client.publish(&self.events, QoS::AtLeastOnce, false, q.payload).await.is_err() {
                    return;
                }
            }
            if let Some(state) = state
                && self.client.publish(&self.state, QoS::AtLeastOnce, true, state).await.is_err()
            {
                return;
            }
            self.shared.lock().sent_seq = seq;
        }
    }

    /// Drives the connection: reconnects, re-publishes the retained state
    /// (a restarted broker may have lost it) and renews the control
    /// subscription on every connection, and passes controls on.
    async fn connection(self, mut eventloop: EventLoop, controls: Option<mpsc::Sender<Control>>) {
        let mut down = false;
        loop {
            match eventloop.poll().await {
                Ok(rumqttc::Event::Incoming(Packet::ConnAck(_))) => {
                    info!(board = %self.board, "connected to the MQTT broker");
                    down = false;
                    self.shared.lock().state_due = true;
                    self.shared.wake.notify_one();
                    if controls.is_some() {
                        let client = self.client.clone();
                        let topic = self.control.clone();
                        tokio::spawn(async move { client.subscribe(topic, QoS::AtLeastOnce).await });
                    }
                }
                Ok(rumqttc::Event::Incoming(Packet::Publish(p))) if p.topic == self.control => {
                    let Some(controls) = &controls else { continue };
                    match parse_control(&p.payload) {
                        Ok(input) => {
                            if controls.try_send(Control { board: self.board.clone(), input }).is_err() {
                                warn!(board = %self.board, "a control was dropped: the daemon is not taking them");
                            }
                        }
                        Err(e) => {
                            self.shared.malformed.fetch_add(1, Ordering::Relaxed);
                            warn!(board = %self.board, "a malformed control was ignored: {e}");
                        }
                    }
                }
                Ok(other) => debug!(board = %self.board, "mqtt: {other:?}"),
                Err(e) => {
                    if !down {
                        warn!(board = %self.board, "MQTT broker unreachable ({e}); retrying");
                        down = true;
                    }
                    tokio::time::sleep(RECONNECT).await;
                }
            }
        }
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
        assert!("host:port".parse::<Broker>().is_err());
        assert!("".parse::<Broker>().is_err());
        assert_eq!(Broker::new("::1", 1885).to_string(), "[::1]:1885");
    }

    #[test]
    fn names_must_be_one_topic_level() {
        assert!(check_name("board", "12").is_ok());
        for bad in ["", "a/b", "+", "#", "x#"] {
            assert!(check_name("board", bad).is_err(), "{bad:?}");
        }
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
    fn controls_are_trace_input_lines() {
        let input = Input::AddTime { side: shakmaty::Color::Black, ms: 60_000 };
        let line = control_payload(input);
        assert_eq!(line, r#"{"t": 0, "input": "add_time", "side": "black", "ms": 60000}"#);
        assert_eq!(parse_control(line.as_bytes()), Ok(input));
        assert!(parse_control(br#"{"t": 0, "sq": "e4", "on": true}"#).is_err());
        assert!(parse_control(b"\xff").is_err());
    }
}
