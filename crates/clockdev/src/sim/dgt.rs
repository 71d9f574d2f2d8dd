//! A simulated DGT board with a DGT 3000 on it.

use std::time::Instant;

use shakmaty::Color;
use tactus_dgt::protocol::clock::{
    ACK_BUTTON, ACK_OK, BEEP_UNIT_MS, BUTTON_FIRST, BUTTON_ON_OFF, SETNRUN_LEFT_RUNS, SETNRUN_RIGHT_RUNS,
};
use tactus_dgt::protocol::{
    BoardMessage, ClockAck, ClockCommand, ClockFaces, ClockSide, ClockStatus, HostCommand, HostParser, Request,
};

use super::{Responder, Saw, SimOut};
use crate::report::escape;
use crate::{Button, Display};

/// What the simulated clock answers to a version request: 2.1, a DGT 3000.
const CLOCK_VERSION: u8 = 0x21;

pub(super) struct DgtSim {
    parser: HostParser,
    /// The side of White's face.
    white: ClockSide,
    /// The board acknowledges clock messages only in an update mode.
    updating: bool,
    lever_down: ClockSide,
    running: bool,
}

impl DgtSim {
    pub(super) fn new(white: ClockSide) -> DgtSim {
        // At the start Black has pressed, so White's time runs.
        DgtSim {
            parser: HostParser::default(),
            white,
            updating: false,
            lever_down: white.side_of(Color::Black),
            running: false,
        }
    }

    fn status(&self, out: &mut SimOut) {
        let status = ClockStatus { running: self.running, lever_down: self.lever_down, ..ClockStatus::default() };
        out.send(BoardMessage::Clock(ClockFaces { status, ..ClockFaces::default() }).encode());
    }

    fn clock(&mut self, cmd: &ClockCommand, out: &mut SimOut) {
        let mut a2 = 0;
        match *cmd {
            ClockCommand::Version => {
                out.saw.push(Saw::Ping);
                a2 = CLOCK_VERSION;
            }
            ClockCommand::SetNRun { left, right, flags } => {
                let (white_ms, black_ms) = match self.white {
                    ClockSide::Left => (left.ms(), right.ms()),
                    ClockSide::Right => (right.ms(), left.ms()),
                };
                let runs = if flags & SETNRUN_LEFT_RUNS != 0 {
                    Some(ClockSide::Left)
                } else if flags & SETNRUN_RIGHT_RUNS != 0 {
                    Some(ClockSide::Right)
                } else {
                    None
                };
                let running = runs.map(|side| self.white.color_at(side));
                self.running = running.is_some();
                out.saw.push(Saw::Display(Display { white_ms, black_ms, running, ..Display::default() }));
            }
            ClockCommand::Beep(units) => out.saw.push(Saw::Beep(u32::from(units) * BEEP_UNIT_MS)),
            ClockCommand::Ascii { text, .. } => {
                out.saw.push(Saw::Text(String::from_utf8_lossy(&text).trim_end().to_string()));
            }
            ClockCommand::End => out.saw.push(Saw::Text(String::new())),
            // What a DGT 3000 driver never sends (XL display, icons…) is the
            // sim's garbage, so a test sees it.
            _ => {
                out.saw.push(Saw::Garbage(format!("clock command {cmd:?}")));
                return;
            }
        }
        if self.updating {
            out.ack(BoardMessage::ClockAck(ClockAck([ACK_OK, cmd.code(), a2, 0])).encode());
            if *cmd == ClockCommand::Version {
                // The clock's state follows, as it does when it changes.
                self.status(out);
            }
        }
    }
}

impl Responder for DgtSim {
    fn received(&mut self, bytes: &[u8], _now: Instant, out: &mut SimOut) {
        for item in self.parser.feed(bytes) {
            match item {
                Ok(HostCommand::Request(Request::Version)) => {
                    out.saw.push(Saw::Hello);
                    out.send(BoardMessage::Version { major: 1, minor: 9 }.encode());
                }
                Ok(HostCommand::Request(Request::UpdateNice)) => self.updating = true,
                Ok(HostCommand::Request(Request::Reset)) => self.updating = false,
                Ok(HostCommand::Request(_)) => {}
                Ok(HostCommand::Clock(cmd)) => self.clock(&cmd, out),
                // A LED or bus-mode command is no clock driver's: the sim's garbage.
                Ok(other) => out.saw.push(Saw::Garbage(format!("{other:?}"))),
                Err(junk) => out.saw.push(Saw::Garbage(escape(&junk.bytes))),
            }
        }
    }

    fn press(&mut self, side: Color, _now: Instant, out: &mut SimOut) {
        // The seesaw goes down on the presser's side.
        let down = self.white.side_of(side);
        if down != self.lever_down {
            self.lever_down = down;
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
            // A DGT 3000 has no other button: whatever else is pressed on
            // the sim is its on/off.
            _ => BUTTON_ON_OFF,
        };
        out.send(BoardMessage::ClockAck(ClockAck([ACK_OK, ACK_BUTTON, 0, code])).encode());
    }

    fn tick(&mut self, _now: Instant, _out: &mut SimOut) {}

    fn unplugged(&mut self) {
        self.parser.clear();
        self.updating = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simulated_board_reads_what_the_host_sends() {
        let mut sim = DgtSim::new(ClockSide::Left);
        let mut out = SimOut::default();
        let mut bytes = vec![Request::UpdateNice.code(), 0x00];
        bytes.extend(ClockCommand::beep_ms(64).encode());
        let (head, tail) = bytes.split_at(bytes.len() - 1);
        sim.received(head, Instant::now(), &mut out);
        assert_eq!(out.saw, [Saw::Garbage("\\x00".into())]);
        assert!(out.chunks.is_empty());
        sim.received(tail, Instant::now(), &mut out);
        assert_eq!(out.saw[1..], [Saw::Beep(64)]);
        let acked = BoardMessage::ClockAck(ClockAck([ACK_OK, 0x0b, 0, 0])).encode();
        assert_eq!(out.chunks, [(true, acked)], "acknowledged: the update mode was set");
    }
}
