//! The board's own log of what happened on it (its "EEPROM"): what
//! `DGT_MSG_EE_MOVES` carries, and bus mode's change reports.
//!
//! Tags: a field change is two bytes, `0x40 | r << 4 | code` (r: within
//! about 250 ms of the previous change) then the field; a time is three,
//! `0x60 | left << 4 | hours`, then BCD minutes and seconds; everything
//! else is one byte.

use std::collections::VecDeque;

use super::clock::Hms;
use super::codes::{Field, Occupant};

/// `EE_POWERUP`.
pub const EE_POWERUP: u8 = 0x6a;
/// `EE_EOF`: the end of a download.
pub const EE_EOF: u8 = 0x6b;
/// `EE_FOURROWS`: 16 pieces on the a, b, g, h rows, not the start.
pub const EE_FOURROWS: u8 = 0x6c;
/// `EE_EMPTYBOARD`.
pub const EE_EMPTYBOARD: u8 = 0x6d;
/// `EE_DOWNLOADED`.
pub const EE_DOWNLOADED: u8 = 0x6e;
/// `EE_BEGINPOS`: the starting position, White at the connector's left.
pub const EE_BEGINPOS: u8 = 0x6f;
/// `EE_BEGINPOS_ROT`: the starting position, rotated.
pub const EE_BEGINPOS_ROT: u8 = 0x7a;
/// `EE_START_TAG`: bus mode's start of a game.
pub const EE_START_TAG: u8 = 0x7b;
/// `EE_WATCHDOG_ACTION`.
pub const EE_WATCHDOG_ACTION: u8 = 0x7c;
/// `EE_NOP`.
pub const EE_NOP: u8 = 0x7f;
/// `EE_NOP2`.
pub const EE_NOP2: u8 = 0x00;

/// The log holds this many bytes; older events are dropped.
pub const EE_CAPACITY: usize = 0x1f00;

/// One event in the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EeEvent {
    /// A field now holds `occupant`.
    Field {
        /// Which.
        field: Field,
        /// What.
        occupant: Occupant,
        /// Within about 250 ms of the previous change.
        quick: bool,
    },
    /// The time of the clock face just halted by a lever press.
    Time {
        /// The left face (else the right).
        left: bool,
        /// What it showed.
        time: Hms,
    },
    /// A one-byte tag (`EE_POWERUP`…).
    Tag(u8),
}

impl EeEvent {
    /// Its bytes.
    pub fn encode(self, out: &mut Vec<u8>) {
        match self {
            EeEvent::Field { field, occupant, quick } => {
                out.extend_from_slice(&[0x40 | u8::from(quick) << 4 | occupant.code(), field.index()]);
            }
            EeEvent::Time { left, time } => {
                let bcd = |n: u8| ((n / 10) << 4) | (n % 10);
                out.extend_from_slice(&[
                    0x60 | u8::from(left) << 4 | time.h.min(9),
                    bcd(time.m % 60),
                    bcd(time.s % 60),
                ]);
            }
            EeEvent::Tag(t) => out.push(t),
        }
    }

    fn len(self) -> usize {
        match self {
            EeEvent::Field { .. } => 2,
            EeEvent::Time { .. } => 3,
            EeEvent::Tag(_) => 1,
        }
    }
}

/// A log that cannot be read back: at which byte, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EeError {
    #[error("byte {at}: {byte:#04x} starts no event")]
    NoEvent { at: usize, byte: u8 },
    #[error("byte {0}: event cut short")]
    CutShort(usize),
    #[error("byte {at}: field {field} above 63")]
    NoField { at: usize, field: u8 },
    #[error("byte {0}: bad piece code")]
    NoPiece(usize),
}

/// Reads a log back; the error names the byte offset.
pub fn decode(bytes: &[u8]) -> Result<Vec<EeEvent>, EeError> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let need = match b {
            0x40..=0x5f => 2,
            0x60..=0x69 | 0x70..=0x79 => 3,
            0x6a..=0x6f | 0x7a..=0x7f | EE_NOP2 => 1,
            _ => return Err(EeError::NoEvent { at: i, byte: b }),
        };
        let Some(m) = bytes.get(i..i + need) else { return Err(EeError::CutShort(i)) };
        out.push(match need {
            2 => EeEvent::Field {
                field: Field::new(m[1]).ok_or(EeError::NoField { at: i + 1, field: m[1] })?,
                occupant: Occupant::from_code(m[0] & 0x0f).ok_or(EeError::NoPiece(i))?,
                quick: m[0] & 0x10 != 0,
            },
            3 => {
                let unbcd = |v: u8| (v >> 4) * 10 + (v & 0x0f);
                EeEvent::Time { left: m[0] & 0x10 != 0, time: Hms { h: m[0] & 0x0f, m: unbcd(m[1]), s: unbcd(m[2]) } }
            }
            _ => EeEvent::Tag(b),
        });
        i += need;
    }
    Ok(out)
}

