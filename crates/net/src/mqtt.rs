//! MQTT: each board publishes its changes to `tactus/<hall>/<board>/events`
//! (QoS 1) and its [`BoardFeed`](crate::feed::BoardFeed) retained on
//! `tactus/<hall>/<board>/state`, and takes the arbiter's controls from
//! `tactus/<hall>/<board>/control` ([`BoardPublisher`]).
//!
//! A change travels as `{"epoch": e, "seq": n, "event" | "spoken" | "tags": …}`:
//! `epoch` names the publisher's run (its start in Unix ms) and `seq` counts
//! the changes of the run, as the feed's own `seq` does, so a relay drops what
//! it already has from a retained state and notices what it missed. A
//! control is one trace input line (`docs/trace-format.md`), its `t` ignored.
//!
//! With a [`HallKey`] every message is sealed (see [`crate::auth`]); a board
//! takes controls only with one, and only sealed for its own run, each once.
//! A board also watches its own state topic and puts its state back when
//! anyone else writes there.
//!
//! Here too the broker's client, as boards and relays share it: where the
//! broker is and how to log in ([`HallLink`]), and a [`Connection`] kept up
//! with back-off until its owner stops it, then ended the orderly way.

use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};

use rumqttc::v5::mqttbytes::v5::{ConnectReturnCode, Filter, Packet, Publish};
use rumqttc::v5::{AsyncClient, ConnectionError, Event as MqttEvent, EventLoop, MqttOptions, Request};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{debug, warn};

use crate::auth::{HallKey, SecretError, read_secret};
use crate::wire::BadName;

mod publisher;

pub use publisher::{BoardPublisher, SentPairing};

/// Large enough for the retained state of a long game with its rulings.
/// The broker is told (MQTT 5's Maximum Packet Size) and passes over
/// anything larger rather than send it.
pub(crate) const MAX_PACKET: u32 = 4 << 20;

/// Where TLS finds the authorities it trusts when no CA file is given
/// (Debian's bundle, from the `ca-certificates` package).
pub const SYSTEM_CA_FILE: &str = "/etc/ssl/certs/ca-certificates.crt";

/// The environment variable that may hold the broker password.
pub const PASSWORD_ENV: &str = "TACTUS_MQTT_PASSWORD";

/// Where the broker is: `host`, `host:port` (1883 by default), or with a
/// scheme: `mqtt://host:port`, `mqtts://host:port` (TLS, 8883 by default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broker {
    pub host: String,
    pub port: u16,
    /// Connect with TLS (rustls), checking the broker's certificate.
    pub tls: bool,
}

impl Broker {
    /// A broker without TLS.
    pub fn new(host: impl Into<String>, port: u16) -> Broker {
        Broker { host: host.into(), port, tls: false }
    }
}

impl FromStr for Broker {
    type Err = MqttError;

    fn from_str(s: &str) -> Result<Broker, MqttError> {
        let bad = || MqttError::Broker(s.to_string());
        let (tls, rest) = match s.split_once("://") {
            Some(("mqtt" | "tcp", rest)) => (false, rest),
            Some(("mqtts" | "ssl" | "tls", rest)) => (true, rest),
            Some(_) => return Err(bad()),
            None => (false, s),
        };
        let default_port = if tls { 8883 } else { 1883 };
        // `[::1]:1883`, `[::1]`, `::1` (no port), `host:1883`, or a bare host.
        let (host, port) = if let Some(bracketed) = rest.strip_prefix('[') {
            let (address, after) = bracketed.split_once(']').ok_or_else(bad)?;
            address.parse::<std::net::Ipv6Addr>().map_err(|_| bad())?;
            let port = match after {
                "" => default_port,
                after => port(after.strip_prefix(':').ok_or_else(bad)?).ok_or_else(bad)?,
            };
            (address, port)
        } else if rest.parse::<std::net::Ipv6Addr>().is_ok() {
            (rest, default_port)
        } else {
            match rest.split_once(':') {
                Some((host, p)) => (host, port(p).ok_or_else(bad)?),
                None => (rest, default_port),
            }
        };
        if !(host.contains(':') || is_host_name(host)) {
            return Err(bad());
        }
        Ok(Broker { host: host.to_string(), port, tls })
    }
}

/// A port a broker can listen on: 1 to 65535.
fn port(text: &str) -> Option<u16> {
    text.parse().ok().filter(|&p| p > 0)
}

