//! What is wrong with one value of a trace line, a header or a typed
//! question: each error names the field and says what it takes. The line's
//! number is added where the line is read ([`crate::TraceError`]).

use crate::pairing::PairingError;
use crate::words::UnknownWord;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    #[error("{key} must be a string, not {found}")]
    NotString { key: &'static str, found: String },
    #[error("{key} must be true or false, not {found}")]
    NotFlag { key: &'static str, found: String },
    /// An input without a field it needs: the input, the field, what it takes.
    #[error("{input} needs \"{key}\": {wants}")]
    Missing { input: &'static str, key: &'static str, wants: String },
    #[error("{key} must be a whole number ≥ 0 ({means}), not {found}")]
    NotWholeNumber { key: &'static str, means: &'static str, found: String },
    /// A number outside its [`crate::range`].
    #[error("{key} {value} is out of range: {lo} to {hi} {means}")]
    OutOfRange { key: &'static str, value: u64, lo: u64, hi: u64, means: &'static str },
    /// A number in its range that its type cannot hold.
    #[error("{key} {value} is out of range")]
    TooLarge { key: &'static str, value: u64 },
    #[error("{key} must be \"white\" or \"black\", not {found:?}")]
    NotSide { key: &'static str, found: String },
    #[error(transparent)]
    Word(#[from] UnknownWord),
    #[error("a pawn promotes to q, r, b or n, not {0:?}")]
    NotPromotion(String),
    #[error("{key} {found:?} is not a move in UCI notation")]
    NotUci { key: &'static str, found: String },
    #[error("{key} {found} is not a whole number")]
    NotInteger { key: &'static str, found: String },
    #[error("a score is cp or mate, not both")]
    TwoScores,
    #[error("pv must be a list of moves, not {0}")]
    PvNotList(String),
    #[error("pv: {0} is not a move in UCI notation")]
    PvNotUci(String),
    #[error("unknown input {0:?}")]
    UnknownInput(String),
    /// A `pairing` that is not one (serde's words).
    #[error("pairing: {0}")]
    NotAPairing(String),
    #[error("pairing: {0}")]
    Pairing(#[from] PairingError),
    /// A question without the field its kind needs (`request rank` without `rank`).
    #[error("request {what} needs \"{key}\"")]
    RequestNeeds { what: String, key: &'static str },
    #[error("a rank is a number 1 to 8, not {0}")]
    RankNotNumber(String),
    /// A typed question that is not one.
    #[error(
        "ask for time, position, last_move, moves_to_control, hint, pieces white|black [k|q|r|b|n|p], \
         rank 1-8, file a-h or square a1-h8"
    )]
    NotAQuestion,
    #[error("request pieces needs a side (and may name a piece: pieces white n)")]
    PiecesNeedSide,
    #[error("request {0} needs which {0} (rank 4, file e, square d5)")]
    NeedsWhich(String),
    #[error("unknown request {found:?} (one of {})", crate::Request::KINDS.join(", "))]
    UnknownRequest { found: String },
    #[error("a piece is one of k, q, r, b, n, p, not {0:?}")]
    NotRole(String),
    #[error("a rank is 1 to 8, not {0:?}")]
    NotRank(String),
    #[error("a file is a to h, not {0:?}")]
    NotFile(String),
    #[error("{0:?} is not a square (a1 … h8)")]
    NotSquare(String),
}
