//! The clock on the board: the DGT 3000 (and XL) commands a host wraps in
//! `DGT_CLOCK_MESSAGE`, and the `DGT_MSG_BWTIME` the board answers with —
//! either the clock's times and status or a four-byte acknowledgement.

use shakmaty::Color;

/// Hours, minutes, seconds as a DGT clock shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
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
        let face = tactus_clock::Hms::up(ms).min(tactus_clock::Hms { h: 9, m: 59, s: 59 });
        // At most 9 after the clamp.
        Hms { h: face.h as u8, m: face.m, s: face.s }
    }

    /// Back to milliseconds.
    pub fn ms(self) -> i64 {
        let seconds = tactus_clock::Hms { h: self.h.into(), m: self.m, s: self.s }.seconds();
        // At most 9:255:255 in seconds.
        seconds as i64 * 1000
    }
}

/// `DGT_CMD_CLOCK_DISPLAY`: six 7-segment characters (XL).
pub const CMD_DISPLAY: u8 = 0x01;
/// `DGT_CMD_CLOCK_ICONS`.
pub const CMD_ICONS: u8 = 0x02;
/// `DGT_CMD_CLOCK_END`: clear a text, show the times again.
pub const CMD_END: u8 = 0x03;
/// `DGT_CMD_CLOCK_BUTTON`: which button is down.
pub const CMD_BUTTON: u8 = 0x08;
/// `DGT_CMD_CLOCK_VERSION`: acknowledged with the clock's version.
pub const CMD_VERSION: u8 = 0x09;
/// `DGT_CMD_CLOCK_SETNRUN`.
pub const CMD_SETNRUN: u8 = 0x0a;
/// `DGT_CMD_CLOCK_BEEP`.
pub const CMD_BEEP: u8 = 0x0b;
/// `DGT_CMD_CLOCK_ASCII` (DGT 3000 only).
pub const CMD_ASCII: u8 = 0x0c;
/// `DGT_CMD_CLOCK_START_MESSAGE`: the first byte after the size.
pub const START_MESSAGE: u8 = 0x03;
/// `DGT_CMD_CLOCK_END_MESSAGE`: the last byte.
pub const END_MESSAGE: u8 = 0x00;

/// Set-and-run flag: the left time counts down.
pub const SETNRUN_LEFT_RUNS: u8 = 0x01;
/// Set-and-run flag: the right time counts down.
pub const SETNRUN_RIGHT_RUNS: u8 = 0x02;
/// Set-and-run flag: both stopped.
pub const SETNRUN_PAUSE: u8 = 0x04;
/// Set-and-run flag: the clock switches sides itself on a lever press.
pub const SETNRUN_TOGGLE_ON_LEVER: u8 = 0x08;
/// `DGT_CMD_CLOCK_BEEP` counts in units of 64 ms.
pub const BEEP_UNIT_MS: u32 = 64;

/// A command for the clock, as the host wraps it in `DGT_CLOCK_MESSAGE`:
/// `0x2b, n, 0x03, cmd, data…, 0x00` with `n` counting the bytes after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClockCommand {
    /// Segments of the six characters, in wire order (C, B, A, F, E, D),
    /// the dots-and-ones byte, and whether to beep (XL display).
    Display {
        /// Wire order: C, B, A, F, E, D.
        segments: [u8; 6],
        /// Dots, colons and ones.
        icons: u8,
        /// Beep while showing.
        beep: bool,
    },
    /// Icons (flags, periods, symbols): the eight data bytes as sent.
    Icons([u8; 8]),
    /// Back to the times.
    End,
    /// Which button is pressed.
    Button,
    /// The clock's version.
    Version,
    /// Set both times and which runs: [`SETNRUN_LEFT_RUNS`]… flags.
    SetNRun {
        /// Left face.
        left: Hms,
        /// Right face.
        right: Hms,
        /// `SETNRUN_*` bits.
        flags: u8,
    },
    /// Beep for this many 64 ms units.
    Beep(u8),
    /// Eight characters on a DGT 3000, and a beep value 0–15.
    Ascii {
        /// Exactly as sent.
        text: [u8; 8],
        /// 0: none; else 62.5 ms + value/16 s.
        beep: u8,
    },
    /// A command this crate has no name for.
    Other {
        /// Its command byte.
        cmd: u8,
        /// What followed it.
        data: Vec<u8>,
    },
}

