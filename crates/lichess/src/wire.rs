//! What Lichess sends and takes, as its published API reference describes
//! it (lichess-org/api, `doc/specs/`: the schemas named on each type).
//! Only the fields tactus reads are here; the rest are ignored, and a line
//! of a type not listed is [`AccountEvent::Other`] or [`GameEvent::Other`]:
//! skipped, never an error.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;

use crate::api::DeclineReason;

/// A side, as the API spells it (`GameColor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    White,
    Black,
}

impl From<Side> for shakmaty::Color {
    fn from(s: Side) -> shakmaty::Color {
        match s {
            Side::White => shakmaty::Color::White,
            Side::Black => shakmaty::Color::Black,
        }
    }
}

impl From<shakmaty::Color> for Side {
    fn from(c: shakmaty::Color) -> Side {
        match c {
            shakmaty::Color::White => Side::White,
            shakmaty::Color::Black => Side::Black,
        }
    }
}

/// One line of `GET /api/stream/event`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum AccountEvent {
    /// `GameStartEvent`.
    GameStart { game: GameInfo },
    /// `GameFinishEvent`.
    GameFinish { game: GameInfo },
    /// `ChallengeEvent`: a challenge to the account, or by it.
    Challenge { challenge: Challenge },
    /// `ChallengeCanceledEvent`.
    ChallengeCanceled { challenge: Challenge },
    /// `ChallengeDeclinedEvent`.
    ChallengeDeclined { challenge: Challenge },
    #[serde(other)]
    Other,
}

/// `GameEventInfo`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameInfo {
    pub game_id: String,
    #[serde(default)]
    pub color: Option<Side>,
    #[serde(default)]
    pub opponent: Option<Opponent>,
    #[serde(default)]
    pub compat: Option<Compat>,
    #[serde(default)]
    pub variant: Option<Variant>,
    #[serde(default)]
    pub speed: Option<Speed>,
    #[serde(default)]
    pub rated: Option<bool>,
    #[serde(default)]
    pub winner: Option<Side>,
}

/// `GameEventOpponent`.
#[derive(Debug, Clone, Deserialize)]
pub struct Opponent {
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub rating: Option<i32>,
}

/// `GameCompat`: whether the Board API can play the game.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Compat {
    #[serde(default)]
    pub board: Option<bool>,
}

/// `Variant`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Variant {
    pub key: VariantKey,
}

/// `VariantKey`: one the reference lists, or a newer one (its key kept,
/// to be named in what the board cannot play).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "String")]
pub enum VariantKey {
    Standard,
    Chess960,
    Crazyhouse,
    Antichess,
    Atomic,
    Horde,
    KingOfTheHill,
    RacingKings,
    ThreeCheck,
    FromPosition,
    Other(String),
}

impl VariantKey {
    const LISTED: [VariantKey; 10] = [
        VariantKey::Standard,
        VariantKey::Chess960,
        VariantKey::Crazyhouse,
        VariantKey::Antichess,
        VariantKey::Atomic,
        VariantKey::Horde,
        VariantKey::KingOfTheHill,
        VariantKey::RacingKings,
        VariantKey::ThreeCheck,
        VariantKey::FromPosition,
    ];

    /// The key as Lichess spells it.
    pub fn as_str(&self) -> &str {
        match self {
            VariantKey::Standard => "standard",
            VariantKey::Chess960 => "chess960",
            VariantKey::Crazyhouse => "crazyhouse",
            VariantKey::Antichess => "antichess",
            VariantKey::Atomic => "atomic",
            VariantKey::Horde => "horde",
            VariantKey::KingOfTheHill => "kingOfTheHill",
            VariantKey::RacingKings => "racingKings",
            VariantKey::ThreeCheck => "threeCheck",
            VariantKey::FromPosition => "fromPosition",
            VariantKey::Other(key) => key,
        }
    }
}

impl From<String> for VariantKey {
    fn from(key: String) -> VariantKey {
        // A newer key is kept short: it is only named.
        Self::LISTED
            .into_iter()
            .find(|v| v.as_str() == key)
            .unwrap_or_else(|| VariantKey::Other(key.chars().take(32).collect()))
    }
}

impl std::fmt::Display for VariantKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `Speed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Speed {
    UltraBullet,
    Bullet,
    Blitz,
    Rapid,
    Classical,
    Correspondence,
    /// A speed newer than this crate.
    #[serde(other)]
    Unknown,
}

/// `ChallengeStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChallengeStatus {
    Created,
    Offline,
    Canceled,
    Declined,
    Accepted,
    #[serde(other)]
    Unknown,
}

