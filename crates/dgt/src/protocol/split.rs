//! Splitting a byte stream into items that may arrive in pieces, with
//! garbage between them.

use std::fmt;

/// Bytes skipped because they could not be read, and why.
#[derive(Clone, PartialEq, Eq)]
pub struct Garbage {
    /// The skipped bytes, in order (at most [`MAX_GARBAGE`] kept).
    pub bytes: Vec<u8>,
    /// What was wrong with the first of them.
    pub why: &'static str,
}

/// A garbage report keeps this many bytes; a long run of noise is cut.
pub const MAX_GARBAGE: usize = 64;

impl fmt::Debug for Garbage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Garbage({}: {:02x?})", self.why, self.bytes)
    }
}

impl fmt::Display for Garbage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({} bytes:", self.why, self.bytes.len())?;
        for b in &self.bytes {
            write!(f, " {b:02x}")?;
        }
        f.write_str(")")
    }
}

/// What one look at the head of the buffer found.
pub(crate) enum Take<T> {
    /// An item, and how many bytes it took.
    Item(T, usize),
    /// This many bytes are garbage.
    Junk(usize, &'static str),
    /// More bytes are needed.
    Incomplete,
}

/// A buffer that `parse_one` reads items off.
#[derive(Debug, Default)]
pub(crate) struct Splitter {
    buf: Vec<u8>,
}

impl Splitter {
    /// The items and garbage in `bytes` and what came before; `limit` is the
    /// largest item, so the buffer never holds more than that.
    pub(crate) fn feed<T>(
        &mut self,
        bytes: &[u8],
        limit: usize,
        mut parse_one: impl FnMut(&[u8]) -> Take<T>,
    ) -> Vec<Result<T, Garbage>> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut junk: Option<Garbage> = None;
        let mut at = 0;
        loop {
            match parse_one(&self.buf[at..]) {
                Take::Item(item, n) => {
                    out.extend(junk.take().map(Err));
                    out.push(Ok(item));
                    at += n;
                }
                Take::Junk(n, why) => {
                    let g = junk.get_or_insert_with(|| Garbage { bytes: Vec::new(), why });
                    let room = MAX_GARBAGE.saturating_sub(g.bytes.len());
                    g.bytes.extend(self.buf[at..at + n].iter().take(room));
                    at += n;
                }
                Take::Incomplete => break,
            }
        }
        out.extend(junk.map(Err));
        self.buf.drain(..at);
        // parse_one asks for more only below `limit`; this is a safety net.
        if self.buf.len() > limit {
            let bytes: Vec<u8> = self.buf.drain(..).take(MAX_GARBAGE).collect();
            out.push(Err(Garbage { bytes, why: "message too long" }));
        }
        out
    }

    /// Forgets a partial item.
    pub(crate) fn clear(&mut self) {
        self.buf.clear();
    }
}
