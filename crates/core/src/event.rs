//! What the core tells the world. Every adapter — voice, clock display,
//! journal, web page, MQTT — consumes these; the JSON form (one object per
//! event, `t` and `event` always present) is the contract of
//! `docs/events.md`, which scripts and arbiters rely on.

use serde::{Deserialize, Serialize};
use shakmaty::{Color, File, Piece, Rank, Role, Square};

use crate::serde_chess;
pub use tactus_trace::{GameResult, Ms, OnlineAsk};

/// One event at one instant (ms since the start of the game).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub t: Ms,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// The articles of the FIDE Laws an event rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Article {
    /// Touch-move: the first own piece touched must be moved.
    #[serde(rename = "4.3.1")]
    A4_3_1,
    /// Touch-move: the first opponent piece touched must be captured.
    #[serde(rename = "4.3.2")]
    A4_3_2,
    /// Touch-move: one own and one opponent piece touched.
    #[serde(rename = "4.3.3")]
    A4_3_3,
    /// Rook touched before the king: castling is not allowed on that side.
    #[serde(rename = "4.4.2")]
    A4_4_2,
    /// A piece released on a square cannot be moved to another square.
    #[serde(rename = "4.7")]
    A4_7,
    /// Checkmate.
    #[serde(rename = "5.1.1")]
    A5_1_1,
    /// Resignation.
    #[serde(rename = "5.1.2")]
    A5_1_2,
    /// Stalemate.
    #[serde(rename = "5.2.1")]
    A5_2_1,
    /// Dead position.
    #[serde(rename = "5.2.2")]
    A5_2_2,
    /// Draw by agreement.
    #[serde(rename = "5.2.3")]
    A5_2_3,
    /// The clock: pressing it completes the move.
    #[serde(rename = "6.2.1")]
    A6_2_1,
    /// Flag fall.
    #[serde(rename = "6.9")]
    A6_9,
    /// The arbiter stops or corrects the clock.
    #[serde(rename = "6.11")]
    A6_11,
    /// Displaced pieces.
    #[serde(rename = "7.4.1")]
    A7_4_1,
    /// An illegal move completed.
    #[serde(rename = "7.5.1")]
    A7_5_1,
    /// The clock pressed without a move.
    #[serde(rename = "7.5.3")]
    A7_5_3,
    /// Penalties for illegal moves.
    #[serde(rename = "7.5.5")]
    A7_5_5,
    /// Threefold repetition (a claim).
    #[serde(rename = "9.2")]
    A9_2,
    /// Fifty moves (a claim).
    #[serde(rename = "9.3")]
    A9_3,
    /// An incorrect draw claim.
    #[serde(rename = "9.5.3")]
    A9_5_3,
    /// Fivefold repetition.
    #[serde(rename = "9.6.1")]
    A9_6_1,
    /// Seventy-five moves.
    #[serde(rename = "9.6.2")]
    A9_6_2,
    /// The arbiter decides.
    #[serde(rename = "12")]
    A12,
}

impl Article {
    pub fn as_str(self) -> &'static str {
        match self {
            Article::A4_3_1 => "4.3.1",
            Article::A4_3_2 => "4.3.2",
            Article::A4_3_3 => "4.3.3",
            Article::A4_4_2 => "4.4.2",
            Article::A4_7 => "4.7",
            Article::A5_1_1 => "5.1.1",
            Article::A5_1_2 => "5.1.2",
            Article::A5_2_1 => "5.2.1",
            Article::A5_2_2 => "5.2.2",
            Article::A5_2_3 => "5.2.3",
            Article::A6_2_1 => "6.2.1",
            Article::A6_9 => "6.9",
            Article::A6_11 => "6.11",
            Article::A7_4_1 => "7.4.1",
            Article::A7_5_1 => "7.5.1",
            Article::A7_5_3 => "7.5.3",
            Article::A7_5_5 => "7.5.5",
            Article::A9_2 => "9.2",
            Article::A9_3 => "9.3",
            Article::A9_5_3 => "9.5.3",
            Article::A9_6_1 => "9.6.1",
            Article::A9_6_2 => "9.6.2",
            Article::A12 => "12",
        }
    }
}

