//! Ctrl-C and SIGTERM, for the daemon and the relay alike: either cancels
//! the one stop signal that every part watches.

use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// From now on Ctrl-C or SIGTERM cancels `stop`. Both are caught at once
/// (no signal in between ends the process unstopped); the watcher is one
/// of `tasks`, and ends as soon as `stop` is cancelled any other way.
pub fn cancel_on_signals(stop: &CancellationToken, tasks: &TaskTracker) -> std::io::Result<()> {
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let stop = stop.clone();
    tasks.spawn(async move {
        tokio::select! {
            _ = interrupt.recv() => stop.cancel(),
            _ = terminate.recv() => stop.cancel(),
            () = stop.cancelled() => {}
        }
    });
    Ok(())
}
