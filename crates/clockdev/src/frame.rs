//! The DGT board serial protocol, as far as a DGT 3000 clock on the board
//! needs it: the constants (named as in DGT's `dgtbrd.h`), the clock
//! messages the host sends, and a parser for what the board sends back.
//! Pure; written from the public protocol description and the free
//! drivers that use it, and verified only against [`crate::sim`]
//! (`hardware/clock/README.md` lists what is unverified).

/// `DGT_SEND_RESET`: idle mode, no updates.
pub const DGT_SEND_RESET: u8 = 0x40;
/// `DGT_SEND_BRD`: answered by a board dump.
pub const DGT_SEND_BRD: u8 = 0x42;
/// `DGT_SEND_UPDATE_NICE`: field updates, and `DGT_MSG_BWTIME` when the
/// clock changes; clock messages are acknowledged only in an update mode.
pub const DGT_SEND_UPDATE_NICE: u8 = 0x4b;
/// `DGT_SEND_VERSION`: answered by `DGT_MSG_VERSION`.
pub const DGT_SEND_VERSION: u8 = 0x4d;
/// `DGT_CLOCK_MESSAGE`: a command for the clock follows:
/// `0x2b, n, DGT_CMD_CLOCK_START_MESSAGE, cmd, data…, DGT_CMD_CLOCK_END_MESSAGE`,
/// `n` counting the bytes after itself.
pub const DGT_CLOCK_MESSAGE: u8 = 0x2b;

/// `DGT_CMD_CLOCK_START_MESSAGE`.
pub const DGT_CMD_CLOCK_START_MESSAGE: u8 = 0x03;
/// `DGT_CMD_CLOCK_END_MESSAGE`.
pub const DGT_CMD_CLOCK_END_MESSAGE: u8 = 0x00;
/// `DGT_CMD_CLOCK_END`: clear a text, show the times again.
pub const DGT_CMD_CLOCK_END: u8 = 0x03;
/// `DGT_CMD_CLOCK_VERSION`: acknowledged with the clock's version (2.x: DGT 3000).
pub const DGT_CMD_CLOCK_VERSION: u8 = 0x09;
/// `DGT_CMD_CLOCK_SETNRUN`: left h, m, s, right h, m, s (binary), then
/// [`SETNRUN_LEFT_RUNS`]… flags.
pub const DGT_CMD_CLOCK_SETNRUN: u8 = 0x0a;
/// `DGT_CMD_CLOCK_BEEP`: one byte, the duration in [`BEEP_UNIT_MS`].
pub const DGT_CMD_CLOCK_BEEP: u8 = 0x0b;
/// `DGT_CMD_CLOCK_ASCII` (DGT 3000 only): eight characters, then a beep byte.
pub const DGT_CMD_CLOCK_ASCII: u8 = 0x0c;

/// Set-and-run flag: the left time counts down.
pub const SETNRUN_LEFT_RUNS: u8 = 0x01;
/// Set-and-run flag: the right time counts down.
pub const SETNRUN_RIGHT_RUNS: u8 = 0x02;
/// Set-and-run flag: both stopped.
pub const SETNRUN_PAUSE: u8 = 0x04;
/// Set-and-run flag: the clock itself switches sides on a lever press, so
/// the players see it at once; the host's next set-and-run follows.
pub const SETNRUN_TOGGLE_ON_LEVER: u8 = 0x08;
/// `DGT_CMD_CLOCK_BEEP` counts in units of 64 ms.
pub const BEEP_UNIT_MS: u32 = 64;

/// `MESSAGE_BIT`: set in the first byte of every board message, clear in
/// every other byte — which is how the parser finds its way after garbage.
pub const MESSAGE_BIT: u8 = 0x80;
/// `DGT_MSG_BOARD_DUMP`.
pub const DGT_MSG_BOARD_DUMP: u8 = 0x86;
/// `DGT_MSG_BWTIME`: clock times and status, or a clock acknowledgement.
pub const DGT_MSG_BWTIME: u8 = 0x8d;
/// `DGT_MSG_FIELD_UPDATE`.
pub const DGT_MSG_FIELD_UPDATE: u8 = 0x8e;
/// `DGT_MSG_EE_MOVES` (variable size).
pub const DGT_MSG_EE_MOVES: u8 = 0x8f;
/// `DGT_MSG_BUSADRES`.
pub const DGT_MSG_BUSADRES: u8 = 0x90;
/// `DGT_MSG_SERIALNR`.
pub const DGT_MSG_SERIALNR: u8 = 0x91;
/// `DGT_MSG_TRADEMARK` (variable size).
pub const DGT_MSG_TRADEMARK: u8 = 0x92;
/// `DGT_MSG_VERSION`: major, minor.
pub const DGT_MSG_VERSION: u8 = 0x93;
/// `DGT_MSG_BATTERY_STATUS`.
pub const DGT_MSG_BATTERY_STATUS: u8 = 0xa0;
/// `DGT_MSG_LONG_SERIALNR`.
pub const DGT_MSG_LONG_SERIALNR: u8 = 0xa2;

