//! The account's personal access token: read from a file only its owner can
//! read, and never shown — not in logs, errors or `Debug` output.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use http::HeaderValue;

/// Lichess asks clients to handle tokens of at least 512 characters (its
/// API reference, "Token format"); a file much larger is not a token.
const MAX_LEN: usize = 4096;

/// A Lichess access token. Its `Debug` and `Display` never show it.
#[derive(Clone)]
pub struct Token(String);

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("cannot read the Lichess token file {}: {why}", file.display())]
    Unreadable { file: PathBuf, why: String },
    #[error(
        "the Lichess token file {} can be read by others (mode {mode:03o}): it must be readable by its owner only: chmod 600 {}",
        file.display(), file.display()
    )]
    Exposed { file: PathBuf, mode: u32 },
    #[error("the Lichess token file {} is not a regular file", file.display())]
    NotAFile { file: PathBuf },
    #[error("the Lichess token file {} is empty", file.display())]
    Empty { file: PathBuf },
    #[error(
        "the Lichess token file {} does not hold a token: one line of letters, digits and '_' (create one at https://lichess.org/account/oauth/token)",
        file.display()
    )]
    Malformed { file: PathBuf },
}

impl Token {
    /// Reads the token from `file`, which must be a regular file with no
    /// permission for group or others (mode 600 or 400). Surrounding
    /// whitespace is ignored.
    pub fn read(file: &Path) -> Result<Token, TokenError> {
        let unreadable = |e: std::io::Error| TokenError::Unreadable { file: file.into(), why: e.to_string() };
        let f = File::open(file).map_err(unreadable)?;
        // The mode of the file opened, not of whatever the path names later.
        let meta = f.metadata().map_err(unreadable)?;
        if !meta.is_file() {
            return Err(TokenError::NotAFile { file: file.into() });
        }
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(TokenError::Exposed { file: file.into(), mode });
        }
        let mut text = String::new();
        f.take(MAX_LEN as u64 + 1)
            .read_to_string(&mut text)
            .map_err(|_| TokenError::Malformed { file: file.into() })?;
        if text.len() > MAX_LEN {
            return Err(TokenError::Malformed { file: file.into() });
        }
        let text = text.trim();
        if text.is_empty() {
            return Err(TokenError::Empty { file: file.into() });
        }
        Token::new(text).ok_or(TokenError::Malformed { file: file.into() })
    }

    /// A token from its text, if it has the form Lichess gives tokens:
    /// `^[A-Za-z0-9_]+$` (its API reference, "Token format").
    pub fn new(text: &str) -> Option<Token> {
        let ok =
            !text.is_empty() && text.len() <= MAX_LEN && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        ok.then(|| Token(text.to_string()))
    }

    /// The `Authorization` header's value, marked sensitive so that hyper
    /// keeps it out of its own debug output.
    pub(crate) fn bearer(&self) -> HeaderValue {
        let mut value =
            HeaderValue::from_str(&format!("Bearer {}", self.0)).expect("a token is ASCII letters and digits");
        value.set_sensitive(true);
        value
    }

    /// The token itself, for the one request that carries it in its body
    /// (`POST /api/token/test`).
    pub(crate) fn secret(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn file_with(mode: u32, text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        fs::write(&path, text).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
        (dir, path)
    }

    #[test]
    fn a_token_readable_by_its_owner_only_is_read() {
        let (_dir, path) = file_with(0o600, "lip_abc123_XYZ\n");
        let token = Token::read(&path).unwrap();
        assert_eq!(token.secret(), "lip_abc123_XYZ");
        let (_dir, path) = file_with(0o400, "lip_abc123_XYZ");
        assert!(Token::read(&path).is_ok());
    }

    #[test]
    fn a_token_others_can_read_is_refused_naming_the_file() {
        for mode in [0o644, 0o640, 0o604, 0o660, 0o666] {
            let (_dir, path) = file_with(mode, "lip_secret");
            let err = Token::read(&path).unwrap_err();
            let text = err.to_string();
            assert!(text.contains(&path.display().to_string()), "{text}");
            assert!(text.contains("chmod 600"), "{text}");
            assert!(text.contains(&format!("{mode:03o}")), "{text}");
            assert!(!text.contains("lip_secret"), "{text}");
        }
    }

    #[test]
    fn the_token_never_shows() {
        let (_dir, path) = file_with(0o600, "lip_secret");
        let token = Token::read(&path).unwrap();
        assert_eq!(format!("{token:?}"), "Token(<redacted>)");
        assert_eq!(format!("{token}"), "<redacted>");
        assert!(!format!("{:?}", token.bearer()).contains("lip_secret"));
        // Not even in the error for a file that is not a token.
        let (_dir, path) = file_with(0o600, "lip secret with spaces");
        let text = Token::read(&path).unwrap_err().to_string();
        assert!(!text.contains("secret"), "{text}");
    }

    #[test]
    fn empty_missing_and_oversized_files_are_refused() {
        let (_dir, path) = file_with(0o600, " \n");
        assert!(matches!(Token::read(&path), Err(TokenError::Empty { .. })));
        let (_dir, path) = file_with(0o600, &"a".repeat(MAX_LEN + 1));
        assert!(matches!(Token::read(&path), Err(TokenError::Malformed { .. })));
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let text = Token::read(&missing).unwrap_err().to_string();
        assert!(text.contains(&missing.display().to_string()), "{text}");
        assert!(matches!(Token::read(dir.path()), Err(TokenError::NotAFile { .. })));
    }
}