/// The side a challenge asks for (`ChallengeJson.color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChallengeColor {
    White,
    Black,
    Random,
    #[serde(other)]
    Unknown,
}

/// Whether a challenge is to the account or by it (`ChallengeJson.direction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    In,
    Out,
    #[serde(other)]
    Unknown,
}

/// Why a challenge was declined (`declineReasonKey`): a reason the
/// reference lists, or one newer than this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(from = "String")]
pub enum Declined {
    For(DeclineReason),
    Unlisted,
}

impl From<String> for Declined {
    fn from(key: String) -> Declined {
        DeclineReason::from_key(&key).map_or(Declined::Unlisted, Declined::For)
    }
}

/// `ChatLineEvent.room`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Room {
    Player,
    Spectator,
    #[serde(other)]
    Unknown,
}

/// A game's start position (`GameFullEvent.initialFen`): the standard
/// one (`startpos`), a FEN, or a text that is none (kept, to be named).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(from = "String")]
pub enum InitialFen {
    #[default]
    StartPos,
    Fen(Fen),
    Unreadable(String),
}

impl From<String> for InitialFen {
    fn from(text: String) -> InitialFen {
        if text == "startpos" {
            return InitialFen::StartPos;
        }
        match Fen::from_ascii(text.as_bytes()) {
            Ok(fen) => InitialFen::Fen(fen),
            Err(_) => InitialFen::Unreadable(text.chars().take(100).collect()),
        }
    }
}

/// `ChallengeJson` (and `ChallengeDeclinedJson`'s reason).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Challenge {
    pub id: String,
    #[serde(default)]
    pub status: Option<ChallengeStatus>,
    pub challenger: ChallengeUser,
    #[serde(default)]
    pub dest_user: Option<ChallengeUser>,
    #[serde(default)]
    pub variant: Option<Variant>,
    #[serde(default)]
    pub rated: bool,
    #[serde(default)]
    pub speed: Option<Speed>,
    #[serde(default)]
    pub time_control: Option<TimeControl>,
    #[serde(default)]
    pub color: Option<ChallengeColor>,
    #[serde(default)]
    pub final_color: Option<Side>,
    /// `in`: to the account; `out`: by it.
    #[serde(default)]
    pub direction: Option<Direction>,
    #[serde(default, rename = "declineReasonKey")]
    pub decline_reason: Option<Declined>,
}

/// `ChallengeUser`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ChallengeUser {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub rating: Option<i32>,
    #[serde(default)]
    pub title: Option<String>,
}

/// `TimeControl`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum TimeControl {
    /// Seconds and seconds.
    Clock {
        limit: u32,
        increment: u32,
    },
    #[serde(rename_all = "camelCase")]
    Correspondence {
        days_per_turn: u32,
    },
    Unlimited,
}

/// One line of `GET /api/board/game/stream/{gameId}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum GameEvent {
    /// `GameFullEvent`: always the first line.
    GameFull(Box<GameFull>),
    /// `GameStateEvent`.
    GameState(GameState),
    /// `ChatLineEvent`.
    ChatLine(ChatLine),
    /// `OpponentGoneEvent`.
    OpponentGone(OpponentGone),
    #[serde(other)]
    Other,
}

/// `GameFullEvent`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameFull {
    pub id: String,
    pub variant: Variant,
    #[serde(default)]
    pub clock: Option<ClockSetup>,
    #[serde(default)]
    pub speed: Option<Speed>,
    #[serde(default)]
    pub rated: bool,
    pub white: Player,
    pub black: Player,
    #[serde(default)]
    pub initial_fen: InitialFen,
    pub state: GameState,
}

/// The clock of a `GameFullEvent`, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub struct ClockSetup {
    pub initial: u64,
    pub increment: u64,
}

/// `GameEventPlayer`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Player {
    /// Absent for Lichess's AI.
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub rating: Option<i32>,
    #[serde(default)]
    pub ai_level: Option<u8>,
}