/// A move as made on the board, with everything a voice needs to say it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveInfo {
    /// 1 = White's first move.
    pub ply: u32,
    #[serde(with = "serde_chess::color")]
    pub side: Color,
    pub san: String,
    /// UCI; Chess960 castling as king-takes-rook.
    pub uci: String,
    #[serde(with = "serde_chess::piece")]
    pub piece: Piece,
    #[serde(with = "serde_chess::square")]
    pub from: Square,
    #[serde(with = "serde_chess::square")]
    pub to: Square,
    #[serde(with = "serde_chess::opt_piece", default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<Piece>,
    #[serde(with = "serde_chess::opt_role", default, skip_serializing_if = "Option::is_none")]
    pub promotion: Option<Role>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub castle: Option<CastleSide>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub en_passant: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub check: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mate: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CastleSide {
    King,
    Queen,
}

/// A piece standing on a square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placed {
    #[serde(with = "serde_chess::square")]
    pub sq: Square,
    #[serde(with = "serde_chess::piece")]
    pub piece: Piece,
}

/// One step that brings the board back to the game's position: move a piece
/// (`from` and `to`), put one back (`to` only) or take one off (`from` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    #[serde(with = "serde_chess::opt_piece", default, skip_serializing_if = "Option::is_none")]
    pub piece: Option<Piece>,
    #[serde(with = "serde_chess::opt_square", default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Square>,
    #[serde(with = "serde_chess::opt_square", default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Square>,
}

/// The engine's view when it chose: its score from White's point of view
/// (`cp` centipawns, or `mate` in moves, positive for White) and the line it
/// expected, in SAN from its move on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineEval {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
    pub line: Vec<String>,
}

/// What went wrong while the engine's move was carried out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum Slip {
    /// A piece that is not part of the move was lifted from `sq` and is
    /// still in the hand: "not that one"; `instead`, the step expected.
    NotThatOne {
        #[serde(with = "serde_chess::square")]
        sq: Square,
        #[serde(with = "serde_chess::piece")]
        piece: Piece,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        instead: Option<Fix>,
    },
    /// A piece stands on `sq` where it does not belong: it belongs on
    /// `belongs`, or off the board. `piece` is unknown for a piece put on
    /// from outside the board.
    Misplaced {
        #[serde(with = "serde_chess::square")]
        sq: Square,
        #[serde(with = "serde_chess::opt_piece", default, skip_serializing_if = "Option::is_none")]
        piece: Option<Piece>,
        #[serde(with = "serde_chess::opt_square", default, skip_serializing_if = "Option::is_none")]
        belongs: Option<Square>,
    },
    /// `sq` should hold `piece` and is empty.
    Missing {
        #[serde(with = "serde_chess::square")]
        sq: Square,
        #[serde(with = "serde_chess::piece")]
        piece: Piece,
    },
    /// The board shows another legal move of the engine's side, refused.
    OtherMove { san: String, uci: String },
    /// The board holds still on part of the engine's move that reads as a
    /// legal move of its own (castling begun with the rook): `next`, the
    /// step still to do.
    Halfway { next: Fix },
}

/// What the board shows on a square where it differs from the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnBoard {
    Empty,
    Piece(#[serde(with = "serde_chess::piece")] Piece),
    /// A piece that came from outside the board, or whose kind the sensors
    /// cannot tell.
    Unknown,
}

/// Why an input or a question changes nothing now; said, so that the
/// player knows it was heard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotNow {
    /// The last move was asked for before any was played.
    NoMoveYet,
    /// The engine's move is to be carried out on the board first.
    CarryOutFirst,
    /// The engine is on move and has not chosen yet.
    EngineThinking,
    /// A hint was asked for and no engine plays.
    NoEngine,
    /// An illegal move was claimed (A.5.2) and none stands to be claimed.
    NothingToClaim,
    /// The game is over: only questions are answered, until a new game.
    GameOver,
    /// A player's draw or resign button on a board that hosts no opponent
    /// (an engine, an online or a partner player): the players at the
    /// board offer a draw and resign to each other (5.1.2, 9.1.2).
    NoOpponent,
}

