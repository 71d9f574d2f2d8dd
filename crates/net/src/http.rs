//! The HTTP side: the PGN feed, the JSON API the page uses, the page itself,
//! and the arbiter's actions (each needs the bearer token). `API.md` is the
//! contract.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{FromRequestParts, Path as UrlPath, State};
use axum::http::header::{self, HeaderValue};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::json;
use shakmaty::Color;
use subtle::ConstantTimeEq;
use tactus_trace::{Claim, GameResult, Input, OffBoardReason};
use tokio::sync::mpsc;

use crate::feed::{BoardFeed, Hall};
use crate::sse::{self, SharedHall, Shutdown};
use crate::teams::{BoardTeams, MatchScore};

/// An arbiter's action for a board's core, as the daemon applies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Control {
    pub board: String,
    pub input: Input,
}

/// What the server needs: the hall, where controls go, the arbiter's token
/// and the page's files. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub(crate) hall: SharedHall,
    controls: mpsc::Sender<Control>,
    token: Option<Arc<str>>,
    web_dir: Option<Arc<Path>>,
    pub(crate) shutdown: Shutdown,
}

impl AppState {
    /// No token (every control refused), no page directory.
    pub fn new(hall: SharedHall, controls: mpsc::Sender<Control>) -> AppState {
        AppState { hall, controls, token: None, web_dir: None, shutdown: Shutdown::new() }
    }

    /// The arbiter's bearer token; an empty one leaves control off.
    pub fn with_token(mut self, token: impl Into<String>) -> AppState {
        let token = token.into();
        self.token = (!token.is_empty()).then(|| token.into());
        self
    }

    /// The built page (`web/dist`: `index.html` and `assets/`).
    pub fn with_web_dir(mut self, dir: impl Into<PathBuf>) -> AppState {
        self.web_dir = Some(dir.into().into());
        self
    }

    /// Shut the server down (and end the `/events` streams) when triggered.
    pub fn with_shutdown(mut self, shutdown: Shutdown) -> AppState {
        self.shutdown = shutdown;
        self
    }

    pub fn hall(&self) -> &SharedHall {
        &self.hall
    }

    /// The routes, for serving or embedding.
    pub fn router(self) -> Router {
        Router::new()
            .route("/games.pgn", get(games_pgn))
            .route("/game/{file}", get(game_pgn))
            .route("/api/hall", get(api_hall))
            .route("/api/game/{id}", get(api_game))
            .route("/api/game/{id}/result", post(set_result))
            .route("/api/game/{id}/clock", post(set_clock))
            .route("/api/game/{id}/penalty", post(penalty))
            .route("/api/game/{id}/claim", post(claim))
            .route("/api/game/{id}/pause", post(pause))
            .route("/api/game/{id}/resume", post(resume))
            .route("/events", get(sse::events))
            .route("/", get(page))
            .route("/board/{id}", get(page))
            .route("/arbiter", get(page))
            .route("/assets/{*path}", get(asset))
            .with_state(self)
    }
}

/// Serves until the state's [`Shutdown`] is triggered, then finishes the
/// requests in flight.
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    let shutdown = state.shutdown.clone();
    axum::serve(listener, state.router()).with_graceful_shutdown(async move { shutdown.wait().await }).await
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, axum::Json(json!({ "error": message.into() }))).into_response()
}

fn no_board(id: &str) -> Response {
    error(StatusCode::NOT_FOUND, format!("no board {id:?} in this hall"))
}

fn pgn(text: String) -> Response {
    let headers = [
        (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
        (header::CACHE_CONTROL, "no-cache"),
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
    ];
    (headers, text).into_response()
}

fn json_text(text: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json"), (header::CACHE_CONTROL, "no-cache")], text).into_response()
}

async fn games_pgn(State(state): State<AppState>) -> Response {
    pgn(state.hall.read(Hall::games_pgn))
}

async fn game_pgn(State(state): State<AppState>, UrlPath(file): UrlPath<String>) -> Response {
    let Some(id) = file.strip_suffix(".pgn") else {
        return error(StatusCode::NOT_FOUND, "a game is at /game/{id}.pgn");
    };
    match state.hall.read(|h| h.game_pgn(id)) {
        Some(text) => pgn(text),
        None => no_board(id),
    }
}

/// A board as `/api/hall` and `/api/game/{id}` show it.
#[derive(Serialize)]
struct BoardView<'a> {
    #[serde(flatten)]
    feed: &'a BoardFeed,
    team: Option<BoardTeams>,
}

