//! The endpoints tactus uses, by their paths in Lichess's API reference
//! (lichess-org/api, `doc/specs/tags/`): the account, the Board API, the
//! challenges and the broadcast push.

use http::Method;

use crate::http::{Body, Client, Error, Family, Lines, MAX_REPLY, MOVE_TIMEOUT, form, segment};
use crate::wire::{self, Account, Challenge, PushReply, Side};

/// The largest small reply (`Ok`, an error, a challenge).
const SMALL: usize = 64 * 1024;

/// A real-time challenge's clock, in seconds (`clock.limit`,
/// `clock.increment`), or a correspondence game's days per move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeClock {
    RealTime { limit_s: u32, increment_s: u32 },
    Correspondence { days: u32 },
}

/// `POST /api/challenge/{username}`'s form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengeSpec {
    pub clock: ChallengeClock,
    pub rated: bool,
    /// None: random.
    pub color: Option<Side>,
}

/// `POST /api/board/seek`'s form, for a real-time seek (the Board API
/// takes rapid and slower).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeekSpec {
    pub minutes: u32,
    pub increment_s: u32,
    pub rated: bool,
}

/// Why a challenge is declined (`reason` of `POST
/// /api/challenge/{challengeId}/decline`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclineReason {
    Generic,
    Later,
    TooFast,
    TooSlow,
    TimeControl,
    Rated,
    Casual,
    Standard,
    Variant,
    NoBot,
    OnlyBot,
}

impl DeclineReason {
    const ALL: [DeclineReason; 11] = [
        DeclineReason::Generic,
        DeclineReason::Later,
        DeclineReason::TooFast,
        DeclineReason::TooSlow,
        DeclineReason::TimeControl,
        DeclineReason::Rated,
        DeclineReason::Casual,
        DeclineReason::Standard,
        DeclineReason::Variant,
        DeclineReason::NoBot,
        DeclineReason::OnlyBot,
    ];

    /// The reason of a key as Lichess spells it (`declineReasonKey`).
    pub fn from_key(key: &str) -> Option<DeclineReason> {
        Self::ALL.into_iter().find(|r| r.as_str() == key)
    }

    fn as_str(self) -> &'static str {
        match self {
            DeclineReason::Generic => "generic",
            DeclineReason::Later => "later",
            DeclineReason::TooFast => "tooFast",
            DeclineReason::TooSlow => "tooSlow",
            DeclineReason::TimeControl => "timeControl",
            DeclineReason::Rated => "rated",
            DeclineReason::Casual => "casual",
            DeclineReason::Standard => "standard",
            DeclineReason::Variant => "variant",
            DeclineReason::NoBot => "noBot",
            DeclineReason::OnlyBot => "onlyBot",
        }
    }
}

/// What `POST /api/token/test` says of the client's token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenCheck {
    pub user_id: String,
    pub scopes: Vec<String>,
}

impl TokenCheck {
    pub fn has(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}

/// The scope the Board API needs.
pub const BOARD_PLAY: &str = "board:play";
/// The scope a broadcast push needs.
pub const STUDY_WRITE: &str = "study:write";

fn json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    serde_json::from_slice(bytes).map_err(|e| Error::Protocol(e.to_string()))
}

impl Client {
    async fn ok(&self, family: Family, path: &str, body: Body) -> Result<(), Error> {
        let bytes = self.request(family, Method::POST, path, body, SMALL).await?;
        let ok: wire::Ok = json(&bytes)?;
        if ok.ok { Ok(()) } else { Err(Error::Protocol("the reply said ok: false".into())) }
    }

    /// `GET /api/account`: who the token plays as.
    pub async fn account(&self) -> Result<Account, Error> {
        let bytes = self.request(Family::Account, Method::GET, "/api/account", Body::Empty, SMALL).await?;
        json(&bytes)
    }

    /// `POST /api/token/test`: the token's scopes; `None` if Lichess does not
    /// know the token.
    pub async fn token_check(&self) -> Result<Option<TokenCheck>, Error> {
        let secret = self.token().secret().to_string();
        let bytes =
            self.request(Family::Account, Method::POST, "/api/token/test", Body::Text(secret.clone()), SMALL).await?;
        let mut map: std::collections::HashMap<String, Option<wire::TokenInfo>> = json(&bytes)?;
        Ok(map.remove(&secret).flatten().map(|t| TokenCheck {
            user_id: t.user_id,
            scopes: t.scopes.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect(),
        }))
    }

    /// `GET /api/stream/event`.
    pub async fn event_stream(&self) -> Result<Lines, Error> {
        self.stream(Method::GET, "/api/stream/event", Body::Empty).await
    }

    /// `GET /api/board/game/stream/{gameId}`.
    pub async fn game_stream(&self, game: &str) -> Result<Lines, Error> {
        self.stream(Method::GET, &format!("/api/board/game/stream/{}", segment(game)?), Body::Empty).await
    }

