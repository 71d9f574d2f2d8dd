//! Being a DGT e-Board, without I/O: commands in, answers out, every call
//! carrying its time.
//!
//! The [`Emulator`] answers every single-board command from the position
//! *as the game knows it* ([`Emulator::set_placement`]: a piece in the
//! air is off the board, a move not yet made is not on it), so that a
//! client asking for a dump after a field update sees a position that makes
//! sense. It sends field updates in the update modes, keeps the board's
//! change log (`DGT_SEND_EE_MOVES`, bus mode), and reports the clock given
//! by [`Emulator::set_clock`]. Commands for the clock (text, set-and-run,
//! beep…) come out as [`ClockRequest`]s for tactus's own clock, and are
//! acknowledged as a board with a DGT 3000 on it does.
//!
//! Bus mode is emulated from DGT's description (one board on the line; a
//! ping to address 0 is answered at once): `DGT_TO_BUSMODE` or any bus
//! command switches to it, any single-board command back.

use std::time::{Duration, Instant};

use shakmaty::Square;

use crate::protocol::clock::{
    ACK_BUTTON, ACK_ERROR, ACK_OK, BEEP_UNIT_MS, SETNRUN_LEFT_RUNS, SETNRUN_PAUSE, SETNRUN_RIGHT_RUNS,
    SETNRUN_TOGGLE_ON_LEVER,
};
use crate::protocol::ee::{EE_BEGINPOS, EE_DOWNLOADED, EE_EMPTYBOARD, EE_START_TAG, EeEvent, EeLog};
use crate::protocol::{
    Battery, BoardMessage, BusRequest, ClockAck, ClockCommand, ClockFaces, ClockSide, Field, Garbage, Hms, HostCommand,
    HostParser, MSG_BUS_BRD_DUMP, MSG_BUS_BWTIME, MSG_BUS_FROM_START, MSG_BUS_PING, MSG_BUS_START_GAME_WRITTEN,
    MSG_BUS_UPDATE, MSG_BUS_VERSION, Occupant, Orientation, Placement, Request, bus_message,
};

/// In `DGT_SEND_UPDATE` mode the clock is sent this often.
const UPDATE_CLOCK_EVERY: Duration = Duration::from_secs(1);
/// Changes closer together than this are marked quick in the change log.
const QUICK: Duration = Duration::from_millis(250);

/// Who the emulated board says it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// `DGT_MSG_VERSION`.
    pub version: (u8, u8),
    /// `DGT_MSG_SERIALNR`: five ASCII digits; the bus address is this
    /// number.
    pub serial: [u8; 5],
    /// `DGT_MSG_LONG_SERIALNR`: ten ASCII digits (PicoChess reads the first
    /// four as a number).
    pub long_serial: [u8; 10],
    /// `DGT_MSG_TRADEMARK`.
    pub trademark: String,
    /// The version a `DGT_CMD_CLOCK_VERSION` is acknowledged with: `0x21`
    /// (2.1, a DGT 3000, so clients send text).
    pub clock_version: u8,
}

impl Default for Identity {
    fn default() -> Identity {
        Identity {
            version: (1, 7),
            serial: *b"07777",
            long_serial: *b"0000007777",
            trademark: "tactus: a sensor chess board speaking the DGT board protocol.\n\
                        Not a DGT Projects product. DGT is a trade mark of DGT Projects.\n\
                        tactus DGT emulation Vs 1.0. Serial nr. 07777"
                .to_string(),
            clock_version: 0x21,
        }
    }
}

impl Identity {
    /// The bus address: the serial number read as a number (14 bits).
    pub fn bus_address(&self) -> u16 {
        let n = self.serial.iter().fold(0u32, |n, d| n * 10 + u32::from(d.wrapping_sub(b'0') % 10));
        (n & 0x3fff) as u16
    }
}

/// Which clock face runs after a set-and-run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Run {
    /// The left face counts down.
    Left,
    /// The right face counts down.
    Right,
    /// Both stopped.
    Paused,
}

