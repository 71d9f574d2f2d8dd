//! A clock device on a serial path, run in a thread: reads reports,
//! writes commands, reopens the path when the device comes back.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TrySendError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serialport::SerialPort;
use tactus_dgt::protocol::ClockSide;

use crate::{ClockDevice, ClockReport, Dgt3000, Display, OpenClock, Outbox};

/// How often a missing path is tried again, and a present one checked.
const PROBE_EVERY: Duration = Duration::from_millis(250);
/// A read waits this long before checking whether to stop; data wakes it at once.
const READ_TIMEOUT: Duration = Duration::from_millis(100);
/// A write that cannot go out this fast means the device is stuck.
const WRITE_TIMEOUT: Duration = Duration::from_millis(500);
/// Reads waiting for the driver; past this the reader waits (the serial
/// line's own buffer holds the rest), so a flood never grows memory.
const READS_IN_FLIGHT: usize = 64;
/// Reports waiting for the host.
const REPORTS_QUEUED: usize = 64;
/// Texts and beeps on their way to the link's thread, at most: past this
/// (the thread held up by a device that does not take its writes) new ones
/// are dropped. A clock shows one text at a time; software that sends them
/// faster than the clock takes them loses only stale ones.
pub const TEXTS_WAITING: usize = 16;
/// Garbled lines reported one by one in a window; the rest are counted and
/// reported as [`ClockReport::Skipped`] when the window ends.
const GARBAGE_BURST: u32 = 10;
const GARBAGE_WINDOW: Duration = Duration::from_secs(10);

/// Which protocol the device on the path speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    /// A home-made clock speaking the open tactus protocol (115200 baud is usual).
    Open,
    /// A DGT 3000 on a DGT board's serial port (9600 baud).
    Dgt3000 {
        /// The side of White's face.
        white: ClockSide,
    },
}

impl DeviceKind {
    /// A fresh device of this kind.
    pub fn device(self) -> Box<dyn ClockDevice> {
        match self {
            DeviceKind::Open => Box::new(OpenClock::new()),
            DeviceKind::Dgt3000 { white } => Box::new(Dgt3000::new(white)),
        }
    }
}

enum LinkMsg {
    /// A new display waits in [`Latest`].
    Show,
    Beep(u32),
    Text(String),
    Stop,
    /// From the reader of connection `id`: bytes and when they were read.
    Bytes(u64, Vec<u8>, Instant),
    /// The reader of connection `id` failed.
    Lost(u64, String),
}

/// A clock on a serial path. Dropping it stops the thread and closes the
/// port.
pub struct ClockLink {
    tx: Sender<LinkMsg>,
    latest: Arc<Latest>,
    texts: ClockTexts,
    thread: Option<JoinHandle<()>>,
}

/// The display to show next. Only the newest matters, so however often the
/// host shows times while the device is slow, one waits here and one
/// [`LinkMsg::Show`] is queued: the queue stays bounded.
#[derive(Default)]
struct Latest {
    display: std::sync::Mutex<Option<Display>>,
}

impl Latest {
    /// Keeps `display`; true when none was waiting (a notice is due).
    fn put(&self, display: Display) -> bool {
        self.display.lock().unwrap_or_else(|e| e.into_inner()).replace(display).is_none()
    }

