//! DGT e-Boards both ways, for tactus.
//!
//! - [`protocol`]: the DGT board serial protocol, both directions, sans I/O.
pub mod emulate;
pub mod link;
mod port;
pub mod protocol;
pub mod reader;
pub mod recognise;

pub use link::{BoardLink, EmulatorEvent, EmulatorLink};
pub use port::Endpoint;
