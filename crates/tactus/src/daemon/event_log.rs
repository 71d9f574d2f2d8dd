//! The events as JSON Lines (`--events FILE|-`), written on a thread of
//! their own. Whoever reads them is a peer like any other: a pipe nobody
//! drains, or a disk that hangs, holds neither the game nor shutdown. The
//! lines wait in a bounded queue; while it is full, new ones are dropped
//! and counted — said once in the log, and the total at the end — rather
//! than kept for a reader that may never come back.

use std::io::Write;
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::time::Instant;

use tactus_core::Event;
use tactus_speech::{Lang, Scribe};

use super::shutdown::{self, Thread};

/// Lines waiting for the reader: about 100 KB of events, minutes of play.
pub const QUEUE: usize = 1024;

pub struct EventLog {
    lines: SyncSender<Vec<u8>>,
    /// A ruling's `detail`, in the board's language.
    scribe: Scribe,
    thread: Thread<()>,
    /// For messages: the file, or "standard output".
    name: String,
    /// Lines dropped because the reader did not keep up.
    dropped: u64,
    /// The writer stopped: the file or pipe failed (said by its thread).
    failed: bool,
}

impl EventLog {
    /// Writes to `out` from now on, a ruling's `detail` in `lang`; `name`
    /// names it in messages.
    pub fn start(out: Box<dyn Write + Send>, name: String, lang: Lang) -> anyhow::Result<EventLog> {
        let (lines, queued) = mpsc::sync_channel(QUEUE);
        let shown = name.clone();
        let thread = shutdown::spawn("events", move || write(out, &queued, &shown))?;
        Ok(EventLog { lines, scribe: Scribe::natural(lang), thread, name, dropped: 0, failed: false })
    }

    /// Queues the event's line. Never waits.
    pub fn write(&mut self, event: &Event) {
        if self.failed {
            return;
        }
        let mut line = self.scribe.json_line(event).into_bytes();
        line.push(b'\n');
        match self.lines.try_send(line) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                if self.dropped == 0 {
                    tracing::warn!(
                        "events: {} does not keep up: events are dropped while {QUEUE} wait (the count comes at the end)",
                        self.name
                    );
                }
                self.dropped += 1;
            }
            Err(TrySendError::Disconnected(_)) => self.failed = true,
        }
    }

    /// Writes what waits, until `deadline`; a reader that still does not
    /// read then is left with what it has.
    pub async fn stop(self, deadline: Instant) {
        let EventLog { lines, thread, name, dropped, .. } = self;
        drop(lines);
        if thread.join_by(deadline).await.is_none() {
            tracing::warn!("events: {name} is not read; what waited for it is not written");
        }
        if dropped > 0 {
            tracing::warn!("events: {dropped} events were dropped because {name} did not keep up");
        }
    }
}

/// The writer's thread: the lines as they come, flushed once none waits.
/// A failed write is said once, and ends it.
fn write(mut out: Box<dyn Write + Send>, queued: &Receiver<Vec<u8>>, name: &str) {
    while let Ok(line) = queued.recv() {
        let mut written = out.write_all(&line);
        while written.is_ok()
            && let Ok(more) = queued.try_recv()
        {
            written = out.write_all(&more);
        }
        if let Err(e) = written.and_then(|()| out.flush()) {
            // The game goes on; the lost file is said once.
            tracing::error!("events: cannot write to {name} ({e}); no more events are written there");
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Condvar, Mutex};
    use std::time::Duration;
    use tactus_core::EventKind;

    /// A reader that takes nothing until it is let go.
    #[derive(Clone, Default)]
    struct Stuck(Arc<(Mutex<bool>, Condvar)>);

    impl Write for Stuck {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let (go, moved) = &*self.0;
            let mut go = go.lock().unwrap();
            while !*go {
                go = moved.wait(go).unwrap();
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn event(t: u64) -> Event {
        Event { t, kind: EventKind::Position { fen: "8/8/8/8/8/8/8/8 w - - 0 1".into(), pending: None } }
    }

    #[test]
    fn a_reader_that_does_not_read_costs_the_queue_and_the_writer_never_waits() {
        let stuck = Stuck::default();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let mut log = EventLog::start(Box::new(stuck.clone()), "a stuck pipe".into(), Lang::En).unwrap();
            let started = Instant::now();
            for t in 0..10 * QUEUE as u64 {
                log.write(&event(t));
            }
            assert!(started.elapsed() < Duration::from_secs(5), "writing never waits for the reader");
            // One line is in the writer's hands; the queue holds the rest.
            assert!(log.dropped >= 9 * QUEUE as u64 - 1, "{} dropped", log.dropped);
            let deadline = Instant::now() + Duration::from_millis(100);
            log.stop(deadline).await;
            assert!(Instant::now() < deadline + Duration::from_secs(1), "stopping waits until the deadline only");
        });
        // Let the writer go, so that the test's thread ends.
        *stuck.0.0.lock().unwrap() = true;
        stuck.0.1.notify_all();
    }
}
