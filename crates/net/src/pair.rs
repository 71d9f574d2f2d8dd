//! Two boards, one game (the Laws' Appendix D two-board play; a match
//! between two schools): a [`PartnerLink`] carries what one board has to
//! tell its partner over the hall's broker, sealed with the hall key.
//!
//! Board `A` paired with `B` publishes on `tactus/<hall>/pair/A/B` and
//! listens on `tactus/<hall>/pair/+/A`: a message from any other board, or
//! one not sealed with the hall key for its topic, is ignored and counted.
//! Each message is a [`Frame`]: the sender's run (a random number for each
//! start), its sequence number in that run, the lowest number the sender
//! still holds unacknowledged (`base`, where a receiver meeting the run for
//! the first time starts), and the receiver's acknowledgement of what it
//! has taken from the partner's run. Within a run each message is
//! delivered once and in order: the receiver holds what comes early (a
//! bounded few), drops what it already took, and acknowledges; the sender
//! keeps what is unacknowledged (bounded) and sends it again on every
//! connection and on its own timer, backing off. A run's will (sent by the
//! broker when the connection dies without a goodbye) says it is gone.
//!
//! Across runs (a daemon killed and restarted) the game's own numbers do
//! the rest: each side's `hello` says which ply its game is at, and the
//! other sends again its moves from there (the daemon's `partner.rs`).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::{Filter, LastWill, Publish};
use rumqttc::v5::{AsyncClient, ConnectionError, EventLoop};
use serde::{Deserialize, Serialize};
use shakmaty::Color;
use tactus_core::{Event, EventKind};
use tactus_trace::{Claim, GameResult, OffBoardReason};
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{info, warn};

use crate::auth::{HallKey, Refusals, random_id};
use crate::mqtt::{Connection, HallLink, LinkState, MqttError, Peer, describe, sleep_until, trim_pending};
use crate::vet;
use crate::wire::{check_name, pair_topic};

/// Messages sent and not yet acknowledged that a board keeps; past this the
/// oldest goes (counted): the partner's `hello` asks again for what it lacks.
pub const UNACKED_KEPT: usize = 256;

/// Messages that came before their turn, held for it.
const EARLY_KEPT: usize = 64;

/// Messages on their way to the daemon.
const INBOX: usize = 64;

/// Requests the MQTT client holds beyond what the link keeps.
const CLIENT_QUEUE: usize = 64;

/// The first wait before unacknowledged messages are sent again, doubled
/// each time nothing is acknowledged, up to [`RESEND_MAX`].
const RESEND_FIRST: Duration = Duration::from_millis(500);
const RESEND_MAX: Duration = Duration::from_secs(8);

/// While connected, a board says it is there at least this often (with its
/// latest acknowledgement): a partner that reconnected hears it is back,
/// and an acknowledgement lost on the way is made good.
const HEARTBEAT: Duration = Duration::from_secs(1);

/// How long a stopped link goes on handing the broker what it holds.
const CLOSE_WITHIN: Duration = Duration::from_secs(1);

/// What one board tells its partner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PairMessage {
    /// The sender's game is at ply `ply` (the move being made; 1 = White's
    /// first): the receiver sends again its moves from there. `answer`:
    /// this is the reply to the receiver's own `hello`, which needs none.
    Hello { ply: u32, answer: bool },
    /// A move completed on the sender's board: its ply, the move, and the
    /// mover's time after it, as the sender's clock keeps it.
    Move {
        ply: u32,
        uci: String,
        san: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock_ms: Option<i64>,
    },
    /// Two boards at one table, the clock attached to the sender's board:
    /// the receiver's player pressed it while the sender's game was at ply
    /// `ply`, and had `clock_ms` after the press as that clock read it.
    Press { ply: u32, clock_ms: i64 },
    /// At one table, the clock attached to the sender's board: whether it
    /// is there (unplugged: the game goes on timed by the boards).
    TableClock { connected: bool },
    /// At one table, the clock attached to the sender's board was stopped
    /// (6.11, the arbiter's pause) or restarted: the receiver's clocks stop
    /// and run again with it.
    TableClockStopped { stopped: bool },
    /// A ruling made on the sender's board (an irregularity, a penalty), to
    /// be said on the partner's too.
    Ruling { event: Event },
    /// The game ended on the sender's board in a way the partner's board
    /// cannot see for itself (a flag, a second illegal move, a resignation,
    /// an agreement, the arbiter): its result, and the reason off the board.
    Over { result: GameResult, reason: OffBoardReason },
    /// The sender's player offered a draw (9.1.2) while the sender's game
    /// was at ply `ply`: an offer the receiver's game has since passed (a
    /// move made meanwhile declined it) is not taken.
    DrawOffer { ply: u32 },
    /// A claim ruled on the sender's board (upheld, or incorrect: 9.5.3)
    /// where the claimant was to make ply `ply`: the receiver's game, at
    /// the same ply, rules it too — a draw by 9.2 or 9.3 ends it for the
    /// same reason; an illegal move that stood (A.5.2) is taken back there
    /// and counted (7.5.5).
    Claim {
        ply: u32,
        #[serde(with = "tactus_core::serde_chess::color")]
        side: Color,
        claim: Claim,
    },
}

