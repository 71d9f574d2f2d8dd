//! The host side of the open tactus clock protocol (`hardware/clock/PROTOCOL.md`).

use std::time::{Duration, Instant};

use crate::courier::{Courier, Step};
use crate::line::{ClockMsg, HostMsg, LineSplitter, VERSION, unframe};
use crate::report::escape;
use crate::timemap::TimeMap;
use crate::{Button, ClockDevice, ClockReport, Display, Outbox};

/// `TACTUS 1` is sent again this often until the clock answers.
const HELLO_EVERY: Duration = Duration::from_millis(500);
/// A `PING` goes out after this long without a command, so a clock that
/// hangs is noticed while the port stays open.
const PING_AFTER: Duration = Duration::from_secs(1);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Cmd {
    /// The latest display, aged to the moment it is written.
    Show,
    Beep(u32),
    Text(String),
    Ping,
}

#[derive(Debug, PartialEq, Eq)]
enum Phase {
    Closed,
    /// Waiting for `CLOCK`; the next hello at this time.
    Hello(Instant),
    Ready,
}

/// A home-made clock speaking the open protocol.
#[derive(Debug)]
pub struct OpenClock {
    phase: Phase,
    lines: LineSplitter,
    courier: Courier<(u16, Cmd)>,
    next_seq: u16,
    /// The latest display and when it was given.
    display: Option<(Display, Instant)>,
    /// Last event number reported, so a resent event is not reported twice.
    last_event: Option<u16>,
    times: TimeMap,
    /// When the last command was written (for the keep-alive).
    last_write: Option<Instant>,
}

impl Default for OpenClock {
    fn default() -> OpenClock {
        OpenClock::new()
    }
}

impl OpenClock {
    /// A device not yet opened.
    pub fn new() -> OpenClock {
        OpenClock {
            phase: Phase::Closed,
            lines: LineSplitter::default(),
            courier: Courier::new(),
            next_seq: 0,
            display: None,
            last_event: None,
            times: TimeMap::default(),
            last_write: None,
        }
    }

    fn push(&mut self, cmd: Cmd) {
        self.next_seq = self.next_seq.wrapping_add(1);
        self.courier.push((self.next_seq, cmd));
    }

    /// Queues `cmd` in place of the queued ones of its kind.
    fn push_replacing(&mut self, cmd: Cmd) {
        let kind = std::mem::discriminant(&cmd);
        self.next_seq = self.next_seq.wrapping_add(1);
        self.courier.push_replacing((self.next_seq, cmd), |(_, c)| std::mem::discriminant(c) == kind);
    }

    fn hello(&mut self, now: Instant, out: &mut Outbox) {
        out.bytes.extend_from_slice(HostMsg::Hello { version: VERSION }.encode().as_bytes());
        self.phase = Phase::Hello(now + HELLO_EVERY);
    }

    /// Back to the handshake: the clock stopped answering.
    fn lost(&mut self, reason: String, now: Instant, out: &mut Outbox) {
        self.courier.clear();
        self.last_event = None;
        out.reports.push(ClockReport::Disconnected { reason });
        self.hello(now, out);
    }

    fn encode(&self, seq: u16, cmd: &Cmd, now: Instant) -> String {
        match cmd {
            Cmd::Show => {
                let display = self.display.map_or_else(Display::default, |(d, at)| d.aged(now.duration_since(at)));
                HostMsg::Set { seq, display }.encode()
            }
            Cmd::Beep(ms) => HostMsg::Beep { seq, ms: *ms }.encode(),
            Cmd::Text(text) => HostMsg::Text { seq, text: text.clone() }.encode(),
            Cmd::Ping => HostMsg::Ping { seq }.encode(),
        }
    }

    fn pump(&mut self, now: Instant, out: &mut Outbox) {
        if self.phase != Phase::Ready {
            return;
        }
        match self.courier.next(now) {
            Step::Send((seq, cmd)) => {
                out.bytes.extend_from_slice(self.encode(seq, &cmd, now).as_bytes());
                self.last_write = Some(now);
            }
            Step::Failed((_, cmd)) => {
                self.lost(format!("the clock stopped answering ({cmd:?} not acknowledged)"), now, out);
            }
            Step::Wait => {}
        }
    }

    fn event(&mut self, eseq: u16, report: ClockReport, out: &mut Outbox) {
        out.bytes.extend_from_slice(HostMsg::Ack { eseq }.encode().as_bytes());
        if self.last_event != Some(eseq) {
            self.last_event = Some(eseq);
            out.reports.push(report);
        }
    }

