//! The serial glue: runs a sans-I/O device on a serial line in a thread of
//! its own — a device path opened at 9600 8N1 and opened again when it
//! comes back (a USB adapter plugged back, an `rfcomm` tty made anew by the
//! next Bluetooth connection), or a pseudo-terminal the thread makes, whose
//! other end a client on the same machine opens.
//!
//! No peer can block the owner or the thread: the owner's inputs wait in a
//! bounded mailbox that keeps the newest of each kind ([`queue::Mailbox`]);
//! the thread reads and writes without blocking; messages for a client that
//! does not read wait in a bounded outbox where a newer message replaces an
//! older one of its kind ([`queue::LineOutbox`]), and what the line itself holds
//! unread for longer than [`STALE`] is thrown away. So a client that stops
//! reading gets the newest answers when it reads again, not a backlog, and
//! stopping takes one turn of the loop.

mod line;
mod queue;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};

use line::Conn;
pub(crate) use queue::{Key, LineOutbox, Mailbox, Outgoing, Stale, Supersede};

/// How often a missing path is tried again, and a present one checked.
const PROBE_EVERY: Duration = Duration::from_millis(250);
/// Bytes the client has left unread this long are stale: thrown away, so
/// that the newest answers go out in their place.
pub const STALE: Duration = Duration::from_secs(1);
/// While a pty's client has more than its share unread, how often to look.
const UNREAD_RECHECK: Duration = Duration::from_millis(20);
/// What one read takes off the line at most.
const READ_CHUNK: usize = 4096;

/// Where the serial line is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// A serial device: `/dev/ttyGS0` (a USB gadget port), `/dev/rfcomm0`
    /// (Bluetooth SPP), `/dev/ttyUSB0`… Waited for while it is not there,
    /// opened again whenever it is lost.
    Device(PathBuf),
    /// A new pseudo-terminal pair: the thread keeps the master end, and the
    /// slave end's path is put (as a symlink) at this path, for software on
    /// the same machine to open. The slave stays open in the thread too, so
    /// a client may close and reopen it at will.
    Pty(PathBuf),
}

impl Endpoint {
    /// Where to serve a board for `--dgt-emulate PATH`: the serial device at
    /// `path` (followed through links); a device not there yet if `path` is
    /// in `/dev` (`/dev/rfcomm0` appears when a Bluetooth client connects);
    /// else a pty linked at `path`, in place of nothing or of a link to a
    /// pty left from before. Anything else at `path` — a regular file, a
    /// directory, another link — is an error naming it, and is left alone.
    pub fn serving(path: &Path) -> io::Result<Endpoint> {
        use std::os::unix::fs::FileTypeExt;
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device()) || path.starts_with("/dev") {
            return Ok(Endpoint::Device(path.to_path_buf()));
        }
        line::check_replaceable(path)?;
        Ok(Endpoint::Pty(path.to_path_buf()))
    }

    fn path(&self) -> &Path {
        match self {
            Endpoint::Device(p) | Endpoint::Pty(p) => p,
        }
    }
}

/// What a serial device holds when it is opened: bytes the other end sent
/// before (a USB gadget's or rfcomm's tty keeps what arrived while no one
/// had it open).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EarlyInput {
    /// Read as if sent just now: requests from software that opened its
    /// end first, which it may never send again.
    Read,
    /// Thrown away: reports of a moment gone by.
    Dropped,
}

/// A sans-I/O device the runner drives. What it says to the other end goes
/// in `out`.
pub(crate) trait LineDevice: Send + 'static {
    /// What the owner sends it.
    type FromOwner: Supersede + Send + 'static;
    /// What becomes of what a device holds from before it was opened.
    const EARLY_INPUT: EarlyInput;
    /// The line has just been opened.
    fn opened(&mut self, now: Instant, out: &mut LineOutbox);
    /// The line is gone.
    fn closed(&mut self, reason: &str);
    /// Bytes read at `at`.
    fn received(&mut self, bytes: &[u8], at: Instant, out: &mut LineOutbox);
    /// An input from the owner.
    fn input(&mut self, input: Self::FromOwner, now: Instant, out: &mut LineOutbox);
    /// Timers; when to be called again.
    fn poll(&mut self, now: Instant, out: &mut LineOutbox) -> Option<Instant>;
    /// Each turn of the loop, line or not: what the device owes its owner
    /// (events a full queue held back) goes out; when to try again.
    fn catch_up(&mut self, _now: Instant) -> Option<Instant> {
        None
    }
}

