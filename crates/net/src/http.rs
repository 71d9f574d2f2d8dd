//! The HTTP side: the PGN feed, the JSON API the page uses, the page itself,
//! and the arbiter's actions (each needs the bearer token). `API.md` is the
//! contract.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::path::{Component, Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, FromRequestParts, Path as UrlPath, State};
use axum::http::header::{self, HeaderValue};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::json;
use shakmaty::Color;
use tactus_core::serde_chess;
use tactus_trace::{Claim, GameResult, Input, OffBoardReason};
use tokio::sync::{Notify, mpsc, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

use crate::auth::{Refusals, SecretError, read_secret, same_secret};
use crate::feed::{BoardFeed, Hall, Trust};
use crate::lichess_view::LichessView;
use crate::sse::{self, SharedHall};
use crate::teams::{BoardTeams, MatchScore};
use crate::wire::{Control, MAX_ADDED_MS, MAX_CLOCK_SET_MS, check_arbiter_input, opt_spelled, spelled, unix_ms};

mod round;

pub use round::{RoundBoard, RoundDesk, RoundError, RoundUnpaired, RoundView};

/// The environment variable that may hold the arbiter's token.
pub const TOKEN_ENV: &str = "TACTUS_TOKEN";

/// The arbiter's token: from its file if one is given, else from
/// [`TOKEN_ENV`]; `None` when neither is set (control is then off).
pub fn arbiter_token(file: Option<&Path>) -> Result<Option<String>, SecretError> {
    if let Some(path) = file {
        return Ok(Some(String::from_utf8_lossy(&read_secret(path, "arbiter token")?).into_owned()));
    }
    Ok(std::env::var(TOKEN_ENV).ok().map(|t| t.trim().to_string()).filter(|t| !t.is_empty()))
}

/// What the server holds open, and for how long: so that clients that
/// connect and say nothing, or trickle, cannot use up the process's files.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections held at once, `/events` streams included. A new one past
    /// this closes the oldest that is between requests; with none, it is
    /// closed itself.
    pub max_connections: usize,
    /// `/events` streams at once; past this, 503.
    pub max_viewers: usize,
    /// From a connection's start, or the end of its last reply, to a whole
    /// request head.
    pub header_timeout: Duration,
    /// To read a request's body and answer it (not an `/events` stream's life).
    pub request_timeout: Duration,
    /// How long a reply being written may wait for the client to take any
    /// of it; past this the connection is closed, and what it held freed.
    pub write_timeout: Duration,
    /// The largest request body (the actions' JSON is tiny).
    pub max_body: usize,
}

/// The process's limit on open files (`LimitNOFILE`, `ulimit -n`), from
/// `/proc/self/limits`; `None` where that cannot be read.
fn open_files_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..].split_whitespace().next()?.parse().ok()
}

impl Limits {
    /// Connections the server may hold with `files` open files allowed:
    /// some are kept for the rest of the daemon (the clock's serial line,
    /// the journal, the broker, sound), at most 2,048.
    pub fn connections_for(files: usize) -> usize {
        files.saturating_sub(256).clamp(64, 2048)
    }
}

impl Default for Limits {
    /// The connection limit follows the process's limit on open files
    /// (768 with Linux's default 1,024; 2,048 from 2,304 up).
    fn default() -> Limits {
        Limits {
            max_connections: Limits::connections_for(open_files_limit().unwrap_or(1024)),
            max_viewers: 256,
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(10),
            max_body: 16 * 1024,
        }
    }
}

/// What the server needs: the hall, where controls go, the arbiter's token
/// and the page's files. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    hall: SharedHall,
    controls: Result<mpsc::Sender<Control>, Arc<str>>,
    token: Option<Arc<str>>,
    web_dir: Option<Arc<Path>>,
    limits: Limits,
    viewers: Arc<AtomicUsize>,
    /// The pushing to a Lichess broadcast, when the hall is pushed to one.
    lichess: Option<watch::Receiver<LichessView>>,
    /// A round from the pairing program's file, at a relay given one.
    round: Option<Arc<dyn RoundDesk>>,
}

