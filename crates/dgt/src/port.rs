//! The serial glue: runs a sans-I/O device on a serial line in a thread —
//! a device path opened at 9600 8N1 and opened again when it comes back
//! (a USB adapter plugged back, an `rfcomm` tty made anew by the next
//! Bluetooth connection), or a pseudo-terminal the thread creates, whose
//! other end a client on the same machine opens.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serialport::{SerialPort, TTYPort};

use crate::protocol::BAUD;

/// How often a missing path is tried again, and a present one checked.
const PROBE_EVERY: Duration = Duration::from_millis(250);
/// A read waits this long before checking whether to stop; data wakes it at once.
const READ_TIMEOUT: Duration = Duration::from_millis(100);
/// A write that cannot go out this fast means the line is stuck.
const WRITE_TIMEOUT: Duration = Duration::from_millis(500);
/// Inputs waiting for the thread; a producer faster than the line blocks.
const QUEUE: usize = 1024;

/// Where the serial line is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// A serial device: `/dev/ttyGS0` (a USB gadget port), `/dev/rfcomm0`
    /// (Bluetooth SPP), `/dev/ttyUSB0`… Opened again whenever it is lost.
    Device(PathBuf),
    /// A new pseudo-terminal pair: the thread keeps the master end, and the
    /// slave end's path is put (as a symlink) at this path, for software on
    /// the same machine to open. The slave stays open in the thread too, so
    /// a client may close and reopen it at will.
    Pty(PathBuf),
}

/// A sans-I/O device the runner drives. Bytes to write go in `out`.
pub(crate) trait Device: Send + 'static {
    /// What the owner sends it.
    type Input: Send + 'static;
    /// The line has just been opened.
    fn opened(&mut self, now: Instant, out: &mut Vec<u8>);
    /// The line is gone.
    fn closed(&mut self, reason: &str);
    /// Bytes read at `at`.
    fn received(&mut self, bytes: &[u8], at: Instant, out: &mut Vec<u8>);
    /// An input from the owner.
    fn input(&mut self, input: Self::Input, now: Instant, out: &mut Vec<u8>);
    /// Timers; when to be called again.
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Option<Instant>;
}

pub(crate) enum Msg<I> {
    Input(I),
    /// Raw bytes for the line, as they are (tests: noise).
    Raw(Vec<u8>),
    Stop,
    Bytes(u64, Vec<u8>, Instant),
    Lost(u64, String),
}

/// The owner's handle: inputs in; dropping it stops the thread.
pub(crate) struct Runner<I: Send + 'static> {
    tx: mpsc::SyncSender<Msg<I>>,
    thread: Option<JoinHandle<()>>,
}

impl<I: Send + 'static> Runner<I> {
    pub(crate) fn start<D: Device<Input = I>>(device: D, endpoint: Endpoint, name: &str) -> io::Result<Runner<I>> {
        let (tx, rx) = mpsc::sync_channel(QUEUE);
        let mut line = Line { device, endpoint, conn: None, next_id: 0, tx: tx.clone(), pty: None, down: false };
        if let Endpoint::Pty(link) = &line.endpoint {
            line.pty = Some(Pty::new(link)?);
        }
        let thread = thread::Builder::new().name(name.into()).spawn(move || line.run(&rx))?;
        Ok(Runner { tx, thread: Some(thread) })
    }

    pub(crate) fn send(&self, input: I) {
        let _ = self.tx.send(Msg::Input(input));
    }

    pub(crate) fn raw(&self, bytes: Vec<u8>) {
        let _ = self.tx.send(Msg::Raw(bytes));
    }
}

impl<I: Send + 'static> Drop for Runner<I> {
    fn drop(&mut self) {
        let _ = self.tx.send(Msg::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A pty pair made for a client on this machine.
struct Pty {
    link: PathBuf,
    master: Option<TTYPort>,
    /// Held so the master never reads a hang-up while no client has it open.
    _slave: TTYPort,
}

impl Pty {
    fn new(link: &Path) -> io::Result<Pty> {
        let (master, slave) = TTYPort::pair().map_err(io::Error::from)?;
        let slave_path = slave.name().ok_or_else(|| io::Error::other("the pty has no name"))?;
        // Replace atomically: the path never names a dead pty once it names this one.
        let tmp = link.with_extension("new-pty");
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&slave_path, &tmp)?;
        std::fs::rename(&tmp, link)?;
        Ok(Pty { link: link.to_path_buf(), master: Some(master), _slave: slave })
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.link);
    }
}

struct Conn {
    id: u64,
    writer: Box<dyn Write + Send>,
    stop: Arc<AtomicBool>,
    reader: JoinHandle<()>,
}

struct Line<D: Device> {
    device: D,
    endpoint: Endpoint,
    conn: Option<Conn>,
    next_id: u64,
    tx: mpsc::SyncSender<Msg<D::Input>>,
    pty: Option<Pty>,
    /// The device was told the line is down and has not been opened since.
    down: bool,
}