/// A host name (RFC 1123) or an IPv4 address: dot-separated labels of
/// letters, digits and inner hyphens, each at most 63, 253 in all.
fn is_host_name(host: &str) -> bool {
    host.len() <= 253
        && host.split('.').all(|label| {
            (1..=63).contains(&label.len())
                && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

impl fmt::Display for Broker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.tls {
            f.write_str("mqtts://")?;
        }
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MqttError {
    #[error(transparent)]
    Name(#[from] BadName),
    #[error(
        "{0:?} is not a broker address: expected host, host:port or mqtts://host:port, a host name or IP address and a port from 1 to 65535 (e.g. 127.0.0.1:1883)"
    )]
    Broker(String),
    #[error("{path}: cannot read the broker's certificate authorities: {reason}")]
    CaFile { path: PathBuf, reason: String },
    #[error(transparent)]
    Secret(#[from] SecretError),
    #[error("a broker password needs a user name too")]
    PasswordWithoutUser,
    #[error("two boards play one game only with the hall key: without it anyone on the broker could make moves")]
    NoHallKey,
}

/// A broker login.
#[derive(Clone)]
pub struct Login {
    pub username: String,
    password: String,
}

impl Login {
    pub fn new(username: impl Into<String>, password: impl Into<String>) -> Login {
        Login { username: username.into(), password: password.into() }
    }
}

impl fmt::Debug for Login {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Login({:?}, …)", self.username)
    }
}

/// Everything needed to take part in a hall: its broker, the login and
/// TLS authorities the broker may demand, and the hall key.
#[derive(Debug, Clone)]
pub struct HallLink {
    pub broker: Broker,
    pub login: Option<Login>,
    /// The PEM certificates TLS trusts (default [`SYSTEM_CA_FILE`]).
    pub ca_file: Option<PathBuf>,
    /// Without one, nothing on the broker can be told from a stranger.
    pub key: Option<HallKey>,
}

impl From<Broker> for HallLink {
    fn from(broker: Broker) -> HallLink {
        HallLink { broker, login: None, ca_file: None, key: None }
    }
}

/// A hall link as a configuration names it: files for the secrets, which
/// stay out of the configuration and off the command line.
#[derive(Debug, Clone, Default)]
pub struct LinkSettings<'a> {
    pub broker: &'a str,
    pub username: Option<&'a str>,
    /// The broker password's file; without one, [`PASSWORD_ENV`] if set.
    pub password_file: Option<&'a Path>,
    pub ca_file: Option<&'a Path>,
    pub hall_key_file: Option<&'a Path>,
}

impl HallLink {
    pub fn new(broker: Broker) -> HallLink {
        broker.into()
    }

    pub fn with_login(mut self, login: Login) -> HallLink {
        self.login = Some(login);
        self
    }

    pub fn with_ca_file(mut self, path: impl Into<PathBuf>) -> HallLink {
        self.ca_file = Some(path.into());
        self
    }

    pub fn with_key(mut self, key: HallKey) -> HallLink {
        self.key = Some(key);
        self
    }

    /// Reads the files a configuration names. Errors name the file.
    pub fn from_settings(s: &LinkSettings) -> Result<HallLink, MqttError> {
        let mut link = HallLink::new(s.broker.parse()?);
        let password = match s.password_file {
            Some(path) => Some(String::from_utf8_lossy(&read_secret(path, "broker password")?).into_owned()),
            None => std::env::var(PASSWORD_ENV).ok().filter(|p| !p.is_empty()),
        };
        match (s.username, password) {
            (Some(user), password) => link.login = Some(Login::new(user, password.unwrap_or_default())),
            (None, Some(_)) if s.password_file.is_some() => return Err(MqttError::PasswordWithoutUser),
            (None, _) => {}
        }
        link.ca_file = s.ca_file.map(Path::to_path_buf);
        link.key = s.hall_key_file.map(HallKey::load).transpose()?;
        Ok(link)
    }

    /// The client's options: keep-alive, packet size, login and TLS.
    pub(crate) fn options(&self, client_id: String) -> Result<MqttOptions, MqttError> {
        let mut opts = MqttOptions::new(client_id, self.broker.host.clone(), self.broker.port);
        opts.set_keep_alive(Duration::from_secs(10));
        // MQTT 5 tells the broker the largest packet we take, and the broker
        // must pass over a larger message instead of sending it (MQTT 5.0,
        // 3.1.2.11.4). MQTT 3.1.1 has no such word: a client could only
        // drop the connection, and a huge retained message came back with
        // every reconnection.
        opts.set_max_packet_size(Some(MAX_PACKET));
        if let Some(login) = &self.login {
            opts.set_credentials(login.username.clone(), login.password.clone());
        }
        if self.broker.tls {
            let path = self.ca_file.clone().unwrap_or_else(|| SYSTEM_CA_FILE.into());
            let ca =
                std::fs::read(&path).map_err(|e| MqttError::CaFile { path: path.clone(), reason: e.to_string() })?;
            if !String::from_utf8_lossy(&ca).contains("-----BEGIN CERTIFICATE-----") {
                return Err(MqttError::CaFile { path, reason: "no PEM certificate in it".into() });
            }
            let tls = rumqttc::TlsConfiguration::Simple { ca, alpn: None, client_auth: None };
            opts.set_transport(rumqttc::Transport::tls_with_config(tls));
        }
        Ok(opts)
    }
}

/// The first wait before connecting again, after a connection that lasted.
const RETRY_FIRST: Duration = Duration::from_millis(500);

/// The longest wait between attempts; a connection that lasts this long
/// counts as good, and the next failure is retried after [`RETRY_FIRST`].
const RETRY_MAX: Duration = Duration::from_secs(15);

/// When to try the broker again: soon after a connection that lasted,
/// then twice as long after each attempt that fails or whose connection
/// ends at once (a broker that closes on us must not be hammered), up to
/// [`RETRY_MAX`]. Each wait is spread (tactus-retry), so that a hall's
/// boards do not all come back in the same instant.
#[derive(Debug)]
pub(crate) struct Backoff {
    steps: tactus_retry::Backoff,
    connected_at: Option<Instant>,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff { steps: tactus_retry::Backoff::new(RETRY_FIRST, RETRY_MAX), connected_at: None }
    }
}

