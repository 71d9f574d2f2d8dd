//! The file as lines of characters, and where each column's bytes are.
//!
//! TRF-16 and TRF-26 end each line with a CR (their Remark 1); files
//! written on other systems end them with LF or CR LF, and a last line may
//! have none: all are lines here, each keeping its own ending for the
//! writer. Neither layout names an encoding: a file that is UTF-8 is read
//! as UTF-8 (its columns are characters, as bbpPairings and JaVaFo count
//! them), any other as Windows-1252, one byte a column (older Windows
//! programs' exports). A UTF-8 byte-order mark is not part of the first line.

/// How the file's bytes are characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    /// Windows-1252: one byte, one column.
    Windows1252,
}

/// One line: its bytes in the file, without its ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line {
    /// 1-based.
    pub number: usize,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone)]
pub(crate) struct Text {
    pub bytes: Vec<u8>,
    pub encoding: Encoding,
    pub lines: Vec<Line>,
}

/// The UTF-8 byte-order mark some Windows editors put first.
const BOM: &[u8] = b"\xEF\xBB\xBF";

impl Text {
    pub fn new(bytes: &[u8]) -> Text {
        let encoding = if std::str::from_utf8(bytes).is_ok() { Encoding::Utf8 } else { Encoding::Windows1252 };
        let first = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
        let mut lines = Vec::new();
        let mut start = first;
        let mut i = first;
        while i < bytes.len() {
            match bytes[i] {
                b'\r' | b'\n' => {
                    lines.push(Line { number: lines.len() + 1, start, end: i });
                    // CR LF is one ending.
                    i += if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
                    start = i;
                }
                _ => i += 1,
            }
        }
        if start < bytes.len() {
            lines.push(Line { number: lines.len() + 1, start, end: bytes.len() });
        }
        Text { bytes: bytes.to_vec(), encoding, lines }
    }

    /// A line's characters, one a column.
    pub fn chars(&self, line: &Line) -> Vec<char> {
        let bytes = &self.bytes[line.start..line.end];
        match self.encoding {
            // The whole file is UTF-8, and a line ends at an ASCII byte.
            Encoding::Utf8 => String::from_utf8_lossy(bytes).chars().collect(),
            Encoding::Windows1252 => bytes.iter().map(|&b| windows_1252(b)).collect(),
        }
    }

    /// Where in the file column `column` (1-based) of `line` begins: past
    /// the line's end, where the line ends.
    pub fn offset(&self, line: &Line, column: usize) -> usize {
        match self.encoding {
            Encoding::Windows1252 => (line.start + column - 1).min(line.end),
            Encoding::Utf8 => {
                let text = String::from_utf8_lossy(&self.bytes[line.start..line.end]);
                text.char_indices().nth(column - 1).map_or(line.end, |(i, _)| line.start + i)
            }
        }
    }

    /// How many columns a line has.
    pub fn width(&self, line: &Line) -> usize {
        match self.encoding {
            Encoding::Windows1252 => line.end - line.start,
            Encoding::Utf8 => String::from_utf8_lossy(&self.bytes[line.start..line.end]).chars().count(),
        }
    }
}

/// Windows-1252's character for a byte: Latin-1, but for the printable
/// characters it puts at 0x80–0x9F (the five it leaves unassigned stay
/// their control characters).
fn windows_1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8D}', 'Ž', '\u{8F}', '\u{90}', '‘',
        '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9D}', 'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9F => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> Vec<String> {
        let t = Text::new(bytes);
        t.lines.iter().map(|l| t.chars(l).into_iter().collect()).collect()
    }

    #[test]
    fn cr_lf_and_crlf_all_end_lines() {
        assert_eq!(lines(b"a\rb\nc\r\nd"), ["a", "b", "c", "d"]);
        assert_eq!(lines(b"a\r\n\r\nb\r\n"), ["a", "", "b"]);
        assert_eq!(lines(b"\xEF\xBB\xBF012 x\r"), ["012 x"]);
    }

    #[test]
    fn columns_are_characters() {
        let t = Text::new("001 Świercz\r\n".as_bytes());
        let line = t.lines[0];
        assert_eq!(t.encoding, Encoding::Utf8);
        assert_eq!(t.width(&line), 11);
        // Column 6 is the 'w' after the two-byte 'Ś'.
        assert_eq!(t.bytes[t.offset(&line, 6)], b'w');
        assert_eq!(t.offset(&line, 40), line.end);
        let t = Text::new(b"001 \x8Aa\xE9\r");
        assert_eq!(t.encoding, Encoding::Windows1252);
        assert_eq!(t.chars(&t.lines[0]).into_iter().collect::<String>(), "001 Šaé");
        assert_eq!(t.offset(&t.lines[0], 6), 5);
    }
}
