//! Live updates: the hall shared between the tasks that change it and the
//! clients that watch it, and `/events`, its server-sent events.

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::{StreamExt, stream};
use serde_json::json;
use tactus_core::Event;
use tactus_trace::Ms;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::feed::{Applied, ArbiterNote, BoardFeed, Change, Hall, Spoken, Tags, Told};
use crate::wire::unix_ms;

/// How many updates a slow `/events` client may fall behind before it is
/// told to fetch the hall again.
const BACKLOG: usize = 4096;

/// What a server-sent event tells; its `event:` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateKind {
    /// A core event of a board.
    Board,
    /// A line a board spoke.
    Spoken,
    /// An arbiter's note the core does not see.
    Arbiter,
    /// Fetch a board (or, for none, the hall) again.
    Reset,
}

impl UpdateKind {
    pub fn name(self) -> &'static str {
        match self {
            UpdateKind::Board => "board",
            UpdateKind::Spoken => "spoken",
            UpdateKind::Arbiter => "arbiter",
            UpdateKind::Reset => "reset",
        }
    }
}

/// One server-sent event: what it tells and its JSON data, serialised once
/// for every client.
#[derive(Debug, Clone)]
pub struct Update {
    pub kind: UpdateKind,
    pub data: Arc<str>,
}

/// The hall behind a lock, with a broadcast of every change in the order it
/// was applied. Cheap to clone.
#[derive(Clone)]
pub struct SharedHall {
    hall: Arc<Mutex<Hall>>,
    tx: broadcast::Sender<Update>,
}

impl SharedHall {
    pub fn new(hall: Hall) -> SharedHall {
        SharedHall { hall: Arc::new(Mutex::new(hall)), tx: broadcast::channel(BACKLOG).0 }
    }

    fn lock(&self) -> MutexGuard<'_, Hall> {
        // A panic elsewhere while holding the lock leaves a usable hall: every
        // change is applied whole before the guard drops.
        self.hall.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads the hall (keep it short: the lock is held).
    pub fn read<R>(&self, f: impl FnOnce(&Hall) -> R) -> R {
        f(&self.lock())
    }

