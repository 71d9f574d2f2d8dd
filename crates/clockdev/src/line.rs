//! The open tactus clock protocol's lines, version 1: framing, checksum and
//! messages in both directions. Pure; `hardware/clock/PROTOCOL.md` is the
//! specification.

use shakmaty::Color;

use crate::Display;

/// The protocol version this crate speaks.
pub const VERSION: u32 = 1;
/// Longest line, checksum and line end included. Longer input is garbage.
pub const MAX_LINE: usize = 120;
/// Longest `TEXT`.
pub const MAX_TEXT: usize = 32;

/// `payload*HH\n`, HH the XOR of the payload's bytes in hex.
pub fn frame(payload: &str) -> String {
    format!("{payload}*{:02X}\n", checksum(payload.as_bytes()))
}

/// XOR of all bytes.
pub fn checksum(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0, |x, b| x ^ b)
}

/// Why a line was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invalid {
    /// Longer than [`MAX_LINE`].
    TooLong,
    /// A byte outside printable ASCII.
    NotAscii,
    /// No `*HH` at the end.
    NoChecksum,
    /// `*HH` does not match the payload.
    Checksum,
    /// The checksum holds but the message is not one of the protocol.
    Syntax,
}

impl Invalid {
    /// The code an `ERR` line gives for it.
    pub fn code(self) -> &'static str {
        match self {
            Invalid::TooLong => "TOOLONG",
            Invalid::NotAscii | Invalid::NoChecksum | Invalid::Checksum => "CHECKSUM",
            Invalid::Syntax => "SYNTAX",
        }
    }
}

/// Checks a line (without its `\n`; a trailing `\r` is allowed) and
/// returns its payload.
pub fn unframe(line: &[u8]) -> Result<&str, Invalid> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() + 1 > MAX_LINE {
        return Err(Invalid::TooLong);
    }
    if !line.iter().all(|b| (0x20..0x7f).contains(b)) {
        return Err(Invalid::NotAscii);
    }
    let star = line.iter().rposition(|&b| b == b'*').ok_or(Invalid::NoChecksum)?;
    let (payload, sum) = (&line[..star], &line[star + 1..]);
    let sum = std::str::from_utf8(sum).map_err(|_| Invalid::NoChecksum)?;
    if sum.len() != 2 {
        return Err(Invalid::NoChecksum);
    }
    let sum = u8::from_str_radix(sum, 16).map_err(|_| Invalid::NoChecksum)?;
    if sum != checksum(payload) {
        return Err(Invalid::Checksum);
    }
    std::str::from_utf8(payload).map_err(|_| Invalid::NotAscii)
}

/// Splits a byte stream into lines; keeps a partial line for the next
/// bytes, and turns an over-long one into a single piece of garbage.
#[derive(Debug, Default)]
pub struct LineSplitter {
    buf: Vec<u8>,
    /// Inside an over-long line: drop bytes up to its end.
    skipping: bool,
}

/// A line, or what was skipped of an over-long one.
pub type Piece = Result<Vec<u8>, Vec<u8>>;

impl LineSplitter {
    /// Complete lines in `bytes` (without `\n`), in order.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Piece> {
        let mut out = Vec::new();
        for &b in bytes {
            if b == b'\n' {
                let line = std::mem::take(&mut self.buf);
                if !std::mem::replace(&mut self.skipping, false) {
                    out.push(Ok(line));
                }
            } else if !self.skipping {
                self.buf.push(b);
                if self.buf.len() >= MAX_LINE {
                    out.push(Err(std::mem::take(&mut self.buf)));
                    self.skipping = true;
                }
            }
        }
        out
    }

    /// Forgets a partial line (the connection was lost).
    pub fn clear(&mut self) {
        self.buf.clear();
        self.skipping = false;
    }
}

/// Host to clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostMsg {
    /// `TACTUS <version>`: start or restart the session.
    Hello {
        /// Protocol version the host speaks.
        version: u32,
    },
    /// `SET <seq> <white_ms> <black_ms> <W|B|-> <white_moves> <black_moves> <delay_ms>`.
    Set {
        /// Command number, echoed by `OK`.
        seq: u16,
        /// What to show; negative times are sent as zero.
        display: Display,
    },
    /// `BEEP <seq> <ms>`.
    Beep {
        /// Command number.
        seq: u16,
        /// Duration.
        ms: u32,
    },
    /// `TEXT <seq> [text]`: the text until the next `SET`; empty clears it.
    Text {
        /// Command number.
        seq: u16,
        /// At most [`MAX_TEXT`] printable characters, no `*`.
        text: String,
    },
    /// `PING <seq>`: answered by `PONG`.
    Ping {
        /// Command number.
        seq: u16,
    },
    /// `ACK <eseq>`: the clock's event `eseq` arrived.
    Ack {
        /// Event number.
        eseq: u16,
    },
}

