//! The helpmate search: both sides play together towards a mate of Black.
//!
//! Iterative deepening over plies, where the heuristics make promising moves
//! free and unpromising ones expensive. A pass that ends without ever being
//! cut short (by its depth or its node limit) has seen every line to its
//! end: then no mate exists. A mate found is a proof with its line.

use std::{
    collections::HashMap,
    hash::{BuildHasherDefault, Hasher},
    ops::RangeInclusive,
};

use shakmaty::{Chess, Color, Move, Position};

use crate::{
    budget::{Meter, OutOfBudget},
    heuristics::{Guides, Step, classify},
    material::white_cannot_mate,
    moves::{position_key, sort_moves},
};

/// How a search ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Settled {
    /// Black is mated after these moves from the position searched.
    Mate(Vec<Move>),
    /// No sequence of legal moves mates Black.
    NoMate,
}

/// No line is followed beyond this many plies (the algorithm's cap).
const MAX_LINE: usize = 128;

/// Entries the transposition table may hold: a cap on memory (about 32 MiB)
/// that only costs speed when reached, never soundness.
const TABLE_CAPACITY: usize = 1 << 20;

/// The limits of one search phase, in moves tried.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Moves per ply of the pass's depth, if limited.
    pub(crate) per_ply: Option<u64>,
    /// Moves over all passes of one iterative deepening.
    pub(crate) total: u64,
    /// Whether to remember positions already searched (and how deep).
    pub(crate) table: bool,
}

pub(crate) struct Search<'m> {
    meter: &'m mut Meter,
    limits: Limits,
    max_depth: u8,
    pass_nodes: u64,
    earlier_nodes: u64,
    /// Some line was cut short in this pass: its failure proves nothing.
    cut: bool,
    line: Vec<Move>,
    /// The previous move was a reward: this one is free too, so a reward is
    /// not taken straight back by the next ply.
    free_move: bool,
    table: Option<HashMap<u128, u8, BuildHasherDefault<KeyHasher>>>,
    guides: Guides,
    /// The longest line reached, for the stack-depth test.
    #[cfg(test)]
    deepest: usize,
}

impl<'m> Search<'m> {
    /// A search whose lines start with `prefix` (moves already forced).
    pub(crate) fn new(meter: &'m mut Meter, prefix: &[Move]) -> Search<'m> {
        Search {
            meter,
            limits: Limits { per_ply: None, total: 0, table: false },
            max_depth: 0,
            pass_nodes: 0,
            earlier_nodes: 0,
            cut: false,
            line: prefix.to_vec(),
            free_move: false,
            table: None,
            guides: Guides::default(),
            #[cfg(test)]
            deepest: 0,
        }
    }

    /// Searches for a mate at each depth of `depths` in turn, within
    /// `limits`; `None` if the limits were reached first.
    pub(crate) fn deepen(
        &mut self,
        root: &Chess,
        depths: RangeInclusive<u8>,
        limits: Limits,
        guides: Guides,
    ) -> Result<Option<Settled>, OutOfBudget> {
        self.limits = limits;
        self.guides = guides;
        self.table = limits.table.then(HashMap::default);
        self.earlier_nodes = 0;
        self.pass_nodes = 0;
        for depth in depths {
            self.max_depth = depth;
            self.earlier_nodes += self.pass_nodes;
            self.pass_nodes = 0;
            self.cut = false;
            if self.helpmate(root, 0)? {
                return Ok(Some(Settled::Mate(self.line.clone())));
            }
            if !self.cut {
                return Ok(Some(Settled::NoMate));
            }
        }
        Ok(None)
    }

    fn limit_reached(&self) -> bool {
        let per_ply = self.limits.per_ply.is_some_and(|per_ply| self.pass_nodes > u64::from(self.max_depth) * per_ply);
        per_ply || self.earlier_nodes + self.pass_nodes > self.limits.total
    }

    /// `depth` is the plies charged so far in this pass. `Ok(true)` leaves
    /// the mating line in `self.line`.
    fn helpmate(&mut self, pos: &Chess, depth: u8) -> Result<bool, OutOfBudget> {
        let remaining = self.max_depth.saturating_sub(depth);
        let key = self.table.as_ref().map(|_| position_key(pos));
        if let (Some(table), Some(key)) = (&self.table, key)
            && table.get(&key).is_some_and(|&searched| searched >= remaining)
        {
            return Ok(false);
        }

        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Ok(pos.turn() == Color::Black && pos.is_check());
        }
        if white_cannot_mate(pos.board()) {
            return Ok(false);
        }
        #[cfg(test)]
        {
            self.deepest = self.deepest.max(self.line.len());
        }
        if depth >= self.max_depth || self.line.len() >= MAX_LINE {
            self.cut = true;
            return Ok(false);
        }
        if let (Some(table), Some(key)) = (&mut self.table, key)
            && (table.len() < TABLE_CAPACITY || table.contains_key(&key))
        {
            table.insert(key, remaining);
        }

        let mut order = [0; 256];
        for &key in sort_moves(&moves, pos.turn(), &mut order) {
            let m = moves[(key & 0xff) as usize];
            self.pass_nodes += 1;
            self.meter.charge(1)?;
            if self.limit_reached() {
                self.cut = true;
                return Ok(false);
            }
            let step = classify(pos, m, &self.guides);
            let mut child = pos.clone();
            child.play_unchecked(m);
            let child_depth = match step {
                Step::Reward => depth,
                Step::Punish => depth + 4,
                Step::Normal => depth + u8::from(!self.free_move),
            };
            self.line.push(m);
            let free_move = std::mem::replace(&mut self.free_move, step == Step::Reward);
            if self.helpmate(&child, child_depth)? {
                return Ok(true);
            }
            self.free_move = free_move;
            self.line.pop();
        }
        Ok(false)
    }
}