/// What the link hands the daemon.
#[derive(Debug, Clone, PartialEq)]
pub enum FromPartner {
    Message(PairMessage),
    /// The partner cannot be reached (its run said goodbye without one, or
    /// this board lost the broker); said once.
    Away,
    /// The partner is heard again after [`FromPartner::Away`].
    Back,
}

/// An acknowledgement: everything up to `seq` of the sender's run `run` was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Ack {
    run: u64,
    seq: u64,
}

/// One message on a pair topic; `seq` 0 carries no message (an
/// acknowledgement, or the will).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Frame {
    run: u64,
    #[serde(default)]
    seq: u64,
    #[serde(default)]
    base: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ack: Option<Ack>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    msg: Option<PairMessage>,
    /// The run is over: the broker sends this as the run's will.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    gone: bool,
}

/// What one board sends: numbered, kept until acknowledged.
#[derive(Debug)]
pub(crate) struct Outbox {
    run: u64,
    next: u64,
    unacked: VecDeque<(u64, PairMessage)>,
    /// Unacknowledged messages dropped to keep the bound.
    dropped: u64,
}

impl Outbox {
    fn new(run: u64) -> Outbox {
        Outbox { run, next: 1, unacked: VecDeque::new(), dropped: 0 }
    }

    /// The lowest number still held (the next one when none is).
    fn base(&self) -> u64 {
        self.unacked.front().map_or(self.next, |(seq, _)| *seq)
    }

    fn push(&mut self, msg: PairMessage) -> u64 {
        let seq = self.next;
        self.next += 1;
        if self.unacked.len() >= UNACKED_KEPT {
            self.unacked.pop_front();
            self.dropped += 1;
        }
        self.unacked.push_back((seq, msg));
        seq
    }

    /// Drops what `ack` covers; whether it covered anything.
    fn acked(&mut self, ack: Ack) -> bool {
        if ack.run != self.run {
            return false;
        }
        let before = self.unacked.len();
        self.unacked.retain(|(seq, _)| *seq > ack.seq);
        self.unacked.len() < before
    }

    /// The frames of the messages numbered from `from` on.
    fn frames_from(&self, from: u64, ack: Option<Ack>) -> Vec<Frame> {
        let base = self.base();
        self.unacked
            .iter()
            .filter(|(seq, _)| *seq >= from)
            .map(|(seq, msg)| Frame { run: self.run, seq: *seq, base, ack, msg: Some(msg.clone()), gone: false })
            .collect()
    }
}

/// What one board has taken from its partner's current run.
#[derive(Debug, Default)]
pub(crate) struct Inbox {
    /// The partner's run and the next number expected from it.
    from: Option<(u64, u64)>,
    early: BTreeMap<u64, PairMessage>,
    /// Messages taken twice (sent again after a lost acknowledgement).
    duplicates: u64,
}

impl Inbox {
    /// The acknowledgement of what was taken from the partner's run, if any.
    fn acked(&self) -> Option<Ack> {
        self.from.map(|(run, next)| Ack { run, seq: next - 1 })
    }

