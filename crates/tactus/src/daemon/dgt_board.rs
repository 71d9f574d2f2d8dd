//! A DGT e-Board as the game's board: tactus-dgt's link reads it (and
//! finds a board turned half a turn from the starting position), its
//! `Follow` turns what it reads into the game's inputs, and this thread
//! hands them to the game task, logging what the board says of itself.

use std::path::Path;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use shakmaty::Bitboard;
use tactus_core::{Device, EventKind, Lost};
use tactus_dgt::follow::{ClockOnBoard, Follow, Followed};
use tactus_dgt::protocol::Placement;
use tactus_dgt::reader::{OrientationMode, ReaderEvent};
use tactus_dgt::{BoardLink, Endpoint};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::board::NoBoard;
use super::input::Incoming;
use super::shutdown::{self, Thread};
use crate::config::BoardKind;

/// How long the board gets to answer when the daemon starts.
const ANSWER_WAIT: Duration = Duration::from_secs(5);

/// An opened DGT board, answering, and what it shows.
pub struct DgtBoard {
    link: BoardLink,
    events: Receiver<ReaderEvent>,
    placement: Placement,
}

impl DgtBoard {
    /// Opens the board at `path` and waits for its position: a board that is
    /// not there, or does not answer, is a [`NoBoard`] error naming the path.
    pub fn open(path: &Path) -> Result<DgtBoard, NoBoard> {
        let no_board = |why: String| NoBoard {
            kind: BoardKind::Dgt,
            why,
            fix: "connect the board (or pair it over Bluetooth), check [board] dgt_path, then run `tactus doctor`"
                .into(),
        };
        let (link, events) = BoardLink::start(Endpoint::Device(path.to_path_buf()), OrientationMode::Detect)
            .map_err(|e| no_board(format!("cannot open {}: {e}", path.display())))?;
        let until = Instant::now() + ANSWER_WAIT;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match events.recv_timeout(left) {
                Ok(ReaderEvent::Placement { placement, .. }) => return Ok(DgtBoard { link, events, placement }),
                Ok(ReaderEvent::Connected(info)) => {
                    let version = info.version.map_or("?".into(), |(major, minor)| format!("{major}.{minor}"));
                    tracing::info!("a DGT board answered at {} (version {version})", path.display());
                }
                Ok(_) => {}
                Err(_) => {
                    return Err(no_board(format!(
                        "nothing at {} answered as a DGT board within {} s",
                        path.display(),
                        ANSWER_WAIT.as_secs()
                    )));
                }
            }
        }
    }

    /// The occupied squares it shows.
    pub fn shows(&self) -> Bitboard {
        self.placement.occupied()
    }

    /// Follows the board on a thread of its own until `stop`. `assume` is
    /// what the game believes the board shows: where the board differs, the
    /// edges are sent first. `clock`: how a DGT clock on it is read.
    pub fn start(
        self,
        assume: Bitboard,
        clock: ClockOnBoard,
        tx: mpsc::Sender<Incoming>,
        stop: CancellationToken,
    ) -> std::io::Result<Thread<()>> {
        shutdown::spawn("dgt-board", move || {
            let DgtBoard { link, events, placement } = self;
            let mut follow = Follow::new(assume, clock);
            let mut out = Vec::new();
            follow.placement(&placement, Instant::now(), &mut out);
            while !stop.is_cancelled() {
                for followed in out.drain(..) {
                    if tx.blocking_send(incoming(followed)).is_err() {
                        return;
                    }
                }
                match events.recv_timeout(Duration::from_millis(100)) {
                    Ok(event) => {
                        log(&event);
                        follow.event(event, &mut out);
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            drop(link);
        })
    }
}

/// What following the board says, for the game task: the board's losses
/// are said, not journaled.
fn incoming(followed: Followed) -> Incoming {
    match followed {
        Followed::At(at, record) => Incoming::At(at, record),
        Followed::Lost(detail) => Incoming::Notice(
            Instant::now(),
            EventKind::DeviceLost { device: Device::Board, why: Lost::Io, diagnostic: Some(detail) },
        ),
        Followed::Back => Incoming::Notice(Instant::now(), EventKind::DeviceBack { device: Device::Board }),
    }
}

fn log(event: &ReaderEvent) {
    match event {
        ReaderEvent::Lost { reason } => tracing::warn!("the DGT board is lost ({reason}); waiting for it"),
        ReaderEvent::Connected(_) => tracing::info!("the DGT board answers"),
        ReaderEvent::Orientation(o) => tracing::info!("the DGT board lies {o:?}"),
        _ => {}
    }
}
