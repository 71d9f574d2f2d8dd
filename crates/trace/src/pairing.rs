//! The round's pairing for one board, as a hall's relay takes it from the
//! pairing program's file (FIDE's TRF) and sends it to the board: who plays
//! White and Black there, in which round and on which board. A `pairing`
//! line of the trace; it decides over the header's players, event and round.

use serde::{Deserialize, Serialize};

use crate::{FieldError, Ms};

/// The largest FIDE ID taken (they have at most nine digits).
pub const MAX_FIDE_ID: u32 = 999_999_999;
/// The highest rating taken: above any player's.
pub const MAX_ELO: u16 = 3500;
/// The longest name taken, in characters (a TRF's field holds 33).
pub const MAX_NAME: usize = 64;
/// The longest tournament name taken, in characters (as long as a relay
/// lets a tag be).
pub const MAX_TOURNAMENT: usize = 200;
/// The highest round and board numbers (a TRF's round columns and
/// starting ranks).
pub const MAX_ROUND: u32 = 999;
pub const MAX_BOARD: u32 = 9999;

/// A title FIDE awards (the Handbook's B.01, "Title regulations").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Title {
    Gm,
    Im,
    Fm,
    Cm,
    Wgm,
    Wim,
    Wfm,
    Wcm,
}

impl Title {
    pub const ALL: [Title; 8] =
        [Title::Gm, Title::Im, Title::Fm, Title::Cm, Title::Wgm, Title::Wim, Title::Wfm, Title::Wcm];

    /// As PGN's `WhiteTitle` and `BlackTitle` write it: `GM`, `WIM`.
    pub fn as_str(self) -> &'static str {
        match self {
            Title::Gm => "GM",
            Title::Im => "IM",
            Title::Fm => "FM",
            Title::Cm => "CM",
            Title::Wgm => "WGM",
            Title::Wim => "WIM",
            Title::Wfm => "WFM",
            Title::Wcm => "WCM",
        }
    }
}

/// A word that is not a FIDE title.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{found:?} is not a FIDE title: one of {}", Title::ALL.map(Title::as_str).join(", "))]
pub struct NotATitle {
    pub found: String,
}

impl std::str::FromStr for Title {
    type Err = NotATitle;

    fn from_str(s: &str) -> Result<Title, NotATitle> {
        Title::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| NotATitle { found: s.to_owned() })
    }
}

/// A federation's three-letter FIDE code (`POL`, `GER`, `FID`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Federation([u8; 3]);

impl Federation {
    pub fn as_str(&self) -> &str {
        // Three ASCII capitals, checked when made.
        std::str::from_utf8(&self.0).unwrap_or("???")
    }
}

/// A word that is not a federation's code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{found:?} is not a federation: FIDE's three letters (POL)")]
pub struct NotAFederation {
    pub found: String,
}

impl std::str::FromStr for Federation {
    type Err = NotAFederation;

    /// Three letters, in either case.
    fn from_str(s: &str) -> Result<Federation, NotAFederation> {
        match s.as_bytes() {
            &[a, b, c] if [a, b, c].iter().all(u8::is_ascii_alphabetic) => {
                Ok(Federation([a, b, c].map(|l| l.to_ascii_uppercase())))
            }
            _ => Err(NotAFederation { found: s.to_owned() }),
        }
    }
}

impl std::fmt::Display for Federation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Federation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Federation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

/// One side's player, as the pairing program names them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    /// "Lastname, Firstname", as the TRF writes it.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<Title>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elo: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fide_id: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub federation: Option<Federation>,
}

/// JSON as the trace writes it: `{"key": value, "key": value}`.
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
}

/// A board's game in a round of a tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pairing {
    /// The tournament (PGN's `Event`; a TRF's `012`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
    pub round: u32,
    pub board: u32,
    pub white: Player,
    pub black: Player,
}

/// A value of a pairing out of its range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PairingError {
    /// `what`: the tournament, or a side's name.
    #[error("{what} is empty")]
    Empty { what: &'static str },
    #[error("{what} has {chars} characters: at most {max}")]
    TooLong { what: &'static str, chars: usize, max: usize },
    #[error("{what} has a control character")]
    Control { what: &'static str },
    #[error("round {0} is out of range: 1 to {MAX_ROUND}")]
    Round(u32),
    #[error("board {0} is out of range: 1 to {MAX_BOARD}")]
    Board(u32),
    #[error("{side}'s rating {elo} is out of range: 1 to {MAX_ELO}")]
    Rating { side: &'static str, elo: u16 },
    #[error("{side}'s FIDE ID {id} is out of range: 1 to {MAX_FIDE_ID}")]
    FideId { side: &'static str, id: u32 },
}

impl Pairing {
    /// Whether every value is in its range (`docs/trace-format.md`): what
    /// is wrong, for the error, when not.
    pub fn check(&self) -> Result<(), PairingError> {
        let text = |what: &'static str, s: &str, max: usize, empty_ok: bool| {
            let chars = s.chars().count();
            if !empty_ok && s.trim().is_empty() {
                Err(PairingError::Empty { what })
            } else if chars > max {
                Err(PairingError::TooLong { what, chars, max })
            } else if s.chars().any(char::is_control) {
                Err(PairingError::Control { what })
            } else {
                Ok(())
            }
        };
        if !(1..=MAX_ROUND).contains(&self.round) {
            return Err(PairingError::Round(self.round));
        }
        if !(1..=MAX_BOARD).contains(&self.board) {
            return Err(PairingError::Board(self.board));
        }
        if let Some(t) = &self.tournament {
            text("the tournament", t, MAX_TOURNAMENT, true)?;
        }
        for (side, name, p) in [("white", "white's name", &self.white), ("black", "black's name", &self.black)] {
            text(name, &p.name, MAX_NAME, false)?;
            if let Some(elo) = p.elo.filter(|e| !(1..=MAX_ELO).contains(e)) {
                return Err(PairingError::Rating { side, elo });
            }
            if let Some(id) = p.fide_id.filter(|id| !(1..=MAX_FIDE_ID).contains(id)) {
                return Err(PairingError::FideId { side, id });
            }
        }
        Ok(())
    }

    /// The pairing's line: `{"t": …, "pairing": {…}}`, spaced as the
    /// trace's other lines are.
    pub(crate) fn write(&self, t: Ms, s: &mut String) {
        use std::fmt::Write as _;
        let mut body = Vec::with_capacity(256);
        // Strings escaped by serde; nothing here fails to serialise.
        let _ = self.serialize(&mut serde_json::Serializer::with_formatter(&mut body, Spaced));
        let _ = write!(s, r#"{{"t": {t}, "pairing": {}}}"#, String::from_utf8_lossy(&body));
    }

    /// From a line's `pairing` object, checked.
    pub(crate) fn read(value: &serde_json::Value) -> Result<Pairing, FieldError> {
        let pairing = Pairing::deserialize(value).map_err(|e| FieldError::NotAPairing(e.to_string()))?;
        pairing.check()?;
        Ok(pairing)
    }
}
