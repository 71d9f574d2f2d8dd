//! A DGT 3000 driven through a DGT board's serial port: one clock command
//! at a time, each waiting for its acknowledgement in a `DGT_MSG_BWTIME`,
//! resent when none comes; levers and buttons read back from the same
//! messages. The bytes are [`tactus_dgt::protocol`]'s, the one DGT
//! protocol module for both directions.

use std::time::{Duration, Instant};

use tactus_dgt::protocol::clock::{
    ACK_BUTTON, BUTTON_FIRST, BUTTON_ON_OFF, CMD_ASCII, CMD_BEEP, CMD_END, CMD_SETNRUN, CMD_VERSION, SETNRUN_LEFT_RUNS,
    SETNRUN_PAUSE, SETNRUN_RIGHT_RUNS, SETNRUN_TOGGLE_ON_LEVER,
};
use tactus_dgt::protocol::{BoardMessage, BoardParser, ClockAck, ClockCommand, ClockSide, Hms, Request};

use crate::courier::{Courier, Step};
use crate::report::escape;
use crate::{Button, ClockDevice, ClockReport, Display, Outbox};

/// The board's version is asked again this often until it answers.
const HELLO_EVERY: Duration = Duration::from_millis(500);
/// The clock's version is asked after this long without a command, so a
/// clock switched off or unplugged from the board is noticed.
const PING_AFTER: Duration = Duration::from_secs(2);

#[derive(Clone, Debug, PartialEq, Eq)]
enum DgtCmd {
    Version,
    /// The latest display, aged to the moment it is written.
    Show,
    Beep(u32),
    Text(String),
    End,
}

