//! The physical side: pieces lifted, carried, slid and set down, as sensor
//! edges. Ranges are the ones measured on recorded sample traces; the
//! recogniser debounces with ~10 ms and calls a board stable after ~100 ms, so
//! bounce stays within 1–3 ms steps, a transient within 30–90 ms, and anything
//! meant to be seen (a rest, a detour, a piece put back) lasts ≥ 200 ms.

use rand::{Rng, rngs::SmallRng, seq::IndexedRandom};
use shakmaty::{Bitboard, CastlingSide, Chess, Color, Move, Position, Role, Square, attacks};
use tactus_trace::{Entry, Input, Ms, Record};

use crate::Profile;

/// Edges 1–3 ms apart while a contact bounces.
const BOUNCE_STEP: (Ms, Ms) = (1, 3);
/// A square passed over by a sliding piece reads occupied this long.
const TRANSIENT: (Ms, Ms) = (30, 90);
/// A slow slide rests on a square on the way this long.
const REST: (Ms, Ms) = (200, 600);
/// Carrying a piece through the air.
const CARRY: (Ms, Ms) = (150, 800);
/// From the last edge of a move to the clock press.
const PRESS_DELAY: (Ms, Ms) = (150, 1_200);
/// A piece touched and let go stays off at least 300 ms (then is moved).
const TOUCH: (Ms, Ms) = (300, 1_500);
/// The shortest time the target square of a capture reads empty, in hostile handling.
const SHORT_OFF: (Ms, Ms) = (20, 60);
/// The usual time the target square of a capture reads empty.
const OFF: (Ms, Ms) = (60, 700);
/// The next move's first lift comes at least this long after the opponent's press.
const MIN_THINK: Ms = 200;
/// Blitz: a press this many ms before the piece lands (two hands, or the
/// clock's and the sensors' clocks apart).
const EARLY_PRESS: (Ms, Ms) = (3, 40);
/// Blitz: the opponent's first lift after the move landed, the press not yet
/// made — a hand already waiting, or a reply after a short look.
const QUICK_REPLY: (Ms, Ms) = (30, 200);
const SLOW_REPLY: (Ms, Ms) = (200, 3_000);

/// When the clock is pressed for a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Timing {
    /// After the last edge, as players usually press.
    Usual,
    /// Blitz: a few ms before the piece lands.
    Early,
    /// Blitz: only after the opponent has replied, or while the opponent
    /// holds the piece of their reply (6.2.2).
    Late,
}

/// A press not yet made: the opponent replies first.
#[derive(Debug, Clone, Copy)]
struct Deferred {
    side: Color,
    /// When the move's last edge was.
    landed: Ms,
}

/// How often each kind of handling happens, per opportunity.
struct Style {
    bounce: f64,
    slide: f64,
    rest: f64,
    touch_back: f64,
    detour: f64,
    knock: f64,
    short_off: f64,
    rook_first: f64,
    /// Captured piece first or both hands, not only capturer first.
    any_order: bool,
    touch_down: f64,
    piece_first: f64,
}

impl Style {
    fn of(profile: Profile) -> Style {
        match profile {
            Profile::Clean => Style {
                bounce: 0.0,
                slide: 0.0,
                rest: 0.0,
                touch_back: 0.0,
                detour: 0.0,
                knock: 0.0,
                short_off: 0.0,
                rook_first: 0.0,
                any_order: false,
                touch_down: 0.0,
                piece_first: 0.0,
            },
            Profile::Realistic | Profile::Irregular | Profile::Blitz => Style {
                bounce: 0.35,
                slide: 0.15,
                rest: 0.0,
                touch_back: 0.05,
                detour: 0.0,
                knock: 0.0,
                short_off: 0.0,
                rook_first: 0.0,
                any_order: true,
                touch_down: 0.5,
                piece_first: 0.0,
            },
            Profile::Hostile => Style {
                bounce: 0.4,
                slide: 0.45,
                rest: 0.35,
                touch_back: 0.08,
                detour: 0.12,
                knock: 0.12,
                short_off: 0.4,
                rook_first: 0.3,
                any_order: true,
                touch_down: 0.5,
                piece_first: 0.35,
            },
        }
    }
}

