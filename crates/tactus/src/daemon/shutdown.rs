//! Stopping within a bound. SIGTERM ends the daemon within 2 s whatever a
//! peer does: every part gets until one deadline to finish, all at once,
//! and a thread still stuck then — in a write to a pipe nobody reads, on a
//! device or a disk that hangs — is left behind for the process's exit to
//! end. Nothing is waited for without a bound.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// From the stop signal to the end of the daemon's work; the rest of the
/// 2 s is the runtime's and the process's own exit.
pub const BUDGET: Duration = Duration::from_millis(1200);

/// The deadline of a shutdown that begins now.
pub fn deadline() -> Instant {
    Instant::now() + BUDGET
}

/// How often a thread is looked at while it is waited for.
const POLL: Duration = Duration::from_millis(5);

/// Waits for `thread` to end, until `deadline`; its result, or `None` if
/// it is still running then (it is left behind) or it panicked.
pub async fn join_by<T>(thread: JoinHandle<T>, deadline: Instant) -> Option<T> {
    while !thread.is_finished() {
        if Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(POLL).await;
    }
    thread.join().ok()
}

/// What is left of the time until `deadline`, less `margin` for what must
/// still follow.
pub fn left(deadline: Instant, margin: Duration) -> Duration {
    deadline.saturating_duration_since(Instant::now()).saturating_sub(margin)
}
