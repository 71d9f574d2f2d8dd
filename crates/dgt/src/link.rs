//! The reader and the emulator on real serial lines, each in its own
//! thread (see [`Endpoint`]).

use std::io;
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::time::{Duration, Instant};

use crate::emulate::{ClockRequest, Emulator, EmulatorOut, Identity};
use crate::port::{EarlyInput, Endpoint, Key, LineDevice, LineOutbox, Outgoing, Runner, Stale, Supersede};
use crate::protocol::{
    Battery, ClockCommand, ClockFaces, Garbage, MESSAGE_BIT, MSG_BOARD_DUMP, MSG_BUS_PING, MSG_BUS_START_GAME_WRITTEN,
    MSG_BUS_UPDATE, MSG_BWTIME, MSG_FIELD_UPDATE, Orientation, Placement,
};
use crate::reader::{BoardReader, OrientationMode, ReaderEvent, ReaderOut};

/// Emulator events waiting for the owner, at most: more are dropped (the
/// owner only logs them and passes clock texts on).
const EMULATOR_EVENTS: usize = 256;
/// A client sending noise is reported at most this often.
const GARBAGE_EVERY: Duration = Duration::from_secs(1);
/// Reader events waiting for the owner, at most. Only an owner that stops
/// taking them fills the queue; what no longer fits is owed in its newest
/// form ([`Owed`]), not queued, so a board that floods costs no memory.
const READER_EVENTS: usize = 256;
/// While events are owed, how often room for them is looked for.
const CATCH_UP_EVERY: Duration = Duration::from_millis(20);

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
    Clock(Option<ClockFaces>),
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
    fn flush(&mut self, o: EmulatorOut, now: Instant, out: &mut LineOutbox) {
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

impl LineDevice for EmulatorDevice {
    type FromOwner = EmulatorInput;
    /// Chess software at the other end of a USB gadget port or a Bluetooth
    /// link may have its end open first and have sent its introduction
    /// already, once (PicoChess: update mode and version): it is answered.
    const EARLY_INPUT: EarlyInput = EarlyInput::Read;

    fn opened(&mut self, _now: Instant, _out: &mut LineOutbox) {
        self.emulator.reconnected();
        self.report(EmulatorEvent::Opened);
    }

    fn closed(&mut self, reason: &str) {
        self.report(EmulatorEvent::Closed { reason: reason.to_string() });
    }

    fn received(&mut self, bytes: &[u8], at: Instant, out: &mut LineOutbox) {
        let mut o = EmulatorOut::default();
        self.emulator.received(bytes, at, &mut o);
        self.flush(o, at, out);
    }

    fn input(&mut self, input: EmulatorInput, now: Instant, out: &mut LineOutbox) {
        let mut o = EmulatorOut::default();
        match input {
            EmulatorInput::Placement(p) => {
                self.emulator.set_placement(&p, now, &mut o);
                // Without field updates a dump is all a client learns of
                // the board: one asked for before and not yet gone out (a
                // client that read slowly, or answers left by one that
                // went) shows the board as it stands now.
                if let Some(dump) = self.emulator.board_dump_without_updates() {
                    out.refresh(Key::from(MSG_BOARD_DUMP) << 8, &dump);
                }
            }
            EmulatorInput::Clock(c) => self.emulator.set_clock(c, now, &mut o),
            EmulatorInput::Button(code) => self.emulator.button(code, &mut o),
            EmulatorInput::Battery(b) => self.emulator.set_battery(b),
            EmulatorInput::Raw(bytes) => out.once(bytes),
        }
        self.flush(o, now, out);
    }

    fn poll(&mut self, now: Instant, out: &mut LineOutbox) -> Option<Instant> {
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
    pub fn set_clock(&self, clock: Option<ClockFaces>) {
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
    events: SyncSender<ReaderEvent>,
    owed: Owed,
}

/// What a full queue held back, in its newest form: sent, in this order,
/// once there is room — the line's state, the board's orientation, the
/// whole board (which its edges add up to) and the newest clock report.
/// Acknowledgements, battery answers, other messages and garbage are
/// dropped: each tells of a moment gone by.
#[derive(Debug, Default)]
struct Owed {
    /// The newest of `Lost` and `Connected`.
    link: Option<ReaderEvent>,
    orientation: Option<Orientation>,
    /// Edges or a whole board were held back: the board as it stands is owed.
    board: bool,
    /// The newest `Clock`.
    clock: Option<ReaderEvent>,
}

impl Owed {
    fn is_empty(&self) -> bool {
        self.link.is_none() && self.orientation.is_none() && !self.board && self.clock.is_none()
    }

    /// The first of what is owed, in order, taken; `board` is the board as
    /// it stands.
    fn take_first(&mut self, board: impl FnOnce() -> Placement, now: Instant) -> Option<ReaderEvent> {
        if let Some(link) = self.link.take() {
            return Some(link);
        }
        if let Some(o) = self.orientation.take() {
            return Some(ReaderEvent::Orientation(o));
        }
        if std::mem::take(&mut self.board) {
            return Some(ReaderEvent::Placement { placement: board(), at: now });
        }
        self.clock.take()
    }

    /// An event that did not fit, folded into what is owed.
    fn hold(&mut self, event: ReaderEvent) {
        match event {
            ReaderEvent::Edge { .. } | ReaderEvent::Placement { .. } => self.board = true,
            ReaderEvent::Orientation(o) => self.orientation = Some(o),
            link @ (ReaderEvent::Lost { .. } | ReaderEvent::Connected(_)) => self.link = Some(link),
            clock @ ReaderEvent::Clock { .. } => self.clock = Some(clock),
            ReaderEvent::ClockAck { .. }
            | ReaderEvent::Battery(_)
            | ReaderEvent::Message(_)
            | ReaderEvent::Garbage(_) => {}
        }
    }
}

impl ReaderDevice {
    fn new(mode: OrientationMode) -> (ReaderDevice, Receiver<ReaderEvent>) {
        let (tx, rx) = mpsc::sync_channel(READER_EVENTS);
        (ReaderDevice { reader: BoardReader::new(mode), events: tx, owed: Owed::default() }, rx)
    }

    fn flush(&mut self, o: ReaderOut, now: Instant, out: &mut LineOutbox) {
        out.once(o.bytes);
        self.pay(now);
        for e in o.events {
            self.send(e);
        }
    }

    /// Never waits for the owner: while anything is owed, a new event joins
    /// what is owed, so that the owner hears nothing out of order.
    fn send(&mut self, event: ReaderEvent) {
        if !self.owed.is_empty() {
            return self.owed.hold(event);
        }
        // Nobody listening is no reason to stop.
        if let Err(TrySendError::Full(event)) = self.events.try_send(event) {
            self.owed.hold(event);
        }
    }

    /// Sends what is owed, as far as there is room.
    fn pay(&mut self, now: Instant) {
        while let Some(event) = self.owed.take_first(|| self.reader.placement(), now) {
            if let Err(TrySendError::Full(event)) = self.events.try_send(event) {
                self.owed.hold(event);
                return;
            }
        }
    }
}

impl LineDevice for ReaderDevice {
    type FromOwner = ReaderInput;
    /// A board's reports from before are stale: once open, the reader asks
    /// for the whole board.
    const EARLY_INPUT: EarlyInput = EarlyInput::Dropped;

    fn opened(&mut self, now: Instant, out: &mut LineOutbox) {
        let mut o = ReaderOut::default();
        self.reader.opened(now, &mut o);
        self.flush(o, now, out);
    }

    fn closed(&mut self, reason: &str) {
        self.reader.closed();
        self.send(ReaderEvent::Lost { reason: reason.to_string() });
    }

    fn received(&mut self, bytes: &[u8], at: Instant, out: &mut LineOutbox) {
        let mut o = ReaderOut::default();
        self.reader.received(bytes, at, &mut o);
        self.flush(o, at, out);
    }

    fn input(&mut self, input: ReaderInput, now: Instant, out: &mut LineOutbox) {
        let mut o = ReaderOut::default();
        match input {
            ReaderInput::Clock(cmd) => self.reader.clock(&cmd, &mut o),
            ReaderInput::Battery => self.reader.ask_battery(&mut o),
        }
        self.flush(o, now, out);
    }

    fn poll(&mut self, now: Instant, out: &mut LineOutbox) -> Option<Instant> {
        let mut o = ReaderOut::default();
        let next = self.reader.poll(now, &mut o);
        self.flush(o, now, out);
        next
    }

    fn catch_up(&mut self, now: Instant) -> Option<Instant> {
        if self.owed.is_empty() {
            return None;
        }
        self.pay(now);
        (!self.owed.is_empty()).then_some(now + CATCH_UP_EVERY)
    }
}

/// A DGT e-Board read on a serial line. Dropping it stops the thread.
pub struct BoardLink {
    runner: Runner<ReaderInput>,
}

impl BoardLink {
    /// Reads the board at `endpoint` (say `/dev/ttyACM0` or `/dev/rfcomm0`).
    /// The events are bounded: while the owner does not take them, a
    /// board's changes add up to the whole board it is owed (see [`Owed`]).
    pub fn start(endpoint: Endpoint, mode: OrientationMode) -> io::Result<(BoardLink, Receiver<ReaderEvent>)> {
        let (device, rx) = ReaderDevice::new(mode);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{BoardMessage, ClockFaces, Face, Field, Hms, Occupant};
    use shakmaty::{Color, Piece, Role, Square};

    /// A reader of an upright board that has said its version and sent the
    /// start position, opened at `t0`: its events and what it wrote.
    fn reading_the_start(t0: Instant) -> (ReaderDevice, Receiver<ReaderEvent>, LineOutbox) {
        let (mut device, events) = ReaderDevice::new(OrientationMode::Fixed(Orientation::Normal));
        let mut out = LineOutbox::default();
        device.opened(t0, &mut out);
        device.received(&BoardMessage::Version { major: 1, minor: 7 }.encode(), t0, &mut out);
        let dump = BoardMessage::BoardDump(Placement::start().fields(Orientation::Normal));
        device.received(&dump.encode(), t0, &mut out);
        (device, events, out)
    }

    fn white_pawn() -> Occupant {
        Occupant::Piece(Piece { color: Color::White, role: Role::Pawn })
    }

    /// A board that floods while its owner takes nothing (a game task held
    /// up): the queue holds no more than its bound, whatever the board
    /// sends; once the owner takes what is queued, the board as it stands
    /// and the newest clock report follow, so that nothing is lost but the
    /// steps between.
    #[test]
    fn a_flooding_board_fills_a_bounded_queue_and_is_caught_up_with_the_whole_board() {
        let t0 = Instant::now();
        let (mut device, events, mut out) = reading_the_start(t0);
        // The pawn on e2 lifted and put back 10,000 times, then lifted; a
        // clock report every hundred updates, counting down.
        let (e2, pawn) = (Field::of(Square::E2, Orientation::Normal), white_pawn());
        let clock = |s: u8| ClockFaces {
            left: Face { time: Hms { h: 0, m: 3, s }, ..Face::default() },
            ..ClockFaces::default()
        };
        for i in 0..20_001 {
            let occupant = if i % 2 == 0 { Occupant::Empty } else { pawn };
            device.received(&BoardMessage::FieldUpdate { field: e2, occupant }.encode(), t0, &mut out);
            if i % 100 == 0 {
                device.received(&BoardMessage::Clock(clock((i / 100 % 60) as u8)).encode(), t0, &mut out);
            }
        }
        let queued: Vec<ReaderEvent> = events.try_iter().collect();
        assert_eq!(queued.len(), READER_EVENTS, "the queue is bounded");
        assert!(matches!(queued[..2], [ReaderEvent::Connected(_), ReaderEvent::Placement { .. }]));
        // The owner has taken them: the next turn of the link's loop pays.
        let t1 = t0 + Duration::from_secs(1);
        assert_eq!(device.catch_up(t1), None, "all that was owed went out");
        let mut lifted = Placement::start();
        lifted.set(Square::E2, Occupant::Empty);
        let newest = ReaderEvent::Clock { times: clock((20_000 / 100 % 60) as u8), at: t0 };
        let caught: Vec<ReaderEvent> = events.try_iter().collect();
        assert_eq!(caught, [ReaderEvent::Placement { placement: lifted, at: t1 }, newest]);
        // And events flow one by one again.
        device.received(&BoardMessage::FieldUpdate { field: e2, occupant: pawn }.encode(), t1, &mut out);
        let edge = ReaderEvent::Edge { sq: Square::E2, occupant: pawn, at: t1 };
        assert_eq!(events.try_iter().collect::<Vec<_>>(), [edge]);
    }

    /// While the owner takes nothing, the line's state is owed as the rest
    /// is, in its newest form, and comes first.
    #[test]
    fn a_line_lost_while_the_queue_is_full_is_said_first_once_there_is_room() {
        let t0 = Instant::now();
        let (mut device, events, mut out) = reading_the_start(t0);
        let (e2, pawn) = (Field::of(Square::E2, Orientation::Normal), white_pawn());
        for i in 0..READER_EVENTS {
            let occupant = if i % 2 == 0 { Occupant::Empty } else { pawn };
            device.received(&BoardMessage::FieldUpdate { field: e2, occupant }.encode(), t0, &mut out);
        }
        device.closed("the line hung up");
        assert_eq!(events.try_iter().count(), READER_EVENTS);
        let t1 = t0 + Duration::from_secs(1);
        assert_eq!(device.catch_up(t1), None);
        let caught: Vec<ReaderEvent> = events.try_iter().collect();
        assert!(matches!(&caught[0], ReaderEvent::Lost { reason } if reason == "the line hung up"), "{caught:?}");
        assert!(matches!(caught[1], ReaderEvent::Placement { .. }) && caught.len() == 2, "{caught:?}");
    }
}