/// The players' hands and the trace they leave. Each move is built as a
/// segment at times relative to its first edge, then [`Hands::close`] shifts
/// it behind the previous press by the thinking time and presses the clock.
pub(crate) struct Hands {
    rng: SmallRng,
    style: Style,
    out: Vec<Entry>,
    /// Squares that read occupied once every edge so far has settled.
    occ: Bitboard,
    /// Where the current segment starts in `out`.
    seg: usize,
    /// When the next action of the current segment may start.
    cursor: Ms,
    /// Squares the current move involves, so a piece knocked off is another one.
    used: Bitboard,
    /// When the moving piece left its square in the current move.
    mover_lifted: Option<Ms>,
    /// The first and last edge of the latest placement in the current segment.
    last_place: Option<(Ms, Ms)>,
    /// The previous move's press, held back until the opponent replies.
    deferred: Option<Deferred>,
    /// A move's hands start no earlier than this: after the held-back press
    /// that came during the reply before (at most one move runs ahead).
    floor: Ms,
}

impl Hands {
    pub fn new(profile: Profile, rng: SmallRng, occ: Bitboard) -> Hands {
        Hands {
            rng,
            style: Style::of(profile),
            out: Vec::new(),
            occ,
            seg: 0,
            cursor: 0,
            used: Bitboard::EMPTY,
            mover_lifted: None,
            last_place: None,
            deferred: None,
            floor: 0,
        }
    }

