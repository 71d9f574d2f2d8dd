//! What stands on a field, and which square a field is.

use std::fmt;

use shakmaty::{Color, Piece, Role, Square};

/// One of DGT's three extra "magic" pieces (codes `0x0d`–`0x0f`), which
/// software reads as a result put on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    /// `PIECE1`: a draw.
    Draw,
    /// `PIECE2`: White wins.
    WhiteWins,
    /// `PIECE3`: Black wins.
    BlackWins,
}

/// What a field holds: the board knows the piece, not only that there is one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Occupant {
    /// `EMPTY` (0).
    #[default]
    Empty,
    /// A chess piece (codes 1–12).
    Piece(Piece),
    /// A magic piece (codes 13–15).
    Special(Special),
}

/// Codes 1–12 in DGT's order: pawn, rook, knight, bishop, king, queen.
const ROLES: [Role; 6] = [Role::Pawn, Role::Rook, Role::Knight, Role::Bishop, Role::King, Role::Queen];

impl Occupant {
    /// The occupant a piece code stands for; `None` for codes above 15.
    pub fn from_code(code: u8) -> Option<Occupant> {
        Some(match code {
            0 => Occupant::Empty,
            1..=12 => {
                let i = usize::from(code - 1);
                let color = if i < 6 { Color::White } else { Color::Black };
                Occupant::Piece(Piece { color, role: ROLES[i % 6] })
            }
            13 => Occupant::Special(Special::Draw),
            14 => Occupant::Special(Special::WhiteWins),
            15 => Occupant::Special(Special::BlackWins),
            _ => return None,
        })
    }

    /// Its piece code.
    pub fn code(self) -> u8 {
        match self {
            Occupant::Empty => 0,
            Occupant::Piece(p) => {
                let i = ROLES.iter().position(|r| *r == p.role).unwrap_or(0) as u8;
                1 + i + if p.color == Color::White { 0 } else { 6 }
            }
            Occupant::Special(Special::Draw) => 13,
            Occupant::Special(Special::WhiteWins) => 14,
            Occupant::Special(Special::BlackWins) => 15,
        }
    }

    /// The chess piece, if it is one.
    pub fn piece(self) -> Option<Piece> {
        match self {
            Occupant::Piece(p) => Some(p),
            _ => None,
        }
    }

    /// Whether a sensor would read the field as occupied.
    pub fn is_occupied(self) -> bool {
        self != Occupant::Empty
    }
}

impl From<Option<Piece>> for Occupant {
    fn from(p: Option<Piece>) -> Occupant {
        p.map_or(Occupant::Empty, Occupant::Piece)
    }
}

impl fmt::Display for Occupant {
    /// FEN letters, `.` for empty, `=`, `+`, `-` for the magic pieces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Occupant::Empty => f.write_str("."),
            Occupant::Piece(p) => write!(f, "{}", p.char()),
            Occupant::Special(Special::Draw) => f.write_str("="),
            Occupant::Special(Special::WhiteWins) => f.write_str("+"),
            Occupant::Special(Special::BlackWins) => f.write_str("-"),
        }
    }
}

/// How the board lies between the players. The board numbers its fields
/// from the connector side and never rotates the numbering itself: field 0
/// is a8 when White has the connector on the left, h1 when Black has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Orientation {
    /// White has the connector (and the clock) on the left: field 0 is a8.
    #[default]
    Normal,
    /// Turned half a turn: field 0 is h1.
    Rotated,
}

/// A field number, 0–63, in the board's own reading order (0 is the top
/// left seen from the connector side, 63 the bottom right).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Field(u8);

impl Field {
    /// Field `n`, if below 64.
    pub fn new(n: u8) -> Option<Field> {
        (n < 64).then_some(Field(n))
    }

    /// Its number.
    pub fn index(self) -> u8 {
        self.0
    }

    /// The square this field is with the board lying `orientation`.
    pub fn square(self, orientation: Orientation) -> Square {
        let n = match orientation {
            Orientation::Normal => self.0,
            Orientation::Rotated => 63 - self.0,
        };
        // Rank 8 first, files a to h.
        Square::new(u32::from((7 - n / 8) * 8 + n % 8))
    }

    /// The field that is `sq` with the board lying `orientation`.
    pub fn of(sq: Square, orientation: Orientation) -> Field {
        let i = u8::from(sq);
        let n = (7 - i / 8) * 8 + i % 8;
        Field(match orientation {
            Orientation::Normal => n,
            Orientation::Rotated => 63 - n,
        })
    }

    /// All 64, in order.
    pub fn all() -> impl Iterator<Item = Field> {
        (0..64).map(Field)
    }
}

/// What stands on each square, by square (`a1` = 0 … `h8` = 63, as
/// shakmaty counts), whatever way the board lies.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement(pub [Occupant; 64]);

