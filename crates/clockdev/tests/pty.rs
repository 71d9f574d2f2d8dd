//! Both devices driven by a `ClockLink` over pseudo-terminal pairs against
//! the simulated clocks: presses, displays, garbage, lost acks, unplugging.

use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use shakmaty::Color;
use tactus_clockdev::sim::{Saw, SimClock};
use tactus_clockdev::{Button, ClockLink, ClockReport, ClockSide, DeviceKind, Display};

/// A bound for failure only (a loaded machine is slow, never wrong).
const WAIT: Duration = Duration::from_secs(30);
const KINDS: [DeviceKind; 2] = [DeviceKind::Open, DeviceKind::Dgt3000 { white: ClockSide::Right }];

struct Rig {
    sim: SimClock,
    link: ClockLink,
    reports: Receiver<ClockReport>,
    _dir: tempfile::TempDir,
}

fn rig(kind: DeviceKind) -> Rig {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tactus-clock");
    let sim = SimClock::plug(kind, &path).unwrap();
    let (link, reports) = ClockLink::open(kind, &path, 115_200);
    let rig = Rig { sim, link, reports, _dir: dir };
    rig.expect(|r| matches!(r, ClockReport::Connected { .. }));
    rig
}

impl Rig {
    /// The first report `wanted` accepts; the others are skipped.
    #[track_caller]
    fn expect(&self, wanted: impl Fn(&ClockReport) -> bool) -> ClockReport {
        let end = Instant::now() + WAIT;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.reports.recv_timeout(left) {
                Ok(r) if wanted(&r) => return r,
                Ok(_) => continue,
                Err(e) => panic!("no such report within {WAIT:?}: {e}"),
            }
        }
    }

    fn seen_display(&self) -> Display {
        match self.sim.wait_for(WAIT, |s| matches!(s, Saw::Display(_))).map(|s| s.saw) {
            Some(Saw::Display(d)) => d,
            other => panic!("no display at the clock: {other:?}"),
        }
    }

    #[track_caller]
    fn press(&self, side: Color) {
        self.sim.press(side);
        self.expect(|r| matches!(r, ClockReport::Lever { side: s, .. } if *s == side));
    }
}

fn display(white_ms: i64, black_ms: i64, running: Option<Color>) -> Display {
    Display { white_ms, black_ms, running, white_moves: 3, black_moves: 2, delay_ms: 0 }
}

#[test]
fn presses_arrive_and_displays_are_shown() {
    for kind in KINDS {
        let rig = rig(kind);
        rig.link.show(display(60_000, 45_000, Some(Color::White)));
        let shown = rig.seen_display();
        assert_eq!((shown.white_ms, shown.black_ms, shown.running), (60_000, 45_000, Some(Color::White)), "{kind:?}");
        for side in [Color::White, Color::Black, Color::White] {
            rig.press(side);
        }
        rig.link.beep(128);
        assert!(rig.sim.wait_for(WAIT, |s| *s == Saw::Beep(128)).is_some(), "{kind:?}");
    }
}

#[test]
fn the_time_request_button_arrives() {
    for kind in KINDS {
        let rig = rig(kind);
        rig.sim.button(&Button::TimeRequest);
        rig.expect(|r| matches!(r, ClockReport::Button { button: Button::TimeRequest, .. }));
    }
}

#[test]
fn garbage_and_partial_lines_are_reported_and_survived() {
    let rig = rig(DeviceKind::Open);
    rig.sim.inject(b"\xff\xfe line noise\nLEVER 9 W 1*00\nLEV");
    rig.expect(|r| matches!(r, ClockReport::Garbage { line } if line.contains("line noise")));
    rig.expect(|r| matches!(r, ClockReport::Garbage { line } if line == "LEVER 9 W 1*00"));
    // The partial line is finished by the rest of a real one: one more garbage, then on.
    rig.sim.inject(b"ER 1 W");
    rig.sim.inject(b"\n");
    rig.expect(|r| matches!(r, ClockReport::Garbage { line } if line == "LEVER 1 W"));
    rig.press(Color::Black);

    let rig = self::rig(DeviceKind::Dgt3000 { white: ClockSide::Left });
    rig.sim.inject(&[0x01, 0x02, 0x8d, 0x00]);
    rig.sim.inject(&[0x0a, 0x01]); // a BWTIME cut short by the next message
    rig.sim.press(Color::White);
    // However the reads cut it, all of the junk is reported, then the press.
    let mut junk = String::new();
    loop {
        match rig.expect(|r| matches!(r, ClockReport::Garbage { .. } | ClockReport::Lever { .. })) {
            ClockReport::Garbage { line } => junk.push_str(&line),
            lever => {
                assert!(matches!(lever, ClockReport::Lever { side: Color::White, .. }));
                break;
            }
        }
    }
    assert_eq!(junk, "\\x01\\x02\\x8d\\x00\\n\\x01");
    rig.press(Color::Black);
}

