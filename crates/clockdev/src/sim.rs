//! Simulated clocks on pseudo-terminals, for tests and benchmarks here and
//! in the daemon. A [`SimClock`] answers like the real device on the
//! master side of a pty pair and puts a symlink to the slave at a path you
//! choose, the way udev's `/dev/tactus-clock` behaves: [`ClockLink`] opens
//! that path like a real port. The sim can drop acknowledgements, inject
//! garbage and partial lines, and be unplugged (the pty closed, the symlink
//! removed) and plugged back (a new pty, the symlink repointed).
//!
//! [`ClockLink`]: crate::ClockLink

mod dgt;
mod open;

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serialport::{SerialPort, TTYPort};
use shakmaty::Color;

use crate::{Button, DeviceKind, Display};

/// How long the sim's reader waits before running its timers.
const TICK: Duration = Duration::from_millis(10);

/// Something the simulated clock got from the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Saw {
    /// The handshake (`TACTUS 1`; for the DGT, the board's version request).
    Hello,
    /// A display to show (the DGT's in whole seconds, moves zero).
    Display(Display),
    /// A beep of this many ms.
    Beep(u32),
    /// A text; empty for back to the times.
    Text(String),
    /// A keep-alive (`PING`; for the DGT, a clock version request).
    Ping,
    /// Bytes it could not read.
    Garbage(String),
}

/// What the sim saw and when it had parsed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// When.
    pub at: Instant,
    /// What.
    pub saw: Saw,
}

/// Bytes from the sim to the host, in order.
#[derive(Debug, Default)]
struct SimOut {
    /// Each chunk, and whether it is an acknowledgement (which may be dropped).
    chunks: Vec<(bool, Vec<u8>)>,
    saw: Vec<Saw>,
}

impl SimOut {
    fn ack(&mut self, bytes: impl Into<Vec<u8>>) {
        self.chunks.push((true, bytes.into()));
    }

    fn send(&mut self, bytes: impl Into<Vec<u8>>) {
        self.chunks.push((false, bytes.into()));
    }
}

/// One simulated device's protocol.
trait Responder: Send {
    fn received(&mut self, bytes: &[u8], now: Instant, out: &mut SimOut);
    fn press(&mut self, side: Color, now: Instant, out: &mut SimOut);
    fn button(&mut self, button: &Button, now: Instant, out: &mut SimOut);
    fn tick(&mut self, now: Instant, out: &mut SimOut);
    fn unplugged(&mut self);
}

struct SimState {
    responder: Box<dyn Responder>,
    /// The master side, for writing; `None` while unplugged.
    master: Option<TTYPort>,
    /// Acknowledgements still to drop.
    drop_acks: u32,
    seen: Sender<Seen>,
}

impl SimState {
    fn emit(&mut self, out: SimOut) {
        let now = Instant::now();
        for saw in out.saw {
            let _ = self.seen.send(Seen { at: now, saw });
        }
        for (is_ack, bytes) in out.chunks {
            if is_ack && self.drop_acks > 0 {
                self.drop_acks -= 1;
                continue;
            }
            self.write(&bytes);
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        if let Some(master) = &mut self.master {
            // The host not reading is what a real line does too: drop it.
            let _ = master.write_all(bytes);
        }
    }
}

fn lock(state: &Mutex<SimState>) -> MutexGuard<'_, SimState> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

struct Plug {
    stop: Arc<AtomicBool>,
    reader: JoinHandle<()>,
    /// Held so the master never sees a hang-up while the host has the
    /// slave closed (between reconnections).
    _slave: TTYPort,
}

/// A simulated clock: an open-protocol clock or a DGT board with a DGT 3000.
pub struct SimClock {
    path: PathBuf,
    state: Arc<Mutex<SimState>>,
    seen: Receiver<Seen>,
    plug: Option<Plug>,
}

impl SimClock {
    /// A `kind` clock plugged in at `path` (a symlink it creates or
    /// replaces; its directory must exist).
    pub fn plug(kind: DeviceKind, path: &Path) -> io::Result<SimClock> {
        let responder: Box<dyn Responder> = match kind {
            DeviceKind::Open => Box::new(open::OpenSim::new()),
            DeviceKind::Dgt3000 { white } => Box::new(dgt::DgtSim::new(white)),
        };
        let (tx, seen) = mpsc::channel();
        let state = Arc::new(Mutex::new(SimState { responder, master: None, drop_acks: 0, seen: tx }));
        let mut sim = SimClock { path: path.to_path_buf(), state, seen, plug: None };
        sim.replug()?;
        Ok(sim)
    }