    /// Every update from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Update> {
        self.tx.subscribe()
    }

    /// Applies one core event of a board, with the board's words for it if
    /// it has any, and tells the subscribers.
    pub fn apply(&self, board: &str, ev: &Event, text: Option<&str>) {
        self.change(board, &Change::Event(Told { event: ev.clone(), text: text.map(str::to_string) }));
    }

    /// Records a line the daemon spoke.
    pub fn spoken(&self, board: &str, t: Ms, text: &str) {
        self.change(board, &Change::Spoken(Spoken { t, text: text.to_string() }));
    }

    /// Sets a board's tags.
    pub fn set_tags(&self, board: &str, tags: Tags) {
        self.change(board, &Change::Tags(tags));
    }

    /// Applies a change of any kind.
    pub fn change(&self, board: &str, change: &Change) {
        let mut hall = self.lock();
        hall.change(board, change);
        self.stamp(&mut hall, board, change);
        self.send(&hall, board, change, Applied::InOrder);
    }

    /// A change numbered by its board (from MQTT); see [`Hall::change_numbered`].
    pub fn change_numbered(&self, board: &str, epoch: u64, seq: u64, change: &Change) -> Applied {
        let mut hall = self.lock();
        let applied = hall.change_numbered(board, epoch, seq, change);
        if applied != Applied::Stale {
            self.stamp(&mut hall, board, change);
            self.send(&hall, board, change, applied);
        }
        applied
    }

    /// A snapshot of a board (MQTT retained state); see [`Hall::replace`].
    pub fn replace(&self, feed: BoardFeed) -> Applied {
        let board = feed.id.clone();
        let mut hall = self.lock();
        let applied = hall.replace(feed);
        if applied == Applied::Reset {
            hall.stamp(&board, unix_ms());
            self.reset(Some(&board));
        }
        applied
    }

    /// Stops showing a board (see [`Hall::remove`]); the pages fetch the
    /// hall again.
    pub fn remove(&self, board: &str) -> bool {
        let mut hall = self.lock();
        let removed = hall.remove(board);
        if removed {
            self.reset(None);
        }
        removed
    }

    /// Records an arbiter's ruling the core does not see (a rejected claim);
    /// `None` when there is no such board.
    pub fn note(&self, board: &str, text: &str) -> Option<ArbiterNote> {
        let mut hall = self.lock();
        let note = hall.note(board, text)?;
        if self.tx.receiver_count() > 0 {
            let data = json!({"board": board, "t": note.t, "text": note.text});
            let _ = self.tx.send(Update { kind: UpdateKind::Arbiter, data: data.to_string().into() });
        }
        Some(note)
    }

    fn stamp(&self, hall: &mut Hall, board: &str, change: &Change) {
        if matches!(change, Change::Event(_)) && change.changes_feed() {
            hall.stamp(board, unix_ms());
        }
    }

    fn reset(&self, board: Option<&str>) {
        if self.tx.receiver_count() > 0 {
            let _ =
                self.tx.send(Update { kind: UpdateKind::Reset, data: json!({ "board": board }).to_string().into() });
        }
    }

    /// Sends under the hall's lock, so subscribers see changes in the order
    /// they were applied.
    fn send(&self, hall: &Hall, board: &str, change: &Change, applied: Applied) {
        if self.tx.receiver_count() == 0 {
            return;
        }
        // The page shows a pair's one game, not its boards: it fetches the
        // game again (once for a burst of changes), as the boards' events,
        // told twice and numbered each by its board, cannot be applied to it.
        if let Some(game) = hall.paired_game(board) {
            return self.reset(Some(&game));
        }
        if applied == Applied::Reset {
            self.reset(Some(board));
        }
        let (seq, change) = match hall.feed(board) {
            Some(feed) => (feed.seq, feed.outgoing(change)),
            None => (0, change.clone()),
        };
        let (kind, data) = match &change {
            Change::Event(Told { event, text: None }) => {
                (UpdateKind::Board, json!({"board": board, "seq": seq, "event": event}))
            }
            Change::Event(Told { event, text: Some(text) }) => {
                (UpdateKind::Board, json!({"board": board, "seq": seq, "event": event, "text": text}))
            }
            Change::Spoken(s) => (UpdateKind::Spoken, json!({"board": board, "seq": seq, "t": s.t, "text": s.text})),
            Change::Tags(_) => return self.reset(Some(board)),
        };
        let _ = self.tx.send(Update { kind, data: data.to_string().into() });
    }
}

/// What `/events` needs of the server: the hall, how many streams are open
/// and may be, and when to end them (a server that stops does not wait on
/// clients that never hang up).
#[derive(Clone)]
pub(crate) struct Streams {
    pub hall: SharedHall,
    pub open: Arc<AtomicUsize>,
    pub max: usize,
    pub stop: CancellationToken,
}

/// Counts an `/events` stream while it lasts.
struct Viewer(Arc<AtomicUsize>);

impl Drop for Viewer {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `GET /events`: every update as a server-sent event, in order. A client
/// that falls too far behind gets `reset` with `"board": null` (fetch the
/// hall again) and goes on from there. Past [`Streams::max`] streams, 503.
pub(crate) async fn events(State(streams): State<Streams>) -> Response {
    let max = streams.max;
    if streams.open.fetch_add(1, Ordering::SeqCst) >= max {
        streams.open.fetch_sub(1, Ordering::SeqCst);
        let message = format!("{max} viewers are following live already; try again later");
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(axum::http::header::RETRY_AFTER, "30")],
            axum::Json(json!({ "error": message })),
        )
            .into_response();
    }
    let viewer = Viewer(streams.open.clone());
    let rx = streams.hall.subscribe();
    let updates = stream::unfold((rx, viewer), |(mut rx, viewer)| async move {
        let update = match rx.recv().await {
            Ok(update) => update,
            Err(broadcast::error::RecvError::Lagged(_)) => {
                Update { kind: UpdateKind::Reset, data: json!({ "board": null }).to_string().into() }
            }
            Err(broadcast::error::RecvError::Closed) => return None,
        };
        Some((Ok::<_, Infallible>(SseEvent::default().event(update.kind.name()).data(&*update.data)), (rx, viewer)))
    });
    let stream = updates.take_until(Box::pin(streams.stop.cancelled_owned()));
    Sse::new(stream).keep_alive(KeepAlive::default()).into_response()
}
