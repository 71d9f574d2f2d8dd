//! One tracing subscriber for the whole program: the systemd journal when
//! standard error is connected to it (a service), standard error otherwise
//! (lines above the terminal's clock line). A message that repeats — a
//! broker that stays unreachable, garbage on a serial line — is let through
//! a few times a minute; the rest are counted and summarised.
//!
//! `TACTUS_LOG` sets the levels, as `info` or `warn,tactus_net=debug`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tracing::callsite::Identifier;
use tracing::{Event, Level, Metadata, Subscriber};
use tracing_subscriber::filter::{Filtered, Targets};
use tracing_subscriber::fmt::FmtContext;
use tracing_subscriber::fmt::format::{FormatEvent, FormatFields, Writer};
use tracing_subscriber::layer::{Context, Filter, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

use crate::terminal::{LineWriter, Stream};

/// How many messages from one place pass in a window before the rest are counted.
const BURST: u32 = 5;
const WINDOW: Duration = Duration::from_secs(60);

/// Messages from one call site in the current window.
struct Window {
    started: Instant,
    passed: u32,
    suppressed: u64,
    /// Where the messages come from: `file:line`.
    place: String,
}

/// Lets each call site speak [`BURST`] times a [`WINDOW`]; counts the rest.
#[derive(Default)]
pub struct RateLimit {
    windows: Mutex<HashMap<Identifier, Window>>,
}

/// Lines that were held back, for [`summarise`].
static LIMIT: std::sync::OnceLock<&'static RateLimit> = std::sync::OnceLock::new();

impl RateLimit {
    fn admit(&self, meta: &'static Metadata<'static>, now: Instant) -> bool {
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        let w = windows.entry(meta.callsite()).or_insert(Window {
            started: now,
            passed: 0,
            suppressed: 0,
            place: format!("{}:{}", meta.file().unwrap_or("?"), meta.line().unwrap_or(0)),
        });
        if now.duration_since(w.started) >= WINDOW && w.suppressed == 0 {
            w.started = now;
            w.passed = 0;
        }
        if w.passed < BURST {
            w.passed += 1;
            true
        } else {
            w.suppressed += 1;
            false
        }
    }

    /// Each call site whose window has passed with messages held back:
    /// (where, how many, over how long); its window starts again.
    fn due(&self, now: Instant, all: bool) -> Vec<(String, u64, Duration)> {
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::new();
        for w in windows.values_mut() {
            if w.suppressed > 0 && (all || now.duration_since(w.started) >= WINDOW) {
                out.push((w.place.clone(), w.suppressed, now.duration_since(w.started)));
                w.started = now;
                w.passed = 0;
                w.suppressed = 0;
            }
        }
        out
    }
}

impl<S: Subscriber> Filter<S> for &'static RateLimit {
    fn enabled(&self, _: &Metadata<'_>, _: &Context<'_, S>) -> bool {
        true
    }

    fn event_enabled(&self, event: &Event<'_>, _: &Context<'_, S>) -> bool {
        // The summaries themselves are never held back.
        event.metadata().target() == SUMMARY_TARGET || self.admit(event.metadata(), Instant::now())
    }
}

const SUMMARY_TARGET: &str = "tactus::log";

/// Reports the messages held back in windows that have passed (`all`:
/// every window, as at exit). Called from the daemon's regular tick, never
/// from inside a message.
pub fn summarise(all: bool) {
    let Some(limit) = LIMIT.get() else { return };
    for (place, count, over) in limit.due(Instant::now(), all) {
        let secs = over.as_secs().max(1);
        tracing::warn!(target: SUMMARY_TARGET, "{count} more messages like the last one (from {place}) were held back in {secs} s");
    }
}

/// `tactus: warning: what happened`: one line a message, for people.
struct Plain;

impl<S, N> FormatEvent<S, N> for Plain
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, ctx: &FmtContext<'_, S, N>, mut writer: Writer<'_>, event: &Event<'_>) -> std::fmt::Result {
        let prefix = match *event.metadata().level() {
            Level::ERROR => "tactus: error: ",
            Level::WARN => "tactus: warning: ",
            _ => "tactus: ",
        };
        writer.write_str(prefix)?;
        ctx.field_format().format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}

/// Whether standard error goes to the systemd journal: systemd says so in
/// `JOURNAL_STREAM` (`device:inode` of the stream it connected).
fn stderr_is_journal() -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(stream) = std::env::var("JOURNAL_STREAM") else { return false };
    let Ok(meta) = std::fs::metadata("/proc/self/fd/2") else { return false };
    stream == format!("{}:{}", meta.dev(), meta.ino())
}

fn levels() -> Targets {
    let default = "info,rumqttc=warn,hyper=warn,axum=warn";
    std::env::var("TACTUS_LOG")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| default.parse().expect("valid levels"))
}

/// Installs the subscriber. Call once, first thing.
pub fn init() {
    let limit: &'static RateLimit = LIMIT.get_or_init(|| Box::leak(Box::default()));
    let journald = if stderr_is_journal() { tracing_journald::layer().ok() } else { None };
    let result = match journald {
        Some(journald) => {
            let journald: Filtered<_, _, _> = journald.with_syslog_identifier("tactus".into()).with_filter(limit);
            tracing_subscriber::registry().with(levels()).with(journald).try_init()
        }
        None => {
            let stderr = tracing_subscriber::fmt::layer()
                .with_writer(|| LineWriter::new(Stream::Stderr))
                .with_ansi(false)
                .event_format(Plain)
                .with_filter(limit);
            tracing_subscriber::registry().with(levels()).with(stderr).try_init()
        }
    };
    // A second call (tests) keeps the first subscriber.
    let _ = result;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> &'static Metadata<'static> {
        use tracing::callsite::Callsite;
        let callsite = tracing::callsite! {
            name: "test site",
            kind: tracing::metadata::Kind::EVENT,
            level: tracing::Level::WARN,
            fields: []
        };
        callsite.metadata()
    }

    #[test]
    fn a_repeated_message_passes_a_few_times_then_is_counted() {
        let limit = RateLimit::default();
        let start = Instant::now();
        let meta = site();
        let passed = (0..1000).filter(|i| limit.admit(meta, start + Duration::from_millis(*i))).count();
        assert_eq!(passed, BURST as usize);
        assert!(limit.due(start + Duration::from_secs(1), false).is_empty(), "not before the window ends");
        let due = limit.due(start + WINDOW, false);
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].1, 1000 - u64::from(BURST));
        assert!(limit.admit(meta, start + WINDOW), "a new window lets it through again");
    }
}