    /// The path the host opens.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A new pty pair at the path, as when a USB clock is plugged back in.
    /// Does nothing if plugged.
    pub fn replug(&mut self) -> io::Result<()> {
        if self.plug.is_some() {
            return Ok(());
        }
        let (master, slave) = TTYPort::pair().map_err(io::Error::from)?;
        let slave_path = slave.name().ok_or_else(|| io::Error::other("the pty has no name"))?;
        let mut reader = master.try_clone_native().map_err(io::Error::from)?;
        reader.set_timeout(TICK).map_err(io::Error::from)?;
        // Repoint atomically, as udev does: the path never names a dead pty
        // once it names the new one.
        let tmp = self.path.with_extension("replug");
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&slave_path, &tmp)?;
        std::fs::rename(&tmp, &self.path)?;
        lock(&self.state).master = Some(master);
        let stop = Arc::new(AtomicBool::new(false));
        let (state, flag) = (self.state.clone(), stop.clone());
        let reader =
            thread::Builder::new().name("sim-clock".into()).spawn(move || serve(&mut reader, &state, &flag))?;
        self.plug = Some(Plug { stop, reader, _slave: slave });
        Ok(())
    }

    /// Pulls the cable: the pty is closed and the path removed.
    pub fn unplug(&mut self) {
        if let Some(plug) = self.plug.take() {
            plug.stop.store(true, Ordering::Relaxed);
            let _ = plug.reader.join();
            let mut state = lock(&self.state);
            state.master = None;
            state.responder.unplugged();
        }
        let _ = std::fs::remove_file(&self.path);
    }

    /// `side` presses its lever. Returns when the bytes were written.
    pub fn press(&self, side: Color) -> Instant {
        let mut state = lock(&self.state);
        let mut out = SimOut::default();
        let now = Instant::now();
        state.responder.press(side, now, &mut out);
        state.emit(out);
        now
    }

    /// A button is pressed.
    pub fn button(&self, button: &Button) {
        let mut state = lock(&self.state);
        let mut out = SimOut::default();
        state.responder.button(button, Instant::now(), &mut out);
        state.emit(out);
    }

    /// Writes raw bytes to the host: garbage, half a line…
    pub fn inject(&self, bytes: &[u8]) {
        lock(&self.state).write(bytes);
    }

    /// Drops the next `n` acknowledgements (`OK`, `PONG`, `CLOCK`; the
    /// DGT's clock acks), as a noisy line would.
    pub fn drop_acks(&self, n: u32) {
        lock(&self.state).drop_acks = n;
    }

    /// The next thing seen, waiting up to `timeout`.
    pub fn next_seen(&self, timeout: Duration) -> Option<Seen> {
        self.seen.recv_timeout(timeout).ok()
    }

    /// Skips what was seen until `wanted` says yes, waiting up to `timeout`
    /// in all.
    pub fn wait_for(&self, timeout: Duration, mut wanted: impl FnMut(&Saw) -> bool) -> Option<Seen> {
        let end = Instant::now() + timeout;
        loop {
            let seen = self.seen.recv_timeout(end.saturating_duration_since(Instant::now())).ok()?;
            if wanted(&seen.saw) {
                return Some(seen);
            }
        }
    }

    /// Forgets everything seen so far.
    pub fn drain(&self) {
        while self.seen.try_recv().is_ok() {}
    }
}

impl Drop for SimClock {
    fn drop(&mut self) {
        self.unplug();
    }
}

/// The sim's reader: answers the host, and runs the responder's timers.
fn serve(master: &mut TTYPort, state: &Mutex<SimState>, stop: &AtomicBool) {
    let mut buf = [0u8; 256];
    while !stop.load(Ordering::Relaxed) {
        let read = master.read(&mut buf);
        let now = Instant::now();
        let mut out = SimOut::default();
        let mut state = lock(state);
        match read {
            Ok(n) if n > 0 => state.responder.received(&buf[..n], now, &mut out),
            _ => state.responder.tick(now, &mut out),
        }
        state.emit(out);
    }
}
