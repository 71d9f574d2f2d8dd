//! The reader and the emulator on real serial lines, each in its own
//! thread (see [`Endpoint`]).

use std::io;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::time::{Duration, Instant};

use crate::emulate::{ClockRequest, Emulator, EmulatorOut, Identity};
use crate::port::{Device, Endpoint, Key, Outbox, Outgoing, Runner, Stale, Supersede};
use crate::protocol::{
    Battery, ClockCommand, ClockTimes, Garbage, MESSAGE_BIT, MSG_BUS_PING, MSG_BUS_START_GAME_WRITTEN, MSG_BUS_UPDATE,
    MSG_BWTIME, MSG_FIELD_UPDATE, Placement,
};
use crate::reader::{BoardReader, OrientationMode, ReaderEvent, ReaderOut};

/// Emulator events waiting for the owner, at most: more are dropped (the
/// owner only logs them and passes clock texts on).
const EMULATOR_EVENTS: usize = 256;
/// A client sending noise is reported at most this often.
const GARBAGE_EVERY: Duration = Duration::from_secs(1);

/// What the emulator's line reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmulatorEvent {
    /// The line is open (a client may be on it).
    Opened,
    /// The line is gone, or could not be opened; tried again every 250 ms
    /// (said once until it opens). Also when the link is dropped.
    Closed {
        /// Why, as a sentence for the log ("stopped" when dropped).
        reason: String,
    },
    /// A client asked something of the clock.
    Clock(ClockRequest),
    /// A client sent bytes that were no command (at most one report a
    /// second: a client sending nothing else is not logged line by line).
    Garbage(Garbage),
}

enum EmulatorInput {
    Placement(Placement),
    Clock(Option<ClockTimes>),
    Button(u8),
    Battery(Battery),
    /// Bytes for the client as they are (tests: line noise).
    Raw(Vec<u8>),
}

impl Supersede for EmulatorInput {
    /// The newest position, clock and battery count; every button press does.
    fn supersedes(&self, older: &Self) -> bool {
        matches!(
            (self, older),
            (EmulatorInput::Placement(_), EmulatorInput::Placement(_))
                | (EmulatorInput::Clock(_), EmulatorInput::Clock(_))
                | (EmulatorInput::Battery(_), EmulatorInput::Battery(_))
        )
    }
}

struct EmulatorDevice {
    emulator: Emulator,
    events: SyncSender<EmulatorEvent>,
    last_garbage: Option<Instant>,
}

impl EmulatorDevice {
    fn flush(&mut self, o: EmulatorOut, now: Instant, out: &mut Outbox) {
        for message in messages(&o.bytes) {
            out.push(Outgoing { stale: staleness(message), bytes: message.to_vec() });
        }
        for r in o.requests {
            self.report(EmulatorEvent::Clock(r));
        }
        if let Some(g) = o.garbage.into_iter().next()
            && self.last_garbage.is_none_or(|t| now.saturating_duration_since(t) >= GARBAGE_EVERY)
        {
            self.last_garbage = Some(now);
            self.report(EmulatorEvent::Garbage(g));
        }
    }

    /// Never waits for the owner: a full queue drops the event.
    fn report(&self, event: EmulatorEvent) {
        let _ = self.events.try_send(event);
    }
}