    fn between(&mut self, (lo, hi): (Ms, Ms)) -> Ms {
        self.rng.random_range(lo..=hi)
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    fn edge(&mut self, t: Ms, sq: Square, on: bool) {
        self.out.push(Entry { t, record: Record::Edge { sq, on, piece: None } });
    }

    /// One lift (`on = false`) or placement at `t`; with contact bounce the
    /// square toggles 2, 4 or 6 more times. Returns the time of the last edge.
    fn contact(&mut self, sq: Square, on: bool, t: Ms) -> Ms {
        debug_assert_eq!(self.occ.contains(sq), !on, "{sq} {} twice", if on { "placed" } else { "lifted" });
        self.occ.toggle(sq);
        self.used.add(sq);
        self.edge(t, sq, on);
        let mut t = t;
        if self.chance(self.style.bounce) {
            let mut state = on;
            for _ in 0..2 * self.rng.random_range(1..=3) {
                t += self.between(BOUNCE_STEP);
                state = !state;
                self.edge(t, sq, state);
            }
        }
        t
    }

    fn lift(&mut self, sq: Square, t: Ms) -> Ms {
        self.contact(sq, false, t)
    }

    fn place(&mut self, sq: Square, t: Ms) -> Ms {
        let end = self.contact(sq, true, t);
        self.last_place = Some((t, end));
        end
    }

    /// Lifts the piece that makes the move (the knock-off comes after it).
    fn lift_mover(&mut self, sq: Square, t: Ms) -> Ms {
        self.mover_lifted.get_or_insert(t);
        self.lift(sq, t)
    }

    /// Carries a piece, lifted by `t`, from `from` to above `to`: through the
    /// air, or slid over the squares between, each read occupied for a moment
    /// or — a slow slide — resting on one long enough to be seen. Returns when
    /// the piece is over `to`.
    fn travel(&mut self, from: Square, to: Square, t: Ms) -> Ms {
        let path = attacks::between(from, to);
        if path.is_empty() || (path & self.occ).any() || !self.chance(self.style.slide) {
            return t + self.between(CARRY);
        }
        let mut squares: Vec<Square> = path.into_iter().collect();
        squares.sort_by_key(|sq| sq.distance(from));
        let rest = self.chance(self.style.rest).then(|| self.rng.random_range(0..squares.len()));
        let mut t = t + self.rng.random_range(20..=120);
        for (i, sq) in squares.into_iter().enumerate() {
            if rest == Some(i) {
                let placed = self.place(sq, t);
                let stay = self.between(REST);
                t = self.lift(sq, placed + stay);
            } else {
                let stay = self.between(TRANSIENT);
                self.edge(t, sq, true);
                self.edge(t + stay, sq, false);
                self.used.add(sq);
                t += stay;
            }
            t += self.rng.random_range(1..=40);
        }
        t
    }

    /// How long the target square of a capture reads empty before the
    /// capturing piece lands.
    fn off_time(&mut self) -> Ms {
        if self.chance(self.style.short_off) { self.between(SHORT_OFF) } else { self.between(OFF) }
    }

    /// Touches the piece on `sq`, lets go of it on its square, and pauses:
    /// a touch-move breach when another piece moves next, nothing when it moves.
    pub fn touch_back(&mut self, sq: Square) {
        let lifted = self.lift(sq, self.cursor);
        let back = self.between(TOUCH);
        let placed = self.place(sq, lifted + back);
        self.cursor = placed + self.between(TOUCH);
    }

    /// A piece carried from `from` to an empty square `to` it cannot go to (7.5.1).
    pub fn illegal_move(&mut self, from: Square, to: Square) {
        let lifted = self.lift(from, self.cursor);
        let carry = self.between(CARRY);
        self.cursor = self.place(to, lifted + carry);
    }

    /// The arbiter, after stepping in, has the illegal move taken back: the
    /// piece on `at` goes back to `to`, and the player thinks again.
    pub fn restore(&mut self, at: Square, to: Square) {
        let arbiter = self.rng.random_range(2_000..=10_000);
        let lifted = self.lift(at, self.cursor + arbiter);
        let carry = self.between(CARRY);
        let placed = self.place(to, lifted + carry);
        self.cursor = placed + self.rng.random_range(1_000..=5_000);
    }

    /// Plays the legal move `m` of `pos`. Returns whether the castling was
    /// done rook first (4.4.2).
    pub fn play(&mut self, pos: &Chess, m: Move, chess960: bool) -> bool {
        self.used = Bitboard::EMPTY;
        self.mover_lifted = None;
        self.last_place = None;
        let mut t = self.cursor;
        if let Some(from) = m.from().filter(|_| !m.is_castle())
            && self.chance(self.style.touch_back)
        {
            self.touch_back(from);
            t = self.cursor;
        }
        let mut rook_first = false;
        match m {
            Move::Normal { from, to, capture: None, promotion: None, .. } => self.quiet(pos, from, to, t),
            Move::Normal { from, to, capture: Some(_), promotion: None, .. } => {
                let (ready, emptied) = self.take(from, to, t);
                let off = self.off_time();
                self.place(to, ready.max(emptied + off));
            }
            Move::Normal { from, to, capture, promotion: Some(_), .. } => self.promote(from, to, capture.is_some(), t),
            Move::EnPassant { from, to } => self.en_passant(from, to, t),
            Move::Castle { king, rook } => rook_first = self.castle(pos.turn(), king, rook, chess960, t),
            Move::Put { .. } => unreachable!("no drops in chess"),
        }
        self.knock_off(pos);
        self.cursor = self.last_edge().unwrap_or(self.cursor);
        rook_first
    }

    /// A quiet move; in hostile handling sometimes set down first on another
    /// square the piece could legally go to, then moved on.
    fn quiet(&mut self, pos: &Chess, from: Square, to: Square, t: Ms) {
        let mut at = from;
        let mut lifted = self.lift_mover(from, t);
        if self.chance(self.style.detour) {
            let detours: Vec<Square> = pos
                .legal_moves()
                .iter()
                .filter_map(|d| match *d {
                    Move::Normal { from: f, to: x, capture: None, promotion: None, .. } if f == from && x != to => {
                        Some(x)
                    }
                    _ => None,
                })
                .collect();
            if let Some(&x) = detours.choose(&mut self.rng) {
                let over = self.travel(from, x, lifted);
                let placed = self.place(x, over);
                let stay = self.rng.random_range(250..=900);
                lifted = self.lift(x, placed + stay);
                at = x;
            }
        }
        let over = self.travel(at, to, lifted);
        self.place(to, over);
    }

    /// Lifts the capturing piece and the captured one, in one of the orders
    /// players use. Returns when the capturing piece is over `to` and when
    /// `to` was emptied.
    fn take(&mut self, from: Square, to: Square, t: Ms) -> (Ms, Ms) {
        let order = if self.style.any_order { self.rng.random_range(0..10) } else { 0 };
        match order {
            // Capturing piece first, then the captured one from under it.
            0..=5 => {
                let lifted = self.lift_mover(from, t);
                let over = self.travel(from, to, lifted);
                let emptied = self.lift(to, over);
                (emptied, emptied)
            }
            // Captured piece first.
            6..=7 => {
                let emptied = self.lift(to, t);
                let at = emptied + self.rng.random_range(100..=900);
                let lifted = self.lift_mover(from, at);
                (self.travel(from, to, lifted), emptied)
            }
            // Both hands, almost together, either first.
            _ => {
                let gap = self.rng.random_range(0..=40);
                let (lifted, emptied) = if self.chance(0.5) {
                    let lifted = self.lift_mover(from, t);
                    (lifted, self.lift(to, t + gap))
                } else {
                    let emptied = self.lift(to, t);
                    (self.lift_mover(from, t + gap), emptied)
                };
                (self.travel(from, to, lifted), emptied)
            }
        }
    }

    /// Promotion: the pawn set down on the last rank and replaced, or replaced
    /// without touching down, or (4.6.2, hostile) the new piece set down before
    /// the pawn leaves its square.
    fn promote(&mut self, from: Square, to: Square, capture: bool, t: Ms) {
        if !capture && self.chance(self.style.piece_first) {
            let placed = self.place(to, t);
            let wait = self.rng.random_range(200..=900);
            self.lift_mover(from, placed + wait);
            return;
        }
        let (over, emptied) = if capture {
            let (over, emptied) = self.take(from, to, t);
            (over, Some(emptied))
        } else {
            let lifted = self.lift_mover(from, t);
            (self.travel(from, to, lifted), None)
        };
        let off = self.off_time();
        let land = emptied.map_or(over, |e| over.max(e + off));
        if self.chance(self.style.touch_down) {
            let placed = self.place(to, land);
            let stay = self.between(TOUCH);
            let lifted = self.lift(to, placed + stay);
            let fetch = self.rng.random_range(200..=1_200);
            self.place(to, lifted + fetch);
        } else {
            let fetch = self.between(TOUCH);
            self.place(to, land + fetch);
        }
    }

    /// En passant, the captured pawn removed before, between or after.
    fn en_passant(&mut self, from: Square, to: Square, t: Ms) {
        let captured = Square::from_coords(to.file(), from.rank());
        let order = if self.style.any_order { self.rng.random_range(0..3) } else { 0 };
        match order {
            0 => {
                let lifted = self.lift_mover(from, t);
                let over = self.travel(from, to, lifted);
                let placed = self.place(to, over);
                let wait = self.rng.random_range(150..=1_000);
                self.lift(captured, placed + wait);
            }
            1 => {
                let emptied = self.lift(captured, t);
                let at = emptied + self.rng.random_range(100..=900);
                let lifted = self.lift_mover(from, at);
                let over = self.travel(from, to, lifted);
                self.place(to, over);
            }
            _ => {
                let lifted = self.lift_mover(from, t);
                let at = lifted + self.rng.random_range(100..=600);
                let emptied = self.lift(captured, at);
                let wait = self.rng.random_range(100..=600);
                self.place(to, emptied + wait);
            }
        }
    }

    /// Castling. Standard: king first, or both hands; hostile also rook first
    /// (returns `true`: 4.4.2). Chess960 (Guidelines II.3.2): king off the
    /// board, rook to its square, king to its square; a double move; both
    /// hands, which is also how a swap is done. The king is always lifted and
    /// the rook whenever it moves, so lifts tell a castling from a rook move
    /// even when the king stays or the two swap squares.
    fn castle(&mut self, color: Color, king: Square, rook: Square, chess960: bool, t: Ms) -> bool {
        let side = CastlingSide::from_king_side(rook.file() > king.file());
        let (king_to, rook_to) = (side.king_to(color), side.rook_to(color));
        let (king_moves, rook_moves) = (king != king_to, rook != rook_to);
        let methods: &[u8] = match (chess960, king_moves && rook_moves) {
            (false, _) if self.chance(self.style.rook_first) => &[3],
            (false, _) if !self.style.any_order => &[1],
            (false, _) => &[1, 2],
            (true, _) if !self.style.any_order => &[0],
            (true, false) => &[0],
            (true, true) if king_to == rook => &[0, 2],
            (true, true) => &[0, 1, 2],
        };
        let method = *methods.choose(&mut self.rng).expect("a castling method");
        match method {
            // King off the board, rook to its square, king to its square.
            0 => {
                let lifted = self.lift_mover(king, t);
                let mut t = lifted + self.rng.random_range(200..=700);
                if rook_moves {
                    let rook_lifted = self.lift(rook, t);
                    let carry = self.between(CARRY);
                    t = self.place(rook_to, rook_lifted + carry) + self.rng.random_range(100..=500);
                }
                self.place(king_to, t);
            }
            // King, then rook.
            1 => {
                let first = self.step(king, king_to, t);
                let next = self.rng.random_range(100..=600);
                self.step(rook, rook_to, first + next);
            }
            // Both hands: both lifted, then set down in either order.
            2 => {
                let king_lifted = self.lift_mover(king, t);
                let at = t + self.rng.random_range(0..=300);
                let rook_lifted = self.lift(rook, at);
                let first = king_lifted.max(rook_lifted) + self.between(CARRY);
                let second = first + self.rng.random_range(20..=400);
                if self.chance(0.5) {
                    self.place(king_to, first);
                    self.place(rook_to, second);
                } else {
                    self.place(rook_to, first);
                    self.place(king_to, second);
                }
            }
            // Rook, then king.
            _ => {
                let first = self.step(rook, rook_to, t);
                let next = self.rng.random_range(100..=600);
                self.step(king, king_to, first + next);
            }
        }
        method == 3
    }

    /// One piece lifted and set down elsewhere; returns the last edge.
    fn step(&mut self, from: Square, to: Square, t: Ms) -> Ms {
        let lifted = self.lift_mover(from, t);
        let carry = self.between(CARRY);
        self.place(to, lifted + carry)
    }

    /// Hostile: an own piece not in the move knocked off after the moving
    /// piece was lifted, and put back before the press.
    fn knock_off(&mut self, pos: &Chess) {
        let (Some(lifted), Some(last)) = (self.mover_lifted, self.last_edge()) else {
            return;
        };
        if !self.chance(self.style.knock) {
            return;
        }
        let board = pos.board();
        let candidates: Vec<Square> = (board.by_color(pos.turn()) & !board.kings() & !self.used).into_iter().collect();
        let Some(&sq) = candidates.choose(&mut self.rng) else {
            return;
        };
        let at = lifted + self.rng.random_range(50..=(last - lifted).max(50) + 300);
        let off = self.lift(sq, at);
        let back = self.rng.random_range(150..=900);
        self.place(sq, off + back);
    }

    fn last_edge(&self) -> Option<Ms> {
        self.out[self.seg..].iter().map(|e| e.t).max()
    }

    /// Ends the segment: shifts it so that its press comes `think` after the
    /// previous press (later if the handling takes longer), sets the promotion
    /// selector if needed, and presses `side`'s clock — at the usual moment,
    /// or as `timing` says. A segment that replies to a press held back
    /// starts soon after that move landed, and the held-back press comes
    /// while the reply's piece is in the hand or after it landed. Returns the
    /// time of the last press made.
    pub fn close(&mut self, prev: Ms, think: Ms, side: Color, promote: Option<Role>, timing: Timing) -> Ms {
        let last = self.last_edge();
        let delay = if last.is_some() { self.between(PRESS_DELAY) } else { 0 };
        let span = last.map_or(0, |l| l + delay);
        let deferred = self.deferred.take();
        let start = match deferred {
            Some(d) => {
                let gap = if self.chance(0.5) { self.between(QUICK_REPLY) } else { self.between(SLOW_REPLY) };
                (d.landed + gap).max(self.floor)
            }
            None => (prev + think.saturating_sub(span).max(MIN_THINK)).max(self.floor),
        };
        for e in &mut self.out[self.seg..] {
            e.t += start;
        }
        // The piece of the move: lifted at `lifted`, landing from `landed`,
        // when that landing is the move's last edge.
        let lifted = self.mover_lifted;
        let landed = self.last_place.filter(|(_, end)| Some(*end) == last).map(|(first, _)| first);
        let mut earliest = start;
        if let Some(d) = deferred {
            let in_hand = lifted.zip(landed).filter(|(l, p)| l + 40 < *p);
            let at = match in_hand {
                Some((l, p)) if self.chance(0.5) => start + self.rng.random_range(l + 20..=p - 20),
                _ => start + last.unwrap_or(0) + self.rng.random_range(50..=600),
            };
            self.out.push(Entry { t: at, record: Record::Clock(d.side) });
            self.floor = at + MIN_THINK;
            earliest = at;
        }
        let early = match (timing, lifted, landed) {
            (Timing::Early, Some(l), Some(p)) if deferred.is_none() && l + 60 < p => {
                Some(start + p - self.between(EARLY_PRESS))
            }
            _ => None,
        };
        if timing == Timing::Late && deferred.is_none() && last.is_some() {
            let landed = start + last.unwrap_or(0);
            if let Some(role) = promote {
                self.out.push(Entry { t: landed + 1, record: Record::Input(Input::Promote(role)) });
            }
            self.deferred = Some(Deferred { side, landed });
            self.seg = self.out.len();
            self.cursor = 0;
            return prev.max(earliest);
        }
        let press = match (early, deferred) {
            (Some(press), _) => press,
            // After the press held back, never before it.
            (None, Some(_)) => (start + span).max(earliest + self.between(PRESS_DELAY)),
            (None, None) => start + span,
        };
        if let (Some(role), Some(last)) = (promote, last) {
            let at = if early.is_some() { press - 1 } else { start + last + delay / 2 };
            self.out.push(Entry { t: at, record: Record::Input(Input::Promote(role)) });
        }
        self.out.push(Entry { t: press, record: Record::Clock(side) });
        self.seg = self.out.len();
        self.cursor = 0;
        press
    }

    /// A press still held back when the game stops is made after all.
    pub fn last_press(&mut self) -> Option<Ms> {
        let d = self.deferred.take()?;
        let press = d.landed + self.between(PRESS_DELAY);
        self.out.push(Entry { t: press, record: Record::Clock(d.side) });
        Some(press)
    }

    /// The whole trace, in time order, ending at `end`.
    pub fn finish(mut self, end: Ms) -> Vec<Entry> {
        self.out.push(Entry { t: end, record: Record::End });
        // Stable: the edges of one square are already in time order.
        self.out.sort_by_key(|e| e.t);
        self.out
    }
}
