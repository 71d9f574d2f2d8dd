//! Reading a DGT e-Board, without I/O: bytes in, typed events out, every
//! call carrying its time.
//!
//! The reader keeps the board's state field by field and reports each
//! change as an edge with the piece's identity, in true squares. It does
//! not interpret: a full scan of the board takes 200–250 ms, so a new
//! square can be reported before the old one is cleared, and a piece
//! carried across the board shows on the squares it passes (a queen taking
//! on c4 from c1 can show on c2 and c3). The move logic must make no move
//! of such transients; `recognise` (a test aid) shows one way.
//!
//! The board numbers its fields from the connector side and does not know
//! which way it lies; the reader finds out from the starting position
//! (White's pawns and pieces on the two rows nearest one edge, Black's on
//! the other, Chess960 included) unless told.

use std::time::{Duration, Instant};

use shakmaty::Square;

use crate::protocol::{
    Battery, BoardMessage, BoardParser, ClockAck, ClockCommand, ClockFaces, Garbage, HostCommand, Occupant,
    Orientation, Placement, Request,
};

/// The board's version is asked again this often until it answers.
const HELLO_EVERY: Duration = Duration::from_millis(500);
/// After this long without a byte from the board, its version is asked.
const PING_AFTER: Duration = Duration::from_secs(3);
/// A board that does not answer a ping within this long is lost.
const PING_TIMEOUT: Duration = Duration::from_secs(2);

/// Whether the reader finds the board's orientation itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrientationMode {
    /// From the starting position; [`Orientation::Normal`] until one is seen.
    Detect,
    /// As given, whatever the pieces show.
    Fixed(Orientation),
}

/// What the board said about itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BoardInfo {
    /// `DGT_MSG_VERSION`: major, minor; `None` if the board sent its
    /// position before its version.
    pub version: Option<(u8, u8)>,
    /// `DGT_MSG_SERIALNR`: five digits, if it answered.
    pub serial: Option<String>,
}

/// Something the reader found in the board's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReaderEvent {
    /// The board answered and its position is known; [`ReaderEvent::Placement`]
    /// follows.
    Connected(BoardInfo),
    /// The board stopped answering (a Bluetooth board out of range or off);
    /// the reader says hello again until it answers.
    Lost {
        /// Why.
        reason: String,
    },
    /// The whole board, in true squares: after connecting, after a change of
    /// orientation, and after a resynchronising dump that differs.
    Placement {
        /// What stands where.
        placement: Placement,
        /// When it was read.
        at: Instant,
    },
    /// One square changed: raw, in the order the board reported it.
    Edge {
        /// The square, in true coordinates.
        sq: Square,
        /// What it holds now.
        occupant: Occupant,
        /// When the report was read.
        at: Instant,
    },
    /// The reader found (or was told) which way the board lies.
    Orientation(Orientation),
    /// The clock's faces and status (`DGT_MSG_BWTIME`).
    Clock {
        /// As the board sent them.
        times: ClockFaces,
        /// When they were read.
        at: Instant,
    },
    /// A clock acknowledgement, or a button on the clock.
    ClockAck {
        /// The four bytes.
        ack: ClockAck,
        /// When it was read.
        at: Instant,
    },
    /// `DGT_MSG_BATTERY_STATUS`.
    Battery(Battery),
    /// Another message (trademark, long serial number, change log…).
    Message(BoardMessage),
    /// Bytes that were no message; the reader asked for a dump to catch up.
    Garbage(Garbage),
}

/// What a reader call produced: bytes for the board and events for the host.
#[derive(Debug, Default)]
pub struct ReaderOut {
    /// To write to the board, in order.
    pub bytes: Vec<u8>,
    /// For the host, in order.
    pub events: Vec<ReaderEvent>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Closed,
    /// Waiting for the version; asked again at this time.
    Hello(Instant),
    /// Version known; waiting for the first dump.
    Dump,
    /// Following the board; `Some` while a ping waits for its answer.
    Ready(Option<Instant>),
}

