//! Host-to-board commands: one byte, `0x40`–`0x55`; a clock command
//! wrapped in `DGT_CLOCK_MESSAGE`; the LED command of the Revelation II;
//! and, in bus mode, four-byte addressed commands with a checksum.

use super::clock::{ClockCommand, END_MESSAGE, START_MESSAGE};
use super::split::{Garbage, Splitter, Take};

/// `DGT_CLOCK_MESSAGE`: a command for the clock follows.
pub const DGT_CLOCK_MESSAGE: u8 = 0x2b;
/// `DGT_SET_LEDS` (Revelation II).
pub const DGT_SET_LEDS: u8 = 0x60;

/// A one-byte command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Request {
    /// `DGT_SEND_RESET` (0x40): idle mode, no updates.
    Reset,
    /// `DGT_SEND_CLK` (0x41): a `DGT_MSG_BWTIME` now.
    Clock,
    /// `DGT_SEND_BRD` (0x42): a board dump now.
    Board,
    /// `DGT_SEND_UPDATE` (0x43): field updates, and the clock every second.
    Update,
    /// `DGT_SEND_UPDATE_BRD` (0x44): field updates only.
    UpdateBoard,
    /// `DGT_RETURN_SERIALNR` (0x45).
    SerialNr,
    /// `DGT_RETURN_BUSADRES` (0x46).
    BusAddress,
    /// `DGT_SEND_TRADEMARK` (0x47).
    Trademark,
    /// `DGT_SEND_EE_MOVES` (0x49).
    EeMoves,
    /// `DGT_TO_BUSMODE` (0x4a).
    ToBusMode,
    /// `DGT_SEND_UPDATE_NICE` (0x4b): field updates, and the clock when it
    /// changes.
    UpdateNice,
    /// `DGT_SEND_BATTERY_STATUS` (0x4c).
    Battery,
    /// `DGT_SEND_VERSION` (0x4d).
    Version,
    /// `DGT_STARTBOOTLOADER` (0x4e).
    StartBootloader,
    /// `DGT_SEND_BRD_50B` (0x50, draughts).
    Board50B,
    /// `DGT_SCAN_50B` (0x51, draughts).
    Scan50B,
    /// `DGT_SEND_BRD_50W` (0x52, draughts).
    Board50W,
    /// `DGT_SCAN_50W` (0x53, draughts).
    Scan50W,
    /// `DGT_SCAN_100` (0x54, draughts).
    Scan100,
    /// `DGT_RETURN_LONG_SERIALNR` (0x55).
    LongSerialNr,
}

const REQUESTS: [(u8, Request); 20] = [
    (0x40, Request::Reset),
    (0x41, Request::Clock),
    (0x42, Request::Board),
    (0x43, Request::Update),
    (0x44, Request::UpdateBoard),
    (0x45, Request::SerialNr),
    (0x46, Request::BusAddress),
    (0x47, Request::Trademark),
    (0x49, Request::EeMoves),
    (0x4a, Request::ToBusMode),
    (0x4b, Request::UpdateNice),
    (0x4c, Request::Battery),
    (0x4d, Request::Version),
    (0x4e, Request::StartBootloader),
    (0x50, Request::Board50B),
    (0x51, Request::Scan50B),
    (0x52, Request::Board50W),
    (0x53, Request::Scan50W),
    (0x54, Request::Scan100),
    (0x55, Request::LongSerialNr),
];

impl Request {
    /// Its byte.
    pub fn code(self) -> u8 {
        REQUESTS.iter().find(|(_, r)| *r == self).map_or(0, |(c, _)| *c)
    }

    /// The request a byte is.
    pub fn from_code(code: u8) -> Option<Request> {
        REQUESTS.iter().find(|(c, _)| *c == code).map(|(_, r)| *r)
    }
}