impl Backoff {
    /// The broker took the connection.
    pub fn connected(&mut self, now: Instant) {
        self.connected_at = Some(now);
    }

    /// The connection failed or ended: how long to wait before the next attempt.
    pub fn failed(&mut self, now: Instant) -> Duration {
        if self.connected_at.take().is_some_and(|at| now.duration_since(at) >= RETRY_MAX) {
            self.steps.reset();
        }
        self.steps.next_wait()
    }
}

/// Bounds what a client keeps to send again once its connection ended:
/// subscriptions are dropped (they are made again on every connection),
/// and of the rest the newest `keep`. Returns what was dropped.
pub(crate) fn trim_pending(eventloop: &mut EventLoop, keep: usize) -> Vec<Request> {
    let (renewed, mut kept): (VecDeque<Request>, VecDeque<Request>) =
        eventloop.pending.drain(..).partition(|r| matches!(r, Request::Subscribe(_) | Request::Unsubscribe(_)));
    let mut dropped: Vec<Request> = renewed.into();
    dropped.extend(kept.drain(..kept.len().saturating_sub(keep)));
    eventloop.pending = kept;
    dropped
}

/// Says why the broker could not be reached, in words an operator can act on.
pub(crate) fn describe(e: &ConnectionError, link: &HallLink) -> String {
    match e {
        ConnectionError::ConnectionRefused(
            ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized,
        ) => match &link.login {
            Some(l) => format!(
                "the broker {} refused the login of user {:?}: check the user and password",
                link.broker, l.username
            ),
            None => format!("the broker {} wants a login: give a user name and a password file", link.broker),
        },
        ConnectionError::Tls(e) => {
            format!("TLS with {} failed ({e}): check the broker's name and the CA file", link.broker)
        }
        e => format!("the broker {} is unreachable ({e})", link.broker),
    }
}

/// Where a client's connection to the broker stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkState {
    /// Not connected yet, and no attempt has failed.
    Connecting,
    Up,
    /// The last attempt failed, or the connection ended: nothing handed to
    /// the client now reaches the broker until it is back.
    Down,
    /// Stopped: nothing more goes to the broker.
    Closed,
}