/// Clock to host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClockMsg {
    /// `CLOCK <version> <name> <firmware>`: the answer to `TACTUS`.
    Clock {
        /// Protocol version the clock speaks.
        version: u32,
        /// The clock's name, one word.
        name: String,
        /// Its firmware version, one word.
        firmware: String,
    },
    /// `OK <seq>`: command `seq` done.
    Ok {
        /// Command number.
        seq: u16,
    },
    /// `PONG <seq> <clock_ms>`.
    Pong {
        /// The `PING`'s number.
        seq: u16,
        /// The clock's millisecond counter.
        clock_ms: u32,
    },
    /// `LEVER <eseq> <W|B> <clock_ms>`: that side pressed.
    Lever {
        /// Event number, to be acknowledged.
        eseq: u16,
        /// Who pressed.
        side: Color,
        /// The counter at the press.
        clock_ms: u32,
    },
    /// `BUTTON <eseq> <NAME> <clock_ms>`.
    Button {
        /// Event number, to be acknowledged.
        eseq: u16,
        /// `TIME`, `MOVE`, `PAUSE`, `PLUS`, `MINUS` or the clock's own word.
        name: String,
        /// The counter at the press.
        clock_ms: u32,
    },
    /// `ERR <CODE> [detail]`.
    Err {
        /// `CHECKSUM`, `TOOLONG`, `SYNTAX`, `VERSION`, `UNKNOWN`…
        code: String,
        /// Free text, possibly empty.
        detail: String,
    },
}

fn side_char(side: Option<Color>) -> char {
    match side {
        Some(Color::White) => 'W',
        Some(Color::Black) => 'B',
        None => '-',
    }
}

fn parse_side(s: &str) -> Option<Option<Color>> {
    match s {
        "W" => Some(Some(Color::White)),
        "B" => Some(Some(Color::Black)),
        "-" => Some(None),
        _ => None,
    }
}

/// A word of the protocol: printable, no space, no `*`.
fn is_word(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic() && b != b'*')
}

/// Makes `s` fit a text field: printable ASCII without `*`, at most `max`.
pub fn clean_text(s: &str, max: usize) -> String {
    s.chars().map(|c| if c.is_ascii() && !c.is_ascii_control() && c != '*' { c } else { '?' }).take(max).collect()
}

/// Makes `s` one protocol word.
fn clean_word(s: &str) -> String {
    let w: String = clean_text(s, 24).chars().map(|c| if c == ' ' { '_' } else { c }).collect();
    if w.is_empty() { "-".into() } else { w }
}

impl HostMsg {
    /// The framed line.
    pub fn encode(&self) -> String {
        frame(&match self {
            HostMsg::Hello { version } => format!("TACTUS {version}"),
            HostMsg::Set { seq, display: d } => format!(
                "SET {seq} {} {} {} {} {} {}",
                d.white_ms.max(0),
                d.black_ms.max(0),
                side_char(d.running),
                d.white_moves,
                d.black_moves,
                d.delay_ms
            ),
            HostMsg::Beep { seq, ms } => format!("BEEP {seq} {ms}"),
            HostMsg::Text { seq, text } if text.is_empty() => format!("TEXT {seq}"),
            HostMsg::Text { seq, text } => format!("TEXT {seq} {}", clean_text(text, MAX_TEXT)),
            HostMsg::Ping { seq } => format!("PING {seq}"),
            HostMsg::Ack { eseq } => format!("ACK {eseq}"),
        })
    }

