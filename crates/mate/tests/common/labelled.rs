//! CHA-Solver's labelled positions (see `tests/data/SOURCES.md`): each line
//! is a two-character label and a FEN; the label's first character is `W`
//! if White can mate, `-` if not; the second `B` or `-` likewise for Black.

use std::path::PathBuf;

use shakmaty::{CastlingMode, Chess, PositionError, fen::Fen};

pub struct Labelled {
    /// `file:line`, for messages.
    pub place: String,
    pub fen: String,
    pub position: Chess,
    pub white_can_mate: bool,
    pub black_can_mate: bool,
}

/// Reads `tests/data/{set}.txt`; a bad line is an error naming its file
/// and line.
pub fn load(set: &str) -> Result<Vec<Labelled>, String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(format!("{set}.txt"));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut positions = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let place = format!("{}:{}", path.display(), index + 1);
        let (label, fen) = line.split_once(' ').ok_or_else(|| format!("{place}: no label"))?;
        let (white_can_mate, black_can_mate) = match label.as_bytes() {
            [w, b] if matches!(w, b'W' | b'-') && matches!(b, b'B' | b'-') => (*w == b'W', *b == b'B'),
            _ => return Err(format!("{place}: bad label {label:?}")),
        };
        let position = fen
            .parse::<Fen>()
            .map_err(|e| format!("{place}: bad FEN {fen}: {e}"))?
            .into_position(CastlingMode::Standard)
            // Constructed puzzles may have more bishops of one colour than a
            // game can, or a check no last move could give; the question
            // is still well posed.
            .or_else(PositionError::ignore_too_much_material)
            .or_else(PositionError::ignore_impossible_check)
            .map_err(|e| format!("{place}: illegal position {fen}: {e}"))?;
        positions.push(Labelled { place, fen: fen.to_string(), position, white_can_mate, black_can_mate });
    }
    Ok(positions)
}
