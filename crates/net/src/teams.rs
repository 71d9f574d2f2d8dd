//! Team matches: boards grouped into two teams (four boards a side in a
//! school match), board points (1, ½, 0) and the match score.
//!
//! A match lists boards, but scores games: the two boards of a pair (one
//! game on two boards, each player at their own) are one game, and one of
//! the match's boards however many of its boards the list names.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use tactus_trace::GameResult;

use crate::wire::{check_name, opt_result};

/// A match between two teams, as configured for a hall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeamMatch {
    pub name: String,
    pub home: Team,
    pub away: Team,
    /// Which team has White on boards 1, 3, … (the other has White on 2, 4, …).
    pub white_on_odd_boards_for: HomeAway,
}

/// A team and the boards of the match, board 1 first. Both teams of a match
/// play on the same boards: one of the two lists may be left empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Team {
    pub name: String,
    #[serde(default)]
    pub boards: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HomeAway {
    Home,
    Away,
}

/// A board's place in its match, for the PGN tags and the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoardTeams {
    #[serde(rename = "match")]
    pub match_name: String,
    /// 1 = top board.
    pub board: u32,
    pub white_team: String,
    pub black_team: String,
    /// The match score so far, as the `MatchScore` tag gives it: `Home 2.5 - 1.5 Away`.
    pub score_text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TeamScore {
    pub name: String,
    /// Board points: 1 a win, 0.5 a draw.
    pub points: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoardScore {
    pub board: u32,
    pub id: String,
    pub white_team: String,
    pub black_team: String,
    #[serde(with = "opt_result")]
    pub result: Option<GameResult>,
    /// `None` while the game is in progress.
    pub home_points: Option<f64>,
    pub away_points: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatchScore {
    pub name: String,
    pub home: TeamScore,
    pub away: TeamScore,
    pub boards: Vec<BoardScore>,
    /// Every game of the match has a result.
    pub finished: bool,
}

/// Half points for (White, Black).
fn half_points(result: GameResult) -> (u32, u32) {
    match result {
        GameResult::WhiteWins => (2, 0),
        GameResult::BlackWins => (0, 2),
        GameResult::Draw => (1, 1),
    }
}

fn points_text(half: u32) -> String {
    if half.is_multiple_of(2) { (half / 2).to_string() } else { format!("{}.5", half / 2) }
}

/// What a match needs of the hall it is played in.
/// A team match that makes no sense, named.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    #[error("team match {name:?}: no boards (list them under home.boards)")]
    NoBoards { name: String },
    #[error("team match {name:?}: home and away list different boards")]
    BoardsDiffer { name: String },
    #[error("team match {name:?}: board {board:?}: use the board's id (letters, digits, '-', '_')")]
    NotAnId { name: String, board: String },
    #[error("team match {name:?}: board {board:?} is listed twice")]
    Twice { name: String, board: String },
}

pub trait Games {
    /// The game a listed board plays: its own, or its pair's.
    fn game_of<'a>(&'a self, board: &'a str) -> Cow<'a, str>;
    /// The game's result, once it has one.
    fn result(&self, game: &str) -> Option<GameResult>;
}

impl TeamMatch {
    /// The match's boards as listed, board 1 first.
    pub fn boards(&self) -> &[String] {
        if self.home.boards.is_empty() { &self.away.boards } else { &self.home.boards }
    }

    /// Whether the configuration makes sense: some boards, each once, and
    /// the same boards for both teams when both list them.
    pub fn check(&self) -> Result<(), MatchError> {
        let name = || self.name.clone();
        let boards = self.boards();
        if boards.is_empty() {
            return Err(MatchError::NoBoards { name: name() });
        }
        if !self.home.boards.is_empty() && !self.away.boards.is_empty() && self.home.boards != self.away.boards {
            return Err(MatchError::BoardsDiffer { name: name() });
        }
        for (i, b) in boards.iter().enumerate() {
            if check_name("board", b).is_err() {
                return Err(MatchError::NotAnId { name: name(), board: b.clone() });
            }
            if boards[..i].contains(b) {
                return Err(MatchError::Twice { name: name(), board: b.clone() });
            }
        }
        Ok(())
    }

    fn home_white(&self, number: u32) -> bool {
        (number % 2 == 1) == (self.white_on_odd_boards_for == HomeAway::Home)
    }

    /// The match's games, numbered from board 1 in the order listed: a
    /// game the list names twice (both boards of a pair) is numbered once,
    /// where it is first named.
    pub fn games(&self, hall: &impl Games) -> Vec<(u32, String)> {
        let mut games: Vec<(u32, String)> = Vec::with_capacity(self.boards().len());
        for board in self.boards() {
            let game = hall.game_of(board);
            if !games.iter().any(|(_, g)| *g == *game) {
                games.push((games.len() as u32 + 1, game.into_owned()));
            }
        }
        games
    }

    /// Half points (home, away) so far, from each game's result.
    fn half_totals(&self, games: &[(u32, String)], hall: &impl Games) -> (u32, u32) {
        let mut totals = (0, 0);
        for (number, id) in games {
            if let Some((w, b)) = hall.result(id).map(half_points) {
                let (h, a) = if self.home_white(*number) { (w, b) } else { (b, w) };
                totals.0 += h;
                totals.1 += a;
            }
        }
        totals
    }

    fn teams_on(&self, number: u32) -> (String, String) {
        if self.home_white(number) {
            (self.home.name.clone(), self.away.name.clone())
        } else {
            (self.away.name.clone(), self.home.name.clone())
        }
    }

    /// The place of `game` (a board's, or a pair's) in this match.
    pub fn board_teams(&self, game: &str, hall: &impl Games) -> Option<BoardTeams> {
        let games = self.games(hall);
        let &(number, _) = games.iter().find(|(_, g)| g == game)?;
        let (white_team, black_team) = self.teams_on(number);
        let (home, away) = self.half_totals(&games, hall);
        let score_text = format!("{} {} - {} {}", self.home.name, points_text(home), points_text(away), self.away.name);
        Some(BoardTeams { match_name: self.name.clone(), board: number, white_team, black_team, score_text })
    }

    /// Board points and the match score.
    pub fn score(&self, hall: &impl Games) -> MatchScore {
        let games = self.games(hall);
        let mut boards = Vec::with_capacity(games.len());
        for (number, id) in &games {
            let (white_team, black_team) = self.teams_on(*number);
            let game = hall.result(id);
            let (home_points, away_points) = match game.map(half_points) {
                Some((w, b)) if self.home_white(*number) => (Some(f64::from(w) / 2.0), Some(f64::from(b) / 2.0)),
                Some((w, b)) => (Some(f64::from(b) / 2.0), Some(f64::from(w) / 2.0)),
                None => (None, None),
            };
            boards.push(BoardScore {
                board: *number,
                id: id.clone(),
                white_team,
                black_team,
                result: game,
                home_points,
                away_points,
            });
        }
        let (home, away) = self.half_totals(&games, hall);
        MatchScore {
            name: self.name.clone(),
            home: TeamScore { name: self.home.name.clone(), points: f64::from(home) / 2.0 },
            away: TeamScore { name: self.away.name.clone(), points: f64::from(away) / 2.0 },
            finished: boards.iter().all(|b| b.result.is_some()),
            boards,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn school() -> TeamMatch {
        let boards = ["b1", "b2", "b3", "b4"].map(String::from).to_vec();
        TeamMatch {
            name: "Schools cup".into(),
            home: Team { name: "Oakfield".into(), boards },
            away: Team { name: "Riverside".into(), boards: Vec::new() },
            white_on_odd_boards_for: HomeAway::Home,
        }
    }

    /// Boards, each its own game but those paired, and the results so far.
    struct Hall {
        pairs: Vec<(&'static str, &'static str)>,
        results: Vec<(&'static str, GameResult)>,
    }

    impl Games for Hall {
        fn game_of<'a>(&'a self, board: &'a str) -> Cow<'a, str> {
            match self.pairs.iter().find(|(w, b)| *w == board || *b == board) {
                Some((w, b)) => Cow::Owned(format!("{w}+{b}")),
                None => Cow::Borrowed(board),
            }
        }
        fn result(&self, game: &str) -> Option<GameResult> {
            self.results.iter().find(|(g, _)| *g == game).map(|(_, r)| *r)
        }
    }

    fn results(results: &[(&'static str, GameResult)]) -> Hall {
        Hall { pairs: Vec::new(), results: results.to_vec() }
    }

    #[test]
    fn colours_alternate_from_board_one() {
        let m = school();
        let none = results(&[]);
        let b1 = m.board_teams("b1", &none).unwrap();
        let b2 = m.board_teams("b2", &none).unwrap();
        assert_eq!((b1.board, b1.white_team.as_str(), b1.black_team.as_str()), (1, "Oakfield", "Riverside"));
        assert_eq!((b2.board, b2.white_team.as_str(), b2.black_team.as_str()), (2, "Riverside", "Oakfield"));
        assert_eq!(m.board_teams("b9", &none), None);
        let away_first = TeamMatch { white_on_odd_boards_for: HomeAway::Away, ..m };
        assert_eq!(away_first.board_teams("b1", &none).unwrap().white_team, "Riverside");
    }

    #[test]
    fn board_points_and_match_score() {
        let m = school();
        // b1 home White wins; b2 away White wins; b3 draw; b4 still playing.
        let so_far = results(&[("b1", GameResult::WhiteWins), ("b2", GameResult::WhiteWins), ("b3", GameResult::Draw)]);
        let s = m.score(&so_far);
        assert_eq!((s.home.points, s.away.points), (1.5, 1.5));
        assert!(!s.finished);
        let points: Vec<_> = s.boards.iter().map(|b| (b.home_points, b.away_points)).collect();
        assert_eq!(points, [(Some(1.0), Some(0.0)), (Some(0.0), Some(1.0)), (Some(0.5), Some(0.5)), (None, None)]);
        assert_eq!(m.board_teams("b4", &so_far).unwrap().score_text, "Oakfield 1.5 - 1.5 Riverside");

        let done = m.score(&results(&[
            ("b1", GameResult::WhiteWins),
            ("b2", GameResult::WhiteWins),
            ("b3", GameResult::WhiteWins),
            ("b4", GameResult::BlackWins),
        ]));
        // b4: away has White, so 0-1 is a home win.
        assert_eq!((done.home.points, done.away.points), (3.0, 1.0));
        assert!(done.finished);
    }

    #[test]
    fn a_pair_listed_by_both_its_boards_is_one_board_of_the_match() {
        // The remote school match: each school's four boards, paired.
        let boards = ["x1", "y1", "x2", "y2", "x3", "y3", "x4", "y4"].map(String::from).to_vec();
        let m = TeamMatch { home: Team { name: "Oakfield".into(), boards }, ..school() };
        let hall = Hall {
            pairs: vec![("x1", "y1"), ("y2", "x2"), ("x3", "y3"), ("y4", "x4")],
            results: vec![("x1+y1", GameResult::WhiteWins), ("y2+x2", GameResult::Draw)],
        };
        let s = m.score(&hall);
        let listed: Vec<(u32, &str)> = s.boards.iter().map(|b| (b.board, b.id.as_str())).collect();
        assert_eq!(listed, [(1, "x1+y1"), (2, "y2+x2"), (3, "x3+y3"), (4, "y4+x4")]);
        assert_eq!((s.home.points, s.away.points), (1.5, 0.5), "each game counted once");
        let b2 = m.board_teams("y2+x2", &hall).unwrap();
        assert_eq!((b2.board, b2.score_text.as_str()), (2, "Oakfield 1.5 - 0.5 Riverside"));
        assert_eq!(m.board_teams("x2", &hall), None, "a paired board's game is the pair's");
    }

    #[test]
    fn config_is_checked_and_read_from_json() {
        assert_eq!(school().check(), Ok(()));
        let mut twice = school();
        twice.home.boards[1] = "b1".into();
        assert!(twice.check().unwrap_err().to_string().contains("twice"));
        let mut differ = school();
        differ.away.boards = vec!["x".into()];
        assert!(differ.check().is_err());
        let json = r#"{"name": "M", "home": {"name": "A", "boards": ["1", "2"]}, "away": {"name": "B"},
                       "white_on_odd_boards_for": "away"}"#;
        let m: TeamMatch = serde_json::from_str(json).unwrap();
        assert_eq!(m.boards(), ["1", "2"]);
        assert_eq!(m.white_on_odd_boards_for, HomeAway::Away);
    }
}