/// Why a ruling was made, as data a voice can phrase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The move would leave (or put) the mover's own king in check.
    LeavesKingInCheck,
    /// The piece cannot move that way.
    NotAMoveOfThatPiece,
    /// Castling without the right, through or out of check, or blocked.
    CastlingNotAllowed,
    /// The board matches no move: pieces missing or added.
    Unrecognised,
    /// The clock was pressed and nothing had moved.
    NoMove,
    /// A touched piece that could move (or be captured) was not.
    TouchMove,
    /// The rook was touched before the king, then castled.
    RookFirst,
    /// Pieces knocked over or off their squares and not put back.
    Displaced,
}

/// An illegal or irregular act (Article 7, Article 4), as data: the speech
/// crate says it in words (`docs/events.md`, `detail`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Irregularity {
    pub article: Article,
    /// Who committed it.
    #[serde(with = "serde_chess::color")]
    pub side: Color,
    pub ply: u32,
    pub reason: Reason,
    /// An illegal move that stands unless the opponent claims before
    /// completing their own move (A.5.2, a game no arbiter supervises).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stands: bool,
    /// What was attempted: the piece and squares as the board showed them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<Attempt>,
    /// The touched piece a touch-move ruling is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub touched: Option<Placed>,
    /// How to put the board right, fewest steps first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fix: Vec<Fix>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    #[serde(with = "serde_chess::piece")]
    pub piece: Piece,
    #[serde(with = "serde_chess::square")]
    pub from: Square,
    #[serde(with = "serde_chess::square")]
    pub to: Square,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    Checkmate,
    Stalemate,
    /// 5.2.2 by material alone (shakmaty's count).
    InsufficientMaterial,
    /// 5.2.2 otherwise: neither side can mate by any series of legal moves
    /// (locked pawns, say).
    DeadPosition,
    FivefoldRepetition,
    SeventyFiveMoves,
    /// A correct claim under 9.2.
    ThreefoldRepetition,
    /// A correct claim under 9.3.
    FiftyMoves,
    FlagFall,
    /// A second illegal move by the same player (7.5.5).
    IllegalMoves,
    Resignation,
    Agreement,
    Arbiter,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// 9.2: the same position for the third time.
    Threefold,
    /// 9.3: fifty moves without a capture or pawn move.
    Fifty,
}

/// A device of the daemon's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Device {
    /// The board: its sensors, or a DGT board.
    Board,
    /// The chess clock.
    Clock,
    /// The engine opponent's program: lost while the daemon restarts it,
    /// back when it answers again.
    Engine,
    /// The partner board of a game played on two boards: away when it
    /// cannot be reached, back when it is heard again.
    Partner,
    /// The online opponent's server (Lichess): its connection lost while
    /// the daemon retries, back when it answers again.
    Online,
}

/// Why a device was lost: a code, worded by the speech crate in the
/// player's language. The device's own report (an OS error, the program's
/// exit status) travels beside it only as a diagnostic to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lost {
    /// The daemon's task for the device has ended: it is not tried again.
    Ended,
    /// Its program could not be started.
    NoStart,
    /// Its program ended, or the daemon lost contact with it.
    Exited,
    /// It did not answer in time.
    NoAnswer,
    /// It answered with what cannot be used (an illegal move, a refused
    /// option), or its host failed.
    Faulty,
    /// Reading or writing it failed.
    Io,
    /// It was unplugged or disconnected.
    Unplugged,
    /// Its connection (the broker's, the server's) was lost.
    Connection,
}

