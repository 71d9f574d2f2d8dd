//! Being a DGT e-Board for chess software (`--dgt-emulate PATH`): the game
//! as tactus knows it, served in DGT's board protocol by tactus-dgt's
//! emulator on a serial device (a USB gadget port, a Bluetooth SPP tty) or
//! on a pseudo-terminal linked at the path.

use std::path::Path;
use std::sync::{Arc, Mutex};

use shakmaty::{Bitboard, Color, Position};
use tactus_clockdev::ClockTexts;
use tactus_core::Session;
use tactus_dgt::emulate::{ClockRequest, Identity, shown};
use tactus_dgt::protocol::{ClockTimes, Face, Hms, Placement, clock};
use tactus_dgt::{EmulatorEvent, EmulatorLink, Endpoint};
use tactus_trace::Ms;

pub struct DgtEmulation {
    link: EmulatorLink,
    /// tactus's own clock device, if there is one: a client's clock texts
    /// and beeps go there.
    clock: Arc<Mutex<Option<ClockTexts>>>,
    shown: Placement,
    /// Which face of the emulated clock is White's (`[clock] white`).
    white_on_left: bool,
}

impl DgtEmulation {
    /// Serves the board at `path`: the device there (or in /dev, once it
    /// appears), else a new pseudo-terminal whose other end is linked at
    /// `path` (see [`Endpoint::serving`]). Nothing here waits for the line.
    pub fn start(path: &Path, session: &Session, white_on_left: bool) -> anyhow::Result<DgtEmulation> {
        let endpoint = Endpoint::serving(path).map_err(|e| anyhow::anyhow!("--dgt-emulate {}: {e}", path.display()))?;
        let placement = placement(session);
        let (link, events) = EmulatorLink::start(endpoint, Identity::default(), placement)
            .map_err(|e| anyhow::anyhow!("--dgt-emulate {}: {e}", path.display()))?;
        let at = path.to_path_buf();
        let clock = Arc::new(Mutex::new(None));
        let texts = Arc::clone(&clock);
        std::thread::Builder::new().name("dgt-events".into()).spawn(move || follow_events(&at, events, &texts))?;
        Ok(DgtEmulation { link, clock, shown: placement, white_on_left })
    }

    /// A client's clock texts and beeps go to tactus's clock device from now on.
    pub fn attach_clock(&self, texts: ClockTexts) {
        *self.clock.lock().unwrap_or_else(|e| e.into_inner()) = Some(texts);
    }

    /// The game's clock on the emulated board's clock (`DGT_MSG_BWTIME`), so
    /// that clients show it and their clock commands are acknowledged.
    pub fn show_clock(&self, session: &Session, t: Ms) {
        let Some(clock) = session.clock() else { return };
        let face = |side: Color| Face { time: hms(clock.remaining(side, t)), ..Face::default() };
        let (left, right) =
            if self.white_on_left { (Color::White, Color::Black) } else { (Color::Black, Color::White) };
        let mut status = 0;
        if let Some(running) = clock.running() {
            status |= clock::STATUS_RUNNING;
            // The lever is high on the side that pressed last: the side not running.
            if running == left {
                status |= clock::STATUS_RIGHT_HIGH;
            }
        }
        self.link.set_clock(Some(ClockTimes { left: face(left), right: face(right), status }));
    }

    /// The board as it stands, as a DGT board would show it: the game's
    /// position with the moves standing on the board (a move before the
    /// press completes it, a reply made on top), a piece in the hand off the
    /// board. Called on every settled change, so each placement goes out as
    /// a field update at once; clients that ask for a dump once the updates
    /// stop must find each position there in turn. Never waits for the line.
    pub fn show(&mut self, session: &Session) {
        let now = placement(session);
        if now != self.shown {
            self.shown = now;
            self.link.set_placement(now);
        }
    }
}

fn placement(session: &Session) -> Placement {
    let mut position = session.game().position().clone();
    for mv in session.moves_on_board() {
        position.play_unchecked(mv);
    }
    let board = position.board();
    let in_air: Bitboard = board.occupied() & !session.occupancy();
    shown(board, in_air)
}

/// Milliseconds left as a DGT clock face shows them (at most 9:59:59).
fn hms(ms: i64) -> Hms {
    let s = (ms.max(0) / 1000).min(9 * 3600 + 59 * 60 + 59);
    Hms { h: (s / 3600) as u8, m: (s / 60 % 60) as u8, s: (s % 60) as u8 }
}

/// What happens on the line; the readiness line is logged once it is open,
/// a line lost or not there yet once until it opens.
/// Clients' clock commands are acknowledged by the emulator; their texts and
/// beeps go to tactus's clock device, if it has one. The times they set are
/// logged: tactus runs the clock itself. Ends when the link is dropped.
fn follow_events(path: &Path, events: std::sync::mpsc::Receiver<EmulatorEvent>, clock: &Mutex<Option<ClockTexts>>) {
    for event in events {
        match event {
            EmulatorEvent::Opened => tracing::info!("dgt-emulate: serving a DGT board at {}", path.display()),
            EmulatorEvent::Closed { reason } if reason == "stopped" => {}
            EmulatorEvent::Closed { reason } => tracing::warn!("dgt-emulate {}: {reason}", path.display()),
            EmulatorEvent::Clock(request) => {
                let texts = clock.lock().unwrap_or_else(|e| e.into_inner()).clone();
                match (texts, request) {
                    (Some(texts), ClockRequest::Text { text, beep_ms }) => {
                        texts.text(&text);
                        if beep_ms > 0 {
                            texts.beep(beep_ms);
                        }
                    }
                    (Some(texts), ClockRequest::EndText) => texts.text(""),
                    (Some(texts), ClockRequest::Beep { ms }) => texts.beep(ms),
                    (_, request) => {
                        tracing::info!("dgt-emulate {}: the client asks the clock: {request:?}", path.display())
                    }
                }
            }
            EmulatorEvent::Garbage(g) => {
                tracing::warn!("dgt-emulate {}: {} bytes that were no command", path.display(), g.bytes.len())
            }
        }
    }
}