    fn message(&mut self, msg: ClockMsg, at: Instant, out: &mut Outbox) {
        match msg {
            ClockMsg::Clock { version, name, firmware } if version == VERSION => {
                if self.phase != Phase::Ready {
                    self.phase = Phase::Ready;
                    self.times.reset();
                    self.last_event = None;
                    out.reports.push(ClockReport::Connected {
                        device: name,
                        version: format!("{firmware} (protocol {version})"),
                    });
                    if self.display.is_some() {
                        self.push(Cmd::Show);
                    }
                }
            }
            ClockMsg::Clock { version, name, .. } => out.reports.push(ClockReport::Error {
                message: format!("clock {name} speaks protocol {version}, tactus speaks {VERSION}"),
            }),
            ClockMsg::Ok { seq } => {
                self.courier.ack(|(s, _)| *s == seq);
            }
            ClockMsg::Pong { seq, clock_ms } => {
                self.times.place(clock_ms, at);
                self.courier.ack(|(s, _)| *s == seq);
            }
            ClockMsg::Lever { eseq, side, clock_ms } => {
                let at = self.times.place(clock_ms, at);
                self.event(eseq, ClockReport::Lever { side, at }, out);
            }
            ClockMsg::Button { eseq, name, clock_ms } => {
                let at = self.times.place(clock_ms, at);
                self.event(eseq, ClockReport::Button { button: Button::from_name(&name), at }, out);
            }
            ClockMsg::Err { code, detail } => {
                out.reports.push(ClockReport::Error { message: format!("{code} {detail}").trim_end().to_string() })
            }
        }
    }
}

impl ClockDevice for OpenClock {
    fn opened(&mut self, now: Instant, out: &mut Outbox) {
        self.closed();
        self.hello(now, out);
    }

    fn closed(&mut self) {
        self.phase = Phase::Closed;
        self.lines.clear();
        self.courier.clear();
        self.last_event = None;
        self.times.reset();
    }

    fn received(&mut self, bytes: &[u8], at: Instant, out: &mut Outbox) {
        for piece in self.lines.feed(bytes) {
            let msg = piece.as_deref().map_err(|_| ()).and_then(|l| unframe(l).map_err(|_| ()));
            match msg.and_then(|p| ClockMsg::parse(p).map_err(|_| ())) {
                Ok(msg) => self.message(msg, at, out),
                Err(()) => {
                    let raw = match &piece {
                        Ok(l) | Err(l) => l,
                    };
                    out.reports.push(ClockReport::Garbage { line: escape(raw) });
                }
            }
        }
        self.pump(at, out);
    }

    fn show(&mut self, display: &Display, now: Instant, out: &mut Outbox) {
        self.display = Some((*display, now));
        // A queued display not yet sent will carry the new one.
        if !self.courier.queued().any(|(_, c)| *c == Cmd::Show) {
            self.push(Cmd::Show);
        }
        self.pump(now, out);
    }

    fn beep(&mut self, ms: u32, now: Instant, out: &mut Outbox) {
        self.push_replacing(Cmd::Beep(ms));
        self.pump(now, out);
    }

    fn text(&mut self, text: &str, now: Instant, out: &mut Outbox) {
        self.push_replacing(Cmd::Text(text.to_string()));
        self.pump(now, out);
    }

