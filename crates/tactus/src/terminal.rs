//! The terminal a user watches: one status line (both clocks) at the
//! bottom of standard error, rewritten in place, and every other line —
//! what is spoken, log messages, the board — printed whole above it. Lines
//! are never appended to the status line, so a screen reader reads each as
//! it was meant.

use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;

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

/// Shows (or replaces) the status line.
pub fn set_status(line: &str) {
    let mut shown = status();
    let mut err = io::stderr().lock();
    let _ = write!(err, "\r\x1b[K{line}").and_then(|()| err.flush());
    *shown = Some(line.to_string());
}

/// Takes the status line away, leaving the cursor at the start of a clean line.
pub fn clear_status() {
    let mut shown = status();
    if shown.take().is_some() {
        let mut err = io::stderr().lock();
        let _ = write!(err, "\r\x1b[K").and_then(|()| err.flush());
    }
}

/// Prints whole lines (`text` ends without a newline) above the status line.
pub fn print_lines(to: Stream, text: &str) -> io::Result<()> {
    let shown = status();
    if shown.is_some() {
        let mut err = io::stderr().lock();
        write!(err, "\r\x1b[K")?;
        err.flush()?;
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
    if let Some(line) = shown.as_deref() {
        let mut err = io::stderr().lock();
        let _ = write!(err, "{line}").and_then(|()| err.flush());
    }
    result
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