impl ClockCommand {
    /// Its command byte, which the acknowledgement names.
    pub fn code(&self) -> u8 {
        match self {
            ClockCommand::Display { .. } => CMD_DISPLAY,
            ClockCommand::Icons(_) => CMD_ICONS,
            ClockCommand::End => CMD_END,
            ClockCommand::Button => CMD_BUTTON,
            ClockCommand::Version => CMD_VERSION,
            ClockCommand::SetNRun { .. } => CMD_SETNRUN,
            ClockCommand::Beep(_) => CMD_BEEP,
            ClockCommand::Ascii { .. } => CMD_ASCII,
            ClockCommand::Other { cmd, .. } => *cmd,
        }
    }

    /// `DGT_CMD_CLOCK_ASCII` with `text` padded or cut to eight printable
    /// characters, no beep.
    pub fn ascii(text: &str) -> ClockCommand {
        let mut data = [b' '; 8];
        for (d, c) in data.iter_mut().zip(text.bytes()) {
            *d = if (0x20..0x7f).contains(&c) { c } else { b'?' };
        }
        ClockCommand::Ascii { text: data, beep: 0 }
    }

    /// `DGT_CMD_CLOCK_BEEP` for about `ms`.
    pub fn beep_ms(ms: u32) -> ClockCommand {
        ClockCommand::Beep(ms.div_ceil(BEEP_UNIT_MS).clamp(1, 0x7f) as u8)
    }

    fn data(&self) -> Vec<u8> {
        match self {
            ClockCommand::Display { segments, icons, beep } => {
                let mut d = segments.to_vec();
                d.push(*icons);
                d.push(if *beep { 0x03 } else { 0x01 });
                d
            }
            ClockCommand::Icons(bytes) => bytes.to_vec(),
            ClockCommand::End | ClockCommand::Button | ClockCommand::Version => Vec::new(),
            ClockCommand::SetNRun { left, right, flags } => {
                vec![left.h, left.m, left.s, right.h, right.m, right.s, *flags]
            }
            ClockCommand::Beep(units) => vec![*units],
            ClockCommand::Ascii { text, beep } => {
                let mut d = text.to_vec();
                d.push(*beep);
                d
            }
            ClockCommand::Other { data, .. } => data.clone(),
        }
    }

    /// The bytes a host sends.
    pub fn encode(&self) -> Vec<u8> {
        let data = self.data();
        let mut m = Vec::with_capacity(data.len() + 5);
        // Start byte, command, data, end byte; at most a dozen data bytes.
        m.extend_from_slice(&[super::DGT_CLOCK_MESSAGE, (data.len() + 3) as u8, START_MESSAGE, self.code()]);
        m.extend_from_slice(&data);
        m.push(END_MESSAGE);
        m
    }

    /// From the command byte and the data between it and the end byte.
    pub fn decode(cmd: u8, data: &[u8]) -> ClockCommand {
        match (cmd, data) {
            (CMD_DISPLAY, &[c, b, a, f, e, d, icons, beep]) => {
                ClockCommand::Display { segments: [c, b, a, f, e, d], icons, beep: beep == 0x03 }
            }
            (CMD_ICONS, &[b0, b1, b2, b3, b4, b5, b6, b7]) => ClockCommand::Icons([b0, b1, b2, b3, b4, b5, b6, b7]),
            (CMD_END, []) => ClockCommand::End,
            (CMD_BUTTON, []) => ClockCommand::Button,
            (CMD_VERSION, []) => ClockCommand::Version,
            (CMD_SETNRUN, &[lh, lm, ls, rh, rm, rs, flags]) => {
                ClockCommand::SetNRun { left: Hms { h: lh, m: lm, s: ls }, right: Hms { h: rh, m: rm, s: rs }, flags }
            }
            (CMD_BEEP, &[units]) => ClockCommand::Beep(units),
            (CMD_ASCII, &[t0, t1, t2, t3, t4, t5, t6, t7, beep]) => {
                ClockCommand::Ascii { text: [t0, t1, t2, t3, t4, t5, t6, t7], beep }
            }
            _ => ClockCommand::Other { cmd, data: data.to_vec() },
        }
    }
}

/// `ack0` of an acknowledgement for a command carried out (or a button).
pub const ACK_OK: u8 = 0x10;
/// `ack0` of a refused command (a set-and-run outside mode 23).
pub const ACK_ERROR: u8 = 0x40;
/// `ack1` of an unrequested acknowledgement: a button was pressed; `ack3`
/// says which.
pub const ACK_BUTTON: u8 = 0x88;
/// `ack1` of an unrequested acknowledgement: the clock is ready.
pub const ACK_READY: u8 = 0x81;
/// `ack3` of a button press: the five buttons are `0x31`–`0x35`
/// (back, minus, play/pause, plus, forward on a DGT 3000).
pub const BUTTON_FIRST: u8 = 0x31;
/// `ack3` of the on/off button.
pub const BUTTON_ON_OFF: u8 = 0x40;