/// The board's log: bounded, oldest events dropped first. Each event has a
/// sequence number so that bus mode can send what is new since last time.
#[derive(Debug, Clone)]
pub struct EeLog {
    events: VecDeque<(u64, EeEvent)>,
    bytes: usize,
    next: u64,
}

impl Default for EeLog {
    fn default() -> EeLog {
        EeLog::new()
    }
}

impl EeLog {
    /// A log that starts as a board's does at power-on.
    pub fn new() -> EeLog {
        let mut log = EeLog { events: VecDeque::new(), bytes: 0, next: 0 };
        for _ in 0..3 {
            log.push(EeEvent::Tag(EE_NOP));
        }
        log.push(EeEvent::Tag(EE_POWERUP));
        log
    }

    /// Adds an event. A field that changes again straight after its last
    /// change overwrites that change, as the board does.
    pub fn push(&mut self, event: EeEvent) {
        if let (EeEvent::Field { field, .. }, Some((_, EeEvent::Field { field: last, .. }))) =
            (event, self.events.back())
            && field == *last
        {
            let (seq, _) = self.events.pop_back().unwrap_or((self.next, event));
            self.events.push_back((seq, event));
            return;
        }
        self.bytes += event.len();
        self.events.push_back((self.next, event));
        self.next += 1;
        while self.bytes > EE_CAPACITY {
            match self.events.pop_front() {
                Some((_, e)) => self.bytes -= e.len(),
                None => break,
            }
        }
    }

    /// The sequence number the next event will get.
    pub fn next_seq(&self) -> u64 {
        self.next
    }

    /// The bytes of the events numbered `from` on (what is left of them).
    pub fn bytes_since(&self, from: u64) -> Vec<u8> {
        let mut out = Vec::new();
        for (_, e) in self.events.iter().filter(|(seq, _)| *seq >= from) {
            e.encode(&mut out);
        }
        out
    }

    /// The whole log as `DGT_MSG_EE_MOVES` carries it, ending with `EE_EOF`.
    pub fn download(&self) -> Vec<u8> {
        let mut out = self.bytes_since(0);
        out.push(EE_EOF);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_and_the_log_stays_bounded() {
        let mut log = EeLog::new();
        let e2 = Field::new(52).unwrap();
        log.push(EeEvent::Field { field: e2, occupant: Occupant::Empty, quick: false });
        log.push(EeEvent::Time { left: true, time: Hms { h: 1, m: 23, s: 45 } });
        log.push(EeEvent::Tag(EE_BEGINPOS));
        let bytes = log.download();
        assert_eq!(bytes, [0x7f, 0x7f, 0x7f, 0x6a, 0x40, 52, 0x71, 0x23, 0x45, 0x6f, 0x6b]);
        assert_eq!(decode(&bytes).unwrap().len(), 8);
        assert_eq!(decode(&[0x40]).unwrap_err(), EeError::CutShort(0));
        assert_eq!(decode(&[0x80]).unwrap_err().to_string(), "byte 0: 0x80 starts no event");
        for i in 0..10_000u32 {
            let field = Field::new((i % 64) as u8).unwrap();
            log.push(EeEvent::Field { field, occupant: Occupant::Empty, quick: true });
        }
        assert!(log.download().len() <= EE_CAPACITY + 1);
        let tail = log.bytes_since(log.next_seq() - 1);
        assert_eq!(tail, [0x50, (9_999 % 64) as u8]);
    }

    #[test]
    fn a_field_changing_again_overwrites_its_last_change() {
        let mut log = EeLog::new();
        let f = Field::new(1).unwrap();
        let seq = log.next_seq();
        log.push(EeEvent::Field { field: f, occupant: Occupant::Empty, quick: false });
        log.push(EeEvent::Field { field: f, occupant: Occupant::from_code(3).unwrap(), quick: true });
        assert_eq!(log.bytes_since(seq), [0x53, 1]);
    }
}
