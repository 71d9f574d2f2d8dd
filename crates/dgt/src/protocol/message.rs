//! Board-to-host messages: a three-byte header (`id | 0x80`, then the
//! total length in two 7-bit bytes), then data bytes whose top bit is
//! always clear — which is how a reader finds its way after garbage.

use super::clock::{ClockAck, ClockFaces};
use super::codes::{Field, Occupant};
use super::split::{Garbage, Splitter, Take};

/// `MESSAGE_BIT`: set in the first byte of every board message only.
pub const MESSAGE_BIT: u8 = 0x80;
/// `DGT_MSG_BOARD_DUMP`.
pub const MSG_BOARD_DUMP: u8 = 0x86;
/// `DGT_MSG_BWTIME`: clock times and status, or a clock acknowledgement.
pub const MSG_BWTIME: u8 = 0x8d;
/// `DGT_MSG_FIELD_UPDATE`.
pub const MSG_FIELD_UPDATE: u8 = 0x8e;
/// `DGT_MSG_EE_MOVES`.
pub const MSG_EE_MOVES: u8 = 0x8f;
/// `DGT_MSG_BUSADRES`.
pub const MSG_BUSADRES: u8 = 0x90;
/// `DGT_MSG_SERIALNR`.
pub const MSG_SERIALNR: u8 = 0x91;
/// `DGT_MSG_TRADEMARK`.
pub const MSG_TRADEMARK: u8 = 0x92;
/// `DGT_MSG_VERSION`.
pub const MSG_VERSION: u8 = 0x93;
/// `DGT_MSG_BOARD_DUMP_50B` (draughts).
pub const MSG_BOARD_DUMP_50B: u8 = 0x94;
/// `DGT_MSG_BOARD_DUMP_50W` (draughts).
pub const MSG_BOARD_DUMP_50W: u8 = 0x95;
/// `DGT_MSG_BATTERY_STATUS` (Bluetooth boards).
pub const MSG_BATTERY_STATUS: u8 = 0xa0;
/// `DGT_MSG_LONG_SERIALNR`.
pub const MSG_LONG_SERIALNR: u8 = 0xa2;

/// The longest message the 14-bit length can give.
pub const MAX_MESSAGE: usize = (1 << 14) - 1;

/// The battery status as Bluetooth boards send it (nine data bytes; the
/// header's `DGT_SIZE_BATTERY_STATUS` of 7 is out of date, drivers expect 12
/// in all).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Battery {
    /// Capacity left, 0–100 %.
    pub percent: u8,
    /// Running or charging time left, hours and minutes; `0x7f` is n/a.
    pub time_left: (u8, u8),
    /// On time, hours and minutes.
    pub on_time: (u8, u8),
    /// Standby time: days, hours, minutes.
    pub standby: (u8, u8, u8),
    /// Bit 0 charging, bit 1 discharging.
    pub status: u8,
}

/// A message from the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardMessage {
    /// `DGT_MSG_BOARD_DUMP`: every field, in field order.
    BoardDump([Occupant; 64]),
    /// `DGT_MSG_FIELD_UPDATE`: one field now holds this.
    FieldUpdate {
        /// Which field.
        field: Field,
        /// What it holds now.
        occupant: Occupant,
    },
    /// `DGT_MSG_BWTIME` with the clock's faces and status.
    Clock(ClockFaces),
    /// `DGT_MSG_BWTIME` with a clock acknowledgement.
    ClockAck(ClockAck),
    /// `DGT_MSG_EE_MOVES`: the board's stored change log ([`super::ee`]).
    EeMoves(Vec<u8>),
    /// `DGT_MSG_BUSADRES`: the 14-bit bus address.
    BusAddress(u16),
    /// `DGT_MSG_SERIALNR`: five ASCII digits.
    SerialNr([u8; 5]),
    /// `DGT_MSG_LONG_SERIALNR`: ten ASCII digits.
    LongSerialNr([u8; 10]),
    /// `DGT_MSG_TRADEMARK`: text.
    Trademark(String),
    /// `DGT_MSG_VERSION`.
    Version {
        /// Major.
        major: u8,
        /// Minor.
        minor: u8,
    },
    /// `DGT_MSG_BATTERY_STATUS`.
    Battery(Battery),
    /// A draughts board dump: read, not understood.
    Draughts {
        /// Its id.
        id: u8,
    },
}

/// The size a message with this id must have; `Some(None)` for variable
/// sizes, `None` for ids a board never sends.
fn size_of(id: u8) -> Option<Option<usize>> {
    Some(match id {
        MSG_BOARD_DUMP => Some(67),
        MSG_BWTIME => Some(10),
        MSG_FIELD_UPDATE | MSG_BUSADRES | MSG_VERSION => Some(5),
        MSG_SERIALNR => Some(8),
        MSG_LONG_SERIALNR => Some(13),
        MSG_BOARD_DUMP_50B | MSG_BOARD_DUMP_50W => Some(53),
        MSG_EE_MOVES | MSG_TRADEMARK | MSG_BATTERY_STATUS => None,
        _ => return None,
    })
}

