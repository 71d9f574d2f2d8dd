//! systemd's notify protocol (`Type=notify`, `WatchdogSec=`), spoken
//! directly on `$NOTIFY_SOCKET`: no library, nothing when not under systemd.

use std::os::unix::net::UnixDatagram;
use std::time::Duration;

fn send(state: &str) {
    let Some(path) = std::env::var_os("NOTIFY_SOCKET") else { return };
    let Ok(socket) = UnixDatagram::unbound() else { return };
    let bytes = path.as_encoded_bytes();
    let result = if let Some(name) = bytes.strip_prefix(b"@") {
        // An abstract socket: Linux only, named without the leading '@'.
        use std::os::linux::net::SocketAddrExt;
        std::os::unix::net::SocketAddr::from_abstract_name(name)
            .and_then(|addr| socket.send_to_addr(state.as_bytes(), &addr))
    } else {
        socket.send_to(state.as_bytes(), std::path::Path::new(&path))
    };
    if let Err(e) = result {
        tracing::warn!("cannot notify systemd: {e}");
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