/// `GameStateEvent`.
#[derive(Debug, Clone, Deserialize)]
pub struct GameState {
    /// Every move so far, in UCI, separated by spaces.
    pub moves: String,
    pub wtime: i64,
    pub btime: i64,
    pub winc: i64,
    pub binc: i64,
    pub status: Status,
    #[serde(default)]
    pub winner: Option<Side>,
    #[serde(default)]
    pub wdraw: bool,
    #[serde(default)]
    pub bdraw: bool,
    #[serde(default)]
    pub wtakeback: bool,
    #[serde(default)]
    pub btakeback: bool,
}

/// `GameStatusName`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    Created,
    Started,
    Aborted,
    Mate,
    Resign,
    Stalemate,
    Timeout,
    Draw,
    Outoftime,
    Cheat,
    NoStart,
    UnknownFinish,
    InsufficientMaterialClaim,
    VariantEnd,
    /// A status newer than this crate.
    #[serde(other)]
    Unknown,
}

impl Status {
    /// Whether the game is still on.
    pub fn is_ongoing(self) -> bool {
        matches!(self, Status::Created | Status::Started)
    }
}

/// `ChatLineEvent`.
#[derive(Debug, Clone, Deserialize)]
pub struct ChatLine {
    pub room: Room,
    pub username: String,
    pub text: String,
}

/// `OpponentGoneEvent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpponentGone {
    pub gone: bool,
    #[serde(default)]
    pub claim_win_in_seconds: Option<u32>,
}

/// `Ok`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Ok {
    pub ok: bool,
}

/// `Error` (and `NotFound`): what a refused request says.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ErrorBody {
    pub error: String,
}

/// The part of `UserExtended` (`GET /api/account`) tactus reads.
#[derive(Debug, Clone, Deserialize)]
pub struct Account {
    pub id: String,
    pub username: String,
    #[serde(default)]
    pub title: Option<String>,
}

/// One token's entry in the reply of `POST /api/token/test`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TokenInfo {
    pub user_id: String,
    /// Comma-separated.
    pub scopes: String,
}

