//! Who can still checkmate: "can this side checkmate the opponent's king by
//! any possible series of legal moves?", the question behind three rulings
//! of the FIDE Laws:
//!
//! - **5.2.2** dead position: the game is drawn at once when neither side
//!   can mate ([`dead_position`], [`quick_dead_position`]);
//! - **6.9** a flag falls: the game is drawn, not lost, if the opponent
//!   cannot mate ([`can_mate`] for the opponent);
//! - **7.5.5** a second illegal move: likewise ([`can_mate`] for the
//!   opponent).
//!
//! A side can mate exactly when a *helpmate* exists: a sequence of legal
//! moves, both sides cooperating, that ends with the opponent mated. Counting
//! material (shakmaty's insufficient-material test) misses positions such as
//! locked pawn chains, and calls some positions hopeless that are not.
//!
//! # The algorithm
//!
//! This crate is a port to shakmaty of the algorithm of CHA-Solver, by
//! Miguel Ambrona (<https://github.com/miguel-ambrona/chasolver>, MIT
//! licence; "A Practical Algorithm for Chess Unwinnability", FUN 2022,
//! doi:10.4230/LIPIcs.FUN.2022.2), written here from its published
//! description and reference implementation (version 3.0.0).
//! In order, each phase settling what it can:
//!
//! 1. play out moves that have no alternative (a circle of them: no mate);
//! 2. a shallow helpmate search, stretched along promising lines;
//! 3. a static deduction of what every piece may ever reach, which proves
//!    locked structures mate-free (without queens, rooks and knights);
//! 4. iterative deepening with a transposition table;
//! 5. the deduction for positions with queens, rooks or knights;
//! 6. the whole reachable set, when a side can only move pawns;
//! 7. every chain of checks, quiet positions proved by the deduction;
//! 8. a deep search guided by the deduction.
//!
//! A mate found is returned with its line; "cannot mate" is a proof (a
//! search that saw every line end, a closed reachable set, or the
//! deduction). Both are sound; the author reports the algorithm decided
//! every position met so far. On its labelled sets this port agrees with
//! every label when the budget is unlimited; within [`Budget::DEFAULT`] it
//! decides all 131,072 questions of the Lichess set and all but 49 of the
//! 6,828 of the community set, never against a label (see the crate's
//! tests and benchmark).
//!
//! # Why a port and not the `chasolver` crate
//!
//! Measured before deciding (chasolver 3.0.0 built in release mode on this
//! project's development machine, run on its own test sets):
//!
//! - it is built on the `chess` crate 3.2, which pulls `failure` 0.1
//!   (unmaintained, RUSTSEC-2020-0036; unsound, RUSTSEC-2019-0036) with
//!   `backtrace`, `syn` 1 and `synstructure`, and builds its tables with
//!   `rand` 0.7: some thirty crates and a second move generator next to
//!   shakmaty;
//! - its node limits are fixed inside it: no budget can be given, and its
//!   "fast" check is not bounded (5.8 s of wall time on one community
//!   position on the shared machine, 14.9 s for the full search on
//!   another);
//! - every call would go through a FEN into the other crate's board, and
//!   it knows no Chess960 castling at all.
//!
//! The port is about 1,200 lines on shakmaty alone, counts every step
//! against one [`Budget`] (so a replay gives the live verdict on any
//! machine), plays Chess960 castling in its searches like any other move,
//! and returns mating lines as shakmaty moves. It tries moves in nearly the
//! reference's order (pinned pieces aside), and in the searches compared
//! node by node it explored the same nodes; it is somewhat
//! slower per node (shakmaty generates all moves at once where the `chess`
//! crate's generator is lazy): on the Lichess set its full search took
//! 115 µs per question on average against the reference's 69 µs, on the
//! same machine.
//!
//! # Chess960
//!
//! The searches play every legal move, Chess960 castling included, so a
//! mate found or a search run to its end is exact. Only the static
//! deduction models castling, as a king walk and a rook slide, which is
//! right for the standard arrangement (king on the e-file, rooks in the
//! corners). A Chess960 right in any other arrangement is set aside for the
//! deduction only where castling can never happen (a piece that never moves
//! nor is captured stands in its path); otherwise the deduction is withheld
//! and the position is settled by the searches, or is
//! [`Verdict::Undetermined`]. Castling rights are never simply dropped: in
//! some positions castling is the only way to mate.
//!
//! # Use
//!
//! Everything is pure and single-threaded: no I/O, no clock, no threads.
//! A search line of the longest length (128 plies) fits in 512 KiB of stack
//! (tested); a worker thread with Rust's default 2 MiB stack, or tokio's
//! `spawn_blocking`, has room to spare.
//!
//! As in CHA-Solver, the automatic draws of 9.6 (fivefold repetition,
//! 75 moves) do not shorten the series of moves considered.

