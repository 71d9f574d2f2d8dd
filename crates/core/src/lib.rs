//! The pure core of tactus: raw sensor edges, clock presses and inputs in;
//! the FIDE Laws' events out. No I/O, no async, no wall clock — every input
//! carries its time, timers are inputs — so a replay is exact and recovery
//! after a power cut is replaying the journal.

pub mod event;
pub mod serde_chess;

pub use event::*;
