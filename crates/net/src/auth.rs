//! Trust on the hall's broker: the hall key, the secrets read from files,
//! and refusals that are counted and logged without flooding the log.
//!
//! A broker lets in whoever it lets in; the hall key decides what counts.
//! Every board event, board state and arbiter control is sealed with an
//! HMAC-SHA-256 over the topic, the seal's parameters and the payload:
//!
//! ```text
//! tactus-auth1 [name=value …] mac=<64 hex digits>\n<payload>
//! ```
//!
//! The topic names the hall, the board and the leaf (`events`, `state`,
//! `control`), so a sealed message cannot be moved to another board or
//! another kind. Replays are refused by numbers under the seal: a board's
//! changes carry its run (`epoch`) and `seq`, which a relay only takes
//! forward; a control carries the board run it is meant for (`epoch`), its
//! sender's run (`from`) and a counter (`n`) that the board only takes
//! forward per sender. See `API.md` beside this crate.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tracing::warn;

use crate::wire::unix_ms;

/// The seal's first word, and the version of its format.
const SEAL: &str = "tactus-auth1";

/// Fewer bytes than this are too easily guessed to be a key.
pub const MIN_KEY_BYTES: usize = 16;

/// A secret in a file larger than this is not a key or a token.
const MAX_SECRET_BYTES: u64 = 4096;

/// Why a secret could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    #[error("{path}: cannot read the {what}: {reason}")]
    Unreadable { what: &'static str, path: PathBuf, reason: String },
    #[error(
        "{path}: the {what} can be read by every user of this machine (mode {mode:04o}): `chmod 600 {path}` (or 640 with the service's group)"
    )]
    Exposed { what: &'static str, path: PathBuf, mode: u32 },
    #[error("{path}: the {what} is empty")]
    Empty { what: &'static str, path: PathBuf },
    #[error(
        "{path}: the {what} is {len} bytes: at least {MIN_KEY_BYTES} are needed (make one with `head -c 32 /dev/urandom | base64 > {path}`)"
    )]
    Short { what: &'static str, path: PathBuf, len: usize },
    #[error("{path}: the {what} is larger than {MAX_SECRET_BYTES} bytes: is this the right file?")]
    Large { what: &'static str, path: PathBuf },
}

/// Reads a secret from a file that only its owner (and group) may read;
/// surrounding whitespace (a final newline) is not part of it.
pub fn read_secret(path: &Path, what: &'static str) -> Result<Vec<u8>, SecretError> {
    use std::os::unix::fs::PermissionsExt;
    let unreadable =
        |e: std::io::Error| SecretError::Unreadable { what, path: path.to_path_buf(), reason: e.to_string() };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o007 != 0 {
        return Err(SecretError::Exposed { what, path: path.to_path_buf(), mode });
    }
    if meta.len() > MAX_SECRET_BYTES {
        return Err(SecretError::Large { what, path: path.to_path_buf() });
    }
    let mut bytes = Vec::new();
    file.take(MAX_SECRET_BYTES + 1).read_to_end(&mut bytes).map_err(unreadable)?;
    let text = bytes.trim_ascii();
    if text.is_empty() {
        return Err(SecretError::Empty { what, path: path.to_path_buf() });
    }
    Ok(text.to_vec())
}

/// The secret that a hall's boards and relays share. Cheap to clone; never
/// printed.
#[derive(Clone)]
pub struct HallKey(Arc<[u8]>);

impl fmt::Debug for HallKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HallKey(…)")
    }
}

/// A message that does not carry a valid seal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unsealed {
    #[error("no hall-key seal")]
    Missing,
    #[error("a malformed seal")]
    Malformed,
    #[error("the seal does not match (a stranger, or another hall key)")]
    Wrong,
}

/// A message whose seal matched: its parameters and payload.
#[derive(Debug)]
pub(crate) struct Opened<'a> {
    params: &'a str,
    pub body: &'a [u8],
}

impl Opened<'_> {
    /// A parameter of the seal, as a number.
    pub fn number(&self, name: &str) -> Option<u64> {
        self.params.split(' ').find_map(|p| p.strip_prefix(name)?.strip_prefix('=')?.parse().ok())
    }
}

impl HallKey {
    /// Reads the hall key from a file that only its owner (and group) may read.
    pub fn load(path: &Path) -> Result<HallKey, SecretError> {
        let bytes = read_secret(path, "hall key")?;
        if bytes.len() < MIN_KEY_BYTES {
            return Err(SecretError::Short { what: "hall key", path: path.to_path_buf(), len: bytes.len() });
        }
        Ok(HallKey(bytes.into()))
    }

    /// A key from its bytes (at least [`MIN_KEY_BYTES`]); `None` when shorter.
    pub fn from_bytes(bytes: &[u8]) -> Option<HallKey> {
        (bytes.len() >= MIN_KEY_BYTES).then(|| HallKey(bytes.into()))
    }