/// A clock acknowledgement: four bytes spread over a `DGT_MSG_BWTIME`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClockAck(pub [u8; 4]);

impl ClockAck {
    /// The acknowledgement of `cmd`, carried out.
    pub fn ok(cmd: u8) -> ClockAck {
        ClockAck([ACK_OK, cmd, 0, 0])
    }

    /// Whether the clock did what it was told (or reports a button).
    pub fn is_ok(self) -> bool {
        self.0[0] == ACK_OK
    }

    /// Which command it acknowledges, or [`ACK_BUTTON`]…
    pub fn command(self) -> u8 {
        self.0[1]
    }

    /// For a version acknowledgement: (major, minor); 2.x is a DGT 3000.
    pub fn version(self) -> (u8, u8) {
        (self.0[2] >> 4, self.0[2] & 0x0f)
    }

    pub(crate) fn encode_data(self) -> [u8; 7] {
        let [a0, a1, a2, a3] = self.0;
        let hi = |b: u8, shift: u8| (b >> 7) << shift;
        [0x0a | hi(a2, 4) | hi(a3, 5), a0 & 0x7f, a1 & 0x7f, 0x0a | hi(a0, 4) | hi(a1, 5), a2 & 0x7f, a3 & 0x7f, 0]
    }

    pub(crate) fn decode_data(p: &[u8; 7]) -> ClockAck {
        ClockAck([
            (p[1] & 0x7f) | ((p[3] << 3) & 0x80),
            (p[2] & 0x7f) | ((p[3] << 2) & 0x80),
            (p[4] & 0x7f) | ((p[0] << 3) & 0x80),
            (p[5] & 0x7f) | ((p[0] << 2) & 0x80),
        ])
    }
}

/// One face of the clock in a `DGT_MSG_BWTIME`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Face {
    /// The time shown.
    pub time: Hms,
    /// D4: the flag fell and the clock is blocked at zero.
    pub final_flag: bool,
    /// D5: the time-per-move indicator (Bronstein, Fischer) is on.
    pub time_per_move: bool,
    /// D6: the flag is shown; the clock may still run (a next period).
    pub flag: bool,
}

/// A side of the clock, seen from its front: of a face, of the lever, of a
/// player. Which side White's face is on is the arbiter's to say
/// (`[clock] white`); the protocol knows only left and right.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ClockSide {
    #[default]
    Left,
    Right,
}

impl ClockSide {
    pub fn other(self) -> ClockSide {
        match self {
            ClockSide::Left => ClockSide::Right,
            ClockSide::Right => ClockSide::Left,
        }
    }

    /// With White's face on this side: the player on `side`.
    pub fn color_at(self, side: ClockSide) -> Color {
        if side == self { Color::White } else { Color::Black }
    }

    /// With White's face on this side: the side of `color`'s face.
    pub fn side_of(self, color: Color) -> ClockSide {
        match color {
            Color::White => self,
            Color::Black => self.other(),
        }
    }
}

/// A word that is not a side of the clock.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a side of the clock is \"left\" or \"right\", not {0:?}")]
pub struct NotAClockSide(pub String);

/// `left` or `right`, as the config spells it.
impl std::str::FromStr for ClockSide {
    type Err = NotAClockSide;
    fn from_str(s: &str) -> Result<Self, NotAClockSide> {
        match s {
            "left" => Ok(ClockSide::Left),
            "right" => Ok(ClockSide::Right),
            other => Err(NotAClockSide(other.to_owned())),
        }
    }
}

/// `DGT_MSG_BWTIME` status bit D0: the clock runs.
const STATUS_RUNNING: u8 = 0x01;
/// D1: the lever is high on the right (so the left player pressed last).
const STATUS_RIGHT_HIGH: u8 = 0x02;
/// D2: the clock shows a low battery.
const STATUS_BATTERY_LOW: u8 = 0x04;
/// D3: one player's turn. `dgtbrd.h` (since its 2015 revision) calls it the
/// right player's, but the recorded DGT board in `tests/data` sets it while
/// the *left* face runs, as the older description and drivers have it;
/// tactus follows the recording.
const STATUS_LEFT_TURN: u8 = 0x08;
/// D4: the other player's turn (see [`STATUS_LEFT_TURN`]).
const STATUS_RIGHT_TURN: u8 = 0x10;
/// D5: no clock on the board; the times are invalid.
const STATUS_NO_CLOCK: u8 = 0x20;

