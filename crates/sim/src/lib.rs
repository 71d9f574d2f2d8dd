//! Simulated hands: turns a game into the raw sensor trace that an
//! occupancy-only board (reed switches) would record while people play it.
//!
//! The recogniser never sees pieces, only squares going empty and occupied,
//! with contact bounce, slides over squares, captures in any order, castling
//! and promotion done the many ways players do them, and — in the `Irregular`
//! profile — illegal moves, clock presses without a move and touch-move
//! breaches. Property tests, benchmarks, and the simulated board of the daemon
//! all drive the pipeline with these traces, so every
//! physical fact here is measured on recorded samples (see the constants in
//! `hands.rs`) and the [`Expect`] says exactly what a FIDE arbiter rules.
//!
//! ```
//! use tactus_sim::{Profile, random_game, simulate};
//!
//! let spec = random_game(7, 60, false);
//! let (trace, expect) = simulate(&spec, Profile::Realistic, 7);
//! assert_eq!(expect.moves_san.len(), spec.moves.len());
//! assert_eq!(trace.last().map(|e| &e.record), Some(&tactus_trace::Record::End));
//! ```

mod game;
mod hands;
mod irregular;
#[cfg(test)]
mod tests;

use std::fmt;
use std::str::FromStr;

use rand::{Rng, SeedableRng, rngs::SmallRng};
use shakmaty::fen::Fen;
use shakmaty::san::{ParseSanError, SanError, SanPlus};
use shakmaty::{ByColor, CastlingMode, Chess, Color, EnPassantMode, Move, Position, PositionError, Role};
use tactus_trace::{Entry, GameResult, Header, Ms, Variant};

pub use game::random_game;

use game::Ending;
use hands::{Hands, Timing};
use irregular::Act;

/// How the simulated players handle the pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// One lift and one place per piece, no bounce, no slides.
    Clean,
    /// Contact bounce, captures in any order, castling king-first or with both
    /// hands, promotions with and without touching down, a piece touched and
    /// put back then moved, slides over squares.
    Realistic,
    /// Realistic, plus long and resting slides, detours over a legal square,
    /// own pieces knocked off and put back, short capture off-times, the new
    /// piece placed before the pawn leaves, rook-first castling (4.4.2).
    Hostile,
    /// Realistic handling plus illegal moves (7.5.1), presses without a move
    /// (7.5.3) and touch-move breaches (4.3.1); a second illegal act loses.
    Irregular,
    /// Realistic handling at blitz speed, all within the Laws: the clock
    /// pressed a few ms before the piece lands; the opponent replying before
    /// the press (6.2.2), the late press then completing the first move; the
    /// opponent's hand lifting the piece of their reply while the press is
    /// still coming.
    Blitz,
}

impl Profile {
    pub const ALL: [Profile; 5] =
        [Profile::Clean, Profile::Realistic, Profile::Hostile, Profile::Irregular, Profile::Blitz];

    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Clean => "clean",
            Profile::Realistic => "realistic",
            Profile::Hostile => "hostile",
            Profile::Irregular => "irregular",
            Profile::Blitz => "blitz",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A word that names no handling profile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown profile {0:?} (clean, realistic, hostile, irregular, blitz)")]
pub struct UnknownProfile(pub String);

impl FromStr for Profile {
    type Err = UnknownProfile;

    fn from_str(s: &str) -> Result<Profile, UnknownProfile> {
        Profile::ALL.into_iter().find(|p| p.as_str() == s).ok_or_else(|| UnknownProfile(s.to_owned()))
    }
}

/// Why a game given in SAN cannot be played: the start, or the move (from 1).
#[derive(Debug, thiserror::Error)]
pub enum SanGameError {
    #[error("start position: {0}")]
    Start(#[from] Box<PositionError<Chess>>),
    #[error("move {number}: {text:?}: {why}")]
    NotSan { number: usize, text: String, why: ParseSanError },
    #[error("move {number}: {text}: {why}")]
    Illegal { number: usize, text: String, why: SanError },
}

/// A game to be played on the simulated board.
#[derive(Debug, Clone)]
pub struct GameSpec {
    pub variant: Variant,
    /// The position on the board at `t = 0`.
    pub start: Fen,
    /// Legal moves from `start`, in order.
    pub moves: Vec<Move>,
    /// Per ply: time on the mover's clock from the previous press to this
    /// press (White's clock starts at `t = 0`). Missing entries are drawn at
    /// random, 1–60 s. A time too short for the handling is stretched; in
    /// `Irregular`, the replacing move after an illegal act takes its own time.
    pub think_ms: Vec<u64>,
}

impl GameSpec {
    /// A game given as SAN moves from `start`, as a PGN gives it.
    pub fn from_san(variant: Variant, start: Fen, sans: &[&str]) -> Result<GameSpec, SanGameError> {
        let mut spec = GameSpec { variant, start, moves: Vec::new(), think_ms: Vec::new() };
        let mut pos = spec.start_position()?;
        for (i, text) in sans.iter().enumerate() {
            let (number, text) = (i + 1, (*text).to_owned());
            let m = match text.parse::<SanPlus>() {
                Ok(san) => san.san.to_move(&pos).map_err(|why| SanGameError::Illegal { number, text, why })?,
                Err(why) => return Err(SanGameError::NotSan { number, text, why }),
            };
            pos.play_unchecked(m);
            spec.moves.push(m);
        }
        Ok(spec)
    }