impl DgtCmd {
    /// The command byte its acknowledgement names.
    fn code(&self) -> u8 {
        match self {
            DgtCmd::Version => CMD_VERSION,
            DgtCmd::Show => CMD_SETNRUN,
            DgtCmd::Beep(_) => CMD_BEEP,
            DgtCmd::Text(_) => CMD_ASCII,
            DgtCmd::End => CMD_END,
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Phase {
    Closed,
    /// Waiting for the board's version; asked again at this time.
    Board(Instant),
    /// The board answered; waiting for the clock's.
    Clock,
    Ready,
}

/// A DGT 3000 on a DGT board's serial port.
#[derive(Debug)]
pub struct Dgt3000 {
    /// The side of White's face.
    white: ClockSide,
    phase: Phase,
    parser: BoardParser,
    courier: Courier<DgtCmd>,
    display: Option<(Display, Instant)>,
    text_shown: bool,
    /// The side whose lever is down; `None` until the first status after connecting.
    lever_down: Option<ClockSide>,
    board_version: (u8, u8),
    last_write: Option<Instant>,
}

impl Dgt3000 {
    /// A device not yet opened; `white`, the side of White's face as the
    /// clock stands for    /// the arbiter facing it.
    pub fn new(white: ClockSide) -> Dgt3000 {
        Dgt3000 {
            white,
            phase: Phase::Closed,
            parser: BoardParser::default(),
            courier: Courier::new(),
            display: None,
            text_shown: false,
            lever_down: None,
            board_version: (0, 0),
            last_write: None,
        }
    }

    fn hello(&mut self, now: Instant, out: &mut Outbox) {
        // Update mode first: clock messages are acknowledged only in it.
        out.bytes.extend_from_slice(&[Request::UpdateNice.code(), Request::Version.code()]);
        self.phase = Phase::Board(now + HELLO_EVERY);
    }

    fn lost(&mut self, reason: String, now: Instant, out: &mut Outbox) {
        self.courier.clear();
        self.lever_down = None;
        out.reports.push(ClockReport::Disconnected { reason });
        self.hello(now, out);
    }

    fn encode(&self, cmd: &DgtCmd, now: Instant) -> Vec<u8> {
        let command = match cmd {
            DgtCmd::Version => ClockCommand::Version,
            DgtCmd::Show => {
                let d = self.display.map_or_else(Display::default, |(d, at)| d.aged(now.duration_since(at)));
                let (left, right) = (self.white.color_at(ClockSide::Left), self.white.color_at(ClockSide::Right));
                let flags = match d.running.map(|side| self.white.side_of(side)) {
                    Some(ClockSide::Left) => SETNRUN_LEFT_RUNS | SETNRUN_TOGGLE_ON_LEVER,
                    Some(ClockSide::Right) => SETNRUN_RIGHT_RUNS | SETNRUN_TOGGLE_ON_LEVER,
                    None => SETNRUN_PAUSE,
                };
                ClockCommand::SetNRun { left: Hms::from_ms(d.ms(left)), right: Hms::from_ms(d.ms(right)), flags }
            }
            DgtCmd::Beep(ms) => ClockCommand::beep_ms(*ms),
            DgtCmd::Text(text) => ClockCommand::ascii(text),
            DgtCmd::End => ClockCommand::End,
        };
        command.encode()
    }

    fn pump(&mut self, now: Instant, out: &mut Outbox) {
        if !matches!(self.phase, Phase::Clock | Phase::Ready) {
            return;
        }
        match self.courier.next(now) {
            Step::Send(cmd) => {
                out.bytes.extend(self.encode(&cmd, now));
                self.last_write = Some(now);
            }
            // No clock on the board (yet): start again from the board.
            Step::Failed(_) if self.phase == Phase::Clock => self.hello(now, out),
            Step::Failed(cmd) => self.lost(format!("the DGT 3000 stopped acknowledging ({cmd:?})"), now, out),
            Step::Wait => {}
        }
    }

    fn ack(&mut self, ack: ClockAck, at: Instant, out: &mut Outbox) {
        if ack.command() == ACK_BUTTON {
            if self.phase == Phase::Ready
                && let Some(button) = button(ack.0[3])
            {
                out.reports.push(ClockReport::Button { button, at });
            }
            return;
        }
        // A failed ack is left to the resend timer.
        if !ack.is_ok() || !self.courier.ack(|cmd| cmd.code() == ack.command()) {
            return;
        }
        if self.phase == Phase::Clock && ack.command() == CMD_VERSION {
            let (major, minor) = ack.version();
            let device = if major == 2 { "DGT 3000".to_string() } else { format!("DGT clock {major}") };
            let (bmaj, bmin) = self.board_version;
            out.reports.push(ClockReport::Connected {
                device,
                version: format!("clock {major}.{minor}, board {bmaj}.{bmin}"),
            });
            self.phase = Phase::Ready;
            self.lever_down = None;
            if self.display.is_some() {
                self.courier.push(DgtCmd::Show);
            }
        }
    }

    fn message(&mut self, msg: BoardMessage, at: Instant, out: &mut Outbox) {
        match msg {
            BoardMessage::Version { major, minor } => {
                if let Phase::Board(_) = self.phase {
                    self.board_version = (major, minor);
                    self.phase = Phase::Clock;
                    self.courier.push(DgtCmd::Version);
                }
            }
            BoardMessage::ClockAck(ack) => self.ack(ack, at, out),
            BoardMessage::Clock(t) if self.phase == Phase::Ready => {
                if t.status.no_clock {
                    self.lost("the DGT board reports no clock".into(), at, out);
                    return;
                }
                let down = t.status.lever_down;
                if self.lever_down.is_some_and(|was| was != down) {
                    out.reports.push(ClockReport::Lever { side: self.white.color_at(down), at });
                }
                self.lever_down = Some(down);
            }
            // Field updates, dumps and the rest are the board's, not the clock's.
            _ => {}
        }
    }
}

/// The DGT 3000's buttons: back, minus, play/pause, plus, forward, on/off.
fn button(code: u8) -> Option<Button> {
    Some(match code.checked_sub(BUTTON_FIRST)? {
        0 => Button::LastMove,
        1 => Button::Minus,
        2 => Button::Pause,
        3 => Button::Plus,
        4 => Button::TimeRequest,
        _ if code == BUTTON_ON_OFF => Button::OnOff,
        _ => return None,
    })
}

impl ClockDevice for Dgt3000 {
    fn opened(&mut self, now: Instant, out: &mut Outbox) {
        self.closed();
        self.hello(now, out);
    }

    fn closed(&mut self) {
        self.phase = Phase::Closed;
        self.parser.clear();
        self.courier.clear();
        self.lever_down = None;
        self.text_shown = false;
    }

    fn received(&mut self, bytes: &[u8], at: Instant, out: &mut Outbox) {
        for item in self.parser.feed(bytes) {
            match item {
                Ok(msg) => self.message(msg, at, out),
                Err(junk) => out.reports.push(ClockReport::Garbage { line: escape(&junk.bytes) }),
            }
        }
        self.pump(at, out);
    }

    fn show(&mut self, display: &Display, now: Instant, out: &mut Outbox) {
        self.display = Some((*display, now));
        if std::mem::take(&mut self.text_shown) {
            self.courier.push(DgtCmd::End);
        }
        if !self.courier.queued().any(|c| *c == DgtCmd::Show) {
            self.courier.push(DgtCmd::Show);
        }
        self.pump(now, out);
    }

    fn beep(&mut self, ms: u32, now: Instant, out: &mut Outbox) {
        self.courier.push_replacing(DgtCmd::Beep(ms), |c| matches!(c, DgtCmd::Beep(_)));
        self.pump(now, out);
    }

    fn text(&mut self, text: &str, now: Instant, out: &mut Outbox) {
        self.text_shown = !text.is_empty();
        let cmd = if text.is_empty() { DgtCmd::End } else { DgtCmd::Text(text.to_string()) };
        self.courier.push_replacing(cmd, |c| matches!(c, DgtCmd::Text(_) | DgtCmd::End));
        self.pump(now, out);
    }

    fn poll(&mut self, now: Instant, out: &mut Outbox) -> Option<Instant> {
        match self.phase {
            Phase::Closed => return None,
            Phase::Board(due) if now >= due => self.hello(now, out),
            Phase::Board(_) => {}
            Phase::Clock => self.pump(now, out),
            Phase::Ready => {
                if self.courier.is_idle() && now >= self.last_write.unwrap_or(now) + PING_AFTER {
                    self.courier.push(DgtCmd::Version);
                }
                self.pump(now, out);
            }
        }
        match self.phase {
            Phase::Closed => None,
            Phase::Board(due) => Some(due),
            Phase::Clock | Phase::Ready => {
                Some(self.courier.deadline().unwrap_or(self.last_write.unwrap_or(now) + PING_AFTER))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use shakmaty::Color;
    use tactus_dgt::protocol::clock::ACK_OK;
    use tactus_dgt::protocol::{ClockFaces, ClockStatus, Field, Occupant};

    fn ack(code: u8, a2: u8, a3: u8) -> Vec<u8> {
        BoardMessage::ClockAck(ClockAck([ACK_OK, code, a2, a3])).encode()
    }

    /// `DGT_MSG_BWTIME`'s status bit D1 (`dgtbrd.h`): the lever is high on the right.
    const STATUS_RIGHT_HIGH: u8 = 0x02;

    fn time(status: u8) -> Vec<u8> {
        BoardMessage::Clock(ClockFaces { status: ClockStatus::from_bits(status), ..ClockFaces::default() }).encode()
    }

    fn connected(t0: Instant) -> (Dgt3000, Outbox) {
        let mut dev = Dgt3000::new(ClockSide::Left);
        let mut out = Outbox::default();
        dev.opened(t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), [Request::UpdateNice.code(), Request::Version.code()]);
        dev.received(&BoardMessage::Version { major: 1, minor: 9 }.encode(), t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), ClockCommand::Version.encode());
        dev.received(&ack(CMD_VERSION, 0x21, 0), t0, &mut out);
        (dev, out)
    }

    #[test]
    fn handshake_then_setnrun_one_command_at_a_time() {
        let t0 = Instant::now();
        let (mut dev, mut out) = connected(t0);
        assert_eq!(
            out.reports,
            [ClockReport::Connected { device: "DGT 3000".into(), version: "clock 2.1, board 1.9".into() }]
        );
        let d = Display { white_ms: 300_000, black_ms: 299_500, running: Some(Color::Black), ..Display::default() };
        dev.show(&d, t0, &mut out);
        let expect =
            ClockCommand::SetNRun { left: Hms { h: 0, m: 5, s: 0 }, right: Hms { h: 0, m: 5, s: 0 }, flags: 0x0a }
                .encode();
        assert_eq!(std::mem::take(&mut out.bytes), expect);
        dev.beep(200, t0, &mut out);
        assert!(out.bytes.is_empty());
        dev.received(&ack(CMD_SETNRUN, 0, 0), t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), ClockCommand::beep_ms(200).encode());
    }

    #[test]
    fn a_lost_ack_means_a_resend_and_three_mean_a_disconnection() {
        let t0 = Instant::now();
        let (mut dev, mut out) = connected(t0);
        out.reports.clear();
        dev.beep(64, t0, &mut out);
        let sent = std::mem::take(&mut out.bytes);
        dev.poll(t0 + Duration::from_millis(300), &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), sent);
        dev.poll(t0 + Duration::from_millis(600), &mut out);
        dev.poll(t0 + Duration::from_millis(900), &mut out);
        assert!(matches!(out.reports.as_slice(), [ClockReport::Disconnected { .. }]));
        assert_eq!(out.bytes.last(), Some(&Request::Version.code()));
    }

    #[test]
    fn levers_from_status_changes_and_buttons_from_acks() {
        let t0 = Instant::now();
        let (mut dev, mut out) = connected(t0);
        out.reports.clear();
        dev.received(&time(0x01), t0, &mut out); // first status: no report
        dev.received(&time(0x01 | STATUS_RIGHT_HIGH), t0, &mut out);
        dev.received(&time(0x01 | STATUS_RIGHT_HIGH), t0, &mut out);
        dev.received(&time(0x01), t0, &mut out);
        dev.received(&ack(ACK_BUTTON, 0, BUTTON_FIRST + 4), t0, &mut out);
        assert_eq!(
            out.reports,
            [
                ClockReport::Lever { side: Color::White, at: t0 },
                ClockReport::Lever { side: Color::Black, at: t0 },
                ClockReport::Button { button: Button::TimeRequest, at: t0 },
            ]
        );
    }

    #[test]
    fn text_until_the_next_display() {
        let t0 = Instant::now();
        let (mut dev, mut out) = connected(t0);
        dev.text("illegal", t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), ClockCommand::ascii("illegal").encode());
        dev.received(&ack(CMD_ASCII, 0, 0), t0, &mut out);
        dev.show(&Display::default(), t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), ClockCommand::End.encode());
    }

