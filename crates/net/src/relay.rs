//! The relay: one hall's boards gathered from MQTT into one [`SharedHall`],
//! served like a daemon's (`/games.pgn` of every board, the page, the
//! arbiter's view), with the arbiter's controls sent back to each board.
//!
//! A relay started late rebuilds every game from the boards' retained
//! states, then follows their changes; the `(epoch, seq)` of each change
//! drops what a state already held (see [`Hall::change_numbered`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rumqttc::{AsyncClient, EventLoop, Packet, Publish, QoS};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use crate::feed::{Applied, BoardFeed, Change, Hall};
use crate::http::Control;
use crate::mqtt::{Broker, Envelope, MqttError, RECONNECT, check_name, control_payload, options, topic, unix_ms};
use crate::sse::SharedHall;

/// What the relay has received, for logs and the benchmark.
#[derive(Debug, Default)]
pub struct RelayStats {
    /// Messages on the hall's topics.
    pub messages: AtomicU64,
    /// Changes and states that changed the hall.
    pub applied: AtomicU64,
    /// Changes and states the hall already held.
    pub stale: AtomicU64,
    /// Payloads that were not what their topic carries: logged and skipped.
    pub malformed: AtomicU64,
}

/// A running relay.
pub struct Relay {
    /// The hall, to serve ([`crate::AppState::new`]).
    pub hall: SharedHall,
    /// The arbiter's controls: each is published to its board's control topic.
    pub controls: mpsc::Sender<Control>,
    pub stats: Arc<RelayStats>,
    tasks: Vec<JoinHandle<()>>,
}

impl Relay {
    /// Stops following the hall.
    pub fn stop(self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Starts relaying `hall` (its name, and its team matches) from the broker
/// (needs a Tokio runtime). It connects in the background and reconnects
/// for as long as it lives.
pub fn relay(broker: &Broker, hall: Hall) -> Result<Relay, MqttError> {
    let name = hall.name().to_string();
    check_name("hall", &name)?;
    // Several relays may follow one hall: each needs its own client id.
    let client_id = format!("tactus-relay-{name}-{}-{}", std::process::id(), unix_ms() % 1_000_000);
    let (client, eventloop) = AsyncClient::new(options(client_id, broker), 256);
    let shared = SharedHall::new(hall);
    let stats = Arc::new(RelayStats::default());
    let (tx, rx) = mpsc::channel(64);
    let follow = tokio::spawn(follow(eventloop, client.clone(), name.clone(), shared.clone(), stats.clone()));
    let send = tokio::spawn(send_controls(rx, client, name));
    Ok(Relay { hall: shared, controls: tx, stats, tasks: vec![follow, send] })
}

async fn send_controls(mut rx: mpsc::Receiver<Control>, client: AsyncClient, hall: String) {
    while let Some(c) = rx.recv().await {
        let payload = control_payload(c.input);
        if let Err(e) = client.publish(topic(&hall, &c.board, "control"), QoS::AtLeastOnce, false, payload).await {
            warn!(board = %c.board, "a control could not be published: {e}");
        }
    }
}

async fn follow(
    mut eventloop: EventLoop,
    client: AsyncClient,
    hall: String,
    shared: SharedHall,
    stats: Arc<RelayStats>,
) {
    let mut down = false;
    loop {
        match eventloop.poll().await {
            Ok(rumqttc::Event::Incoming(Packet::ConnAck(_))) => {
                info!(hall = %hall, "relay connected to the MQTT broker");
                down = false;
                // A clean session forgets subscriptions: renew them. Retained
                // states come first, on subscribing.
                let client = client.clone();
                let filters = [topic(&hall, "+", "state"), topic(&hall, "+", "events")];
                tokio::spawn(async move {
                    for filter in filters {
                        if let Err(e) = client.subscribe(filter, QoS::AtLeastOnce).await {
                            warn!("relay could not subscribe: {e}");
                        }
                    }
                });
            }
            Ok(rumqttc::Event::Incoming(Packet::Publish(p))) => receive(&hall, &shared, &stats, &p),
            Ok(other) => debug!(hall = %hall, "mqtt: {other:?}"),
            Err(e) => {
                if !down {
                    warn!(hall = %hall, "MQTT broker unreachable ({e}); retrying");
                    down = true;
                }
                tokio::time::sleep(RECONNECT).await;
            }
        }
    }
}

/// Applies one message; a malformed one is logged and counted, never fatal.
fn receive(hall: &str, shared: &SharedHall, stats: &RelayStats, p: &Publish) {
    stats.messages.fetch_add(1, Ordering::Relaxed);
    let malformed = |why: String| {
        stats.malformed.fetch_add(1, Ordering::Relaxed);
        warn!(topic = %p.topic, "a malformed message was skipped: {why}");
    };
    let mut levels = p.topic.split('/');
    let (Some("tactus"), Some(h), Some(board), Some(leaf), None) =
        (levels.next(), levels.next(), levels.next(), levels.next(), levels.next())
    else {
        return malformed("not a tactus/<hall>/<board>/<leaf> topic".into());
    };
    if h != hall {
        return malformed(format!("a message for hall {h:?}"));
    }
    let applied = match leaf {
        // An empty retained message clears the state: nothing to apply.
        "state" if p.payload.is_empty() => return,
        "state" => match serde_json::from_slice::<BoardFeed>(&p.payload) {
            // The topic names the board, whatever the payload says.
            Ok(feed) => shared.replace(BoardFeed { id: board.to_string(), ..feed }),
            Err(e) => return malformed(e.to_string()),
        },
        "events" => match serde_json::from_slice::<Envelope<Change>>(&p.payload) {
            Ok(e) => shared.change_numbered(board, e.epoch, e.seq, &e.change),
            Err(e) => return malformed(e.to_string()),
        },
        // Not subscribed: nothing else is for the relay.
        _ => return,
    };
    let counter = if applied == Applied::Stale { &stats.stale } else { &stats.applied };
    counter.fetch_add(1, Ordering::Relaxed);
}
