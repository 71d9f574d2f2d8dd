//! Two boards, one game (the Laws' Appendix D two-board play; a match
//! between two schools): a [`PartnerLink`] carries what one board has to
//! tell its partner over the hall's broker, sealed with the hall key.
//!
//! Board `A` paired with `B` publishes on `tactus/<hall>/pair/A/B` and
//! listens on `tactus/<hall>/pair/+/A` (and on its own topic, for a second
//! daemon going by its name): a message from any other board, or one not
//! sealed with the hall key for its topic, is refused and counted.
//!
//! **Runs.** Each start of a link is a *run*, a random number. Every frame
//! names its sender's run; a frame that carries a message also names the
//! receiver's run it is for (`to`), so that nothing recorded before the
//! receiver's run began — a whole earlier game, say, played back by a
//! stranger on the broker — can count in it. A board learns its partner's
//! run in three steps:
//!
//! ```text
//!   a frame of run R not addressed to us ──▶ candidate: answered at once with a beacon addressed to R
//!   a frame of run R addressed to our run ──▶ R is the partner's run; the one before is retired for good
//!   a frame of a retired run ──────────────▶ refused (a replay, or a straggler of a run that is gone)
//!   a message of the partner's run addressed elsewhere ──▶ refused (it comes again, addressed to us)
//!   the partner's run's will ──────────────▶ away, until a frame of it (or of a newer run) comes
//! ```
//!
//! Only a run that is there now can name ours, which is new: a candidate
//! is believed once it has answered.
//!
//! **Within a run pair** each message is delivered once and in order: the
//! receiver holds what comes early (a bounded few), drops what it already
//! took, and acknowledges; the sender keeps what is unacknowledged
//! (bounded) and sends it again on every connection and on its own timer,
//! backing off. Each message also names the game it is of (a
//! [`PairGame`], which the daemon's partner checks): a message of an
//! earlier game delivered late changes nothing in this one.
//!
//! **A second daemon by this board's name** (a copy started by mistake) is
//! found by its frames on this board's own topic: each run answers a
//! stranger run there with a beacon addressed to it, and a frame there
//! addressed to this run is a second daemon that is there now. Both stop
//! playing with the partner ([`FromPartner::Twin`]) and say why; each
//! connects under a client id of its run's, so they never knock each
//! other off the broker.
//!
//! Across runs (a daemon killed and restarted) the game's own numbers do
//! the rest: each side's `hello` says which ply its game is at, and the
//! other sends again its moves from there (the daemon's `partner`).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::{Filter, LastWill, Publish};
use rumqttc::v5::{AsyncClient, ConnectionError, EventLoop};
use serde::{Deserialize, Serialize};
use shakmaty::Color;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use tactus_clock::TimeControl;
use tactus_core::{Event, EventKind};
use tactus_retry::Backoff;
use tactus_trace::{Claim, GameResult, OffBoardReason, TableClock};
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{error, info, warn};

use crate::auth::{HallKey, Refusals, random_id};
use crate::mqtt::{Connection, HallLink, LinkState, MqttError, Peer, describe, sleep_until, trim_pending};
use crate::vet;
use crate::wire::{PairTopic, check_name};

/// Messages sent and not yet acknowledged that a board keeps; past this the
/// oldest goes (counted): the partner's `hello` asks again for what it lacks.
pub const UNACKED_KEPT: usize = 256;

/// Messages that came before their turn, held for it.
const EARLY_KEPT: usize = 64;

/// Messages on their way to the daemon.
const INBOX: usize = 64;

/// Requests the MQTT client holds beyond what the link keeps.
const CLIENT_QUEUE: usize = 64;

/// Runs of the partner's that are gone, remembered so that none counts
/// again; and stranger runs answered lately. Bounded: the oldest go.
const RUNS_KEPT: usize = 16;

/// A stranger run is answered at most this often.
const ANSWER_EVERY: Duration = Duration::from_secs(1);

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

/// The game two boards play, as each names it: the number White's board
/// drew for its game, and Black's (0: not known yet). A message counts
/// only for its game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct PairGame {
    pub white: u64,
    pub black: u64,
}

impl PairGame {
    /// A fresh number for a board's new game: random, never 0, and within
    /// what a journal keeps (`tactus_trace::range::PAIR_GAME`).
    pub fn draw() -> u64 {
        let range = tactus_trace::range::PAIR_GAME.values;
        random_id() % range.end() + range.start()
    }