    /// Takes a message frame: what it makes deliverable, in order, and the
    /// acknowledgement to send; `room` is how many the daemon can take now
    /// (what does not fit is not acknowledged, and comes again).
    fn take(&mut self, frame: &Frame, room: usize) -> (Vec<PairMessage>, Ack) {
        let next = match self.from {
            Some((run, next)) if run == frame.run => next,
            // A new run of the partner's: it starts where the sender says.
            _ => {
                self.early.clear();
                frame.base.max(1)
            }
        };
        let mut next = next;
        if let Some(msg) = &frame.msg {
            if frame.seq < next {
                self.duplicates += 1;
            } else if frame.seq > next {
                if self.early.len() < EARLY_KEPT || self.early.contains_key(&frame.seq) {
                    self.early.insert(frame.seq, msg.clone());
                }
            } else {
                self.early.insert(frame.seq, msg.clone());
            }
        }
        let mut out = Vec::new();
        while out.len() < room
            && let Some(msg) = self.early.remove(&next)
        {
            out.push(msg);
            next += 1;
        }
        self.from = Some((frame.run, next));
        (out, Ack { run: frame.run, seq: next - 1 })
    }
}

/// Whether the partner is heard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presence {
    /// Not yet, since the start: nothing is said.
    Unheard,
    Here {
        run: u64,
    },
    Away,
}

struct State {
    link: LinkState,
    outbox: Outbox,
    inbox: Inbox,
    presence: Presence,
    /// Numbers up to this were handed to the client on this connection.
    handed: u64,
    /// An acknowledgement to send.
    ack_due: Option<Ack>,
    /// When the unacknowledged are sent again, and the wait after that.
    resend_at: Option<Instant>,
    resend_step: Duration,
    /// When anything was last handed to the client.
    said_at: Instant,
}

struct Shared {
    state: Mutex<State>,
    wake: Notify,
    refused: Refusals,
    malformed: AtomicU64,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A board's link to its partner board. Its methods never block: the
/// messages wait in bounded queues between the daemon and the broker.
/// It stops when its owner's token is cancelled, or on [`shutdown`].
///
/// [`shutdown`]: PartnerLink::shutdown
pub struct PartnerLink {
    shared: Arc<Shared>,
    rx: mpsc::Receiver<FromPartner>,
    partner: String,
    stop: CancellationToken,
    tasks: TaskTracker,
}

impl PartnerLink {
    /// Links board `board` of hall `hall` with board `partner` (needs a
    /// Tokio runtime and the hall key: without one, anyone on the broker
    /// could make moves). It connects in the background and reconnects
    /// until stopped.
    pub fn start(
        link: &HallLink,
        hall: &str,
        board: &str,
        partner: &str,
        stop: &CancellationToken,
    ) -> Result<PartnerLink, MqttError> {
        check_name("hall", hall)?;
        check_name("board", board)?;
        check_name("partner board", partner)?;
        let Some(key) = link.key.clone() else { return Err(MqttError::NoHallKey) };
        let run = random_id();
        let out_topic = pair_topic(hall, board, partner);
        let mut options = link.options(format!("tactus-{hall}-{board}-pair"))?;
        // The broker says for us that this run is gone when it dies unheard.
        let will = Frame { run, seq: 0, base: 0, ack: None, msg: None, gone: true };
        let will = key.seal(&out_topic, "", &serde_json::to_vec(&will).expect("a frame serializes"));
        options.set_last_will(LastWill::new(out_topic.clone(), will, QoS::AtLeastOnce, false, None));
        let (client, eventloop) = AsyncClient::new(options, CLIENT_QUEUE);
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                link: LinkState::Connecting,
                outbox: Outbox::new(run),
                inbox: Inbox::default(),
                presence: Presence::Unheard,
                handed: 0,
                ack_due: None,
                resend_at: None,
                resend_step: RESEND_FIRST,
                said_at: Instant::now(),
            }),
            wake: Notify::new(),
            refused: Refusals::default(),
            malformed: AtomicU64::new(0),
        });
        let (tx, rx) = mpsc::channel(INBOX);
        let connection = Connection::new(client, stop);
        let (stop, tasks) = (connection.stop.clone(), connection.tasks.clone());
        let side = Side {
            shared: shared.clone(),
            client: connection.client.clone(),
            key,
            stop: stop.clone(),
            over: connection.over.clone(),
            hall_link: link.clone(),
            board: board.to_string(),
            partner: partner.to_string(),
            out_topic,
            in_filter: pair_topic(hall, "+", board),
            in_prefix: format!("tactus/{hall}/pair/"),
            tx,
        };
        tasks.spawn(side.clone().hand());
        tasks.spawn(connection.drive(eventloop, side, None, || CLOSE_WITHIN));
        tasks.close();
        Ok(PartnerLink { shared, rx, partner: partner.to_string(), stop, tasks })
    }

    /// The partner board's name.
    pub fn partner(&self) -> &str {
        &self.partner
    }

    /// Sends `msg` to the partner: numbered, kept until it acknowledges.
    pub fn send(&self, msg: PairMessage) {
        self.shared.lock().outbox.push(msg);
        self.shared.wake.notify_one();
    }

    /// What comes next from the partner.
    pub async fn next(&mut self) -> FromPartner {
        match self.rx.recv().await {
            Some(from) => from,
            // The link stopped: nothing more comes.
            None => std::future::pending().await,
        }
    }

    /// Messages ignored: not sealed with the hall key for their topic, from
    /// a board that is not the partner, or not a pair message.
    pub fn refused(&self) -> u64 {
        self.shared.refused.count()
    }

    /// Unacknowledged messages dropped to keep the bound.
    pub fn dropped(&self) -> u64 {
        self.shared.lock().outbox.dropped
    }

    /// Messages the partner sent twice and that were taken once.
    pub fn duplicates(&self) -> u64 {
        self.shared.lock().inbox.duplicates
    }

    /// Messages not yet acknowledged by the partner.
    pub fn unacked(&self) -> usize {
        self.shared.lock().outbox.unacked.len()
    }

    /// Whether the broker has the connection now.
    pub fn connected(&self) -> bool {
        self.shared.lock().link == LinkState::Up
    }

    /// Stops, says goodbye to the broker, and waits (at most about a second
    /// for the broker) until the link's tasks have ended.
    pub async fn shutdown(&self) {
        self.stop.cancel();
        self.tasks.wait().await;
    }
}

