//! The terminal a user watches: one status line (both clocks) at the
//! bottom of standard error, rewritten in place, and every other line —
//! what is spoken, log messages, the board — printed whole above it. Lines
//! are never appended to the status line, so a screen reader reads each as
//! it was meant.
//!
//! Whoever reads standard output and standard error is a peer like any
//! other: a terminal stopped with Ctrl-S, a pipe nobody drains. While the
//! daemon runs ([`queue`]) everything for them goes through one thread of
//! its own and a bounded queue, so that neither the game, the voice nor
//! shutdown ever waits for them: while the queue is full, lines are dropped,
//! and how many is said once there is room again.

use std::io::{self, IsTerminal, Write};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Which standard stream a line goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// The status line being shown, if any.
static STATUS: Mutex<Option<String>> = Mutex::new(None);

fn status() -> std::sync::MutexGuard<'static, Option<String>> {
    STATUS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether a status line can be shown: standard error is a terminal.
pub fn can_show_status() -> bool {
    io::stderr().is_terminal()
}

/// What waits for a console's thread.
enum Out {
    Lines(Stream, String),
    Status(Option<String>),
}

/// Lines and status changes waiting to be written to one stream, at most.
const QUEUE: usize = 1024;

/// A stream's thread and what waits for it.
struct Console {
    tx: SyncSender<Out>,
    /// Sent and not yet written; the condvar is told when it falls to 0.
    pending: Mutex<usize>,
    written: Condvar,
    /// Dropped since the last count was said.
    dropped: Mutex<u64>,
}

/// Standard output's console and standard error's: one that is not read
/// holds up only what goes to it.
static CONSOLES: OnceLock<[Console; 2]> = OnceLock::new();

fn console(to: Stream) -> Option<&'static Console> {
    CONSOLES.get().map(|c| &c[to as usize])
}

/// From now on the lines and the status line go through the consoles'
/// threads (the daemon, whose game must never wait for its readers);
/// before this, and in the other commands, they are written at once.
pub fn queue() -> io::Result<()> {
    if CONSOLES.get().is_some() {
        return Ok(());
    }
    let (out_tx, out_rx) = mpsc::sync_channel(QUEUE);
    let (err_tx, err_rx) = mpsc::sync_channel(QUEUE);
    let new = |tx| Console { tx, pending: Mutex::new(0), written: Condvar::new(), dropped: Mutex::new(0) };
    if CONSOLES.set([new(out_tx), new(err_tx)]).is_ok() {
        // Should one not start, what is sent to it is written at once, as before.
        for (to, rx) in [(Stream::Stdout, out_rx), (Stream::Stderr, err_rx)] {
            if let Some(console) = console(to) {
                std::thread::Builder::new().name("console".into()).spawn(move || write_queued(console, &rx))?;
            }
        }
    }
    Ok(())
}

impl Console {
    /// Queues `out`; never waits. While the queue is full it is dropped,
    /// and counted.
    fn send(&self, out: Out) {
        *self.pending.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        match self.tx.try_send(out) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                *self.dropped.lock().unwrap_or_else(|e| e.into_inner()) += 1;
                self.done();
            }
            Err(TrySendError::Disconnected(out)) => {
                write(out);
                self.done();
            }
        }
    }

    /// One less waits; true when none does.
    fn done(&self) -> bool {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        *pending = pending.saturating_sub(1);
        if *pending == 0 {
            self.written.notify_all();
        }
        *pending == 0
    }

    /// Waits until nothing waits, until `deadline`; true if so.
    fn flush(&self, deadline: Instant) -> bool {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        while *pending > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left == Duration::ZERO {
                return false;
            }
            pending = self.written.wait_timeout(pending, left).unwrap_or_else(|e| e.into_inner()).0;
        }
        true
    }
}

fn write(out: Out) {
    match out {
        Out::Lines(to, text) => {
            let _ = write_lines(to, &text);
        }
        Out::Status(Some(line)) => write_status(&line),
        Out::Status(None) => write_no_status(),
    }
}

