//! HTTP/1.1 to Lichess, over TLS (rustls with ring, the system's root
//! certificates) or, for a local test server, plain.
//!
//! What Lichess asks of clients (its API reference, "Rate limiting"): one
//! request at a time — here, one at a time per [`Family`], streams aside —
//! and after a 429, a minute before the next request: every request of
//! the client waits until the pause is over. Replies are read up to a cap;
//! stream lines too ([`Lines`]). The token goes in a header marked
//! sensitive and nowhere else.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, Request, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::{ClientConfig, RootCertStore};
use tokio_util::task::TaskTracker;

use crate::ndjson::{Line, LineReader};
use crate::token::Token;

/// Lichess's own address.
pub const LICHESS: &str = "https://lichess.org";
/// After a 429, this long before the next request ("waiting one minute
/// before retrying will be sufficient", the API reference says).
pub const PAUSE_AFTER_429: Duration = Duration::from_secs(60);
/// A stream with no byte for this long is taken for dead and reopened at
/// once (Lichess sends an empty line every 7 s on the event stream: two
/// missed, and a little more for the network).
pub const SILENCE: Duration = Duration::from_secs(15);
/// A request without its reply's head after this long has failed.
pub const TIMEOUT: Duration = Duration::from_secs(20);
/// A move's POST is waited for longer: given up, it may still be carried
/// out by a server that is only slow, and it is sent again only once a
/// stream opened after it shows that the server lacks it.
pub const MOVE_TIMEOUT: Duration = Duration::from_secs(90);
/// The longest stream line kept: a `gameFull` of a long game with its
/// players is a few kilobytes.
pub const MAX_LINE: usize = 64 * 1024;
/// The largest JSON reply read (a push reply lists up to 100 games' tags).
pub const MAX_REPLY: usize = 1024 * 1024;
/// An idle connection older than this is not reused (servers close them).
const KEEP_IDLE: Duration = Duration::from_secs(30);
/// The most a server's `Retry-After` may hold us.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(3600);

/// Requests that go one at a time, each family on its own connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `/api/account`, `/api/token/test`.
    Account,
    /// `/api/board/…` moves, offers, resignations, chat.
    Board,
    /// `/api/challenge/…`.
    Challenge,
    /// `/api/broadcast/round/{id}/push`.
    Broadcast,
}

const FAMILIES: usize = 4;

impl Family {
    fn index(self) -> usize {
        match self {
            Family::Account => 0,
            Family::Board => 1,
            Family::Challenge => 2,
            Family::Broadcast => 3,
        }
    }
}

/// Why a request failed. Never holds the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("Lichess asks to slow down (HTTP 429): no request for {} s", .0.as_secs())]
    RateLimited(Duration),
    #[error("Lichess refused it (HTTP {status}): {error}")]
    Refused { status: u16, error: String },
    #[error("Lichess did not accept the token (HTTP 401): {0}; check the token file, or create a new token")]
    Unauthorized(String),
    #[error("the token lacks the permission this needs (HTTP 403): {0}")]
    Forbidden(String),
    #[error("Lichess answered HTTP {0}")]
    Status(u16),
    #[error("cannot connect to {host}: {why}")]
    Connect { host: String, why: String },
    #[error("the connection to {host} failed: {why}")]
    Network { host: String, why: String },
    #[error("no answer from {host} within {} s", .after.as_secs())]
    Timeout { host: String, after: Duration },
    #[error("the reply was larger than {0} bytes")]
    TooLarge(usize),
    #[error("the reply was not what Lichess's API describes: {0}")]
    Protocol(String),
    #[error("{0:?} cannot be part of a Lichess address")]
    BadInput(String),
}

impl Error {
    /// Lichess refuses the token (401), or what it may do (403): the
    /// account's trouble, not the network's.
    pub fn is_token(&self) -> bool {
        matches!(self, Error::Unauthorized(_) | Error::Forbidden(_))
    }