impl Drop for PartnerLink {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// The link's side of its connection: shared by the task that hands the
/// client what is due and the one that drives the connection.
#[derive(Clone)]
struct Side {
    shared: Arc<Shared>,
    client: AsyncClient,
    key: HallKey,
    stop: CancellationToken,
    over: CancellationToken,
    hall_link: HallLink,
    board: String,
    partner: String,
    out_topic: String,
    in_filter: String,
    in_prefix: String,
    tx: mpsc::Sender<FromPartner>,
}

impl Side {
    /// Hands the client, while connected, the messages not yet handed on
    /// this connection and the acknowledgement due; sends the
    /// unacknowledged again when the timer says so.
    async fn hand(self) {
        loop {
            // The messages due, and an acknowledgement-only frame if one is due.
            let (frames, lone) = {
                let mut s = self.shared.lock();
                let now = Instant::now();
                if s.link != LinkState::Up {
                    // Everything goes again on the next connection.
                    s.resend_at = None;
                    (Vec::new(), None)
                } else {
                    if s.resend_at.is_some_and(|at| now >= at) {
                        // Nothing acknowledged in time: all again, waiting longer.
                        s.handed = 0;
                        s.resend_step = (s.resend_step * 2).min(RESEND_MAX);
                        s.resend_at = None;
                    }
                    let ack = s.ack_due.take();
                    // Nothing said for a while: the board says it is there.
                    let beat = now >= s.said_at + HEARTBEAT;
                    let frames = s.outbox.frames_from(s.handed + 1, ack.or(s.inbox.acked()));
                    if let Some(last) = frames.last() {
                        s.handed = last.seq;
                    }
                    if !s.outbox.unacked.is_empty() && s.resend_at.is_none() {
                        s.resend_at = Some(now + s.resend_step);
                    }
                    // An acknowledgement rides on a message when there is one.
                    let lone = (frames.is_empty() && (ack.is_some() || beat)).then(|| Frame {
                        run: s.outbox.run,
                        seq: 0,
                        base: 0,
                        ack: ack.or(s.inbox.acked()),
                        msg: None,
                        gone: false,
                    });
                    if !frames.is_empty() || lone.is_some() {
                        s.said_at = now;
                    }
                    (frames, lone)
                }
            };
            for frame in frames.iter().chain(&lone) {
                if !self.publish(frame).await {
                    return;
                }
            }
            let (resend_at, beat_at) = {
                let s = self.shared.lock();
                (s.resend_at, (s.link == LinkState::Up).then_some(s.said_at + HEARTBEAT))
            };
            tokio::select! {
                () = self.shared.wake.notified() => {}
                () = sleep_until(resend_at) => {}
                () = sleep_until(beat_at) => {}
                () = self.stop.cancelled() => return,
            }
        }
    }

