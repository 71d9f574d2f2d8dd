//! The player section: one `001` record a player, the same in TRF-16 and
//! TRF-26. Columns, 1-based and inclusive as the layout gives them:
//!
//! | columns | field |
//! |---|---|
//! | 1–3 | `001` |
//! | 5–8 | starting rank, 1 to 9999 |
//! | 10 | sex, `m`/`w` |
//! | 11–13 | title: `GM`, `IM`, `WGM`, `FM`, `WIM`, `CM`, `WFM`, `WCM` |
//! | 15–47 | name, "Lastname, Firstname" |
//! | 49–52 | FIDE rating |
//! | 54–56 | federation |
//! | 58–68 | FIDE number |
//! | 70–79 | birth date |
//! | 81–84 | points, `11.5` |
//! | 86–89 | rank |
//! | 92–95, 97, 99 | round 1: the opponent's starting rank (`0000` or blank: none), the colour (`w`, `b`, `-` or blank), the result |
//! | 102–105, 107, 109 | round 2; every round ten columns after the one before |
//!
//! A line may end early (a program that drops trailing blanks): what it
//! lacks is blank. Letters are read in either case.

use crate::error::{Problem, TrfError};
use crate::round::Colour;
use crate::scoring::Points;

/// A title FIDE awards, as the layout's column 11–13 writes it (`GM`), or
/// as older exports do (`g`, `wg`, `m`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Title {
    Gm,
    Im,
    Wgm,
    Fm,
    Wim,
    Cm,
    Wfm,
    Wcm,
}

impl Title {
    pub const ALL: [Title; 8] =
        [Title::Gm, Title::Im, Title::Wgm, Title::Fm, Title::Wim, Title::Cm, Title::Wfm, Title::Wcm];

    /// `GM`, `WIM`, …
    pub fn as_str(self) -> &'static str {
        match self {
            Title::Gm => "GM",
            Title::Im => "IM",
            Title::Wgm => "WGM",
            Title::Fm => "FM",
            Title::Wim => "WIM",
            Title::Cm => "CM",
            Title::Wfm => "WFM",
            Title::Wcm => "WCM",
        }
    }

    /// The older one- and two-letter codes (`g` for GM, `wm` for WIM).
    fn short(self) -> &'static str {
        match self {
            Title::Gm => "g",
            Title::Im => "m",
            Title::Wgm => "wg",
            Title::Fm => "f",
            Title::Wim => "wm",
            Title::Cm => "c",
            Title::Wfm => "wf",
            Title::Wcm => "wc",
        }
    }

    fn read(text: &str) -> Option<Title> {
        Title::ALL.into_iter().find(|t| t.as_str().eq_ignore_ascii_case(text) || t.short().eq_ignore_ascii_case(text))
    }
}

/// A round's result code (column 99, 109, …), read in either case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// `-`: lost by forfeit, the game not played.
    ForfeitLoss,
    /// `+`: won by forfeit.
    ForfeitWin,
    /// `W`, `D`, `L`: the game lasted less than a move (not rated).
    WinUnrated,
    DrawUnrated,
    LossUnrated,
    /// `1`, `=`, `0`: a game played.
    Win,
    Draw,
    Loss,
    /// `H`, `F`: a half-point or full-point bye the player asked for.
    HalfBye,
    FullBye,
    /// `U`: the pairing-allocated bye.
    PairingBye,
    /// `Z`: a known absence (a blank is the same).
    ZeroBye,
}

impl Code {
    pub fn read(c: char) -> Option<Code> {
        Some(match c.to_ascii_uppercase() {
            '-' => Code::ForfeitLoss,
            '+' => Code::ForfeitWin,
            'W' => Code::WinUnrated,
            'D' => Code::DrawUnrated,
            'L' => Code::LossUnrated,
            '1' => Code::Win,
            '=' => Code::Draw,
            '0' => Code::Loss,
            'H' => Code::HalfBye,
            'F' => Code::FullBye,
            'U' => Code::PairingBye,
            'Z' => Code::ZeroBye,
            _ => return None,
        })
    }

    /// As the writer puts it: the layout's own upper case.
    pub fn as_char(self) -> char {
        match self {
            Code::ForfeitLoss => '-',
            Code::ForfeitWin => '+',
            Code::WinUnrated => 'W',
            Code::DrawUnrated => 'D',
            Code::LossUnrated => 'L',
            Code::Win => '1',
            Code::Draw => '=',
            Code::Loss => '0',
            Code::HalfBye => 'H',
            Code::FullBye => 'F',
            Code::PairingBye => 'U',
            Code::ZeroBye => 'Z',
        }
    }

    /// A bye's code: never against an opponent.
    pub fn is_bye(self) -> bool {
        matches!(self, Code::HalfBye | Code::FullBye | Code::PairingBye | Code::ZeroBye)
    }
}