/// A DGT e-Board on a serial line.
#[derive(Debug)]
pub struct BoardReader {
    mode: OrientationMode,
    orientation: Orientation,
    phase: Phase,
    parser: BoardParser,
    /// The board's state in its own field order.
    fields: [Occupant; 64],
    info: BoardInfo,
    last_heard: Option<Instant>,
    /// A dump was asked for to catch up after garbage and has not come.
    resync_pending: bool,
}

impl BoardReader {
    /// A reader for a board not yet opened.
    pub fn new(mode: OrientationMode) -> BoardReader {
        let orientation = match mode {
            OrientationMode::Detect => Orientation::Normal,
            OrientationMode::Fixed(o) => o,
        };
        BoardReader {
            mode,
            orientation,
            phase: Phase::Closed,
            parser: BoardParser::default(),
            fields: [Occupant::Empty; 64],
            info: BoardInfo::default(),
            last_heard: None,
            resync_pending: false,
        }
    }

    /// Which way the board lies, as far as the reader knows.
    pub fn orientation(&self) -> Orientation {
        self.orientation
    }

    /// The board as last reported, in true squares.
    pub fn placement(&self) -> Placement {
        Placement::from_fields(&self.fields, self.orientation)
    }

    /// The port has just been opened: ask for updates, the board's identity
    /// and its position.
    pub fn opened(&mut self, now: Instant, out: &mut ReaderOut) {
        self.closed();
        self.hello(now, out);
    }

    /// The port is gone.
    pub fn closed(&mut self) {
        self.phase = Phase::Closed;
        self.parser.clear();
        self.last_heard = None;
        self.resync_pending = false;
    }

    fn hello(&mut self, now: Instant, out: &mut ReaderOut) {
        // Updates first, then the dump: a change in between is then reported
        // before the dump, which has the last word.
        for r in [Request::UpdateNice, Request::Version, Request::SerialNr] {
            out.bytes.push(r.code());
        }
        self.phase = Phase::Hello(now + HELLO_EVERY);
    }

    /// Sends a command to the clock on the board. The board acknowledges
    /// it in a [`ReaderEvent::ClockAck`]; waiting for that before the next
    /// one, and resending, is the clock driver's business.
    pub fn clock(&mut self, cmd: &ClockCommand, out: &mut ReaderOut) {
        out.bytes.extend(HostCommand::Clock(cmd.clone()).encode());
    }

    /// Asks for the battery status (Bluetooth boards).
    pub fn ask_battery(&mut self, out: &mut ReaderOut) {
        out.bytes.push(Request::Battery.code());
    }

    /// Bytes from the board, read at `at`.
    pub fn received(&mut self, bytes: &[u8], at: Instant, out: &mut ReaderOut) {
        if self.phase == Phase::Closed {
            return;
        }
        self.last_heard = Some(at);
        for item in self.parser.feed(bytes) {
            match item {
                Ok(msg) => self.message(msg, at, out),
                Err(garbage) => {
                    out.events.push(ReaderEvent::Garbage(garbage));
                    // A field update may have been lost in it.
                    if matches!(self.phase, Phase::Ready(_)) && !self.resync_pending {
                        self.resync_pending = true;
                        out.bytes.push(Request::Board.code());
                    }
                }
            }
        }
    }

