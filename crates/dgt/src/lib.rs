//! DGT e-Boards both ways, for tactus: read a DGT board, which knows which
//! piece stands on each square, and be a DGT board for the software people
//! already use. See the crate's README for the whole picture.
//!
//! - [`protocol`]: the DGT board serial protocol, both directions, sans I/O.
//! - [`reader`]: a real board's bytes to edges with piece identity.
//! - [`follow`]: a game's inputs from the reader's events: edges with the
//!   piece put down, the clock's presses, promotions.
//! - `recognise` (feature `test-support`): moves from placements, transients
//!   ignored; a test aid.
//! - [`emulate`]: answering as a DGT board from the game's position.
//! - [`link`]: the reader and the emulator on a serial line or a pty.

pub mod emulate;
pub mod follow;
pub mod link;
mod port;
pub mod protocol;
pub mod reader;
#[cfg(feature = "test-support")]
pub mod recognise;

pub use link::{BoardLink, EmulatorEvent, EmulatorLink};
pub use port::Endpoint;