/// A bus-mode command (`DGT_BUS_*`, `0x81`–`0x8d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BusRequest {
    /// `DGT_BUS_SEND_CLK`.
    Clock,
    /// `DGT_BUS_SEND_BRD`.
    Board,
    /// `DGT_BUS_SEND_CHANGES`: the changes since the last time.
    Changes,
    /// `DGT_BUS_REPEAT_CHANGES`: the last changes again.
    RepeatChanges,
    /// `DGT_BUS_SET_START_GAME`: mark the start of a game in the log.
    SetStartGame,
    /// `DGT_BUS_SEND_FROM_START`: the log since that mark.
    FromStart,
    /// `DGT_BUS_PING`.
    Ping,
    /// `DGT_BUS_END_BUSMODE`.
    EndBusMode,
    /// `DGT_BUS_RESET`.
    Reset,
    /// `DGT_BUS_IGNORE_NEXT_BUS_PING`.
    IgnoreNextPing,
    /// `DGT_BUS_SEND_VERSION`.
    Version,
    /// `DGT_BUS_SEND_BRD_50B` (draughts).
    Board50B,
    /// `DGT_BUS_SEND_ALL_D`: changes, clock, board.
    All,
}

const BUS_REQUESTS: [BusRequest; 13] = [
    BusRequest::Clock,
    BusRequest::Board,
    BusRequest::Changes,
    BusRequest::RepeatChanges,
    BusRequest::SetStartGame,
    BusRequest::FromStart,
    BusRequest::Ping,
    BusRequest::EndBusMode,
    BusRequest::Reset,
    BusRequest::IgnoreNextPing,
    BusRequest::Version,
    BusRequest::Board50B,
    BusRequest::All,
];

impl BusRequest {
    /// Its byte: `0x81` onwards, in the order above.
    pub fn code(self) -> u8 {
        0x81 + BUS_REQUESTS.iter().position(|r| *r == self).unwrap_or(0) as u8
    }

    fn from_code(code: u8) -> Option<BusRequest> {
        BUS_REQUESTS.get(usize::from(code.checked_sub(0x81)?)).copied()
    }
}

/// The bus checksum: the sum of the bytes, top bit cleared.
pub fn checksum(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |s, b| s.wrapping_add(*b)) & 0x7f
}

/// A command from the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostCommand {
    /// A one-byte command.
    Request(Request),
    /// A command for the clock.
    Clock(ClockCommand),
    /// `DGT_SET_LEDS`: pattern, first and last field (Revelation II).
    Leds {
        /// 0 off, 1 on.
        pattern: u8,
        /// First field.
        from: u8,
        /// Last field.
        to: u8,
    },
    /// A bus-mode command for the board at `address` (0: all boards).
    Bus {
        /// What.
        request: BusRequest,
        /// For which board.
        address: u16,
    },
}

impl HostCommand {
    /// The bytes a host sends.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            HostCommand::Request(r) => vec![r.code()],
            HostCommand::Clock(c) => c.encode(),
            HostCommand::Leds { pattern, from, to } => {
                vec![DGT_SET_LEDS, 0x04, *pattern & 0x7f, *from & 0x7f, *to & 0x7f, END_MESSAGE]
            }
            HostCommand::Bus { request, address } => {
                let mut m = vec![request.code(), (address >> 7) as u8 & 0x7f, *address as u8 & 0x7f];
                m.push(checksum(&m));
                m
            }
        }
    }
}

/// The longest command: a clock message of 16 bytes after its size.
const MAX_COMMAND: usize = 18;

