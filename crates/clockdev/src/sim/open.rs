//! A simulated open-protocol clock, answering as `hardware/clock/PROTOCOL.md`
//! says a clock must.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use shakmaty::Color;

use super::{Responder, Saw, SimOut};
use crate::Button;
use crate::line::{ClockMsg, HostMsg, LineSplitter, VERSION, unframe};
use crate::report::escape;

/// An event not acknowledged is sent again after this long.
const RESEND_AFTER: Duration = Duration::from_millis(300);
/// Events kept while the host does not acknowledge them.
const MAX_EVENTS: usize = 8;

pub(super) struct OpenSim {
    lines: LineSplitter,
    /// The last command executed, so a resend is acknowledged, not redone.
    last_seq: Option<u16>,
    next_eseq: u16,
    /// Events not yet acknowledged, the first one sent at `sent_at`.
    events: VecDeque<ClockMsg>,
    sent_at: Option<Instant>,
    /// The clock's millisecond counter starts here.
    boot: Instant,
}

impl OpenSim {
    pub(super) fn new() -> OpenSim {
        OpenSim {
            lines: LineSplitter::default(),
            last_seq: None,
            next_eseq: 0,
            events: VecDeque::new(),
            sent_at: None,
            boot: Instant::now(),
        }
    }

    fn clock_ms(&self, now: Instant) -> u32 {
        // The counter wraps, as a microcontroller's millis() does.
        now.duration_since(self.boot).as_millis() as u32
    }

    fn event(&mut self, msg: ClockMsg, now: Instant, out: &mut SimOut) {
        if self.events.len() == MAX_EVENTS {
            self.events.pop_front();
        }
        self.events.push_back(msg);
        if self.events.len() == 1 {
            self.send_event(now, out);
        }
    }

    fn send_event(&mut self, now: Instant, out: &mut SimOut) {
        if let Some(e) = self.events.front() {
            out.send(e.encode());
            self.sent_at = Some(now);
        }
    }

    /// A command with a number: done once, acknowledged every time.
    fn command(&mut self, seq: u16, saw: Saw, out: &mut SimOut) {
        if self.last_seq != Some(seq) {
            self.last_seq = Some(seq);
            out.saw.push(saw);
        }
        out.ack(ClockMsg::Ok { seq }.encode());
    }

    fn message(&mut self, msg: HostMsg, now: Instant, out: &mut SimOut) {
        match msg {
            HostMsg::Hello { version } if version == VERSION => {
                self.last_seq = None;
                self.events.clear();
                out.saw.push(Saw::Hello);
                out.ack(
                    ClockMsg::Clock { version: VERSION, name: "sim-clock".into(), firmware: "1.0".into() }.encode(),
                );
            }
            HostMsg::Hello { .. } => {
                out.send(ClockMsg::Err { code: "VERSION".into(), detail: VERSION.to_string() }.encode())
            }
            HostMsg::Set { seq, display } => self.command(seq, Saw::Display(display), out),
            HostMsg::Beep { seq, ms } => self.command(seq, Saw::Beep(ms), out),
            HostMsg::Text { seq, text } => self.command(seq, Saw::Text(text), out),
            HostMsg::Ping { seq } => {
                out.saw.push(Saw::Ping);
                out.ack(ClockMsg::Pong { seq, clock_ms: self.clock_ms(now) }.encode());
            }
            HostMsg::Ack { eseq } => {
                let acked = matches!(
                    self.events.front(),
                    Some(ClockMsg::Lever { eseq: e, .. } | ClockMsg::Button { eseq: e, .. }) if *e == eseq
                );
                if acked {
                    self.events.pop_front();
                    self.send_event(now, out);
                }
            }
        }
    }
}

impl Responder for OpenSim {
    fn received(&mut self, bytes: &[u8], now: Instant, out: &mut SimOut) {
        for piece in self.lines.feed(bytes) {
            let parsed = match &piece {
                Ok(line) => unframe(line).and_then(HostMsg::parse),
                Err(_) => Err(crate::line::Invalid::TooLong),
            };
            match parsed {
                Ok(msg) => self.message(msg, now, out),
                Err(invalid) => {
                    let (Ok(raw) | Err(raw)) = &piece;
                    out.saw.push(Saw::Garbage(escape(raw)));
                    out.send(ClockMsg::Err { code: invalid.code().into(), detail: String::new() }.encode());
                }
            }
        }
    }

    fn press(&mut self, side: Color, now: Instant, out: &mut SimOut) {
        self.next_eseq = self.next_eseq.wrapping_add(1);
        let msg = ClockMsg::Lever { eseq: self.next_eseq, side, clock_ms: self.clock_ms(now) };
        self.event(msg, now, out);
    }

    fn button(&mut self, button: &Button, now: Instant, out: &mut SimOut) {
        self.next_eseq = self.next_eseq.wrapping_add(1);
        let msg = ClockMsg::Button { eseq: self.next_eseq, name: button.to_string(), clock_ms: self.clock_ms(now) };
        self.event(msg, now, out);
    }

    fn tick(&mut self, now: Instant, out: &mut SimOut) {
        if self.sent_at.is_some_and(|t| now >= t + RESEND_AFTER) {
            self.send_event(now, out);
        }
    }

    fn unplugged(&mut self) {
        self.lines.clear();
        self.events.clear();
        self.sent_at = None;
        self.last_seq = None;
    }
}