/// `id`, the length in two 7-bit bytes, and `data` (top bits cleared).
pub(crate) fn frame(id: u8, data: &[u8]) -> Vec<u8> {
    let len = (data.len() + 3).min(MAX_MESSAGE);
    let mut m = Vec::with_capacity(len);
    m.extend_from_slice(&[id, (len >> 7) as u8 & 0x7f, len as u8 & 0x7f]);
    m.extend(data.iter().take(len - 3).map(|b| b & 0x7f));
    m
}

fn ascii<const N: usize>(data: &[u8]) -> [u8; N] {
    let mut out = [b'0'; N];
    out.copy_from_slice(&data[..N]);
    out
}

impl BoardMessage {
    /// The bytes a board sends.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            BoardMessage::BoardDump(fields) => {
                let data: Vec<u8> = fields.iter().map(|o| o.code()).collect();
                frame(MSG_BOARD_DUMP, &data)
            }
            BoardMessage::FieldUpdate { field, occupant } => frame(MSG_FIELD_UPDATE, &[field.index(), occupant.code()]),
            BoardMessage::Clock(t) => frame(MSG_BWTIME, &t.encode_data()),
            BoardMessage::ClockAck(a) => frame(MSG_BWTIME, &a.encode_data()),
            BoardMessage::EeMoves(log) => frame(MSG_EE_MOVES, log),
            BoardMessage::BusAddress(a) => frame(MSG_BUSADRES, &[(a >> 7) as u8 & 0x7f, *a as u8 & 0x7f]),
            BoardMessage::SerialNr(s) => frame(MSG_SERIALNR, s),
            BoardMessage::LongSerialNr(s) => frame(MSG_LONG_SERIALNR, s),
            BoardMessage::Trademark(t) => {
                let data: Vec<u8> = t.bytes().map(|b| if b < 0x80 { b } else { b'?' }).collect();
                frame(MSG_TRADEMARK, &data)
            }
            BoardMessage::Version { major, minor } => frame(MSG_VERSION, &[*major, *minor]),
            BoardMessage::Battery(b) => frame(
                MSG_BATTERY_STATUS,
                &[
                    b.percent,
                    b.time_left.0,
                    b.time_left.1,
                    b.on_time.0,
                    b.on_time.1,
                    b.standby.0,
                    b.standby.1,
                    b.standby.2,
                    b.status,
                ],
            ),
            BoardMessage::Draughts { id } => frame(*id, &[0; 50]),
        }
    }

    /// From a message id and its data (top bits clear, size checked).
    fn decode(id: u8, data: &[u8]) -> Result<BoardMessage, &'static str> {
        Ok(match id {
            MSG_BOARD_DUMP => {
                let mut fields = [Occupant::Empty; 64];
                for (f, code) in fields.iter_mut().zip(data) {
                    *f = Occupant::from_code(*code).ok_or("board dump with an unknown piece code")?;
                }
                BoardMessage::BoardDump(fields)
            }
            MSG_FIELD_UPDATE => BoardMessage::FieldUpdate {
                field: Field::new(data[0]).ok_or("field update for a field above 63")?,
                occupant: Occupant::from_code(data[1]).ok_or("field update with an unknown piece code")?,
            },
            MSG_BWTIME => {
                let p: [u8; 7] = data.try_into().map_err(|_| "clock message of the wrong size")?;
                // An hours nibble of 10 cannot be a time: it marks an ack.
                if p[0] & 0x0f == 0x0a || p[3] & 0x0f == 0x0a {
                    BoardMessage::ClockAck(ClockAck::decode_data(&p))
                } else {
                    BoardMessage::Clock(ClockFaces::decode_data(&p))
                }
            }
            MSG_EE_MOVES => BoardMessage::EeMoves(data.to_vec()),
            MSG_BUSADRES => BoardMessage::BusAddress(u16::from(data[0]) << 7 | u16::from(data[1])),
            MSG_SERIALNR => BoardMessage::SerialNr(ascii(data)),
            MSG_LONG_SERIALNR => BoardMessage::LongSerialNr(ascii(data)),
            MSG_TRADEMARK => BoardMessage::Trademark(String::from_utf8_lossy(data).into_owned()),
            MSG_VERSION => BoardMessage::Version { major: data[0], minor: data[1] },
            MSG_BATTERY_STATUS => {
                let b = |i: usize| data.get(i).copied().unwrap_or(0x7f);
                if data.is_empty() {
                    return Err("empty battery status");
                }
                BoardMessage::Battery(Battery {
                    percent: b(0),
                    time_left: (b(1), b(2)),
                    on_time: (b(3), b(4)),
                    standby: (b(5), b(6), b(7)),
                    status: b(8),
                })
            }
            _ => BoardMessage::Draughts { id },
        })
    }
}

