//! A DGT 3000 driven through a DGT board's serial port: one clock command
//! at a time, each waiting for its acknowledgement in a `DGT_MSG_BWTIME`,
//! resent when none comes; levers and buttons read back from the same
//! messages.

use std::time::{Duration, Instant};

use shakmaty::Color;

use crate::courier::{Courier, Step};
use crate::frame::{
    self, BUTTON_FIRST, BUTTON_ON_OFF, BoardFrames, BoardMsg, ClockAck, DGT_ACK_CLOCK_BUTTON, DGT_CMD_CLOCK_ASCII,
    DGT_CMD_CLOCK_BEEP, DGT_CMD_CLOCK_END, DGT_CMD_CLOCK_SETNRUN, DGT_CMD_CLOCK_VERSION, DGT_SEND_UPDATE_NICE,
    DGT_SEND_VERSION, Hms, SETNRUN_LEFT_RUNS, SETNRUN_PAUSE, SETNRUN_RIGHT_RUNS, SETNRUN_TOGGLE_ON_LEVER,
    STATUS_LEFT_DOWN, STATUS_NO_CLOCK,
};
use crate::report::escape;
use crate::{Button, ClockDevice, ClockReport, Display, Outbox};

/// The board's version is asked again this often until it answers.
const HELLO_EVERY: Duration = Duration::from_millis(500);
/// The clock's version is asked after this long without a command, so a
/// clock switched off or unplugged from the board is noticed.
const PING_AFTER: Duration = Duration::from_secs(2);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Cmd {
    Version,
    /// The latest display, aged to the moment it is written.
    Show,
    Beep(u32),
    Text(String),
    End,
}