/// The status byte of a `DGT_MSG_BWTIME`, decoded here and nowhere else.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClockStatus {
    /// The clock runs.
    pub running: bool,
    /// The side whose lever is down: the player there pressed last, and
    /// the other side's time is the one that runs.
    pub lever_down: ClockSide,
    /// The clock shows a low battery.
    pub battery_low: bool,
    /// The turn indicators, as the board sets them.
    pub left_turn: bool,
    pub right_turn: bool,
    /// No clock is plugged into the board: the times say nothing.
    pub no_clock: bool,
}

impl ClockStatus {
    /// What a board with no clock plugged in reports.
    pub const NO_CLOCK: ClockStatus = ClockStatus::from_bits(STATUS_NO_CLOCK);

    pub const fn from_bits(b: u8) -> ClockStatus {
        ClockStatus {
            running: b & STATUS_RUNNING != 0,
            lever_down: if b & STATUS_RIGHT_HIGH != 0 { ClockSide::Left } else { ClockSide::Right },
            battery_low: b & STATUS_BATTERY_LOW != 0,
            left_turn: b & STATUS_LEFT_TURN != 0,
            right_turn: b & STATUS_RIGHT_TURN != 0,
            no_clock: b & STATUS_NO_CLOCK != 0,
        }
    }

    pub fn bits(self) -> u8 {
        let bit = |set: bool, b: u8| if set { b } else { 0 };
        bit(self.running, STATUS_RUNNING)
            | bit(self.lever_down == ClockSide::Left, STATUS_RIGHT_HIGH)
            | bit(self.battery_low, STATUS_BATTERY_LOW)
            | bit(self.left_turn, STATUS_LEFT_TURN)
            | bit(self.right_turn, STATUS_RIGHT_TURN)
            | bit(self.no_clock, STATUS_NO_CLOCK)
    }

    /// The face whose time runs, if the clock runs.
    pub fn runs(self) -> Option<ClockSide> {
        self.running.then(|| self.lever_down.other())
    }
}

/// A status byte of 0: a clock stopped, its lever down on the right.
impl Default for ClockStatus {
    fn default() -> Self {
        ClockStatus::from_bits(0)
    }
}

/// The clock's faces and status, as a `DGT_MSG_BWTIME` carries them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ClockFaces {
    /// The right-hand face (seen from the front).
    pub right: Face,
    /// The left-hand face.
    pub left: Face,
    pub status: ClockStatus,
}

fn bcd(b: u8) -> u8 {
    (b >> 4) * 10 + (b & 0x0f)
}

fn to_bcd(n: u8) -> u8 {
    ((n / 10) << 4) | (n % 10)
}

impl ClockFaces {
    /// What a board with no clock plugged in reports.
    pub fn no_clock() -> ClockFaces {
        ClockFaces { status: ClockStatus::NO_CLOCK, ..ClockFaces::default() }
    }

    /// The face on `side`.
    pub fn face(&self, side: ClockSide) -> Face {
        match side {
            ClockSide::Left => self.left,
            ClockSide::Right => self.right,
        }
    }

    fn face_bytes(face: Face) -> [u8; 3] {
        let flags = u8::from(face.final_flag) << 4 | u8::from(face.time_per_move) << 5 | u8::from(face.flag) << 6;
        [face.time.h.min(9) | flags, to_bcd(face.time.m % 60), to_bcd(face.time.s % 60)]
    }

    fn decode_face(b: [u8; 3]) -> Face {
        Face {
            time: Hms { h: b[0] & 0x0f, m: bcd(b[1]), s: bcd(b[2]) },
            final_flag: b[0] & 0x10 != 0,
            time_per_move: b[0] & 0x20 != 0,
            flag: b[0] & 0x40 != 0,
        }
    }

    pub(crate) fn encode_data(&self) -> [u8; 7] {
        let [r0, r1, r2] = ClockFaces::face_bytes(self.right);
        let [l0, l1, l2] = ClockFaces::face_bytes(self.left);
        [r0, r1, r2, l0, l1, l2, self.status.bits()]
    }

