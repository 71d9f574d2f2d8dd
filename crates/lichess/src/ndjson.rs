//! Newline-delimited JSON, as Lichess streams it: one JSON object a line,
//! and empty lines as keep-alives (`/api/stream/event` sends one every 7 s,
//! says its API reference). Bytes come in whatever pieces the network
//! makes; a line longer than the cap is dropped whole, never held.

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

/// Splits bytes into lines, holding at most `max` bytes of a line.
#[derive(Debug)]
pub struct LineReader {
    max: usize,
    partial: Vec<u8>,
    /// The length of an overlong line being skipped, until its end.
    skipping: Option<usize>,
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
            if let Some(skipped) = &mut self.skipping {
                *skipped += piece.len();
            } else if self.partial.len() + piece.len() > self.max {
                self.skipping = Some(self.partial.len() + piece.len());
                self.partial = Vec::new();
            } else {
                self.partial.extend_from_slice(piece);
            }
            match rest {
                None => return,
                Some(rest) => {
                    out.push(self.finish_line());
                    bytes = rest;
                }
            }
        }
    }

    fn finish_line(&mut self) -> Line {
        if let Some(n) = self.skipping.take() {
            return Line::TooLong(n);
        }
        let mut raw = std::mem::take(&mut self.partial);
        if raw.last() == Some(&b'\r') {
            raw.pop();
        }
        if raw.iter().all(u8::is_ascii_whitespace) {
            return Line::KeepAlive;
        }
        // Lichess sends UTF-8; anything else is kept readable, not fatal.
        Line::Text(String::from_utf8(raw).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }
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