impl Cmd {
    /// The command byte its acknowledgement names.
    fn code(&self) -> u8 {
        match self {
            Cmd::Version => DGT_CMD_CLOCK_VERSION,
            Cmd::Show => DGT_CMD_CLOCK_SETNRUN,
            Cmd::Beep(_) => DGT_CMD_CLOCK_BEEP,
            Cmd::Text(_) => DGT_CMD_CLOCK_ASCII,
            Cmd::End => DGT_CMD_CLOCK_END,
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
    white_on_left: bool,
    phase: Phase,
    frames: BoardFrames,
    courier: Courier<Cmd>,
    display: Option<(Display, Instant)>,
    text_shown: bool,
    /// Lever down on the left; `None` until the first status after connecting.
    left_down: Option<bool>,
    board_version: (u8, u8),
    last_write: Option<Instant>,
}

impl Dgt3000 {
    /// A device not yet opened; `white_on_left` as the clock stands for
    /// the arbiter facing it.
    pub fn new(white_on_left: bool) -> Dgt3000 {
        Dgt3000 {
            white_on_left,
            phase: Phase::Closed,
            frames: BoardFrames::default(),
            courier: Courier::new(),
            display: None,
            text_shown: false,
            left_down: None,
            board_version: (0, 0),
            last_write: None,
        }
    }

    fn side(&self, left: bool) -> Color {
        if left == self.white_on_left { Color::White } else { Color::Black }
    }

    fn hello(&mut self, now: Instant, out: &mut Outbox) {
        // Update mode first: clock messages are acknowledged only in it.
        out.bytes.extend_from_slice(&[DGT_SEND_UPDATE_NICE, DGT_SEND_VERSION]);
        self.phase = Phase::Board(now + HELLO_EVERY);
    }

    fn lost(&mut self, reason: String, now: Instant, out: &mut Outbox) {
        self.courier.clear();
        self.left_down = None;
        out.reports.push(ClockReport::Disconnected { reason });
        self.hello(now, out);
    }

    fn encode(&self, cmd: &Cmd, now: Instant) -> Vec<u8> {
        match cmd {
            Cmd::Version => frame::clock_message(DGT_CMD_CLOCK_VERSION, &[]),
            Cmd::Show => {
                let d = self.display.map_or_else(Display::default, |(d, at)| d.aged(now.duration_since(at)));
                let (left, right) =
                    if self.white_on_left { (Color::White, Color::Black) } else { (Color::Black, Color::White) };
                let flags = match d.running {
                    Some(side) if side == left => SETNRUN_LEFT_RUNS | SETNRUN_TOGGLE_ON_LEVER,
                    Some(_) => SETNRUN_RIGHT_RUNS | SETNRUN_TOGGLE_ON_LEVER,
                    None => SETNRUN_PAUSE,
                };
                frame::setnrun(Hms::from_ms(d.ms(left)), Hms::from_ms(d.ms(right)), flags)
            }
            Cmd::Beep(ms) => frame::beep(*ms),
            Cmd::Text(text) => frame::ascii(text),
            Cmd::End => frame::clock_message(DGT_CMD_CLOCK_END, &[]),
        }
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
        if ack.command() == DGT_ACK_CLOCK_BUTTON {
            if self.phase == Phase::Ready
                && let Some(button) = button(ack.0[3])
            {
                out.reports.push(ClockReport::Button { button, at });
            }
            return;
        }
        // A failed ack is left to the resend timer.
        if !ack.ok() || !self.courier.ack(|cmd| cmd.code() == ack.command()) {
            return;
        }
        if self.phase == Phase::Clock && ack.command() == DGT_CMD_CLOCK_VERSION {
            let (major, minor) = (ack.0[2] >> 4, ack.0[2] & 0x0f);
            let device = if major == 2 { "DGT 3000".to_string() } else { format!("DGT clock {major}") };
            let (bmaj, bmin) = self.board_version;
            out.reports.push(ClockReport::Connected {
                device,
                version: format!("clock {major}.{minor}, board {bmaj}.{bmin}"),
            });
            self.phase = Phase::Ready;
            self.left_down = None;
            if self.display.is_some() {
                self.courier.push(Cmd::Show);
            }
        }
    }

    fn message(&mut self, msg: BoardMsg, at: Instant, out: &mut Outbox) {
        match msg {
            BoardMsg::Version { major, minor } => {
                if let Phase::Board(_) = self.phase {
                    self.board_version = (major, minor);
                    self.phase = Phase::Clock;
                    self.courier.push(Cmd::Version);
                }
            }
            BoardMsg::Ack(ack) => self.ack(ack, at, out),
            BoardMsg::Time(t) if self.phase == Phase::Ready => {
                if t.status & STATUS_NO_CLOCK != 0 {
                    self.lost("the DGT board reports no clock".into(), at, out);
                    return;
                }
                let left_down = t.status & STATUS_LEFT_DOWN != 0;
                if self.left_down.is_some_and(|was| was != left_down) {
                    out.reports.push(ClockReport::Lever { side: self.side(left_down), at });
                }
                self.left_down = Some(left_down);
            }
            BoardMsg::Time(_) | BoardMsg::Other { .. } => {}
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
        _ if code == BUTTON_ON_OFF => Button::Other("on/off".into()),
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
        self.frames.clear();
        self.courier.clear();
        self.left_down = None;
        self.text_shown = false;
    }

    fn received(&mut self, bytes: &[u8], at: Instant, out: &mut Outbox) {
        for item in self.frames.feed(bytes) {
            match item {
                Ok(msg) => self.message(msg, at, out),
                Err(junk) => out.reports.push(ClockReport::Garbage { line: escape(&junk) }),
            }
        }
        self.pump(at, out);
    }

    fn show(&mut self, display: &Display, now: Instant, out: &mut Outbox) {
        self.display = Some((*display, now));
        if std::mem::take(&mut self.text_shown) {
            self.courier.push(Cmd::End);
        }
        if !self.courier.queued().any(|c| *c == Cmd::Show) {
            self.courier.push(Cmd::Show);
        }
        self.pump(now, out);
    }

    fn beep(&mut self, ms: u32, now: Instant, out: &mut Outbox) {
        self.courier.push(Cmd::Beep(ms));
        self.pump(now, out);
    }

    fn text(&mut self, text: &str, now: Instant, out: &mut Outbox) {
        self.text_shown = !text.is_empty();
        self.courier.push(if text.is_empty() { Cmd::End } else { Cmd::Text(text.to_string()) });
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
                    self.courier.push(Cmd::Version);
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
    use crate::frame::{ClockTime, DGT_ACK_CLOCK_OK};

    fn ack(code: u8, a2: u8, a3: u8) -> Vec<u8> {
        BoardMsg::Ack(ClockAck([DGT_ACK_CLOCK_OK, code, a2, a3])).encode()
    }

    fn time(status: u8) -> Vec<u8> {
        BoardMsg::Time(ClockTime { right: Hms::default(), left: Hms::default(), status }).encode()
    }

    fn connected(t0: Instant) -> (Dgt3000, Outbox) {
        let mut dev = Dgt3000::new(true);
        let mut out = Outbox::default();
        dev.opened(t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), [DGT_SEND_UPDATE_NICE, DGT_SEND_VERSION]);
        dev.received(&BoardMsg::Version { major: 1, minor: 9 }.encode(), t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), frame::clock_message(DGT_CMD_CLOCK_VERSION, &[]));
        dev.received(&ack(DGT_CMD_CLOCK_VERSION, 0x21, 0), t0, &mut out);
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
        let expect = frame::setnrun(Hms { h: 0, m: 5, s: 0 }, Hms { h: 0, m: 5, s: 0 }, 0x0a);
        assert_eq!(std::mem::take(&mut out.bytes), expect);
        dev.beep(200, t0, &mut out);
        assert!(out.bytes.is_empty());
        dev.received(&ack(DGT_CMD_CLOCK_SETNRUN, 0, 0), t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), frame::beep(200));
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
        assert_eq!(out.bytes.last(), Some(&DGT_SEND_VERSION));
    }

    #[test]
    fn levers_from_status_changes_and_buttons_from_acks() {
        let t0 = Instant::now();
        let (mut dev, mut out) = connected(t0);
        out.reports.clear();
        dev.received(&time(0x01), t0, &mut out); // first status: no report
        dev.received(&time(0x01 | STATUS_LEFT_DOWN), t0, &mut out);
        dev.received(&time(0x01 | STATUS_LEFT_DOWN), t0, &mut out);
        dev.received(&time(0x01), t0, &mut out);
        dev.received(&ack(DGT_ACK_CLOCK_BUTTON, 0, BUTTON_FIRST + 4), t0, &mut out);
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
        assert_eq!(std::mem::take(&mut out.bytes), frame::ascii("illegal"));
        dev.received(&ack(DGT_CMD_CLOCK_ASCII, 0, 0), t0, &mut out);
        dev.show(&Display::default(), t0, &mut out);
        assert_eq!(std::mem::take(&mut out.bytes), frame::clock_message(DGT_CMD_CLOCK_END, &[]));
    }
}