    async fn publish(&self, frame: &Frame) -> bool {
        let Ok(body) = serde_json::to_vec(frame) else { return true };
        let payload = self.key.seal(&self.out_topic, "", &body);
        let publish = self.client.publish(self.out_topic.clone(), QoS::AtLeastOnce, false, payload);
        matches!(self.over.run_until_cancelled(publish).await, Some(Ok(())))
    }

    fn refuse(&self, why: impl FnOnce() -> String) {
        self.shared.refused.warn(|| format!("board {}: a pair message was ignored: {}", self.board, why()));
    }

    /// One message from a pair topic: checked, taken in order, acknowledged.
    fn receive(&self, p: &Publish) {
        let topic = String::from_utf8_lossy(&p.topic);
        let from = topic.strip_prefix(&self.in_prefix).and_then(|rest| rest.split('/').next()).unwrap_or("");
        if from != self.partner {
            return self.refuse(|| format!("from board {from:?}, not the partner {:?}", self.partner));
        }
        let opened = match self.key.open(&topic, &p.payload) {
            Ok(opened) => opened,
            Err(e) => return self.refuse(|| e.to_string()),
        };
        let frame = match serde_json::from_slice::<Frame>(opened.body).map_err(|e| e.to_string()).and_then(checked) {
            Ok(frame) => frame,
            Err(e) => {
                self.shared.malformed.fetch_add(1, Ordering::Relaxed);
                return self.refuse(|| format!("not a pair message: {e}"));
            }
        };
        let mut told = Vec::new();
        let mut s = self.shared.lock();
        if frame.gone {
            if s.presence == (Presence::Here { run: frame.run }) {
                s.presence = Presence::Away;
                told.push(FromPartner::Away);
            }
        } else {
            if !matches!(s.presence, Presence::Here { run } if run == frame.run) {
                // A partner heard anew may be a new run that has none of
                // what was handed before: all of it goes again now.
                s.handed = 0;
            }
            match s.presence {
                Presence::Away => told.push(FromPartner::Back),
                Presence::Unheard => info!(board = %self.board, "pair: the partner board {} is heard", self.partner),
                Presence::Here { .. } => {}
            }
            s.presence = Presence::Here { run: frame.run };
        }
        if let Some(ack) = frame.ack
            && s.outbox.acked(ack)
        {
            s.resend_step = RESEND_FIRST;
            s.resend_at = None;
            s.handed = s.handed.max(ack.seq);
        }
        if frame.msg.is_some() {
            let room = self.tx.capacity().saturating_sub(told.len());
            let (messages, ack) = s.inbox.take(&frame, room);
            told.extend(messages.into_iter().map(FromPartner::Message));
            s.ack_due = Some(ack);
        }
        drop(s);
        self.shared.wake.notify_one();
        for from in told {
            // Room was counted above: only this task sends.
            let _ = self.tx.try_send(from);
        }
    }
}

/// A frame as a partner may send it: a ruling only of the kinds the
/// partner's board rules, checked as a relay checks a board's events.
fn checked(mut frame: Frame) -> Result<Frame, String> {
    if let Some(PairMessage::Ruling { event }) = frame.msg {
        if !matches!(event.kind, EventKind::Irregularity(_) | EventKind::Penalty { .. }) {
            return Err("a ruling that is not an irregularity or a penalty".into());
        }
        frame.msg = Some(PairMessage::Ruling { event: vet::event(event, false).map_err(|e| e.to_string())? });
    }
    if let Some(PairMessage::Move { uci, san, .. }) = &mut frame.msg {
        uci.parse::<shakmaty::uci::UciMove>().map_err(|_| "a move that is not in UCI".to_string())?;
        san.truncate(32);
    }
    if let Some(PairMessage::Press { clock_ms, .. }) = frame.msg
        && clock_ms < 0
    {
        return Err("a press with a time below zero".into());
    }
    if frame.msg.is_some() && frame.seq == 0 {
        return Err("a message without a number".into());
    }
    Ok(frame)
}

impl Peer for Side {
    fn connected(&mut self) -> Vec<Filter> {
        info!(board = %self.board, partner = %self.partner, "pair: connected to the MQTT broker {}", self.hall_link.broker);
        vec![Filter::new(self.in_filter.clone(), QoS::AtLeastOnce)]
    }