#[derive(Serialize)]
struct HallView<'a> {
    hall: &'a str,
    boards: Vec<BoardView<'a>>,
    matches: Vec<MatchScore>,
}

async fn api_hall(State(state): State<AppState>) -> Response {
    let text = state.hall.read(|h| {
        let boards = h.feeds().map(|feed| BoardView { feed, team: h.board_teams(&feed.id) }).collect();
        serde_json::to_string(&HallView { hall: h.name(), boards, matches: h.scores() })
    });
    match text {
        Ok(text) => json_text(text),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

async fn api_game(State(state): State<AppState>, UrlPath(id): UrlPath<String>) -> Response {
    let text = state
        .hall
        .read(|h| h.feed(&id).map(|feed| serde_json::to_string(&BoardView { feed, team: h.board_teams(&id) })));
    match text {
        Some(Ok(text)) => json_text(text),
        Some(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        None => no_board(&id),
    }
}

/// Proof that the request carries the arbiter's token. A server without a
/// token refuses every control rather than allowing it.
struct Arbiter;

impl FromRequestParts<AppState> for Arbiter {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Arbiter, Response> {
        let Some(token) = &state.token else {
            return Err(error(StatusCode::FORBIDDEN, "arbiter control is off: the server has no token configured"));
        };
        let given = parts.headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        let Some(given) = given.and_then(|v| v.strip_prefix("Bearer ")) else {
            let mut response =
                error(StatusCode::UNAUTHORIZED, "send the arbiter's token: Authorization: Bearer <token>");
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return Err(response);
        };
        if bool::from(given.trim().as_bytes().ct_eq(token.as_bytes())) {
            Ok(Arbiter)
        } else {
            Err(error(StatusCode::FORBIDDEN, "wrong arbiter token"))
        }
    }
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Side {
    White,
    Black,
}

impl From<Side> for Color {
    fn from(s: Side) -> Color {
        match s {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

#[derive(Deserialize)]
struct ResultBody {
    result: String,
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize)]
struct ClockBody {
    white_ms: u64,
    black_ms: u64,
}

#[derive(Deserialize)]
struct PenaltyBody {
    side: Side,
    ms: u64,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum ClaimName {
    Illegal,
    Threefold,
    Fifty,
}

#[derive(Deserialize)]
struct ClaimBody {
    side: Side,
    claim: ClaimName,
    accept: bool,
}

/// A request refused with a reason, as `{"error": …}`.
struct Refused(StatusCode, String);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        error(self.0, self.1)
    }
}

fn bad(message: String) -> Refused {
    Refused(StatusCode::BAD_REQUEST, message)
}

fn parse<T: for<'de> Deserialize<'de>>(headers: &HeaderMap, body: &Bytes) -> Result<T, Refused> {
    let json = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_none_or(|v| v.contains("json"));
    if !json {
        return Err(Refused(StatusCode::UNSUPPORTED_MEDIA_TYPE, "send JSON (Content-Type: application/json)".into()));
    }
    serde_json::from_slice(body).map_err(|e| bad(format!("bad request body: {e}")))
}

/// Sends an accepted action to the board's core.
async fn send(state: &AppState, board: String, input: Input) -> Response {
    if state.hall.read(|h| h.feed(&board).is_none()) {
        return no_board(&board);
    }
    match state.controls.send(Control { board, input }).await {
        Ok(()) => (StatusCode::ACCEPTED, axum::Json(json!({ "ok": true }))).into_response(),
        Err(_) => error(StatusCode::SERVICE_UNAVAILABLE, "the board is not taking controls now"),
    }
}

async fn set_result(
    _: Arbiter,
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refused> {
    let body: ResultBody = parse(&headers, &body)?;
    let result: GameResult = body.result.parse().map_err(bad)?;
    let reason = match body.reason.as_deref() {
        None => OffBoardReason::Arbiter,
        Some(r) => r.parse().map_err(bad)?,
    };
    Ok(send(&state, id, Input::Result { result, reason }).await)
}

async fn set_clock(
    _: Arbiter,
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refused> {
    let b: ClockBody = parse(&headers, &body)?;
    Ok(send(&state, id, Input::SetClock { white_ms: b.white_ms, black_ms: b.black_ms }).await)
}

async fn penalty(
    _: Arbiter,
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refused> {
    let b: PenaltyBody = parse(&headers, &body)?;
    if b.ms == 0 {
        return Err(bad("a penalty adds time: ms must be more than 0".into()));
    }
    Ok(send(&state, id, Input::AddTime { side: b.side.into(), ms: b.ms }).await)
}

async fn claim(
    _: Arbiter,
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refused> {
    let b: ClaimBody = parse(&headers, &body)?;
    let side = Color::from(b.side);
    let claim = match b.claim {
        ClaimName::Illegal => Claim::Illegal,
        ClaimName::Threefold => Claim::Threefold,
        ClaimName::Fifty => Claim::Fifty,
    };
    if b.accept {
        return Ok(send(&state, id, Input::Claim { side, claim }).await);
    }
    // A rejected claim never reaches the core: it is recorded here.
    let what = match b.claim {
        ClaimName::Illegal => "an illegal move (A.5.2)",
        ClaimName::Threefold => "a draw by threefold repetition (9.2)",
        ClaimName::Fifty => "a draw under the fifty-move rule (9.3)",
    };
    let side = tactus_core::serde_chess::color_str(side);
    Ok(match state.hall.note(&id, &format!("the arbiter rejected {side}'s claim of {what}")) {
        Some(note) => axum::Json(json!({ "ok": true, "note": note })).into_response(),
        None => no_board(&id),
    })
}

async fn pause(_: Arbiter, State(state): State<AppState>, UrlPath(id): UrlPath<String>) -> Response {
    send(&state, id, Input::Pause).await
}

async fn resume(_: Arbiter, State(state): State<AppState>, UrlPath(id): UrlPath<String>) -> Response {
    send(&state, id, Input::Resume).await
}

const NOT_BUILT: &str = "<!doctype html>
<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tactus: the page is not built</title></head>
<body><h1>The live page is not built</h1>
<p>From the repository: <code>cd web &amp;&amp; npm ci &amp;&amp; npm run build</code>, then start tactus with
<code>--web web/dist</code>. The PGN feed is at <a href=\"/games.pgn\">/games.pgn</a> and the data at
<a href=\"/api/hall\">/api/hall</a> meanwhile.</p></body></html>
";

/// `/`, `/board/{id}` and `/arbiter`: the page's `index.html`, which reads
/// the address to know what to show.
async fn page(State(state): State<AppState>) -> Response {
    let Some(dir) = &state.web_dir else {
        return (StatusCode::SERVICE_UNAVAILABLE, Html(NOT_BUILT)).into_response();
    };
    match tokio::fs::read_to_string(dir.join("index.html")).await {
        Ok(text) => ([(header::CACHE_CONTROL, "no-cache")], Html(text)).into_response(),
        Err(_) => (StatusCode::SERVICE_UNAVAILABLE, Html(NOT_BUILT)).into_response(),
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "html" => "text/html; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// `/assets/{path}`: a file under the page's `assets/`; nothing outside it.
async fn asset(State(state): State<AppState>, UrlPath(path): UrlPath<String>) -> Response {
    let rel = Path::new(&path);
    let Some(dir) = &state.web_dir else {
        return error(StatusCode::NOT_FOUND, "the page is not built");
    };
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return error(StatusCode::NOT_FOUND, "no such asset");
    }
    let file = dir.join("assets").join(rel);
    match tokio::fs::read(&file).await {
        Ok(bytes) => {
            ([(header::CONTENT_TYPE, content_type(&file)), (header::CACHE_CONTROL, "no-cache")], bytes).into_response()
        }
        Err(_) => error(StatusCode::NOT_FOUND, "no such asset"),
    }
}
