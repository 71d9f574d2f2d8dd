//! A DGT e-Board as the game's board: its field updates become the square
//! edges the core recognises moves from, the levers of a DGT clock on it
//! become the presses, and a board turned half a turn is found from the
//! starting position (tactus-dgt's reader). The core sees occupancy, as
//! from any board: its recogniser already rules out the squares a sliding
//! piece passes over and the scan's out-of-order reports, since a move is
//! announced only once the board holds still on it. The piece the board
//! says was put down goes with each edge that fills a square, into the
//! journal (trace format version 2).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use shakmaty::{Bitboard, Color, Piece, Role, Square};
use tactus_core::{Device, EventKind};
use tactus_dgt::protocol::clock::{STATUS_NO_CLOCK, STATUS_RIGHT_HIGH, STATUS_RUNNING};
use tactus_dgt::protocol::{Occupant, Placement};
use tactus_dgt::reader::{OrientationMode, ReaderEvent};
use tactus_dgt::{BoardLink, Endpoint};
use tactus_trace::{Input, Record};
use tokio::sync::mpsc;

use super::board::NoBoard;
use super::game::Incoming;
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
        occupancy(&self.placement)
    }

    /// Follows the board on a thread of its own until `stop`. `assume` is
    /// what the game believes the board shows: where the board differs, the
    /// edges are sent first. `white_on_left`: the clock's faces.
    pub fn start(
        self,
        assume: Bitboard,
        white_on_left: bool,
        tx: mpsc::Sender<Incoming>,
        stop: Arc<AtomicBool>,
    ) -> std::io::Result<JoinHandle<()>> {
        std::thread::Builder::new().name("dgt-board".into()).spawn(move || {
            let DgtBoard { link, events, placement } = self;
            let mut follow = Follow::new(assume, white_on_left);
            let mut out = Vec::new();
            follow.placement(&placement, Instant::now(), &mut out);
            while !stop.load(Ordering::Relaxed) {
                for msg in out.drain(..) {
                    if tx.blocking_send(msg).is_err() {
                        return;
                    }
                }
                match events.recv_timeout(Duration::from_millis(100)) {
                    Ok(event) => follow.event(event, &mut out),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            drop(link);
        })
    }
}

fn occupancy(placement: &Placement) -> Bitboard {
    Square::ALL.into_iter().filter(|&sq| placement.get(sq) != Occupant::Empty).collect()
}

/// The board's reports turned into the game's inputs.
struct Follow {
    shows: Bitboard,
    /// What the board last reported on each square, in true squares, once
    /// it has reported a whole board.
    seen: Option<Placement>,
    /// The clock's lever, once a clock has reported.
    right_high: Option<bool>,
    /// Whether the clock ran, once a clock has reported.
    running: Option<bool>,
    white_on_left: bool,
    /// When the last edge was sent as happening.
    last: Option<Instant>,
    /// The board stopped answering and has not answered since.
    lost: bool,
}

/// The piece on a square, as a trace's edge names it: none for an empty
/// square or one of DGT's magic pieces.
fn piece(occupant: Occupant) -> Option<Piece> {
    match occupant {
        Occupant::Piece(piece) => Some(piece),
        Occupant::Empty | Occupant::Special(_) => None,
    }
}

/// One piece where another stood: the board's scan saw no empty square
/// between (a capture, mostly — the captured piece lifted and the capturing
/// one put down within one scan).
fn replaced(was: Occupant, now: Occupant) -> bool {
    was != Occupant::Empty && now != Occupant::Empty && was != now
}

/// The piece a pawn would have become, when `occupant` put on `sq` could
/// be one: a queen, rook, bishop or knight on the last rank of its colour.
fn promoted(sq: Square, occupant: Occupant) -> Option<Role> {
    let Occupant::Piece(piece) = occupant else { return None };
    let last = match piece.color {
        Color::White => shakmaty::Rank::Eighth,
        Color::Black => shakmaty::Rank::First,
    };
    (sq.rank() == last && matches!(piece.role, Role::Queen | Role::Rook | Role::Bishop | Role::Knight))
        .then_some(piece.role)
}

impl Follow {
    /// Following a board the game believes shows `assume`.
    fn new(assume: Bitboard, white_on_left: bool) -> Follow {
        Follow { shows: assume, seen: None, right_high: None, running: None, white_on_left, last: None, lost: false }
    }

    fn event(&mut self, event: ReaderEvent, out: &mut Vec<Incoming>) {
        match event {
            ReaderEvent::Edge { sq, occupant, at } => {
                if let Some(seen) = &mut self.seen {
                    let was = seen.get(sq);
                    seen.set(sq, occupant);
                    if replaced(was, occupant) {
                        // The core sees occupancy: the square was emptied,
                        // then filled.
                        self.square(sq, false, None, at, out);
                    }
                }
                if let Some(role) = promoted(sq, occupant) {
                    // The board knows the piece: it is the promotion
                    // selector for the ply (journaled, so replays agree).
                    out.push(Incoming::At(at, Record::Input(Input::Promote(role))));
                }
                self.square(sq, occupant != Occupant::Empty, piece(occupant), at, out);
            }
            ReaderEvent::Placement { placement, at } => self.placement(&placement, at, out),
            ReaderEvent::Clock { times, at } if times.status & STATUS_NO_CLOCK == 0 => {
                let running = times.status & STATUS_RUNNING != 0;
                let right_high = times.status & STATUS_RIGHT_HIGH != 0;
                if running && self.running != Some(true) {
                    // The players' clock is the reference: as it starts, the
                    // game's clocks take its times (a Fischer clock gives
                    // the increment before the first move; an arbiter may
                    // have set it while stopped).
                    // A face at 0:00 tells nothing: a clock in a mode that
                    // shows no time, or one never set.
                    let (white, black) =
                        if self.white_on_left { (times.left, times.right) } else { (times.right, times.left) };
                    let ms = |face: tactus_dgt::protocol::Face| u64::try_from(face.time.ms()).unwrap_or(0);
                    if ms(white) > 0 && ms(black) > 0 {
                        let set = Input::SetClock { white_ms: ms(white), black_ms: ms(black) };
                        out.push(Incoming::At(at, Record::Input(set)));
                    }
                    // Started with its run button (or found running): the
                    // game's clocks run. A DGT clock is not started by a
                    // lever, so the game would otherwise wait for a press
                    // that never starts it.
                    out.push(Incoming::At(at, Record::Input(Input::Resume)));
                }
                if self.right_high.is_some_and(|was| was != right_high) {
                    // The right lever went up: the left player pressed.
                    let left = if self.white_on_left { Color::White } else { Color::Black };
                    let side = if right_high { left } else { !left };
                    out.push(Incoming::At(at, Record::Clock(side)));
                }
                // Stopped with its button: paused. A clock that stopped
                // because a flag fell is not paused: the game keeps its own
                // time and rules the flag itself (6.9).
                let flag_fell = times.left.final_flag || times.right.final_flag;
                if !running && self.running == Some(true) && !flag_fell {
                    out.push(Incoming::At(at, Record::Input(Input::Pause)));
                }
                self.running = Some(running);
                self.right_high = Some(right_high);
            }
            ReaderEvent::Lost { reason } => {
                tracing::warn!("the DGT board is lost ({reason}); waiting for it");
                self.lost = true;
                let lost = EventKind::DeviceLost { device: Device::Board, detail: reason };
                out.push(Incoming::Notice(Instant::now(), lost));
            }
            ReaderEvent::Connected(_) => {
                tracing::info!("the DGT board answers again");
                if std::mem::take(&mut self.lost) {
                    out.push(Incoming::Notice(Instant::now(), EventKind::DeviceBack { device: Device::Board }));
                }
            }
            ReaderEvent::Orientation(o) => {
                // The whole board follows, in squares named anew.
                self.seen = None;
                tracing::info!("the DGT board lies {o:?}");
            }
            _ => {}
        }
    }

    /// The square now reads `on`, filled with `piece` if the board says
    /// which: an edge, if the game does not believe so already.
    fn square(&mut self, sq: Square, on: bool, piece: Option<Piece>, at: Instant, out: &mut Vec<Incoming>) {
        if self.shows.contains(sq) != on {
            self.shows.toggle(sq);
            // A scan's fields come in one read, with one time: they are
            // spread a millisecond apart in the order reported, so that the
            // core sees a capture's piece off before the capturing one on.
            let at = match self.last {
                Some(last) => at.max(last + Duration::from_millis(1)),
                None => at,
            };
            self.last = Some(at);
            out.push(Incoming::At(at, Record::Edge { sq, on, piece: piece.filter(|_| on) }));
        }
    }

    /// A whole board (after connecting, turning, or a dump that caught up):
    /// the squares that differ, as edges; a piece replaced by another, as
    /// off and on.
    fn placement(&mut self, placement: &Placement, at: Instant, out: &mut Vec<Incoming>) {
        if let Some(seen) = self.seen {
            for sq in Square::ALL.into_iter().filter(|&sq| replaced(seen.get(sq), placement.get(sq))) {
                self.square(sq, false, None, at, out);
            }
        }
        self.seen = Some(*placement);
        let now = occupancy(placement);
        for sq in self.shows ^ now {
            self.square(sq, now.contains(sq), piece(placement.get(sq)), at, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Piece;
    use tactus_dgt::protocol::{ClockTimes, Face, Hms};

    /// The edges sent, with their times from `t0`.
    fn edges(out: &[Incoming], t0: Instant) -> Vec<(Duration, Square, bool)> {
        out.iter()
            .filter_map(|m| match m {
                Incoming::At(at, Record::Edge { sq, on, .. }) => Some((at.duration_since(t0), *sq, *on)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_piece_put_on_its_last_rank_is_the_promotion_selector_before_it_lands() {
        let t0 = Instant::now();
        let mut follow = Follow::new(Bitboard::EMPTY, true);
        let mut out = Vec::new();
        let put = |color, role, sq| ReaderEvent::Edge { sq, occupant: Occupant::Piece(Piece { color, role }), at: t0 };
        follow.event(put(Color::White, Role::Knight, Square::E8), &mut out);
        follow.event(put(Color::Black, Role::Queen, Square::D1), &mut out);
        // Not on the last rank of its colour: no promotion.
        follow.event(put(Color::White, Role::Knight, Square::F3), &mut out);
        follow.event(put(Color::Black, Role::Rook, Square::A8), &mut out);
        follow.event(put(Color::White, Role::King, Square::G8), &mut out);
        let got: Vec<String> = out
            .iter()
            .map(|m| match m {
                Incoming::At(_, Record::Input(Input::Promote(role))) => format!("promote {}", role.char()),
                Incoming::At(_, Record::Edge { sq, on: true, .. }) => format!("{sq}+"),
                _ => "something else".to_string(),
            })
            .collect();
        assert_eq!(got, ["promote n", "e8+", "promote q", "d1+", "f3+", "a8+", "g8+"]);
    }

    #[test]
    fn a_piece_put_where_another_stood_is_the_square_emptied_then_filled() {
        let t0 = Instant::now();
        let start = Placement::start();
        let mut follow = Follow::new(occupancy(&start), true);
        let mut out = Vec::new();
        follow.placement(&start, t0, &mut out);
        assert!(out.is_empty(), "the board shows what the game believes");
        let pawn = |color| Occupant::Piece(Piece { color, role: Role::Pawn });
        // 1. e4 d5 2. exd5, the capture seen in one scan as d5's pawn turning white.
        for (sq, occupant) in [
            (Square::E2, Occupant::Empty),
            (Square::E4, pawn(Color::White)),
            (Square::D7, Occupant::Empty),
            (Square::D5, pawn(Color::Black)),
            (Square::E4, Occupant::Empty),
            (Square::D5, pawn(Color::White)),
        ] {
            follow.event(ReaderEvent::Edge { sq, occupant, at: t0 }, &mut out);
        }
        let got: Vec<(Square, bool)> = edges(&out, t0).into_iter().map(|(_, sq, on)| (sq, on)).collect();
        assert_eq!(
            got,
            [
                (Square::E2, false),
                (Square::E4, true),
                (Square::D7, false),
                (Square::D5, true),
                (Square::E4, false),
                (Square::D5, false),
                (Square::D5, true),
            ]
        );
        let times: Vec<Duration> = edges(&out, t0).into_iter().map(|(at, _, _)| at).collect();
        assert!(times.windows(2).all(|w| w[0] < w[1]), "one read's fields a millisecond apart: {times:?}");
        // 2... Qxd5 missed (a read lost) and caught up by a dump: the same.
        let mut later = start;
        for sq in [Square::E2, Square::D7, Square::D8] {
            later.set(sq, Occupant::Empty);
        }
        later.set(Square::D5, Occupant::Piece(Piece { color: Color::Black, role: Role::Queen }));
        out.clear();
        follow.placement(&later, t0, &mut out);
        let got: Vec<(Square, bool)> = edges(&out, t0).into_iter().map(|(_, sq, on)| (sq, on)).collect();
        assert_eq!(got, [(Square::D5, false), (Square::D5, true), (Square::D8, false)]);
    }

    #[test]
    fn a_square_filled_says_which_piece_was_put_down_but_not_a_magic_one() {
        let t0 = Instant::now();
        let start = Placement::start();
        let mut follow = Follow::new(occupancy(&start), true);
        let mut out = Vec::new();
        follow.placement(&start, t0, &mut out);
        let white = |role| Occupant::Piece(Piece { color: Color::White, role });
        let black = |role| Occupant::Piece(Piece { color: Color::Black, role });
        // 1. Nf3 d5, then 2. Nxd5 seen in one scan, then a magic piece on e4.
        for (sq, occupant) in [
            (Square::G1, Occupant::Empty),
            (Square::F3, white(Role::Knight)),
            (Square::D7, Occupant::Empty),
            (Square::D5, black(Role::Pawn)),
            (Square::F3, Occupant::Empty),
            (Square::D5, white(Role::Knight)),
            (Square::E4, Occupant::Special(tactus_dgt::protocol::Special::Draw)),
        ] {
            follow.event(ReaderEvent::Edge { sq, occupant, at: t0 }, &mut out);
        }
        // A dump that caught up: the pieces it shows put down.
        let mut later = start;
        later.set(Square::B8, Occupant::Empty);
        later.set(Square::C6, black(Role::Knight));
        follow.placement(&later, t0, &mut out);
        let got: Vec<Record> = records(&mut out);
        let edge = |sq, on, piece: Option<Occupant>| Record::Edge {
            sq,
            on,
            piece: piece.and_then(|o| match o {
                Occupant::Piece(p) => Some(p),
                _ => None,
            }),
        };
        assert_eq!(
            got,
            [
                edge(Square::G1, false, None),
                edge(Square::F3, true, Some(white(Role::Knight))),
                edge(Square::D7, false, None),
                edge(Square::D5, true, Some(black(Role::Pawn))),
                edge(Square::F3, false, None),
                edge(Square::D5, false, None),
                edge(Square::D5, true, Some(white(Role::Knight))),
                edge(Square::E4, true, None),
                // The dump is the start but for b8 and c6: the squares that
                // differ, in their order, each one filled with its piece.
                edge(Square::G1, true, Some(white(Role::Knight))),
                edge(Square::E4, false, None),
                edge(Square::D5, false, None),
                edge(Square::C6, true, Some(black(Role::Knight))),
                edge(Square::D7, true, Some(black(Role::Pawn))),
                edge(Square::B8, false, None),
            ]
        );
    }

    fn report(running: bool, right_high: bool, final_flag: bool) -> ReaderEvent {
        let status = if running { STATUS_RUNNING } else { 0 } | if right_high { STATUS_RIGHT_HIGH } else { 0 };
        // The left face shows 3:02, the right 3:07.
        let left = Face { time: Hms { h: 0, m: 3, s: 2 }, ..Face::default() };
        let right = Face { time: Hms { h: 0, m: 3, s: 7 }, final_flag, ..Face::default() };
        ReaderEvent::Clock { times: ClockTimes { right, left, status }, at: Instant::now() }
    }

    fn records(out: &mut Vec<Incoming>) -> Vec<Record> {
        out.drain(..)
            .filter_map(|m| match m {
                Incoming::At(_, record) => Some(record),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_clock_started_and_stopped_with_its_button_resumes_and_pauses_the_game() {
        let mut follow = Follow::new(Bitboard::EMPTY, true);
        let mut out = Vec::new();
        follow.event(report(false, false, false), &mut out);
        assert_eq!(records(&mut out), [], "a stopped clock");
        follow.event(report(true, false, false), &mut out);
        let left_white = Record::Input(Input::SetClock { white_ms: 182_000, black_ms: 187_000 });
        assert_eq!(
            records(&mut out),
            [left_white, Record::Input(Input::Resume)],
            "started: the game's clocks take its times, White's face runs"
        );
        follow.event(report(true, true, false), &mut out);
        assert_eq!(records(&mut out), [Record::Clock(Color::White)], "White, on the left, pressed");
        follow.event(report(false, true, false), &mut out);
        assert_eq!(records(&mut out), [Record::Input(Input::Pause)]);
        follow.event(report(true, true, false), &mut out);
        assert_eq!(records(&mut out), [left_white, Record::Input(Input::Resume)]);
        // A clock that shows no time sets nothing.
        let blank = ClockTimes { right: Face::default(), left: Face::default(), status: STATUS_RUNNING };
        let mut blank_follow = Follow::new(Bitboard::EMPTY, true);
        blank_follow.event(ReaderEvent::Clock { times: blank, at: Instant::now() }, &mut out);
        assert_eq!(records(&mut out), [Record::Input(Input::Resume)]);
        // Black's flag fell and the clock stopped itself: the game rules it.
        follow.event(report(false, true, true), &mut out);
        assert_eq!(records(&mut out), []);
        // A clock found running when first heard runs the game's clocks.
        let mut follow = Follow::new(Bitboard::EMPTY, false);
        follow.event(report(true, true, false), &mut out);
        let right_white = Record::Input(Input::SetClock { white_ms: 187_000, black_ms: 182_000 });
        assert_eq!(records(&mut out), [right_white, Record::Input(Input::Resume)]);
        follow.event(report(true, false, false), &mut out);
        assert_eq!(records(&mut out), [Record::Clock(Color::White)], "White, on the right, pressed");
    }
}

#[cfg(test)]
#[path = "dgt_recordings.rs"]
mod recordings;