fn parse_board(buf: &[u8]) -> Take<BoardMessage> {
    let Some(&id) = buf.first() else { return Take::Incomplete };
    let Some(size) = size_of(id) else {
        return Take::Junk(1, if id & MESSAGE_BIT == 0 { "not the start of a message" } else { "unknown message id" });
    };
    if let Some(i) = buf.iter().take(3).skip(1).position(|b| b & MESSAGE_BIT != 0) {
        return Take::Junk(i + 1, "message header cut short");
    }
    if buf.len() < 3 {
        return Take::Incomplete;
    }
    let len = (usize::from(buf[1]) << 7) | usize::from(buf[2]);
    if size.map_or(len < 3, |s| s != len) {
        return Take::Junk(1, "message of the wrong length");
    }
    let have = buf.len().min(len);
    if let Some(i) = buf[3..have].iter().position(|b| b & MESSAGE_BIT != 0) {
        // A new message began inside this one: this one was cut short.
        return Take::Junk(3 + i, "message cut short");
    }
    if buf.len() < len {
        return Take::Incomplete;
    }
    match BoardMessage::decode(id, &buf[3..len]) {
        Ok(msg) => Take::Item(msg, len),
        Err(why) => Take::Junk(len, why),
    }
}

/// Board-to-host messages from a byte stream that may hold garbage and
/// partial messages. Holds at most one message's worth of bytes.
#[derive(Debug, Default)]
pub struct BoardParser {
    split: Splitter,
}

impl BoardParser {
    /// The complete messages and garbage in `bytes` and what came before.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Result<BoardMessage, Garbage>> {
        self.split.feed(bytes, MAX_MESSAGE, parse_board)
    }

    /// Forgets a partial message.
    pub fn clear(&mut self) {
        self.split.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::clock::{Face, Hms};
    use shakmaty::Square;

    fn samples() -> Vec<BoardMessage> {
        let start = crate::protocol::Placement::start().fields(crate::protocol::Orientation::Normal);
        vec![
            BoardMessage::BoardDump(start),
            BoardMessage::FieldUpdate {
                field: Field::of(Square::E2, crate::protocol::Orientation::Normal),
                occupant: Occupant::Empty,
            },
            BoardMessage::Clock(ClockFaces {
                left: Face { time: Hms { h: 0, m: 3, s: 2 }, ..Face::default() },
                ..ClockFaces::default()
            }),
            BoardMessage::ClockAck(ClockAck([0x10, 0x88, 0x05, 0x31])),
            BoardMessage::EeMoves(vec![0x7f, 0x7f, 0x7f, 0x6a, 0x6b]),
            BoardMessage::BusAddress(0x0401),
            BoardMessage::SerialNr(*b"01025"),
            BoardMessage::LongSerialNr(*b"0000001025"),
            BoardMessage::Trademark("tactus\nemulated".into()),
            BoardMessage::Version { major: 1, minor: 7 },
            BoardMessage::Battery(Battery { percent: 88, ..Battery::default() }),
        ]
    }

    #[test]
    fn every_message_round_trips_whole_and_byte_by_byte() {
        let msgs = samples();
        let stream: Vec<u8> = msgs.iter().flat_map(BoardMessage::encode).collect();
        assert_eq!(stream.iter().filter(|b| **b & MESSAGE_BIT != 0).count(), msgs.len());
        let whole: Vec<_> = BoardParser::default().feed(&stream).into_iter().map(Result::unwrap).collect();
        assert_eq!(whole, msgs);
        let mut p = BoardParser::default();
        let single: Vec<_> = stream.iter().flat_map(|b| p.feed(&[*b])).map(Result::unwrap).collect();
        assert_eq!(single, msgs);
    }

    #[test]
    fn garbage_is_skipped_and_reported_and_the_next_message_counts() {
        let version = BoardMessage::Version { major: 3, minor: 1 }.encode();
        let mut stream = vec![0x00, 0x13, 0xff];
        stream.extend_from_slice(&version[..2]); // cut short by the next message
        stream.extend_from_slice(
            &BoardMessage::FieldUpdate { field: Field::new(9).unwrap(), occupant: Occupant::Empty }.encode(),
        );
        stream.extend_from_slice(&[MSG_FIELD_UPDATE, 0, 5, 70, 1]); // field 70
        stream.extend_from_slice(&version);
        let items = BoardParser::default().feed(&stream);
        assert!(matches!(&items[0], Err(g) if g.bytes == [0x00, 0x13, 0xff, 0x93, 0x00]), "{items:?}");
        assert!(matches!(items[1], Ok(BoardMessage::FieldUpdate { .. })));
        assert!(matches!(&items[2], Err(g) if g.why == "field update for a field above 63"));
        assert_eq!(items[3], Ok(BoardMessage::Version { major: 3, minor: 1 }));
        assert_eq!(items.len(), 4);
    }

    #[test]
    fn a_long_run_of_noise_is_reported_with_a_bounded_sample() {
        let items = BoardParser::default().feed(&[0x55; 10_000]);
        assert!(matches!(&items[..], [Err(g)] if g.bytes.len() == crate::protocol::MAX_GARBAGE));
    }
}