/// The owner's handle: inputs in, never waiting; dropping it stops the
/// thread within one turn of its loop.
pub(crate) struct Runner<I: Supersede + Send + 'static> {
    mailbox: Arc<Mailbox<I>>,
    thread: Option<JoinHandle<()>>,
}

impl<I: Supersede + Send + 'static> Runner<I> {
    /// Starts `device` on `endpoint`. A pty is made here, so that a path
    /// where none can be made is an error now rather than a retry forever.
    pub(crate) fn start<D: LineDevice<FromOwner = I>>(
        device: D,
        endpoint: Endpoint,
        name: &str,
    ) -> io::Result<Runner<I>> {
        let mailbox = Arc::new(Mailbox::new()?);
        let conn = match &endpoint {
            Endpoint::Pty(link) => Some(Conn::Pty(line::Pty::new(link)?)),
            Endpoint::Device(_) => None,
        };
        let mut line = Line {
            device,
            endpoint,
            conn,
            fresh: true,
            outbox: LineOutbox::default(),
            unread_since: None,
            down: false,
            mailbox: Arc::clone(&mailbox),
        };
        let thread = thread::Builder::new().name(name.into()).spawn(move || line.run())?;
        Ok(Runner { mailbox, thread: Some(thread) })
    }

    pub(crate) fn send(&self, input: I) {
        self.mailbox.put(input);
    }
}