#[test]
fn lost_acks_are_resent() {
    for kind in KINDS {
        let rig = rig(kind);
        rig.sim.drop_acks(2);
        rig.link.show(display(30_000, 30_000, Some(Color::Black)));
        rig.seen_display();
        rig.link.text("claim");
        // Sent again after 300 ms and 600 ms, then acknowledged: the text comes after.
        let text = rig.sim.wait_for(WAIT, |s| matches!(s, Saw::Text(_))).expect("text after the resends");
        assert_eq!(text.saw, Saw::Text("claim".into()), "{kind:?}");
        rig.press(Color::White);
        assert!(rig.reports.try_iter().all(|r| !matches!(r, ClockReport::Disconnected { .. })), "{kind:?}");
    }
}

#[test]
fn unplugged_is_reported_and_replugged_is_resynchronised_within_two_seconds() {
    for kind in KINDS {
        let mut rig = rig(kind);
        rig.link.show(display(120_000, 100_000, None));
        rig.seen_display();
        rig.sim.unplug();
        rig.expect(|r| matches!(r, ClockReport::Disconnected { .. }));
        // The game goes on while the clock is away.
        rig.link.show(display(119_000, 100_000, Some(Color::White)));
        std::thread::sleep(Duration::from_millis(300));
        rig.sim.drain();
        let replugged = Instant::now();
        rig.sim.replug().unwrap();
        rig.expect(|r| matches!(r, ClockReport::Connected { .. }));
        let shown = rig.seen_display();
        assert!(replugged.elapsed() < Duration::from_secs(2), "{kind:?}: resync took {:?}", replugged.elapsed());
        // The last display, aged by the time it waited.
        assert_eq!(shown.running, Some(Color::White), "{kind:?}");
        assert!((117_000..=119_000).contains(&shown.white_ms), "{kind:?}: {shown:?}");
        rig.press(Color::White);
    }
}

#[test]
fn a_path_that_is_not_there_is_reported_then_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tactus-clock");
    let (_link, reports) = ClockLink::open(DeviceKind::Open, &path, 115_200);
    assert!(matches!(reports.recv_timeout(WAIT), Ok(ClockReport::Disconnected { .. })));
    let _sim = SimClock::plug(DeviceKind::Open, &path).unwrap();
    assert!(matches!(reports.recv_timeout(WAIT), Ok(ClockReport::Connected { .. })));
}

/// Every example line in the protocol document is a valid line of the
/// protocol (or the glitch it says it is), so builders can test against them.
#[test]
fn the_protocol_document_examples_are_valid() {
    use tactus_clockdev::line::{ClockMsg, HostMsg, unframe};
    let doc = include_str!("../../../hardware/clock/PROTOCOL.md");
    let mut checked = 0;
    for line in doc.lines() {
        let (to_clock, rest) = match line.split_at_checked(2) {
            Some(("> ", rest)) => (true, rest),
            Some(("< ", rest)) => (false, rest),
            _ => continue,
        };
        let Some(end) = rest.find('*').map(|i| i + 3) else { continue };
        let payload = unframe(&rest.as_bytes()[..end.min(rest.len())]).unwrap_or_else(|e| panic!("{line}: {e:?}"));
        if to_clock {
            assert!(HostMsg::parse(payload).is_ok(), "{line}");
        } else {
            assert!(ClockMsg::parse(payload).is_ok(), "{line}");
        }
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} example lines found");
}

#[test]
fn a_flood_of_garbage_is_reported_a_few_lines_at_a_time_then_counted() {
    let rig = rig(DeviceKind::Open);
    let line = "NOT A CLOCK LINE\n".repeat(500);
    rig.sim.inject(line.as_bytes());
    // The press comes after the garbage: once it is reported, all of the
    // garbage has been read.
    rig.sim.press(Color::White);
    let mut garbled = 0;
    while let ClockReport::Garbage { .. } =
        rig.expect(|r| matches!(r, ClockReport::Garbage { .. } | ClockReport::Lever { .. }))
    {
        garbled += 1;
    }
    assert_eq!(garbled, 10, "ten garbled lines are reported one by one");
    // The rest is counted, and the count reported when the window ends —
    // or, at the latest, when the link closes.
    let Rig { link, reports, .. } = rig;
    drop(link);
    let skipped: u64 = reports
        .iter()
        .filter_map(|r| match r {
            ClockReport::Skipped { lines } => Some(lines),
            _ => None,
        })
        .sum();
    assert_eq!(skipped, 490);
}