/// What a client asked of the clock on the board, for tactus's own clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClockRequest {
    /// Show this text (a DGT 3000 shows eight characters), beeping for
    /// `beep_ms` (0: no beep).
    Text {
        /// Trailing blanks removed.
        text: String,
        /// 0 for none.
        beep_ms: u32,
    },
    /// Seven-segment patterns for the six characters of a DGT XL (wire
    /// order C, B, A, F, E, D), dots and ones, and whether to beep.
    Segments {
        /// As sent.
        segments: [u8; 6],
        /// As sent.
        icons: u8,
        /// Beep.
        beep: bool,
    },
    /// The clock's icons, as sent.
    Icons([u8; 8]),
    /// Back to the times.
    EndText,
    /// Set both faces and which runs.
    SetAndRun {
        /// Left face.
        left: Hms,
        /// Right face.
        right: Hms,
        /// Which counts down.
        run: Run,
        /// The clock switches sides itself on a lever press.
        toggle_on_lever: bool,
    },
    /// Beep for this long.
    Beep {
        /// Milliseconds.
        ms: u32,
    },
}

/// What an emulator call produced.
#[derive(Debug, Default)]
pub struct EmulatorOut {
    /// To write to the client, in order.
    pub bytes: Vec<u8>,
    /// For tactus's clock, in order.
    pub requests: Vec<ClockRequest>,
    /// Bytes from the client that were no command.
    pub garbage: Vec<Garbage>,
}

/// The single-board modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// No updates (`DGT_SEND_RESET`).
    Idle,
    /// Field updates (`DGT_SEND_UPDATE_BRD`).
    UpdateBoard,
    /// Field updates and the clock every second (`DGT_SEND_UPDATE`).
    Update,
    /// Field updates and the clock when it changes (`DGT_SEND_UPDATE_NICE`).
    UpdateNice,
}

impl Mode {
    fn acks_clock(self) -> bool {
        matches!(self, Mode::Update | Mode::UpdateNice)
    }
}

/// Whether the board is on a bus or alone on the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineMode {
    Single(Mode),
    Bus,
}

/// Bus mode's bookkeeping.
#[derive(Debug, Default)]
struct BusState {
    /// The first log event not yet sent by `DGT_BUS_SEND_CHANGES`.
    changes_from: u64,
    /// The last changes sent, for `DGT_BUS_REPEAT_CHANGES`.
    last_changes: Vec<u8>,
    /// Where `DGT_BUS_SET_START_GAME` put its tag.
    start: Option<u64>,
    ignore_next_ping: bool,
}

/// A DGT e-Board (with a DGT 3000 when tactus has a clock), emulated.
#[derive(Debug)]
pub struct Emulator {
    identity: Identity,
    line: LineMode,
    parser: HostParser,
    placement: Placement,
    /// `None`: no clock on the board.
    clock: Option<ClockFaces>,
    /// The clock as last sent in `DGT_SEND_UPDATE_NICE` mode.
    clock_sent: Option<ClockFaces>,
    next_clock: Option<Instant>,
    log: EeLog,
    last_change: Option<Instant>,
    /// More than two pieces have left the start (or the empty board) since
    /// it was last logged: the board's hysteresis.
    begin_armed: bool,
    empty_armed: bool,
    bus: BusState,
    battery: Battery,
}

impl Emulator {
    /// A board with `placement` on it, switched on (in bus mode, as a real
    /// board powers up; the first single-board command switches).
    pub fn new(identity: Identity, placement: Placement) -> Emulator {
        let mut e = Emulator {
            identity,
            line: LineMode::Bus,
            parser: HostParser::default(),
            placement: Placement::default(),
            clock: None,
            clock_sent: None,
            next_clock: None,
            log: EeLog::new(),
            last_change: None,
            begin_armed: true,
            empty_armed: true,
            bus: BusState::default(),
            battery: Battery { percent: 100, time_left: (0x7f, 0x7f), ..Battery::default() },
        };
        // Power-up: every piece found is logged.
        for sq in Square::ALL {
            let occupant = placement.get(sq);
            if occupant.is_occupied() {
                let field = Field::of(sq, Orientation::Normal);
                e.log.push(EeEvent::Field { field, occupant, quick: true });
            }
        }
        e.placement = placement;
        e.tags();
        e
    }

    /// The position the board shows.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// The single-board mode, or `None` in bus mode.
    pub fn mode(&self) -> Option<Mode> {
        match self.line {
            LineMode::Single(m) => Some(m),
            LineMode::Bus => None,
        }
    }

    /// The client (re)connected: the line starts again (a Bluetooth link
    /// or a USB gadget port opened anew). The board itself is unchanged.
    pub fn reconnected(&mut self) {
        self.parser.clear();
        self.line = LineMode::Bus;
        self.next_clock = None;
    }

