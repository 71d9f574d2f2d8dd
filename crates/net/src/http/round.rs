//! A round from the pairing program, at a relay given its file: what the
//! arbiter sees of it (`GET /api/round`), the file with the round's
//! results written in (`GET /round.trf`), and what the arbiter does with it
//! (`POST /api/round/result`, `POST /api/round/reload`). The file itself is
//! `tactus relay`'s to read and write (tactus-trf): the server knows the
//! round only as a [`RoundDesk`].

use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::{self, HeaderValue};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tactus_trace::Player;
use tactus_trf::Outcome;

use super::{AppState, Arbiter, Refused, bad, error, json_text, parse};
use crate::auth::same_secret;

/// The round as the arbiter's page shows it (`GET /api/round`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct RoundView {
    /// The file's name.
    pub file: String,
    /// The round the relay plays; `None` before a file could be read.
    pub round: Option<u32>,
    pub tournament: Option<String>,
    /// `TRF-16` or `TRF-26`.
    pub layout: Option<String>,
    /// Why the last reading failed (the relay keeps the round it had).
    pub error: Option<String>,
    /// The round's boards, in FIDE's order.
    pub boards: Vec<RoundBoard>,
    /// The players with no board: byes, absences.
    pub unpaired: Vec<RoundUnpaired>,
}

/// One board of the round.
#[derive(Debug, Clone, Serialize)]
pub struct RoundBoard {
    pub number: u32,
    pub white: Player,
    pub black: Player,
    /// The hall's board whose id ends in the number, once heard from.
    pub id: Option<String>,
    /// Why the board is not told its pairing, when it cannot be (two
    /// boards' ids end in the number).
    pub problem: Option<String>,
    /// The board shows the pairing (its tags are the pairing's).
    pub shown: bool,
    /// The result the board's game ended with.
    pub game: Option<Outcome>,
    /// The result the arbiter set or corrected here.
    pub arbiter: Option<Outcome>,
    /// What `/round.trf` holds: the arbiter's, else the game's, else the file's.
    pub result: Option<Outcome>,
}

/// A player the round gives no board.
#[derive(Debug, Clone, Serialize)]
pub struct RoundUnpaired {
    pub name: String,
    /// The player's starting rank.
    pub rank: u16,
    /// The file's code for the round: `H`, `F`, `U`, `Z`, or `null`.
    pub code: Option<String>,
}

/// Why a round's desk refuses what the arbiter asks.
#[derive(Debug, thiserror::Error)]
pub enum RoundError {
    #[error("no round is loaded")]
    NoRound,
    #[error("round {round} has no board {board}")]
    NoBoard { round: u32, board: u32 },
    /// The round's file could not be read or written; the error names the
    /// file, and the line and column where it can.
    #[error(transparent)]
    File(Box<dyn std::error::Error + Send + Sync>),
}

/// A round a relay plays, as the server reaches it.
pub trait RoundDesk: Send + Sync + 'static {
    /// The round now.
    fn view(&self) -> RoundView;
    /// The file with the round's results written in, and the file's name.
    fn trf(&self) -> Result<(String, Vec<u8>), RoundError>;
    /// The arbiter sets board `board`'s result, or corrects it; `None`
    /// takes the board's own again.
    fn set_result(&self, board: u32, result: Option<Outcome>) -> Result<(), RoundError>;
    /// Reads the file again, for round `round` (the next when `None`); a
    /// file that fails keeps the round the relay had, and says why.
    fn reload(&self, round: Option<u32>) -> Result<(), RoundError>;
}

fn no_round() -> Response {
    error(StatusCode::NOT_FOUND, "this server plays no round (tactus relay --round-trf FILE --round N)")
}

/// `GET /api/round`.
pub(super) async fn api_round(State(state): State<AppState>) -> Response {
    let Some(desk) = &state.round else { return StatusCode::NO_CONTENT.into_response() };
    match serde_json::to_string(&desk.view()) {
        Ok(text) => json_text(text),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

/// Where a token is set, the request carries it (a download is the
/// arbiter's too); where none is, the file is everyone's, as the PGN is.
/// The refusal, when it does not.
fn refused_without_token(parts: &HeaderMap, state: &AppState) -> Option<Response> {
    let token = state.token.as_ref()?;
    let given = parts.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    match given {
        Some(given) if same_secret(given.trim().as_bytes(), token.as_bytes()) => None,
        Some(_) => Some(error(StatusCode::FORBIDDEN, "wrong arbiter token")),
        None => {
            let mut response =
                error(StatusCode::UNAUTHORIZED, "send the arbiter's token: Authorization: Bearer <token>");
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            Some(response)
        }
    }
}

/// `GET /round.trf`.
pub(super) async fn round_trf(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let Some(desk) = &state.round else { return no_round() };
    if let Some(refused) = refused_without_token(&headers, &state) {
        return refused;
    }
    match desk.trf() {
        Ok((name, bytes)) => {
            // The name as the file had it, quotes and controls out.
            let name: String = name.chars().filter(|c| !c.is_control() && *c != '"' && *c != '\\').collect();
            let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
                .unwrap_or(HeaderValue::from_static("attachment; filename=\"round.trf\""));
            let headers = [
                (header::CONTENT_TYPE, HeaderValue::from_static("text/plain")),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
                (header::CONTENT_DISPOSITION, disposition),
            ];
            (headers, bytes).into_response()
        }
        Err(why) => error(StatusCode::SERVICE_UNAVAILABLE, why.to_string()),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetBody {
    board: u32,
    result: Option<Outcome>,
}

/// `POST /api/round/result`: `{"board": 3, "result": "1-0" | … | null}`.
pub(super) async fn set_round_result(
    _: Arbiter,
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refused> {
    let Some(desk) = &state.round else { return Ok(no_round()) };
    let SetBody { board, result } = parse(&headers, &body)?;
    desk.set_result(board, result).map_err(|why| bad(why.to_string()))?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ReloadBody {
    round: Option<u32>,
}

/// `POST /api/round/reload`: `{}` (the next round) or `{"round": n}`.
pub(super) async fn reload_round(
    _: Arbiter,
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refused> {
    let Some(desk) = &state.round else { return Ok(no_round()) };
    let ReloadBody { round } = if body.is_empty() { ReloadBody::default() } else { parse(&headers, &body)? };
    let desk = desk.clone();
    // Reading a file: off the server's runtime.
    let reloaded = tokio::task::spawn_blocking(move || desk.reload(round)).await;
    match reloaded {
        Ok(Ok(())) => Ok(axum::Json(json!({ "ok": true })).into_response()),
        Ok(Err(why)) => Err(Refused(StatusCode::UNPROCESSABLE_ENTITY, why.to_string())),
        Err(e) => Err(Refused(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())),
    }
}
