//! Pure: what a board's config says of its players beyond their names —
//! FIDE ID, title and rating — and the PGN tags that carry them, which
//! broadcasts read (Lichess's finds a player by FIDE ID).

use serde::{Deserialize, Serialize};
use shakmaty::Color;

/// The largest FIDE ID taken (they have at most nine digits).
pub const MAX_FIDE_ID: u32 = 999_999_999;
/// The highest rating taken: above any player's.
pub const MAX_ELO: u16 = 3500;

/// A title FIDE awards (the Handbook's B.01, "Title regulations").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

/// A player's `…Title`, `…Elo` and `…FideId` tags, each only when known.
pub(crate) fn pgn_tags(
    side: Color,
    title: Option<Title>,
    elo: Option<u16>,
    fide_id: Option<u32>,
) -> impl Iterator<Item = (&'static str, String)> {
    let [title_tag, elo_tag, id_tag] = match side {
        Color::White => ["WhiteTitle", "WhiteElo", "WhiteFideId"],
        Color::Black => ["BlackTitle", "BlackElo", "BlackFideId"],
    };
    [
        title.map(|t| (title_tag, t.as_str().to_string())),
        elo.map(|e| (elo_tag, e.to_string())),
        fide_id.map(|id| (id_tag, id.to_string())),
    ]
    .into_iter()
    .flatten()
}