    fn message(&mut self, msg: BoardMessage, at: Instant, out: &mut ReaderOut) {
        if let Phase::Ready(Some(_)) = self.phase {
            self.phase = Phase::Ready(None);
        }
        match msg {
            BoardMessage::Version { major, minor } => {
                self.info.version = Some((major, minor));
                if let Phase::Hello(_) = self.phase {
                    self.phase = Phase::Dump;
                    // The clock too: a board answers with its clock's
                    // times, or that none is plugged in (`STATUS_NO_CLOCK`),
                    // where updates tell only of a clock that changes.
                    out.bytes.extend([Request::Board.code(), Request::Clock.code()]);
                }
            }
            BoardMessage::SerialNr(s) => self.info.serial = Some(String::from_utf8_lossy(&s).into_owned()),
            BoardMessage::BoardDump(fields) => self.dump(fields, at, out),
            BoardMessage::FieldUpdate { field, occupant } => {
                let i = usize::from(field.index());
                if self.fields[i] != occupant {
                    self.fields[i] = occupant;
                    if matches!(self.phase, Phase::Ready(_)) && !self.detect(at, out) {
                        out.events.push(ReaderEvent::Edge { sq: field.square(self.orientation), occupant, at });
                    }
                }
            }
            BoardMessage::Clock(times) => out.events.push(ReaderEvent::Clock { times, at }),
            BoardMessage::ClockAck(ack) => out.events.push(ReaderEvent::ClockAck { ack, at }),
            BoardMessage::Battery(b) => out.events.push(ReaderEvent::Battery(b)),
            other => out.events.push(ReaderEvent::Message(other)),
        }
    }

    fn dump(&mut self, fields: [Occupant; 64], at: Instant, out: &mut ReaderOut) {
        self.resync_pending = false;
        let before = self.placement();
        self.fields = fields;
        match self.phase {
            // A dump before the version still shows that a board is there.
            Phase::Dump | Phase::Hello(_) => {
                self.phase = Phase::Ready(None);
                out.events.push(ReaderEvent::Connected(self.info.clone()));
                if !self.detect(at, out) {
                    out.events.push(ReaderEvent::Placement { placement: self.placement(), at });
                }
            }
            Phase::Ready(_) => {
                if !self.detect(at, out) && self.placement() != before {
                    out.events.push(ReaderEvent::Placement { placement: self.placement(), at });
                }
            }
            Phase::Closed => {}
        }
    }

    /// Switches orientation if the fields show a starting position the
    /// other way round; then reports it and the whole board, and says so.
    fn detect(&mut self, at: Instant, out: &mut ReaderOut) -> bool {
        if self.mode != OrientationMode::Detect {
            return false;
        }
        match start_orientation(&self.fields) {
            Some(o) if o != self.orientation => {
                self.orientation = o;
                out.events.push(ReaderEvent::Orientation(o));
                out.events.push(ReaderEvent::Placement { placement: self.placement(), at });
                true
            }
            _ => false,
        }
    }

    /// Runs the timers due by `now`; returns when to call again.
    pub fn poll(&mut self, now: Instant, out: &mut ReaderOut) -> Option<Instant> {
        match self.phase {
            Phase::Closed => return None,
            Phase::Hello(due) if now >= due => self.hello(now, out),
            Phase::Hello(_) | Phase::Dump => {}
            Phase::Ready(Some(asked)) if now >= asked + PING_TIMEOUT => {
                out.events.push(ReaderEvent::Lost {
                    reason: format!("the board did not answer for {:?}", PING_AFTER + PING_TIMEOUT),
                });
                self.hello(now, out);
            }
            Phase::Ready(Some(_)) => {}
            Phase::Ready(None) => {
                if now >= self.last_heard.unwrap_or(now) + PING_AFTER {
                    out.bytes.push(Request::Version.code());
                    self.phase = Phase::Ready(Some(now));
                }
            }
        }
        Some(match self.phase {
            Phase::Closed => return None,
            Phase::Hello(due) => due,
            Phase::Dump => now + HELLO_EVERY,
            Phase::Ready(Some(asked)) => asked + PING_TIMEOUT,
            Phase::Ready(None) => self.last_heard.unwrap_or(now) + PING_AFTER,
        })
    }
}