    fn mac(&self, topic: &str, params: &str, body: &[u8]) -> Hmac<Sha256> {
        // HMAC takes keys of any length.
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0).expect("HMAC takes any key length");
        for part in [SEAL.as_bytes(), b"\n", topic.as_bytes(), b"\n", params.as_bytes(), b"\n"] {
            mac.update(part);
        }
        mac.update(body);
        mac
    }

    /// The payload sealed for `topic`, with the seal's parameters
    /// (`name=value`, separated by spaces; empty for none).
    pub(crate) fn seal(&self, topic: &str, params: &str, body: &[u8]) -> Vec<u8> {
        let tag = self.mac(topic, params, body).finalize().into_bytes();
        let mut out = Vec::with_capacity(body.len() + 100 + params.len());
        out.extend_from_slice(SEAL.as_bytes());
        out.push(b' ');
        if !params.is_empty() {
            out.extend_from_slice(params.as_bytes());
            out.push(b' ');
        }
        out.extend_from_slice(b"mac=");
        for byte in tag {
            out.extend_from_slice(format!("{byte:02x}").as_bytes());
        }
        out.push(b'\n');
        out.extend_from_slice(body);
        out
    }

    /// Checks a payload's seal for `topic` (in constant time).
    pub(crate) fn open<'a>(&self, topic: &str, payload: &'a [u8]) -> Result<Opened<'a>, Unsealed> {
        let (line, body) = split_seal(payload).ok_or(Unsealed::Missing)?;
        let rest = line.strip_prefix(SEAL).and_then(|r| r.strip_prefix(' ')).ok_or(Unsealed::Malformed)?;
        let (params, hex) = match rest.rsplit_once(' ') {
            Some((params, mac)) => (params, mac.strip_prefix("mac=").ok_or(Unsealed::Malformed)?),
            None => ("", rest.strip_prefix("mac=").ok_or(Unsealed::Malformed)?),
        };
        let tag = decode_hex(hex).ok_or(Unsealed::Malformed)?;
        self.mac(topic, params, body).verify_slice(&tag).map_err(|_| Unsealed::Wrong)?;
        Ok(Opened { params, body })
    }
}

/// The seal line and the payload after it, if the payload is sealed.
fn split_seal(payload: &[u8]) -> Option<(&str, &[u8])> {
    if !payload.starts_with(SEAL.as_bytes()) {
        return None;
    }
    let end = payload.iter().position(|&b| b == b'\n')?;
    Some((std::str::from_utf8(&payload[..end]).ok()?, &payload[end + 1..]))
}

/// The payload of a message whatever its seal says (for a relay without a
/// hall key, which can check nothing).
pub(crate) fn unchecked_body(payload: &[u8]) -> &[u8] {
    split_seal(payload).map_or(payload, |(_, body)| body)
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if hex.len() != 64 {
        return None;
    }
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok()).collect()
}

/// Compares a secret given with the one expected in constant time, whatever
/// their lengths (both are hashed first).
pub fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    let (a, b) = (Sha256::digest(given), Sha256::digest(expected));
    bool::from(a.as_slice().ct_eq(b.as_slice()))
}

/// A fresh random identifier (a relay's run, for its controls).
pub(crate) fn random_id() -> u64 {
    let mut bytes = [0u8; 8];
    // Without the system's randomness the time still tells runs apart.
    if getrandom::fill(&mut bytes).is_err() {
        return unix_ms() ^ u64::from(std::process::id()) << 40;
    }
    u64::from_le_bytes(bytes)
}

/// The controls a board has taken, per sender: a control is taken once, and
/// only after the ones its sender sent before it. Bounded: the senders
/// heard from least recently are forgotten first.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    last: HashMap<u64, (u64, Instant)>,
}

/// How many senders (relay runs) a board remembers.
const SENDERS_KEPT: usize = 64;

impl Counters {
    /// Takes `n` from `from` if it is newer than anything taken from it.
    pub fn take(&mut self, from: u64, n: u64) -> bool {
        if self.last.get(&from).is_some_and(|&(last, _)| n <= last) {
            return false;
        }
        if !self.last.contains_key(&from)
            && self.last.len() >= SENDERS_KEPT
            && let Some(oldest) = self.last.iter().min_by_key(|(_, (_, at))| *at).map(|(k, _)| *k)
        {
            self.last.remove(&oldest);
        }
        self.last.insert(from, (n, Instant::now()));
        true
    }
}

/// Counts what was refused and logs it: the first at once, then at most
/// one line per interval saying how many more there were.
#[derive(Debug)]
pub struct Refusals {
    count: AtomicU64,
    log: Mutex<LogState>,
    interval: Duration,
}

#[derive(Debug, Default)]
struct LogState {
    last: Option<Instant>,
    unlogged: u64,
}

impl Default for Refusals {
    fn default() -> Refusals {
        Refusals::every(Duration::from_secs(10))
    }
}

impl Refusals {
    pub fn every(interval: Duration) -> Refusals {
        Refusals { count: AtomicU64::new(0), log: Mutex::new(LogState::default()), interval }
    }