    /// The number of `side`'s board.
    pub fn of(&self, side: Color) -> u64 {
        match side {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// With `side`'s board's number set to `n`.
    pub fn with(self, side: Color, n: u64) -> PairGame {
        match side {
            Color::White => PairGame { white: n, ..self },
            Color::Black => PairGame { black: n, ..self },
        }
    }
}

/// How a board is set to play, as its `hello` says it: the partner's must
/// fit (the other side, the same time control, the table's one clock at
/// one of the two).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    /// The side this board's player has.
    #[serde(with = "tactus_core::serde_chess::color")]
    pub plays: Color,
    /// The game's time control; none: no clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
    /// One clock at the table: where it is, from this board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_clock: Option<TableClock>,
}

/// What one board tells its partner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PairMessage {
    /// The sender's game is at ply `ply` (the move being made; 1 = White's
    /// first): the receiver sends again its moves from there. `answer`:
    /// this is the reply to the receiver's own `hello`, which needs none.
    /// `seat`: how the sender is set to play (absent from older boards).
    Hello {
        ply: u32,
        answer: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
    },
    /// A move completed on the sender's board: its ply, the move, and the
    /// mover's time after it, as the sender's clock keeps it.
    Move {
        ply: u32,
        #[serde(with = "uci_text")]
        uci: UciMove,
        /// None for an illegal move that stood (A.5.2), which has no SAN.
        #[serde(default, with = "san_text", skip_serializing_if = "Option::is_none")]
        san: Option<SanPlus>,
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

/// A move in UCI on the wire: parsed here, at the edge.
mod uci_text {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::uci::UciMove;

    pub fn serialize<S: Serializer>(uci: &UciMove, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(uci)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<UciMove, D::Error> {
        let text = <&str>::deserialize(d)?;
        text.parse().map_err(|_| D::Error::custom(format!("{:?} is not a move in UCI", crate::feed::clean(text, 16))))
    }
}

/// A move in SAN on the wire: parsed here, at the edge.
mod san_text {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::san::SanPlus;

    pub fn serialize<S: Serializer>(san: &Option<SanPlus>, s: S) -> Result<S::Ok, S::Error> {
        match san {
            Some(san) => s.collect_str(san),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SanPlus>, D::Error> {
        let Some(text) = Option::<&str>::deserialize(d)? else { return Ok(None) };
        let san = text
            .parse()
            .map_err(|_| D::Error::custom(format!("{:?} is not a move in SAN", crate::feed::clean(text, 16))))?;
        Ok(Some(san))
    }
}

/// What the link hands the daemon.
#[derive(Debug, Clone, PartialEq)]
pub enum FromPartner {
    /// A message of the partner's, and the game it names.
    Message { game: PairGame, msg: PairMessage },
    /// The partner cannot be reached (its run said goodbye without one, or
    /// this board lost the broker); said once.
    Away,
    /// The partner is heard again after [`FromPartner::Away`].
    Back,
    /// Another daemon on the broker goes by this board's name: the link
    /// has stopped, and nothing more comes.
    Twin,
}

/// An acknowledgement: everything up to `seq` of the sender's run `run` was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Ack {
    run: u64,
    seq: u64,
}

/// One message on a pair topic; `seq` 0 carries no message (a beacon: an
/// acknowledgement, a heartbeat, an answer to a run, the will).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Frame {
    run: u64,
    /// The receiver's run this frame is for (0: not known yet).
    #[serde(default, skip_serializing_if = "is_zero")]
    to: u64,
    #[serde(default)]
    seq: u64,
    #[serde(default)]
    base: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ack: Option<Ack>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    game: Option<PairGame>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    msg: Option<PairMessage>,
    /// The run is over: the broker sends this as the run's will.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    gone: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Frame {
    /// A frame with no message.
    fn beacon(run: u64, to: u64, ack: Option<Ack>) -> Frame {
        Frame { run, to, seq: 0, base: 0, ack, game: None, msg: None, gone: false }
    }
}

/// What one board sends: numbered, kept until acknowledged.
#[derive(Debug)]
pub(crate) struct Outbox {
    run: u64,
    next: u64,
    unacked: VecDeque<(u64, PairGame, PairMessage)>,
    /// Unacknowledged messages dropped to keep the bound.
    dropped: u64,
}

impl Outbox {
    fn new(run: u64) -> Outbox {
        Outbox { run, next: 1, unacked: VecDeque::new(), dropped: 0 }
    }

    /// The lowest number still held (the next one when none is).
    fn base(&self) -> u64 {
        self.unacked.front().map_or(self.next, |(seq, ..)| *seq)
    }

    fn push(&mut self, game: PairGame, msg: PairMessage) -> u64 {
        let seq = self.next;
        self.next += 1;
        if self.unacked.len() >= UNACKED_KEPT {
            self.unacked.pop_front();
            self.dropped += 1;
        }
        self.unacked.push_back((seq, game, msg));
        seq
    }

    /// Drops what `ack` covers; whether it covered anything.
    fn acked(&mut self, ack: Ack) -> bool {
        if ack.run != self.run {
            return false;
        }
        let before = self.unacked.len();
        self.unacked.retain(|(seq, ..)| *seq > ack.seq);
        self.unacked.len() < before
    }

    /// The frames of the messages numbered from `from` on, for the
    /// partner's run `to`.
    fn frames_from(&self, from: u64, to: u64, ack: Option<Ack>) -> Vec<Frame> {
        let base = self.base();
        self.unacked
            .iter()
            .filter(|(seq, ..)| *seq >= from)
            .map(|(seq, game, msg)| Frame {
                run: self.run,
                to,
                seq: *seq,
                base,
                ack,
                game: Some(*game),
                msg: Some(msg.clone()),
                gone: false,
            })
            .collect()
    }
}

/// What one board has taken from its partner's current run.
#[derive(Debug, Default)]
pub(crate) struct Inbox {
    /// The partner's run and the next number expected from it.
    from: Option<(u64, u64)>,
    early: BTreeMap<u64, (PairGame, PairMessage)>,
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
    fn take(&mut self, frame: &Frame, room: usize) -> (Vec<(PairGame, PairMessage)>, Ack) {
        let next = match self.from {
            Some((run, next)) if run == frame.run => next,
            // A new run of the partner's: it starts where the sender says.
            _ => {
                self.early.clear();
                frame.base.max(1)
            }
        };
        let mut next = next;
        if let (Some(msg), Some(game)) = (&frame.msg, frame.game) {
            if frame.seq < next {
                self.duplicates += 1;
            } else if frame.seq > next {
                if self.early.len() < EARLY_KEPT || self.early.contains_key(&frame.seq) {
                    self.early.insert(frame.seq, (game, msg.clone()));
                }
            } else {
                self.early.insert(frame.seq, (game, msg.clone()));
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

/// Runs remembered for a while, the oldest forgotten first.
#[derive(Debug, Default)]
struct Runs(VecDeque<(u64, Instant)>);

impl Runs {
    fn contains(&self, run: u64) -> bool {
        self.0.iter().any(|(r, _)| *r == run)
    }

    fn when(&self, run: u64) -> Option<Instant> {
        self.0.iter().find(|(r, _)| *r == run).map(|(_, at)| *at)
    }

    fn note(&mut self, run: u64, at: Instant) {
        self.0.retain(|(r, _)| *r != run);
        if self.0.len() >= RUNS_KEPT {
            self.0.pop_front();
        }
        self.0.push_back((run, at));
    }
}

/// Which run of the partner's this board talks to.
#[derive(Debug, Default)]
struct Partner {
    /// The partner's run, believed since a frame of it named ours.
    run: Option<u64>,
    /// The partner's runs that are gone: none counts again.
    retired: Runs,
    /// Runs answered with a beacon addressed to them, and when.
    answered: Runs,
    /// Runs to answer now.
    to_answer: Vec<u64>,
}

impl Partner {
    /// Answers `run` (not believed yet) unless it was answered lately.
    fn answer(&mut self, run: u64, now: Instant) {
        if self.answered.when(run).is_some_and(|at| now.duration_since(at) < ANSWER_EVERY) {
            return;
        }
        self.answered.note(run, now);
        if !self.to_answer.contains(&run) && self.to_answer.len() < RUNS_KEPT {
            self.to_answer.push(run);
        }
    }

    /// `run` named ours: it is the partner's from now on, the one before gone.
    fn believe(&mut self, run: u64, now: Instant) {
        if let Some(before) = self.run.replace(run) {
            self.retired.note(before, now);
        }
    }
}

/// Whether the partner is heard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presence {
    /// Not yet, since the start: nothing is said.
    Unheard,
    Here,
    Away,
}

/// A second daemon going by this board's name.
#[derive(Debug, Default)]
struct Twins {
    /// Stranger runs on this board's own topic, answered lately.
    answered: Runs,
    to_answer: Vec<u64>,
    /// One answered: it is there now. The link stops.
    found: bool,
}

struct State {
    link: LinkState,
    outbox: Outbox,
    inbox: Inbox,
    partner: Partner,
    presence: Presence,
    twins: Twins,
    /// Numbers up to this were handed to the client on this connection.
    handed: u64,
    /// An acknowledgement to send.
    ack_due: Option<Ack>,
    /// When the unacknowledged are sent again, and the wait after that.
    resend_at: Option<Instant>,
    /// The waits before unacknowledged messages go again: exact steps,
    /// the partner being the link's only peer.
    resend: Backoff,
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
        let out_topic = PairTopic::new(hall, board, partner).to_string();
        // The run's own client id: a second daemon by this board's name is
        // not taken for a reconnection of this one, and neither knocks the
        // other off the broker.
        let mut options = link.options(format!("tactus-{hall}-{board}-pair-{run:016x}"))?;
        // The broker says for us that this run is gone when it dies unheard.
        let will = Frame { gone: true, ..Frame::beacon(run, 0, None) };
        let will = key.seal(&out_topic, "", &serde_json::to_vec(&will).expect("a frame serializes"));
        options.set_last_will(LastWill::new(out_topic.clone(), will, QoS::AtLeastOnce, false, None));
        let (client, eventloop) = AsyncClient::new(options, CLIENT_QUEUE);
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                link: LinkState::Connecting,
                outbox: Outbox::new(run),
                inbox: Inbox::default(),
                partner: Partner::default(),
                presence: Presence::Unheard,
                twins: Twins::default(),
                handed: 0,
                ack_due: None,
                resend_at: None,
                resend: Backoff::new(RESEND_FIRST, RESEND_MAX),
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
            hall: hall.to_string(),
            board: board.to_string(),
            partner: partner.to_string(),
            out_topic,
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

    /// Sends `msg` of game `game` to the partner: numbered, kept until it
    /// acknowledges.
    pub fn send(&self, game: PairGame, msg: PairMessage) {
        self.shared.lock().outbox.push(game, msg);
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

    /// Messages refused: not sealed with the hall key for their topic, from
    /// a board that is not the partner, not a pair message, or of a run
    /// that is gone or not addressed to this one.
    pub fn refused(&self) -> u64 {
        self.shared.refused.count()
    }

    /// Frames that were sealed but not pair frames.
    pub fn malformed(&self) -> u64 {
        self.shared.malformed.load(Ordering::Relaxed)
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
    hall: String,
    board: String,
    partner: String,
    out_topic: String,
    tx: mpsc::Sender<FromPartner>,
}

impl Side {
    /// Hands the client, while connected, the messages not yet handed on
    /// this connection and the acknowledgement due, and answers the runs
    /// to answer; sends the unacknowledged again when the timer says so.
    async fn hand(self) {
        loop {
            let frames = self.due();
            for frame in &frames {
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

    /// The frames due now: answers to runs, the messages not handed yet,
    /// and a beacon when an acknowledgement or a heartbeat is due.
    fn due(&self) -> Vec<Frame> {
        let mut s = self.shared.lock();
        let now = Instant::now();
        if s.link != LinkState::Up || s.twins.found {
            // Everything goes again on the next connection.
            s.resend_at = None;
            return Vec::new();
        }
        let run = s.outbox.run;
        let mut frames: Vec<Frame> = std::mem::take(&mut s.partner.to_answer)
            .into_iter()
            .chain(std::mem::take(&mut s.twins.to_answer))
            .map(|to| Frame::beacon(run, to, None))
            .collect();
        if s.resend_at.is_some_and(|at| now >= at) {
            // Nothing acknowledged in time: all again, waiting longer (the
            // back-off's next step).
            s.handed = 0;
            s.resend_at = None;
        }
        let ack_due = s.ack_due.take();
        let ack = ack_due.or(s.inbox.acked());
        // Messages only to a run that answered: one not there would refuse them.
        let messages = match s.partner.run {
            Some(to) => s.outbox.frames_from(s.handed + 1, to, ack),
            None => Vec::new(),
        };
        if let Some(last) = messages.last() {
            s.handed = last.seq;
        }
        if !s.outbox.unacked.is_empty() && s.resend_at.is_none() {
            s.resend_at = Some(now + s.resend.next_step());
        }
        // An acknowledgement rides on a message when there is one; with
        // none, a beacon carries it — and says, now and then, that the
        // board is there.
        let beat = now >= s.said_at + HEARTBEAT;
        if messages.is_empty() && (ack_due.is_some() || beat) {
            frames.push(Frame::beacon(run, s.partner.run.unwrap_or(0), ack));
        }
        frames.extend(messages);
        if !frames.is_empty() {
            s.said_at = now;
        }
        frames
    }

    async fn publish(&self, frame: &Frame) -> bool {
        let Ok(body) = serde_json::to_vec(frame) else { return true };
        let payload = self.key.seal(&self.out_topic, "", &body);
        let publish = self.client.publish(self.out_topic.clone(), QoS::AtLeastOnce, false, payload);
        matches!(self.over.run_until_cancelled(publish).await, Some(Ok(())))
    }

    fn refuse(&self, why: impl FnOnce() -> String) {
        self.shared.refused.warn(|| format!("board {}: a pair message was ignored: {why}", self.board, why = why()));
    }

    /// One frame from a pair topic: checked, then the partner's or, on this
    /// board's own topic, a second daemon's.
    fn receive(&self, p: &Publish) {
        let topic = String::from_utf8_lossy(&p.topic);
        let Some(on) = PairTopic::parse(&topic).filter(|t| t.hall == self.hall) else {
            return self.refuse(|| format!("on {topic:?}, not a pair topic of the hall"));
        };
        let own = on.from == self.board && on.to == self.partner;
        let partner = on.from == self.partner && on.to == self.board;
        if !(own || partner) {
            return self.refuse(|| format!("from board {:?}, not the partner {:?}", on.from, self.partner));
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
        if own { self.own_topic(&frame) } else { self.partner_frame(&frame) }
    }

    /// A frame on this board's own topic: another run's is a second daemon
    /// by this board's name if it names this run (it is there now), else it
    /// is answered so that, if it is there, it does.
    fn own_topic(&self, frame: &Frame) {
        let mut s = self.shared.lock();
        let run = s.outbox.run;
        if frame.run == run || frame.gone || s.twins.found {
            return;
        }
        if frame.to != run {
            let now = Instant::now();
            if s.twins.answered.when(frame.run).is_none_or(|at| now.duration_since(at) >= ANSWER_EVERY) {
                s.twins.answered.note(frame.run, now);
                if s.twins.to_answer.len() < RUNS_KEPT {
                    s.twins.to_answer.push(frame.run);
                }
                drop(s);
                self.shared.wake.notify_one();
            }
            return;
        }
        s.twins.found = true;
        drop(s);
        error!(
            board = %self.board,
            "pair: another daemon on the broker {} goes by this board's name {:?} (hall {:?}): this one stops playing \
             with board {}. Give each board its own name ([mqtt] board_id, --board-id) and start it again",
            self.hall_link.broker, self.board, self.hall, self.partner
        );
        // The other daemon is answered, so that it finds this one too; the
        // partner hears this run is gone, once; then the link stops.
        let answer = Frame::beacon(run, frame.run, None);
        let gone = Frame { gone: true, ..Frame::beacon(run, 0, None) };
        for frame in [answer, gone] {
            if let Ok(body) = serde_json::to_vec(&frame) {
                let payload = self.key.seal(&self.out_topic, "", &body);
                let _ = self.client.try_publish(self.out_topic.clone(), QoS::AtLeastOnce, false, payload);
            }
        }
        let _ = self.tx.try_send(FromPartner::Twin);
        self.stop.cancel();
    }

    /// A frame of the partner's: its run believed or answered, its
    /// acknowledgement and messages taken in order.
    fn partner_frame(&self, frame: &Frame) {
        let mut told = Vec::new();
        let mut s = self.shared.lock();
        if s.twins.found {
            return;
        }
        let now = Instant::now();
        if frame.gone {
            if s.partner.run == Some(frame.run) && s.presence == Presence::Here {
                s.presence = Presence::Away;
                drop(s);
                let _ = self.tx.try_send(FromPartner::Away);
            }
            return;
        }
        if s.partner.retired.contains(frame.run) {
            drop(s);
            return self
                .refuse(|| format!("of run {:016x} of board {}, which is gone: replayed?", frame.run, self.partner));
        }
        let addressed = frame.to == s.outbox.run;
        if s.partner.run != Some(frame.run) {
            if !addressed {
                // A run not heard before, or one that does not know ours yet.
                s.partner.answer(frame.run, now);
                drop(s);
                self.shared.wake.notify_one();
                if frame.msg.is_some() {
                    self.refuse(|| format!("addressed to another run of board {}: replayed?", self.board));
                }
                return;
            }
            // It named our run: it is the partner's now. A new run has none
            // of what was handed before: all of it goes again.
            let restarted = s.partner.run.is_some();
            s.partner.believe(frame.run, now);
            s.inbox.from = None;
            s.handed = 0;
            match s.presence {
                Presence::Away => told.push(FromPartner::Back),
                Presence::Unheard => info!(board = %self.board, "pair: the partner board {} is heard", self.partner),
                Presence::Here if restarted => {
                    info!(board = %self.board, "pair: the partner board {} started again", self.partner);
                }
                Presence::Here => {}
            }
            s.presence = Presence::Here;
        } else if s.presence == Presence::Away {
            told.push(FromPartner::Back);
            s.presence = Presence::Here;
        }
        if let Some(ack) = frame.ack
            && s.outbox.acked(ack)
        {
            s.resend.reset();
            s.resend_at = None;
            s.handed = s.handed.max(ack.seq);
        }
        if frame.msg.is_some() {
            if !addressed {
                drop(s);
                self.deliver(told);
                return self.refuse(|| format!("addressed to another run of board {}: replayed?", self.board));
            }
            let room = self.tx.capacity().saturating_sub(told.len());
            let (messages, ack) = s.inbox.take(frame, room);
            told.extend(messages.into_iter().map(|(game, msg)| FromPartner::Message { game, msg }));
            s.ack_due = Some(ack);
        }
        drop(s);
        self.shared.wake.notify_one();
        self.deliver(told);
    }

    fn deliver(&self, told: Vec<FromPartner>) {
        for from in told {
            // Room was counted above: only this task sends.
            let _ = self.tx.try_send(from);
        }
    }
}

/// A frame as a partner may send it: a message numbered, addressed and of
/// a game; a ruling only of the kinds the partner's board rules, checked
/// as a relay checks a board's events.
fn checked(mut frame: Frame) -> Result<Frame, String> {
    if let Some(PairMessage::Ruling { event }) = frame.msg {
        if !matches!(event.kind, EventKind::Irregularity(_) | EventKind::Penalty { .. }) {
            return Err("a ruling that is not an irregularity or a penalty".into());
        }
        frame.msg = Some(PairMessage::Ruling { event: vet::event(event, false).map_err(|e| e.to_string())? });
    }
    if let Some(PairMessage::Press { clock_ms, .. }) = frame.msg
        && clock_ms < 0
    {
        return Err("a press with a time below zero".into());
    }
    if frame.msg.is_some() && (frame.seq == 0 || frame.game.is_none()) {
        return Err("a message without a number or a game".into());
    }
    Ok(frame)
}

impl Peer for Side {
    fn connected(&mut self) -> Vec<Filter> {
        info!(board = %self.board, partner = %self.partner, "pair: connected to the MQTT broker {}", self.hall_link.broker);
        // This board's own topic too, without what this run sends there:
        // whatever comes there is another daemon's by this board's name.
        let own = Filter { nolocal: true, ..Filter::new(self.out_topic.clone(), QoS::AtLeastOnce) };
        vec![Filter::new(PairTopic::to_board(&self.hall, &self.board), QoS::AtLeastOnce), own]
    }

    /// Everything unacknowledged goes again on a new connection, once the
    /// partner's answers can be heard.
    fn subscribed(&mut self) {
        let mut s = self.shared.lock();
        s.link = LinkState::Up;
        s.handed = 0;
        s.resend_at = None;
        s.resend.reset();
        // Said at once: the partner learns this run without waiting.
        s.said_at = Instant::now() - HEARTBEAT;
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
        let away = s.presence == Presence::Here;
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

    const GAME: PairGame = PairGame { white: 11, black: 22 };

    fn mv(ply: u32) -> PairMessage {
        PairMessage::Move { ply, uci: "e2e4".parse().unwrap(), san: "e4".parse().ok(), clock_ms: Some(60_000) }
    }

    fn told(messages: Vec<(PairGame, PairMessage)>) -> Vec<PairMessage> {
        messages.into_iter().map(|(_, m)| m).collect()
    }

    #[test]
    fn messages_are_delivered_once_and_in_order() {
        let mut out = Outbox::new(7);
        for ply in 1..=3 {
            out.push(GAME, mv(ply));
        }
        let frames = out.frames_from(1, 9, None);
        let mut inbox = Inbox::default();
        // The third comes first, then the first twice, then the second.
        let (got, ack) = inbox.take(&frames[2], 10);
        assert!(got.is_empty(), "held for its turn");
        assert_eq!(ack, Ack { run: 7, seq: 0 });
        assert_eq!(told(inbox.take(&frames[0], 10).0), [mv(1)]);
        assert!(inbox.take(&frames[0], 10).0.is_empty(), "a duplicate is dropped");
        let (got, ack) = inbox.take(&frames[1], 10);
        assert_eq!(got, [(GAME, mv(2)), (GAME, mv(3))]);
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
            out.push(GAME, mv(ply));
        }
        out.acked(Ack { run: 1, seq: 2 });
        let frames = out.frames_from(1, 9, None);
        assert_eq!(frames[0].base, 3);
        let mut inbox = Inbox::default();
        assert_eq!(told(inbox.take(&frames[0], 10).0), [mv(3)], "a receiver that restarted takes what is still held");
        // The partner restarts: its new run counts from its own base.
        let mut again = Outbox::new(2);
        again.push(GAME, mv(9));
        assert_eq!(told(inbox.take(&again.frames_from(1, 9, None)[0], 10).0), [mv(9)]);
    }

    #[test]
    fn what_the_daemon_has_no_room_for_comes_again() {
        let mut out = Outbox::new(3);
        out.push(GAME, mv(1));
        out.push(GAME, mv(2));
        let frames = out.frames_from(1, 9, None);
        let mut inbox = Inbox::default();
        let (got, ack) = inbox.take(&frames[0], 0);
        assert!(got.is_empty());
        assert_eq!(ack.seq, 0, "not acknowledged");
        assert_eq!(told(inbox.take(&frames[1], 5).0), [mv(1), mv(2)]);
    }

    #[test]
    fn queues_are_bounded() {
        let mut out = Outbox::new(1);
        for ply in 0..(UNACKED_KEPT as u32 + 10) {
            out.push(GAME, mv(ply));
        }
        assert_eq!(out.unacked.len(), UNACKED_KEPT);
        assert_eq!(out.dropped, 10);
        let mut inbox = Inbox::default();
        inbox.take(&out.frames_from(1, 9, None)[0], 1);
        for frame in out.frames_from(20, 9, None) {
            inbox.take(&frame, 1);
        }
        assert!(inbox.early.len() <= EARLY_KEPT);
        let mut runs = Runs::default();
        let now = Instant::now();
        for run in 0..100 {
            runs.note(run, now);
        }
        assert_eq!(runs.0.len(), RUNS_KEPT);
        assert!(runs.contains(99) && !runs.contains(0), "the oldest go first");
    }

    /// A run is believed once it names ours; the one before is retired, and
    /// a run is answered at most once a second.
    #[test]
    fn a_partner_run_is_believed_once_it_names_ours() {
        let now = Instant::now();
        let mut partner = Partner::default();
        partner.answer(5, now);
        partner.answer(5, now + Duration::from_millis(10));
        assert_eq!(partner.to_answer, [5], "answered once");
        partner.to_answer.clear();
        partner.answer(5, now + ANSWER_EVERY);
        assert_eq!(partner.to_answer, [5], "and again a second later");
        partner.believe(5, now);
        partner.believe(6, now);
        assert_eq!(partner.run, Some(6));
        assert!(partner.retired.contains(5), "the run before is gone for good");
    }

    #[test]
    fn frames_read_and_write_as_documented() {
        let frame = Frame {
            run: 5,
            to: 9,
            seq: 2,
            base: 1,
            ack: Some(Ack { run: 9, seq: 4 }),
            game: Some(PairGame { white: 31, black: 42 }),
            msg: Some(PairMessage::Move {
                ply: 3,
                uci: "g1f3".parse().unwrap(),
                san: "Nf3".parse().ok(),
                clock_ms: Some(299_000),
            }),
            gone: false,
        };
        let text = serde_json::to_string(&frame).unwrap();
        assert_eq!(
            text,
            r#"{"run":5,"to":9,"seq":2,"base":1,"ack":{"run":9,"seq":4},"game":{"white":31,"black":42},"msg":{"kind":"move","ply":3,"uci":"g1f3","san":"Nf3","clock_ms":299000}}"#
        );
        assert_eq!(serde_json::from_str::<Frame>(&text).unwrap(), frame);
        let hello: Frame = serde_json::from_str(
            r#"{"run":1,"to":2,"seq":1,"game":{"white":3,"black":0},"msg":{"kind":"hello","ply":1,"answer":false,
                "seat":{"plays":"white","time_control":"300+2","table_clock":"here"}}}"#,
        )
        .unwrap();
        let Some(PairMessage::Hello { seat: Some(seat), .. }) = &checked(hello).unwrap().msg else { panic!() };
        assert_eq!(seat.plays, Color::White);
        assert_eq!(seat.time_control, Some("300+2".parse().unwrap()));
        assert_eq!(seat.table_clock, Some(TableClock::Here));
        let older: Frame = serde_json::from_str(
            r#"{"run":1,"to":2,"seq":1,"game":{"white":3,"black":0},"msg":{"kind":"hello","ply":1,"answer":false}}"#,
        )
        .unwrap();
        assert!(matches!(older.msg, Some(PairMessage::Hello { seat: None, .. })), "a board that says no seat");
        for bad in [
            r#"{"run":1,"seq":1,"game":{"white":1,"black":2},"msg":{"kind":"move","ply":1,"uci":"e2e4 1-0","san":"e4"}}"#,
            r#"{"run":1,"seq":1,"game":{"white":1,"black":2},"msg":{"kind":"move","ply":1,"uci":"e2e4","san":"e4 {"}}"#,
            r#"{"run":1,"seq":1,"game":{"white":1,"black":2},"msg":{"kind":"hello","ply":1,"answer":false,"seat":{"plays":"white","time_control":"soon"}}}"#,
        ] {
            assert!(serde_json::from_str::<Frame>(bad).is_err(), "{bad}");
        }
        let press: Frame = serde_json::from_str(
            r#"{"run":1,"to":2,"seq":3,"game":{"white":1,"black":2},"msg":{"kind":"press","ply":4,"clock_ms":287000}}"#,
        )
        .unwrap();
        assert_eq!(checked(press).unwrap().msg, Some(PairMessage::Press { ply: 4, clock_ms: 287_000 }));
        let below: Frame = serde_json::from_str(
            r#"{"run":1,"to":2,"seq":3,"game":{"white":1,"black":2},"msg":{"kind":"press","ply":4,"clock_ms":-1}}"#,
        )
        .unwrap();
        assert!(checked(below).is_err());
        let unnumbered: Frame = serde_json::from_str(
            r#"{"run":1,"game":{"white":1,"black":2},"msg":{"kind":"hello","ply":1,"answer":true}}"#,
        )
        .unwrap();
        assert!(checked(unnumbered).is_err());
        let of_no_game: Frame =
            serde_json::from_str(r#"{"run":1,"to":2,"seq":1,"msg":{"kind":"hello","ply":1,"answer":true}}"#).unwrap();
        assert!(checked(of_no_game).is_err(), "a message names its game");
        let over: Frame = serde_json::from_str(
            r#"{"run":1,"to":2,"seq":2,"game":{"white":1,"black":2},"msg":{"kind":"over","result":"0-1","reason":"resignation"}}"#,
        )
        .unwrap();
        let want = PairMessage::Over { result: GameResult::BlackWins, reason: OffBoardReason::Resignation };
        assert_eq!(over.msg, Some(want));
        assert!(serde_json::from_str::<PairMessage>(r#"{"kind":"over","result":"2-0","reason":"arbiter"}"#).is_err());
        let offer: PairMessage = serde_json::from_str(r#"{"kind":"draw_offer","ply":12}"#).unwrap();
        assert_eq!(offer, PairMessage::DrawOffer { ply: 12 });
        let claim = PairMessage::Claim { ply: 9, side: Color::White, claim: Claim::Threefold };
        assert_eq!(
            serde_json::to_string(&claim).unwrap(),
            r#"{"kind":"claim","ply":9,"side":"white","claim":"threefold"}"#
        );
        assert!(
            serde_json::from_str::<PairMessage>(r#"{"kind":"claim","ply":9,"side":"white","claim":"a win"}"#).is_err()
        );
        let paused = r#"{"run":1,"to":2,"seq":1,"game":{"white":1,"black":2},"msg":{"kind":"ruling","event":{"t":1,"event":"paused"}}}"#;
        assert!(checked(serde_json::from_str(paused).unwrap()).is_err(), "a ruling is an irregularity or a penalty");
        let will = Frame { gone: true, ..Frame::beacon(5, 0, None) };
        assert_eq!(serde_json::to_string(&will).unwrap(), r#"{"run":5,"seq":0,"base":0,"gone":true}"#);
    }
}
