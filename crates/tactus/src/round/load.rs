//! A round read from the pairing program's file: its boards in FIDE's
//! order, each with the pairing its board is told. Pure; every error names
//! the file, the line and the column.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tactus_trace::{MAX_ELO, MAX_FIDE_ID, MAX_TOURNAMENT, Pairing, PairingError, Player};
use tactus_trf::{Trf, TrfError, player::round_column};

/// A round's file that cannot be played, naming the file (and the line and
/// column where it can).
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{}: cannot read: {source}", file.display())]
    Read { file: PathBuf, source: std::io::Error },
    #[error("{}: {source}", file.display())]
    Trf { file: PathBuf, source: TrfError },
    #[error("{}: line {line}, column {column}: {refusal}", file.display())]
    Refused { file: PathBuf, line: usize, column: usize, refusal: Refusal },
}

/// What a well-formed file holds that the hall cannot play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("round {round} has {boards} boards: board {board} is beyond the hall's {hall_boards} (--max-boards)")]
    BeyondTheHall { round: u32, boards: usize, board: u32, hall_boards: usize },
    #[error("the tournament's name has {0} characters: at most {MAX_TOURNAMENT}")]
    TournamentName(usize),
    #[error("rating {0} is above any player's ({MAX_ELO})")]
    Rating(u16),
    #[error("FIDE number {0} is longer than a FIDE ID (nine digits)")]
    FideId(u64),
    #[error("board {board}: {error}")]
    Pairing { board: u32, error: PairingError },
}

/// A round, read.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub file: PathBuf,
    pub trf: Trf,
    pub round: tactus_trf::Round,
    /// Each board's pairing, by its number.
    pub pairings: BTreeMap<u32, Pairing>,
}

/// Reads round `number` of a file's bytes for a hall of at most
/// `hall_boards` boards.
pub fn load(file: &Path, bytes: &[u8], number: u32, hall_boards: usize) -> Result<Loaded, FileError> {
    let at = |line: usize, column: usize, refusal: Refusal| FileError::Refused {
        file: file.to_path_buf(),
        line,
        column,
        refusal,
    };
    let trf = Trf::parse(bytes).map_err(|source| FileError::Trf { file: file.to_path_buf(), source })?;
    let round = trf.round(number).map_err(|source| FileError::Trf { file: file.to_path_buf(), source })?;
    if let Some(beyond) = round.boards.get(hall_boards) {
        let line = trf.player(beyond.white).map_or(1, |p| p.line);
        return Err(at(
            line,
            round_column(number),
            Refusal::BeyondTheHall { round: number, boards: round.boards.len(), board: beyond.number, hall_boards },
        ));
    }
    if let (Some(name), Some(line)) = (trf.tournament(), trf.tournament_line()) {
        let chars = name.chars().count();
        if chars > MAX_TOURNAMENT {
            return Err(at(line, 5, Refusal::TournamentName(chars)));
        }
    }
    let player = |rank: u16| -> Result<Player, FileError> {
        let p = trf.player(rank).expect("a round's players are the file's");
        let elo = match p.rating {
            Some(r) if r > MAX_ELO => {
                return Err(at(p.line, 49, Refusal::Rating(r)));
            }
            r => r,
        };
        let fide_id = match p.fide_id {
            Some(id) => Some(
                u32::try_from(id)
                    .ok()
                    .filter(|&id| id <= MAX_FIDE_ID)
                    .ok_or_else(|| at(p.line, 58, Refusal::FideId(id)))?,
            ),
            None => None,
        };
        Ok(Player {
            name: p.name.clone(),
            title: p.title.and_then(|t| t.as_str().parse().ok()),
            elo,
            fide_id,
            federation: p.federation.as_deref().and_then(|f| f.parse().ok()),
        })
    };
    let mut pairings = BTreeMap::new();
    for b in &round.boards {
        let pairing = Pairing {
            tournament: trf.tournament().map(str::to_string),
            round: number,
            board: b.number,
            white: player(b.white)?,
            black: player(b.black)?,
        };
        pairing.check().map_err(|error| {
            let line = trf.player(b.white).map_or(1, |p| p.line);
            at(line, 15, Refusal::Pairing { board: b.number, error })
        })?;
        pairings.insert(b.number, pairing);
    }
    Ok(Loaded { file: file.to_path_buf(), trf, round, pairings })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str) -> Vec<u8> {
        std::fs::read(format!("{}/../trf/tests/files/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    #[test]
    fn each_board_gets_its_pairing() {
        let l = load(Path::new("open.trf"), &file("open-round1.trf"), 1, 256).unwrap();
        assert_eq!(l.pairings.len(), 4);
        let p = &l.pairings[&2];
        assert_eq!((p.round, p.board, p.tournament.as_deref()), (1, 2, Some("Hall Open 2025")));
        assert_eq!(
            (p.white.name.as_str(), p.white.title.map(|t| t.as_str()), p.white.elo),
            ("Novak, Petr", Some("CM"), Some(2200))
        );
        assert_eq!((p.black.name.as_str(), p.black.fide_id), ("Kowalczyk, Irina", Some(1_120_000)));
        assert_eq!(p.black.federation.map(|f| f.to_string()).as_deref(), Some("POL"));
    }

    #[test]
    fn a_round_larger_than_the_hall_is_refused_naming_the_board() {
        let e = load(Path::new("open.trf"), &file("open-round1.trf"), 1, 3).unwrap_err().to_string();
        assert_eq!(
            e,
            "open.trf: line 20, column 92: round 1 has 4 boards: board 4 is beyond the hall's 3 (--max-boards)"
        );
    }

    #[test]
    fn what_a_pairing_cannot_carry_is_refused_naming_the_field() {
        let text = String::from_utf8(file("open-round1.trf")).unwrap();
        let e = load(Path::new("x.trf"), text.replace("    4100018", " 1234567890").as_bytes(), 1, 256)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.trf: line 12, column 58: FIDE number 1234567890"), "{e}");
        let e = load(Path::new("x.trf"), text.replace(" 2601 RUS", " 3601 RUS").as_bytes(), 1, 256)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.trf: line 12, column 49: rating 3601"), "{e}");
        let e = load(Path::new("x.trf"), &file("open-round1.trf"), 2, 256).unwrap_err().to_string();
        assert!(e.starts_with("x.trf: line 12, column 102: round 2 is not paired"), "{e}");
    }
}
