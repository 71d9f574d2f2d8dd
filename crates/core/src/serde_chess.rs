//! JSON forms of shakmaty's types, as the event contract spells them:
//! squares `"e4"`, sides `"white"`, pieces as FEN letters (`"N"`, `"p"`).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serializer};
use shakmaty::{Color, Piece, Role, Square};

fn parse_square<E: serde::de::Error>(s: &str) -> Result<Square, E> {
    Square::from_ascii(s.as_bytes()).map_err(|_| E::custom(format!("not a square: {s:?}")))
}

fn parse_piece<E: serde::de::Error>(s: &str) -> Result<Piece, E> {
    let mut chars = s.chars();
    match (chars.next().and_then(Piece::from_char), chars.next()) {
        (Some(p), None) => Ok(p),
        _ => Err(E::custom(format!("not a piece letter: {s:?}"))),
    }
}

pub fn color_str(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn parse_color<E: serde::de::Error>(s: &str) -> Result<Color, E> {
    match s {
        "white" => Ok(Color::White),
        "black" => Ok(Color::Black),
        _ => Err(E::custom(format!("not a side: {s:?}"))),
    }
}

pub mod square {
    use super::*;
    pub fn serialize<S: Serializer>(sq: &Square, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(sq)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Square, D::Error> {
        parse_square(&String::deserialize(d)?)
    }
}

pub mod opt_square {
    use super::*;
    pub fn serialize<S: Serializer>(sq: &Option<Square>, s: S) -> Result<S::Ok, S::Error> {
        match sq {
            Some(sq) => s.collect_str(sq),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Square>, D::Error> {
        Option::<String>::deserialize(d)?.map(|s| parse_square(&s)).transpose()
    }
}

pub mod squares {
    use super::*;
    use serde::ser::SerializeSeq;
    pub fn serialize<S: Serializer>(sqs: &[Square], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(sqs.len()))?;
        for sq in sqs {
            seq.serialize_element(&sq.to_string())?;
        }
        seq.end()
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Square>, D::Error> {
        Vec::<String>::deserialize(d)?.iter().map(|s| parse_square(s)).collect()
    }
}

pub mod opt_squares {
    use super::*;
    pub fn serialize<S: Serializer>(sqs: &Option<Vec<Square>>, s: S) -> Result<S::Ok, S::Error> {
        match sqs {
            Some(sqs) => super::squares::serialize(sqs, s),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<Square>>, D::Error> {
        Option::<Vec<String>>::deserialize(d)?.map(|v| v.iter().map(|s| parse_square(s)).collect()).transpose()
    }
}

pub mod color {
    use super::*;
    pub fn serialize<S: Serializer>(c: &Color, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(color_str(*c))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        parse_color(&String::deserialize(d)?)
    }
}

pub mod opt_color {
    use super::*;
    pub fn serialize<S: Serializer>(c: &Option<Color>, s: S) -> Result<S::Ok, S::Error> {
        match c {
            Some(c) => s.serialize_str(color_str(*c)),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Color>, D::Error> {
        Option::<String>::deserialize(d)?.map(|s| parse_color(&s)).transpose()
    }
}

pub mod piece {
    use super::*;
    pub fn serialize<S: Serializer>(p: &Piece, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_char(p.char())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Piece, D::Error> {
        parse_piece(&String::deserialize(d)?)
    }
}

pub mod opt_piece {
    use super::*;
    pub fn serialize<S: Serializer>(p: &Option<Piece>, s: S) -> Result<S::Ok, S::Error> {
        match p {
            Some(p) => s.serialize_char(p.char()),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Piece>, D::Error> {
        Option::<String>::deserialize(d)?.map(|s| parse_piece(&s)).transpose()
    }
}

pub mod role {
    use super::*;
    pub fn serialize<S: Serializer>(r: &Role, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_char(r.char())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Role, D::Error> {
        opt_role::deserialize(d)?.ok_or_else(|| D::Error::custom("a piece letter"))
    }
}

pub mod opt_role {
    use super::*;
    pub fn serialize<S: Serializer>(r: &Option<Role>, s: S) -> Result<S::Ok, S::Error> {
        match r {
            Some(r) => s.serialize_char(r.char()),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Role>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(s) => {
                let mut chars = s.chars();
                match (chars.next().and_then(Role::from_char), chars.next()) {
                    (Some(r), None) => Ok(Some(r)),
                    _ => Err(D::Error::custom(format!("not a piece letter: {s:?}"))),
                }
            }
        }
    }
}

/// A rank as its number, 1 to 8.
pub mod rank {
    use super::*;
    use shakmaty::Rank;
    pub fn serialize<S: Serializer>(r: &Rank, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(r.to_u32() + 1)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Rank, D::Error> {
        let n = u32::deserialize(d)?;
        match n {
            1..=8 => Ok(Rank::new(n - 1)),
            _ => Err(D::Error::custom(format!("not a rank (1 to 8): {n}"))),
        }
    }
}

/// A file as its letter, `"a"` to `"h"`.
pub mod file {
    use super::*;
    use shakmaty::File;
    pub fn serialize<S: Serializer>(f: &File, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_char(f.char())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<File, D::Error> {
        let text = String::deserialize(d)?;
        match text.as_bytes() {
            [c @ b'a'..=b'h'] => Ok(File::new(u32::from(c - b'a'))),
            _ => Err(D::Error::custom(format!("not a file (a to h): {text:?}"))),
        }
    }
}