/// What one client does with its connection; [`Connection::drive`] keeps
/// it up and ends it.
pub(crate) trait Peer {
    /// The broker took the connection: the filters to subscribe to (a
    /// clean session forgets them).
    fn connected(&mut self) -> Vec<Filter>;
    /// The broker took the subscriptions: from now on it passes on what
    /// comes for them.
    fn subscribed(&mut self) {}
    /// A message on a topic subscribed to.
    fn received(&mut self, p: &Publish);
    /// The connection failed or ended; `first` when it was not down
    /// already (say so once). Trim what the client keeps for the next.
    fn lost(&mut self, eventloop: &mut EventLoop, why: &ConnectionError, first: bool);
    /// Nothing more goes to the broker; `away` when it was away at the stop.
    fn closed(&mut self, away: bool);
}

/// A client's connection to the broker, kept up until its owner's token is
/// cancelled, then ended the orderly way.
pub(crate) struct Connection {
    pub client: AsyncClient,
    /// The owner's word to stop (a child of the owner's token).
    pub stop: CancellationToken,
    /// Cancelled once the connection is over: whatever waits on the
    /// client (its queue may be full) gives up.
    pub over: CancellationToken,
    /// Every task of the client's, this one's included.
    pub tasks: TaskTracker,
}

impl Connection {
    pub fn new(client: AsyncClient, stop: &CancellationToken) -> Connection {
        Connection { client, stop: stop.child_token(), over: CancellationToken::new(), tasks: TaskTracker::new() }
    }

    /// Polls the client's event loop: reconnects after a failure on the
    /// [`Backoff`]'s timer, subscribes on every connection, and passes what
    /// comes to `peer`. Once stopped, and within `within()`: waits for
    /// `handing` (the task that hands the client what its owner holds) to
    /// end, says goodbye (MQTT's DISCONNECT, after everything handed
    /// before it) and waits for the broker to close the connection. A
    /// broker that is away at the stop is not waited for.
    pub async fn drive(
        self,
        mut eventloop: EventLoop,
        mut peer: impl Peer,
        handing: Option<JoinHandle<()>>,
        within: impl Fn() -> Duration,
    ) {
        let id = eventloop.options.client_id();
        let handed = async {
            if let Some(task) = handing {
                let _ = task.await;
            }
        };
        tokio::pin!(handed);
        let mut backoff = Backoff::default();
        let mut link = LinkState::Connecting;
        let mut phase = Phase::Running;
        let away = loop {
            let polled = tokio::select! {
                polled = eventloop.poll() => polled,
                () = self.stop.cancelled(), if phase == Phase::Running => {
                    if link == LinkState::Down {
                        break true;
                    }
                    phase = Phase::Handing { until: Instant::now() + within() };
                    continue;
                }
                () = &mut handed, if matches!(phase, Phase::Handing { .. }) => {
                    let (client, over) = (self.client.clone(), self.over.clone());
                    self.tasks.spawn(async move { over.run_until_cancelled(client.disconnect()).await });
                    if let Phase::Handing { until } = phase {
                        phase = Phase::Leaving { until };
                    }
                    continue;
                }
                () = sleep_until(phase.until()), if phase != Phase::Running => {
                    warn!(client = %id, "mqtt: the broker did not take everything in time; stopped anyway");
                    break false;
                }
            };
            match polled {
                Ok(MqttEvent::Incoming(Packet::ConnAck(_))) => {
                    backoff.connected(Instant::now());
                    link = LinkState::Up;
                    let filters = peer.connected();
                    // On a task of its own: the client's queue may be full,
                    // and only this loop empties it. A client that only
                    // sends subscribes to nothing (MQTT has no empty SUBSCRIBE).
                    if !filters.is_empty() {
                        let (client, over) = (self.client.clone(), self.over.clone());
                        self.tasks.spawn(async move { over.run_until_cancelled(client.subscribe_many(filters)).await });
                    }
                }
                Ok(MqttEvent::Incoming(Packet::Publish(p))) => peer.received(&p),
                Ok(MqttEvent::Incoming(Packet::SubAck(_))) => peer.subscribed(),
                Ok(other) => debug!(client = %id, "mqtt: {other:?}"),
                // The broker closed the connection after the goodbye, or it
                // was lost while stopping: over either way.
                Err(_) if phase != Phase::Running => break false,
                Err(e) => {
                    peer.lost(&mut eventloop, &e, link != LinkState::Down);
                    link = LinkState::Down;
                    let wait = backoff.failed(Instant::now());
                    if self.stop.run_until_cancelled(tokio::time::sleep(wait)).await.is_none() {
                        break true;
                    }
                }
            }
        };
        self.over.cancel();
        peer.closed(away);
    }
}