    pub fn castling_mode(&self) -> CastlingMode {
        match self.variant {
            Variant::Standard => CastlingMode::Standard,
            Variant::Chess960 => CastlingMode::Chess960,
        }
    }

    pub fn start_position(&self) -> Result<Chess, Box<PositionError<Chess>>> {
        self.start.clone().into_position(self.castling_mode()).map_err(Box::new)
    }

    /// The trace header for this game (no clock, no players).
    pub fn header(&self) -> Header {
        Header { variant: self.variant, start_fen: Some(self.start.to_string()), ..Header::default() }
    }
}

/// What a correct arbiter rules on a simulated trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expect {
    /// The moves of the game in SAN (with `+`/`#`), illegal moves excluded.
    pub moves_san: Vec<String>,
    pub irregularities: Vec<ExpectedIrregularity>,
    /// `1-0`, `0-1` or `1/2-1/2` when the game ended on the board (mate,
    /// stalemate, insufficient material, 75 moves, fivefold repetition) or by
    /// a second illegal act (7.5.5); `None` while it is still going on.
    pub result: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExpectedIrregularity {
    /// The ply being made (1 = White's first move of the game).
    pub ply: u32,
    /// `7.5.1`, `7.5.3`, `4.3.1` or `4.4.2`.
    pub article: &'static str,
    pub side: Color,
}

/// The ply being made in `pos`, counted from White's first move of the game,
/// so a trace that starts from a FEN numbers plies as the game record does.
fn ply_of(pos: &Chess) -> u32 {
    (pos.fullmoves().get() - 1) * 2 + u32::from(pos.turn() == Color::Black) + 1
}

/// Simulates `spec` under `profile`: the sensor trace (ending with
/// [`Record::End`] 2 s after the last press) and what an arbiter must rule.
/// The same spec, profile and seed give the same trace. The game stops at
/// the first position where the Laws end it, and in `Irregular` at a second
/// illegal act by one side.
///
/// # Panics
///
/// If the start position is not legal or a move is not legal where it is played.
pub fn simulate(spec: &GameSpec, profile: Profile, seed: u64) -> (Vec<Entry>, Expect) {
    let mut pos = spec.start_position().expect("the start position of a game spec must be legal");
    let chess960 = spec.variant == Variant::Chess960;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut hands = Hands::new(profile, SmallRng::seed_from_u64(rng.random()), pos.board().occupied());
    let mut expect = Expect::default();
    let mut ending = Ending::new(&pos);
    let mut illegal_acts = ByColor::new_with(|_| 0u8);
    let mut press: Ms = 0;

    for (i, &m) in spec.moves.iter().enumerate() {
        assert!(
            pos.is_legal(m),
            "move {} ({m}) is not legal in {}",
            i + 1,
            Fen::from_position(&pos, EnPassantMode::Legal)
        );
        let side = pos.turn();
        let ply = ply_of(&pos);
        let mut flag = |article| expect.irregularities.push(ExpectedIrregularity { ply, article, side });
        let mut think = spec.think_ms.get(i).copied().unwrap_or_else(|| rng.random_range(1_000..=60_000));

        let act = if profile == Profile::Irregular { irregular::pick(&mut rng, &pos, m) } else { Act::None };
        match act {
            Act::None => {}
            Act::Breach { sq } => {
                flag("4.3.1");
                hands.touch_back(sq);
            }
            Act::Illegal { .. } | Act::EmptyPress => {
                if let Act::Illegal { from, to, .. } = act {
                    flag("7.5.1");
                    hands.illegal_move(from, to);
                } else {
                    flag("7.5.3");
                }
                press = hands.close(press, rng.random_range(300..=think.max(300)), side, None, Timing::Usual);
                illegal_acts[side] += 1;
                if illegal_acts[side] == 2 {
                    // 7.5.5: the second illegal act loses, unless the opponent cannot mate.
                    let result = if game::can_mate(&pos, side.other()) {
                        GameResult::win_for(side.other())
                    } else {
                        GameResult::Draw
                    };
                    expect.result = Some(result.as_str().to_owned());
                    break;
                }
                if let Act::Illegal { from, to, breach } = act {
                    // The arbiter has the position restored; touch-move applies to the replacing move.
                    if breach {
                        flag("4.3.1");
                    }
                    hands.restore(to, from);
                }
                think = rng.random_range(3_000..=15_000);
            }
        }
        if hands.play(&pos, m, chess960) {
            flag("4.4.2");
        }
        let promote = m.promotion().filter(|&r| r != Role::Queen);
        let timing = match profile {
            Profile::Blitz => match rng.random_range(0..100) {
                0..20 => Timing::Early,
                20..27 => Timing::Late,
                _ => Timing::Usual,
            },
            _ => Timing::Usual,
        };
        press = hands.close(press, think, side, promote, timing);
        expect.moves_san.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
        if let Some(result) = ending.after(&pos) {
            expect.result = Some(result.as_str().to_owned());
            break;
        }
    }
    if let Some(last) = hands.last_press() {
        press = press.max(last);
    }
    (hands.finish(press + 2_000), expect)
}
