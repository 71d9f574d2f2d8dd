//! Chess clocks on a serial line. tactus is the authority for time: a
//! device only *shows* what the core computes and *reports* lever presses
//! and buttons.
//!
//! Two devices behind one trait, [`ClockDevice`]:
//!
//! - [`OpenClock`]: the open tactus clock protocol, line-based ASCII with
//!   checksums, for a home-made clock (`hardware/clock/PROTOCOL.md`);
//! - [`Dgt3000`]: a DGT 3000 driven through a DGT board's serial port.
//!
//! A device is a pure state machine (bytes and commands in, bytes and
//! [`ClockReport`]s out, every call carrying its time); [`ClockLink`] runs
//! one on a serial path in a thread, reopens the path when the device is
//! unplugged and plugged back, and resends the last [`Display`] then.
//! `sim` has simulated clocks on pseudo-terminals for tests and benches
//! (feature `test-support`).

mod courier;
pub mod dgt;
mod display;
pub mod line;
mod link;
pub mod open;
mod report;
#[cfg(feature = "test-support")]
pub mod sim;
mod timemap;

#[cfg(feature = "test-support")]
pub mod bench;

use std::time::Instant;

pub use dgt::Dgt3000;
pub use display::Display;
pub use link::{ClockLink, ClockTexts, DeviceKind, TEXTS_WAITING};
pub use open::OpenClock;
pub use report::{Button, ClockReport};
pub use tactus_dgt::protocol::ClockSide;

/// What a device call produced: bytes for the serial line and reports for
/// the host.
#[derive(Debug, Default)]
pub struct Outbox {
    /// To write to the device, in order.
    pub bytes: Vec<u8>,
    /// For the host, in order.
    pub reports: Vec<ClockReport>,
}

/// One clock device's protocol, without I/O. Every call carries `now`;
/// [`ClockDevice::poll`] says when it wants to be called again (resends,
/// keep-alives, handshake retries).
pub trait ClockDevice: Send {
    /// The serial port has just been opened: start the handshake. Once the
    /// device answers, it reports [`ClockReport::Connected`] and resends the
    /// last display.
    fn opened(&mut self, now: Instant, out: &mut Outbox);
    /// The port is gone; forget everything about the connection.
    fn closed(&mut self);
    /// Bytes from the device, read at `at`.
    fn received(&mut self, bytes: &[u8], at: Instant, out: &mut Outbox);
    /// Show these times (replacing any text).
    fn show(&mut self, display: &Display, now: Instant, out: &mut Outbox);
    /// Beep for about `ms` milliseconds.
    fn beep(&mut self, ms: u32, now: Instant, out: &mut Outbox);
    /// Show a short text until the next [`ClockDevice::show`]; an empty text
    /// goes back to the times.
    fn text(&mut self, text: &str, now: Instant, out: &mut Outbox);
    /// Runs the timers due by `now`; returns when to call again.
    fn poll(&mut self, now: Instant, out: &mut Outbox) -> Option<Instant>;
}