/// First acknowledgement byte of a clock that did what it was told.
pub const DGT_ACK_CLOCK_OK: u8 = 0x10;
/// Second acknowledgement byte for a button press (the fourth says which).
pub const DGT_ACK_CLOCK_BUTTON: u8 = 0x88;
/// Fourth acknowledgement byte of a button press: buttons 0 to 4 are
/// `0x31`–`0x35` (back, minus, play/pause, plus, forward).
pub const BUTTON_FIRST: u8 = 0x31;
/// Fourth acknowledgement byte of the on/off button.
pub const BUTTON_ON_OFF: u8 = 0x40;

/// `DGT_MSG_BWTIME` status: the clock runs.
pub const STATUS_RUNNING: u8 = 0x01;
/// `DGT_MSG_BWTIME` status: the lever is high on the right, so down on
/// the left: the left player pressed last.
pub const STATUS_LEFT_DOWN: u8 = 0x02;
/// `DGT_MSG_BWTIME` status: no clock on the board; the times are invalid.
pub const STATUS_NO_CLOCK: u8 = 0x20;

/// Longest variable-size message accepted.
const MAX_MESSAGE: usize = 512;

/// Hours, minutes, seconds as a DGT clock shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hms {
    /// 0–9.
    pub h: u8,
    /// 0–59.
    pub m: u8,
    /// 0–59.
    pub s: u8,
}

impl Hms {
    /// `ms` rounded up to the second (a clock shows 0:00 only when the time
    /// is gone), between 0:00:00 and 9:59:59.
    pub fn from_ms(ms: i64) -> Hms {
        let secs = u64::try_from(ms).unwrap_or(0).div_ceil(1000).min(9 * 3600 + 59 * 60 + 59);
        // Each part is below 60 after the clamp.
        Hms { h: (secs / 3600) as u8, m: (secs / 60 % 60) as u8, s: (secs % 60) as u8 }
    }

    /// Back to milliseconds.
    pub fn ms(self) -> i64 {
        (i64::from(self.h) * 3600 + i64::from(self.m) * 60 + i64::from(self.s)) * 1000
    }
}

/// A clock command framed for the board.
pub fn clock_message(cmd: u8, data: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(data.len() + 5);
    // Start byte, command, data, end byte: never above 0x7f for our commands.
    m.extend_from_slice(&[DGT_CLOCK_MESSAGE, (data.len() + 3) as u8, DGT_CMD_CLOCK_START_MESSAGE, cmd]);
    m.extend_from_slice(data);
    m.push(DGT_CMD_CLOCK_END_MESSAGE);
    m
}

/// `DGT_CMD_CLOCK_SETNRUN`.
pub fn setnrun(left: Hms, right: Hms, flags: u8) -> Vec<u8> {
    clock_message(DGT_CMD_CLOCK_SETNRUN, &[left.h, left.m, left.s, right.h, right.m, right.s, flags])
}

/// `DGT_CMD_CLOCK_ASCII`: `text` padded or cut to eight characters.
pub fn ascii(text: &str) -> Vec<u8> {
    let mut data = [b' '; 9];
    for (d, c) in data.iter_mut().zip(text.bytes().take(8)) {
        *d = if (0x20..0x7f).contains(&c) { c } else { b'?' };
    }
    data[8] = 0; // no beep
    clock_message(DGT_CMD_CLOCK_ASCII, &data)
}

/// `DGT_CMD_CLOCK_BEEP` for about `ms`.
pub fn beep(ms: u32) -> Vec<u8> {
    let units = ms.div_ceil(BEEP_UNIT_MS).clamp(1, 0x7f) as u8;
    clock_message(DGT_CMD_CLOCK_BEEP, &[units])
}

/// A clock acknowledgement: four bytes spread over a `DGT_MSG_BWTIME`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockAck(pub [u8; 4]);

