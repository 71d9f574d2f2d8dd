//! HTTP/1.0 by hand: one request a connection, the reply read to its end,
//! so that a test sees exactly what the server sent.

use std::io::{Read, Write};
use std::time::Duration;

/// One request to 127.0.0.1:`port`; the reply's status and body, or none
/// if no whole reply came. A reply may take up to 90 s: longer than the
/// Lichess test server's longest poll (60 s).
pub fn request(port: u16, method: &str, path: &str, headers: &str, body: &str) -> Option<(u16, String)> {
    exchange(port, method, path, headers, body, Duration::from_secs(90))
}

/// The body of a `GET` answered 200, within 10 s; none otherwise (a poll
/// tries again).
pub fn get(port: u16, path: &str) -> Option<String> {
    let (status, body) = exchange(port, "GET", path, "", "", Duration::from_secs(10))?;
    (status == 200).then_some(body)
}

fn exchange(port: u16, method: &str, path: &str, headers: &str, body: &str, wait: Duration) -> Option<(u16, String)> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(wait)).ok()?;
    write!(s, "{method} {path} HTTP/1.0\r\nHost: localhost\r\n{headers}Content-Length: {}\r\n\r\n{body}", body.len())
        .ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some((status, body.to_string()))
}

/// As [`request`], the body as bytes (a file that need not be UTF-8).
pub fn request_bytes(port: u16, method: &str, path: &str, headers: &str, body: &str) -> Option<(u16, Vec<u8>)> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(90))).ok()?;
    write!(s, "{method} {path} HTTP/1.0\r\nHost: localhost\r\n{headers}Content-Length: {}\r\n\r\n{body}", body.len())
        .ok()?;
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).ok()?;
    let end = bytes.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&bytes[..end]);
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some((status, bytes[end + 4..].to_vec()))
}
