//! A game as an engine needs to see it: the position it began from and the
//! moves since (engines want the moves, not only the position, to see
//! repetitions).

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

/// The moves of a game from its initial position. Every move in it is legal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    initial: Chess,
    moves: Vec<Move>,
    position: Chess,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("bad FEN {fen:?}: {reason}")]
    Fen { fen: String, reason: String },
    #[error("{uci} is not a legal move in {fen}")]
    Illegal { uci: String, fen: String },
}

impl Line {
    pub fn new(initial: Chess) -> Line {
        Line { position: initial.clone(), initial, moves: Vec::new() }
    }

    pub fn from_fen(fen: &str, mode: CastlingMode) -> Result<Line, LineError> {
        let bad = |reason: String| LineError::Fen { fen: fen.to_owned(), reason };
        let parsed: Fen = fen.parse().map_err(|e| bad(format!("{e}")))?;
        let pos: Chess = parsed.into_position(mode).map_err(|e| bad(format!("{e}")))?;
        Ok(Line::new(pos))
    }

    pub fn initial(&self) -> &Chess {
        &self.initial
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The position after the last move.
    pub fn position(&self) -> &Chess {
        &self.position
    }

    pub fn castling_mode(&self) -> CastlingMode {
        self.initial.castles().mode()
    }

    pub fn push(&mut self, m: Move) -> Result<(), LineError> {
        if !self.position.is_legal(m) {
            return Err(self.illegal(m.to_uci(self.castling_mode()).to_string()));
        }
        self.position.play_unchecked(m);
        self.moves.push(m);
        Ok(())
    }

    /// Plays a move written in UCI notation (either castling notation).
    pub fn push_uci(&mut self, uci: &str) -> Result<Move, LineError> {
        let m = uci
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&self.position).ok())
            .ok_or_else(|| self.illegal(uci.to_owned()))?;
        self.push(m)?;
        Ok(m)
    }

    /// Takes back the last `plies` moves (all of them if there are fewer).
    pub fn take_back(&mut self, plies: usize) {
        let keep = self.moves.len().saturating_sub(plies);
        self.moves.truncate(keep);
        let mut position = self.initial.clone();
        for m in &self.moves {
            position.play_unchecked(*m);
        }
        self.position = position;
    }

    fn illegal(&self, uci: String) -> LineError {
        LineError::Illegal { uci, fen: Fen::from_position(&self.position, EnPassantMode::Legal).to_string() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plays_and_takes_back() {
        let mut line = Line::new(Chess::default());
        line.push_uci("e2e4").unwrap();
        line.push_uci("e7e5").unwrap();
        assert_eq!(line.moves().len(), 2);
        assert!(matches!(line.push_uci("e4e5"), Err(LineError::Illegal { .. })));
        assert!(line.push_uci("nonsense").is_err());
        line.take_back(1);
        assert_eq!(line.moves().len(), 1);
        assert_eq!(line.position().turn(), shakmaty::Color::Black);
        line.take_back(5);
        assert_eq!(line.position(), &Chess::default());
    }

    #[test]
    fn bad_fen_is_named() {
        let err = Line::from_fen("8/8/8/8/8/8/8/8 w - - 0 1", CastlingMode::Standard).unwrap_err();
        assert!(err.to_string().contains("8/8/8/8/8/8/8/8"), "{err}");
    }
}
