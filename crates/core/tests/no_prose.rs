//! The core emits data; every sentence is the speech crate's. This reads
//! the core's sources and fails on a string literal that reads as prose (three
//! words or more) anywhere but in an error for the operator or the
//! programmer (`#[error]`, `Err(…)`, `custom(…)`, `panic!`, `expect`,
//! `assert!`) or in a unit test. A ruling's words written here would reach
//! the page, the events' `detail` and the game record in English whatever the
//! board speaks: say it in `crates/speech/src/lang/*.rs` instead.

use std::path::{Path, PathBuf};

/// Words that make a literal an operator's or a programmer's error, when
/// they open the statement it stands in.
const ERRORS: [&str; 8] = ["#[error(", "Err(", "custom(", "panic!(", ".expect(", "assert!(", "assert_eq!(", "bail!("];

/// A string literal of the source and the statement it stands in.
#[derive(Debug)]
struct Literal {
    file: PathBuf,
    line: usize,
    text: String,
    statement: String,
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without comments and without `#[cfg(test)]` items (a unit
/// test's inputs are not the core's output); line breaks kept.
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            i += end;
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(rest.len(), |e| e + 2);
            out.extend(rest[..end].chars().filter(|c| *c == '\n'));
            i += end;
        } else if rest.starts_with("#[cfg(test)]") {
            // The item that follows: up to its closing brace or semicolon.
            let mut depth = 0usize;
            let mut j = 0;
            for (k, c) in rest.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            j = k + 1;
                            break;
                        }
                    }
                    ';' if depth == 0 && k > "#[cfg(test)]".len() => {
                        j = k + 1;
                        break;
                    }
                    _ => {}
                }
            }
            let j = if j == 0 { rest.len() } else { j };
            out.extend(rest[..j].chars().filter(|c| *c == '\n'));
            i += j;
        } else if rest.starts_with('"') || rest.starts_with("r\"") || rest.starts_with("r#") {
            let end = literal_end(rest);
            out.push_str(&rest[..end]);
            i += end;
        } else if rest.starts_with('\'') {
            // A char literal ('"', '\'') or a lifetime.
            let end = char_end(rest);
            out.push_str(&rest[..end]);
            i += end;
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Where the string literal at the start of `s` ends.
fn literal_end(s: &str) -> usize {
    if let Some(raw) = s.strip_prefix('r') {
        let hashes = raw.chars().take_while(|c| *c == '#').count();
        let close = format!("\"{}", "#".repeat(hashes));
        let open = 1 + hashes + 1;
        return s[open..].find(&close).map_or(s.len(), |e| open + e + close.len());
    }
    let mut escaped = false;
    for (k, c) in s.char_indices().skip(1) {
        match (escaped, c) {
            (true, _) => escaped = false,
            (false, '\\') => escaped = true,
            (false, '"') => return k + 1,
            _ => {}
        }
    }
    s.len()
}

fn char_end(s: &str) -> usize {
    let b = s.as_bytes();
    if b.get(1) == Some(&b'\\') {
        return s[2..].find('\'').map_or(1, |e| e + 3);
    }
    let c = s[1..].chars().next().map_or(0, char::len_utf8);
    if s[1 + c..].starts_with('\'') { 2 + c } else { 1 }
}

fn literals(file: &Path) -> Vec<Literal> {
    let text = code(&std::fs::read_to_string(file).unwrap());
    let mut out = Vec::new();
    let mut statement_start = 0;
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let c = rest.chars().next().unwrap();
        if c == ';' || c == '{' || c == '}' {
            statement_start = i + 1;
        }
        if c == '\'' {
            i += char_end(rest);
            continue;
        }
        if c == '"' || rest.starts_with("r\"") || rest.starts_with("r#\"") {
            let end = literal_end(rest);
            let statement_end = text[i + end..].find([';', '{', '}']).map_or(text.len(), |e| i + end + e);
            out.push(Literal {
                file: file.to_path_buf(),
                line: text[..i].matches('\n').count() + 1,
                text: rest[..end].to_string(),
                statement: text[statement_start..statement_end].to_string(),
            });
            i += end;
            continue;
        }
        i += c.len_utf8();
    }
    out
}

/// Three words of letters in a row, as a sentence has and a FEN, a SAN or a
/// tag name has not.
fn reads_as_prose(literal: &str) -> bool {
    let mut run = 0;
    for word in literal.split(|c: char| c.is_whitespace()) {
        let letters = word.trim_matches(|c: char| !c.is_alphanumeric());
        let is_word = letters.len() >= 2 && letters.chars().all(|c| c.is_alphabetic() || c == '\'');
        run = if is_word { run + 1 } else { 0 };
        if run >= 3 {
            return true;
        }
    }
    false
}

fn prose(root: &Path) -> Vec<Literal> {
    let mut files = Vec::new();
    sources(root, &mut files);
    files.sort();
    files
        .iter()
        .flat_map(|f| literals(f))
        .filter(|l| reads_as_prose(&l.text))
        .filter(|l| !ERRORS.iter().any(|e| l.statement.contains(e)))
        .collect()
}

#[test]
fn the_core_writes_no_sentences() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = prose(&root);
    let listed: Vec<String> = found
        .iter()
        .map(|l| format!("{}:{}: {}", l.file.strip_prefix(&root).unwrap_or(&l.file).display(), l.line, l.text))
        .collect();
    assert!(
        listed.is_empty(),
        "{} English sentences in the core (say them in crates/speech instead):\n{}",
        listed.len(),
        listed.join("\n")
    );
}

/// The scan itself: it finds what it must, and passes over what it must.
#[test]
fn the_scan_tells_prose_from_data() {
    assert!(reads_as_prose("\"the clock was pressed without a move (7.5.3)\""));
    assert!(reads_as_prose("\"{side}'s flag fell, but {other} cannot mate\""));
    assert!(!reads_as_prose("\"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\""));
    assert!(!reads_as_prose("\"{} {} +{}:{:02}\""));
    assert!(!reads_as_prose("\"7.5.1\""));
    let source = r##"
        // a comment that reads as prose, not a literal
        fn f() -> String { format!("the piece on {o} was touched first") }
        fn g() -> Result<(), String> { Err(format!("not a square at all: {s:?}")) }
        let c = '"'; let d = "one two three";
        #[cfg(test)]
        mod tests { fn t() { let _ = "what a test may say"; } }
    "##;
    let dir = std::env::temp_dir().join(format!("tactus-no-prose-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("sample.rs"), source).unwrap();
    let found: Vec<String> = prose(&dir).into_iter().map(|l| l.text).collect();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found, ["\"the piece on {o} was touched first\"", "\"one two three\""]);
}