mod budget;
mod deduce;
mod heuristics;
mod material;
mod moves;
mod phases;
mod probes;
mod search;

pub use budget::Budget;
use budget::Meter;
use phases::Depth;
use search::Settled;
use shakmaty::{Bitboard, Chess, Color, EnPassantMode, Move, Position, attacks};

/// Whether a side can checkmate its opponent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It can: the moves, from the position asked about, of one series of
    /// legal moves that ends with the opponent checkmated (empty if the
    /// opponent is checkmated already).
    CanMate { helpmate: Vec<Move> },
    /// It cannot, by any series of legal moves.
    CannotMate,
    /// Not settled: from [`quick_check`], run [`can_mate`]; from
    /// [`can_mate`], the budget ran out before a proof either way.
    Undetermined,
}

/// A verdict and the steps it cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub verdict: Verdict,
    /// Steps spent, at most the budget.
    pub steps: u64,
}

/// Cheap and sound: settles most positions of a game in microseconds (a
/// shallow search finds a mate; bare material or a locked structure proves
/// there is none) and leaves the rest [`Verdict::Undetermined`] for
/// [`can_mate`]. Spends at most [`Budget::QUICK`].
pub fn quick_check(pos: &Chess, side: Color) -> Verdict {
    decide(pos, side, Depth::Quick, Budget::QUICK).verdict
}

/// The full search within `budget`: whether `side` can checkmate the
/// opponent by any possible series of legal moves (6.9, 7.5.5: ask for the
/// opponent of the player whose flag fell or who made the illegal move).
///
/// The verdict depends only on the position and the budget, never on the
/// machine: a replay reaches the same verdict as the live game.
pub fn can_mate(pos: &Chess, side: Color, budget: Budget) -> Finding {
    decide(pos, side, Depth::Full, budget)
}

fn decide(pos: &Chess, side: Color, depth: Depth, budget: Budget) -> Finding {
    let mut meter = Meter::new(budget);
    let verdict = match side {
        Color::White => verdict(phases::white_can_mate(pos, depth, &mut meter), |m| m),
        Color::Black => match moves::mirrored(pos) {
            Some(mirrored) => verdict(phases::white_can_mate(&mirrored, depth, &mut meter), moves::unmirror),
            None => Verdict::Undetermined,
        },
    };
    Finding { verdict, steps: meter.used() }
}

fn verdict(settled: Result<Option<Settled>, budget::OutOfBudget>, orient: impl Fn(Move) -> Move) -> Verdict {
    match settled {
        Ok(Some(Settled::Mate(line))) => Verdict::CanMate { helpmate: line.into_iter().map(orient).collect() },
        Ok(Some(Settled::NoMate)) => Verdict::CannotMate,
        Ok(None) | Err(budget::OutOfBudget) => Verdict::Undetermined,
    }
}