    /// The game's position changed (a lift, a placement, a move taken
    /// back): field updates for every square that differs, removals first.
    pub fn set_placement(&mut self, placement: &Placement, now: Instant, out: &mut EmulatorOut) {
        let changed: Vec<Square> = placement.diff(&self.placement).collect();
        let (removals, rest): (Vec<Square>, Vec<Square>) =
            changed.into_iter().partition(|sq| !placement.get(*sq).is_occupied());
        for sq in removals.into_iter().chain(rest) {
            let occupant = placement.get(sq);
            self.placement.set(sq, occupant);
            let field = Field::of(sq, Orientation::Normal);
            let quick = self.last_change.is_some_and(|t| now.saturating_duration_since(t) < QUICK);
            self.last_change = Some(now);
            self.log.push(EeEvent::Field { field, occupant, quick });
            if let LineMode::Single(Mode::UpdateBoard | Mode::Update | Mode::UpdateNice) = self.line {
                out.bytes.extend(BoardMessage::FieldUpdate { field, occupant }.encode());
            }
        }
        self.tags();
    }

    /// Logs the start position and the empty board, with the board's
    /// hysteresis: again only after more than two pieces were elsewhere.
    fn tags(&mut self) {
        let away = |a: &Placement, b: &Placement| a.diff(b).count();
        let from_start = away(&self.placement, &Placement::start());
        if from_start == 0 && self.begin_armed {
            self.log.push(EeEvent::Tag(EE_BEGINPOS));
            self.begin_armed = false;
        } else if from_start > 2 {
            self.begin_armed = true;
        }
        let from_empty = away(&self.placement, &Placement::default());
        if from_empty == 0 && self.empty_armed {
            self.log.push(EeEvent::Tag(EE_EMPTYBOARD));
            self.empty_armed = false;
        } else if from_empty > 2 {
            self.empty_armed = true;
        }
    }

    /// tactus's clock changed (`None`: no clock). Sent at once in
    /// `DGT_SEND_UPDATE_NICE` mode; a lever press is logged with the time of
    /// the face it stopped.
    pub fn set_clock(&mut self, clock: Option<ClockFaces>, now: Instant, out: &mut EmulatorOut) {
        if let (Some(old), Some(new)) = (self.clock, clock)
            && old.status.lever_down != new.status.lever_down
        {
            // A player pressed, stopping their face.
            let pressed = new.status.lever_down;
            let time = new.face(pressed).time;
            self.log.push(EeEvent::Time { left: pressed == ClockSide::Left, time });
        }
        self.clock = clock;
        if self.line == LineMode::Single(Mode::UpdateNice) {
            self.send_clock_if_changed(out);
        }
        if self.line == LineMode::Single(Mode::Update) && self.next_clock.is_none() {
            self.next_clock = Some(now);
        }
    }

    fn clock_message(&self) -> BoardMessage {
        BoardMessage::Clock(self.clock.unwrap_or_else(ClockFaces::no_clock))
    }

    fn send_clock_if_changed(&mut self, out: &mut EmulatorOut) {
        if self.clock.is_some() && self.clock != self.clock_sent {
            self.clock_sent = self.clock;
            out.bytes.extend(self.clock_message().encode());
        }
    }

    /// A button was pressed on tactus's clock: `ack3` code (`0x31`–`0x35`,
    /// or `0x40` for on/off), reported as a DGT 3000's board does.
    pub fn button(&mut self, code: u8, out: &mut EmulatorOut) {
        if self.clock.is_some() && matches!(self.line, LineMode::Single(m) if m.acks_clock()) {
            out.bytes.extend(BoardMessage::ClockAck(ClockAck([ACK_OK, ACK_BUTTON, 0, code])).encode());
        }
    }

    /// Sets what `DGT_SEND_BATTERY_STATUS` answers.
    pub fn set_battery(&mut self, battery: Battery) {
        self.battery = battery;
    }

    /// Bytes from the client, read at `now`.
    pub fn received(&mut self, bytes: &[u8], now: Instant, out: &mut EmulatorOut) {
        for item in self.parser.feed(bytes) {
            match item {
                Ok(HostCommand::Bus { request, address }) => self.bus_command(request, address, out),
                Ok(cmd) => {
                    if self.line == LineMode::Bus {
                        // A single-board command ends bus mode, idle, and is processed.
                        self.line = LineMode::Single(Mode::Idle);
                    }
                    self.command(cmd, now, out);
                }
                Err(g) => out.garbage.push(g),
            }
        }
    }

