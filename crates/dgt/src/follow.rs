//! Following a DGT e-Board as a game's board, without I/O: the reader's
//! events become the inputs a tactus game takes (`tactus_trace::Record`).
//! Field updates become the square edges the game recognises moves from,
//! each filling edge naming the piece put down (trace format version 2);
//! the levers of a DGT clock on the board become the presses, its run
//! button resumes and pauses the game, its times set the game's clocks as
//! it starts; a board without a clock says so, and then a move is complete
//! once the board holds still on it. A promotion is seen in the piece put
//! down, and becomes the promotion selector. The game sees occupancy, as
//! from any board: its recogniser already rules out the squares a sliding
//! piece passes over and the scan's out-of-order reports, since a move is
//! announced only once the board holds still on it.

use std::time::{Duration, Instant};

use shakmaty::{Bitboard, ByColor, Color, Piece, Role, Square};
use tactus_trace::{Input, Ms, Record};

use crate::protocol::{ClockSide, Occupant, Placement};
use crate::reader::ReaderEvent;

/// A game on a DGT board needs no debounce: the board reports each scan's
/// settled fields, several at once, and a capture's off and on of one
/// square may come in the same millisecond.
pub const DEBOUNCE_MS: Ms = 0;
/// A DGT board's scan takes 200–250 ms: a sliding piece can show on a
/// square it passes for a whole scan, so the board has held still only
/// after more than one. A game on it settles this long at least.
pub const SETTLE_MS: Ms = 300;

/// What following the board says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Followed {
    /// An input for the game, sensed at this instant.
    At(Instant, Record),
    /// The board stopped answering: said once for one loss.
    Lost(String),
    /// The board answers again.
    Back,
}

/// How a DGT clock on the board is read.
#[derive(Debug, Clone, Copy)]
pub struct ClockOnBoard {
    /// The side of White's face.
    pub white: ClockSide,
    /// It is the only clock the game can have (no clock device is
    /// configured): whether the board has one decides what completes a
    /// move, its press or the board holding still.
    pub sole: bool,
}

/// The board's reports turned into the game's inputs.
pub struct Follow {
    shows: Bitboard,
    /// What the board last reported on each square, in true squares, once
    /// it has reported a whole board.
    seen: Option<Placement>,
    /// Whether a clock is plugged in, once the board has said.
    connected: Option<bool>,
    /// The side whose lever is down, once a clock has reported.
    lever_down: Option<ClockSide>,
    /// Whether the clock ran, once a clock has reported.
    running: Option<bool>,
    clock: ClockOnBoard,
    /// When the last edge was sent as happening.
    last: Option<Instant>,
    /// The board stopped answering and has not answered since.
    lost: bool,
    promotions: Promotions,
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

/// A pawn of `occupant`'s colour on the rank it promotes from.
fn about_to_promote(sq: Square, occupant: Occupant) -> Option<Color> {
    let Occupant::Piece(Piece { color, role: Role::Pawn }) = occupant else { return None };
    let seventh = match color {
        Color::White => shakmaty::Rank::Seventh,
        Color::Black => shakmaty::Rank::Second,
    };
    (sq.rank() == seventh).then_some(color)
}

/// What a promotion looks like on a board that knows its pieces: a pawn off
/// the rank it promotes from, and a new queen, rook, bishop or knight on
/// the last rank, in either order. Only then is that piece the promotion
/// selector — not a piece put back where it was lifted (j'adoube), nor one
/// moved along the last rank.
#[derive(Debug, Default)]
struct Promotions {
    /// A pawn of that colour left its seventh rank since the opponent last
    /// put a piece down.
    pawn_off: ByColor<bool>,
    /// A piece of that colour put on its last rank, not yet told.
    new_piece: ByColor<Option<Role>>,
    /// The last square emptied, and what stood there.
    lifted: Option<(Square, Occupant)>,
}

impl Promotions {
    /// `sq` went from `was` to `now`; the promotion selector, when this
    /// completes a promotion.
    fn change(&mut self, sq: Square, was: Occupant, now: Occupant) -> Option<Role> {
        if was == now {
            return None;
        }
        if let Some(color) = about_to_promote(sq, was) {
            self.pawn_off[color] = true;
        }
        if now == Occupant::Empty {
            self.lifted = Some((sq, was));
        }
        if let Occupant::Piece(piece) = now {
            // The opponent put a piece down: its move began (or ended).
            self.pawn_off[!piece.color] = false;
            self.new_piece[!piece.color] = None;
            if about_to_promote(sq, now).is_some() {
                // The pawn is back.
                self.pawn_off[piece.color] = false;
            }
            if let Some(role) = promoted(sq, now)
                && self.lifted != Some((sq, now))
            {
                self.new_piece[piece.color] = Some(role);
            }
        }
        Color::ALL.into_iter().find_map(|c| if self.pawn_off[c] { self.new_piece[c].take() } else { None })
    }
}

impl Follow {
    /// Following a board the game believes shows `assume`.
    pub fn new(assume: Bitboard, clock: ClockOnBoard) -> Follow {
        Follow {
            shows: assume,
            seen: None,
            connected: None,
            lever_down: None,
            running: None,
            clock,
            last: None,
            lost: false,
            promotions: Promotions::default(),
        }
    }

