//! A round's results written back into the file, every other byte as it was:
//! the pairing program reads the file again and pairs the next round.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Trf;
use crate::error::{Problem, TrfError};
use crate::player::{Code, Entry, round_column};
use crate::round::{Colour, Round};
use crate::scoring::Points;

/// How a board's game ended, as the round's file holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// `1` and `0`.
    WhiteWins,
    /// `=` and `=`.
    Draw,
    /// `0` and `1`.
    BlackWins,
    /// `+` and `-`: Black lost by forfeit, the game not played.
    WhiteWinsByForfeit,
    /// `-` and `+`.
    BlackWinsByForfeit,
    /// `-` and `-`: neither played.
    DoubleForfeit,
}

impl Outcome {
    pub const ALL: [Outcome; 6] = [
        Outcome::WhiteWins,
        Outcome::Draw,
        Outcome::BlackWins,
        Outcome::WhiteWinsByForfeit,
        Outcome::BlackWinsByForfeit,
        Outcome::DoubleForfeit,
    ];

    /// As the arbiter's page and the hall's wire spell it: a game's result
    /// as PGN spells it, a forfeit as TRF-26 does.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "1-0",
            Outcome::Draw => "1/2-1/2",
            Outcome::BlackWins => "0-1",
            Outcome::WhiteWinsByForfeit => "+-",
            Outcome::BlackWinsByForfeit => "-+",
            Outcome::DoubleForfeit => "--",
        }
    }

    /// What a file exported with some of the round played holds for a
    /// board: White's code and Black's, read back (the other way round from
    /// [`Outcome::codes`]); `None` when they say no result.
    pub fn of_codes(white: Option<Code>, black: Option<Code>) -> Option<Outcome> {
        use Code::*;
        Some(match (white?, black?) {
            (Win | WinUnrated, Loss | LossUnrated) => Outcome::WhiteWins,
            (Loss | LossUnrated, Win | WinUnrated) => Outcome::BlackWins,
            (Draw | DrawUnrated, Draw | DrawUnrated) => Outcome::Draw,
            (ForfeitWin, ForfeitLoss) => Outcome::WhiteWinsByForfeit,
            (ForfeitLoss, ForfeitWin) => Outcome::BlackWinsByForfeit,
            (ForfeitLoss, ForfeitLoss) => Outcome::DoubleForfeit,
            _ => return None,
        })
    }

    /// White's code and Black's.
    pub fn codes(self) -> (Code, Code) {
        match self {
            Outcome::WhiteWins => (Code::Win, Code::Loss),
            Outcome::Draw => (Code::Draw, Code::Draw),
            Outcome::BlackWins => (Code::Loss, Code::Win),
            Outcome::WhiteWinsByForfeit => (Code::ForfeitWin, Code::ForfeitLoss),
            Outcome::BlackWinsByForfeit => (Code::ForfeitLoss, Code::ForfeitWin),
            Outcome::DoubleForfeit => (Code::ForfeitLoss, Code::ForfeitLoss),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A text that is none of [`Outcome`]'s spellings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a board's result: one of {all}", all = Outcome::ALL.map(Outcome::as_str).join(", "))]
pub struct NotAnOutcome(pub String);

impl FromStr for Outcome {
    type Err = NotAnOutcome;

    fn from_str(s: &str) -> Result<Outcome, NotAnOutcome> {
        Outcome::ALL.into_iter().find(|r| r.as_str() == s).ok_or_else(|| NotAnOutcome(s.to_string()))
    }
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Outcome {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

/// The four columns of a player's points (81–84).
const POINTS_COLUMN: usize = 81;

impl Trf {
    /// The file with the results of `round`'s boards given in `results`
    /// (board number → outcome) in their result columns, and each of those
    /// players' points (columns 81–84) what they were before the round plus
    /// what the result is worth by the file's point system. A board not
    /// given keeps what the file holds. Nothing else changes but the blanks
    /// a line cut short lacks before the columns written.
    pub fn with_results(&self, round: &Round, results: &BTreeMap<u32, Outcome>) -> Result<Vec<u8>, TrfError> {
        let result_column = round_column(round.number) + 7;
        // Per line (by its index), the columns to write.
        let mut edits: BTreeMap<usize, Vec<(usize, String)>> = BTreeMap::new();
        for (&number, &outcome) in results {
            let board = round.board(number).ok_or_else(|| {
                let line = self.players.first().map_or(1, |p| p.line);
                TrfError::at(line, result_column, Problem::NoSuchBoard { round: round.number, board: number })
            })?;
            let (white_code, black_code) = outcome.codes();
            for (rank, code, colour) in
                [(board.white, white_code, Colour::White), (board.black, black_code, Colour::Black)]
            {
                let p = self.player(rank).expect("a round's players are the file's");
                let later: i32 = p
                    .rounds
                    .iter()
                    .skip(round.number as usize)
                    .map(|e: &Entry| match (e.opponent, e.code) {
                        (Some(_), None) => 0,
                        (_, c) => self.scoring.value(c, e.colour).0,
                    })
                    .sum();
                let points = Points(
                    self.score_before(p, round.number).0 + self.scoring.value(Some(code), Some(colour)).0 + later,
                );
                let written = format!("{points:>4}");
                if written.len() > 4 {
                    return Err(TrfError::at(
                        p.line,
                        POINTS_COLUMN,
                        Problem::PointsTooLarge { player: rank, points: points.to_string() },
                    ));
                }
                edits
                    .entry(p.line - 1)
                    .or_default()
                    .extend([(POINTS_COLUMN, written), (result_column, code.as_char().to_string())]);
            }
        }
        let mut out = Vec::with_capacity(self.text.bytes.len() + 64);
        let mut copied = 0;
        for (index, columns) in edits {
            let line = self.text.lines[index];
            out.extend_from_slice(&self.text.bytes[copied..line.start]);
            let mut bytes = self.text.bytes[line.start..line.end].to_vec();
            let width = self.text.width(&line);
            let needed = columns.iter().map(|(c, text)| c + text.len() - 1).max().unwrap_or(0);
            bytes.extend(std::iter::repeat_n(b' ', needed.saturating_sub(width)));
            for (column, text) in columns {
                // Past the line's end, a column is one of the blanks added.
                let at = if column <= width {
                    self.text.offset(&line, column) - line.start
                } else {
                    line.end - line.start + (column - width - 1)
                };
                // The columns written hold ASCII (checked as numbers and
                // codes when read): one byte each.
                bytes.splice(at..at + text.len(), text.bytes());
            }
            out.extend_from_slice(&bytes);
            copied = line.end;
        }
        out.extend_from_slice(&self.text.bytes[copied..]);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_is_spelled_once_and_read_back_from_its_spelling_and_its_codes() {
        for outcome in Outcome::ALL {
            assert_eq!(outcome.as_str().parse(), Ok(outcome));
            let (white, black) = outcome.codes();
            assert_eq!(Outcome::of_codes(Some(white), Some(black)), Some(outcome));
        }
        assert_eq!("1-0 ".parse::<Outcome>(), Err(NotAnOutcome("1-0 ".into())));
        assert_eq!(Outcome::of_codes(Some(Code::Win), None), None, "unplayed");
        assert_eq!(Outcome::of_codes(Some(Code::Win), Some(Code::Win)), None, "no game ends so");
    }
}
