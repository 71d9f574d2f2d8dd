//! What a clock tells the host.

use std::time::Instant;

use shakmaty::Color;

/// A report from a clock device, in the order it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClockReport {
    /// `side` pressed its lever (completing its move, 6.2.1) at `at`: for
    /// the open protocol the clock's own press time mapped to the host's
    /// clock, else when the report was read.
    Lever {
        /// Who pressed.
        side: Color,
        /// When.
        at: Instant,
    },
    /// A button was pressed.
    Button {
        /// Which.
        button: Button,
        /// When.
        at: Instant,
    },
    /// The device answered the handshake; the last display has been queued.
    Connected {
        /// What it is (`"DGT 3000"`, or the open clock's own name).
        device: String,
        /// Its firmware and protocol versions, as it reports them.
        version: String,
    },
    /// The device is gone (unplugged, or it stopped answering). The game
    /// goes on with the core's time; the link keeps trying to get it back.
    Disconnected {
        /// What happened, naming the device.
        reason: String,
    },
    /// Bytes that were not a valid message were skipped. Never fatal.
    Garbage {
        /// The bytes, escaped (`\xNN` for what is not printable ASCII).
        line: String,
    },
    /// More garbled lines were skipped than are worth a report each: this
    /// many since the last report, in the last few seconds.
    Skipped {
        /// How many.
        lines: u64,
    },
    /// The device said it could not do something (an open clock's `ERR`).
    Error {
        /// Its words.
        message: String,
    },
}

/// A button on the clock, by what it asks for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Button {
    /// The times and the number of completed moves, to be spoken
    /// (D.2.6.1, D.2.10.4).
    TimeRequest,
    /// The last move again.
    LastMove,
    /// Stop the clocks, or restart them when stopped (6.11, 6.12): one
    /// button, the host knows which applies.
    Pause,
    /// The arbiter's plus (add time, next item).
    Plus,
    /// The arbiter's minus (previous item).
    Minus,
    /// Any other button, by the name the device gives it.
    Other(String),
}

/// `bytes` as printable ASCII, at most 120 characters of it.
pub(crate) fn escape(bytes: &[u8]) -> String {
    let mut s: String = bytes.escape_ascii().to_string();
    if s.len() > 120 {
        s.truncate(117);
        s.push_str("...");
    }
    s
}
