//! A relay's word to each board of a round: its pairing, on
//! `tactus/<hall>/<board>/pairing`, sealed with the hall key as a control
//! is (`epoch` the board's run it is for, `from` this sender's run, `n` its
//! wall clock in µs, only growing), so that a board takes it once, only in
//! the run it was sent to, and can tell a newer pairing from an older one
//! replayed. Its own connection to the broker, beside the relay's: what
//! decides when a board needs its pairing (the round, in `tactus relay`)
//! stays out of the relay's following.

use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::{Filter, Publish};
use rumqttc::v5::{AsyncClient, ConnectionError, EventLoop};
use tactus_trace::Pairing;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{info, warn};

use crate::auth::{HallKey, random_id};
use crate::mqtt::{Connection, HallLink, MqttError, Peer, describe, trim_pending};
use crate::wire::{ControlSeal, Leaf, Topic, check_name, unix_ms};

/// Pairings waiting for the broker; past this a send is refused (the
/// round sends again on its next look).
const WAITING: usize = 256;

/// One pairing on its way.
struct Outgoing {
    board: String,
    epoch: u64,
    pairing: Pairing,
}

/// Sends the round's pairings to the boards. It stops when its owner's
/// token is cancelled, or when dropped: what it has not sent then is not
/// sent (the round sends again once it starts again).
pub struct PairingSender {
    tx: mpsc::Sender<Outgoing>,
    stop: CancellationToken,
    tasks: TaskTracker,
}

impl PairingSender {
    /// Connects to the hall's broker (in the background, again and again
    /// until stopped). Only with the hall key: a board takes a pairing only
    /// sealed with it.
    pub fn start(link: &HallLink, hall: &str, stop: &CancellationToken) -> Result<PairingSender, MqttError> {
        check_name("hall", hall)?;
        let key = link.key.clone().ok_or(MqttError::NoHallKey)?;
        let client_id = format!("tactus-round-{hall}-{:016x}", random_id());
        let (client, eventloop) = AsyncClient::new(link.options(client_id)?, 64);
        let connection = Connection::new(client, stop);
        let (stop, tasks) = (connection.stop.clone(), connection.tasks.clone());
        let (tx, rx) = mpsc::channel(WAITING);
        let sending = Sending { client: connection.client.clone(), hall: hall.to_string(), key };
        let task = tasks.spawn(sending.run(rx, stop.clone(), connection.over.clone()));
        let peer = Quiet { link: link.clone(), hall: hall.to_string() };
        tasks.spawn(connection.drive(eventloop, peer, Some(task), || std::time::Duration::from_secs(1)));
        tasks.close();
        Ok(PairingSender { tx, stop, tasks })
    }

    /// Sends `pairing` to `board`, sealed for its run `epoch`; false when
    /// too many wait already (send again later).
    pub fn send(&self, board: &str, epoch: u64, pairing: &Pairing) -> bool {
        let out = Outgoing { board: board.to_string(), epoch, pairing: pairing.clone() };
        self.tx.try_send(out).is_ok()
    }

    /// Waits until the sender has stopped and its tasks have ended.
    pub async fn stopped(&self) {
        self.tasks.wait().await;
    }
}

impl Drop for PairingSender {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

struct Sending {
    client: AsyncClient,
    hall: String,
    key: HallKey,
}

impl Sending {
    async fn run(self, mut rx: mpsc::Receiver<Outgoing>, stop: CancellationToken, over: CancellationToken) {
        let from = random_id();
        let mut n = 0u64;
        loop {
            let out = tokio::select! {
                out = rx.recv() => out,
                () = stop.cancelled() => return,
            };
            let Some(out) = out else { return };
            // Microseconds of the wall clock, and never the same twice: a
            // later pairing has a larger number, whichever relay sent it.
            n = (n + 1).max(unix_ms().saturating_mul(1000));
            let topic = Topic::new(&self.hall, &out.board, Leaf::Pairing).to_string();
            let seal = ControlSeal { epoch: out.epoch, from, n };
            let Ok(body) = serde_json::to_vec(&out.pairing) else { continue };
            let payload = self.key.seal(&topic, &seal.params(), &body);
            match over.run_until_cancelled(self.client.publish(topic, QoS::AtLeastOnce, false, payload)).await {
                Some(Ok(())) => {}
                Some(Err(e)) => warn!(board = %out.board, "a pairing could not be published: {e}"),
                None => return,
            }
        }
    }
}

/// The sender's side of the connection: it subscribes to nothing.
struct Quiet {
    link: HallLink,
    hall: String,
}

impl Peer for Quiet {
    fn connected(&mut self) -> Vec<Filter> {
        info!(hall = %self.hall, "the round's sender connected to the MQTT broker {}", self.link.broker);
        Vec::new()
    }

    fn received(&mut self, _: &Publish) {}

    /// What it held for a connection that ended is dropped: the round sends
    /// each board its pairing again until the board shows it.
    fn lost(&mut self, eventloop: &mut EventLoop, why: &ConnectionError, first: bool) {
        if first {
            warn!(hall = %self.hall, "the round's sender: {}; retrying", describe(why, &self.link));
        }
        trim_pending(eventloop, 0);
    }

    fn closed(&mut self, _away: bool) {}
}
