//! The round's results kept on disk, so that a relay restarted in the
//! middle of a round (a crash, a reboot, an update) has every result it
//! had: those the boards' games ended with — a board that has gone on to
//! its next game no longer shows its last — and, above all, those the
//! arbiter set, which nothing else holds.
//!
//! One small JSON file per round of a round's file (`round-HASH-rN.json`,
//! the hash of the file's path, so that two relays on one machine keep
//! theirs apart, and a relay started again on an earlier round does not
//! write over a later one's), written whole (`crate::atomic_file`): a
//! crash leaves the last one or the new one, never half of one. A board's results are taken back only for the same round of the
//! same file and the same two players at that board, as when the file is
//! read again.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tactus_trf::Outcome;

/// What a kept file says it is, and its version.
const FORMAT: &str = "tactus_round_results";
const VERSION: u32 = 1;

/// The results of a round, as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// The round's file, as the relay was given it (made absolute).
    pub trf: PathBuf,
    pub round: u32,
    pub boards: Vec<KeptBoard>,
}

/// One board's results, with the players they are of (their starting
/// ranks in the file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptBoard {
    pub board: u32,
    pub white: u16,
    pub black: u16,
    /// The result the board's game ended with.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub game: Option<Outcome>,
    /// The result the arbiter set.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub arbiter: Option<Outcome>,
}

/// The file on disk: a header naming the format, then the results (not
/// `flatten`ed: that would cost an error its line).
#[derive(Serialize, Deserialize)]
struct OnDisk {
    format: String,
    version: u32,
    trf: PathBuf,
    round: u32,
    boards: Vec<KeptBoard>,
}

/// A kept file that cannot be read, naming it.
#[derive(Debug, thiserror::Error)]
pub enum KeptError {
    #[error("{}: cannot read: {source}", file.display())]
    Read { file: PathBuf, source: std::io::Error },
    #[error("{}: line {}, column {}: {}", file.display(), source.line(), source.column(), without_place(source))]
    Json { file: PathBuf, source: serde_json::Error },
    #[error("{}: {found:?} is not a file of the round's results ({FORMAT} {VERSION})", file.display())]
    Format { file: PathBuf, found: String },
    #[error("{}: cannot write: {source}", file.display())]
    Write { file: PathBuf, source: std::io::Error },
}

/// serde_json's words without the place it adds (the error names it first).
fn without_place(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&place).unwrap_or(&text).to_string()
}

/// Where the results of round `round` of the file `trf` are kept in `dir`.
pub fn path(dir: &Path, trf: &Path, round: u32) -> PathBuf {
    let digest = Sha256::digest(trf.as_os_str().as_encoded_bytes());
    let short: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("round-{short}-r{round}.json"))
}

/// The kept results in `file`; `None` when there are none yet.
pub fn read(file: &Path) -> Result<Option<Kept>, KeptError> {
    let bytes = match std::fs::read(file) {
        Ok(bytes) => bytes,
        // No directory yet, or a file in its place (said when it is written).
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => {
            return Ok(None);
        }
        Err(source) => return Err(KeptError::Read { file: file.to_path_buf(), source }),
    };
    let on_disk: OnDisk =
        serde_json::from_slice(&bytes).map_err(|source| KeptError::Json { file: file.to_path_buf(), source })?;
    if on_disk.format != FORMAT || on_disk.version != VERSION {
        let found = format!("{} {}", on_disk.format, on_disk.version);
        return Err(KeptError::Format { file: file.to_path_buf(), found });
    }
    Ok(Some(Kept { trf: on_disk.trf, round: on_disk.round, boards: on_disk.boards }))
}

