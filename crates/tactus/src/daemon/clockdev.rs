//! The chess clock on a serial line (crate `tactus-clockdev`).

use tactus_clockdev::{Button, ClockLink, ClockReport, DeviceKind, Display};
use tactus_core::Session;
use tactus_trace::{Input, Ms, Record};
use tokio::sync::mpsc;

use super::Incoming;
use crate::config::Config;

/// The chess clock on its serial line: levers and buttons come in as
/// inputs; the core's times go out. Plugging and unplugging is reported and
/// survived — the core keeps the time.
pub fn start(cfg: &Config, tx: mpsc::UnboundedSender<Incoming>) -> Option<ClockLink> {
    let kind = match cfg.clock.device.as_str() {
        "open" => DeviceKind::Open,
        "dgt3000" => DeviceKind::Dgt3000 { white_on_left: true },
        _ => return None,
    };
    let (link, reports) = ClockLink::open(kind, &cfg.clock.path, cfg.clock.baud);
    let path = cfg.clock.path.clone();
    std::thread::spawn(move || {
        for report in reports {
            let record = match report {
                ClockReport::Lever { side, at } => Some((at, Record::Clock(side))),
                ClockReport::Button { button, at } => match button {
                    Button::TimeRequest => Some((at, Record::Input(Input::Request(tactus_trace::Request::Time)))),
                    Button::LastMove => Some((at, Record::Input(Input::Request(tactus_trace::Request::LastMove)))),
                    Button::Pause => {
                        // Pause or resume depends on the game's clock, which
                        // only the game task knows.
                        if tx.send(Incoming::PauseButton(at)).is_err() {
                            return;
                        }
                        None
                    }
                    other => {
                        eprintln!("tactus: clock {}: button {other:?} has no use here", path.display());
                        None
                    }
                },
                ClockReport::Connected { device, version } => {
                    eprintln!("tactus: clock {}: connected: {device} {version}", path.display());
                    None
                }
                ClockReport::Disconnected { reason } => {
                    eprintln!(
                        "tactus: clock {}: disconnected ({reason}); the game goes on, timed here",
                        path.display()
                    );
                    None
                }
                ClockReport::Garbage { line } => {
                    eprintln!("tactus: clock {}: ignored a garbled line {line:?}", path.display());
                    None
                }
                ClockReport::Error { message } => {
                    eprintln!("tactus: clock {}: {message}", path.display());
                    None
                }
            };
            if let Some((at, record)) = record
                && tx.send(Incoming::At(at, record)).is_err()
            {
                return;
            }
        }
    });
    Some(link)
}

/// The clock shows what the core computes.
pub fn show(link: &Option<ClockLink>, session: &Session, t: Ms) {
    if let (Some(link), Some(clock)) = (link, session.clock()) {
        link.show(Display::from_clock(clock, t));
    }
}