/// A console's thread: writes what comes, in order; once nothing waits,
/// says how many lines were dropped meanwhile (on standard error).
fn write_queued(console: &Console, rx: &Receiver<Out>) {
    while let Ok(out) = rx.recv() {
        write(out);
        if !console.done() {
            continue;
        }
        let dropped = std::mem::take(&mut *console.dropped.lock().unwrap_or_else(|e| e.into_inner()));
        if dropped > 0 {
            let _ = print_lines(
                Stream::Stderr,
                &format!("tactus: warning: {dropped} lines of output were dropped: they were not read in time"),
            );
        }
    }
}

/// Waits until what was queued has been written, until `deadline` at
/// most; true if it was. At once when nothing is queued.
pub fn flush(deadline: Instant) -> bool {
    let Some(consoles) = CONSOLES.get() else { return true };
    consoles.iter().all(|c| c.flush(deadline))
}

/// Shows (or replaces) the status line.
pub fn set_status(line: &str) {
    match console(Stream::Stderr) {
        Some(console) => console.send(Out::Status(Some(line.to_string()))),
        None => write_status(line),
    }
}

/// Takes the status line away, leaving the cursor at the start of a clean line.
pub fn clear_status() {
    match console(Stream::Stderr) {
        Some(console) => console.send(Out::Status(None)),
        None => write_no_status(),
    }
}

/// Prints whole lines (`text` ends without a newline) above the status
/// line. While the daemon runs they are queued, and it is never an error.
pub fn print_lines(to: Stream, text: &str) -> io::Result<()> {
    match console(to) {
        Some(console) => {
            console.send(Out::Lines(to, text.to_string()));
            Ok(())
        }
        None => write_lines(to, text),
    }
}

fn write_status(line: &str) {
    let mut shown = status();
    let mut err = io::stderr().lock();
    let _ = write!(err, "\r\x1b[K{line}").and_then(|()| err.flush());
    *shown = Some(line.to_string());
}

fn write_no_status() {
    let mut shown = status();
    if shown.take().is_some() {
        let mut err = io::stderr().lock();
        let _ = write!(err, "\r\x1b[K").and_then(|()| err.flush());
    }
}

/// Whole lines, with the status line taken away first and shown again after,
/// all under its lock, so that no line is ever appended to it. A line for
/// standard output holds that lock only when standard error is a terminal,
/// the only place a status line is shown: otherwise a reader of standard
/// output that stops holds up nothing on standard error.
fn write_lines(to: Stream, text: &str) -> io::Result<()> {
    let shown = status();
    let shown = if to == Stream::Stdout && !stderr_is_terminal() {
        drop(shown);
        None
    } else {
        Some(shown)
    };
    let status_line = shown.as_ref().and_then(|s| s.as_deref());
    if status_line.is_some() {
        let mut err = io::stderr().lock();
        let _ = write!(err, "\r\x1b[K").and_then(|()| err.flush());
    }
    let result = match to {
        Stream::Stdout => {
            let mut out = io::stdout().lock();
            writeln!(out, "{text}").and_then(|()| out.flush())
        }
        Stream::Stderr => {
            let mut err = io::stderr().lock();
            writeln!(err, "{text}").and_then(|()| err.flush())
        }
    };
    if let Some(line) = status_line {
        let mut err = io::stderr().lock();
        let _ = write!(err, "{line}").and_then(|()| err.flush());
    }
    result
}

fn stderr_is_terminal() -> bool {
    static TERMINAL: OnceLock<bool> = OnceLock::new();
    *TERMINAL.get_or_init(can_show_status)
}

/// A writer that passes whole lines to [`print_lines`]; what is left
/// without a newline goes out when it is dropped.
pub struct LineWriter {
    to: Stream,
    pending: Vec<u8>,
}

impl LineWriter {
    pub fn new(to: Stream) -> Self {
        LineWriter { to, pending: Vec::new() }
    }
}

impl Write for LineWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if let Some(end) = self.pending.iter().rposition(|&b| b == b'\n') {
            let lines: Vec<u8> = self.pending.drain(..=end).collect();
            print_lines(self.to, String::from_utf8_lossy(&lines[..end]).as_ref())?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for LineWriter {
    fn drop(&mut self) {
        if !self.pending.is_empty() {
            let text = String::from_utf8_lossy(&self.pending).into_owned();
            let _ = print_lines(self.to, &text);
        }
    }
}
