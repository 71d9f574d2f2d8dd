//! Newline-delimited JSON, as Lichess streams it: one JSON object a line,
//! and empty lines as keep-alives (`/api/stream/event` sends one every 7 s,
//! says its API reference). Bytes come in whatever pieces the network
//! makes; a line longer than the cap is dropped, never held whole — but a
//! line of Lichess's glued to its end (a server that wrote junk without a
//! newline, then a state line) is read again from its `{"type":`, so the
//! junk costs only itself.

/// What one line was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// An empty line: the server is there.
    KeepAlive,
    /// A line of text (without its `\n` or `\r\n`).
    Text(String),
    /// A line longer than the cap, dropped: its length in bytes.
    TooLong(usize),
}

/// How every line of Lichess's streams begins: where a line glued to the
/// end of an overlong one starts again.
const LINE_START: &[u8] = b"{\"type\":";

/// Splits bytes into lines, holding at most `max` bytes of a line.
#[derive(Debug)]
pub struct LineReader {
    max: usize,
    partial: Vec<u8>,
    /// An overlong line being skipped, until its end.
    skipping: Option<Skipping>,
}

/// What is kept of an overlong line: its length, and from the last
/// [`LINE_START`] in it (at most `max` bytes), the line that may be glued
/// to its end.
#[derive(Debug, Default)]
struct Skipping {
    len: usize,
    tail: Option<Vec<u8>>,
    /// The last bytes seen, for a [`LINE_START`] split between two pieces.
    carry: Vec<u8>,
}

impl Skipping {
    fn take(&mut self, piece: &[u8], max: usize) {
        self.len += piece.len();
        let mut window = std::mem::take(&mut self.carry);
        let from_carry = window.len();
        window.extend_from_slice(piece);
        match window.windows(LINE_START.len()).rposition(|w| w == LINE_START) {
            Some(at) => self.tail = Some(window[at..].to_vec()),
            None => {
                if let Some(tail) = &mut self.tail {
                    tail.extend_from_slice(&window[from_carry..]);
                }
            }
        }
        if self.tail.as_ref().is_some_and(|t| t.len() > max) {
            self.tail = None;
        }
        let keep = window.len().min(LINE_START.len() - 1);
        self.carry = window[window.len() - keep..].to_vec();
    }
}

impl LineReader {
    pub fn new(max: usize) -> LineReader {
        LineReader { max, partial: Vec::new(), skipping: None }
    }

    /// Feeds a piece of the stream; whole lines go to `out`.
    pub fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<Line>) {
        while !bytes.is_empty() {
            let end = bytes.iter().position(|&b| b == b'\n');
            let (piece, rest) = match end {
                Some(i) => (&bytes[..i], Some(&bytes[i + 1..])),
                None => (bytes, None),
            };
            if let Some(skipping) = &mut self.skipping {
                skipping.take(piece, self.max);
            } else if self.partial.len() + piece.len() > self.max {
                let mut skipping = Skipping::default();
                skipping.take(&std::mem::take(&mut self.partial), self.max);
                skipping.take(piece, self.max);
                self.skipping = Some(skipping);
            } else {
                self.partial.extend_from_slice(piece);
            }
            match rest {
                None => return,
                Some(rest) => {
                    self.finish_line(out);
                    bytes = rest;
                }
            }
        }
    }

    fn finish_line(&mut self, out: &mut Vec<Line>) {
        let raw = match self.skipping.take() {
            Some(skipped) => {
                out.push(Line::TooLong(skipped.len));
                match skipped.tail {
                    // A line glued to the junk's end: read again.
                    Some(tail) => tail,
                    None => return,
                }
            }
            None => std::mem::take(&mut self.partial),
        };
        out.push(line_of(raw));
    }
}

fn line_of(mut raw: Vec<u8>) -> Line {
    if raw.last() == Some(&b'\r') {
        raw.pop();
    }
    if raw.iter().all(u8::is_ascii_whitespace) {
        return Line::KeepAlive;
    }
    // Lichess sends UTF-8; anything else is kept readable, not fatal.
    Line::Text(String::from_utf8(raw).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn read(pieces: &[&[u8]], max: usize) -> Vec<Line> {
        let mut r = LineReader::new(max);
        let mut out = Vec::new();
        for p in pieces {
            r.feed(p, &mut out);
        }
        out
    }

    #[test]
    fn lines_keep_alives_and_crlf() {
        let out = read(&[b"{\"a\":1}\n\n{\"b\"", b":2}\r\n", b"\r\n", b"{\"c\":3}"], 100);
        assert_eq!(
            out,
            vec![Line::Text("{\"a\":1}".into()), Line::KeepAlive, Line::Text("{\"b\":2}".into()), Line::KeepAlive]
        );
    }

    #[test]
    fn a_line_glued_to_the_end_of_junk_is_read_again() {
        // Ten megabytes without a newline, then the state line the server
        // wrote next, in pieces that split its start.
        let junk = vec![b'x'; 10 * 1024 * 1024];
        let state = br#"{"type":"gameState","moves":"e2e4"}"#;
        let mut r = LineReader::new(64);
        let mut out = Vec::new();
        for piece in junk.chunks(65_536) {
            r.feed(piece, &mut out);
        }
        r.feed(&state[..3], &mut out);
        r.feed(&state[3..], &mut out);
        r.feed(b"\n\n", &mut out);
        let text = String::from_utf8(state.to_vec()).unwrap();
        assert_eq!(out, vec![Line::TooLong(junk.len() + state.len()), Line::Text(text), Line::KeepAlive]);
        // Junk that only looks like a line's start, too long to be one: dropped.
        let mut out = Vec::new();
        let mut r = LineReader::new(64);
        r.feed(&junk[..100], &mut out);
        r.feed(br#"{"type":"#, &mut out);
        r.feed(&junk[..100], &mut out);
        r.feed(b"\n{\"ok\":1}\n", &mut out);
        assert_eq!(out, vec![Line::TooLong(208), Line::Text("{\"ok\":1}".into())]);
    }

    #[test]
    fn an_overlong_line_is_dropped_and_the_next_one_read() {
        let long = vec![b'x'; 250];
        let out = read(&[&long[..100], &long[100..], b"\n{\"ok\":1}\n"], 64);
        assert_eq!(out, vec![Line::TooLong(250), Line::Text("{\"ok\":1}".into())]);
        let mut r = LineReader::new(64);
        r.feed(&long, &mut Vec::new());
        assert!(r.partial.capacity() <= 64, "nothing of an overlong line is held");
    }

    proptest! {
        #[test]
        fn any_chunking_gives_the_same_lines(
            lines in proptest::collection::vec("[a-z{}\":0-9]{0,40}", 0..20),
            cuts in proptest::collection::vec(0usize..2000, 0..30),
        ) {
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let bytes = text.as_bytes();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
            cuts.sort_unstable();
            let mut pieces = Vec::new();
            let mut at = 0;
            for c in cuts {
                pieces.push(&bytes[at..c]);
                at = c;
            }
            pieces.push(&bytes[at..]);
            let expected: Vec<Line> = lines
                .iter()
                .map(|l| if l.is_empty() { Line::KeepAlive } else { Line::Text(l.clone()) })
                .collect();
            prop_assert_eq!(read(&pieces, 64), expected);
        }
    }
}
