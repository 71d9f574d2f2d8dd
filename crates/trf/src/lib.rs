//! FIDE's Tournament Report File (TRF): what a pairing program (Swiss-Manager,
//! Vega, Tornelo, JaVaFo, bbpPairings) exports and reads back. One job: a
//! round's pairing read from it in FIDE's board order, and the round's
//! results written back into it, every other byte as it was.
//!
//! Written from FIDE's published layouts: TRF-16 (Handbook C.04 Annex 2,
//! "Format of TRF", approved Elista 2015) and TRF-26 (the 2026 version, with
//! its In-tournament Data Exchange), whose player record (`001`) is the
//! same; the board order from C.04.2 (D.9). Facts only; no program's code.
//!
//! - **Lines** end with CR (the layouts' Remark 1), LF or CR LF; a line
//!   may lack its trailing blanks. `###` lines are comments. Records this
//!   reader has no use for (NRS federation lines, `XXR`, `DAT`, …) are
//!   kept as they are.
//! - **Players** ([`Player`]): starting rank, title, name, rating,
//!   federation, FIDE number, points, and each round's opponent, colour and
//!   result ([`player`] has the columns). Letters in either case.
//! - **A round** ([`Trf::round`]): its pairs, checked against each other
//!   (a player paired twice, an opponent not in the file), numbered in
//!   FIDE's board order; byes and absences get no board.
//! - **Results** ([`Trf::with_results`]): `1`, `=`, `0`, `+`/`-` written
//!   in the round's result columns, and each player's points, by the
//!   file's point system (`162`, JaVaFo's `XXS`, or the defaults).
//!
//! Every error ([`TrfError`]) names the line and column.

mod error;
pub mod player;
mod round;
mod scoring;
mod text;
mod write;

use std::collections::HashMap;

pub use error::{Problem, TrfError};
pub use player::{Code, Entry, Player, Title, Warning};
pub use round::{Board, Colour, MAX_ROUND, Round, Unpaired};
pub use scoring::{Points, Scoring};
pub use text::Encoding;
pub use write::{NotAnOutcome, Outcome};

use text::Text;

/// Which layout a file is in. The player records are the same in both;
/// TRF-26 adds tournament records (`142` rounds, `162` point system, `192`
/// pairing system, `240` byes, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Trf16,
    Trf26,
}

/// The records only TRF-26 has.
const TRF26_ONLY: [&str; 22] = [
    "142", "152", "162", "172", "182", "192", "202", "212", "222", "240", "250", "260", "299", "300", "310", "320",
    "330", "352", "362", "801", "802", "XXX",
];

/// A file read.
#[derive(Debug, Clone)]
pub struct Trf {
    text: Text,
    pub(crate) players: Vec<Player>,
    tournament: Option<String>,
    /// The `012` record's line.
    tournament_line: Option<usize>,
    layout: Layout,
    pub(crate) scoring: Scoring,
    warnings: Vec<Warning>,
}

impl Trf {
    /// Reads a file's bytes.
    pub fn parse(bytes: &[u8]) -> Result<Trf, TrfError> {
        let text = Text::new(bytes);
        let mut players: Vec<Player> = Vec::new();
        let mut seen: HashMap<u16, usize> = HashMap::new();
        let mut tournament = None;
        let mut tournament_line = None;
        let mut layout = Layout::Trf16;
        let mut scoring = Scoring::default();
        let mut warnings = Vec::new();
        for line in &text.lines {
            let chars = text.chars(line);
            let number = line.number;
            // Blank lines, and DOS's end-of-file mark.
            if chars.iter().all(|c| c.is_whitespace() || *c == '\u{1a}') {
                continue;
            }
            let code: String = chars.iter().take(3).collect();
            if code == "###" {
                continue;
            }
            if code.chars().count() < 3 || !code.chars().all(|c| c.is_ascii_alphanumeric()) {
                return Err(TrfError::at(number, 1, Problem::NotARecord(code)));
            }
            let from_5 = || chars.iter().skip(4).collect::<String>().trim().to_string();
            match code.as_str() {
                "001" => {
                    let p = Player::read(&chars, number, &mut warnings)?;
                    if let Some(&other) = seen.get(&p.rank) {
                        return Err(TrfError::at(number, 5, Problem::RankTwice(p.rank, other)));
                    }
                    seen.insert(p.rank, number);
                    players.push(p);
                }
                "012" => {
                    tournament = Some(from_5()).filter(|t| !t.is_empty());
                    tournament_line = Some(number);
                }
                "013" | "310" => return Err(TrfError::at(number, 1, Problem::TeamTournament(code))),
                "162" => scoring.read_162(&chars).map_err(|(column, p)| TrfError::at(number, column, p))?,
                "XXS" => scoring.read_xxs(&chars).map_err(|(column, p)| TrfError::at(number, column, p))?,
                _ => {}
            }
            if TRF26_ONLY.contains(&code.as_str()) {
                layout = Layout::Trf26;
            }
        }
        if players.is_empty() {
            return Err(TrfError::at(1, 1, Problem::NoPlayers));
        }
        Ok(Trf { text, players, tournament, tournament_line, layout, scoring, warnings })
    }

    /// The tournament's name (`012`), if the file gives one.
    pub fn tournament(&self) -> Option<&str> {
        self.tournament.as_deref()
    }

    /// The line of the tournament's name (`012`).
    pub fn tournament_line(&self) -> Option<usize> {
        self.tournament_line
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    pub fn encoding(&self) -> Encoding {
        self.text.encoding
    }

    /// The players, in the file's order.
    pub fn players(&self) -> &[Player] {
        &self.players
    }

    /// The player with starting rank `rank`.
    pub fn player(&self, rank: u16) -> Option<&Player> {
        self.players.iter().find(|p| p.rank == rank)
    }

    /// What the reading noticed and let pass (a title it does not know).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The file's bytes, as read.
    pub fn bytes(&self) -> &[u8] {
        &self.text.bytes
    }
}