    /// Parses a checked payload (see [`unframe`]).
    pub fn parse(payload: &str) -> Result<HostMsg, Invalid> {
        let (head, rest) = payload.split_once(' ').unwrap_or((payload, ""));
        if head == "TEXT" {
            let (seq, text) = rest.split_once(' ').unwrap_or((rest, ""));
            if text.len() > MAX_TEXT {
                return Err(Invalid::Syntax);
            }
            return Ok(HostMsg::Text { seq: num(seq)?, text: text.to_string() });
        }
        let f: Vec<&str> = rest.split(' ').filter(|s| !s.is_empty()).collect();
        Ok(match (head, f.as_slice()) {
            ("TACTUS", [v]) => HostMsg::Hello { version: num(v)? },
            ("SET", [seq, w, b, run, wm, bm, delay]) => HostMsg::Set {
                seq: num(seq)?,
                display: Display {
                    white_ms: num(w)?,
                    black_ms: num(b)?,
                    running: parse_side(run).ok_or(Invalid::Syntax)?,
                    white_moves: num(wm)?,
                    black_moves: num(bm)?,
                    delay_ms: num(delay)?,
                },
            },
            ("BEEP", [seq, ms]) => HostMsg::Beep { seq: num(seq)?, ms: num(ms)? },
            ("PING", [seq]) => HostMsg::Ping { seq: num(seq)? },
            ("ACK", [eseq]) => HostMsg::Ack { eseq: num(eseq)? },
            _ => return Err(Invalid::Syntax),
        })
    }
}

impl ClockMsg {
    /// The framed line.
    pub fn encode(&self) -> String {
        frame(&match self {
            ClockMsg::Clock { version, name, firmware } => {
                format!("CLOCK {version} {} {}", clean_word(name), clean_word(firmware))
            }
            ClockMsg::Ok { seq } => format!("OK {seq}"),
            ClockMsg::Pong { seq, clock_ms } => format!("PONG {seq} {clock_ms}"),
            ClockMsg::Lever { eseq, side, clock_ms } => format!("LEVER {eseq} {} {clock_ms}", side_char(Some(*side))),
            ClockMsg::Button { eseq, name, clock_ms } => format!("BUTTON {eseq} {} {clock_ms}", clean_word(name)),
            ClockMsg::Err { code, detail } if detail.is_empty() => format!("ERR {}", clean_word(code)),
            ClockMsg::Err { code, detail } => format!("ERR {} {}", clean_word(code), clean_text(detail, 64)),
        })
    }

    /// Parses a checked payload (see [`unframe`]).
    pub fn parse(payload: &str) -> Result<ClockMsg, Invalid> {
        let (head, rest) = payload.split_once(' ').unwrap_or((payload, ""));
        if head == "ERR" {
            let (code, detail) = rest.split_once(' ').unwrap_or((rest, ""));
            if !is_word(code) {
                return Err(Invalid::Syntax);
            }
            return Ok(ClockMsg::Err { code: code.to_string(), detail: detail.to_string() });
        }
        let f: Vec<&str> = rest.split(' ').filter(|s| !s.is_empty()).collect();
        Ok(match (head, f.as_slice()) {
            ("CLOCK", [v, name, fw]) => {
                ClockMsg::Clock { version: num(v)?, name: name.to_string(), firmware: fw.to_string() }
            }
            ("OK", [seq]) => ClockMsg::Ok { seq: num(seq)? },
            ("PONG", [seq, ms]) => ClockMsg::Pong { seq: num(seq)?, clock_ms: num(ms)? },
            ("LEVER", [eseq, side, ms]) => ClockMsg::Lever {
                eseq: num(eseq)?,
                side: parse_side(side).flatten().ok_or(Invalid::Syntax)?,
                clock_ms: num(ms)?,
            },
            ("BUTTON", [eseq, name, ms]) => {
                ClockMsg::Button { eseq: num(eseq)?, name: name.to_string(), clock_ms: num(ms)? }
            }
            _ => return Err(Invalid::Syntax),
        })
    }
}

