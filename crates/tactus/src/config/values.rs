//! The values of the file that are words: each parsed into its type once,
//! here, by the file (serde) and the flags (clap) alike.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer};
use tactus_clock::TimeControl;

/// A time control in PGN `TimeControl` syntax (extended), checked; `-` for
/// no clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeControlText {
    text: String,
    clock: Option<TimeControl>,
}

/// A time control the game cannot be played with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    #[error(
        "{0:?} starts the clocks at 0:00, so White's flag falls before the first move: give a start time (\"300\" is five minutes), or \"-\" for no clock"
    )]
    NoTimeAtStart(String),
    #[error(transparent)]
    Unreadable(tactus_clock::ParseError),
}

impl TimeControlText {
    /// As written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The clock; none for a game without one.
    pub fn clock(&self) -> Option<&TimeControl> {
        self.clock.as_ref()
    }
}

impl Default for TimeControlText {
    /// FIDE's standard play: 90 minutes and 30 s a move.
    fn default() -> Self {
        "5400+30".parse().expect("a time control")
    }
}

impl FromStr for TimeControlText {
    type Err = TimeControlError;
    fn from_str(s: &str) -> Result<Self, TimeControlError> {
        match TimeControl::parse(s) {
            Err(e) if e.kind == tactus_clock::ParseErrorKind::NoTimeAtStart => {
                Err(TimeControlError::NoTimeAtStart(s.to_owned()))
            }
            Err(e) => Err(TimeControlError::Unreadable(e)),
            Ok(clock) => Ok(TimeControlText { text: s.to_owned(), clock }),
        }
    }
}

/// A hall's or a board's name on the broker (and in URLs and file names):
/// letters, digits, `-`, `_`, at most 64 (`tactus_net::check_name`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PlainName(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a plain name: letters, digits, '-' or '_', at most 64 (it names MQTT topics and URLs)")]
pub struct NotPlain(String);

impl PlainName {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// This machine's host name, up to its first dot; `board` when it is
    /// no plain name.
    fn of_host() -> PlainName {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        PlainName::from_host_name(&host)
    }

    fn from_host_name(host: &str) -> PlainName {
        let short = host.trim().split('.').next().unwrap_or_default();
        short.parse().unwrap_or_else(|_| PlainName("board".into()))
    }
}

impl FromStr for PlainName {
    type Err = NotPlain;
    fn from_str(s: &str) -> Result<PlainName, NotPlain> {
        tactus_net::check_name("name", s).map(|()| PlainName(s.to_owned())).map_err(|_| NotPlain(s.to_owned()))
    }
}

impl fmt::Display for PlainName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for PlainName {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

/// A plain name, or `""` for none: the file's way to leave a name out.
pub(super) fn plain_name_or_empty<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PlainName>, D::Error> {
    let name = String::deserialize(d)?;
    if name.is_empty() { Ok(None) } else { name.parse().map(Some).map_err(serde::de::Error::custom) }
}

/// `[mqtt] board_id`: this board's name — in the hall, on its page and in
/// each game's journal, one name everywhere.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum BoardId {
    /// Not given (`""`): this machine's host name.
    #[default]
    Host,
    /// Given: this name.
    Named(PlainName),
}

impl BoardId {
    /// The board's name.
    pub fn name(&self) -> PlainName {
        match self {
            BoardId::Named(name) => name.clone(),
            BoardId::Host => PlainName::of_host(),
        }
    }
}

impl<'de> Deserialize<'de> for BoardId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<BoardId, D::Error> {
        Ok(plain_name_or_empty(d)?.map_or(BoardId::Host, BoardId::Named))
    }
}

/// Lichess's address: `https://lichess.org`, or a test server's
/// `http://127.0.0.1:PORT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LichessUrl(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?}: Lichess's address starts with https:// (https://lichess.org), or http:// for a test server")]
pub struct NotAnAddress(String);

impl LichessUrl {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for LichessUrl {
    fn default() -> Self {
        LichessUrl(tactus_lichess::http::LICHESS.into())
    }
}

impl FromStr for LichessUrl {
    type Err = NotAnAddress;
    fn from_str(url: &str) -> Result<LichessUrl, NotAnAddress> {
        if url.starts_with("https://") || url.starts_with("http://") {
            Ok(LichessUrl(url.to_owned()))
        } else {
            Err(NotAnAddress(url.to_owned()))
        }
    }
}

impl fmt::Display for LichessUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A string value parsed by its type's `FromStr`; its error is the value's.
pub(super) fn parsed<'de, D: Deserializer<'de>, T: FromStr>(d: D) -> Result<T, D::Error>
where
    T::Err: fmt::Display,
{
    let s = String::deserialize(d)?;
    s.parse().map_err(serde::de::Error::custom)
}

pub(super) fn parsed_opt<'de, D: Deserializer<'de>, T: FromStr>(d: D) -> Result<Option<T>, D::Error>
where
    T::Err: fmt::Display,
{
    parsed(d).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_without_a_name_is_named_after_its_host() {
        assert_eq!(PlainName::from_host_name("pi-b3\n").as_str(), "pi-b3");
        assert_eq!(PlainName::from_host_name("club-pi.local").as_str(), "club-pi", "the short name");
        assert_eq!(PlainName::from_host_name("").as_str(), "board", "no plain host name");
        assert_eq!(BoardId::Named("b1".parse().unwrap()).name().as_str(), "b1");
        assert_eq!(BoardId::Host.name(), PlainName::of_host());
    }

    #[test]
    fn no_clock_is_no_time_control() {
        for none in ["-", "?", ""] {
            assert_eq!(none.parse::<TimeControlText>().unwrap().clock(), None, "{none:?}");
        }
        assert!(TimeControlText::default().clock().is_some());
        assert!(matches!("0+5".parse::<TimeControlText>(), Err(TimeControlError::NoTimeAtStart(_))));
    }
}