/// Writes `kept` to `file`: whole, or not at all (the last one stays).
pub fn write(file: &Path, kept: &Kept) -> Result<(), KeptError> {
    let failed = |source| KeptError::Write { file: file.to_path_buf(), source };
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(failed)?;
    let on_disk = OnDisk {
        format: FORMAT.into(),
        version: VERSION,
        trf: kept.trf.clone(),
        round: kept.round,
        boards: kept.boards.clone(),
    };
    let mut bytes = serde_json::to_vec_pretty(&on_disk).expect("the results serialise");
    bytes.push(b'\n');
    crate::atomic_file::write(file, &bytes).map_err(failed)
}

/// A kept file that cannot be read set aside (`….json.bad`, or
/// `….json.bad.2` and on when that is taken), so that the next write does
/// not lose what it held; where it went.
pub fn set_aside(file: &Path) -> std::io::Result<PathBuf> {
    let aside = (1..)
        .map(|n| if n == 1 { file.with_extension("json.bad") } else { file.with_extension(format!("json.bad.{n}")) })
        .find(|p| !p.exists())
        .expect("a free name");
    std::fs::rename(file, &aside)?;
    Ok(aside)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of the test's own, emptied first.
    fn tempdir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tactus-kept-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn kept() -> Kept {
        Kept {
            trf: "/srv/open.trf".into(),
            round: 3,
            boards: vec![
                KeptBoard { board: 1, white: 4, black: 1, game: Some(Outcome::Draw), arbiter: None },
                KeptBoard { board: 2, white: 2, black: 3, game: None, arbiter: Some(Outcome::BlackWinsByForfeit) },
            ],
        }
    }

    #[test]
    fn written_and_read_back_whole() {
        let dir = tempdir("whole");
        let file = path(&dir, Path::new("/srv/open.trf"), 3);
        assert_eq!(read(&file).unwrap(), None, "nothing kept yet");
        write(&file, &kept()).unwrap();
        assert_eq!(read(&file).unwrap(), Some(kept()));
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("\"format\": \"tactus_round_results\"") && text.contains("\"-+\""), "{text}");
        assert!(!file.with_extension("tmp").exists(), "no part left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn two_files_and_two_rounds_are_kept_apart() {
        let dir = Path::new("/var/lib/tactus");
        assert_ne!(path(dir, Path::new("/srv/a.trf"), 1), path(dir, Path::new("/srv/b.trf"), 1));
        assert_ne!(path(dir, Path::new("/srv/a.trf"), 1), path(dir, Path::new("/srv/a.trf"), 2));
        assert_eq!(path(dir, Path::new("/srv/a.trf"), 1), path(dir, Path::new("/srv/a.trf"), 1));
    }

    #[test]
    fn a_damaged_file_is_named_with_its_line_and_set_aside() {
        let dir = tempdir("damaged");
        let file = dir.join("round-x.json");
        std::fs::write(&file, "{\n  \"format\": \"tactus_round_results\",\n  \"version\": 1,\n  \"trf\": 7\n}\n")
            .unwrap();
        let error = read(&file).unwrap_err().to_string();
        assert!(error.starts_with(&format!("{}: line 4, column 10: invalid type", file.display())), "{error}");
        assert!(!error.contains(" at line"), "the place said once: {error}");
        std::fs::write(&file, r#"{"format": "something else", "version": 1, "trf": "/a", "round": 1, "boards": []}"#)
            .unwrap();
        let error = read(&file).unwrap_err().to_string();
        assert!(error.contains("\"something else 1\" is not a file of the round's results"), "{error}");
        let aside = set_aside(&file).unwrap();
        assert!(aside.exists() && !file.exists());
        // A second one set aside does not take the first's place.
        std::fs::write(&file, "{").unwrap();
        let second = set_aside(&file).unwrap();
        assert!(aside.exists() && second.exists() && second != aside, "{second:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_that_cannot_be_written_is_named() {
        let dir = tempdir("blocked");
        let blocked = dir.join("not-a-dir");
        std::fs::write(&blocked, "").unwrap();
        let file = blocked.join("round-x.json");
        let error = write(&file, &kept()).unwrap_err().to_string();
        assert!(error.starts_with(&format!("{}: cannot write", file.display())), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