/// A decimal number of the protocol: digits only, in range.
fn num<T: std::str::FromStr>(s: &str) -> Result<T, Invalid> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Invalid::Syntax);
    }
    s.parse().map_err(|_| Invalid::Syntax)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn frames_as_documented() {
        assert_eq!(HostMsg::Hello { version: 1 }.encode(), "TACTUS 1*15\n");
        let d = Display {
            white_ms: 300_000,
            black_ms: 299_500,
            running: Some(Color::Black),
            white_moves: 1,
            black_moves: 0,
            delay_ms: 0,
        };
        assert_eq!(HostMsg::Set { seq: 7, display: d }.encode(), "SET 7 300000 299500 B 1 0 0*22\n");
        assert_eq!(ClockMsg::Lever { eseq: 3, side: Color::White, clock_ms: 81234 }.encode(), "LEVER 3 W 81234*30\n");
    }

    #[test]
    fn bad_lines_are_told_apart() {
        assert_eq!(unframe(b"OK 1*15"), Ok("OK 1"));
        assert_eq!(unframe(b"PONG 4 81500*1e\r"), Ok("PONG 4 81500"));
        assert_eq!(unframe(b"OK 1*16"), Err(Invalid::Checksum));
        assert_eq!(unframe(b"OK 1"), Err(Invalid::NoChecksum));
        assert_eq!(unframe(b"OK\x001*2E"), Err(Invalid::NotAscii));
        assert_eq!(unframe(&[b'A'; 200]), Err(Invalid::TooLong));
        assert_eq!(ClockMsg::parse("LEVER 1 X 5"), Err(Invalid::Syntax));
        assert_eq!(ClockMsg::parse("OK -1"), Err(Invalid::Syntax));
        assert_eq!(ClockMsg::parse("OK 70000"), Err(Invalid::Syntax));
        assert_eq!(HostMsg::parse("SET 1 2 3 W 4 5"), Err(Invalid::Syntax));
    }

    #[test]
    fn partial_and_overlong_lines() {
        let mut lines = LineSplitter::default();
        assert!(lines.feed(b"OK 1").is_empty());
        assert_eq!(lines.feed(b"*15\nPO"), vec![Ok(b"OK 1*15".to_vec())]);
        let long = vec![b'x'; 300];
        let out = lines.feed(&long);
        assert_eq!(out.len(), 1);
        assert!(out[0].is_err());
        assert_eq!(lines.feed(b"tail\nOK 2*16\n"), vec![Ok(b"OK 2*16".to_vec())]);
    }

    fn any_display() -> impl Strategy<Value = Display> {
        (0..i64::MAX, 0..i64::MAX, 0..3u8, any::<u32>(), any::<u32>(), any::<u64>()).prop_map(
            |(white_ms, black_ms, r, white_moves, black_moves, delay_ms)| Display {
                white_ms,
                black_ms,
                running: [None, Some(Color::White), Some(Color::Black)][usize::from(r)],
                white_moves,
                black_moves,
                delay_ms,
            },
        )
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let mut lines = LineSplitter::default();
            for piece in lines.feed(&bytes).into_iter().flatten() {
                if let Ok(payload) = unframe(&piece) {
                    let _ = HostMsg::parse(payload);
                    let _ = ClockMsg::parse(payload);
                }
            }
        }

        #[test]
        fn printable_lines_never_panic(s in "[ -~]{0,130}") {
            let _ = HostMsg::parse(&s);
            let _ = ClockMsg::parse(&s);
            let framed = frame(&s);
            let _ = unframe(framed.trim_end().as_bytes());
        }

        #[test]
        fn host_messages_round_trip(seq in any::<u16>(), d in any_display(), ms in any::<u32>(), text in "[ -)+-~]{0,32}") {
            for m in [
                HostMsg::Hello { version: u32::from(seq) },
                HostMsg::Set { seq, display: d },
                HostMsg::Beep { seq, ms },
                HostMsg::Text { seq, text: text.clone() },
                HostMsg::Ping { seq },
                HostMsg::Ack { eseq: seq },
            ] {
                let line = m.encode();
                prop_assert!(line.len() <= MAX_LINE);
                let payload = unframe(line.trim_end_matches('\n').as_bytes()).unwrap();
                prop_assert_eq!(HostMsg::parse(payload), Ok(m));
            }
        }

        #[test]
        fn clock_messages_round_trip(eseq in any::<u16>(), ms in any::<u32>(), white in any::<bool>(), name in "[!-)+-~]{1,24}") {
            let side = if white { Color::White } else { Color::Black };
            for m in [
                ClockMsg::Clock { version: 1, name: name.clone(), firmware: name.clone() },
                ClockMsg::Ok { seq: eseq },
                ClockMsg::Pong { seq: eseq, clock_ms: ms },
                ClockMsg::Lever { eseq, side, clock_ms: ms },
                ClockMsg::Button { eseq, name: name.clone(), clock_ms: ms },
                ClockMsg::Err { code: name.clone(), detail: "bad line".into() },
            ] {
                let line = m.encode();
                prop_assert!(line.len() <= MAX_LINE);
                let payload = unframe(line.trim_end_matches('\n').as_bytes()).unwrap();
                prop_assert_eq!(ClockMsg::parse(payload), Ok(m));
            }
        }
    }
}