impl AppState {
    /// No token (every control refused), no page directory.
    pub fn new(hall: SharedHall, controls: mpsc::Sender<Control>) -> AppState {
        AppState::with_controls(hall, Ok(controls))
    }

    /// A server whose boards take no controls (a relay without a hall
    /// key): every action is answered 503 with `why`.
    pub fn read_only(hall: SharedHall, why: impl Into<String>) -> AppState {
        AppState::with_controls(hall, Err(why.into().into()))
    }

    fn with_controls(hall: SharedHall, controls: Result<mpsc::Sender<Control>, Arc<str>>) -> AppState {
        AppState {
            hall,
            controls,
            token: None,
            web_dir: None,
            limits: Limits::default(),
            viewers: Arc::new(AtomicUsize::new(0)),
            lichess: None,
            round: None,
        }
    }

    /// The hall is pushed to a Lichess broadcast: `/api/lichess` shows how
    /// that goes.
    pub fn with_lichess(mut self, status: watch::Receiver<LichessView>) -> AppState {
        self.lichess = Some(status);
        self
    }

    /// A round from the pairing program's file: `/api/round`, `/round.trf`
    /// and the arbiter's actions on it.
    pub fn with_round(mut self, round: Arc<dyn RoundDesk>) -> AppState {
        self.round = Some(round);
        self
    }

    /// The arbiter's bearer token; an empty one leaves control off.
    pub fn with_token(mut self, token: impl Into<String>) -> AppState {
        let token = token.into();
        self.token = (!token.is_empty()).then(|| token.into());
        self
    }

    /// Connection limits and timeouts other than the defaults.
    pub fn with_limits(mut self, limits: Limits) -> AppState {
        self.limits = limits;
        self
    }

    /// The built page (`web/dist`: `index.html` and `assets/`).
    pub fn with_web_dir(mut self, dir: impl Into<PathBuf>) -> AppState {
        self.web_dir = Some(dir.into().into());
        self
    }

    /// The routes, served until `stop` (which ends the `/events` streams too).
    fn router(self, stop: CancellationToken) -> Router {
        let streams =
            sse::Streams { hall: self.hall.clone(), open: self.viewers.clone(), max: self.limits.max_viewers, stop };
        Router::new()
            .route("/games.pgn", get(games_pgn))
            .route("/game/{file}", get(game_pgn))
            .route("/api/hall", get(api_hall))
            .route("/api/game/{id}", get(api_game))
            .route("/api/lichess", get(api_lichess))
            .route("/api/round", get(round::api_round))
            .route("/round.trf", get(round::round_trf))
            .route("/api/round/result", post(round::set_round_result))
            .route("/api/round/reload", post(round::reload_round))
            .route("/api/game/{id}/result", post(set_result))
            .route("/api/game/{id}/clock", post(set_clock))
            .route("/api/game/{id}/penalty", post(penalty))
            .route("/api/game/{id}/claim", post(claim))
            .route("/api/game/{id}/pause", post(pause))
            .route("/api/game/{id}/resume", post(resume))
            .route("/events", get(sse::events).with_state(streams))
            .route("/", get(page))
            .route("/board/{id}", get(page))
            .route("/arbiter", get(page))
            .route("/assets/{*path}", get(asset))
            .layer(DefaultBodyLimit::max(self.limits.max_body))
            .with_state(self)
    }
}

/// A connection's place among those held open.
struct Slot {
    id: u64,
    peer: std::net::IpAddr,
    /// Requests being answered (an `/events` stream counts while it lasts).
    busy: AtomicUsize,
    evict: Notify,
}

/// While a request is answered, its connection is not idle.
struct Busy(Arc<Slot>);

