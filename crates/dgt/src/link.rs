//! The reader and the emulator on real serial lines, each in its own
//! thread (see [`Endpoint`]).

use std::io;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Instant;

use crate::emulate::{ClockRequest, Emulator, EmulatorOut, Identity};
use crate::port::{Device, Endpoint, Runner, report};
use crate::protocol::{Battery, ClockCommand, ClockTimes, Garbage, Placement};
use crate::reader::{BoardReader, OrientationMode, ReaderEvent, ReaderOut};

/// What the emulator's line reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmulatorEvent {
    /// The line is open (a client may be on it).
    Opened,
    /// The line is gone, or could not be opened; tried again every 250 ms.
    Closed {
        /// Why.
        reason: String,
    },
    /// A client asked something of the clock.
    Clock(ClockRequest),
    /// A client sent bytes that were no command.
    Garbage(Garbage),
}

enum EmulatorInput {
    Placement(Placement),
    Clock(Option<ClockTimes>),
    Button(u8),
    Battery(Battery),
}

struct EmulatorDevice {
    emulator: Emulator,
    events: Sender<EmulatorEvent>,
}

impl EmulatorDevice {
    fn flush(&self, o: EmulatorOut, out: &mut Vec<u8>) {
        out.extend(o.bytes);
        for r in o.requests {
            report(&self.events, EmulatorEvent::Clock(r));
        }
        for g in o.garbage {
            report(&self.events, EmulatorEvent::Garbage(g));
        }
    }
}

impl Device for EmulatorDevice {
    type Input = EmulatorInput;

    fn opened(&mut self, _now: Instant, _out: &mut Vec<u8>) {
        self.emulator.reconnected();
        report(&self.events, EmulatorEvent::Opened);
    }

    fn closed(&mut self, reason: &str) {
        report(&self.events, EmulatorEvent::Closed { reason: reason.to_string() });
    }

    fn received(&mut self, bytes: &[u8], at: Instant, out: &mut Vec<u8>) {
        let mut o = EmulatorOut::default();
        self.emulator.received(bytes, at, &mut o);
        self.flush(o, out);
    }

    fn input(&mut self, input: EmulatorInput, now: Instant, out: &mut Vec<u8>) {
        let mut o = EmulatorOut::default();
        match input {
            EmulatorInput::Placement(p) => self.emulator.set_placement(&p, now, &mut o),
            EmulatorInput::Clock(c) => self.emulator.set_clock(c, now, &mut o),
            EmulatorInput::Button(code) => self.emulator.button(code, &mut o),
            EmulatorInput::Battery(b) => self.emulator.set_battery(b),
        }
        self.flush(o, out);
    }

    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Option<Instant> {
        let mut o = EmulatorOut::default();
        let next = self.emulator.poll(now, &mut o);
        self.flush(o, out);
        next
    }
}

/// An emulated DGT board served on a serial line. Dropping it stops the
/// thread, closes the line and removes a pty's symlink.
pub struct EmulatorLink {
    runner: Runner<EmulatorInput>,
}

impl EmulatorLink {
    /// Serves a board showing `placement` at `endpoint`.
    pub fn start(
        endpoint: Endpoint,
        identity: Identity,
        placement: Placement,
    ) -> io::Result<(EmulatorLink, Receiver<EmulatorEvent>)> {
        let (tx, rx) = mpsc::channel();
        let device = EmulatorDevice { emulator: Emulator::new(identity, placement), events: tx };
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
        self.runner.raw(bytes.to_vec());
    }
}

enum ReaderInput {
    Clock(ClockCommand),
    Battery,
}

struct ReaderDevice {
    reader: BoardReader,
    events: Sender<ReaderEvent>,
}

impl ReaderDevice {
    fn flush(&self, o: ReaderOut, out: &mut Vec<u8>) {
        out.extend(o.bytes);
        for e in o.events {
            report(&self.events, e);
        }
    }
}

impl Device for ReaderDevice {
    type Input = ReaderInput;

    fn opened(&mut self, now: Instant, out: &mut Vec<u8>) {
        let mut o = ReaderOut::default();
        self.reader.opened(now, &mut o);
        self.flush(o, out);
    }

    fn closed(&mut self, reason: &str) {
        self.reader.closed();
        report(&self.events, ReaderEvent::Lost { reason: reason.to_string() });
    }

    fn received(&mut self, bytes: &[u8], at: Instant, out: &mut Vec<u8>) {
        let mut o = ReaderOut::default();
        self.reader.received(bytes, at, &mut o);
        self.flush(o, out);
    }

    fn input(&mut self, input: ReaderInput, _now: Instant, out: &mut Vec<u8>) {
        let mut o = ReaderOut::default();
        match input {
            ReaderInput::Clock(cmd) => self.reader.clock(&cmd, &mut o),
            ReaderInput::Battery => self.reader.ask_battery(&mut o),
        }
        self.flush(o, out);
    }

    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Option<Instant> {
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
