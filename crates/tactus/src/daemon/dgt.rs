//! Being a DGT e-Board for chess software (`--dgt-emulate PATH`): the game
//! as tactus knows it, served in DGT's board protocol by tactus-dgt's
//! emulator on a serial device (a USB gadget port, a Bluetooth SPP tty) or
//! on a pseudo-terminal linked at the path.

use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use shakmaty::{Bitboard, Position};
use tactus_core::Session;
use tactus_dgt::emulate::{ClockRequest, Identity, shown};
use tactus_dgt::protocol::Placement;
use tactus_dgt::{EmulatorEvent, EmulatorLink, Endpoint};

pub struct DgtEmulation {
    link: EmulatorLink,
    shown: Placement,
}

impl DgtEmulation {
    /// Serves the board at `path`: the device when one is there, else a
    /// new pseudo-terminal whose other end is linked at `path`.
    pub fn start(path: &Path, session: &Session) -> anyhow::Result<DgtEmulation> {
        let is_device = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device());
        let endpoint = if is_device { Endpoint::Device(path.into()) } else { Endpoint::Pty(path.into()) };
        let placement = placement(session);
        let (link, events) = EmulatorLink::start(endpoint, Identity::default(), placement)
            .map_err(|e| anyhow::anyhow!("--dgt-emulate {}: {e}", path.display()))?;
        let shown_at = path.display().to_string();
        // The client's clock commands: tactus runs the clock itself, so they
        // are acknowledged (by the emulator) and logged.
        std::thread::Builder::new().name("dgt-events".into()).spawn(move || {
            for event in events {
                match event {
                    EmulatorEvent::Clock(ClockRequest::Text { text, .. }) => {
                        tracing::info!("dgt {shown_at}: the client shows {text:?} on the clock")
                    }
                    EmulatorEvent::Clock(other) => tracing::debug!("dgt {shown_at}: clock request {other:?}"),
                    other => tracing::debug!("dgt {shown_at}: {other:?}"),
                }
            }
        })?;
        tracing::info!("serving a DGT board at {}", path.display());
        Ok(DgtEmulation { link, shown: placement })
    }

    /// The position as the game knows it, a piece in the hand off the
    /// board: clients ask for a dump after each field update and must find
    /// the game there.
    pub fn show(&mut self, session: &Session) {
        let now = placement(session);
        if now != self.shown {
            self.shown = now;
            self.link.set_placement(now);
        }
    }
}

fn placement(session: &Session) -> Placement {
    let board = session.game().position().board();
    let in_air: Bitboard = board.occupied() & !session.occupancy();
    shown(board, in_air)
}