    fn set_mode(&mut self, mode: Mode, now: Instant, out: &mut EmulatorOut) {
        self.line = LineMode::Single(mode);
        self.next_clock = (mode == Mode::Update).then_some(now);
        if mode == Mode::UpdateNice {
            // The client learns the clock's state without waiting for a change.
            self.clock_sent = None;
            self.send_clock_if_changed(out);
        }
    }

    fn command(&mut self, cmd: HostCommand, now: Instant, out: &mut EmulatorOut) {
        let reply = match cmd {
            HostCommand::Request(r) => match r {
                Request::Reset => {
                    self.set_mode(Mode::Idle, now, out);
                    None
                }
                Request::UpdateBoard => {
                    self.set_mode(Mode::UpdateBoard, now, out);
                    None
                }
                Request::Update => {
                    self.set_mode(Mode::Update, now, out);
                    None
                }
                Request::UpdateNice => {
                    self.set_mode(Mode::UpdateNice, now, out);
                    None
                }
                Request::Clock => Some(self.clock_message()),
                Request::Board => Some(BoardMessage::BoardDump(self.placement.fields(Orientation::Normal))),
                Request::SerialNr => Some(BoardMessage::SerialNr(self.identity.serial)),
                Request::LongSerialNr => Some(BoardMessage::LongSerialNr(self.identity.long_serial)),
                Request::BusAddress => Some(BoardMessage::BusAddress(self.identity.bus_address())),
                Request::Trademark => Some(BoardMessage::Trademark(self.identity.trademark.clone())),
                Request::Version => {
                    let (major, minor) = self.identity.version;
                    Some(BoardMessage::Version { major, minor })
                }
                Request::Battery => Some(BoardMessage::Battery(self.battery)),
                Request::EeMoves => {
                    let log = self.log.download();
                    self.log.push(EeEvent::Tag(EE_DOWNLOADED));
                    Some(BoardMessage::EeMoves(log))
                }
                Request::ToBusMode => {
                    self.line = LineMode::Bus;
                    None
                }
                // Draughts scanning, the boot loader: nothing to do on a chess board.
                Request::StartBootloader
                | Request::Board50B
                | Request::Board50W
                | Request::Scan50B
                | Request::Scan50W
                | Request::Scan100 => None,
            },
            HostCommand::Clock(c) => {
                self.clock_command(c, out);
                None
            }
            // No LEDs on a tactus board.
            HostCommand::Leds { .. } | HostCommand::Bus { .. } => None,
        };
        if let Some(msg) = reply {
            out.bytes.extend(msg.encode());
        }
    }

    fn clock_command(&mut self, cmd: ClockCommand, out: &mut EmulatorOut) {
        let code = cmd.code();
        let mut ack = ClockAck::ok(code);
        match cmd {
            ClockCommand::Ascii { text, beep } => {
                let text = String::from_utf8_lossy(&text).trim_end().to_string();
                // 62.5 ms + value/16 s, for values 1–15.
                let beep_ms = if beep == 0 { 0 } else { 62 + u32::from(beep.min(15)) * 1000 / 16 };
                out.requests.push(ClockRequest::Text { text, beep_ms });
            }
            ClockCommand::Display { segments, icons, beep } => {
                out.requests.push(ClockRequest::Segments { segments, icons, beep });
            }
            ClockCommand::Icons(bytes) => out.requests.push(ClockRequest::Icons(bytes)),
            ClockCommand::End => out.requests.push(ClockRequest::EndText),
            ClockCommand::SetNRun { left, right, flags } => {
                let run = if flags & SETNRUN_PAUSE != 0 {
                    Run::Paused
                } else if flags & SETNRUN_LEFT_RUNS != 0 {
                    Run::Left
                } else if flags & SETNRUN_RIGHT_RUNS != 0 {
                    Run::Right
                } else {
                    Run::Paused
                };
                let toggle_on_lever = flags & SETNRUN_TOGGLE_ON_LEVER != 0;
                out.requests.push(ClockRequest::SetAndRun { left, right, run, toggle_on_lever });
            }
            ClockCommand::Beep(units) => out.requests.push(ClockRequest::Beep { ms: u32::from(units) * BEEP_UNIT_MS }),
            ClockCommand::Version => ack.0[2] = self.identity.clock_version,
            ClockCommand::Button => {}
            ClockCommand::Other { .. } => ack.0[0] = ACK_ERROR,
        }
        // Only a board in an update mode acknowledges, and only with a clock.
        if self.clock.is_some() && matches!(self.line, LineMode::Single(m) if m.acks_clock()) {
            out.bytes.extend(BoardMessage::ClockAck(ack).encode());
            if code == crate::protocol::clock::CMD_VERSION {
                // The clock's state follows, as it does when it changes.
                out.bytes.extend(self.clock_message().encode());
            }
        }
    }