impl ClockAck {
    /// The clock did what it was told (or reports a button).
    pub fn ok(self) -> bool {
        self.0[0] == DGT_ACK_CLOCK_OK
    }

    /// Which command it acknowledges, or [`DGT_ACK_CLOCK_BUTTON`].
    pub fn command(self) -> u8 {
        self.0[1]
    }
}

/// The times and status a `DGT_MSG_BWTIME` carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockTime {
    /// The right-hand face.
    pub right: Hms,
    /// The left-hand face.
    pub left: Hms,
    /// `STATUS_*` bits.
    pub status: u8,
}

/// A message from the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardMsg {
    /// `DGT_MSG_VERSION`.
    Version {
        /// Major.
        major: u8,
        /// Minor.
        minor: u8,
    },
    /// `DGT_MSG_BWTIME` carrying a clock acknowledgement.
    Ack(ClockAck),
    /// `DGT_MSG_BWTIME` carrying times.
    Time(ClockTime),
    /// Another well-formed message (field updates, dumps…): not the clock's.
    Other {
        /// Its id.
        id: u8,
    },
}

fn bcd(b: u8) -> u8 {
    (b >> 4) * 10 + (b & 0x0f)
}

fn to_bcd(n: u8) -> u8 {
    ((n / 10) << 4) | (n % 10)
}

impl BoardMsg {
    /// The bytes a board sends.
    pub fn encode(&self) -> Vec<u8> {
        match *self {
            BoardMsg::Version { major, minor } => vec![DGT_MSG_VERSION, 0, 5, major & 0x7f, minor & 0x7f],
            BoardMsg::Ack(ClockAck([a0, a1, a2, a3])) => {
                let hi = |b: u8, shift: u8| (b >> 7) << shift;
                vec![
                    DGT_MSG_BWTIME,
                    0,
                    10,
                    0x0a | hi(a2, 4) | hi(a3, 5),
                    a0 & 0x7f,
                    a1 & 0x7f,
                    0x0a | hi(a0, 4) | hi(a1, 5),
                    a2 & 0x7f,
                    a3 & 0x7f,
                    0,
                ]
            }
            BoardMsg::Time(t) => vec![
                DGT_MSG_BWTIME,
                0,
                10,
                t.right.h.min(9),
                to_bcd(t.right.m % 60),
                to_bcd(t.right.s % 60),
                t.left.h.min(9),
                to_bcd(t.left.m % 60),
                to_bcd(t.left.s % 60),
                t.status & 0x7f,
            ],
            BoardMsg::Other { id } => vec![id | MESSAGE_BIT, 0, 3],
        }
    }

    fn decode(id: u8, data: &[u8]) -> BoardMsg {
        match (id, data) {
            (DGT_MSG_VERSION, &[major, minor]) => BoardMsg::Version { major, minor },
            (DGT_MSG_BWTIME, &[p0, p1, p2, p3, p4, p5, p6]) => {
                // An hours nibble of 10 cannot be a time: it marks an ack.
                if p0 & 0x0f == 0x0a || p3 & 0x0f == 0x0a {
                    BoardMsg::Ack(ClockAck([
                        (p1 & 0x7f) | ((p3 << 3) & 0x80),
                        (p2 & 0x7f) | ((p3 << 2) & 0x80),
                        (p4 & 0x7f) | ((p0 << 3) & 0x80),
                        (p5 & 0x7f) | ((p0 << 2) & 0x80),
                    ]))
                } else {
                    BoardMsg::Time(ClockTime {
                        right: Hms { h: p0 & 0x0f, m: bcd(p1), s: bcd(p2) },
                        left: Hms { h: p3 & 0x0f, m: bcd(p4), s: bcd(p5) },
                        status: p6,
                    })
                }
            }
            _ => BoardMsg::Other { id },
        }
    }
}

/// The size a message with this id must have; `None` for variable sizes.
fn fixed_size(id: u8) -> Option<Option<usize>> {
    Some(match id {
        DGT_MSG_BOARD_DUMP => Some(67),
        DGT_MSG_BWTIME => Some(10),
        DGT_MSG_FIELD_UPDATE | DGT_MSG_BUSADRES | DGT_MSG_VERSION => Some(5),
        DGT_MSG_SERIALNR => Some(8),
        DGT_MSG_BATTERY_STATUS => Some(7),
        DGT_MSG_LONG_SERIALNR => Some(13),
        DGT_MSG_EE_MOVES | DGT_MSG_TRADEMARK => None,
        _ => return None,
    })
}