impl<I: Supersede + Send + 'static> Drop for Runner<I> {
    fn drop(&mut self) {
        self.mailbox.stop();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

struct Line<D: LineDevice> {
    device: D,
    endpoint: Endpoint,
    conn: Option<Conn>,
    /// `conn` was opened and the device not yet told.
    fresh: bool,
    outbox: LineOutbox,
    /// Since when the line has taken nothing of what waits in the outbox.
    unread_since: Option<Instant>,
    /// The device was told the line is down and has not been opened since.
    down: bool,
    mailbox: Arc<Mailbox<D::FromOwner>>,
}

impl<D: LineDevice> Line<D> {
    fn run(&mut self) {
        let mut next_probe = Instant::now();
        loop {
            let now = Instant::now();
            let (inputs, stop) = self.mailbox.take();
            if stop {
                break;
            }
            if now >= next_probe {
                self.probe(now);
                next_probe = now + PROBE_EVERY;
            }
            for input in inputs {
                self.device.input(input, now, &mut self.outbox);
            }
            let mut wake = next_probe;
            if let Some(t) = self.device.catch_up(now) {
                wake = wake.min(t);
            }
            if self.conn.is_some()
                && let Some(t) = self.device.poll(now, &mut self.outbox)
            {
                wake = wake.min(t);
            }
            let want_write = self.write(now);
            if let Some(since) = self.unread_since {
                wake = wake.min(since + STALE);
                if !want_write {
                    wake = wake.min(now + UNREAD_RECHECK);
                }
            }
            let timeout = Timespec::try_from(wake.saturating_duration_since(Instant::now())).ok();
            let (readable, broken) = {
                let bell = PollFd::new(self.mailbox.bell(), PollFlags::IN);
                match &self.conn {
                    Some(conn) => {
                        let events = if want_write { PollFlags::IN | PollFlags::OUT } else { PollFlags::IN };
                        let mut fds = [bell, PollFd::new(conn.fd(), events)];
                        let _ = rustix::event::poll(&mut fds, timeout.as_ref());
                        let r = fds[1].revents();
                        (r.contains(PollFlags::IN), r.intersects(PollFlags::ERR | PollFlags::HUP | PollFlags::NVAL))
                    }
                    None => {
                        let _ = rustix::event::poll(&mut [bell], timeout.as_ref());
                        (false, false)
                    }
                }
            };
            if readable {
                self.read();
            } else if broken {
                self.close("the line hung up");
            }
        }
        if self.conn.take().is_some() {
            self.device.closed("stopped");
        }
    }

    /// Reads what the client sent, once.
    fn read(&mut self) {
        let Some(conn) = &self.conn else { return };
        let mut buf = [0u8; READ_CHUNK];
        match rustix::io::read(conn.fd(), &mut buf) {
            Ok(0) => self.close("end of file"),
            Ok(n) => self.device.received(&buf[..n], Instant::now(), &mut self.outbox),
            Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INTR) => {}
            Err(e) => self.close(&e.to_string()),
        }
    }

    /// Writes what the line takes now; whether to wait for it to take more.
    /// What the client has left unread for [`STALE`] is thrown away.
    fn write(&mut self, now: Instant) -> bool {
        loop {
            let Some(conn) = &self.conn else {
                self.outbox.clear();
                return false;
            };
            if self.outbox.is_empty() {
                self.unread_since = None;
                return false;
            }
            let takes = conn.takes_more();
            let wrote = if takes { rustix::io::write(conn.fd(), self.outbox.next()) } else { Ok(0) };
            match wrote {
                Ok(n) if n > 0 => {
                    self.outbox.wrote(n);
                    self.unread_since = None;
                    continue;
                }
                Ok(_) | Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INTR) => {}
                Err(e) => {
                    self.close(&format!("write failed: {e}"));
                    return false;
                }
            }
            let since = *self.unread_since.get_or_insert(now);
            if now.saturating_duration_since(since) < STALE {
                // A pty that holds its share polls writable all the same.
                return takes;
            }
            conn.drop_unread();
            self.outbox.cut();
            self.outbox.congested();
            self.unread_since = None;
            if !conn.takes_more() {
                // Even emptied, the line takes nothing: try again later.
                self.unread_since = Some(now);
                return false;
            }
        }
    }

    /// Opens the line if closed; closes a device whose path is gone (a USB
    /// adapter pulled out, an rfcomm link ended); keeps a pty's link.
    fn probe(&mut self, now: Instant) {
        match (&self.conn, &self.endpoint) {
            (Some(Conn::Device(_)), Endpoint::Device(path)) if !path.exists() => {
                let reason = format!("{} is gone", path.display());
                self.close(&reason);
                return;
            }
            (Some(Conn::Pty(pty)), _) => pty.keep_link(),
            _ => {}
        }
        if self.conn.is_none() {
            let opened = match &self.endpoint {
                Endpoint::Device(path) => Conn::open_device(path, D::EARLY_INPUT),
                // The old pty is gone: a fresh one, the link pointed at it.
                Endpoint::Pty(link) => line::Pty::new(link).map(Conn::Pty),
            };
            match opened {
                Ok(conn) => {
                    self.conn = Some(conn);
                    self.fresh = true;
                }
                Err(e) if !self.down => {
                    let path = self.endpoint.path().display();
                    let reason = match e.kind() {
                        io::ErrorKind::NotFound => format!("{path} is not there; waiting for it"),
                        _ => format!("cannot open {path}: {e}; trying again"),
                    };
                    self.down = true;
                    self.device.closed(&reason);
                }
                Err(_) => {}
            }
        }
        if self.conn.is_some() && std::mem::take(&mut self.fresh) {
            self.down = false;
            self.device.opened(now, &mut self.outbox);
        }
    }

    /// The line is lost (`why`): opened again at the next probe.
    fn close(&mut self, why: &str) {
        if self.conn.take().is_some() {
            self.outbox.clear();
            self.unread_since = None;
            self.down = true;
            self.device.closed(&format!("the line is gone ({why}); opening it again"));
        }
    }
}