    /// Whether trying again later may succeed: the network, the server's
    /// own trouble, a 429.
    pub fn is_transient(&self) -> bool {
        match self {
            Error::RateLimited(_)
            | Error::Connect { .. }
            | Error::Network { .. }
            | Error::Timeout { .. }
            | Error::TooLarge(_)
            | Error::Protocol(_) => true,
            Error::Status(s) => *s >= 500 || *s == 408,
            Error::Refused { .. } | Error::Unauthorized(_) | Error::Forbidden(_) | Error::BadInput(_) => false,
        }
    }
}

/// Where Lichess is: `https://lichess.org`, or a test server's
/// `http://127.0.0.1:PORT`.
#[derive(Debug, Clone)]
struct Base {
    tls: bool,
    host: String,
    port: u16,
    /// The `Host` header.
    authority: String,
    /// A path the API is under (none for Lichess).
    prefix: String,
}

/// A Lichess URL that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("{url:?} is not a URL: {why}")]
    NotAUrl { url: String, why: String },
    #[error("{0:?}: the Lichess URL must start with https:// (or http:// for a test server)")]
    Scheme(String),
    #[error("{0:?} names no host")]
    NoHost(String),
    #[error("{0:?}: no user or password in the URL")]
    UserInfo(String),
    #[error("{0:?}: no query in the Lichess URL")]
    Query(String),
}

impl Base {
    fn parse(url: &str) -> Result<Base, UrlError> {
        let uri: http::Uri = url
            .parse()
            .map_err(|e: http::uri::InvalidUri| UrlError::NotAUrl { url: url.into(), why: e.to_string() })?;
        let tls = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            _ => return Err(UrlError::Scheme(url.into())),
        };
        let authority = uri.authority().ok_or_else(|| UrlError::NoHost(url.into()))?;
        if authority.as_str().contains('@') {
            return Err(UrlError::UserInfo(url.into()));
        }
        let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_string();
        let port = authority.port_u16().unwrap_or(if tls { 443 } else { 80 });
        if uri.query().is_some() {
            return Err(UrlError::Query(url.into()));
        }
        let prefix = uri.path().trim_end_matches('/').to_string();
        Ok(Base { tls, host, port, authority: authority.as_str().to_string(), prefix })
    }
}

/// How the client behaves; the defaults are Lichess's rules.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Default [`LICHESS`].
    pub url: String,
    /// Default [`PAUSE_AFTER_429`]; shorter only in tests.
    pub pause_after_429: Duration,
    /// Default [`SILENCE`].
    pub silence: Duration,
    /// Default [`TIMEOUT`].
    pub timeout: Duration,
    /// Where the connections' drivers (hyper's connection futures) run: the
    /// owner's tracker, so that it can wait for them. Each ends with its
    /// connection: when the server closes it, or once no request, stream
    /// or idle slot of the client holds it. Default: a tracker of its own.
    pub tasks: TaskTracker,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            url: LICHESS.into(),
            pause_after_429: PAUSE_AFTER_429,
            silence: SILENCE,
            timeout: TIMEOUT,
            tasks: TaskTracker::new(),
        }
    }
}

struct Idle {
    sender: SendRequest<Full<Bytes>>,
    since: Instant,
}

struct Inner {
    base: Base,
    token: Token,
    settings: Settings,
    tls: Option<TlsConnector>,
    /// No request before this instant (a 429).
    paused_until: Mutex<Option<Instant>>,
    /// Per family: held while a request of it runs, with its idle connection.
    families: [tokio::sync::Mutex<Option<Idle>>; FAMILIES],
}

/// A client of one Lichess account. Cheap to clone; clones share the
/// pause and the one-at-a-time rule.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("url", &self.inner.settings.url).finish_non_exhaustive()
    }
}

/// Why a client cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Url(#[from] UrlError),
    #[error("no trusted root certificates found on this system (install the ca-certificates package): {0}")]
    Roots(String),
}