    fn take(&self) -> Option<Display> {
        self.display.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

impl ClockLink {
    /// Starts driving a `kind` device on `path` (say `/dev/tactus-clock`).
    /// Reports come out of the receiver: the first is `Connected` once the
    /// device answers, or `Disconnected` if the path cannot be opened (the
    /// link keeps trying every 250 ms).
    pub fn open(kind: DeviceKind, path: &Path, baud: u32) -> (ClockLink, Receiver<ClockReport>) {
        ClockLink::with_device(kind.device(), path, baud)
    }

    /// Like [`ClockLink::open`] with any [`ClockDevice`].
    pub fn with_device(device: Box<dyn ClockDevice>, path: &Path, baud: u32) -> (ClockLink, Receiver<ClockReport>) {
        // Displays wait in `latest`, texts and beeps are counted in
        // `texts_waiting`, reads are bounded by `in_flight`.
        let (tx, rx) = mpsc::channel();
        let texts_waiting = Arc::new(AtomicUsize::new(0));
        let (report_tx, report_rx) = mpsc::sync_channel(REPORTS_QUEUED);
        let latest = Arc::new(Latest::default());
        let mut driver = Driver {
            latest: latest.clone(),
            device,
            path: path.to_path_buf(),
            baud,
            inputs: tx.clone(),
            reports: report_tx,
            conn: None,
            next_id: 0,
            up: None,
            in_flight: Arc::new(AtomicUsize::new(0)),
            texts_waiting: texts_waiting.clone(),
            garbage: GarbageWindow { started: Instant::now(), passed: 0, skipped: 0 },
        };
        let failed = driver.reports.clone();
        let thread = match thread::Builder::new().name("clock-link".into()).spawn(move || driver.run(&rx)) {
            Ok(thread) => Some(thread),
            Err(e) => {
                let _ =
                    failed.send(ClockReport::Disconnected { reason: format!("cannot start the clock thread: {e}") });
                None
            }
        };
        let texts = ClockTexts { tx: tx.clone(), waiting: texts_waiting };
        (ClockLink { tx, latest, texts, thread }, report_rx)
    }

    /// Show these times; the device keeps the last one and gets it again
    /// after a reconnection.
    pub fn show(&self, display: Display) {
        if self.latest.put(display) {
            let _ = self.tx.send(LinkMsg::Show);
        }
    }

    /// Beep for about `ms` milliseconds.
    pub fn beep(&self, ms: u32) {
        self.texts.beep(ms);
    }

    /// Show a short text until the next display; empty goes back to the times.
    pub fn text(&self, text: &str) {
        self.texts.text(text);
    }

    /// Texts and beeps for this clock from elsewhere (software that drives
    /// an emulated board's clock); they stop working when the link is gone.
    pub fn texts(&self) -> ClockTexts {
        self.texts.clone()
    }
}

/// A clock's texts and beeps, apart from its times (see [`ClockLink::texts`]).
/// Never waits; at most [`TEXTS_WAITING`] wait for the link's thread.
#[derive(Clone)]
pub struct ClockTexts {
    tx: Sender<LinkMsg>,
    waiting: Arc<AtomicUsize>,
}

impl ClockTexts {
    /// As [`ClockLink::beep`].
    pub fn beep(&self, ms: u32) {
        self.send(LinkMsg::Beep(ms));
    }

    /// As [`ClockLink::text`].
    pub fn text(&self, text: &str) {
        self.send(LinkMsg::Text(text.to_string()));
    }

    fn send(&self, input: LinkMsg) {
        if self.waiting.fetch_add(1, Ordering::Relaxed) >= TEXTS_WAITING || self.tx.send(input).is_err() {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl Drop for ClockLink {
    fn drop(&mut self) {
        let _ = self.tx.send(LinkMsg::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

struct Connection {
    id: u64,
    port: Box<dyn SerialPort>,
    stop: Arc<AtomicBool>,
    reader: JoinHandle<()>,
}

/// Garbled lines in the current window.
struct GarbageWindow {
    started: Instant,
    passed: u32,
    skipped: u64,
}

struct Driver {
    latest: Arc<Latest>,
    device: Box<dyn ClockDevice>,
    path: PathBuf,
    baud: u32,
    inputs: Sender<LinkMsg>,
    reports: SyncSender<ClockReport>,
    /// Reads sent by the reader and not yet taken by the driver.
    in_flight: Arc<AtomicUsize>,
    /// Texts and beeps sent and not yet taken.
    texts_waiting: Arc<AtomicUsize>,
    garbage: GarbageWindow,
    conn: Option<Connection>,
    next_id: u64,
    /// Whether the host was last told Connected (`Some(true)`) or
    /// Disconnected; `None` before either.
    up: Option<bool>,
}

impl Driver {
    fn run(&mut self, rx: &Receiver<LinkMsg>) {
        let mut next_probe = Instant::now();
        loop {
            let now = Instant::now();
            let mut out = Outbox::default();
            if now >= next_probe {
                self.probe(now, &mut out);
                self.summarise_garbage(now, false);
                next_probe = now + PROBE_EVERY;
            }
            let wake = self.device.poll(now, &mut out).map_or(next_probe, |t| t.min(next_probe));
            self.flush(out);
            let input = match rx.recv_timeout(wake.saturating_duration_since(Instant::now())) {
                Ok(input) => input,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            let mut out = Outbox::default();
            let now = Instant::now();
            match input {
                LinkMsg::Show => {
                    if let Some(d) = self.latest.take() {
                        self.device.show(&d, now, &mut out);
                    }
                }
                LinkMsg::Beep(ms) => {
                    self.texts_waiting.fetch_sub(1, Ordering::Relaxed);
                    self.device.beep(ms, now, &mut out);
                }
                LinkMsg::Text(t) => {
                    self.texts_waiting.fetch_sub(1, Ordering::Relaxed);
                    self.device.text(&t, now, &mut out);
                }
                LinkMsg::Stop => break,
                LinkMsg::Bytes(id, bytes, at) => {
                    self.in_flight.fetch_sub(1, Ordering::Relaxed);
                    if self.is_current(id) {
                        self.device.received(&bytes, at, &mut out);
                    }
                }
                LinkMsg::Lost(id, reason) if self.is_current(id) => {
                    self.close(&format!("{}: {reason}", self.path.display()));
                }
                LinkMsg::Lost(..) => {}
            }
            self.flush(out);
        }
        self.summarise_garbage(Instant::now(), true);
        self.close("the link was closed");
    }

    fn is_current(&self, id: u64) -> bool {
        self.conn.as_ref().is_some_and(|c| c.id == id)
    }

    /// Opens the path if closed; closes the port if the path is gone (a
    /// USB adapter pulled out: its udev symlink goes away).
    fn probe(&mut self, now: Instant, out: &mut Outbox) {
        if self.conn.is_some() {
            if !self.path.exists() {
                self.close(&format!("{} is gone", self.path.display()));
            }
            return;
        }
        match self.connect() {
            Ok(conn) => {
                self.conn = Some(conn);
                self.device.opened(now, out);
            }
            Err(e) => {
                if self.up != Some(false) {
                    self.report(ClockReport::Disconnected {
                        reason: format!("cannot open {}: {e}; trying again", self.path.display()),
                    });
                }
            }
        }
    }

    fn connect(&mut self) -> io::Result<Connection> {
        let port = serialport::new(self.path.to_string_lossy(), self.baud).timeout(WRITE_TIMEOUT).open()?;
        let mut reader = port.try_clone()?;
        reader.set_timeout(READ_TIMEOUT)?;
        self.next_id += 1;
        let id = self.next_id;
        let stop = Arc::new(AtomicBool::new(false));
        let (inputs, flag, in_flight) = (self.inputs.clone(), stop.clone(), self.in_flight.clone());
        let reader = thread::Builder::new()
            .name("clock-read".into())
            .spawn(move || read(&mut *reader, id, &flag, &inputs, &in_flight))?;
        Ok(Connection { id, port, stop, reader })
    }

    fn close(&mut self, reason: &str) {
        if let Some(conn) = self.conn.take() {
            conn.stop.store(true, Ordering::Relaxed);
            drop(conn.port);
            // Within READ_TIMEOUT; the port must be free before it is reopened.
            let _ = conn.reader.join();
            self.device.closed();
            if self.up == Some(true) {
                self.report(ClockReport::Disconnected { reason: reason.to_string() });
            }
        }
    }

    fn report(&mut self, report: ClockReport) {
        match report {
            ClockReport::Connected { .. } => self.up = Some(true),
            ClockReport::Disconnected { .. } => self.up = Some(false),
            ClockReport::Garbage { .. } => {
                let now = Instant::now();
                self.summarise_garbage(now, false);
                if self.garbage.passed >= GARBAGE_BURST {
                    self.garbage.skipped += 1;
                    return;
                }
                self.garbage.passed += 1;
                // Garbage may be dropped when the host is behind; a press may not.
                if let Err(TrySendError::Full(_)) = self.reports.try_send(report) {
                    self.garbage.skipped += 1;
                }
                return;
            }
            _ => {}
        }
        // Nobody listening is not a reason to stop driving the display.
        let _ = self.reports.send(report);
    }

    /// Reports the garbled lines skipped in a window that has ended (`all`:
    /// whatever was skipped, as the link closes); a new window begins.
    fn summarise_garbage(&mut self, now: Instant, all: bool) {
        if now.duration_since(self.garbage.started) < GARBAGE_WINDOW && !all {
            return;
        }
        let skipped = std::mem::take(&mut self.garbage.skipped);
        self.garbage = GarbageWindow { started: now, passed: 0, skipped: 0 };
        if skipped > 0 {
            let _ = self.reports.send(ClockReport::Skipped { lines: skipped });
        }
    }

    fn flush(&mut self, out: Outbox) {
        for report in out.reports {
            self.report(report);
        }
        if out.bytes.is_empty() {
            return;
        }
        if let Some(conn) = &mut self.conn
            && let Err(e) = conn.port.write_all(&out.bytes)
        {
            let reason = format!("{}: write failed: {e}", self.path.display());
            self.close(&reason);
        }
    }
}

/// The reader thread: forwards what arrives, stamped with its time; waits
/// while the driver has [`READS_IN_FLIGHT`] reads to take.
fn read(port: &mut dyn SerialPort, id: u64, stop: &AtomicBool, inputs: &Sender<LinkMsg>, in_flight: &AtomicUsize) {
    let mut buf = [0u8; 256];
    while !stop.load(Ordering::Relaxed) {
        if in_flight.load(Ordering::Relaxed) >= READS_IN_FLIGHT {
            thread::sleep(Duration::from_millis(2));
            continue;
        }
        let input = match port.read(&mut buf) {
            Ok(0) => LinkMsg::Lost(id, "end of file".into()),
            Ok(n) => LinkMsg::Bytes(id, buf[..n].to_vec(), Instant::now()),
            Err(e) if e.kind() == io::ErrorKind::TimedOut || e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => LinkMsg::Lost(id, e.to_string()),
        };
        let lost = matches!(input, LinkMsg::Lost(..));
        if !lost {
            in_flight.fetch_add(1, Ordering::Relaxed);
        }
        if inputs.send(input).is_err() || lost {
            return;
        }
    }
}