impl Default for Placement {
    fn default() -> Placement {
        Placement([Occupant::Empty; 64])
    }
}

impl Placement {
    /// The pieces of a chess position, nothing else.
    pub fn from_board(board: &shakmaty::Board) -> Placement {
        let mut p = Placement::default();
        for (sq, piece) in board.iter() {
            p.0[usize::from(sq)] = Occupant::Piece(piece);
        }
        p
    }

    /// The standard starting position.
    pub fn start() -> Placement {
        Placement::from_board(&shakmaty::Board::new())
    }

    /// What stands on `sq`.
    pub fn get(&self, sq: Square) -> Occupant {
        self.0[usize::from(sq)]
    }

    /// Puts `occupant` on `sq`.
    pub fn set(&mut self, sq: Square, occupant: Occupant) {
        self.0[usize::from(sq)] = occupant;
    }

    /// The chess pieces as a shakmaty board; magic pieces are left out.
    pub fn board(&self) -> shakmaty::Board {
        let mut b = shakmaty::Board::empty();
        for sq in Square::ALL {
            if let Some(piece) = self.get(sq).piece() {
                b.set_piece_at(sq, piece);
            }
        }
        b
    }

    /// The squares where something stands (a magic piece too).
    pub fn occupied(&self) -> shakmaty::Bitboard {
        Square::ALL.into_iter().filter(|&sq| self.get(sq) != Occupant::Empty).collect()
    }

    /// The squares whose occupant differs from `other`'s.
    pub fn diff<'a>(&'a self, other: &'a Placement) -> impl Iterator<Item = Square> + 'a {
        Square::ALL.into_iter().filter(|sq| self.get(*sq) != other.get(*sq))
    }

    /// The same pieces seen from the other side of the board.
    pub fn rotated(&self) -> Placement {
        let mut p = Placement::default();
        for sq in Square::ALL {
            p.set(sq.flip_vertical().flip_horizontal(), self.get(sq));
        }
        p
    }

    /// The field codes in field order, as a board dump carries them.
    pub fn fields(&self, orientation: Orientation) -> [Occupant; 64] {
        let mut out = [Occupant::Empty; 64];
        for field in Field::all() {
            out[usize::from(field.index())] = self.get(field.square(orientation));
        }
        out
    }

    /// From field codes in field order.
    pub fn from_fields(fields: &[Occupant; 64], orientation: Orientation) -> Placement {
        let mut p = Placement::default();
        for field in Field::all() {
            p.set(field.square(orientation), fields[usize::from(field.index())]);
        }
        p
    }
}

impl fmt::Debug for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Placement(\"{self}\")")
    }
}

impl fmt::Display for Placement {
    /// Rank 8 to rank 1, `/` between ranks, one character a square.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            for file in 0..8 {
                write!(f, "{}", self.0[rank * 8 + file])?;
            }
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_codes_follow_dgtbrd_h() {
        let expect = "PRNBKQprnbkq";
        for (code, c) in (1..=12).zip(expect.chars()) {
            let occupant = Occupant::from_code(code).unwrap();
            assert_eq!(occupant.to_string(), c.to_string(), "code {code}");
            assert_eq!(occupant.code(), code);
        }
        assert_eq!(Occupant::from_code(0), Some(Occupant::Empty));
        assert_eq!(Occupant::from_code(14), Some(Occupant::Special(Special::WhiteWins)));
        assert_eq!(Occupant::from_code(16), None);
        for code in 13..=15 {
            assert_eq!(Occupant::from_code(code).unwrap().code(), code);
        }
    }

    #[test]
    fn field_zero_is_a8_and_57_is_the_black_edge_field_by_the_connector() {
        assert_eq!(Field(0).square(Orientation::Normal), Square::A8);
        assert_eq!(Field(7).square(Orientation::Normal), Square::H8);
        assert_eq!(Field(8).square(Orientation::Normal), Square::A7);
        assert_eq!(Field(63).square(Orientation::Normal), Square::H1);
        assert_eq!(Field(57).square(Orientation::Normal), Square::B1);
        assert_eq!(Field(0).square(Orientation::Rotated), Square::H1);
        for o in [Orientation::Normal, Orientation::Rotated] {
            for f in Field::all() {
                assert_eq!(Field::of(f.square(o), o), f);
            }
        }
    }

    #[test]
    fn placements_print_like_fen_boards() {
        assert_eq!(
            Placement::start().to_string(),
            "rnbqkbnr/pppppppp/......../......../......../......../PPPPPPPP/RNBQKBNR"
        );
        let fields = Placement::start().fields(Orientation::Rotated);
        assert_eq!(fields[0], Occupant::from_code(2).unwrap(), "a rotated board has White's h1 rook at field 0");
        assert_eq!(Placement::from_fields(&fields, Orientation::Rotated), Placement::start());
        assert_eq!(Placement::start().rotated().rotated(), Placement::start());
    }
}
