//! A small file replaced whole: the journal's `current`, a round's kept
//! results. Written beside it (`….tmp`), synced, renamed over it, and the
//! rename synced too, so that a crash leaves the old file or the new one,
//! never a torn one.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

/// Writes `contents` to `path` whole, or leaves the file as it was (and no
/// `….tmp` behind).
pub fn write(path: &Path, contents: &[u8]) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    let written = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(contents)?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        if let Some(dir) = path.parent() {
            File::open(dir)?.sync_all()?;
        }
        Ok(())
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}
