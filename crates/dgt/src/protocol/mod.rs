//! The DGT e-Board serial protocol, both directions, without I/O.
//!
//! Written from DGT's protocol description (`dgtbrd.h`, 2009–2015 revision,
//! as published with many free drivers); constants keep its names without
//! the `DGT_` prefix. The line is 9600 baud, 8 data bits, no parity, one
//! stop bit, no handshake ([`BAUD`]).
//!
//! - Host to board: one-byte [`Request`]s, [`ClockCommand`]s wrapped in
//!   `DGT_CLOCK_MESSAGE` (`0x2b`), the Revelation II's LED command, and in
//!   bus mode four-byte addressed [`BusRequest`]s — [`HostCommand`],
//!   [`HostParser`].
//! - Board to host: `id | 0x80`, a 14-bit length in two 7-bit bytes, data
//!   with the top bit clear — [`BoardMessage`], [`BoardParser`]; in bus mode
//!   with the board's address and a checksum ([`bus_message`]).
//! - Fields are numbered from the connector side: field 0 is a8 on a board
//!   lying [`Orientation::Normal`], h1 on a rotated one ([`Field`]).
//! - Piece codes 0–12 and the three magic pieces ([`Occupant`]).
//! - The clock on the board: its commands, and `DGT_MSG_BWTIME` carrying
//!   either times ([`ClockFaces`]) or an acknowledgement ([`ClockAck`]).
//! - The board's change log ([`ee`]), sent on `DGT_SEND_EE_MOVES` and in bus
//!   mode.

pub mod clock;
mod codes;
mod command;
pub mod ee;
mod message;
mod split;

pub use clock::{ClockAck, ClockCommand, ClockFaces, ClockSide, ClockStatus, Face, Hms, NotAClockSide};
pub use codes::{Field, Occupant, Orientation, Placement, Special};
pub use command::{BusRequest, DGT_CLOCK_MESSAGE, DGT_SET_LEDS, HostCommand, HostParser, Request, checksum};
pub use message::{
    Battery, BoardMessage, BoardParser, MAX_MESSAGE, MESSAGE_BIT, MSG_BATTERY_STATUS, MSG_BOARD_DUMP, MSG_BUSADRES,
    MSG_BWTIME, MSG_EE_MOVES, MSG_FIELD_UPDATE, MSG_LONG_SERIALNR, MSG_SERIALNR, MSG_TRADEMARK, MSG_VERSION,
};
pub use split::{Garbage, MAX_GARBAGE};

/// The line speed: 9600 baud, 8N1, no handshake.
pub const BAUD: u32 = 9600;

/// `DGT_MSG_BUS_BRD_DUMP`.
pub const MSG_BUS_BRD_DUMP: u8 = 0x83;
/// `DGT_MSG_BUS_BWTIME`.
pub const MSG_BUS_BWTIME: u8 = 0x84;
/// `DGT_MSG_BUS_UPDATE`: changes in the log's format.
pub const MSG_BUS_UPDATE: u8 = 0x85;
/// `DGT_MSG_BUS_FROM_START`: the log since the start tag.
pub const MSG_BUS_FROM_START: u8 = 0x86;
/// `DGT_MSG_BUS_PING`.
pub const MSG_BUS_PING: u8 = 0x87;
/// `DGT_MSG_BUS_START_GAME_WRITTEN`.
pub const MSG_BUS_START_GAME_WRITTEN: u8 = 0x88;
/// `DGT_MSG_BUS_VERSION`.
pub const MSG_BUS_VERSION: u8 = 0x89;

/// A bus-mode message: id, total length (two 7-bit bytes), the board's
/// address (two 7-bit bytes), data, and a checksum over all before it.
pub fn bus_message(id: u8, address: u16, data: &[u8]) -> Vec<u8> {
    let len = (data.len() + 6).min(MAX_MESSAGE);
    let mut m = Vec::with_capacity(len);
    m.extend_from_slice(&[
        id,
        (len >> 7) as u8 & 0x7f,
        len as u8 & 0x7f,
        (address >> 7) as u8 & 0x7f,
        address as u8 & 0x7f,
    ]);
    m.extend(data.iter().take(len - 6).map(|b| b & 0x7f));
    m.push(checksum(&m));
    m
}