/// The orientation in which these fields are a starting position: White's
/// eight pawns on one row next to its eight other pieces on the edge row,
/// Black's likewise at the other edge (so Chess960 starts count too).
pub fn start_orientation(fields: &[Occupant; 64]) -> Option<Orientation> {
    use shakmaty::{Color, Role};
    let row = |r: usize| &fields[r * 8..r * 8 + 8];
    let all = |r: usize, color: Color, pawns: bool| {
        row(r).iter().all(|o| o.piece().is_some_and(|p| p.color == color && (p.role == Role::Pawn) == pawns))
    };
    let white_at = |edge: usize, next: usize| all(edge, Color::White, false) && all(next, Color::White, true);
    let black_at = |edge: usize, next: usize| all(edge, Color::Black, false) && all(next, Color::Black, true);
    // Field rows 0–7 run from the far edge to the near one, seen from the
    // connector side.
    if white_at(7, 6) && black_at(0, 1) {
        Some(Orientation::Normal)
    } else if white_at(0, 1) && black_at(7, 6) {
        Some(Orientation::Rotated)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Field;

    fn connect(reader: &mut BoardReader, fields: [Occupant; 64], t0: Instant) -> ReaderOut {
        let mut out = ReaderOut::default();
        reader.opened(t0, &mut out);
        assert_eq!(out.bytes, [0x4b, 0x4d, 0x45]);
        out.bytes.clear();
        reader.received(&BoardMessage::Version { major: 1, minor: 7 }.encode(), t0, &mut out);
        assert_eq!(out.bytes, [0x42, 0x41], "the board and its clock");
        reader.received(&BoardMessage::BoardDump(fields).encode(), t0, &mut out);
        out
    }

    #[test]
    fn a_rotated_start_is_detected_and_edges_come_in_true_squares() {
        let t0 = Instant::now();
        let mut reader = BoardReader::new(OrientationMode::Detect);
        let rotated = Placement::start().fields(Orientation::Rotated);
        let out = connect(&mut reader, rotated, t0);
        assert_eq!(
            out.events,
            [
                ReaderEvent::Connected(BoardInfo { version: Some((1, 7)), serial: None }),
                ReaderEvent::Orientation(Orientation::Rotated),
                ReaderEvent::Placement { placement: Placement::start(), at: t0 },
            ]
        );
        let mut out = ReaderOut::default();
        let e2 = Field::of(Square::E2, Orientation::Rotated);
        reader.received(&BoardMessage::FieldUpdate { field: e2, occupant: Occupant::Empty }.encode(), t0, &mut out);
        assert_eq!(out.events, [ReaderEvent::Edge { sq: Square::E2, occupant: Occupant::Empty, at: t0 }]);
    }

    #[test]
    fn garbage_asks_for_a_dump_and_the_dump_corrects_the_board() {
        let t0 = Instant::now();
        let mut reader = BoardReader::new(OrientationMode::Fixed(Orientation::Normal));
        connect(&mut reader, Placement::start().fields(Orientation::Normal), t0);
        let mut out = ReaderOut::default();
        reader.received(&[0x8e, 0x00], t0, &mut out); // a field update cut short…
        reader.received(&[0x13, 0x70], t0, &mut out); // …by noise
        assert!(matches!(out.events[..], [ReaderEvent::Garbage(_)]), "{:?}", out.events);
        assert_eq!(out.bytes, [0x42]);
        let mut moved = Placement::start();
        moved.set(Square::E2, Occupant::Empty);
        reader.received(&BoardMessage::BoardDump(moved.fields(Orientation::Normal)).encode(), t0, &mut out);
        assert_eq!(out.events[1], ReaderEvent::Placement { placement: moved, at: t0 });
    }

    #[test]
    fn a_silent_board_is_pinged_then_lost() {
        let t0 = Instant::now();
        let mut reader = BoardReader::new(OrientationMode::Detect);
        connect(&mut reader, [Occupant::Empty; 64], t0);
        let mut out = ReaderOut::default();
        assert_eq!(reader.poll(t0, &mut out), Some(t0 + PING_AFTER));
        reader.poll(t0 + PING_AFTER, &mut out);
        assert_eq!(out.bytes, [0x4d]);
        reader.poll(t0 + PING_AFTER + PING_TIMEOUT, &mut out);
        assert!(matches!(out.events[..], [ReaderEvent::Lost { .. }]));
        assert_eq!(out.bytes[1..], [0x4b, 0x4d, 0x45], "hello again");
    }
}
