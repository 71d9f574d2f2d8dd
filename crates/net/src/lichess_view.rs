//! Pure: the hall as a Lichess broadcast numbers it, and what the arbiter
//! sees of the pushing (`GET /api/lichess`).
//!
//! A broadcast round holds at most 100 games, so each board has a number
//! that says which round shows it (`--lichess-broadcast ROUND=101-200`). A
//! team match's boards are numbered by their places, match after match in
//! the teams file's order; any other board by the number its id ends with
//! (`b12` is 12), so that a number never depends on which boards have been
//! heard from, nor on the relay's restarts. Lichess matches a pushed game
//! to the round's game by its tags, so a game keeps its `Board` tag: the
//! match's board, or else this number. The two boards of a pair are one
//! game (`W+B`) with one number: that of whichever board comes first.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::teams::TeamMatch;

/// What the arbiter's page shows of the pushing to Lichess.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LichessView {
    /// The rounds pushed to, each with its boards: `ID=1-100`.
    pub rounds: Vec<String>,
    /// Pushes made, and the bytes they carried.
    pub pushes: u64,
    pub bytes: u64,
    /// When Lichess last took a push (Unix ms).
    pub last_ok_unix_ms: Option<u64>,
    /// Lichess asked to slow down (HTTP 429): nothing is pushed before this (Unix ms).
    pub paused_until_unix_ms: Option<u64>,
    /// Why pushing fails now, while it does (it is retried).
    pub failing: Option<String>,
    /// Every board heard from, by number; those without one last.
    pub boards: Vec<LichessBoard>,
}

/// A board in the broadcast.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LichessBoard {
    pub board: String,
    pub number: Option<u32>,
    /// The round that shows it, if one does.
    pub round: Option<String>,
    /// Why its game is not on Lichess as it is here: Lichess's error about
    /// it, or what keeps it from being pushed.
    pub error: Option<String>,
}

/// A game's number in the broadcast: its board's place in the team
/// matches, or the number its id ends with. A pair's game (`W+B`) has the
/// smaller of its boards' places, or White's board's number.
pub fn board_number(matches: &[TeamMatch], game: &str) -> Option<u32> {
    if let Some((white, black)) = game.split_once('+') {
        let places = [listed_number(matches, white), listed_number(matches, black)];
        return places.into_iter().flatten().min().or_else(|| id_number(white));
    }
    listed_number(matches, game).or_else(|| id_number(game))
}

/// The board's place in the team matches, match after match.
fn listed_number(matches: &[TeamMatch], board: &str) -> Option<u32> {
    let mut first = 1u32;
    for m in matches {
        if let Some(i) = m.boards().iter().position(|b| b == board) {
            return u32::try_from(i).ok().map(|i| first + i);
        }
        first = first.saturating_add(u32::try_from(m.boards().len()).unwrap_or(u32::MAX));
    }
    None
}

/// The number a board's id ends with (`b12` is 12).
fn id_number(board: &str) -> Option<u32> {
    let digits = board.len() - board.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    board[board.len() - digits..].parse().ok().filter(|&n| n > 0)
}

/// Why a board has no number in the broadcast.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unnumbered {
    #[error("board {board:?} has no number in the broadcast: end its id with one (b12), or list it in a team match")]
    NoNumber { board: String },
    #[error("board {board:?} would be number {number}, which is board {by:?}'s: give them other ids")]
    Taken { board: String, number: u32, by: String },
}

/// The boards' numbers, kept for the relay's life: a board keeps the number
/// it was first given, and no two boards share one.
#[derive(Debug, Default)]
pub struct BoardNumbers {
    of: HashMap<String, u32>,
    boards: BTreeMap<u32, String>,
}

impl BoardNumbers {
    /// The game's number, given now if it has none yet; or why it has none.
    /// A pair's game takes over the number one of its boards had while it
    /// was shown alone (its partner not heard yet).
    pub fn number(&mut self, matches: &[TeamMatch], board: &str) -> Result<u32, Unnumbered> {
        if let Some(&n) = self.of.get(board) {
            return Ok(n);
        }
        let n = board_number(matches, board).ok_or_else(|| Unnumbered::NoNumber { board: board.to_owned() })?;
        let own = |other: &str| board.split_once('+').is_some_and(|(w, b)| other == w || other == b);
        if let Some(other) = self.boards.get(&n).filter(|other| !own(other)) {
            return Err(Unnumbered::Taken { board: board.to_owned(), number: n, by: other.clone() });
        }
        if let Some(alone) = self.boards.insert(n, board.to_string()) {
            self.of.remove(&alone);
        }
        self.of.insert(board.to_string(), n);
        Ok(n)
    }