fn tls_connector() -> Result<TlsConnector, SetupError> {
    let mut roots = RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs().map_err(|e| SetupError::Roots(e.to_string()))?;
    let (added, _ignored) = roots.add_parsable_certificates(native);
    if added == 0 {
        return Err(SetupError::Roots("none could be read".into()));
    }
    let mut config = ClientConfig::builder().with_root_certificates(roots).with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsConnector::from(Arc::new(config)))
}

/// The body of a request.
pub(crate) enum Body {
    Empty,
    Form(String),
    Text(String),
}

impl Client {
    pub fn new(token: Token, settings: Settings) -> Result<Client, SetupError> {
        let base = Base::parse(&settings.url)?;
        let tls = if base.tls { Some(tls_connector()?) } else { None };
        Ok(Client {
            inner: Arc::new(Inner {
                base,
                token,
                settings,
                tls,
                paused_until: Mutex::new(None),
                families: std::array::from_fn(|_| tokio::sync::Mutex::new(None)),
            }),
        })
    }

    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    pub(crate) fn token(&self) -> &Token {
        &self.inner.token
    }

    /// Until when requests wait after a 429, if they do.
    pub fn paused_until(&self) -> Option<Instant> {
        let until = *self.inner.paused_until.lock().unwrap_or_else(PoisonError::into_inner);
        until.filter(|&t| t > Instant::now())
    }

    async fn wait_pause(&self) {
        while let Some(until) = self.paused_until() {
            tokio::time::sleep_until(until.into()).await;
        }
    }

    fn pause(&self, retry_after: Option<Duration>) -> Duration {
        let wait = retry_after.unwrap_or_default().clamp(self.inner.settings.pause_after_429, MAX_RETRY_AFTER);
        let until = Instant::now() + wait;
        let mut slot = self.inner.paused_until.lock().unwrap_or_else(PoisonError::into_inner);
        *slot = Some(slot.map_or(until, |t| t.max(until)));
        wait
    }

    fn host(&self) -> String {
        self.inner.base.host.clone()
    }

    async fn connect(&self) -> Result<SendRequest<Full<Bytes>>, Error> {
        let base = &self.inner.base;
        let limit = self.inner.settings.timeout;
        let connect_error = |why: String| Error::Connect { host: base.host.clone(), why };
        let tcp = tokio::time::timeout(limit, TcpStream::connect((base.host.as_str(), base.port)))
            .await
            .map_err(|_| Error::Timeout { host: base.host.clone(), after: limit })?
            .map_err(|e| connect_error(e.to_string()))?;
        tcp.set_nodelay(true).map_err(|e| connect_error(e.to_string()))?;
        let mut builder = http1::Builder::new();
        builder.max_buf_size(MAX_LINE * 2);
        match &self.inner.tls {
            None => {
                let (sender, conn) =
                    builder.handshake(TokioIo::new(tcp)).await.map_err(|e| connect_error(e.to_string()))?;
                self.inner.settings.tasks.spawn(conn);
                Ok(sender)
            }
            Some(tls) => {
                let name = ServerName::try_from(base.host.clone()).map_err(|e| connect_error(e.to_string()))?;
                let stream = tokio::time::timeout(limit, tls.connect(name, tcp))
                    .await
                    .map_err(|_| Error::Timeout { host: base.host.clone(), after: limit })?
                    .map_err(|e| connect_error(format!("TLS: {e}")))?;
                let (sender, conn) =
                    builder.handshake(TokioIo::new(stream)).await.map_err(|e| connect_error(e.to_string()))?;
                self.inner.settings.tasks.spawn(conn);
                Ok(sender)
            }
        }
    }