/// Moves with no alternative, played out from a position.
pub(crate) struct Forced {
    pub(crate) position: Chess,
    pub(crate) moves: Vec<Move>,
    /// The forced moves came back to a position already seen: the game can
    /// only go round in that circle, and no mate lies on it.
    pub(crate) circle: bool,
}

/// Plays moves while each position has exactly one legal move, at most 16
/// (longer forced sequences are not known; stopping early loses nothing).
pub(crate) fn play_forced(pos: &Chess, meter: &mut Meter) -> Result<Forced, OutOfBudget> {
    let mut position = pos.clone();
    let mut moves = Vec::new();
    let mut seen = vec![position_key(&position)];
    for _ in 0..16 {
        let legal = position.legal_moves();
        let [only] = legal.as_slice() else { break };
        meter.charge(1)?;
        position.play_unchecked(*only);
        moves.push(*only);
        let key = position_key(&position);
        if seen.contains(&key) {
            return Ok(Forced { position, moves, circle: true });
        }
        seen.push(key);
    }
    Ok(Forced { position, moves, circle: false })
}

/// Zobrist keys are already uniformly random: the table uses their low bits
/// as they are.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u128(&mut self, key: u128) {
        self.0 = key as u64 ^ (key >> 64) as u64;
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, fen::Fen};

    use super::*;
    use crate::budget::Budget;

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn forced_moves_are_played_and_circles_found() {
        let mut meter = Meter::new(Budget::steps(100));
        // Black's king has one move.
        let forced = play_forced(&position("7k/8/6K1/8/8/8/8/6Q1 b - - 0 1"), &mut meter).unwrap();
        assert!(!forced.moves.is_empty());
        assert!(!forced.circle);
        // Only the bishops and kings shuffle, one move each: a circle.
        let forced = play_forced(&position("k1b5/1p1p4/1P1P4/8/8/4p1p1/4P1P1/5B1K w - - 0 1"), &mut meter).unwrap();
        assert!(forced.circle);
    }

    #[test]
    fn a_shallow_search_finds_a_mate_in_one() {
        let mut meter = Meter::new(Budget::steps(10_000));
        let pos = position("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        let limits = Limits { per_ply: Some(1000), total: 1_000_000, table: false };
        let settled = Search::new(&mut meter, &[]).deepen(&pos, 1..=1, limits, Guides::default()).unwrap();
        let Some(Settled::Mate(line)) = settled else { panic!("no mate found: {settled:?}") };
        let mut end = pos.clone();
        for m in line {
            end.play_unchecked(m);
        }
        assert!(end.is_checkmate());
    }

    #[test]
    fn a_line_of_the_longest_length_fits_in_half_a_mebibyte_of_stack() {
        // At depth 128 the first line goes down to the 128-ply cap at once.
        let worker = std::thread::Builder::new().stack_size(512 * 1024).spawn(|| {
            let mut meter = Meter::new(Budget::steps(100_000));
            let limits = Limits { per_ply: None, total: 500, table: true };
            let mut search = Search::new(&mut meter, &[]);
            let settled = search.deepen(&Chess::default(), 128..=128, limits, Guides::default());
            (settled, search.deepest)
        });
        let (settled, deepest) = worker.unwrap().join().expect("the search overflowed its stack");
        assert_eq!(settled, Ok(None), "cut short by the limit");
        assert_eq!(deepest, MAX_LINE);
    }

    #[test]
    fn running_out_of_budget_is_reported() {
        let mut meter = Meter::new(Budget::steps(10));
        let limits = Limits { per_ply: None, total: u64::MAX, table: true };
        let result = Search::new(&mut meter, &[]).deepen(&Chess::default(), 2..=128, limits, Guides::default());
        assert_eq!(result, Err(OutOfBudget));
    }
}