/// Whether a pawn can still capture (en passant included) or advance, now
/// or once a piece in front of it steps aside: while one can, the pawn
/// structure may open. A game can wait with the dead-position search until
/// every pawn is blocked by a pawn, beyond bare material (which shakmaty
/// counts): a dead position with a pawn still free, or held only by a
/// piece, is found once its pawns are fixed.
pub fn pawns_can_move(pos: &Chess) -> bool {
    let board = pos.board();
    if pos.ep_square(EnPassantMode::Legal).is_some() {
        return true;
    }
    [Color::White, Color::Black].into_iter().any(|side| {
        let pawns = board.pawns() & board.by_color(side);
        let ahead = match side {
            Color::White => Bitboard(pawns.0 << 8),
            Color::Black => Bitboard(pawns.0 >> 8),
        };
        let theirs = board.by_color(!side);
        (ahead & !board.pawns()).any() || pawns.into_iter().any(|sq| (attacks::pawn_attacks(side, sq) & theirs).any())
    })
}

/// Whether the position is dead (5.2.2): neither side can checkmate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deadness {
    /// Neither side can mate: the game is drawn.
    Dead,
    /// At least one side can mate: play on.
    NotDead,
    /// Not settled (by [`quick_dead_position`]: run [`dead_position`]; by
    /// [`dead_position`]: a side's search ran out of budget).
    Undetermined,
}

/// [`quick_check`] for both sides: the check to run after every move.
pub fn quick_dead_position(pos: &Chess) -> Deadness {
    deadness(pos, |side| quick_check(pos, side))
}

/// The full search for both sides (each with `budget`, so at most twice
/// `budget` steps): the ruling on 5.2.2.
pub fn dead_position(pos: &Chess, budget: Budget) -> Deadness {
    deadness(pos, |side| can_mate(pos, side, budget).verdict)
}

/// One side that can mate settles it: the side with more material is asked
/// first, as it most often can, quickly.
fn deadness(pos: &Chess, mut verdict: impl FnMut(Color) -> Verdict) -> Deadness {
    let material = |side: Color| -> u32 {
        let board = pos.board();
        let ours = board.by_color(side);
        [(board.pawns(), 1), (board.knights(), 3), (board.bishops(), 3), (board.rooks(), 5), (board.queens(), 9)]
            .into_iter()
            .map(|(pieces, value)| (pieces & ours).count() as u32 * value)
            .sum()
    };
    let first = if material(Color::Black) > material(Color::White) { Color::Black } else { Color::White };
    let one = verdict(first);
    if matches!(one, Verdict::CanMate { .. }) {
        return Deadness::NotDead;
    }
    match (one, verdict(!first)) {
        (_, Verdict::CanMate { .. }) => Deadness::NotDead,
        (Verdict::CannotMate, Verdict::CannotMate) => Deadness::Dead,
        _ => Deadness::Undetermined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn pos(fen: &str) -> Chess {
        Fen::from_ascii(fen.as_bytes()).unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn pawns_that_can_advance_or_capture_can_move() {
        assert!(pawns_can_move(&Chess::default()));
        // Locked chains with nothing to take.
        assert!(!pawns_can_move(&pos("8/8/4k3/1p1p1p1p/1P1P1P1P/4K3/8/8 w - - 0 1")));
        // A white pawn on d4 can take a bishop on e5.
        assert!(pawns_can_move(&pos("8/8/4k3/1p1pbp1p/1P1P1P1P/4K3/8/8 w - - 0 1")));
        // White's h-pawn has h5 free.
        assert!(pawns_can_move(&pos("8/8/4k3/1p1p1p2/1P1P1P1P/4K3/8/8 b - - 0 1")));
        // En passant.
        assert!(pawns_can_move(&pos("8/8/4k3/3pP3/3P4/4K3/8/8 w - d6 0 1")));
        // A pawn held by a king may advance once the king steps aside.
        assert!(pawns_can_move(&pos("8/8/8/6p1/6k1/6r1/5K2/R7 b - - 0 1")));
        // No pawns at all.
        assert!(!pawns_can_move(&pos("8/8/4k3/8/8/4K3/8/R7 w - - 0 1")));
    }
}