/// `BroadcastPgnPush`: one entry per game of the pushed PGN, in its order.
#[derive(Debug, Clone, Deserialize)]
pub struct PushReply {
    pub games: Vec<PushedGame>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PushedGame {
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    #[serde(default)]
    pub moves: Option<u32>,
    #[serde(default)]
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines shaped as the reference's schemas say (field names from
    // lichess-org/api doc/specs/schemas), with values of our own.

    #[test]
    fn lines_shaped_as_the_reference_says_read() {
        let start = r#"{"type":"gameStart","game":{"fullId":"Ab12Cd34wxyz","gameId":"Ab12Cd34","fen":"startpos","color":"black","lastMove":"","source":"friend","status":{"id":20,"name":"started"},"variant":{"key":"standard","name":"Standard"},"speed":"rapid","perf":"rapid","rated":false,"hasMoved":false,"opponent":{"id":"kasia","username":"Kasia","rating":1500},"isMyTurn":false,"secondsLeft":900,"compat":{"bot":false,"board":true},"id":"Ab12Cd34"}}"#;
        let AccountEvent::GameStart { game } = serde_json::from_str(start).unwrap() else { panic!() };
        assert_eq!(game.game_id, "Ab12Cd34");
        assert_eq!(game.color, Some(Side::Black));
        assert_eq!(game.compat.unwrap().board, Some(true));
        let challenge = r#"{"type":"challenge","challenge":{"id":"Zz99Yy88","url":"https://lichess.org/Zz99Yy88","status":"created","challenger":{"id":"jan","name":"Jan","rating":1410},"destUser":{"id":"ola","name":"Ola","rating":1322,"online":true},"variant":{"key":"standard","name":"Standard"},"rated":false,"speed":"rapid","timeControl":{"type":"clock","limit":1800,"increment":5,"show":"30+5"},"color":"white","finalColor":"white","perf":{"icon":"","name":"Rapid"},"direction":"in"}}"#;
        let AccountEvent::Challenge { challenge } = serde_json::from_str(challenge).unwrap() else { panic!() };
        assert_eq!(challenge.time_control, Some(TimeControl::Clock { limit: 1800, increment: 5 }));
        assert_eq!(challenge.challenger.name, "Jan");
        assert_eq!(challenge.direction, Some(Direction::In));
        assert_eq!((challenge.status, challenge.speed), (Some(ChallengeStatus::Created), Some(Speed::Rapid)));
        assert_eq!(challenge.color, Some(ChallengeColor::White));
        let declined = r#"{"type":"challengeDeclined","challenge":{"id":"Zz99Yy88","url":"https://lichess.org/Zz99Yy88","status":"declined","challenger":{"id":"ola","name":"Ola"},"destUser":null,"variant":{"key":"standard","name":"Standard"},"rated":false,"speed":"correspondence","timeControl":{"type":"unlimited"},"color":"random","perf":{"icon":"","name":"Correspondence"},"declineReason":"Not now.","declineReasonKey":"later"}}"#;
        let AccountEvent::ChallengeDeclined { challenge } = serde_json::from_str(declined).unwrap() else { panic!() };
        assert_eq!(challenge.decline_reason, Some(Declined::For(DeclineReason::Later)));
        assert_eq!(challenge.time_control, Some(TimeControl::Unlimited));
        let full = r#"{"type":"gameFull","id":"Ab12Cd34","variant":{"key":"standard","name":"Standard"},"speed":"rapid","perf":{"name":"Rapid"},"rated":false,"createdAt":1700000000000,"white":{"id":"kasia","name":"Kasia","title":null,"rating":1500},"black":{"id":"ola","name":"Ola","title":null,"rating":1322},"initialFen":"startpos","clock":{"initial":1800000,"increment":5000},"state":{"type":"gameState","moves":"e2e4 c7c5","wtime":1795000,"btime":1800000,"winc":5000,"binc":5000,"status":"started","bdraw":true}}"#;
        let GameEvent::GameFull(full) = serde_json::from_str(full).unwrap() else { panic!() };
        assert_eq!(full.state.moves, "e2e4 c7c5");
        assert!(full.state.bdraw && !full.state.wdraw);
        assert_eq!(full.clock, Some(ClockSetup { initial: 1_800_000, increment: 5000 }));
        assert_eq!(full.white.name.as_deref(), Some("Kasia"));
        assert_eq!((full.initial_fen, full.variant.key), (InitialFen::StartPos, VariantKey::Standard));
        let gone: GameEvent =
            serde_json::from_str(r#"{"type":"opponentGone","gone":true,"claimWinInSeconds":20}"#).unwrap();
        assert!(matches!(gone, GameEvent::OpponentGone(OpponentGone { gone: true, claim_win_in_seconds: Some(20) })));
        let push = r#"{"games":[{"tags":{"White":"Kasia","Result":"*"},"moves":7},{"tags":{},"error":"no moves"}]}"#;
        let reply: PushReply = serde_json::from_str(push).unwrap();
        assert_eq!(reply.games[0].moves, Some(7));
        assert_eq!(reply.games[1].error.as_deref(), Some("no moves"));
    }

    #[test]
    fn unknown_types_and_statuses_are_not_errors() {
        let e: AccountEvent = serde_json::from_str(r#"{"type":"somethingNew","x":1}"#).unwrap();
        assert!(matches!(e, AccountEvent::Other));
        let e: GameEvent = serde_json::from_str(r#"{"type":"somethingNew"}"#).unwrap();
        assert!(matches!(e, GameEvent::Other));
        let s: GameState =
            serde_json::from_str(r#"{"moves":"","wtime":1,"btime":1,"winc":0,"binc":0,"status":"someNewEnding"}"#)
                .unwrap();
        assert_eq!(s.status, Status::Unknown);
        assert!(!s.status.is_ongoing());
        // Every enumerated field: a value newer than this crate is no error.
        let c = r#"{"id":"x","status":"pondering","challenger":{"id":"a","name":"A"},"variant":{"key":"spaceChess"},"speed":"warp","color":"purple","direction":"sideways","declineReasonKey":"tooPolite"}"#;
        let c: Challenge = serde_json::from_str(c).unwrap();
        assert_eq!(
            (c.status, c.speed, c.color),
            (Some(ChallengeStatus::Unknown), Some(Speed::Unknown), Some(ChallengeColor::Unknown))
        );
        assert_eq!((c.direction, c.decline_reason), (Some(Direction::Unknown), Some(Declined::Unlisted)));
        assert_eq!(c.variant.unwrap().key, VariantKey::Other("spaceChess".into()));
        let line: ChatLine = serde_json::from_str(r#"{"room":"lobby","username":"a","text":"b"}"#).unwrap();
        assert_eq!(line.room, Room::Unknown);
        assert_eq!(InitialFen::from("not a fen".to_string()), InitialFen::Unreadable("not a fen".into()));
    }
}