    /// `POST /api/board/game/{gameId}/move/{move}` (`?offeringDraw=true`),
    /// its answer waited for [`MOVE_TIMEOUT`]: a slow server's late answer
    /// is the move's, and nothing is sent again meanwhile.
    pub async fn board_move(&self, game: &str, uci: &str, offering_draw: bool) -> Result<(), Error> {
        let query = if offering_draw { "?offeringDraw=true" } else { "" };
        let path = format!("/api/board/game/{}/move/{}{query}", segment(game)?, segment(uci)?);
        let bytes = self.request_within(Family::Board, Method::POST, &path, Body::Empty, SMALL, MOVE_TIMEOUT).await?;
        let ok: wire::Ok = json(&bytes)?;
        if ok.ok { Ok(()) } else { Err(Error::Protocol("the reply said ok: false".into())) }
    }

    /// `POST /api/board/game/{gameId}/draw/{yes|no}`: offer or accept; decline.
    pub async fn draw(&self, game: &str, yes: bool) -> Result<(), Error> {
        let answer = if yes { "yes" } else { "no" };
        self.ok(Family::Board, &format!("/api/board/game/{}/draw/{answer}", segment(game)?), Body::Empty).await
    }

    /// `POST /api/board/game/{gameId}/takeback/{yes|no}`.
    pub async fn takeback(&self, game: &str, yes: bool) -> Result<(), Error> {
        let answer = if yes { "yes" } else { "no" };
        self.ok(Family::Board, &format!("/api/board/game/{}/takeback/{answer}", segment(game)?), Body::Empty).await
    }

    /// `POST /api/board/game/{gameId}/{resign|abort|claim-victory|claim-draw}`.
    pub async fn game_end(&self, game: &str, what: EndRequest) -> Result<(), Error> {
        self.ok(Family::Board, &format!("/api/board/game/{}/{}", segment(game)?, what.path()), Body::Empty).await
    }

    /// `POST /api/board/game/{gameId}/chat`.
    pub async fn chat(&self, game: &str, spectators: bool, text: &str) -> Result<(), Error> {
        let room = if spectators { "spectator" } else { "player" };
        let text: String = text.chars().take(140).collect();
        let body = form(&[("room", room.into()), ("text", text)]);
        self.ok(Family::Board, &format!("/api/board/game/{}/chat", segment(game)?), Body::Form(body)).await
    }

    /// `POST /api/challenge/{username}`.
    pub async fn challenge(&self, username: &str, spec: &ChallengeSpec) -> Result<Challenge, Error> {
        let mut fields = match spec.clock {
            ChallengeClock::RealTime { limit_s, increment_s } => {
                vec![("clock.limit", limit_s.to_string()), ("clock.increment", increment_s.to_string())]
            }
            ChallengeClock::Correspondence { days } => vec![("days", days.to_string())],
        };
        fields.push(("rated", spec.rated.to_string()));
        let color = match spec.color {
            None => "random",
            Some(Side::White) => "white",
            Some(Side::Black) => "black",
        };
        fields.push(("color", color.into()));
        fields.push(("variant", "standard".into()));
        let path = format!("/api/challenge/{}", segment(username)?);
        let bytes = self.request(Family::Challenge, Method::POST, &path, Body::Form(form(&fields)), SMALL).await?;
        json(&bytes)
    }

    /// `POST /api/challenge/{challengeId}/accept`.
    pub async fn accept(&self, challenge: &str) -> Result<(), Error> {
        self.ok(Family::Challenge, &format!("/api/challenge/{}/accept", segment(challenge)?), Body::Empty).await
    }

    /// `POST /api/challenge/{challengeId}/decline`.
    pub async fn decline(&self, challenge: &str, reason: DeclineReason) -> Result<(), Error> {
        let body = Body::Form(form(&[("reason", reason.as_str().into())]));
        self.ok(Family::Challenge, &format!("/api/challenge/{}/decline", segment(challenge)?), body).await
    }

    /// `POST /api/board/seek`, real-time: the seek stands while the returned
    /// stream is open (Lichess closes it once a game starts or the seek
    /// expires); dropping it cancels the seek.
    pub async fn seek(&self, spec: &SeekSpec) -> Result<Lines, Error> {
        let body = form(&[
            ("rated", spec.rated.to_string()),
            ("time", spec.minutes.to_string()),
            ("increment", spec.increment_s.to_string()),
            ("variant", "standard".into()),
        ]);
        self.stream(Method::POST, "/api/board/seek", Body::Form(body)).await
    }

    /// `POST /api/broadcast/round/{broadcastRoundId}/push`: up to 100 games of
    /// PGN; the reply says, game by game in their order, how many moves were
    /// read or what was wrong.
    pub async fn push_pgn(&self, round: &str, pgn: String) -> Result<PushReply, Error> {
        let path = format!("/api/broadcast/round/{}/push", segment(round)?);
        let bytes = self.request(Family::Broadcast, Method::POST, &path, Body::Text(pgn), MAX_REPLY).await?;
        json(&bytes)
    }
}

/// The requests that end a game from the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndRequest {
    Resign,
    Abort,
    /// The opponent left: the win (`opponentGone`'s `claimWinInSeconds` is 0).
    ClaimVictory,
    /// The opponent left: a draw.
    ClaimDraw,
}

impl EndRequest {
    fn path(self) -> &'static str {
        match self {
            EndRequest::Resign => "resign",
            EndRequest::Abort => "abort",
            EndRequest::ClaimVictory => "claim-victory",
            EndRequest::ClaimDraw => "claim-draw",
        }
    }
}
