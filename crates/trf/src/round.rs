//! A round's pairing as the players' records tell it, its boards in FIDE's
//! order.
//!
//! Each player's block for the round names the opponent's starting rank and
//! the colour; the result is blank until the game is played. A pair is two
//! records naming each other with opposite colours; a record naming no
//! opponent (`0000` or blank) is a bye or an absence and has no board.
//!
//! The boards are numbered as FIDE's General handling rules for Swiss
//! tournaments sort a round's pairs before publishing them (C.04.2, D.9),
//! by, in turn: the score of the pair's higher-ranked player (the higher
//! score), the sum of both players' scores, the Initial Order rank (the
//! starting rank) of the pair's higher-ranked player — the one with more
//! points, or with equal points the better starting rank. The scores are
//! those before the round, without acceleration's fictitious points.

use std::cmp::Reverse;
use std::collections::HashMap;

use crate::Trf;
use crate::error::{Problem, TrfError};
use crate::player::{Code, Entry, Player, round_column};
use crate::scoring::Points;

/// A colour a player has in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Colour {
    White,
    Black,
}

/// One board of a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    /// 1 for the first in FIDE's order.
    pub number: u32,
    /// The players' starting ranks.
    pub white: u16,
    pub black: u16,
    /// The result codes the file already holds for the game (both blank
    /// until it is played).
    pub white_code: Option<Code>,
    pub black_code: Option<Code>,
    /// The players' scores before the round.
    pub white_score: Points,
    pub black_score: Points,
}

/// A player the round gives no board: a bye, or an absence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unpaired {
    pub player: u16,
    /// `H`, `F`, `U`, `Z`, or blank (a known absence too).
    pub code: Option<Code>,
}

/// One round's pairing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    pub number: u32,
    pub boards: Vec<Board>,
    pub unpaired: Vec<Unpaired>,
}

impl Round {
    pub fn board(&self, number: u32) -> Option<&Board> {
        self.boards.get(usize::try_from(number).ok()?.checked_sub(1)?)
    }
}

/// The highest round the layout's columns are counted for here.
pub const MAX_ROUND: u32 = 999;

impl Trf {
    /// Round `number`'s pairing: its boards in FIDE's order, and the players
    /// without one. An error names where a record contradicts another (a
    /// player paired twice, an opponent not in the file, a pair without
    /// colours), or that no record pairs the round.
    pub fn round(&self, number: u32) -> Result<Round, TrfError> {
        let first_line = self.players.first().map_or(1, |p| p.line);
        if !(1..=MAX_ROUND).contains(&number) {
            return Err(TrfError::at(first_line, 92, Problem::NoSuchRound(number)));
        }
        let column = round_column(number);
        let entry = |p: &Player| p.rounds.get(number as usize - 1).copied().unwrap_or_default();
        let by_rank: HashMap<u16, &Player> = self.players.iter().map(|p| (p.rank, p)).collect();
        let mut pairs = Vec::new();
        let mut unpaired = Vec::new();
        for p in &self.players {
            let e = entry(p);
            let Some(opponent) = e.opponent else {
                unpaired.push(Unpaired { player: p.rank, code: e.code });
                continue;
            };
            let err = |at: usize, problem| Err(TrfError::at(p.line, at, problem));
            if opponent == p.rank {
                return err(column, Problem::PairedWithSelf { round: number, player: p.rank });
            }
            let Some(q) = by_rank.get(&opponent) else {
                return err(column, Problem::UnknownOpponent { round: number, player: p.rank, opponent });
            };
            let Some(colour) = e.colour else {
                return err(column + 5, Problem::NoColour { round: number, player: p.rank, opponent });
            };
            if let Some(code) = e.code.filter(|c| c.is_bye()) {
                return err(
                    column + 7,
                    Problem::ByeWithOpponent { round: number, player: p.rank, opponent, code: code.as_char() },
                );
            }
            let back = entry(q);
            if back.opponent != Some(p.rank) {
                // The opponent's record pairs it with another, or with none.
                let problem = match back.opponent {
                    Some(other) => Problem::PairedTwice {
                        round: number,
                        player: q.rank,
                        first: other,
                        first_line: q.line,
                        second: p.rank,
                    },
                    None => Problem::NotPairedBack {
                        round: number,
                        player: p.rank,
                        opponent: q.rank,
                        opponent_line: q.line,
                    },
                };
                return err(column, problem);
            }
            if back.colour == Some(colour) {
                let c = if colour == Colour::White { 'w' } else { 'b' };
                return err(column + 5, Problem::SameColour { round: number, player: p.rank, opponent, colour: c });
            }
            if colour == Colour::White {
                pairs.push((p, *q));
            }
        }
        if pairs.is_empty() {
            return Err(TrfError::at(first_line, column, Problem::RoundNotPaired(number)));
        }
        let score = |p: &Player| self.score_before(p, number);
        // C.04.2 D.9: the higher-ranked player has more points, or as many
        // and the better starting rank.
        let key = |(w, b): &(&Player, &Player)| {
            let (sw, sb) = (score(w), score(b));
            let higher = if (Reverse(sw), w.rank) < (Reverse(sb), b.rank) { (sw, w.rank) } else { (sb, b.rank) };
            (Reverse(higher.0), Reverse(Points(sw.0 + sb.0)), higher.1)
        };
        pairs.sort_by_cached_key(key);
        let boards = pairs
            .iter()
            .zip(1..)
            .map(|((w, b), number)| Board {
                number,
                white: w.rank,
                black: b.rank,
                white_code: entry(w).code,
                black_code: entry(b).code,
                white_score: score(w),
                black_score: score(b),
            })
            .collect();
        Ok(Round { number, boards, unpaired })
    }

    /// A player's score before round `round`: the points the record gives,
    /// less what round `round` and later rounds already gave (a file
    /// exported with some of the round's results in); from the results of
    /// the rounds before when the record gives no points.
    pub fn score_before(&self, p: &Player, round: u32) -> Points {
        // A game paired and not played yet is worth nothing so far.
        let value = |e: &Entry| match (e.opponent, e.code) {
            (Some(_), None) => 0,
            (_, code) => self.scoring.value(code, e.colour).0,
        };
        let worth = |r: &[Entry]| r.iter().map(value).sum::<i32>();
        let split = (round as usize - 1).min(p.rounds.len());
        match p.points {
            Some(points) => Points(points.0 - worth(&p.rounds[split..])),
            None => Points(worth(&p.rounds[..split])),
        }
    }
}