/// What the online game's server (Lichess's Board API) says besides the
/// moves: said by the daemon, not ruled by the game (the moves, a draw
/// offer, a resignation and the result are the game's own inputs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum Online {
    /// The board plays this game: the opponent's name and the side the
    /// board plays.
    Playing {
        game: String,
        opponent: String,
        /// Lichess's own AI, at this level: said in the player's language
        /// (`opponent` is Lichess's English name for it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ai_level: Option<u8>,
        #[serde(with = "serde_chess::color")]
        side: Color,
    },
    /// A challenge to the account (`incoming`), or the account's own:
    /// the other player and the clock (`minutes+seconds`; none: days).
    Challenge {
        id: String,
        player: String,
        incoming: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<String>,
    },
    /// A challenge was withdrawn, or declined.
    ChallengeGone { id: String, declined: bool },
    /// The opponent proposes to take back a move; or withdrew it.
    TakebackOffer { open: bool },
    /// The opponent declined the take-back the board asked for: the board
    /// is to show the game's position again.
    TakebackDeclined,
    /// The server took moves back (a takeback agreed): the board goes back
    /// to the position where `ply` is to be made.
    TakenBack { ply: u32 },
    /// The server refused the board's move: it is taken back on the board.
    Refused { ply: u32, uci: String, san: String, why: RefusedWhy },
    /// The opponent left the game (`gone`) or came back; the win may be
    /// claimed in `claim_in_s` seconds (0: now).
    OpponentGone {
        gone: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        claim_in_s: Option<u32>,
    },
    /// The server ended the game with a status the board cannot tell.
    Ended { status: ServerEnd },
    /// Lichess asked for a pause: nothing is sent for this long.
    RateLimited { for_s: u64 },
    /// A game on the account that the board does not play, and why (the
    /// log says it in full, with the details).
    NotPlayed { game: String, reason: NotPlayedReason },
    /// A request the server did not carry out, and why.
    Failed { why: FailedWhy },
    /// The opponent wrote in the game's chat (the players' room; Lichess
    /// keeps its lines short, and the board cuts them to 140 characters).
    Chat { from: String, text: String },
    /// More chat lines came than are said at once: `count` held back, read
    /// with `online chat`.
    ChatHeld { count: u32 },
    /// The chat lines held back, as asked for (`online chat`); none: none
    /// are waiting.
    ChatLines { lines: Vec<ChatLine> },
    /// Lichess refuses the board's token, or takes it again.
    Token { state: TokenState },
    /// A player's answer or request to the server (`online …`), answered at
    /// once: sent (`standing`), or nothing stands to answer (no offer, no
    /// challenge, no game).
    Asked { ask: OnlineAsk, standing: bool },
}

/// One line of the online game's chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    pub from: String,
    pub text: String,
}

/// Why a game on the online account is not played on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotPlayedReason {
    /// The board plays one game at a time.
    AnotherGame,
    /// The server's Board API cannot play it.
    NotBoardApi,
    /// A variant the board cannot play.
    Variant,
    /// The server did not say which side the account plays.
    NoSide,
    /// The account plays neither side.
    NotAPlayer,
    /// The game's start and its stream name different sides.
    SidesDisagree,
    /// The game's stream gave another game.
    OtherGame,
    /// Its moves are not legal from its start.
    IllegalMoves,
    /// Its start position cannot be set up.
    StartPosition,
    /// The server does not give the game.
    Gone,
}

/// Why the server refused the board's move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusedWhy {
    /// The server said no (its words are in the log).
    Server,
    /// The server has another move at that ply (made on the website).
    Superseded,
    /// The game ended before the move counted.
    GameOver,
}

/// How the server ended a game, where the board cannot tell it itself
/// (its names are Lichess's `status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ServerEnd {
    #[serde(rename = "aborted")]
    Aborted,
    /// The opponent left the game (`timeout`).
    #[serde(rename = "timeout")]
    OpponentLeft,
    /// A flag fell (`outoftime`).
    #[serde(rename = "outoftime")]
    FlagFall,
    /// The first move was not made in time (`noStart`).
    #[serde(rename = "noStart")]
    NoStart,
    /// Any other (a cheat found, a variant's end, an end not known).
    #[serde(rename = "other", other)]
    Other,
}

/// Why the online server did not carry out a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailedWhy {
    /// No game is being played on the server.
    NoGame,
    /// The board's move cannot be sent (not its turn, the game over…).
    NotPlayable,
    /// Too many requests are waiting.
    Busy,
    /// The server said no.
    Refused,
    /// The server could not be reached, even after tries.
    Network,
    /// The server refuses the board's token.
    Token,
    /// The server asked for a pause.
    RateLimited,
}