    fn build(&self, method: Method, path: &str, body: Body, accept: &'static str) -> Request<Full<Bytes>> {
        let base = &self.inner.base;
        let (content_type, bytes) = match body {
            Body::Empty => (None, Bytes::new()),
            Body::Form(s) => (Some("application/x-www-form-urlencoded"), Bytes::from(s)),
            Body::Text(s) => (Some("text/plain; charset=utf-8"), Bytes::from(s)),
        };
        let mut req = Request::builder()
            .method(method)
            .uri(format!("{}{path}", base.prefix))
            .header(header::HOST, &base.authority)
            .header(header::USER_AGENT, concat!("tactus/", env!("CARGO_PKG_VERSION")))
            .header(header::ACCEPT, accept);
        if let Some(ct) = content_type {
            req = req.header(header::CONTENT_TYPE, ct);
        }
        let mut req = req.body(Full::new(bytes)).expect("a request from checked parts");
        req.headers_mut().insert(header::AUTHORIZATION, self.inner.token.bearer());
        req
    }

    /// Sends a request and waits for its reply's head: on the family's idle
    /// connection if it has one that still stands, else on a new one.
    async fn send(
        &self,
        idle: &mut Option<Idle>,
        req: Request<Full<Bytes>>,
        limit: Duration,
    ) -> Result<(http::response::Parts, Incoming, SendRequest<Full<Bytes>>), Error> {
        let timeout = || Error::Timeout { host: self.host(), after: limit };
        let network = |e: hyper::Error| Error::Network { host: self.host(), why: e.to_string() };
        let mut req = Some(req);
        if let Some(Idle { mut sender, since }) = idle.take()
            && since.elapsed() < KEEP_IDLE
            && !sender.is_closed()
            && sender.is_ready()
        {
            match tokio::time::timeout(limit, sender.try_send_request(req.take().expect("not sent yet"))).await {
                Err(_) => return Err(timeout()),
                Ok(Ok(res)) => {
                    let (parts, body) = res.into_parts();
                    return Ok((parts, body, sender));
                }
                // Never written: the connection had closed. Try a new one.
                Ok(Err(mut e)) => match e.take_message() {
                    Some(unsent) => req = Some(unsent),
                    None => return Err(network(e.into_error())),
                },
            }
        }
        let mut sender = self.connect().await?;
        let res = tokio::time::timeout(limit, sender.send_request(req.take().expect("not sent yet")))
            .await
            .map_err(|_| timeout())?
            .map_err(network)?;
        let (parts, body) = res.into_parts();
        Ok((parts, body, sender))
    }

    /// One request of `family`, its reply read whole (at most `limit`
    /// bytes). A 2xx reply's body, or the error it means.
    pub(crate) async fn request(
        &self,
        family: Family,
        method: Method,
        path: &str,
        body: Body,
        limit: usize,
    ) -> Result<Bytes, Error> {
        self.request_within(family, method, path, body, limit, self.inner.settings.timeout).await
    }

    /// [`Client::request`], its reply waited for `wait` at most.
    pub(crate) async fn request_within(
        &self,
        family: Family,
        method: Method,
        path: &str,
        body: Body,
        limit: usize,
        wait: Duration,
    ) -> Result<Bytes, Error> {
        let mut idle = self.inner.families[family.index()].lock().await;
        self.wait_pause().await;
        let req = self.build(method, path, body, "application/json");
        let (parts, body, sender) = self.send(&mut idle, req, wait).await?;
        let bytes = self.read_body(body, limit, wait).await?;
        if !sender.is_closed() {
            *idle = Some(Idle { sender, since: Instant::now() });
        }
        self.judge(&parts, &bytes)?;
        Ok(bytes)
    }

