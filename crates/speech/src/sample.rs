//! Moves given as SAN, made into the `MoveInfo`s the core would report: for
//! `tactus say` (trying voices), the benchmark and the golden tests.

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, CastlingSide, Chess, Color, Move, Piece, Position};
use tactus_core::{CastleSide, MoveInfo};

use crate::error::SpeechError;

/// Plays `sans` from `fen` (the standard start if `None`).
pub fn moves_from_san(fen: Option<&str>, sans: &[&str]) -> Result<Vec<MoveInfo>, SpeechError> {
    let start = fen.unwrap_or("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    let bad = |san: &str, detail: String| SpeechError::BadMove { san: san.to_owned(), fen: start.to_owned(), detail };
    let mut pos: Chess = Fen::from_ascii(start.as_bytes())
        .map_err(|e| bad("", e.to_string()))?
        .into_position(CastlingMode::Standard)
        .map_err(|e| bad("", e.to_string()))?;
    let mut moves = Vec::with_capacity(sans.len());
    for &san in sans {
        let mv = San::from_ascii(san.as_bytes())
            .map_err(|e| bad(san, e.to_string()))?
            .to_move(&pos)
            .map_err(|e| bad(san, e.to_string()))?;
        let side = pos.turn();
        let ply = 2 * (pos.fullmoves().get() - 1) + if side == Color::White { 1 } else { 2 };
        let uci = UciMove::from_move(mv, CastlingMode::Standard).to_string();
        let (from, to) = match mv {
            Move::Castle { king, rook } => {
                let castle = if rook > king { CastlingSide::KingSide } else { CastlingSide::QueenSide };
                (king, castle.king_to(side))
            }
            _ => (mv.from().unwrap_or(mv.to()), mv.to()),
        };
        let castle = mv.castling_side().map(|c| if c.is_king_side() { CastleSide::King } else { CastleSide::Queen });
        let said = SanPlus::from_move_and_play_unchecked(&mut pos, mv);
        moves.push(MoveInfo {
            ply,
            side,
            san: said.to_string(),
            uci,
            piece: Piece { color: side, role: mv.role() },
            from,
            to,
            capture: mv.capture().map(|role| Piece { color: !side, role }),
            promotion: mv.promotion(),
            castle,
            en_passant: mv.is_en_passant(),
            check: pos.is_check(),
            mate: pos.is_checkmate(),
        });
    }
    Ok(moves)
}