impl Busy {
    fn new(slot: &Arc<Slot>) -> Busy {
        slot.busy.fetch_add(1, Ordering::SeqCst);
        Busy(slot.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The connections held open, oldest first, and how many each address holds.
struct Connections {
    max: usize,
    inner: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    next: u64,
    slots: BTreeMap<u64, Arc<Slot>>,
    per_peer: HashMap<std::net::IpAddr, usize>,
}

impl Open {
    fn remove(&mut self, id: u64) -> Option<Arc<Slot>> {
        let slot = self.slots.remove(&id)?;
        if let Some(n) = self.per_peer.get_mut(&slot.peer) {
            *n -= 1;
            if *n == 0 {
                self.per_peer.remove(&slot.peer);
            }
        }
        Some(slot)
    }
}

impl Connections {
    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for a connection from `peer`: when all are taken, an idle
    /// connection (between requests, or still sending its head) is closed
    /// to make room, the oldest of the address that holds the most, so
    /// that one client opening many cannot crowd out the others; `None`
    /// when every connection is answering a request.
    fn admit(&self, peer: std::net::IpAddr) -> Option<(Arc<Slot>, bool)> {
        let mut open = self.lock();
        let full = open.slots.len() >= self.max;
        if full {
            let idle = open
                .slots
                .values()
                .filter(|s| s.busy.load(Ordering::SeqCst) == 0)
                .max_by_key(|s| (open.per_peer.get(&s.peer).copied().unwrap_or(0), std::cmp::Reverse(s.id)))
                .map(|s| s.id)?;
            if let Some(slot) = open.remove(idle) {
                slot.evict.notify_one();
            }
        }
        open.next += 1;
        let slot = Arc::new(Slot { id: open.next, peer, busy: AtomicUsize::new(0), evict: Notify::new() });
        open.slots.insert(slot.id, slot.clone());
        *open.per_peer.entry(peer).or_default() += 1;
        Some((slot, full))
    }

    fn release(&self, id: u64) {
        self.lock().remove(id);
    }
}

/// A reply's body that keeps its connection busy until it has been sent.
struct Guarded {
    body: Body,
    _busy: Busy,
}

impl http_body::Body for Guarded {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// How long open requests may go on once the server is told to stop.
const GRACE: Duration = Duration::from_secs(5);

/// Serves until `stop` is cancelled (or the returned future is dropped),
/// then ends the `/events` streams and finishes the requests in flight: the
/// future is ready once every connection has ended, or after 5 s those
/// still open are closed. Holds at most [`Limits::max_connections`]
/// connections, closes those that do not send a request head in time, and
/// bounds every request's body and answer.
///
/// The connections are served on a thread of their own, with a runtime of
/// its own: a crowd of clients never delays the caller's tasks (the
/// daemon's game and clock), and what they cost is allocated in that
/// thread's own heap (glibc gives each thread an arena), not between the
/// game's allocations, where glibc kept it once freed: 1,000 slow clients
/// left 13–23 MB behind, more round after round (`benches/http_load.rs`);
/// now they cost about 2 MB at their peak, kept for the next crowd.
pub fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    stop: &CancellationToken,
) -> impl Future<Output = std::io::Result<()>> + Send + 'static {
    // The server's own: dropping the future stops the server, not its owner.
    let stop = stop.child_token();
    async move {
        let _stop_when_dropped = stop.clone().drop_guard();
        let listener = listener.into_std()?;
        let (done_tx, done) = tokio::sync::oneshot::channel();
        std::thread::Builder::new().name("tactus-http".into()).spawn(move || {
            let served = tokio::runtime::Builder::new_current_thread().enable_all().build().and_then(|rt| {
                rt.block_on(async move { accept(tokio::net::TcpListener::from_std(listener)?, state, stop).await })
            });
            let _ = done_tx.send(served);
        })?;
        done.await.unwrap_or_else(|_| Err(std::io::Error::other("the HTTP thread ended")))
    }
}

/// Takes connections until `stop`, on the HTTP thread, then waits for the
/// connections (each is given [`GRACE`] to finish).
async fn accept(listener: tokio::net::TcpListener, state: AppState, stop: CancellationToken) -> std::io::Result<()> {
    let limits = state.limits;
    let router = state.router(stop.clone());
    let connections = Arc::new(Connections { max: limits.max_connections.max(1), inner: Mutex::default() });
    let tasks = TaskTracker::new();
    let refused = Refusals::default();
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of files, most likely: wait rather than spin.
                    refused.warn(|| format!("http: a connection could not be accepted: {e}"));
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = stop.cancelled() => break,
        };
        let (stream, peer) = stream;
        let Some((slot, made_room)) = connections.admit(peer.ip()) else {
            refused.warn(|| {
                format!("http: {} connections are all answering requests; a new one was closed", limits.max_connections)
            });
            continue;
        };
        let _ = stream.set_nodelay(true);
        tasks.spawn(connection(stream, slot, router.clone(), limits, stop.clone(), connections.clone()));
        if made_room {
            // Let the connection closed to make room go before taking
            // another: its file is free again, so the open files stay
            // within the limit however fast clients come back.
            tokio::task::yield_now().await;
        }
    }
    // A client from now on is refused rather than left waiting.
    drop(listener);
    tasks.close();
    let _ = tokio::time::timeout(GRACE + Duration::from_secs(1), tasks.wait()).await;
    Ok(())
}