    /// How many were refused.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// Counts one refusal; returns the line to log now, if it is time for one.
    pub fn refuse(&self, why: impl FnOnce() -> String) -> Option<String> {
        self.count.fetch_add(1, Ordering::Relaxed);
        let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        if log.last.is_some_and(|last| now.duration_since(last) < self.interval) {
            log.unlogged += 1;
            return None;
        }
        let more = std::mem::take(&mut log.unlogged);
        log.last = Some(now);
        let why = why();
        Some(if more > 0 { format!("{why} ({more} more refused since the last report)") } else { why })
    }

    /// Counts one refusal and logs it as a warning, rate-limited.
    pub fn warn(&self, why: impl FnOnce() -> String) {
        if let Some(line) = self.refuse(why) {
            warn!("{line}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> HallKey {
        HallKey::from_bytes(b"0123456789abcdef-hall").unwrap()
    }

    #[test]
    fn a_sealed_message_opens_only_with_its_key_and_topic() {
        let body = br#"{"epoch":1,"seq":2}"#;
        let sealed = key().seal("tactus/h/b1/events", "", body);
        assert!(sealed.starts_with(b"tactus-auth1 mac="));
        let opened = key().open("tactus/h/b1/events", &sealed).unwrap();
        assert_eq!(opened.body, body);
        // Another board, another leaf, another key: refused.
        assert_eq!(key().open("tactus/h/b2/events", &sealed).unwrap_err(), Unsealed::Wrong);
        assert_eq!(key().open("tactus/h/b1/state", &sealed).unwrap_err(), Unsealed::Wrong);
        let other = HallKey::from_bytes(b"another key of the hall").unwrap();
        assert_eq!(other.open("tactus/h/b1/events", &sealed).unwrap_err(), Unsealed::Wrong);
        // A changed payload: refused.
        let mut changed = sealed.clone();
        *changed.last_mut().unwrap() = b']';
        assert_eq!(key().open("tactus/h/b1/events", &changed).unwrap_err(), Unsealed::Wrong);
        // No seal, or a broken one.
        assert_eq!(key().open("tactus/h/b1/events", body).unwrap_err(), Unsealed::Missing);
        assert_eq!(key().open("t", b"tactus-auth1 mac=zz\n{}").unwrap_err(), Unsealed::Malformed);
        assert_eq!(unchecked_body(&sealed), body);
        assert_eq!(unchecked_body(body), body);
    }

    #[test]
    fn the_parameters_are_under_the_seal() {
        let sealed = key().seal("tactus/h/b1/control", "epoch=7 from=99 n=3", b"{}");
        let opened = key().open("tactus/h/b1/control", &sealed).unwrap();
        assert_eq!((opened.number("epoch"), opened.number("from"), opened.number("n")), (Some(7), Some(99), Some(3)));
        assert_eq!(opened.number("e"), None);
        let text = String::from_utf8(sealed).unwrap().replace("n=3", "n=4");
        assert_eq!(key().open("tactus/h/b1/control", text.as_bytes()).unwrap_err(), Unsealed::Wrong);
    }

    #[test]
    fn counters_take_each_control_once_and_in_order() {
        let mut c = Counters::default();
        assert!(c.take(1, 5));
        assert!(!c.take(1, 5), "a replay");
        assert!(!c.take(1, 4), "an older one");
        assert!(c.take(1, 6));
        assert!(c.take(2, 1), "another sender counts on its own");
        for sender in 10..10 + SENDERS_KEPT as u64 {
            assert!(c.take(sender, 1));
        }
        assert!(c.last.len() <= SENDERS_KEPT);
    }

    #[test]
    fn secrets_compare_whatever_their_length() {
        assert!(same_secret(b"s3cret", b"s3cret"));
        assert!(!same_secret(b"s3cre", b"s3cret"));
        assert!(!same_secret(b"", b"s3cret"));
    }

    #[test]
    fn secrets_come_from_private_files() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hall.key");
        std::fs::write(&path, "0123456789abcdef0123\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = HallKey::load(&path).unwrap_err().to_string();
        assert!(e.contains("hall.key") && e.contains("chmod 600"), "{e}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let k = HallKey::load(&path).unwrap();
        assert_eq!(&*k.0, b"0123456789abcdef0123", "the final newline is not part of it");
        assert_eq!(format!("{k:?}"), "HallKey(…)");
        std::fs::write(&path, "short\n").unwrap();
        assert!(HallKey::load(&path).unwrap_err().to_string().contains("at least 16"));
        std::fs::write(&path, "\n").unwrap();
        assert!(read_secret(&path, "token").unwrap_err().to_string().contains("empty"));
        let e = HallKey::load(&dir.path().join("none")).unwrap_err().to_string();
        assert!(e.contains("none") && e.contains("cannot read"), "{e}");
    }

    #[test]
    fn refusals_are_all_counted_and_logged_sparingly() {
        let r = Refusals::every(Duration::from_secs(3600));
        assert_eq!(r.refuse(|| "first".into()), Some("first".into()));
        assert_eq!(r.refuse(|| unreachable!("not formatted while quiet")), None);
        assert_eq!(r.refuse(|| unreachable!()), None);
        assert_eq!(r.count(), 3);
        let r = Refusals::every(Duration::ZERO);
        r.refuse(|| "a".into());
        assert_eq!(r.refuse(|| "b".into()), Some("b".into()));
    }
}