enum Take<T> {
    Msg(T, usize),
    Junk(usize),
    Incomplete,
}

/// A parsed item, or bytes skipped as garbage.
pub type Parsed<T> = Result<T, Vec<u8>>;

/// Splits a byte stream into `T`s with `parse_one`, gathering skipped
/// bytes into one garbage piece per run.
fn split<T>(buf: &mut Vec<u8>, bytes: &[u8], parse_one: fn(&[u8]) -> Take<T>) -> Vec<Parsed<T>> {
    buf.extend_from_slice(bytes);
    let mut out = Vec::new();
    let mut junk = Vec::new();
    let mut at = 0;
    loop {
        match parse_one(&buf[at..]) {
            Take::Msg(m, n) => {
                if !junk.is_empty() {
                    out.push(Err(std::mem::take(&mut junk)));
                }
                out.push(Ok(m));
                at += n;
            }
            Take::Junk(n) => {
                junk.extend_from_slice(&buf[at..at + n]);
                at += n;
            }
            Take::Incomplete => break,
        }
    }
    if !junk.is_empty() {
        out.push(Err(junk));
    }
    buf.drain(..at);
    out
}

fn parse_board(buf: &[u8]) -> Take<BoardMsg> {
    let Some(&id) = buf.first() else { return Take::Incomplete };
    let Some(size) = fixed_size(id) else { return Take::Junk(1) };
    if let Some(i) = buf.iter().take(3).skip(1).position(|b| b & MESSAGE_BIT != 0) {
        return Take::Junk(i + 1);
    }
    if buf.len() < 3 {
        return Take::Incomplete;
    }
    let len = (usize::from(buf[1]) << 7) | usize::from(buf[2]);
    if size.map_or(!(3..=MAX_MESSAGE).contains(&len), |s| s != len) {
        return Take::Junk(1);
    }
    let have = buf.len().min(len);
    if let Some(i) = buf[3..have].iter().position(|b| b & MESSAGE_BIT != 0) {
        // A new message began inside this one: this one was cut short.
        return Take::Junk(3 + i);
    }
    if buf.len() < len {
        return Take::Incomplete;
    }
    Take::Msg(BoardMsg::decode(id, &buf[3..len]), len)
}

/// Board-to-host messages from a byte stream that may hold garbage and
/// partial messages.
#[derive(Debug, Default)]
pub struct BoardFrames {
    buf: Vec<u8>,
}

impl BoardFrames {
    /// The complete messages and garbage in `bytes` and what came before.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Parsed<BoardMsg>> {
        split(&mut self.buf, bytes, parse_board)
    }

    /// Forgets a partial message.
    pub fn clear(&mut self) {
        self.buf.clear();
    }
}

/// A host-to-board command, as a simulated board reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostCmd {
    /// A one-byte command (`DGT_SEND_*`).
    Single(u8),
    /// A `DGT_CLOCK_MESSAGE`: its command and data.
    Clock {
        /// `DGT_CMD_CLOCK_*`.
        cmd: u8,
        /// What follows it, without the end byte.
        data: Vec<u8>,
    },
}

fn parse_host(buf: &[u8]) -> Take<HostCmd> {
    let Some(&first) = buf.first() else { return Take::Incomplete };
    match first {
        DGT_SEND_RESET..=0x55 => Take::Msg(HostCmd::Single(first), 1),
        DGT_CLOCK_MESSAGE => {
            let Some(&n) = buf.get(1) else { return Take::Incomplete };
            let n = usize::from(n);
            if !(3..=16).contains(&n) {
                return Take::Junk(1);
            }
            let Some(body) = buf.get(2..2 + n) else { return Take::Incomplete };
            match body {
                [DGT_CMD_CLOCK_START_MESSAGE, cmd, data @ .., DGT_CMD_CLOCK_END_MESSAGE] => {
                    Take::Msg(HostCmd::Clock { cmd: *cmd, data: data.to_vec() }, 2 + n)
                }
                _ => Take::Junk(1),
            }
        }
        _ => Take::Junk(1),
    }
}

/// Host-to-board commands from a byte stream (for the simulated board).
#[derive(Debug, Default)]
pub struct HostFrames {
    buf: Vec<u8>,
}