    pub(crate) fn decode_data(p: &[u8; 7]) -> ClockFaces {
        ClockFaces {
            right: ClockFaces::decode_face([p[0], p[1], p[2]]),
            left: ClockFaces::decode_face([p[3], p[4], p[5]]),
            status: ClockStatus::from_bits(p[6]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_commands_have_the_sizes_dgtbrd_h_gives() {
        assert_eq!(ClockCommand::Version.encode(), [0x2b, 0x03, 0x03, 0x09, 0x00]);
        let setnrun = ClockCommand::SetNRun {
            left: Hms::from_ms(299_001),
            right: Hms::from_ms(3_600_000),
            flags: SETNRUN_LEFT_RUNS,
        };
        assert_eq!(setnrun.encode(), [0x2b, 0x0a, 0x03, 0x0a, 0, 5, 0, 1, 0, 0, 0x01, 0x00]);
        assert_eq!(ClockCommand::beep_ms(200).encode(), [0x2b, 0x04, 0x03, 0x0b, 4, 0x00]);
        assert_eq!(ClockCommand::ascii("e4").encode()[1], 0x0c);
        let display = ClockCommand::Display { segments: [1, 2, 3, 4, 5, 6], icons: 0, beep: true };
        assert_eq!(display.encode()[1], 0x0b);
        assert_eq!(ClockCommand::Icons([0; 8]).encode()[1], 0x0b);
        for cmd in [setnrun, display, ClockCommand::End, ClockCommand::Button, ClockCommand::ascii("Nf3")] {
            let bytes = cmd.encode();
            assert_eq!(ClockCommand::decode(bytes[3], &bytes[4..bytes.len() - 1]), cmd);
        }
        assert_eq!(Hms::from_ms(-5), Hms::default());
        assert_eq!(Hms::from_ms(i64::MAX), Hms { h: 9, m: 59, s: 59 });
    }

    /// 6.9: the flag falls when the time is gone, and a clock shows 0:00
    /// then and only then. A face rounded down showed 0:00 with 0.9 s left.
    #[test]
    fn a_face_shows_0_00_only_when_the_time_is_gone() {
        let hms = |h, m, s| Hms { h, m, s };
        assert_eq!(Hms::from_ms(900), hms(0, 0, 1));
        assert_eq!(Hms::from_ms(1), hms(0, 0, 1));
        assert_eq!(Hms::from_ms(0), hms(0, 0, 0));
        assert_eq!(Hms::from_ms(59_001), hms(0, 1, 0));
        assert_eq!(Hms::from_ms(3_599_999), hms(1, 0, 0));
    }

    #[test]
    fn the_status_byte_is_decoded_in_one_place_and_encodes_back() {
        for b in 0..0x40u8 {
            assert_eq!(ClockStatus::from_bits(b).bits(), b, "{b:#04x}");
        }
        let running_left_down = ClockStatus::from_bits(STATUS_RUNNING | STATUS_RIGHT_HIGH);
        assert_eq!(running_left_down.lever_down, ClockSide::Left);
        assert_eq!(running_left_down.runs(), Some(ClockSide::Right), "the left player pressed: the right face runs");
        assert_eq!(ClockStatus::default().runs(), None);
        assert!(ClockFaces::no_clock().status.no_clock);
        // White's face on the right: the player on the left is Black.
        assert_eq!(ClockSide::Right.color_at(ClockSide::Left), Color::Black);
        assert_eq!(ClockSide::Right.side_of(Color::White), ClockSide::Right);
        assert_eq!("right".parse::<ClockSide>(), Ok(ClockSide::Right));
        assert!("up".parse::<ClockSide>().is_err());
    }

    #[test]
    fn acks_and_times_round_trip_through_the_seven_bytes() {
        for ack in [[0x10, 0x0a, 0, 0], [0x10, 0x88, 0x07, 0x35], [0xff, 0xff, 0xff, 0xff], [0x40, 0x09, 0x21, 0]] {
            let data = ClockAck(ack).encode_data();
            assert!(data.iter().all(|b| b & 0x80 == 0), "{data:02x?}");
            assert!(data[0] & 0x0f == 0x0a && data[3] & 0x0f == 0x0a, "an ack is marked by the hours nibbles");
            assert_eq!(ClockAck::decode_data(&data), ClockAck(ack));
        }
        let t = ClockFaces {
            right: Face { time: Hms { h: 1, m: 59, s: 7 }, final_flag: true, time_per_move: false, flag: true },
            left: Face { time: Hms { h: 0, m: 3, s: 2 }, final_flag: false, time_per_move: true, flag: false },
            status: ClockStatus::from_bits(STATUS_RUNNING | STATUS_LEFT_TURN),
        };
        let data = t.encode_data();
        assert_eq!(data, [0x51, 0x59, 0x07, 0x20, 0x03, 0x02, 0x09]);
        assert_eq!(ClockFaces::decode_data(&data), t);
    }
}