    /// Everything unacknowledged goes again on a new connection, once the
    /// partner's answers can be heard.
    fn subscribed(&mut self) {
        let mut s = self.shared.lock();
        s.link = LinkState::Up;
        s.handed = 0;
        s.resend_at = None;
        s.resend_step = RESEND_FIRST;
        drop(s);
        self.shared.wake.notify_one();
    }

    fn received(&mut self, p: &Publish) {
        if p.retain {
            return self.refuse(|| "it was retained by the broker (pair messages never are)".into());
        }
        self.receive(p);
    }

    /// The link keeps what is unacknowledged itself: the client's own
    /// copies are dropped. The partner cannot be heard now: said once.
    fn lost(&mut self, eventloop: &mut EventLoop, why: &ConnectionError, first: bool) {
        trim_pending(eventloop, 0);
        let mut s = self.shared.lock();
        s.link = LinkState::Down;
        let away = matches!(s.presence, Presence::Here { .. });
        if away {
            s.presence = Presence::Away;
        }
        drop(s);
        if first {
            warn!(board = %self.board, "pair: {}; retrying", describe(why, &self.hall_link));
        }
        if away {
            let _ = self.tx.try_send(FromPartner::Away);
        }
    }

    fn closed(&mut self, _away: bool) {
        self.shared.lock().link = LinkState::Closed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(ply: u32) -> PairMessage {
        PairMessage::Move { ply, uci: "e2e4".into(), san: "e4".into(), clock_ms: Some(60_000) }
    }

    #[test]
    fn messages_are_delivered_once_and_in_order() {
        let mut out = Outbox::new(7);
        for ply in 1..=3 {
            out.push(mv(ply));
        }
        let frames = out.frames_from(1, None);
        let mut inbox = Inbox::default();
        // The third comes first, then the first twice, then the second.
        let (got, ack) = inbox.take(&frames[2], 10);
        assert!(got.is_empty(), "held for its turn");
        assert_eq!(ack, Ack { run: 7, seq: 0 });
        assert_eq!(inbox.take(&frames[0], 10).0, [mv(1)]);
        assert!(inbox.take(&frames[0], 10).0.is_empty(), "a duplicate is dropped");
        let (got, ack) = inbox.take(&frames[1], 10);
        assert_eq!(got, [mv(2), mv(3)]);
        assert_eq!(ack, Ack { run: 7, seq: 3 });
        assert_eq!(inbox.duplicates, 1);
        assert!(out.acked(ack));
        assert!(out.unacked.is_empty());
        assert!(!out.acked(Ack { run: 8, seq: 9 }), "another run's acknowledgement counts for nothing");
    }

    #[test]
    fn a_new_run_starts_where_its_sender_still_holds() {
        let mut out = Outbox::new(1);
        for ply in 1..=4 {
            out.push(mv(ply));
        }
        out.acked(Ack { run: 1, seq: 2 });
        let frames = out.frames_from(1, None);
        assert_eq!(frames[0].base, 3);
        let mut inbox = Inbox::default();
        assert_eq!(inbox.take(&frames[0], 10).0, [mv(3)], "a receiver that restarted takes what is still held");
        // The partner restarts: its new run counts from its own base.
        let mut again = Outbox::new(2);
        again.push(mv(9));
        assert_eq!(inbox.take(&again.frames_from(1, None)[0], 10).0, [mv(9)]);
    }

    #[test]
    fn what_the_daemon_has_no_room_for_comes_again() {
        let mut out = Outbox::new(3);
        out.push(mv(1));
        out.push(mv(2));
        let frames = out.frames_from(1, None);
        let mut inbox = Inbox::default();
        let (got, ack) = inbox.take(&frames[0], 0);
        assert!(got.is_empty());
        assert_eq!(ack.seq, 0, "not acknowledged");
        assert_eq!(inbox.take(&frames[1], 5).0, [mv(1), mv(2)]);
    }

    #[test]
    fn queues_are_bounded() {
        let mut out = Outbox::new(1);
        for ply in 0..(UNACKED_KEPT as u32 + 10) {
            out.push(mv(ply));
        }
        assert_eq!(out.unacked.len(), UNACKED_KEPT);
        assert_eq!(out.dropped, 10);
        let mut inbox = Inbox::default();
        inbox.take(&out.frames_from(1, None)[0], 1);
        for frame in out.frames_from(20, None) {
            inbox.take(&frame, 1);
        }
        assert!(inbox.early.len() <= EARLY_KEPT);
    }

    #[test]
    fn frames_read_and_write_as_documented() {
        let frame = Frame {
            run: 5,
            seq: 2,
            base: 1,
            ack: Some(Ack { run: 9, seq: 4 }),
            msg: Some(PairMessage::Move { ply: 3, uci: "g1f3".into(), san: "Nf3".into(), clock_ms: Some(299_000) }),
            gone: false,
        };
        let text = serde_json::to_string(&frame).unwrap();
        assert_eq!(
            text,
            r#"{"run":5,"seq":2,"base":1,"ack":{"run":9,"seq":4},"msg":{"kind":"move","ply":3,"uci":"g1f3","san":"Nf3","clock_ms":299000}}"#
        );
        assert_eq!(serde_json::from_str::<Frame>(&text).unwrap(), frame);
        let hello: Frame =
            serde_json::from_str(r#"{"run":1,"seq":1,"msg":{"kind":"hello","ply":1,"answer":false}}"#).unwrap();
        assert!(checked(hello).is_ok());
        let bad: Frame =
            serde_json::from_str(r#"{"run":1,"seq":1,"msg":{"kind":"move","ply":1,"uci":"e2e4 1-0","san":""}}"#)
                .unwrap();
        assert!(checked(bad).is_err());
        let press: Frame =
            serde_json::from_str(r#"{"run":1,"seq":3,"msg":{"kind":"press","ply":4,"clock_ms":287000}}"#).unwrap();
        assert_eq!(checked(press).unwrap().msg, Some(PairMessage::Press { ply: 4, clock_ms: 287_000 }));
        let below: Frame =
            serde_json::from_str(r#"{"run":1,"seq":3,"msg":{"kind":"press","ply":4,"clock_ms":-1}}"#).unwrap();
        assert!(checked(below).is_err());
        let unnumbered: Frame =
            serde_json::from_str(r#"{"run":1,"msg":{"kind":"hello","ply":1,"answer":true}}"#).unwrap();
        assert!(checked(unnumbered).is_err());
        let over: Frame =
            serde_json::from_str(r#"{"run":1,"seq":2,"msg":{"kind":"over","result":"0-1","reason":"resignation"}}"#)
                .unwrap();
        let want = PairMessage::Over { result: GameResult::BlackWins, reason: OffBoardReason::Resignation };
        assert_eq!(over.msg, Some(want));
        assert!(
            serde_json::from_str::<Frame>(
                r#"{"run":1,"seq":2,"msg":{"kind":"over","result":"2-0","reason":"arbiter"}}"#
            )
            .is_err()
        );
        let offer: Frame = serde_json::from_str(r#"{"run":1,"seq":3,"msg":{"kind":"draw_offer","ply":12}}"#).unwrap();
        assert_eq!(offer.msg, Some(PairMessage::DrawOffer { ply: 12 }));
        let claim = PairMessage::Claim { ply: 9, side: Color::White, claim: Claim::Threefold };
        assert_eq!(
            serde_json::to_string(&claim).unwrap(),
            r#"{"kind":"claim","ply":9,"side":"white","claim":"threefold"}"#
        );
        assert!(
            serde_json::from_str::<PairMessage>(r#"{"kind":"claim","ply":9,"side":"white","claim":"a win"}"#).is_err()
        );
        let paused = r#"{"run":1,"seq":1,"msg":{"kind":"ruling","event":{"t":1,"event":"paused"}}}"#;
        assert!(checked(serde_json::from_str(paused).unwrap()).is_err(), "a ruling is an irregularity or a penalty");
    }
}
