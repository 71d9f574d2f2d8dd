//! Polyglot opening books (`.bin`), read in place: a binary search over the
//! file's sorted 16-byte entries, so a large book costs no memory.
//!
//! The format (key u64, move u16, weight u16, learn u32, big-endian, sorted
//! by key) is described in "Polyglot book format" by Michel Van den Bergh,
//! shipped by Debian's polyglot package as `book_format.html`. shakmaty's
//! `Zobrist64` is Polyglot's key when the en passant file counts only if a
//! pawn of the side to move stands beside the pushed pawn, whether or not
//! the capture is legal ([`EnPassantMode::PseudoLegal`]).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rand::Rng;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, File as BoardFile, Move, Position, Rank, Role, Square};

const ENTRY: u64 = 16;
/// At most this many entries are read for one position (a sane book has a
/// few dozen at most).
pub const MAX_ENTRIES_PER_POSITION: usize = 256;

#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error("opening book {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("opening book {path}: {size} bytes is not a whole number of 16-byte Polyglot entries")]
    Size { path: PathBuf, size: u64 },
}

/// A move of the book, legal in the position it was looked up for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BookMove {
    pub mv: Move,
    pub weight: u16,
    pub learn: u32,
}

/// An open Polyglot book.
#[derive(Debug)]
pub struct Book {
    path: PathBuf,
    file: File,
    entries: u64,
}

/// The Polyglot key of a position.
pub fn polyglot_key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0
}

impl Book {
    pub fn open(path: impl AsRef<Path>) -> Result<Book, BookError> {
        let path = path.as_ref().to_owned();
        let io = |source| BookError::Io { path: path.clone(), source };
        let file = File::open(&path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        if size % ENTRY != 0 {
            return Err(BookError::Size { path, size });
        }
        Ok(Book { path, file, entries: size / ENTRY })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many entries the book holds.
    pub fn len(&self) -> u64 {
        self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// The book's moves in `pos`, heaviest first. Entries whose move is not
    /// legal in `pos` (a damaged book, or another position with the same
    /// key) and entries of weight 0 are left out.
    pub fn moves(&self, pos: &Chess) -> Result<Vec<BookMove>, BookError> {
        let key = polyglot_key(pos);
        // First entry whose key is not below `key`.
        let (mut lo, mut hi) = (0, self.entries);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.read(mid)?.0 < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut moves: Vec<BookMove> = Vec::new();
        let mut index = lo;
        while index < self.entries && moves.len() < MAX_ENTRIES_PER_POSITION {
            let (k, raw, weight, learn) = self.read(index)?;
            if k != key {
                break;
            }
            index += 1;
            if weight == 0 {
                continue;
            }
            if let Some(mv) = decode_move(raw).and_then(|u| u.to_move(pos).ok())
                && !moves.iter().any(|m| m.mv == mv)
            {
                moves.push(BookMove { mv, weight, learn });
            }
        }
        moves.sort_by_key(|m| std::cmp::Reverse(m.weight));
        Ok(moves)
    }

    /// A book move chosen with probability proportional to its weight.
    pub fn choose(&self, pos: &Chess, rng: &mut impl Rng) -> Result<Option<BookMove>, BookError> {
        let moves = self.moves(pos)?;
        let total: u32 = moves.iter().map(|m| u32::from(m.weight)).sum();
        if total == 0 {
            return Ok(None);
        }
        let mut x = rng.random_range(0..total);
        for m in &moves {
            let w = u32::from(m.weight);
            if x < w {
                return Ok(Some(*m));
            }
            x -= w;
        }
        Ok(None)
    }

    fn read(&self, index: u64) -> Result<(u64, u16, u16, u32), BookError> {
        let mut buf = [0u8; ENTRY as usize];
        self.file
            .read_exact_at(&mut buf, index * ENTRY)
            .map_err(|source| BookError::Io { path: self.path.clone(), source })?;
        let [k0, k1, k2, k3, k4, k5, k6, k7, m0, m1, w0, w1, l0, l1, l2, l3] = buf;
        Ok((
            u64::from_be_bytes([k0, k1, k2, k3, k4, k5, k6, k7]),
            u16::from_be_bytes([m0, m1]),
            u16::from_be_bytes([w0, w1]),
            u32::from_be_bytes([l0, l1, l2, l3]),
        ))
    }
}

/// A Polyglot move: to file, to row, from file, from row (3 bits each,
/// lowest first), promotion piece (3 bits: none, knight, bishop, rook,
/// queen). Castling is king takes rook (`e1h1`), which `UciMove::to_move`
/// reads as castling when the king has that right. Move 0 means none.
fn decode_move(raw: u16) -> Option<UciMove> {
    if raw == 0 {
        return None;
    }
    let square = |bits: u16| {
        let file = BoardFile::new(u32::from(bits & 7));
        let rank = Rank::new(u32::from((bits >> 3) & 7));
        Square::from_coords(file, rank)
    };
    let promotion = match (raw >> 12) & 7 {
        0 => None,
        1 => Some(Role::Knight),
        2 => Some(Role::Bishop),
        3 => Some(Role::Rook),
        4 => Some(Role::Queen),
        _ => return None,
    };
    Some(UciMove::Normal { from: square(raw >> 6), to: square(raw), promotion })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_decode() {
        // e2e4: from e2 (file 4, row 1), to e4 (file 4, row 3).
        let raw = (1 << 9) | (4 << 6) | (3 << 3) | 4;
        assert_eq!(decode_move(raw).unwrap().to_string(), "e2e4");
        // a7 (file 0, row 6) to b8 (file 1, row 7), queen.
        let promo = (4 << 12) | (6 << 9) | (7 << 3) | 1;
        assert_eq!(decode_move(promo).unwrap().to_string(), "a7b8q");
        assert_eq!(decode_move(0), None);
        assert_eq!(decode_move(7 << 12), None);
    }

    #[test]
    fn a_book_of_the_wrong_size_is_refused_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("short.bin");
        std::fs::write(&path, [0u8; 20]).unwrap();
        let err = Book::open(&path).unwrap_err().to_string();
        assert!(err.contains("short.bin") && err.contains("20 bytes"), "{err}");
        let missing = Book::open(dir.path().join("none.bin")).unwrap_err().to_string();
        assert!(missing.contains("none.bin"), "{missing}");
    }
}