/// The largest request head taken; past it, 431. A browser's is a few
/// hundred bytes.
pub const MAX_HEAD: usize = 16 * 1024;

async fn connection(
    mut stream: tokio::net::TcpStream,
    slot: Arc<Slot>,
    router: Router,
    limits: Limits,
    stop: CancellationToken,
    connections: Arc<Connections>,
) {
    // hyper gives a connection buffers of 8 KiB and more as it starts
    // reading: a client gets them only once its first request head is in.
    // Until then it costs the bytes it sent, so that a crowd of clients
    // that say nothing, or trickle, costs little.
    let first = tokio::select! {
        head = tokio::time::timeout(limits.header_timeout, first_head(&mut stream)) => head.ok().and_then(Result::ok),
        // Closed to make room: the socket closes as the connection drops.
        () = slot.evict.notified() => None,
        () = stop.cancelled() => None,
    };
    if let Some(head) = first {
        // Boxed: the task of a client still sending its head holds none of
        // hyper's state.
        let io = Prefixed::new(head, stream, limits.write_timeout);
        Box::pin(serve_connection(io, &slot, router, limits, stop)).await;
    }
    connections.release(slot.id);
}

/// Reads until the end of the first request head (or [`MAX_HEAD`] bytes).
async fn first_head(stream: &mut tokio::net::TcpStream) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::new();
    loop {
        stream.readable().await?;
        head.reserve(512);
        let scanned = head.len().saturating_sub(3);
        match stream.try_read_buf(&mut head) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(e) => return Err(e),
        }
        let new = &head[scanned..];
        let ended = new.windows(4).any(|w| w == b"\r\n\r\n") || new.windows(2).any(|w| w == b"\n\n");
        if ended || head.len() >= MAX_HEAD {
            return Ok(head);
        }
    }
}

/// A connection whose first bytes were read already: they are read again
/// first, then the stream. A write the client takes nothing of for
/// `write_timeout` fails, and the connection with it.
struct Prefixed {
    head: Vec<u8>,
    at: usize,
    stream: tokio::net::TcpStream,
    write_timeout: Duration,
    /// Running while a write waits for the client.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Prefixed {
    fn new(head: Vec<u8>, stream: tokio::net::TcpStream, write_timeout: Duration) -> Prefixed {
        Prefixed { head, at: 0, stream, write_timeout, stalled: None }
    }

