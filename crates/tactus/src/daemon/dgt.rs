//! Being a DGT e-Board for chess software (`--dgt-emulate PATH`): the game
//! as tactus knows it, served in DGT's board protocol by tactus-dgt's
//! emulator on a serial device (a USB gadget port, a Bluetooth SPP tty) or
//! on a pseudo-terminal linked at the path.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use shakmaty::{Bitboard, ByColor, Color, Position};
use tactus_clockdev::ClockTexts;
use tactus_core::Session;
use tactus_dgt::emulate::{ClockRequest, Identity, shown};
use tactus_dgt::protocol::{ClockFaces, ClockSide, ClockStatus, Face, Hms, Placement};
use tactus_dgt::{EmulatorEvent, EmulatorLink, Endpoint};
use tactus_trace::Ms;

use super::shutdown::{self, Thread};

pub struct DgtEmulation {
    link: EmulatorLink,
    /// Follows what the client asks: it ends when the link closes.
    events: Thread<()>,
    /// tactus's own clock device, if there is one: a client's clock texts
    /// and beeps go there.
    clock: Arc<Mutex<Option<ClockTexts>>>,
    shown: Placement,
    /// Which face of the emulated clock is White's (`[clock] white`).
    white: ClockSide,
}

impl DgtEmulation {
    /// Serves the board at `path`: the device there (or in /dev, once it
    /// appears), else a new pseudo-terminal whose other end is linked at
    /// `path` (see [`Endpoint::serving`]). Nothing here waits for the line.
    pub fn start(path: &Path, session: &Session, white: ClockSide) -> anyhow::Result<DgtEmulation> {
        let endpoint = Endpoint::serving(path).map_err(|e| anyhow::anyhow!("--dgt-emulate {}: {e}", path.display()))?;
        let placement = placement(session);
        let (link, events) = EmulatorLink::start(endpoint, Identity::default(), placement)
            .map_err(|e| anyhow::anyhow!("--dgt-emulate {}: {e}", path.display()))?;
        let at = path.to_path_buf();
        let clock = Arc::new(Mutex::new(None));
        let texts = Arc::clone(&clock);
        let events = shutdown::spawn("dgt-events", move || follow_events(&at, events, &texts))?;
        Ok(DgtEmulation { link, events, clock, shown: placement, white })
    }

    /// A client's clock texts and beeps go to tactus's clock device from now on.
    pub fn attach_clock(&self, texts: ClockTexts) {
        *self.clock.lock().unwrap_or_else(|e| e.into_inner()) = Some(texts);
    }

    /// The game's clock on the emulated board's clock (`DGT_MSG_BWTIME`), so
    /// that clients show it and their clock commands are acknowledged.
    pub fn show_clock(&self, session: &Session, t: Ms) {
        let Some(clock) = session.clock() else { return };
        let remaining = ByColor::new_with(|side| clock.remaining(side, t));
        self.link.set_clock(Some(clock_times(remaining, clock.running(), self.white)));
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

    /// Closes the line, whatever its client does, and waits for the
    /// thread that follows the client until `deadline`.
    pub async fn stop(self, deadline: Instant) {
        let DgtEmulation { link, events, .. } = self;
        // Dropped on a thread of its own, as closing may wait on the line.
        if let Ok(closing) = shutdown::spawn("dgt-stop", move || drop(link)) {
            closing.join_by(deadline).await;
        }
        if events.join_by(deadline).await.is_none() {
            tracing::warn!("dgt-emulate: its line did not close in time; left behind");
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

/// The game's clocks as a DGT clock with White's face on `white` shows
/// them: each face the time left as a clock face shows it ([`Hms::from_ms`]:
/// 0:00 only once the time is gone), the lever down on the side that
/// pressed last, the side not running.
fn clock_times(remaining: ByColor<i64>, running: Option<Color>, white: ClockSide) -> ClockFaces {
    let face = |side: ClockSide| Face { time: Hms::from_ms(remaining[white.color_at(side)]), ..Face::default() };
    let status = match running {
        Some(side) => ClockStatus { running: true, lever_down: white.side_of(!side), ..ClockStatus::default() },
        None => ClockStatus::default(),
    };
    ClockFaces { left: face(ClockSide::Left), right: face(ClockSide::Right), status }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// With 0.9 s left the emulated board's clock showed 0:00 (the seconds
    /// rounded down), as if the flag had fallen; a face shows 0:00 only
    /// once the time is gone.
    #[test]
    fn the_emulated_clock_shows_a_second_left_until_the_time_is_gone() {
        let remaining = ByColor { white: 900, black: 61_000 };
        let shown = clock_times(remaining, Some(Color::White), ClockSide::Left);
        assert_eq!(shown.left.time, Hms { h: 0, m: 0, s: 1 });
        assert_eq!(shown.right.time, Hms { h: 0, m: 1, s: 1 });
        // White runs: Black pressed last, on the right.
        assert_eq!(shown.status.runs(), Some(ClockSide::Left));
        assert_eq!(shown.status.lever_down, ClockSide::Right);
        let gone = clock_times(ByColor { white: 0, black: 61_000 }, None, ClockSide::Right);
        assert_eq!((gone.right.time, gone.status.runs()), (Hms::default(), None));
    }
}