/// One round of a player's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Entry {
    /// The scheduled opponent's starting rank; `None` for `0000` or blank.
    pub opponent: Option<u16>,
    pub colour: Option<Colour>,
    /// `None` for a blank: not played yet when paired, else a known absence.
    pub code: Option<Code>,
}

/// A `001` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    /// The record's line (1-based).
    pub line: usize,
    /// The starting rank: the player's number in every round's columns.
    pub rank: u16,
    pub title: Option<Title>,
    /// As the file writes it: "Lastname, Firstname".
    pub name: String,
    pub rating: Option<u16>,
    /// FIDE's three-letter code, upper case.
    pub federation: Option<String>,
    pub fide_id: Option<u64>,
    /// Columns 81–84; `None` when blank.
    pub points: Option<Points>,
    /// Round 1 first; a line that ends before a round's columns has none.
    pub rounds: Vec<Entry>,
}

/// The first column of round `round`'s block (92, 102, …).
pub fn round_column(round: u32) -> usize {
    92 + 10 * (round as usize - 1)
}

/// A column's character, blank past the line's end.
fn at(line: &[char], column: usize) -> char {
    line.get(column - 1).copied().unwrap_or(' ')
}

/// Columns `from` to `to`, what the line has of them.
fn field(line: &[char], from: usize, to: usize) -> String {
    line.iter().skip(from - 1).take(to + 1 - from).collect()
}

/// A number field: blank (`None`), or digits within `max`.
fn number(
    line: &[char],
    at_line: usize,
    (from, to): (usize, usize),
    name: &'static str,
    max: u64,
) -> Result<Option<u64>, TrfError> {
    let text = field(line, from, to);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    // The first character that is not blank, for the column.
    let column = from + text.chars().take_while(|c| *c == ' ').count();
    if !trimmed.bytes().all(|b| b.is_ascii_digit()) {
        return Err(TrfError::at(at_line, column, Problem::NotANumber { field: name, text: trimmed.to_string() }));
    }
    let value: u64 = trimmed.parse().unwrap_or(u64::MAX);
    if value > max {
        let range = if max == 9999 { "0 to 9999" } else { "at most eleven digits" };
        return Err(TrfError::at(at_line, column, Problem::OutOfRange { field: name, value, range }));
    }
    Ok(Some(value))
}

/// What a record's reading noticed without refusing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub line: usize,
    pub column: usize,
    pub text: String,
}

impl Player {
    /// Reads a `001` record (`line` is its number, for errors).
    pub(crate) fn read(line: &[char], at_line: usize, warnings: &mut Vec<Warning>) -> Result<Player, TrfError> {
        let err = |column, problem| TrfError::at(at_line, column, problem);
        let rank = match number(line, at_line, (5, 8), "the starting rank", 9999)? {
            Some(r) if r > 0 => r as u16,
            _ => {
                let text = field(line, 5, 8).trim().to_string();
                return Err(err(5, Problem::NotANumber { field: "the starting rank (1 to 9999)", text }));
            }
        };
        let title_text = field(line, 11, 13);
        let title = match title_text.trim() {
            "" => None,
            text => {
                let title = Title::read(text);
                if title.is_none() {
                    warnings.push(Warning {
                        line: at_line,
                        column: 11,
                        text: format!("{text:?} is not a FIDE title: the player is taken as untitled"),
                    });
                }
                title
            }
        };
        if at(line, 48) != ' ' {
            return Err(err(48, Problem::NameTooLong { name: field(line, 15, 47).trim().to_string() }));
        }
        let name = field(line, 15, 47).trim().to_string();
        if name.is_empty() {
            return Err(err(15, Problem::NoName));
        }
        let rating = number(line, at_line, (49, 52), "the FIDE rating", 9999)?.filter(|&r| r > 0).map(|r| r as u16);
        let federation = match field(line, 54, 56).trim() {
            "" => None,
            text if text.len() == 3 && text.bytes().all(|b| b.is_ascii_alphabetic()) => Some(text.to_ascii_uppercase()),
            text => {
                return Err(err(54, Problem::NotAFederation { field: "the federation", text: text.to_string() }));
            }
        };
        let fide_id = number(line, at_line, (58, 68), "the FIDE number", 99_999_999_999)?.filter(|&id| id > 0);
        let points_text = field(line, 81, 84);
        let points = match points_text.trim() {
            "" => None,
            text => Some(Points::parse(text).ok_or_else(|| {
                err(81, Problem::NotANumber { field: "the points (the format 11.5)", text: text.to_string() })
            })?),
        };
        let mut rounds = Vec::new();
        let mut round = 1u32;
        while round_column(round) <= line.len() {
            rounds.push(read_round(line, at_line, round)?);
            round += 1;
        }
        Ok(Player { line: at_line, rank, title, name, rating, federation, fide_id, points, rounds })
    }
}