/// Where a [`Connection`] is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Kept up, until its stop.
    Running,
    /// Stopped: what its owner holds is being handed to the client.
    Handing { until: Instant },
    /// Goodbye said: the broker is to close the connection.
    Leaving { until: Instant },
}

impl Phase {
    /// The end of a stop's time.
    fn until(self) -> Option<Instant> {
        match self {
            Phase::Running => None,
            Phase::Handing { until } | Phase::Leaving { until } => Some(until),
        }
    }
}

/// Sleeps until `deadline`; never without one.
pub(crate) async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_addresses() {
        assert_eq!("127.0.0.1:1884".parse(), Ok(Broker::new("127.0.0.1", 1884)));
        assert_eq!("mqtt.local".parse(), Ok(Broker::new("mqtt.local", 1883)));
        assert_eq!("[::1]:1885".parse(), Ok(Broker::new("::1", 1885)));
        assert_eq!("mqtt://hall:1999".parse(), Ok(Broker::new("hall", 1999)));
        let tls: Broker = "mqtts://mqtt.club.example".parse().unwrap();
        assert_eq!((tls.host.as_str(), tls.port, tls.tls), ("mqtt.club.example", 8883, true));
        assert_eq!(tls.to_string(), "mqtts://mqtt.club.example:8883");
        assert_eq!("::1".parse(), Ok(Broker::new("::1", 1883)));
        assert_eq!("[fe80::1]".parse(), Ok(Broker::new("fe80::1", 1883)));
        assert_eq!("hall-3.club.example:65535".parse(), Ok(Broker::new("hall-3.club.example", 65535)));
        for bad in [
            "host:port",
            "",
            "http://host",
            "::::",
            "[::::]:1883",
            "[::1",
            "[::1]1883",
            "host:0",
            "host:65536",
            "host:",
            ":1883",
            "a b:1",
            "-host",
            "host-.example",
            "two..dots",
            "under_score",
            "host/x",
            "mqtts://",
        ] {
            assert!(bad.parse::<Broker>().is_err(), "{bad:?}");
        }
        assert_eq!(Broker::new("::1", 1885).to_string(), "[::1]:1885");
    }

    #[test]
    fn retries_back_off_until_a_connection_lasts() {
        let start = Instant::now();
        let mut backoff = Backoff::default();
        let within = |wait: Duration, step: Duration| wait >= step * 4 / 5 && wait <= step * 6 / 5;
        let mut step = RETRY_FIRST;
        for _ in 0..8 {
            let wait = backoff.failed(start);
            assert!(within(wait, step), "{wait:?} for a step of {step:?}");
            step = (step * 2).min(RETRY_MAX);
        }
        // A connection the broker closes at once does not start again from the first step…
        backoff.connected(start);
        assert!(within(backoff.failed(start + Duration::from_secs(1)), RETRY_MAX));
        // …one that lasted does.
        backoff.connected(start);
        assert!(within(backoff.failed(start + RETRY_MAX), RETRY_FIRST));
    }

    #[test]
    fn settings_read_the_secrets_from_files() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("hall.key");
        let password = dir.path().join("password");
        for (path, text) in [(&key, "a hall key of some length\n"), (&password, "pw\n")] {
            std::fs::write(path, text).unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let s = LinkSettings {
            broker: "mqtts://127.0.0.1:8883",
            username: Some("b1"),
            password_file: Some(&password),
            ca_file: Some(Path::new("/nonexistent/ca.pem")),
            hall_key_file: Some(&key),
        };
        let link = HallLink::from_settings(&s).unwrap();
        assert!(link.key.is_some() && link.broker.tls);
        assert_eq!(format!("{:?}", link.login), r#"Some(Login("b1", …))"#, "the password is never printed");
        let e = link.options("x".into()).unwrap_err().to_string();
        assert!(e.contains("/nonexistent/ca.pem"), "{e}");
        let e = HallLink::from_settings(&LinkSettings { username: None, ..s.clone() }).unwrap_err();
        assert_eq!(e, MqttError::PasswordWithoutUser);
    }
}