/// The DGT messages in `bytes` (each `id | 0x80`, a 14-bit length counting
/// the header, data); a tail that does not frame is one piece.
fn messages(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while rest.len() >= 3 && rest[0] & 0x80 != 0 {
        let len = (usize::from(rest[1]) << 7) | usize::from(rest[2]);
        if len < 3 || len > rest.len() {
            break;
        }
        let (message, tail) = rest.split_at(len);
        out.push(message);
        rest = tail;
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// Whether an unsent message may give way to a newer one of its kind when
/// the client does not keep up: an answer (the board, the clock, an identity
/// answer, the log) or a square's field update, yes. What answers one
/// command (a clock's acknowledgement, a bus ping, the start tag written),
/// the bus's changes since the last ones sent, and what does not frame, no.
fn staleness(message: &[u8]) -> Stale {
    let (Some(&id), Some(data)) = (message.first(), message.get(3..)) else { return Stale::Never };
    let ack = |i: usize| data.get(i).is_some_and(|b| b & 0x0f == 0x0a);
    match id {
        _ if id & MESSAGE_BIT == 0 => Stale::Never,
        MSG_BUS_PING | MSG_BUS_UPDATE | MSG_BUS_START_GAME_WRITTEN => Stale::Never,
        MSG_BWTIME if ack(0) || ack(3) => Stale::Never,
        MSG_FIELD_UPDATE => {
            data.first().map_or(Stale::Never, |field| Stale::Superseded(Key::from(id) << 8 | Key::from(*field)))
        }
        _ => Stale::Superseded(Key::from(id) << 8),
    }
}

impl Device for EmulatorDevice {
    type Input = EmulatorInput;

    fn opened(&mut self, _now: Instant, _out: &mut Outbox) {
        self.emulator.reconnected();
        self.report(EmulatorEvent::Opened);
    }

    fn closed(&mut self, reason: &str) {
        self.report(EmulatorEvent::Closed { reason: reason.to_string() });
    }

    fn received(&mut self, bytes: &[u8], at: Instant, out: &mut Outbox) {
        let mut o = EmulatorOut::default();
        self.emulator.received(bytes, at, &mut o);
        self.flush(o, at, out);
    }

    fn input(&mut self, input: EmulatorInput, now: Instant, out: &mut Outbox) {
        let mut o = EmulatorOut::default();
        match input {
            EmulatorInput::Placement(p) => self.emulator.set_placement(&p, now, &mut o),
            EmulatorInput::Clock(c) => self.emulator.set_clock(c, now, &mut o),
            EmulatorInput::Button(code) => self.emulator.button(code, &mut o),
            EmulatorInput::Battery(b) => self.emulator.set_battery(b),
            EmulatorInput::Raw(bytes) => out.once(bytes),
        }
        self.flush(o, now, out);
    }

    fn poll(&mut self, now: Instant, out: &mut Outbox) -> Option<Instant> {
        let mut o = EmulatorOut::default();
        let next = self.emulator.poll(now, &mut o);
        self.flush(o, now, out);
        next
    }
}

/// An emulated DGT board served on a serial line. Nothing here waits for
/// the line or the client; dropping it stops the thread at once, closes the
/// line and removes a pty's symlink (only if it is still ours).
pub struct EmulatorLink {
    runner: Runner<EmulatorInput>,
}

impl EmulatorLink {
    /// Serves a board showing `placement` at `endpoint`. The events are
    /// bounded: what the receiver does not take in time is dropped.
    pub fn start(
        endpoint: Endpoint,
        identity: Identity,
        placement: Placement,
    ) -> io::Result<(EmulatorLink, Receiver<EmulatorEvent>)> {
        let (tx, rx) = mpsc::sync_channel(EMULATOR_EVENTS);
        let device = EmulatorDevice { emulator: Emulator::new(identity, placement), events: tx, last_garbage: None };
        let runner = Runner::start(device, endpoint, "dgt-emulator")?;
        Ok((EmulatorLink { runner }, rx))
    }

    /// The game's position now (a piece in the air off the board).
    pub fn set_placement(&self, placement: Placement) {
        self.runner.send(EmulatorInput::Placement(placement));
    }

    /// tactus's clock now; `None` for no clock.
    pub fn set_clock(&self, clock: Option<ClockTimes>) {
        self.runner.send(EmulatorInput::Clock(clock));
    }

    /// A button on tactus's clock (`0x31`–`0x35`, `0x40` on/off).
    pub fn button(&self, code: u8) {
        self.runner.send(EmulatorInput::Button(code));
    }

    /// What a battery status request answers.
    pub fn set_battery(&self, battery: Battery) {
        self.runner.send(EmulatorInput::Battery(battery));
    }

    /// Writes bytes to the client as they are: line noise, for tests.
    pub fn inject_noise(&self, bytes: &[u8]) {
        self.runner.send(EmulatorInput::Raw(bytes.to_vec()));
    }
}

enum ReaderInput {
    Clock(ClockCommand),
    Battery,
}

impl Supersede for ReaderInput {
    /// One battery question answers all; every clock command goes out.
    fn supersedes(&self, older: &Self) -> bool {
        matches!((self, older), (ReaderInput::Battery, ReaderInput::Battery))
    }
}

struct ReaderDevice {
    reader: BoardReader,
    events: Sender<ReaderEvent>,
}

impl ReaderDevice {
    fn flush(&self, o: ReaderOut, out: &mut Outbox) {
        out.once(o.bytes);
        for e in o.events {
            // Nobody listening is no reason to stop.
            let _ = self.events.send(e);
        }
    }
}

impl Device for ReaderDevice {
    type Input = ReaderInput;

    fn opened(&mut self, now: Instant, out: &mut Outbox) {
        let mut o = ReaderOut::default();
        self.reader.opened(now, &mut o);
        self.flush(o, out);
    }

    fn closed(&mut self, reason: &str) {
        self.reader.closed();
        let _ = self.events.send(ReaderEvent::Lost { reason: reason.to_string() });
    }

    fn received(&mut self, bytes: &[u8], at: Instant, out: &mut Outbox) {
        let mut o = ReaderOut::default();
        self.reader.received(bytes, at, &mut o);
        self.flush(o, out);
    }

    fn input(&mut self, input: ReaderInput, _now: Instant, out: &mut Outbox) {
        let mut o = ReaderOut::default();
        match input {
            ReaderInput::Clock(cmd) => self.reader.clock(&cmd, &mut o),
            ReaderInput::Battery => self.reader.ask_battery(&mut o),
        }
        self.flush(o, out);
    }

    fn poll(&mut self, now: Instant, out: &mut Outbox) -> Option<Instant> {
        let mut o = ReaderOut::default();
        let next = self.reader.poll(now, &mut o);
        self.flush(o, out);
        next
    }
}

/// A DGT e-Board read on a serial line. Dropping it stops the thread.
pub struct BoardLink {
    runner: Runner<ReaderInput>,
}

impl BoardLink {
    /// Reads the board at `endpoint` (say `/dev/ttyACM0` or `/dev/rfcomm0`).
    pub fn start(endpoint: Endpoint, mode: OrientationMode) -> io::Result<(BoardLink, Receiver<ReaderEvent>)> {
        let (tx, rx) = mpsc::channel();
        let device = ReaderDevice { reader: BoardReader::new(mode), events: tx };
        let runner = Runner::start(device, endpoint, "dgt-board")?;
        Ok((BoardLink { runner }, rx))
    }

    /// A command for the clock on the board; its acknowledgement comes back
    /// as a [`ReaderEvent::ClockAck`].
    pub fn clock(&self, cmd: ClockCommand) {
        self.runner.send(ReaderInput::Clock(cmd));
    }

    /// Asks for the battery status.
    pub fn ask_battery(&self) {
        self.runner.send(ReaderInput::Battery);
    }
}