    fn bus_command(&mut self, request: BusRequest, address: u16, out: &mut EmulatorOut) {
        if self.line != LineMode::Bus {
            // A bus command switches to bus mode and is itself not processed.
            self.line = LineMode::Bus;
            return;
        }
        let me = self.identity.bus_address();
        let broadcast = address == 0;
        if address != me && !broadcast {
            return;
        }
        let reply = |id: u8, data: &[u8]| bus_message(id, me, data);
        match request {
            BusRequest::Ping if broadcast && std::mem::take(&mut self.bus.ignore_next_ping) => {}
            BusRequest::Ping => out.bytes.extend(reply(MSG_BUS_PING, &[])),
            BusRequest::IgnoreNextPing => {
                self.bus.ignore_next_ping = true;
                out.bytes.extend(reply(MSG_BUS_PING, &[]));
            }
            BusRequest::EndBusMode => self.line = LineMode::Single(Mode::Idle),
            BusRequest::Reset => {
                self.log.push(EeEvent::Tag(crate::protocol::ee::EE_POWERUP));
                self.bus = BusState { changes_from: self.bus.changes_from, ..BusState::default() };
            }
            // The rest name one board.
            _ if broadcast => {}
            BusRequest::Clock => out.bytes.extend(reply(MSG_BUS_BWTIME, &self.clock_data())),
            BusRequest::Board => out.bytes.extend(reply(MSG_BUS_BRD_DUMP, &self.dump_data())),
            BusRequest::Changes => out.bytes.extend(reply(MSG_BUS_UPDATE, &self.changes())),
            BusRequest::RepeatChanges => out.bytes.extend(reply(MSG_BUS_UPDATE, &self.bus.last_changes)),
            BusRequest::SetStartGame => {
                self.bus.start = Some(self.log.next_seq());
                self.log.push(EeEvent::Tag(EE_START_TAG));
                // After the tag every piece's position is in the log.
                for field in Field::all() {
                    let occupant = self.placement.get(field.square(Orientation::Normal));
                    if occupant.is_occupied() {
                        self.log.push(EeEvent::Field { field, occupant, quick: true });
                    }
                }
                out.bytes.extend(reply(MSG_BUS_START_GAME_WRITTEN, &[]));
            }
            BusRequest::FromStart => {
                let from = self.bus.start.unwrap_or(0);
                let mut data = self.log.bytes_since(from);
                // Without what DGT_BUS_SEND_CHANGES has still to send.
                let unsent = self.log.bytes_since(self.bus.changes_from.max(from)).len();
                data.truncate(data.len() - unsent);
                out.bytes.extend(reply(MSG_BUS_FROM_START, &data));
            }
            BusRequest::Version => {
                let (major, minor) = self.identity.version;
                out.bytes.extend(reply(MSG_BUS_VERSION, &[major, minor]));
            }
            BusRequest::All => {
                let changes = self.changes();
                out.bytes.extend(reply(MSG_BUS_UPDATE, &changes));
                out.bytes.extend(reply(MSG_BUS_BWTIME, &self.clock_data()));
                out.bytes.extend(reply(MSG_BUS_BRD_DUMP, &self.dump_data()));
            }
            BusRequest::Board50B => {}
        }
    }

    fn changes(&mut self) -> Vec<u8> {
        let data = self.log.bytes_since(self.bus.changes_from);
        self.bus.changes_from = self.log.next_seq();
        self.bus.last_changes.clone_from(&data);
        data
    }

    fn clock_data(&self) -> Vec<u8> {
        self.clock_message().encode()[3..].to_vec()
    }