impl HostFrames {
    /// The complete commands and garbage in `bytes` and what came before.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Parsed<HostCmd>> {
        split(&mut self.buf, bytes, parse_host)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn clock_messages_are_framed_as_drivers_send_them() {
        assert_eq!(clock_message(DGT_CMD_CLOCK_VERSION, &[]), [0x2b, 0x03, 0x03, 0x09, 0x00]);
        let left = Hms::from_ms(299_001);
        assert_eq!(left, Hms { h: 0, m: 5, s: 0 });
        assert_eq!(
            setnrun(left, Hms::from_ms(3_600_000), SETNRUN_LEFT_RUNS),
            [0x2b, 0x0a, 0x03, 0x0a, 0, 5, 0, 1, 0, 0, 0x01, 0x00]
        );
        assert_eq!(beep(200), [0x2b, 0x04, 0x03, 0x0b, 4, 0x00]);
        assert_eq!(ascii("e4").len(), 14);
        assert_eq!(Hms::from_ms(-5), Hms::default());
        assert_eq!(Hms::from_ms(i64::MAX), Hms { h: 9, m: 59, s: 59 });
    }

    #[test]
    fn acks_and_times_round_trip() {
        for ack in [[0x10, 0x0a, 0, 0], [0x10, 0x88, 0x07, 0x35], [0xff, 0xff, 0xff, 0xff]] {
            let bytes = BoardMsg::Ack(ClockAck(ack)).encode();
            assert!(bytes[1..].iter().all(|b| b & 0x80 == 0));
            assert_eq!(BoardFrames::default().feed(&bytes), [Ok(BoardMsg::Ack(ClockAck(ack)))]);
        }
        let t = ClockTime { right: Hms { h: 1, m: 29, s: 59 }, left: Hms { h: 0, m: 3, s: 7 }, status: 0x13 };
        assert_eq!(BoardFrames::default().feed(&BoardMsg::Time(t).encode()), [Ok(BoardMsg::Time(t))]);
    }

    #[test]
    fn garbage_and_cut_messages_are_skipped() {
        let mut f = BoardFrames::default();
        let version = BoardMsg::Version { major: 1, minor: 9 }.encode();
        let mut bytes = vec![0x01, 0x7f, 0xff];
        bytes.extend_from_slice(&version[..3]); // cut short by the next message
        bytes.extend_from_slice(&version);
        bytes.extend_from_slice(&version[..2]); // partial, kept
        let out = f.feed(&bytes);
        assert_eq!(out, [Err(vec![0x01, 0x7f, 0xff, 0x93, 0, 5]), Ok(BoardMsg::Version { major: 1, minor: 9 })]);
        assert_eq!(f.feed(&version[2..]), [Ok(BoardMsg::Version { major: 1, minor: 9 })]);
    }

    #[test]
    fn the_simulated_board_reads_what_the_host_sends() {
        let mut f = HostFrames::default();
        let mut bytes = vec![DGT_SEND_UPDATE_NICE, 0x00];
        bytes.extend(beep(64));
        let out = f.feed(&bytes[..bytes.len() - 1]);
        assert_eq!(out, [Ok(HostCmd::Single(DGT_SEND_UPDATE_NICE)), Err(vec![0x00])]);
        assert_eq!(f.feed(&bytes[bytes.len() - 1..]), [Ok(HostCmd::Clock { cmd: DGT_CMD_CLOCK_BEEP, data: vec![1] })]);
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic_and_nothing_is_lost(
            chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..8)
        ) {
            let mut board = BoardFrames::default();
            let mut host = HostFrames::default();
            for chunk in &chunks {
                for item in board.feed(chunk) {
                    if let Err(junk) = item {
                        prop_assert!(!junk.is_empty());
                    }
                }
                host.feed(chunk);
            }
            prop_assert!(board.buf.len() <= MAX_MESSAGE);
        }

        #[test]
        fn messages_survive_being_cut_anywhere(cut in 0usize..30, ack in any::<[u8; 4]>()) {
            let mut bytes = BoardMsg::Version { major: 2, minor: 1 }.encode();
            bytes.extend(BoardMsg::Ack(ClockAck(ack)).encode());
            bytes.extend(BoardMsg::Other { id: 0x0e }.encode());
            let cut = cut.min(bytes.len());
            let mut f = BoardFrames::default();
            let mut out = f.feed(&bytes[..cut]);
            out.extend(f.feed(&bytes[cut..]));
            prop_assert_eq!(&out[..2], &[Ok(BoardMsg::Version { major: 2, minor: 1 }), Ok(BoardMsg::Ack(ClockAck(ack)))]);
        }
    }
}
