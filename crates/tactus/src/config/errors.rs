//! A bad configuration's error names the file, the line and the key, and
//! says what to do. The line and the key come from TOML's own spans: the
//! document is parsed again (with its errors, as far as it can be read)
//! into spanned keys, and the key whose name or value holds the error's
//! span is the one named.

use std::fmt;
use std::path::{Path, PathBuf};

use toml::de::{DeTable, DeValue};

use super::keys::Key;

/// A value that only its neighbours make wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("key `{key}`: {message}")]
pub struct KeyError {
    pub key: Key,
    pub message: String,
}

impl KeyError {
    pub fn new(key: Key, message: impl Into<String>) -> KeyError {
        KeyError { key, message: message.into() }
    }
}

/// Where a configuration came from, and the line when there is one:
/// `FILE:LINE`, `FILE`, or the built-in defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    pub file: Option<PathBuf>,
    pub line: Option<usize>,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{}:{line}", file.display()),
            (Some(file), None) => write!(f, "{}", file.display()),
            (None, _) => f.write_str("the built-in defaults (no config file)"),
        }
    }
}

/// Why a configuration cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{}: cannot read: {source}{}", path.display(), readable_by(source))]
    Read { path: PathBuf, source: std::io::Error },
    /// A key's value is wrong, alone or with its neighbours.
    #[error("{at}: key `{key}`: {message}")]
    Key { at: At, key: String, message: String },
    /// The file is no TOML where no key can be named.
    #[error("{at}: {message}")]
    Document { at: At, message: String },
}

/// The package makes the file readable by root and the service's group
/// only: it may hold the arbiter's token.
fn readable_by(e: &std::io::Error) -> &'static str {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => "; it is readable by root and group tactus (sudo -u tactus tactus …)",
        _ => "",
    }
}

/// `toml`'s error, at its line, naming the key its span falls in.
pub(super) fn from_toml(path: &Path, text: &str, e: &toml::de::Error) -> ConfigError {
    let start = e.span().map(|span| span.start.min(text.len()));
    let at = At { file: Some(path.to_path_buf()), line: start.map(|start| line_of(text, start)) };
    let message = e.message().to_owned();
    let (doc, _) = DeTable::parse_recoverable(text);
    match start.and_then(|start| key_at(doc.get_ref(), start)) {
        Some(key) => ConfigError::Key { at, key, message },
        None => ConfigError::Document { at, message },
    }
}

/// A [`KeyError`], at the line that sets its key when the file sets it
/// (else a flag did, or the default is wrong with its neighbours).
pub(super) fn from_key(file: Option<(&Path, &str)>, e: KeyError) -> ConfigError {
    let line = file.and_then(|(_, text)| {
        let (doc, _) = DeTable::parse_recoverable(text);
        line_of_key(doc.get_ref(), e.key).map(|start| line_of(text, start))
    });
    let at = At { file: file.map(|(path, _)| path.to_path_buf()), line };
    ConfigError::Key { at, key: e.key.to_string(), message: e.message }
}

/// The line (from 1) of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// The dotted key whose name or value holds `offset`: `table.key`, or
/// `table` (the file has tables of keys; a key's value may be a table too,
/// where it is wrong).
fn key_at(table: &DeTable, offset: usize) -> Option<String> {
    key_within(table, offset, 2)
}

fn key_within(table: &DeTable, offset: usize, depth: usize) -> Option<String> {
    table.iter().find_map(|(key, value)| {
        let deeper = match value.get_ref() {
            DeValue::Table(inner) if depth > 1 => key_within(inner, offset, depth - 1),
            _ => None,
        };
        match deeper {
            Some(rest) => Some(format!("{}.{rest}", key.get_ref())),
            None if key.span().contains(&offset) || value.span().contains(&offset) => Some(key.get_ref().to_string()),
            None => None,
        }
    })
}

/// Where the file names `key`, if it does.
fn line_of_key(doc: &DeTable, key: Key) -> Option<usize> {
    let (_, table) = doc.iter().find(|(name, _)| name.get_ref() == key.table)?;
    let (name, _) = table.get_ref().as_table()?.iter().find(|(name, _)| name.get_ref() == key.name)?;
    Some(name.span().start)
}