fn parse_host(buf: &[u8]) -> Take<HostCommand> {
    let Some(&first) = buf.first() else { return Take::Incomplete };
    if let Some(r) = Request::from_code(first) {
        return Take::Item(HostCommand::Request(r), 1);
    }
    if let Some(request) = BusRequest::from_code(first) {
        let Some(m) = buf.get(..4) else { return Take::Incomplete };
        if m[1..].iter().any(|b| b & 0x80 != 0) || checksum(&m[..3]) != m[3] {
            return Take::Junk(1, "bus command with a bad checksum");
        }
        let address = u16::from(m[1]) << 7 | u16::from(m[2]);
        return Take::Item(HostCommand::Bus { request, address }, 4);
    }
    match first {
        DGT_CLOCK_MESSAGE => {
            let Some(&n) = buf.get(1) else { return Take::Incomplete };
            let n = usize::from(n);
            if !(3..=MAX_COMMAND - 2).contains(&n) {
                return Take::Junk(1, "clock message of an impossible size");
            }
            let Some(body) = buf.get(2..2 + n) else { return Take::Incomplete };
            match body {
                [START_MESSAGE, cmd, data @ .., END_MESSAGE] => {
                    Take::Item(HostCommand::Clock(ClockCommand::decode(*cmd, data)), 2 + n)
                }
                _ => Take::Junk(1, "clock message not framed by 0x03 … 0x00"),
            }
        }
        DGT_SET_LEDS => {
            let Some(m) = buf.get(..6) else { return Take::Incomplete };
            match m {
                [_, 0x04, pattern, from, to, END_MESSAGE] => {
                    Take::Item(HostCommand::Leds { pattern: *pattern, from: *from, to: *to }, 6)
                }
                _ => Take::Junk(1, "LED command not framed as size 4 … 0x00"),
            }
        }
        _ => Take::Junk(1, "unknown command"),
    }
}

/// Host-to-board commands from a byte stream that may hold garbage and
/// partial commands.
#[derive(Debug, Default)]
pub struct HostParser {
    split: Splitter,
}

impl HostParser {
    /// The complete commands and garbage in `bytes` and what came before.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Result<HostCommand, Garbage>> {
        self.split.feed(bytes, MAX_COMMAND, parse_host)
    }

    /// Forgets a partial command.
    pub fn clear(&mut self) {
        self.split.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::clock::Hms;

    #[test]
    fn every_command_round_trips_and_the_bus_checksum_is_the_documented_one() {
        let bus = HostCommand::Bus { request: BusRequest::Ping, address: 0x0401 };
        assert_eq!(BusRequest::Ping.code(), 0x87);
        assert_eq!(BusRequest::All.code(), 0x8d);
        assert_eq!(checksum(&[0x81, 0x10, 0x06]), 0x17, "dgtbrd.h's example");
        let cmds: Vec<HostCommand> = REQUESTS
            .iter()
            .map(|(_, r)| HostCommand::Request(*r))
            .chain([
                HostCommand::Clock(ClockCommand::SetNRun {
                    left: Hms::from_ms(60_000),
                    right: Hms::default(),
                    flags: 9,
                }),
                HostCommand::Clock(ClockCommand::ascii("mate")),
                HostCommand::Leds { pattern: 1, from: 0, to: 63 },
                bus,
            ])
            .collect();
        let stream: Vec<u8> = cmds.iter().flat_map(HostCommand::encode).collect();
        let mut p = HostParser::default();
        let parsed: Vec<_> = stream.iter().flat_map(|b| p.feed(&[*b])).map(Result::unwrap).collect();
        assert_eq!(parsed, cmds);
    }

    #[test]
    fn junk_between_commands_is_reported() {
        let mut stream = vec![0x00, 0x7e, 0x2b, 0x40, 0x81, 0, 1, 0x55];
        stream.push(0x4d);
        let items = HostParser::default().feed(&stream);
        assert!(matches!(&items[0], Err(g) if g.bytes == [0x00, 0x7e, 0x2b]), "{items:?}");
        assert_eq!(items[1], Ok(HostCommand::Request(Request::Reset)));
        assert!(matches!(&items[2], Err(g) if g.why == "bus command with a bad checksum"));
        // The bytes after the bad bus command's first are read again: 0, 1 are
        // junk, 0x55 and 0x4d are requests.
        assert_eq!(
            items[3..],
            [Ok(HostCommand::Request(Request::LongSerialNr)), Ok(HostCommand::Request(Request::Version))]
        );
    }
}