/// The board's token as the online server takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenState {
    /// Refused (HTTP 401 or 403): the game is kept and tried again.
    Refused,
    /// The server does not know the token any more: a new one is needed.
    Unknown,
    /// The token lacks the permission to play (`board:play`).
    LacksScope,
    /// Taken again after a refusal.
    Accepted,
}

/// Two boards, one game: what the link with the partner board says besides
/// the game's own messages — said by the daemon, not ruled by the game.
/// Each mismatch is said once, on both boards, with what to change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum Pair {
    /// The partner board plays `side` too: no game until one of them plays
    /// the other side.
    SameSide {
        partner: String,
        #[serde(with = "serde_chess::color")]
        side: Color,
    },
    /// The partner board's game has another time control (none: no clock).
    TimeControl {
        partner: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ours: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        theirs: Option<String>,
    },
    /// The two boards disagree on where the one clock at the table is
    /// (none: each board its own clock).
    TableClock {
        partner: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ours: Option<tactus_trace::TableClock>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        theirs: Option<tactus_trace::TableClock>,
    },
    /// The partner board plays another game than this board's (one of
    /// them began anew): its moves are not taken here.
    OtherGame { partner: String },
    /// Another daemon on the hall's broker goes by this board's name: this
    /// one stops playing with its partner.
    Twin { board: String },
    /// After a mismatch, the boards agree: the game goes on.
    Agreed { partner: String },
    /// The board restarted in the middle of the game: how it goes on —
    /// `to_move` is on move, this board's player `carrying` out the
    /// partner's move first; the clocks (none: a game without).
    GoesOn {
        #[serde(with = "serde_chess::color")]
        to_move: Color,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        carrying: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Restarted>,
    },
}