    /// Software on the emulated board may send texts and beeps faster than
    /// the clock acknowledges them: they wait as the newest of each, and
    /// the newest text is the one the clock shows next.
    #[test]
    fn a_flood_of_texts_and_beeps_waits_as_the_newest_of_each() {
        let t0 = Instant::now();
        let (mut dev, mut out) = connected(t0);
        for i in 0..10_000 {
            dev.text(&format!("t{i}"), t0, &mut out);
            dev.beep(10, t0, &mut out);
        }
        let waiting: Vec<&DgtCmd> = dev.courier.queued().collect();
        assert_eq!(waiting, [&DgtCmd::Text("t9999".into()), &DgtCmd::Beep(10)]);
        out.bytes.clear();
        dev.received(&ack(CMD_ASCII, 0, 0), t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), ClockCommand::ascii("t9999").encode());
    }

    /// The bytes `frame.rs` wrote before clockdev used `tactus_dgt`, as the
    /// free drivers send them: they must not change.
    #[test]
    fn the_bytes_on_the_wire_are_the_drivers_ones() {
        let t0 = Instant::now();
        let mut dev = Dgt3000::new(ClockSide::Left);
        let mut out = Outbox::default();
        dev.opened(t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), [0x4b, 0x4d]);
        dev.received(&[0x93, 0x00, 0x05, 1, 9], t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), [0x2b, 0x03, 0x03, 0x09, 0x00]);
        // The version ack: hours nibbles of 10 mark it, 0x10 0x09 0x21 0x00.
        dev.received(&[0x8d, 0x00, 0x0a, 0x0a, 0x10, 0x09, 0x0a, 0x21, 0x00, 0x00], t0, &mut out);
        assert!(matches!(out.reports.as_slice(), [ClockReport::Connected { .. }]), "{:?}", out.reports);
        let d = Display { white_ms: 299_001, black_ms: 3_600_000, running: Some(Color::White), ..Display::default() };
        dev.show(&d, t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), [0x2b, 0x0a, 0x03, 0x0a, 0, 5, 0, 1, 0, 0, 0x09, 0x00]);
        dev.beep(200, t0, &mut out);
        dev.received(&ack(CMD_SETNRUN, 0, 0), t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), [0x2b, 0x04, 0x03, 0x0b, 4, 0x00]);
        dev.text("e4", t0, &mut out);
        dev.received(&ack(CMD_BEEP, 0, 0), t0, &mut out);
        let ascii = [0x2b, 0x0c, 0x03, 0x0c, b'e', b'4', b' ', b' ', b' ', b' ', b' ', b' ', 0, 0x00];
        assert_eq!(std::mem::take(&mut out.bytes), ascii);
        dev.text("", t0, &mut out);
        dev.received(&ack(CMD_ASCII, 0, 0), t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), [0x2b, 0x03, 0x03, 0x03, 0x00]);
    }

    #[test]
    fn garbage_and_cut_messages_are_reported_and_the_next_message_counts() {
        let t0 = Instant::now();
        let mut dev = Dgt3000::new(ClockSide::Left);
        let mut out = Outbox::default();
        dev.opened(t0, &mut out);
        out.bytes.clear();
        let version = BoardMessage::Version { major: 1, minor: 9 }.encode();
        let mut bytes = vec![0x01, 0x7f, 0xff];
        bytes.extend_from_slice(&version[..3]); // cut short by the next message
        bytes.extend_from_slice(&version);
        bytes.extend_from_slice(&version[..2]); // partial, kept
        dev.received(&bytes, t0, &mut out);
        assert_eq!(out.reports, [ClockReport::Garbage { line: "\\x01\\x7f\\xff\\x93\\x00\\x05".into() }]);
        assert_eq!(std::mem::take(&mut out.bytes), ClockCommand::Version.encode(), "the version counted");
        // The partial version is completed, and is no garbage.
        dev.received(&version[2..], t0, &mut out);
        assert_eq!(out.reports.len(), 1);
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(
            chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..8)
        ) {
            let t0 = Instant::now();
            let (mut dev, mut out) = connected(t0);
            for chunk in &chunks {
                dev.received(chunk, t0, &mut out);
            }
            for report in &out.reports {
                if let ClockReport::Garbage { line } = report {
                    prop_assert!(!line.is_empty());
                }
            }
        }

        #[test]
        fn messages_survive_being_cut_anywhere(cut in 0usize..40) {
            let t0 = Instant::now();
            let (mut dev, mut out) = connected(t0);
            out.reports.clear();
            let mut bytes = time(0);
            let e7 = BoardMessage::FieldUpdate { field: Field::new(12).unwrap(), occupant: Occupant::Empty };
            bytes.extend(e7.encode());
            bytes.extend(ack(ACK_BUTTON, 0, BUTTON_FIRST));
            bytes.extend(time(STATUS_RIGHT_HIGH));
            let cut = cut.min(bytes.len());
            dev.received(&bytes[..cut], t0, &mut out);
            dev.received(&bytes[cut..], t0, &mut out);
            prop_assert_eq!(
                out.reports,
                [
                    ClockReport::Button { button: Button::LastMove, at: t0 },
                    ClockReport::Lever { side: Color::White, at: t0 },
                ]
            );
        }
    }
}