    /// What the reader found, as the game's inputs.
    pub fn event(&mut self, event: ReaderEvent, out: &mut Vec<Followed>) {
        match event {
            ReaderEvent::Edge { sq, occupant, at } => {
                let mut promotion = None;
                if let Some(seen) = &mut self.seen {
                    let was = seen.get(sq);
                    seen.set(sq, occupant);
                    promotion = self.promotions.change(sq, was, occupant);
                    if replaced(was, occupant) {
                        // The core sees occupancy: the square was emptied,
                        // then filled.
                        self.square(sq, false, None, at, out);
                    }
                }
                self.square(sq, occupant != Occupant::Empty, piece(occupant), at, out);
                self.promote(promotion, at, out);
            }
            ReaderEvent::Placement { placement, at } => self.placement(&placement, at, out),
            ReaderEvent::Clock { times, at } => {
                let connected = !times.status.no_clock;
                if self.clock.sole && self.connected != Some(connected) {
                    // Said once the board has told, then as it changes (a
                    // clock plugged in, or its battery dead): what completes
                    // a move follows.
                    out.push(Followed::At(at, Record::Input(Input::ClockConnected(connected))));
                }
                self.connected = Some(connected);
                if !connected {
                    // A clock plugged in again is read afresh.
                    self.running = None;
                    self.lever_down = None;
                    return;
                }
                let running = times.status.running;
                let lever_down = times.status.lever_down;
                if running && self.running != Some(true) {
                    // The players' clock is the reference: as it starts, the
                    // game's clocks take its times (a Fischer clock gives
                    // the increment before the first move; an arbiter may
                    // have set it while stopped).
                    // A face at 0:00 tells nothing: a clock in a mode that
                    // shows no time, or one never set.
                    let ms = |color| u64::try_from(times.face(self.clock.white.side_of(color)).time.ms()).unwrap_or(0);
                    let (white_ms, black_ms) = (ms(Color::White), ms(Color::Black));
                    if white_ms > 0 && black_ms > 0 {
                        out.push(Followed::At(at, Record::Input(Input::SetClock { white_ms, black_ms })));
                    }
                    // Started with its run button (or found running): the
                    // game's clocks run. A DGT clock is not started by a
                    // lever, so the game would otherwise wait for a press
                    // that never starts it.
                    out.push(Followed::At(at, Record::Input(Input::Resume)));
                }
                if self.lever_down.is_some_and(|was| was != lever_down) {
                    // The lever went down on the presser's side.
                    out.push(Followed::At(at, Record::Clock(self.clock.white.color_at(lever_down))));
                }
                // Stopped with its button: paused. A clock that stopped
                // because a flag fell is not paused: the game keeps its own
                // time and rules the flag itself (6.9).
                let flag_fell = times.left.final_flag || times.right.final_flag;
                if !running && self.running == Some(true) && !flag_fell {
                    out.push(Followed::At(at, Record::Input(Input::Pause)));
                }
                self.running = Some(running);
                self.lever_down = Some(lever_down);
            }
            // Said once, though a ping unanswered and the line closing may
            // both report it (the guard marks the board lost either way).
            ReaderEvent::Lost { reason } if !std::mem::replace(&mut self.lost, true) => {
                out.push(Followed::Lost(reason));
            }
            ReaderEvent::Connected(_) if std::mem::take(&mut self.lost) => out.push(Followed::Back),
            // The whole board follows, in squares named anew.
            ReaderEvent::Orientation(_) => self.seen = None,
            _ => {}
        }
    }