/// The clocks of a game on two boards after a restart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Restarted {
    /// They run on (each board keeps its own player's clock).
    Run,
    /// They stay stopped (6.11): the arbiter's pause stands.
    Stopped,
    /// The table's one clock waits for its next press.
    AtTable,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventKind {
    /// The round's pairing for this board, from the hall (a relay given the
    /// pairing program's file): the tournament, the round, the board's
    /// number, and each side's player, their name as the file writes it
    /// ("Lastname, Firstname"), title, rating, FIDE ID and federation. It
    /// decides over the header's players, event and round.
    Pairing(Box<tactus_trace::Pairing>),
    /// The game begins (or resumes after recovery) from this position.
    Start {
        fen: String,
        chess960: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        time_control: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        white_ms: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        black_ms: Option<i64>,
    },
    /// A piece was lifted (4.3; on a tactile board, D.2.2). `binding` marks the
    /// touch that binds under touch-move: the first own piece (4.3.1) or the
    /// first opponent piece (4.3.2) of the ply.
    Touch {
        #[serde(with = "serde_chess::square")]
        sq: Square,
        #[serde(with = "serde_chess::piece")]
        piece: Piece,
        ply: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        binding: Option<Article>,
    },
    /// A move was made on the board (4.7). `correction`: it replaces a move
    /// announced earlier in the same ply, to be corrected aloud (D.2.8).
    Move {
        #[serde(flatten)]
        mv: MoveInfo,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        correction: bool,
    },
    /// The board went back to the position before the move: the move
    /// announced earlier in this ply no longer stands.
    Withdrawn {
        ply: u32,
        san: String,
    },
    /// The move was completed by the clock press (6.2.1).
    Complete {
        ply: u32,
        #[serde(with = "serde_chess::color")]
        side: Color,
        san: String,
        uci: String,
        /// The mover's remaining time after the press, increment included.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock_ms: Option<i64>,
        /// The opponent's remaining time at the press.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        opponent_ms: Option<i64>,
    },
    Irregularity(Irregularity),
    /// Time added to a clock; `side` is who benefits.
    Penalty {
        article: Article,
        #[serde(with = "serde_chess::color")]
        side: Color,
        ms: i64,
    },
    GameOver {
        result: GameResult,
        reason: EndReason,
        article: Article,
        /// The mate search could not settle whether the opponent can mate
        /// (6.9, 7.5.5) within its limit: the loss stands, and the arbiter
        /// may look again.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        undetermined: bool,
    },
    /// Something the sensors cannot settle: a piece came to rest on one square
    /// and then went on to another before the clock press (a possible 4.7
    /// breach, or a slow slide). Never a ruling.
    Observation {
        article: Article,
        #[serde(with = "serde_chess::color")]
        side: Color,
        ply: u32,
        /// The move the board showed first, and the move it shows now.
        first: String,
        then: String,
    },
    /// An own piece was knocked off its square and put back before the press.
    Displaced {
        #[serde(with = "serde_chess::square")]
        sq: Square,
        #[serde(with = "serde_chess::piece")]
        piece: Piece,
        ply: u32,
    },
    /// Two or more legal moves fit what the sensors saw; `chosen` is the one
    /// recorded until the arbiter corrects it.
    Ambiguous {
        ply: u32,
        candidates: Vec<String>,
        chosen: String,
    },
    /// A draw the player to move may now claim.
    Claimable {
        claim: ClaimKind,
        article: Article,
        #[serde(with = "serde_chess::color")]
        side: Color,
        ply: u32,
    },
    /// The board has differed from the game for a while: what is missing,
    /// what is extra, and how to fix it.
    BoardMismatch {
        missing: Vec<Placed>,
        #[serde(with = "serde_chess::squares")]
        extra: Vec<Square>,
        fix: Vec<Fix>,
    },
    /// The board matches the game again.
    BoardOk,
    /// The engine chose its move: the player carries it out on the board in
    /// these `steps` (a captured piece off first, castling king then rook, a
    /// promotion's new piece on). It completes when the board shows it,
    /// without a press.
    OpponentMove {
        #[serde(flatten)]
        mv: MoveInfo,
        steps: Vec<Fix>,
        /// How the engine saw it; only in a game no arbiter supervises.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        eval: Option<EngineEval>,
        /// Asked for again with part of the move done: the steps still to do.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        left: Option<Vec<Fix>>,
        /// Not the opponent's: the player's own move, made on the online
        /// server's website, carried out on the board the same way.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        website: bool,
    },
    /// The engine's suggestion for the player on move, as asked for.
    Hint {
        #[serde(flatten)]
        mv: MoveInfo,
    },
    /// The engine's level was set at the board: 0 (first games) to 10.
    EngineLevel {
        level: u8,
    },
    /// The engine's move is being carried out wrongly: what is wrong, and
    /// every step that brings the board to the position after the move.
    OpponentFix {
        ply: u32,
        slip: Slip,
        fix: Vec<Fix>,
    },
    /// A device stopped answering (unplugged, out of Bluetooth range, an
    /// I²C error, an engine that crashed or hung): said by the daemon, not
    /// the game, which goes on.
    DeviceLost {
        device: Device,
        why: Lost,
        /// The device's own report, in its own words (often English): for
        /// the log and the page, never said as the sentence.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diagnostic: Option<String>,
    },
    /// The device answers again.
    DeviceBack {
        device: Device,
    },
    /// The online game's server says something besides the moves.
    Online(Online),
    /// The partner board's link says something besides the game's messages.
    Pair(Pair),
    /// `side` offers a draw (9.1.2): the engine with its move, or a player.
    /// The opponent accepts with an offer of their own; their move declines.
    DrawOffer {
        #[serde(with = "serde_chess::color")]
        side: Color,
        /// Not made between the offerer's move and their press (9.1.2.1):
        /// valid all the same.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        irregular: bool,
    },
    /// `side` declined the draw offered to it by making its move (9.1.2.3).
    DrawDeclined {
        #[serde(with = "serde_chess::color")]
        side: Color,
    },
    /// In an online game the player set the board back to an earlier
    /// position, where `ply` is to be made: the take-back is asked of the
    /// server, and the moves are taken back only when it agrees
    /// (`take_back`, from its `take_back` input).
    TakeBackAsked {
        ply: u32,
    },
    /// In a game against the engine, the player set the board back to an
    /// earlier position (online: the server took moves back): the moves since (`taken`, SAN, in the order they
    /// were played) are taken back, `ply` is the ply now to be made, and the
    /// clocks show what they showed when that position stood.
    TakeBack {
        ply: u32,
        taken: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        white_ms: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        black_ms: Option<i64>,
    },
    /// A sensor reads against the game while the rest of the board shows
    /// what happened: it is taken to be stuck (`reading`: what it reads) and
    /// the game goes on as if it showed the game's position, until it changes.
    SensorFault {
        #[serde(with = "serde_chess::square")]
        sq: Square,
        reading: bool,
    },
    /// A sensor taken to be stuck has changed: it is believed again.
    SensorOk {
        #[serde(with = "serde_chess::square")]
        sq: Square,
    },
    /// The clocks were stopped (6.11), or resumed.
    Paused,
    Resumed,
    /// The arbiter set the clocks.
    ClockSet {
        white_ms: i64,
        black_ms: i64,
    },
    /// On request (D.2.6.1): both times and the moves each side completed.
    Time {
        white_ms: i64,
        black_ms: i64,
        white_moves: u32,
        black_moves: u32,
        #[serde(with = "serde_chess::opt_color", default, skip_serializing_if = "Option::is_none")]
        running: Option<Color>,
    },
    /// On request: the position, for a readout. `pending`: a move
    /// announced and not yet carried out on the board (the opponent's, or
    /// the player's own made on the online server's website): the position
    /// is the one before it.
    Position {
        fen: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pending: Option<MoveInfo>,
    },
    /// On request: the last move again.
    LastMove {
        #[serde(flatten)]
        mv: MoveInfo,
    },
    /// A player's time fell below a warning threshold.
    TimeWarning {
        #[serde(with = "serde_chess::color")]
        side: Color,
        remaining_ms: i64,
    },
    /// On request: where one side's pieces stand, all of them or one kind
    /// (`role`); king first, then queens, rooks, bishops, knights, pawns,
    /// each kind from a1 towards h8.
    Pieces {
        #[serde(with = "serde_chess::color")]
        side: Color,
        #[serde(with = "serde_chess::opt_role", default, skip_serializing_if = "Option::is_none")]
        role: Option<Role>,
        pieces: Vec<Placed>,
        /// For one kind: where the board shows those pieces, when that
        /// differs from the game.
        #[serde(with = "serde_chess::opt_squares", default, skip_serializing_if = "Option::is_none")]
        board: Option<Vec<Square>>,
    },
    /// On request: what stands on a rank, file a to h.
    #[serde(rename = "rank")]
    OnRank {
        #[serde(with = "serde_chess::rank")]
        rank: Rank,
        pieces: Vec<Placed>,
    },
    /// On request: what stands on a file, rank 1 to 8.
    #[serde(rename = "file")]
    OnFile {
        #[serde(with = "serde_chess::file")]
        file: File,
        pieces: Vec<Placed>,
    },
    /// On request: what stands on a square; no `piece` when it is empty.
    #[serde(rename = "square")]
    OnSquare {
        #[serde(with = "serde_chess::square")]
        sq: Square,
        #[serde(with = "serde_chess::opt_piece", default, skip_serializing_if = "Option::is_none")]
        piece: Option<Piece>,
        /// What the board shows there, when it differs from the game.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        board: Option<OnBoard>,
        /// A move announced and not yet carried out on the board that
        /// changes this square (see `Position`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pending: Option<MoveInfo>,
    },
    /// On request: each side's way to the next time control.
    MovesToControl {
        white: ToControl,
        black: ToControl,
    },
    /// The promotion selector was set: the piece a pawn promotes to.
    PromotionChoice {
        #[serde(with = "serde_chess::role")]
        role: Role,
    },
    /// An input or a question that changes nothing now, and why.
    NotNow {
        why: NotNow,
    },
    /// A typed command the daemon did not understand: said by the daemon,
    /// not the game.
    NotUnderstood {
        typed: String,
    },
}

/// One side's way to the next time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToControl {
    /// Moves the side has completed.
    pub moves: u32,
    /// Moves still to complete to reach the control (the move that reaches it
    /// included); absent when no control is ahead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<u32>,
    /// The time the next period adds when the control is reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_ms: Option<i64>,
}