    /// A write's outcome: any progress stops the timer; waiting starts it,
    /// and waiting past it is an error.
    fn timed(&mut self, cx: &mut Context<'_>, written: Poll<std::io::Result<usize>>) -> Poll<std::io::Result<usize>> {
        if written.is_ready() {
            self.stalled = None;
            return written;
        }
        let timeout = self.write_timeout;
        let stalled = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client took nothing of the reply in time",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl tokio::io::AsyncRead for Prefixed {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.at < self.head.len() {
            let n = buf.remaining().min(self.head.len() - self.at);
            buf.put_slice(&self.head[self.at..self.at + n]);
            self.at += n;
            if self.at == self.head.len() {
                self.head = Vec::new();
                self.at = 0;
            }
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Prefixed {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.timed(cx, written)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.timed(cx, written)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Answers the connection's requests with hyper until it ends, is closed to
/// make room, or the server stops.
async fn serve_connection(io: Prefixed, slot: &Arc<Slot>, router: Router, limits: Limits, stop: CancellationToken) {
    let service_slot = slot.clone();
    let service = hyper::service::service_fn(move |request: axum::http::Request<hyper::body::Incoming>| {
        let busy = Busy::new(&service_slot);
        let router = router.clone();
        async move {
            let reply = match tokio::time::timeout(limits.request_timeout, router.oneshot(request)).await {
                Ok(Ok(reply)) => reply,
                Err(_) => error(StatusCode::REQUEST_TIMEOUT, "the request was not sent and answered in time"),
            };
            Ok::<_, Infallible>(reply.map(|body| Body::new(Guarded { body, _busy: busy })))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true)
        .max_buf_size(MAX_HEAD);
    let conn = builder.serve_connection(hyper_util::rt::TokioIo::new(io), service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        // Closed to make room: the socket closes as the connection drops.
        () = slot.evict.notified() => {}
        () = stop.cancelled() => {
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(GRACE, conn).await;
        }
    }
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
    /// The server's clock as it wrote a single board's reply: with
    /// `clocks.at_unix_ms`, how long the running clock has run since.
    #[serde(skip_serializing_if = "Option::is_none")]
    now_unix_ms: Option<u64>,
}

#[derive(Serialize)]
struct HallView<'a> {
    hall: &'a str,
    trust: Trust,
    /// The server's clock as it wrote the reply (see `BoardView::now_unix_ms`).
    now_unix_ms: u64,
    boards: Vec<BoardView<'a>>,
    matches: Vec<MatchScore>,
}

async fn api_hall(State(state): State<AppState>) -> Response {
    let text = state.hall.read(|h| {
        let games = h.games();
        let boards =
            games.iter().map(|(feed, team)| BoardView { feed, team: team.clone(), now_unix_ms: None }).collect();
        let now_unix_ms = unix_ms();
        serde_json::to_string(&HallView { hall: h.name(), trust: h.trust(), now_unix_ms, boards, matches: h.scores() })
    });
    match text {
        Ok(text) => json_text(text),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

async fn api_game(State(state): State<AppState>, UrlPath(id): UrlPath<String>) -> Response {
    let text = state.hall.read(|h| {
        h.game(&id).map(|(feed, team)| {
            let view = BoardView { feed: &feed, team, now_unix_ms: Some(unix_ms()) };
            serde_json::to_string(&view)
        })
    });
    match text {
        Some(Ok(text)) => json_text(text),
        Some(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        None => no_board(&id),
    }
}

async fn api_lichess(State(state): State<AppState>) -> Response {
    // No broadcast is no error: the page asks every server, and a 404 would
    // be a failed resource in every browser's console.
    let Some(status) = &state.lichess else {
        return StatusCode::NO_CONTENT.into_response();
    };
    let text = serde_json::to_string(&*status.borrow());
    match text {
        Ok(text) => json_text(text),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
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
        if same_secret(given.trim().as_bytes(), token.as_bytes()) {
            Ok(Arbiter)
        } else {
            Err(error(StatusCode::FORBIDDEN, "wrong arbiter token"))
        }
    }
}

#[derive(Deserialize)]
struct ResultBody {
    #[serde(deserialize_with = "spelled")]
    result: GameResult,
    #[serde(default, deserialize_with = "opt_spelled")]
    reason: Option<OffBoardReason>,
}

/// A field of milliseconds, named in the error when it is missing or not
/// a whole number from 0 to `max`.
fn millis(body: &serde_json::Value, name: &str, max: u64) -> Result<u64, Refused> {
    let value = body.get(name).ok_or_else(|| bad(format!("{name} is missing")))?;
    value.as_u64().filter(|&ms| ms <= max).ok_or_else(|| {
        bad(format!("{name} must be a whole number of milliseconds from 0 to {max}, not {}", clip(&value.to_string())))
    })
}

fn clip(text: &str) -> String {
    text.chars().take(40).collect()
}

#[derive(Deserialize)]
struct PenaltySide {
    #[serde(with = "serde_chess::color")]
    side: Color,
}

#[derive(Deserialize)]
struct ClaimBody {
    #[serde(with = "serde_chess::color")]
    side: Color,
    #[serde(deserialize_with = "spelled")]
    claim: Claim,
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

/// How long an action may wait for the board's queue.
const SEND_WAIT: Duration = Duration::from_secs(2);

/// Sends an accepted action to the board's core.
async fn send(state: &AppState, board: String, input: Input) -> Result<Response, Refused> {
    check_arbiter_input(&input).map_err(|e| bad(e.to_string()))?;
    let unavailable = |why: String| Err(Refused(StatusCode::SERVICE_UNAVAILABLE, why));
    let known = state.hall.read(|h| h.feed(&board).map(|f| (f.seq, f.result)));
    let Some(known) = known else {
        return Ok(no_board(&board));
    };
    let tx = match &state.controls {
        Ok(tx) => tx,
        Err(why) => return unavailable(why.to_string()),
    };
    match known {
        (0, _) => return unavailable(format!("board {board:?} has not been heard from yet")),
        (_, Some(result)) => {
            let result = result.as_str();
            return unavailable(format!("the game on board {board:?} is over ({result}): it takes no more actions"));
        }
        _ => {}
    }
    match tokio::time::timeout(SEND_WAIT, tx.send(Control { board, input })).await {
        Ok(Ok(())) => Ok((StatusCode::ACCEPTED, axum::Json(json!({ "ok": true }))).into_response()),
        _ => unavailable("the board is not taking controls now".into()),
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
    let reason = body.reason.unwrap_or(OffBoardReason::Arbiter);
    send(&state, id, Input::Result { result: body.result, reason }).await
}

async fn set_clock(
    _: Arbiter,
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refused> {
    let b: serde_json::Value = parse(&headers, &body)?;
    let (white_ms, black_ms) = (millis(&b, "white_ms", MAX_CLOCK_SET_MS)?, millis(&b, "black_ms", MAX_CLOCK_SET_MS)?);
    send(&state, id, Input::SetClock { white_ms, black_ms }).await
}

async fn penalty(
    _: Arbiter,
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refused> {
    let b: serde_json::Value = parse(&headers, &body)?;
    let side: PenaltySide = serde_json::from_value(b.clone()).map_err(|e| bad(format!("bad request body: {e}")))?;
    let ms = millis(&b, "ms", MAX_ADDED_MS)?;
    send(&state, id, Input::AddTime { side: side.side, ms }).await
}

async fn claim(
    _: Arbiter,
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refused> {
    let ClaimBody { side, claim, accept } = parse(&headers, &body)?;
    if accept {
        return send(&state, id, Input::Claim { side, claim }).await;
    }
    // A rejected claim never reaches the core: it is recorded here.
    let what = match claim {
        Claim::Illegal => "an illegal move (A.5.2)",
        Claim::Threefold => "a draw by threefold repetition (9.2)",
        Claim::Fifty => "a draw under the fifty-move rule (9.3)",
    };
    let side = serde_chess::color_str(side);
    Ok(match state.hall.note(&id, &format!("the arbiter rejected {side}'s claim of {what}")) {
        Some(note) => axum::Json(json!({ "ok": true, "note": note })).into_response(),
        None => no_board(&id),
    })
}

async fn pause(_: Arbiter, State(state): State<AppState>, UrlPath(id): UrlPath<String>) -> Result<Response, Refused> {
    send(&state, id, Input::Pause).await
}

async fn resume(_: Arbiter, State(state): State<AppState>, UrlPath(id): UrlPath<String>) -> Result<Response, Refused> {
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
