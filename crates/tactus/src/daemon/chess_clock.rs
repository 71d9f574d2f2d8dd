//! The chess clock on a serial line (crate `tactus-clockdev`): levers and
//! buttons come in as inputs; the core's times go out. Plugging and
//! unplugging is reported and survived — the core keeps the time.

use std::time::Instant;

use tactus_clockdev::{Button, ClockLink, ClockReport, ClockTexts, DeviceKind, Display};
use tactus_core::{Device, EventKind, Session};
use tactus_trace::{Input, Ms, Record, Request};
use tokio::sync::mpsc;

use super::input::{Incoming, PlayerButton};
use super::shutdown::{self, Thread};
use crate::config::{ClockKind, Config};

/// The link to the clock and the thread that forwards its reports.
pub struct ChessClock {
    link: ClockLink,
    forward: Thread<()>,
}

impl ChessClock {
    /// Starts driving the configured clock; `None` without one.
    pub fn start(cfg: &Config, tx: mpsc::Sender<Incoming>) -> anyhow::Result<Option<ChessClock>> {
        let kind = match cfg.clock.device {
            ClockKind::None => return Ok(None),
            ClockKind::Open => DeviceKind::Open,
            ClockKind::Dgt3000 => DeviceKind::Dgt3000 { white: cfg.clock.white },
        };
        let path = cfg.clock.path();
        let (link, reports) = ClockLink::open(kind, &path, cfg.clock.baud());
        let shown = path.display().to_string();
        let forward = shutdown::spawn("clock-forward", move || {
            let mut lost = false;
            for report in reports {
                let msg = match report {
                    ClockReport::Lever { side, at } => Incoming::At(at, Record::Clock(side)),
                    ClockReport::Button { button, at } => match (button_input(&button), button) {
                        (Some(input), _) => Incoming::At(at, Record::Input(input)),
                        // Pause or resume depends on the game's clock, and
                        // the player's side on the opponent hosted: only
                        // the game task knows them.
                        (None, Button::Pause) => Incoming::PauseButton(at),
                        (None, Button::Draw) => Incoming::PlayerButton(at, PlayerButton::Draw),
                        (None, Button::Resign) => Incoming::PlayerButton(at, PlayerButton::Resign),
                        (None, other) => {
                            tracing::info!("clock {shown}: button {other:?} has no use here");
                            continue;
                        }
                    },
                    ClockReport::Connected { device, version } => {
                        tracing::info!("clock {shown}: connected: {device} {version}");
                        if !std::mem::take(&mut lost) {
                            continue;
                        }
                        Incoming::Notice(Instant::now(), EventKind::DeviceBack { device: Device::Clock })
                    }
                    ClockReport::Disconnected { reason } => {
                        tracing::warn!("clock {shown}: disconnected ({reason}); the game goes on, timed here");
                        // Said once, not at every failed reopening.
                        if std::mem::replace(&mut lost, true) {
                            continue;
                        }
                        Incoming::Notice(
                            Instant::now(),
                            EventKind::DeviceLost { device: Device::Clock, detail: reason },
                        )
                    }
                    ClockReport::Garbage { line } => {
                        tracing::warn!("clock {shown}: ignored a garbled line {line:?}");
                        continue;
                    }
                    ClockReport::Skipped { lines } => {
                        tracing::warn!("clock {shown}: ignored {lines} more garbled lines");
                        continue;
                    }
                    ClockReport::Error { message } => {
                        tracing::warn!("clock {shown}: {message}");
                        continue;
                    }
                };
                if tx.blocking_send(msg).is_err() {
                    return;
                }
            }
        })?;
        Ok(Some(ChessClock { link, forward }))
    }

    /// The clock shows what the core computes.
    pub fn show(&self, session: &Session, t: Ms) {
        if let Some(clock) = session.clock() {
            self.link.show(Display::from_clock(clock, t));
        }
    }

    /// Texts and beeps for this clock from elsewhere (a DGT client's).
    pub fn texts(&self) -> ClockTexts {
        self.link.texts()
    }

    /// Closes the port and waits for both threads, until `deadline`: a
    /// write the clock does not take ends within the link's own timeout.
    pub async fn stop(self, deadline: Instant) {
        let ChessClock { link, forward } = self;
        // Dropped on a thread of its own (where it cannot start, here).
        if let Ok(closing) = shutdown::spawn("clock-stop", move || drop(link)) {
            closing.join_by(deadline).await;
        }
        if forward.join_by(deadline).await.is_none() {
            tracing::warn!("clock: its link did not close in time; left behind");
        }
    }
}

/// What a clock's button asks (docs/user-guide.md: "Buttons, typed commands and questions"): a
/// question, the engine's level, a side's draw offer, an answer to the
/// online server (a builder's button named as the `online` input's word:
/// `ABORT`, `DRAW_NO`, `TAKEBACK_YES`, `TAKEBACK_NO`, `ACCEPT`, `DECLINE`,
/// `CLAIM_VICTORY`, `CHAT`; docs/lichess.md). Pause or resume depends on the
/// game's clock, and the player's `DRAW` and `RESIGN` on the opponent
/// hosted, which only the game task knows: `None`, as for a button with no
/// use.
fn button_input(button: &Button) -> Option<Input> {
    Some(match *button {
        Button::TimeRequest => Input::Request(Request::Time),
        Button::LastMove => Input::Request(Request::LastMove),
        Button::Plus | Button::Board => Input::Request(Request::Position),
        Button::Minus | Button::Control => Input::Request(Request::MovesToControl),
        Button::Hint => Input::Request(Request::Hint),
        Button::Pieces(side) => Input::Request(Request::Pieces { side, role: None }),
        Button::Level(level) => Input::EngineLevel(level),
        Button::DrawBy(side) => Input::DrawOffer { side },
        Button::Unknown(ref name) => Input::Online(name.to_ascii_lowercase().parse().ok()?),
        Button::Pause | Button::OnOff | Button::Draw | Button::Resign => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;

    fn named(name: &str) -> Button {
        Button::from_name(name)
    }

    #[test]
    fn an_open_clocks_extra_buttons_are_inputs() {
        assert_eq!(button_input(&named("LEVEL5")), Some(Input::EngineLevel(5)));
        assert_eq!(button_input(&named("level11")), None);
        assert_eq!(button_input(&named("DRAW_WHITE")), Some(Input::DrawOffer { side: Color::White }));
        assert_eq!(button_input(&named("draw_black")), Some(Input::DrawOffer { side: Color::Black }));
        // The player's DRAW and RESIGN: the game task knows their side.
        assert_eq!(button_input(&named("DRAW")), None);
        assert_eq!(button_input(&named("resign")), None);
        assert_eq!(button_input(&named("HINT")), Some(Input::Request(Request::Hint)));
        assert_eq!(button_input(&Button::TimeRequest), Some(Input::Request(Request::Time)));
        // A builder's buttons for the online server.
        assert_eq!(button_input(&named("ACCEPT")), Some(Input::Online(tactus_trace::OnlineAsk::Accept)));
        assert_eq!(button_input(&named("draw_no")), Some(Input::Online(tactus_trace::OnlineAsk::DrawNo)));
        assert_eq!(button_input(&named("TAKEBACK_YES")), Some(Input::Online(tactus_trace::OnlineAsk::TakebackYes)));
        assert_eq!(button_input(&named("LAUNCH")), None);
    }
}