impl<D: Device> Line<D> {
    fn run(&mut self, rx: &Receiver<Msg<D::Input>>) {
        let mut next_probe = Instant::now();
        loop {
            let now = Instant::now();
            let mut out = Vec::new();
            if now >= next_probe {
                self.probe(now, &mut out);
                next_probe = now + PROBE_EVERY;
            }
            let wake = match self.conn {
                Some(_) => self.device.poll(now, &mut out).map_or(next_probe, |t| t.min(next_probe)),
                None => next_probe,
            };
            self.write(&out);
            let msg = match rx.recv_timeout(wake.saturating_duration_since(Instant::now())) {
                Ok(msg) => msg,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            let mut out = Vec::new();
            let now = Instant::now();
            match msg {
                Msg::Input(input) => self.device.input(input, now, &mut out),
                Msg::Raw(bytes) => out = bytes,
                Msg::Stop => break,
                Msg::Bytes(id, bytes, at) if self.is_current(id) => self.device.received(&bytes, at, &mut out),
                Msg::Lost(id, reason) if self.is_current(id) => self.close(&reason),
                Msg::Bytes(..) | Msg::Lost(..) => {}
            }
            self.write(&out);
        }
        self.close("stopped");
    }

    fn is_current(&self, id: u64) -> bool {
        self.conn.as_ref().is_some_and(|c| c.id == id)
    }

    /// Opens the line if closed; closes a device whose path is gone (a USB
    /// adapter pulled out, an rfcomm link ended).
    fn probe(&mut self, now: Instant, out: &mut Vec<u8>) {
        if self.conn.is_some() {
            if let Endpoint::Device(path) = &self.endpoint
                && !path.exists()
            {
                let reason = format!("{} is gone", path.display());
                self.close(&reason);
            }
            return;
        }
        match self.connect() {
            Ok(conn) => {
                self.conn = Some(conn);
                self.down = false;
                self.device.opened(now, out);
            }
            Err(e) if !self.down => {
                let reason = match &self.endpoint {
                    Endpoint::Device(p) | Endpoint::Pty(p) => format!("cannot open {}: {e}; trying again", p.display()),
                };
                self.down = true;
                self.device.closed(&reason);
            }
            Err(_) => {}
        }
    }

    fn connect(&mut self) -> io::Result<Conn> {
        let (writer, reader): (Box<dyn Write + Send>, Box<dyn Read + Send>) = match (&self.endpoint, &mut self.pty) {
            (Endpoint::Pty(_), Some(pty)) => {
                let master = pty.master.take().ok_or_else(|| io::Error::other("the pty is closed"))?;
                let mut reader = master.try_clone_native().map_err(io::Error::from)?;
                reader.set_timeout(READ_TIMEOUT).map_err(io::Error::from)?;
                (Box::new(master), Box::new(reader))
            }
            (Endpoint::Device(path), _) => {
                let port = serialport::new(path.to_string_lossy(), BAUD).timeout(WRITE_TIMEOUT).open()?;
                let mut reader = port.try_clone()?;
                reader.set_timeout(READ_TIMEOUT)?;
                (Box::new(port), Box::new(reader))
            }
            (Endpoint::Pty(_), None) => return Err(io::Error::other("no pty")),
        };
        self.next_id += 1;
        let id = self.next_id;
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, flag) = (self.tx.clone(), stop.clone());
        let reader = thread::Builder::new().name("dgt-read".into()).spawn(move || read(reader, id, &flag, &tx))?;
        Ok(Conn { id, writer, stop, reader })
    }

    fn close(&mut self, reason: &str) {
        if let Some(conn) = self.conn.take() {
            conn.stop.store(true, Ordering::Relaxed);
            drop(conn.writer);
            // Within READ_TIMEOUT; the port must be free before it is reopened.
            let _ = conn.reader.join();
            self.down = true;
            self.device.closed(reason);
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if let Some(conn) = &mut self.conn
            && let Err(e) = conn.writer.write_all(bytes).and_then(|()| conn.writer.flush())
        {
            self.close(&format!("write failed: {e}"));
        }
    }
}

/// The reader thread: forwards what arrives, stamped with its time.
fn read<I>(mut port: Box<dyn Read + Send>, id: u64, stop: &AtomicBool, tx: &mpsc::SyncSender<Msg<I>>) {
    let mut buf = [0u8; 512];
    while !stop.load(Ordering::Relaxed) {
        let msg = match port.read(&mut buf) {
            Ok(0) => Msg::Lost(id, "end of file".into()),
            Ok(n) => Msg::Bytes(id, buf[..n].to_vec(), Instant::now()),
            Err(e) if e.kind() == io::ErrorKind::TimedOut || e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => Msg::Lost(id, e.to_string()),
        };
        let lost = matches!(msg, Msg::Lost(..));
        if tx.send(msg).is_err() || lost {
            return;
        }
    }
}

/// Sends `event` to the owner; nobody listening is no reason to stop.
pub(crate) fn report<E>(tx: &Sender<E>, event: E) {
    let _ = tx.send(event);
}