    fn poll(&mut self, now: Instant, out: &mut Outbox) -> Option<Instant> {
        match self.phase {
            Phase::Closed => None,
            Phase::Hello(due) => {
                if now >= due {
                    self.hello(now, out);
                }
                match self.phase {
                    Phase::Hello(next) => Some(next),
                    _ => None,
                }
            }
            Phase::Ready => {
                let idle_since = self.last_write.unwrap_or(now);
                if self.courier.is_idle() && now >= idle_since + PING_AFTER {
                    self.push(Cmd::Ping);
                }
                self.pump(now, out);
                match self.phase {
                    Phase::Ready => {
                        Some(self.courier.deadline().unwrap_or(self.last_write.unwrap_or(now) + PING_AFTER))
                    }
                    Phase::Hello(next) => Some(next),
                    Phase::Closed => None,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;

    fn lines(out: &mut Outbox) -> Vec<String> {
        let s = String::from_utf8(std::mem::take(&mut out.bytes)).unwrap();
        s.lines().map(str::to_string).collect()
    }

    fn answer(dev: &mut OpenClock, msg: ClockMsg, at: Instant, out: &mut Outbox) {
        dev.received(msg.encode().as_bytes(), at, out);
    }

    fn connected(t0: Instant) -> (OpenClock, Outbox) {
        let mut dev = OpenClock::new();
        let mut out = Outbox::default();
        dev.opened(t0, &mut out);
        assert_eq!(lines(&mut out), ["TACTUS 1*15"]);
        answer(&mut dev, ClockMsg::Clock { version: 1, name: "mini".into(), firmware: "1.0".into() }, t0, &mut out);
        (dev, out)
    }

    #[test]
    fn handshake_then_display_then_ack() {
        let t0 = Instant::now();
        let (mut dev, mut out) = connected(t0);
        assert_eq!(out.reports, [ClockReport::Connected { device: "mini".into(), version: "1.0 (protocol 1)".into() }]);
        let d = Display { white_ms: 60_000, black_ms: 60_000, running: Some(Color::White), ..Display::default() };
        dev.show(&d, t0, &mut out);
        assert_eq!(lines(&mut out), [HostMsg::Set { seq: 1, display: d }.encode().trim_end()]);
        dev.beep(100, t0, &mut out);
        assert!(out.bytes.is_empty(), "the beep waits for the SET's OK");
        answer(&mut dev, ClockMsg::Ok { seq: 1 }, t0, &mut out);
        assert_eq!(lines(&mut out), ["BEEP 2 100*11"]);
    }

    /// Texts and beeps faster than the clock acknowledges them wait as the
    /// newest of each.
    #[test]
    fn a_flood_of_texts_and_beeps_waits_as_the_newest_of_each() {
        let t0 = Instant::now();
        let (mut dev, mut out) = connected(t0);
        for i in 0..10_000 {
            dev.text(&format!("t{i}"), t0, &mut out);
            dev.beep(10, t0, &mut out);
        }
        let waiting: Vec<&Cmd> = dev.courier.queued().map(|(_, c)| c).collect();
        assert_eq!(waiting, [&Cmd::Text("t9999".into()), &Cmd::Beep(10)]);
    }

    #[test]
    fn a_lost_ok_means_a_resend_with_the_time_gone_on() {
        let t0 = Instant::now();
        let (mut dev, mut out) = connected(t0);
        let d = Display { white_ms: 60_000, black_ms: 60_000, running: Some(Color::White), ..Display::default() };
        dev.show(&d, t0, &mut out);
        lines(&mut out);
        let t1 = t0 + Duration::from_millis(300);
        dev.poll(t1, &mut out);
        let aged = Display { white_ms: 59_700, ..d };
        assert_eq!(lines(&mut out), [HostMsg::Set { seq: 1, display: aged }.encode().trim_end()]);
    }

    #[test]
    fn no_answer_at_all_is_a_disconnection_and_a_new_hello() {
        let t0 = Instant::now();
        let (mut dev, mut out) = connected(t0);
        out.reports.clear();
        dev.beep(100, t0, &mut out);
        for n in 1..=3 {
            dev.poll(t0 + Duration::from_millis(300 * n), &mut out);
        }
        assert!(matches!(out.reports.as_slice(), [ClockReport::Disconnected { .. }]));
        assert_eq!(lines(&mut out).last().map(String::as_str), Some("TACTUS 1*15"));
    }

    #[test]
    fn events_are_acked_and_reported_once() {
        let t0 = Instant::now();
        let (mut dev, mut out) = connected(t0);
        out.reports.clear();
        let lever = ClockMsg::Lever { eseq: 9, side: Color::Black, clock_ms: 1_000 };
        answer(&mut dev, lever.clone(), t0, &mut out);
        answer(&mut dev, lever, t0 + Duration::from_millis(300), &mut out);
        assert_eq!(lines(&mut out), ["ACK 9*50", "ACK 9*50"]);
        assert_eq!(out.reports, [ClockReport::Lever { side: Color::Black, at: t0 }]);
        answer(&mut dev, ClockMsg::Button { eseq: 10, name: "TIME".into(), clock_ms: 2_000 }, t0, &mut out);
        assert!(matches!(out.reports[1], ClockReport::Button { button: Button::TimeRequest, .. }));
    }

    #[test]
    fn garbage_is_reported_and_the_next_line_still_counts() {
        let t0 = Instant::now();
        let (mut dev, mut out) = connected(t0);
        out.reports.clear();
        dev.received(b"\xff\x00noise\nLEVER 1 W 5*00\nLEV", t0, &mut out);
        dev.received(b"ER 2 W 7*", t0, &mut out);
        dev.received(
            &ClockMsg::Lever { eseq: 2, side: Color::White, clock_ms: 7 }.encode().as_bytes()[12..],
            t0,
            &mut out,
        );
        assert!(matches!(&out.reports[..], [
            ClockReport::Garbage { line: a },
            ClockReport::Garbage { line: b },
            ClockReport::Lever { side: Color::White, .. },
        ] if a == "\\xff\\x00noise" && b == "LEVER 1 W 5*00"));
    }
}
