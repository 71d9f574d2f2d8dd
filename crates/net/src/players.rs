//! Pure: what a board's config says of its players beyond their names —
//! FIDE ID, title and rating — and the PGN tags that carry them, which
//! broadcasts read (Lichess's finds a player by FIDE ID).

pub use tactus_trace::{MAX_ELO, MAX_FIDE_ID, Title};

/// A player's `…Title`, `…Elo`, `…FideId` and `…Federation` tags, each only when known.
pub(crate) use tactus_core::pgn::player_tags as pgn_tags;