    async fn read_body(&self, mut body: Incoming, limit: usize, after: Duration) -> Result<Bytes, Error> {
        let read = async {
            let mut out = Vec::new();
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|e| Error::Network { host: self.host(), why: e.to_string() })?;
                if let Some(data) = frame.data_ref() {
                    if out.len() + data.len() > limit {
                        return Err(Error::TooLarge(limit));
                    }
                    out.extend_from_slice(data);
                }
            }
            Ok(Bytes::from(out))
        };
        tokio::time::timeout(after, read).await.map_err(|_| Error::Timeout { host: self.host(), after })?
    }

    /// The error a reply's status means; a 429 starts the pause.
    fn judge(&self, parts: &http::response::Parts, body: &[u8]) -> Result<(), Error> {
        let status = parts.status;
        if status.is_success() {
            return Ok(());
        }
        let said = error_text(body);
        Err(match status {
            StatusCode::TOO_MANY_REQUESTS => {
                let retry_after = parts
                    .headers
                    .get(header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(Duration::from_secs);
                Error::RateLimited(self.pause(retry_after))
            }
            StatusCode::UNAUTHORIZED => Error::Unauthorized(said),
            StatusCode::FORBIDDEN => Error::Forbidden(said),
            s if s.is_client_error() && s != StatusCode::REQUEST_TIMEOUT => {
                Error::Refused { status: s.as_u16(), error: said }
            }
            s => Error::Status(s.as_u16()),
        })
    }

    /// Opens an NDJSON stream (`GET`, or `POST` with a form for a seek).
    pub(crate) async fn stream(&self, method: Method, path: &str, body: Body) -> Result<Lines, Error> {
        self.wait_pause().await;
        let req = self.build(method, path, body, "application/x-ndjson");
        let limit = self.inner.settings.timeout;
        let (parts, incoming, sender) = self.send(&mut None, req, limit).await?;
        if !parts.status.is_success() {
            let bytes = self.read_body(incoming, 64 * 1024, limit).await.unwrap_or_default();
            return Err(self.judge(&parts, &bytes).err().unwrap_or(Error::Status(parts.status.as_u16())));
        }
        Ok(Lines {
            body: incoming,
            _sender: sender,
            reader: LineReader::new(MAX_LINE),
            ready: std::collections::VecDeque::new(),
            silence: self.inner.settings.silence,
            dropped: 0,
        })
    }
}

/// The `error` of a JSON error body (Lichess's `Error` schema), or the
/// start of whatever the body was; control characters removed.
fn error_text(body: &[u8]) -> String {
    let text = serde_json::from_slice::<crate::wire::ErrorBody>(body)
        .map(|e| e.error)
        .unwrap_or_else(|_| String::from_utf8_lossy(body).into_owned());
    let text: String = text.chars().filter(|c| !c.is_control()).take(200).collect();
    if text.trim().is_empty() { "(no reason given)".into() } else { text }
}

/// Why a stream ended.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamEnd {
    #[error("the server closed the stream")]
    Closed,
    #[error("the stream was silent for {} s", .0.as_secs())]
    Silent(Duration),
    #[error("{0}")]
    Failed(String),
}

/// The lines of an open NDJSON stream, keep-alives aside.
pub struct Lines {
    body: Incoming,
    /// Kept so that the connection lives as long as the stream.
    _sender: SendRequest<Full<Bytes>>,
    reader: LineReader,
    ready: std::collections::VecDeque<Line>,
    silence: Duration,
    /// Lines dropped as longer than [`MAX_LINE`].
    dropped: u64,
}

impl Lines {
    /// The next line of text; an error when the stream ends or falls silent.
    pub async fn next(&mut self) -> Result<String, StreamEnd> {
        loop {
            while let Some(line) = self.ready.pop_front() {
                match line {
                    Line::Text(text) => return Ok(text),
                    Line::KeepAlive => {}
                    Line::TooLong(n) => {
                        self.dropped += 1;
                        tracing::warn!("a Lichess stream line of {n} bytes was dropped (the most kept is {MAX_LINE})");
                    }
                }
            }
            let frame = match tokio::time::timeout(self.silence, self.body.frame()).await {
                Err(_) => return Err(StreamEnd::Silent(self.silence)),
                Ok(None) => return Err(StreamEnd::Closed),
                Ok(Some(Err(e))) => return Err(StreamEnd::Failed(e.to_string())),
                Ok(Some(Ok(frame))) => frame,
            };
            if let Some(data) = frame.data_ref() {
                let mut out = Vec::new();
                self.reader.feed(data, &mut out);
                self.ready.extend(out);
            }
        }
    }

