//! What can be wrong with a file, each naming the line and column where it is.

/// A file that cannot be read as FIDE's TRF, or a round that cannot be
/// taken from it: where (1-based line and column, as the layout counts
/// them) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {problem}")]
pub struct TrfError {
    pub line: usize,
    pub column: usize,
    pub problem: Problem,
}

impl TrfError {
    pub(crate) fn at(line: usize, column: usize, problem: Problem) -> TrfError {
        TrfError { line, column, problem }
    }
}

/// What is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("not a TRF: no player record (a line beginning 001) in it")]
    NoPlayers,
    #[error("not a TRF: {0:?} is not a record's code (three characters: 001, 012, …, or ### for a comment)")]
    NotARecord(String),
    #[error("{field} must be a number, not {text:?}")]
    NotANumber { field: &'static str, text: String },
    #[error("{field} {value} is out of range ({range})")]
    OutOfRange { field: &'static str, value: u64, range: &'static str },
    #[error("the name runs past its field (columns 15–47, 33 characters): {name:?} goes on")]
    NameTooLong { name: String },
    #[error("the name is empty")]
    NoName,
    #[error("{field} {text:?} is not three letters")]
    NotAFederation { field: &'static str, text: String },
    #[error("starting rank {0} is given to two players (the other on line {1})")]
    RankTwice(u16, usize),
    #[error("round {round}: {found:?} where a blank separates the fields")]
    NotBlank { round: u32, found: char },
    #[error("round {round}: {found:?} is not a colour: w, b, or - (or blank) for none")]
    NotAColour { round: u32, found: char },
    #[error("round {round}: {found:?} is not a result: 1 = 0 + - W D L H F U Z (or blank)")]
    NotAResult { round: u32, found: char },
    #[error("round {round}: player {player} is paired with {opponent}, who is not in the file")]
    UnknownOpponent { round: u32, player: u16, opponent: u16 },
    #[error("round {round}: player {player} is paired with themself")]
    PairedWithSelf { round: u32, player: u16 },
    #[error("round {round}: player {player} is paired with {opponent} but has no colour (w or b)")]
    NoColour { round: u32, player: u16, opponent: u16 },
    #[error("round {round}: player {player} is paired twice: with {first} (line {first_line}) and with {second}")]
    PairedTwice { round: u32, player: u16, first: u16, first_line: usize, second: u16 },
    #[error("round {round}: players {player} and {opponent} both have the colour {colour}")]
    SameColour { round: u32, player: u16, opponent: u16, colour: char },
    #[error("round {round}: player {player} has a bye's result ({code}) against an opponent ({opponent})")]
    ByeWithOpponent { round: u32, player: u16, opponent: u16, code: char },
    #[error(
        "round {round}: player {player} is paired with {opponent}, whose record (line {opponent_line}) names no opponent"
    )]
    NotPairedBack { round: u32, player: u16, opponent: u16, opponent_line: usize },
    #[error("round {0} is not paired: no player has an opponent in its columns")]
    RoundNotPaired(u32),
    #[error("round {0}: rounds are numbered from 1 to 999")]
    NoSuchRound(u32),
    #[error("a team tournament (record {0}): its boards follow the teams' matches, which this reader does not pair")]
    TeamTournament(String),
    #[error("{0}")]
    Scoring(String),
    #[error("board {board} is not a board of round {round}")]
    NoSuchBoard { round: u32, board: u32 },
    #[error("player {player}'s points would be {points}, more than the field's four columns hold")]
    PointsTooLarge { player: u16, points: String },
}