    /// The board as it stands, as the answer to `DGT_SEND_BRD`, in a mode
    /// that sends no field updates; `None` in one that does (there a dump
    /// keeps its place in the stream the updates go on from).
    pub(crate) fn board_dump_without_updates(&self) -> Option<Vec<u8>> {
        match self.line {
            LineMode::Single(Mode::UpdateBoard | Mode::Update | Mode::UpdateNice) | LineMode::Bus => None,
            LineMode::Single(_) => Some(BoardMessage::BoardDump(self.placement.fields(Orientation::Normal)).encode()),
        }
    }

    fn dump_data(&self) -> Vec<u8> {
        self.placement.fields(Orientation::Normal).iter().map(|o| o.code()).collect()
    }

    /// Runs the timers due by `now` (the clock every second in
    /// `DGT_SEND_UPDATE` mode); returns when to call again.
    pub fn poll(&mut self, now: Instant, out: &mut EmulatorOut) -> Option<Instant> {
        let due = self.next_clock?;
        if now >= due {
            out.bytes.extend(self.clock_message().encode());
            self.next_clock = Some(now + UPDATE_CLOCK_EVERY);
        }
        self.next_clock
    }
}

/// The occupant of every square, from a position plus the squares whose
/// piece is in the air (lifted, not yet put down): what the board shows.
pub fn shown(board: &shakmaty::Board, in_air: impl IntoIterator<Item = Square>) -> Placement {
    let mut p = Placement::from_board(board);
    for sq in in_air {
        p.set(sq, Occupant::Empty);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{BoardParser, ee};

    fn ask(e: &mut Emulator, cmd: &[u8], now: Instant) -> Vec<BoardMessage> {
        let mut out = EmulatorOut::default();
        e.received(cmd, now, &mut out);
        assert!(out.garbage.is_empty(), "{:?}", out.garbage);
        BoardParser::default().feed(&out.bytes).into_iter().map(Result::unwrap).collect()
    }

    #[test]
    fn every_single_board_request_is_answered() {
        let t0 = Instant::now();
        let mut e = Emulator::new(Identity::default(), Placement::start());
        let msgs = ask(&mut e, &[0x40, 0x42, 0x45, 0x55, 0x46, 0x47, 0x4d, 0x4c, 0x41, 0x49], t0);
        assert!(
            matches!(&msgs[0], BoardMessage::BoardDump(f) if Placement::from_fields(f, Orientation::Normal) == Placement::start())
        );
        assert_eq!(msgs[1], BoardMessage::SerialNr(*b"07777"));
        assert_eq!(msgs[2], BoardMessage::LongSerialNr(*b"0000007777"));
        assert_eq!(msgs[3], BoardMessage::BusAddress(7777));
        assert!(matches!(&msgs[4], BoardMessage::Trademark(t) if t.contains("Not a DGT Projects product")));
        assert_eq!(msgs[5], BoardMessage::Version { major: 1, minor: 7 });
        assert!(matches!(msgs[6], BoardMessage::Battery(b) if b.percent == 100));
        assert_eq!(msgs[7], BoardMessage::Clock(ClockFaces::no_clock()));
        let BoardMessage::EeMoves(log) = &msgs[8] else { panic!("{:?}", msgs[8]) };
        let events = ee::decode(log).unwrap();
        assert_eq!(events.iter().filter(|e| matches!(e, EeEvent::Field { .. })).count(), 32);
        assert_eq!(events[events.len() - 2..], [EeEvent::Tag(ee::EE_BEGINPOS), EeEvent::Tag(ee::EE_EOF)]);
        assert_eq!(msgs.len(), 9);
    }

    #[test]
    fn field_updates_only_in_update_modes_and_removals_first() {
        let t0 = Instant::now();
        let mut e = Emulator::new(Identity::default(), Placement::start());
        let mut board = shakmaty::Board::new();
        board.discard_piece_at(Square::E2);
        let mut out = EmulatorOut::default();
        e.set_placement(&Placement::from_board(&board), t0, &mut out);
        assert!(out.bytes.is_empty(), "idle after power-up");
        ask(&mut e, &[0x44], t0);
        board.set_piece_at(Square::E4, shakmaty::Piece::from_char('P').unwrap());
        board.discard_piece_at(Square::D7);
        let mut out = EmulatorOut::default();
        e.set_placement(&Placement::from_board(&board), t0, &mut out);
        let msgs: Vec<_> = BoardParser::default().feed(&out.bytes).into_iter().map(Result::unwrap).collect();
        let d7 = Field::of(Square::D7, Orientation::Normal);
        let e4 = Field::of(Square::E4, Orientation::Normal);
        assert_eq!(
            msgs,
            [
                BoardMessage::FieldUpdate { field: d7, occupant: Occupant::Empty },
                BoardMessage::FieldUpdate { field: e4, occupant: Occupant::from_code(1).unwrap() },
            ]
        );
    }

    #[test]
    fn clock_commands_become_requests_and_are_acked_only_with_a_clock_in_an_update_mode() {
        let t0 = Instant::now();
        let mut e = Emulator::new(Identity::default(), Placement::start());
        let mut out = EmulatorOut::default();
        e.received(&ClockCommand::ascii("hello").encode(), t0, &mut out);
        assert_eq!(out.requests, [ClockRequest::Text { text: "hello".into(), beep_ms: 0 }]);
        assert!(out.bytes.is_empty(), "no clock, no ack");
        e.set_clock(Some(ClockFaces::default()), t0, &mut out);
        ask(&mut e, &[0x4b], t0);
        let setnrun = ClockCommand::SetNRun {
            left: Hms { h: 0, m: 5, s: 0 },
            right: Hms { h: 0, m: 4, s: 59 },
            flags: SETNRUN_RIGHT_RUNS | SETNRUN_TOGGLE_ON_LEVER,
        };
        let mut out = EmulatorOut::default();
        e.received(&setnrun.encode(), t0, &mut out);
        assert_eq!(
            out.requests,
            [ClockRequest::SetAndRun {
                left: Hms { h: 0, m: 5, s: 0 },
                right: Hms { h: 0, m: 4, s: 59 },
                run: Run::Right,
                toggle_on_lever: true
            }]
        );
        let msgs: Vec<_> = BoardParser::default().feed(&out.bytes).into_iter().map(Result::unwrap).collect();
        assert_eq!(msgs, [BoardMessage::ClockAck(ClockAck::ok(0x0a))]);
        let msgs = ask(&mut e, &ClockCommand::Version.encode(), t0);
        assert!(matches!(msgs[0], BoardMessage::ClockAck(a) if a.version() == (2, 1)));
    }

    #[test]
    fn bus_mode_answers_its_address_and_reports_changes_once() {
        let t0 = Instant::now();
        let mut e = Emulator::new(Identity::default(), Placement::start());
        let me = e.identity.bus_address();
        let bus = |request, address| HostCommand::Bus { request, address }.encode();
        let mut out = EmulatorOut::default();
        e.received(&bus(BusRequest::Ping, me), t0, &mut out);
        assert_eq!(out.bytes, bus_message(MSG_BUS_PING, me, &[]));
        let mut out = EmulatorOut::default();
        e.received(&bus(BusRequest::Ping, me + 1), t0, &mut out);
        assert!(out.bytes.is_empty(), "another board's address");
        e.received(&bus(BusRequest::Changes, me), t0, &mut out);
        out.bytes.clear();
        let mut board = shakmaty::Board::new();
        board.discard_piece_at(Square::G1);
        e.set_placement(&Placement::from_board(&board), t0, &mut out);
        e.received(&bus(BusRequest::Changes, me), t0, &mut out);
        let g1 = Field::of(Square::G1, Orientation::Normal).index();
        assert_eq!(out.bytes, bus_message(MSG_BUS_UPDATE, me, &[0x40, g1]));
        let mut out = EmulatorOut::default();
        e.received(&bus(BusRequest::Changes, me), t0, &mut out);
        assert_eq!(out.bytes, bus_message(MSG_BUS_UPDATE, me, &[]));
        let mut out = EmulatorOut::default();
        e.received(&bus(BusRequest::RepeatChanges, me), t0, &mut out);
        assert_eq!(out.bytes, bus_message(MSG_BUS_UPDATE, me, &[]));
        // A single-board command leaves bus mode and is answered.
        let msgs = ask(&mut e, &[0x4d], t0);
        assert_eq!(msgs, [BoardMessage::Version { major: 1, minor: 7 }]);
        assert_eq!(e.mode(), Some(Mode::Idle));
    }
}