    /// Lines dropped as too long so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

/// `application/x-www-form-urlencoded`, for the few fields sent.
pub(crate) fn form(fields: &[(&str, String)]) -> String {
    let mut out = String::new();
    for (k, v) in fields {
        if !out.is_empty() {
            out.push('&');
        }
        encode_into(&mut out, k);
        out.push('=');
        encode_into(&mut out, v);
    }
    out
}

fn encode_into(out: &mut String, s: &str) {
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
}

/// A path segment from outside (an id, a name, a move): only what
/// Lichess's ids and names are made of.
pub(crate) fn segment(s: &str) -> Result<&str, Error> {
    let ok = !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok { Ok(s) } else { Err(Error::BadInput(s.chars().take(64).collect())) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        let b = Base::parse("https://lichess.org").unwrap();
        assert!(b.tls);
        assert_eq!(
            (b.host.as_str(), b.port, b.authority.as_str(), b.prefix.as_str()),
            ("lichess.org", 443, "lichess.org", "")
        );
        let b = Base::parse("http://127.0.0.1:8080/").unwrap();
        assert!(!b.tls);
        assert_eq!((b.port, b.authority.as_str(), b.prefix.as_str()), (8080, "127.0.0.1:8080", ""));
        let b = Base::parse("http://[::1]:9/lichess/").unwrap();
        assert_eq!((b.host.as_str(), b.prefix.as_str()), ("::1", "/lichess"));
        for bad in ["ftp://x", "lichess.org", "https://u:p@lichess.org", "https://lichess.org/?a=1", ""] {
            assert!(Base::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_defaults_are_lichesss_rules() {
        let s = Settings::default();
        assert_eq!(s.url, "https://lichess.org");
        assert_eq!(s.pause_after_429, Duration::from_secs(60));
        assert_eq!(s.silence, Duration::from_secs(15));
    }

    #[test]
    fn https_uses_the_systems_roots() {
        // rustls with ring and the roots of ca-certificates: no network needed.
        let client = Client::new(Token::new("lip_x").unwrap(), Settings::default()).expect("the system's roots load");
        assert!(client.inner.tls.is_some());
        let plain = Settings { url: "http://127.0.0.1:9".into(), ..Settings::default() };
        assert!(Client::new(Token::new("lip_x").unwrap(), plain).unwrap().inner.tls.is_none());
        assert!(format!("{client:?}").contains("lichess.org") && !format!("{client:?}").contains("lip_x"));
    }

    #[test]
    fn forms_and_segments() {
        assert_eq!(
            form(&[("clock.limit", "1800".into()), ("text", "a b&c=é".into())]),
            "clock.limit=1800&text=a+b%26c%3D%C3%A9"
        );
        assert!(segment("Ab12Cd34").is_ok());
        assert!(segment("e2e4").is_ok());
        for bad in ["", "../account", "a/b", "a?b", "a b", &"x".repeat(65)] {
            assert!(segment(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn error_bodies_are_read_and_bounded() {
        assert_eq!(
            error_text(br#"{"error":"Not your turn, or game already over"}"#),
            "Not your turn, or game already over"
        );
        assert_eq!(error_text(b"<html>\n"), "<html>");
        assert_eq!(error_text(b""), "(no reason given)");
        assert_eq!(error_text(&[b'x'; 1000]).len(), 200);
    }

    #[test]
    fn which_errors_are_worth_a_retry() {
        assert!(Error::Status(502).is_transient());
        assert!(Error::RateLimited(PAUSE_AFTER_429).is_transient());
        assert!(!Error::Refused { status: 400, error: "x".into() }.is_transient());
        assert!(!Error::Unauthorized("x".into()).is_transient());
    }
}