    /// The square now reads `on`, filled with `piece` if the board says
    /// which: an edge, if the game does not believe so already.
    fn square(&mut self, sq: Square, on: bool, piece: Option<Piece>, at: Instant, out: &mut Vec<Followed>) {
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
            out.push(Followed::At(at, Record::Edge { sq, on, piece: piece.filter(|_| on) }));
        }
    }

    /// A whole board (after connecting, turning, or a dump that caught up):
    /// the squares that differ, as edges; a piece replaced by another, as
    /// off and on.
    pub fn placement(&mut self, placement: &Placement, at: Instant, out: &mut Vec<Followed>) {
        let mut promotion = None;
        if let Some(seen) = self.seen {
            // The pawn's square first: a dump tells no order.
            let changed: Vec<Square> =
                Square::ALL.into_iter().filter(|&sq| seen.get(sq) != placement.get(sq)).collect();
            let (pawns, others): (Vec<Square>, Vec<Square>) =
                changed.into_iter().partition(|&sq| about_to_promote(sq, seen.get(sq)).is_some());
            for sq in pawns.into_iter().chain(others) {
                promotion = self.promotions.change(sq, seen.get(sq), placement.get(sq)).or(promotion);
            }
            for sq in Square::ALL.into_iter().filter(|&sq| replaced(seen.get(sq), placement.get(sq))) {
                self.square(sq, false, None, at, out);
            }
        }
        self.seen = Some(*placement);
        let now = placement.occupied();
        for sq in self.shows ^ now {
            self.square(sq, now.contains(sq), piece(placement.get(sq)), at, out);
        }
        self.promote(promotion, at, out);
    }