/// One round's block: opponent, colour, result, and the blanks between.
fn read_round(line: &[char], at_line: usize, round: u32) -> Result<Entry, TrfError> {
    let first = round_column(round);
    let err = |column, problem| TrfError::at(at_line, column, problem);
    for column in [first + 4, first + 6, first + 8, first + 9] {
        let found = at(line, column);
        if found != ' ' {
            return Err(err(column, Problem::NotBlank { round, found }));
        }
    }
    let opponent = number(line, at_line, (first, first + 3), "the opponent's starting rank", 9999)?
        .filter(|&o| o > 0)
        .map(|o| o as u16);
    let colour = match at(line, first + 5) {
        'w' | 'W' => Some(Colour::White),
        'b' | 'B' => Some(Colour::Black),
        '-' | ' ' => None,
        found => return Err(err(first + 5, Problem::NotAColour { round, found })),
    };
    let code = match at(line, first + 7) {
        ' ' => None,
        found => Some(Code::read(found).ok_or_else(|| err(first + 7, Problem::NotAResult { round, found }))?),
    };
    Ok(Entry { opponent, colour, code })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Player, TrfError> {
        let chars: Vec<char> = text.chars().collect();
        Player::read(&chars, 7, &mut Vec::new())
    }

    // Column ruler, as TRF-26's examples have one:
    //        0        1         2         3         4         5         6         7         8         9         0
    //        1234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789
    const ONE: &str = "001    3 wWGM Kowalczyk, Irina                  2312 POL     1120000 1999/04/12  1.5    2     5 b 1    12 w    ";

    #[test]
    fn a_record_field_by_field() {
        let p = read(ONE).unwrap();
        assert_eq!((p.line, p.rank, p.title, p.name.as_str()), (7, 3, Some(Title::Wgm), "Kowalczyk, Irina"));
        assert_eq!((p.rating, p.federation.as_deref(), p.fide_id), (Some(2312), Some("POL"), Some(1_120_000)));
        assert_eq!(p.points, Some(Points(15)));
        assert_eq!(
            p.rounds,
            [
                Entry { opponent: Some(5), colour: Some(Colour::Black), code: Some(Code::Win) },
                Entry { opponent: Some(12), colour: Some(Colour::White), code: None },
            ]
        );
    }

    #[test]
    fn a_line_may_end_early() {
        let p = read(ONE.trim_end()).unwrap();
        assert_eq!(p.rounds[1], Entry { opponent: Some(12), colour: Some(Colour::White), code: None });
        let p = read("001   12      Volkov, Dmitri").unwrap();
        assert_eq!(
            (p.rank, p.name.as_str(), p.rating, p.points, p.rounds.len()),
            (12, "Volkov, Dmitri", None, None, 0)
        );
    }

    #[test]
    fn older_title_codes_and_lowercase_codes() {
        let p = read(&ONE.replace("WGM", " wg").replace(" 5 b 1", " 5 B 1").replace("12 w  ", "12 w h")).unwrap();
        assert_eq!(p.title, Some(Title::Wgm));
        assert_eq!(p.rounds[0].colour, Some(Colour::Black));
        assert_eq!(p.rounds[1].code, Some(Code::HalfBye));
        let mut warnings = Vec::new();
        let chars: Vec<char> = ONE.replace("WGM", " NM").chars().collect();
        assert_eq!(Player::read(&chars, 7, &mut warnings).unwrap().title, None);
        assert_eq!((warnings[0].line, warnings[0].column), (7, 11));
    }

    #[test]
    fn each_error_names_its_column() {
        let column = |text: String| read(&text).unwrap_err().column;
        assert_eq!(column(ONE.replace("001    3", "001    x")), 8);
        assert_eq!(column(ONE.replace("2312", "23a2")), 49);
        assert_eq!(column(ONE.replace("POL", "P0L")), 54);
        assert_eq!(column(ONE.replace(" 1.5", " 1,5")), 81);
        assert_eq!(column(ONE.replace("5 b 1", "5 x 1")), 97);
        assert_eq!(column(ONE.replace("5 b 1", "5 b 7")), 99);
        assert_eq!(column(ONE.replace("5 b 1", "5 b1 ")), 98);
        // 36 characters where 33 fit: the 34th stands in column 48.
        let long = "Kowalczyk-Wiśniewska, Irina Marianna";
        let e = read(&ONE.replace("Kowalczyk, Irina                 ", long)).unwrap_err();
        assert_eq!(e.column, 48);
        assert_eq!(e.problem, Problem::NameTooLong { name: "Kowalczyk-Wiśniewska, Irina Maria".into() });
        assert!(read("001    0      Nobody").is_err());
        assert_eq!(read("001    4 m").unwrap_err().problem, Problem::NoName);
    }
}
