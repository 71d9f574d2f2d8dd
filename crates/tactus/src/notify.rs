//! systemd's notify protocol (`Type=notify`, `WatchdogSec=`), spoken
//! directly on `$NOTIFY_SOCKET`: no library, nothing when not under systemd.

use std::os::unix::net::UnixDatagram;
use std::time::Duration;

fn send(state: &str) {
    let Some(path) = std::env::var_os("NOTIFY_SOCKET") else { return };
    if let Err(e) = notify(&path, state) {
        tracing::warn!("cannot notify systemd: {e}");
    }
}

/// Sends `state` to the notify socket at `path`, never waiting: a service
/// manager that does not take it loses it (the next ping comes anyway).
fn notify(path: &std::ffi::OsStr, state: &str) -> std::io::Result<()> {
    let socket = UnixDatagram::unbound()?;
    socket.set_nonblocking(true)?;
    let bytes = path.as_encoded_bytes();
    if let Some(name) = bytes.strip_prefix(b"@") {
        // An abstract socket: Linux only, named without the leading '@'.
        use std::os::linux::net::SocketAddrExt;
        std::os::unix::net::SocketAddr::from_abstract_name(name)
            .and_then(|addr| socket.send_to_addr(state.as_bytes(), &addr))
            .map(drop)
    } else {
        socket.send_to(state.as_bytes(), std::path::Path::new(path)).map(drop)
    }
}

pub fn ready() {
    send("READY=1\nSTATUS=playing");
}

pub fn stopping() {
    send("STOPPING=1");
}

pub fn watchdog() {
    send("WATCHDOG=1");
}

/// Half the watchdog period systemd asked for, if it asked.
pub fn watchdog_interval() -> Option<Duration> {
    let usec: u64 = std::env::var("WATCHDOG_USEC").ok()?.parse().ok()?;
    Some(Duration::from_micros(usec / 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A service manager that does not take its messages (its socket's
    /// queue full) is told nothing more, at once: the game's task, which
    /// pings the watchdog, never waits for it.
    #[test]
    fn a_notify_socket_that_is_not_read_never_holds_the_sender() {
        let dir = std::env::temp_dir().join(format!("tactus-notify-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("notify");
        let _unread = UnixDatagram::bind(&path).unwrap();
        let (done_tx, done) = std::sync::mpsc::channel();
        let sender = path.clone();
        std::thread::spawn(move || {
            let failed = (0..10_000).filter(|_| notify(sender.as_os_str(), "WATCHDOG=1").is_err()).count();
            let _ = done_tx.send(failed);
        });
        let failed = done.recv_timeout(Duration::from_secs(30)).expect("the pings never wait for the socket");
        assert!(failed > 0, "the socket's queue filled and the pings past it were dropped");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
