//! Stopping within a bound. SIGTERM ends the daemon within 2 s whatever a
//! peer does: every part gets until one deadline to finish, and a thread
//! still stuck then — in a write to a pipe nobody reads, on a device or a
//! disk that hangs — is left behind for the process's exit to end. Nothing
//! is waited for without a bound.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// From the stop signal to the end of the daemon's work; the rest of the
/// 2 s is the runtime's and the process's own exit.
pub const BUDGET: Duration = Duration::from_millis(1200);

/// The deadline of a shutdown that begins now.
pub fn deadline() -> Instant {
    Instant::now() + BUDGET
}

/// One of the daemon's threads, which says when it has ended (returned
/// or panicked), so that it is waited for without polling.
pub struct Thread<T> {
    handle: JoinHandle<T>,
    ended: oneshot::Receiver<()>,
}

/// Starts `work` on a thread named `name`.
pub fn spawn<T: Send + 'static>(name: &str, work: impl FnOnce() -> T + Send + 'static) -> std::io::Result<Thread<T>> {
    let (tx, ended) = oneshot::channel();
    let handle = std::thread::Builder::new().name(name.into()).spawn(move || {
        // Dropped as the work ends, however it ends.
        let _ending = tx;
        work()
    })?;
    Ok(Thread { handle, ended })
}

impl<T> Thread<T> {
    /// Whether its work has ended.
    pub fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }

    /// Waits for it to end, until `deadline`: its result, or `None` if it
    /// is still running then (it is left behind) or it panicked.
    pub async fn join_by(self, deadline: Instant) -> Option<T> {
        let Thread { handle, ended } = self;
        // Ended or panicked, the sender is gone either way.
        let _ = tokio::time::timeout_at(deadline.into(), ended).await.ok()?;
        // What is left is the thread's own exit.
        handle.join().ok()
    }
}

/// What is left of the time until `deadline`, less `margin` for what must
/// still follow.
pub fn left(deadline: Instant, margin: Duration) -> Duration {
    deadline.saturating_duration_since(Instant::now()).saturating_sub(margin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_is_waited_for_until_it_ends_or_the_deadline() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let far = Instant::now() + Duration::from_secs(60);
            let (go, wait) = std::sync::mpsc::channel::<()>();
            let waiting = spawn("test-waits", move || wait.recv().is_ok()).unwrap();
            let stuck = spawn("test-stuck", || std::thread::sleep(Duration::from_secs(5))).unwrap();
            let started = Instant::now();
            assert_eq!(stuck.join_by(started + Duration::from_millis(50)).await, None, "left behind");
            assert!(started.elapsed() < Duration::from_secs(4), "at the deadline, not when it ends");
            go.send(()).unwrap();
            assert_eq!(waiting.join_by(far).await, Some(true), "its result, once it ends");
            let panics = spawn("test-panics", || panic!("on purpose")).unwrap();
            assert_eq!(panics.join_by(far).await, None::<()>, "a panic ends it too");
        });
    }
}
