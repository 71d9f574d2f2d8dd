//! A simulated DGT board with a DGT 3000 on it.

use std::time::Instant;

use shakmaty::Color;

use super::{Responder, Saw, SimOut};
use crate::frame::{
    BEEP_UNIT_MS, BUTTON_FIRST, BUTTON_ON_OFF, BoardMsg, ClockAck, ClockTime, DGT_ACK_CLOCK_BUTTON, DGT_ACK_CLOCK_OK,
    DGT_CMD_CLOCK_ASCII, DGT_CMD_CLOCK_BEEP, DGT_CMD_CLOCK_END, DGT_CMD_CLOCK_SETNRUN, DGT_CMD_CLOCK_VERSION,
    DGT_SEND_RESET, DGT_SEND_UPDATE_NICE, DGT_SEND_VERSION, Hms, HostCmd, HostFrames, SETNRUN_LEFT_RUNS,
    SETNRUN_RIGHT_RUNS, STATUS_LEFT_DOWN, STATUS_RUNNING,
};
use crate::report::escape;
use crate::{Button, Display};

/// What the simulated clock answers to a version request: 2.1, a DGT 3000.
const CLOCK_VERSION: u8 = 0x21;

pub(super) struct DgtSim {
    frames: HostFrames,
    white_on_left: bool,
    /// The board acknowledges clock messages only in an update mode.
    updating: bool,
    left_down: bool,
    running: bool,
}

impl DgtSim {
    pub(super) fn new(white_on_left: bool) -> DgtSim {
        // At the start Black has pressed, so White's time runs.
        DgtSim {
            frames: HostFrames::default(),
            white_on_left,
            updating: false,
            left_down: !white_on_left,
            running: false,
        }
    }

    fn status(&self, out: &mut SimOut) {
        let mut status = 0;
        if self.running {
            status |= STATUS_RUNNING;
        }
        if self.left_down {
            status |= STATUS_LEFT_DOWN;
        }
        out.send(BoardMsg::Time(ClockTime { right: Hms::default(), left: Hms::default(), status }).encode());
    }

    fn clock(&mut self, cmd: u8, data: &[u8], out: &mut SimOut) {
        let mut a2 = 0;
        match (cmd, data) {
            (DGT_CMD_CLOCK_VERSION, []) => {
                out.saw.push(Saw::Ping);
                a2 = CLOCK_VERSION;
            }
            (DGT_CMD_CLOCK_SETNRUN, &[lh, lm, ls, rh, rm, rs, flags]) => {
                let (left, right) = (Hms { h: lh, m: lm, s: ls }.ms(), Hms { h: rh, m: rm, s: rs }.ms());
                let (white_ms, black_ms) = if self.white_on_left { (left, right) } else { (right, left) };
                let left_side = if self.white_on_left { Color::White } else { Color::Black };
                let running = if flags & SETNRUN_LEFT_RUNS != 0 {
                    Some(left_side)
                } else if flags & SETNRUN_RIGHT_RUNS != 0 {
                    Some(!left_side)
                } else {
                    None
                };
                self.running = running.is_some();
                out.saw.push(Saw::Display(Display { white_ms, black_ms, running, ..Display::default() }));
            }
            (DGT_CMD_CLOCK_BEEP, &[units]) => out.saw.push(Saw::Beep(u32::from(units) * BEEP_UNIT_MS)),
            (DGT_CMD_CLOCK_ASCII, [text @ .., _beep]) if text.len() == 8 => {
                out.saw.push(Saw::Text(String::from_utf8_lossy(text).trim_end().to_string()));
            }
            (DGT_CMD_CLOCK_END, []) => out.saw.push(Saw::Text(String::new())),
            _ => {
                out.saw.push(Saw::Garbage(format!("clock command {cmd:#04x} {data:02x?}")));
                return;
            }
        }
        if self.updating {
            out.ack(BoardMsg::Ack(ClockAck([DGT_ACK_CLOCK_OK, cmd, a2, 0])).encode());
            if cmd == DGT_CMD_CLOCK_VERSION {
                // The clock's state follows, as it does when it changes.
                self.status(out);
            }
        }
    }
}

impl Responder for DgtSim {
    fn received(&mut self, bytes: &[u8], _now: Instant, out: &mut SimOut) {
        for item in self.frames.feed(bytes) {
            match item {
                Ok(HostCmd::Single(DGT_SEND_VERSION)) => {
                    out.saw.push(Saw::Hello);
                    out.send(BoardMsg::Version { major: 1, minor: 9 }.encode());
                }
                Ok(HostCmd::Single(DGT_SEND_UPDATE_NICE)) => self.updating = true,
                Ok(HostCmd::Single(DGT_SEND_RESET)) => self.updating = false,
                Ok(HostCmd::Single(_)) => {}
                Ok(HostCmd::Clock { cmd, data }) => self.clock(cmd, &data, out),
                Err(junk) => out.saw.push(Saw::Garbage(escape(&junk))),
            }
        }
    }

    fn press(&mut self, side: Color, _now: Instant, out: &mut SimOut) {
        // The seesaw goes down on the presser's side.
        let left_down = (side == Color::White) == self.white_on_left;
        if left_down != self.left_down {
            self.left_down = left_down;
            self.status(out);
        }
    }

    fn button(&mut self, button: &Button, _now: Instant, out: &mut SimOut) {
        let code = match button {
            Button::LastMove => BUTTON_FIRST,
            Button::Minus => BUTTON_FIRST + 1,
            Button::Pause => BUTTON_FIRST + 2,
            Button::Plus => BUTTON_FIRST + 3,
            Button::TimeRequest => BUTTON_FIRST + 4,
            Button::Other(_) => BUTTON_ON_OFF,
        };
        out.send(BoardMsg::Ack(ClockAck([DGT_ACK_CLOCK_OK, DGT_ACK_CLOCK_BUTTON, 0, code])).encode());
    }

    fn tick(&mut self, _now: Instant, _out: &mut SimOut) {}

    fn unplugged(&mut self) {
        self.frames = HostFrames::default();
        self.updating = false;
    }
}