    /// The board showed a promotion to `role`: the promotion selector, after
    /// the squares that showed it, for the ply whose pawn was lifted
    /// (journaled, so replays agree).
    fn promote(&mut self, role: Option<Role>, at: Instant, out: &mut Vec<Followed>) {
        if let Some(role) = role {
            let at = self.last.map_or(at, |last| at.max(last));
            out.push(Followed::At(at, Record::Input(Input::Promote(role))));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ClockFaces, ClockStatus, Face, Hms, Special};

    /// A clock on the board with White's face on the left, and no clock besides.
    const WHITE_LEFT: ClockOnBoard = ClockOnBoard { white: ClockSide::Left, sole: true };
    /// The same, White's face on the right.
    const WHITE_RIGHT: ClockOnBoard = ClockOnBoard { white: ClockSide::Right, sole: true };

    /// The edges sent, with their times from `t0`.
    fn edges(out: &[Followed], t0: Instant) -> Vec<(Duration, Square, bool)> {
        out.iter()
            .filter_map(|m| match m {
                Followed::At(at, Record::Edge { sq, on, .. }) => Some((at.duration_since(t0), *sq, *on)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_pawn_off_its_seventh_rank_and_a_new_piece_on_the_last_are_the_promotion_selector() {
        let t0 = Instant::now();
        let at = |color, role| Occupant::Piece(Piece { color, role });
        let mut start = Placement::default();
        for (sq, occupant) in [
            (Square::E7, at(Color::White, Role::Pawn)),
            (Square::A8, at(Color::White, Role::Knight)),
            (Square::G1, at(Color::White, Role::King)),
            (Square::D2, at(Color::Black, Role::Pawn)),
            (Square::H8, at(Color::Black, Role::King)),
        ] {
            start.set(sq, occupant);
        }
        let mut follow = Follow::new(start.occupied(), WHITE_LEFT);
        let mut out = Vec::new();
        follow.placement(&start, t0, &mut out);
        let mut said = |follow: &mut Follow, sq, occupant| {
            out.clear();
            follow.event(ReaderEvent::Edge { sq, occupant, at: t0 }, &mut out);
            out.iter()
                .map(|m| match m {
                    Followed::At(_, Record::Input(Input::Promote(role))) => format!("promote {}", role.char()),
                    Followed::At(_, Record::Edge { sq, on: true, .. }) => format!("{sq}+"),
                    Followed::At(_, Record::Edge { sq, on: false, .. }) => format!("{sq}-"),
                    _ => "something else".to_string(),
                })
                .collect::<Vec<_>>()
        };
        // The knight on a8 straightened: no promotion.
        assert_eq!(said(&mut follow, Square::A8, Occupant::Empty), ["a8-"]);
        assert_eq!(said(&mut follow, Square::A8, at(Color::White, Role::Knight)), ["a8+"]);
        // e7-e8=N: the pawn off, then the knight on.
        assert_eq!(said(&mut follow, Square::E7, Occupant::Empty), ["e7-"]);
        assert_eq!(said(&mut follow, Square::E8, at(Color::White, Role::Knight)), ["e8+", "promote n"]);
        // Changed for a queen before Black moves: the queen.
        assert_eq!(said(&mut follow, Square::E8, Occupant::Empty), ["e8-"]);
        assert_eq!(said(&mut follow, Square::E8, at(Color::White, Role::Queen)), ["e8+", "promote q"]);
        // Black's king moves; then d2-d1=R with the rook put down first.
        assert_eq!(said(&mut follow, Square::H8, Occupant::Empty), ["h8-"]);
        assert_eq!(said(&mut follow, Square::H7, at(Color::Black, Role::King)), ["h7+"]);
        assert_eq!(said(&mut follow, Square::D1, at(Color::Black, Role::Rook)), ["d1+"]);
        assert_eq!(said(&mut follow, Square::D2, Occupant::Empty), ["d2-", "promote r"]);
        // White's queen moved along the last rank: no promotion.
        assert_eq!(said(&mut follow, Square::E8, Occupant::Empty), ["e8-"]);
        assert_eq!(said(&mut follow, Square::B8, at(Color::White, Role::Queen)), ["b8+"]);
    }

    #[test]
    fn a_piece_put_where_another_stood_is_the_square_emptied_then_filled() {
        let t0 = Instant::now();
        let start = Placement::start();
        let mut follow = Follow::new(start.occupied(), WHITE_LEFT);
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
        let mut follow = Follow::new(start.occupied(), WHITE_LEFT);
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
            (Square::E4, Occupant::Special(Special::Draw)),
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
        // The lever high on the right is down on the left.
        let lever_down = if right_high { ClockSide::Left } else { ClockSide::Right };
        let status = ClockStatus { running, lever_down, ..ClockStatus::default() };
        // The left face shows 3:02, the right 3:07.
        let left = Face { time: Hms { h: 0, m: 3, s: 2 }, ..Face::default() };
        let right = Face { time: Hms { h: 0, m: 3, s: 7 }, final_flag, ..Face::default() };
        ReaderEvent::Clock { times: ClockFaces { right, left, status }, at: Instant::now() }
    }

    fn records(out: &mut Vec<Followed>) -> Vec<Record> {
        out.drain(..)
            .filter_map(|m| match m {
                Followed::At(_, record) => Some(record),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_clock_started_and_stopped_with_its_button_resumes_and_pauses_the_game() {
        let mut follow = Follow::new(Bitboard::EMPTY, WHITE_LEFT);
        let mut out = Vec::new();
        follow.event(report(false, false, false), &mut out);
        let plugged_in = Record::Input(Input::ClockConnected(true));
        assert_eq!(records(&mut out), std::slice::from_ref(&plugged_in), "a stopped clock, plugged in");
        follow.event(report(true, false, false), &mut out);
        let left_white = Record::Input(Input::SetClock { white_ms: 182_000, black_ms: 187_000 });
        assert_eq!(
            records(&mut out),
            [left_white.clone(), Record::Input(Input::Resume)],
            "started: the game's clocks take its times, White's face runs"
        );
        follow.event(report(true, true, false), &mut out);
        assert_eq!(records(&mut out), [Record::Clock(Color::White)], "White, on the left, pressed");
        follow.event(report(false, true, false), &mut out);
        assert_eq!(records(&mut out), [Record::Input(Input::Pause)]);
        follow.event(report(true, true, false), &mut out);
        assert_eq!(records(&mut out), [left_white, Record::Input(Input::Resume)]);
        // A clock that shows no time sets nothing.
        let running = ClockStatus { running: true, ..ClockStatus::default() };
        let blank = ClockFaces { right: Face::default(), left: Face::default(), status: running };
        let mut blank_follow = Follow::new(Bitboard::EMPTY, WHITE_LEFT);
        blank_follow.event(ReaderEvent::Clock { times: blank, at: Instant::now() }, &mut out);
        assert_eq!(records(&mut out), [plugged_in.clone(), Record::Input(Input::Resume)]);
        // Black's flag fell and the clock stopped itself: the game rules it.
        follow.event(report(false, true, true), &mut out);
        assert_eq!(records(&mut out), []);
        // A clock found running when first heard runs the game's clocks.
        let mut follow = Follow::new(Bitboard::EMPTY, WHITE_RIGHT);
        follow.event(report(true, true, false), &mut out);
        let right_white = Record::Input(Input::SetClock { white_ms: 187_000, black_ms: 182_000 });
        assert_eq!(records(&mut out), [plugged_in, right_white, Record::Input(Input::Resume)]);
        follow.event(report(true, false, false), &mut out);
        assert_eq!(records(&mut out), [Record::Clock(Color::White)], "White, on the right, pressed");
    }

    #[test]
    fn a_board_without_a_clock_says_so_and_says_when_one_is_plugged_in_or_out() {
        let no_clock = || ReaderEvent::Clock { times: ClockFaces::no_clock(), at: Instant::now() };
        let connected = |c| Record::Input(Input::ClockConnected(c));
        let mut follow = Follow::new(Bitboard::EMPTY, WHITE_LEFT);
        let mut out = Vec::new();
        follow.event(no_clock(), &mut out);
        assert_eq!(records(&mut out), [connected(false)], "the board's answer: no clock");
        follow.event(no_clock(), &mut out);
        assert_eq!(records(&mut out), [], "said once");
        // A running clock plugged in: its times, and it runs the game's.
        follow.event(report(true, false, false), &mut out);
        let times = Record::Input(Input::SetClock { white_ms: 182_000, black_ms: 187_000 });
        assert_eq!(records(&mut out), [connected(true), times.clone(), Record::Input(Input::Resume)]);
        // Its battery dead, then back with the other lever up: no press is
        // made of a lever read afresh.
        follow.event(no_clock(), &mut out);
        assert_eq!(records(&mut out), [connected(false)]);
        follow.event(report(true, true, false), &mut out);
        assert_eq!(records(&mut out), [connected(true), times.clone(), Record::Input(Input::Resume)]);
        // With a clock device besides, a clock on the board decides nothing.
        let mut follow = Follow::new(Bitboard::EMPTY, ClockOnBoard { white: ClockSide::Left, sole: false });
        follow.event(no_clock(), &mut out);
        follow.event(report(true, false, false), &mut out);
        assert_eq!(records(&mut out), [times, Record::Input(Input::Resume)]);
    }
}