    /// The board's number, if it has one.
    pub fn of(&self, board: &str) -> Option<u32> {
        self.of.get(board).copied()
    }

    /// The numbered boards, in their order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &str)> {
        self.boards.iter().map(|(&n, b)| (n, b.as_str()))
    }
}

/// The game's PGN with a `Board` tag, added after its other tags when it
/// has none (a board in no team match).
pub fn with_board_tag(pgn: &str, number: u32) -> String {
    let tags_end = pgn.find("\n\n").map_or(pgn.len(), |i| i + 1);
    if pgn[..tags_end].lines().any(|l| l.starts_with("[Board ")) {
        return pgn.to_string();
    }
    let mut out = String::with_capacity(pgn.len() + 16);
    out.push_str(&pgn[..tags_end]);
    out.push_str(&format!("[Board \"{number}\"]\n"));
    out.push_str(&pgn[tags_end..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::teams::{HomeAway, Team};

    fn team_match(name: &str, boards: &[&str]) -> TeamMatch {
        TeamMatch {
            name: name.into(),
            home: Team { name: "Home".into(), boards: boards.iter().map(|b| b.to_string()).collect() },
            away: Team { name: "Away".into(), boards: Vec::new() },
            white_on_odd_boards_for: HomeAway::Home,
        }
    }

    #[test]
    fn a_board_is_numbered_by_its_place_in_the_matches_else_by_its_id() {
        let matches = [team_match("A-B", &["oak-x", "oak-y"]), team_match("C-D", &["c1", "c2", "c3"])];
        let n = |b| board_number(&matches, b);
        assert_eq!((n("oak-x"), n("oak-y"), n("c1"), n("c3")), (Some(1), Some(2), Some(3), Some(5)));
        assert_eq!(
            (n("b12"), n("hall2-b07"), n("b0"), n("alpha"), n("b99999999999")),
            (Some(12), Some(7), None, None, None)
        );
    }

    #[test]
    fn a_board_keeps_its_number_and_no_two_share_one() {
        let matches = [team_match("A-B", &["b1", "b2"])];
        let mut numbers = BoardNumbers::default();
        assert_eq!(numbers.number(&matches, "b2"), Ok(2));
        assert_eq!(numbers.number(&matches, "x7"), Ok(7));
        let e = numbers.number(&matches, "y7").unwrap_err().to_string();
        assert!(e.contains("\"y7\"") && e.contains("\"x7\""), "{e}");
        assert!(numbers.number(&matches, "alpha").unwrap_err().to_string().contains("no number"));
        assert_eq!(numbers.number(&matches, "x7"), Ok(7));
        assert_eq!(numbers.iter().collect::<Vec<_>>(), [(2, "b2"), (7, "x7")]);
    }

    #[test]
    fn a_pair_is_one_game_numbered_by_its_first_board() {
        let matches = [team_match("Schools", &["x1", "y1", "x2", "y2"])];
        assert_eq!(board_number(&matches, "y2+x2"), Some(3), "x2 is listed first");
        assert_eq!(board_number(&[], "b5+b6"), Some(5), "White's board's number");
        let mut numbers = BoardNumbers::default();
        assert_eq!(numbers.number(&matches, "x2"), Ok(3), "shown alone until its partner is heard");
        assert_eq!(numbers.number(&matches, "y2+x2"), Ok(3), "the pair takes its board's number over");
        assert_eq!(numbers.iter().collect::<Vec<_>>(), [(3, "y2+x2")]);
        assert_eq!(numbers.of("x2"), None);
        assert!(numbers.number(&matches, "x2+q9").is_err(), "not from another pair");
    }

    #[test]
    fn a_game_without_a_board_tag_gets_one_after_its_tags() {
        let pgn = "[Event \"?\"]\n[Result \"*\"]\n\n1. e4 *\n\n";
        assert_eq!(with_board_tag(pgn, 12), "[Event \"?\"]\n[Result \"*\"]\n[Board \"12\"]\n\n1. e4 *\n\n");
        let teamed = "[Event \"?\"]\n[Board \"3\"]\n\n*\n\n";
        assert_eq!(with_board_tag(teamed, 12), teamed);
    }
}
