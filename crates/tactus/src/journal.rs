//! The journal is the trace: every raw edge, press and input of the current
//! game is appended to its trace file, and synced to disk before the move it
//! completes is announced. After a crash or a power cut the unfinished game
//! is the one named in `current`; replaying its trace puts the game back.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use tactus_trace::{Entry, Header, Ms, Record, TraceWriter};

pub struct Journal {
    path: PathBuf,
    state_dir: PathBuf,
    out: TraceWriter<File>,
    last_t: Ms,
    unsynced: bool,
}

/// An unfinished game found on start.
pub struct Recovered {
    pub journal: Journal,
    pub header: Header,
    pub entries: Vec<Entry>,
    /// Bytes of a torn last line that were cut off.
    pub cut: usize,
}

fn is_json(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line).is_ok()
}

fn current_file(state_dir: &Path) -> PathBuf {
    state_dir.join("current")
}

/// Writes `contents` to `path` so that a crash leaves either the old or the
/// new file, never a torn one.
fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    let mut f = File::create(&tmp)?;
    f.write_all(contents)?;
    f.sync_all()?;
    fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

impl Journal {
    /// Starts the trace of a new game in `state_dir/games/`.
    pub fn create(state_dir: &Path, header: &Header, name: &str) -> anyhow::Result<Journal> {
        let games = state_dir.join("games");
        fs::create_dir_all(&games).with_context(|| format!("cannot create {}", games.display()))?;
        let path = games.join(format!("{name}.trace.jsonl"));
        let file = OpenOptions::new()
            .create_new(true)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        let mut out = TraceWriter::new(file);
        out.write_header(header)?;
        out.get_mut().sync_all()?;
        File::open(&games)?.sync_all()?;
        write_atomically(&current_file(state_dir), format!("games/{name}.trace.jsonl\n").as_bytes())?;
        Ok(Journal { path, state_dir: state_dir.to_path_buf(), out, last_t: 0, unsynced: false })
    }

    /// The unfinished game, if there is one. A line torn by a power cut at
    /// the very end is cut off; damage anywhere else is an error that names
    /// the line, and the file is left as it is.
    pub fn recover(state_dir: &Path) -> anyhow::Result<Option<Recovered>> {
        let current = current_file(state_dir);
        let name = match fs::read_to_string(&current) {
            Ok(name) => name.trim().to_string(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", current.display())),
        };
        let path = state_dir.join(&name);
        let mut text = fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let mut cut = 0;
        if !text.ends_with('\n') {
            let keep = text.rfind('\n').map_or(0, |i| i + 1);
            cut = text.len() - keep;
            text.truncate(keep);
        }
        let (header, entries) = match tactus_trace::read_str(&text) {
            Ok(parsed) => parsed,
            Err(e) if e.line == text.lines().count() && e.line > 1 && !is_json(text.lines().last().unwrap_or("")) => {
                // A complete-looking last line that is not even JSON (a power
                // cut can leave zeros after the newline's write): torn too.
                let keep = text[..text.len() - 1].rfind('\n').map_or(0, |i| i + 1);
                cut += text.len() - keep;
                text.truncate(keep);
                tactus_trace::read_str(&text).with_context(|| path.display().to_string())?
            }
            Err(e) => return Err(e).with_context(|| path.display().to_string()),
        };
        let file = OpenOptions::new().write(true).open(&path)?;
        file.set_len(text.len() as u64)?;
        let mut out = TraceWriter::new(file);
        use std::io::Seek;
        out.get_mut().seek(io::SeekFrom::End(0))?;
        out.get_mut().sync_all()?;
        let last_t = entries.last().map_or(0, |e| e.t);
        let journal = Journal { path, state_dir: state_dir.to_path_buf(), out, last_t, unsynced: false };
        Ok(Some(Recovered { journal, header, entries, cut }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn last_t(&self) -> Ms {
        self.last_t
    }

    /// Appends an entry; presses and inputs are synced at once, because
    /// announcing what they complete must wait for the disk.
    pub fn append(&mut self, entry: &Entry) -> io::Result<()> {
        self.out.write_entry(entry)?;
        self.last_t = entry.t;
        self.unsynced = true;
        if !matches!(entry.record, Record::Edge { .. }) {
            self.sync()?;
        }
        Ok(())
    }

    pub fn sync(&mut self) -> io::Result<()> {
        if self.unsynced {
            self.out.get_mut().sync_data()?;
            self.unsynced = false;
        }
        Ok(())
    }

    /// The game is over: it is no longer the one to recover.
    pub fn finish(mut self) -> io::Result<()> {
        self.sync()?;
        match fs::remove_file(current_file(&self.state_dir)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Color, Square};

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tactus-journal-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_torn_last_line_is_cut_and_the_game_goes_on() {
        let d = dir("torn");
        let mut j = Journal::create(&d, &Header::default(), "g1").unwrap();
        j.append(&Entry { t: 10, record: Record::Edge { sq: Square::E2, on: false } }).unwrap();
        j.append(&Entry { t: 20, record: Record::Clock(Color::White) }).unwrap();
        let path = j.path().to_path_buf();
        drop(j);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"t": 30, "sq": "e"#).unwrap();
        let r = Journal::recover(&d).unwrap().unwrap();
        assert_eq!(r.entries.len(), 2);
        assert!(r.cut > 0);
        let mut j = r.journal;
        j.append(&Entry { t: 40, record: Record::Clock(Color::Black) }).unwrap();
        let (_, entries) = tactus_trace::read_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(entries.len(), 3, "appending goes on after the cut");
        j.finish().unwrap();
        assert!(Journal::recover(&d).unwrap().is_none(), "a finished game is not recovered");
    }

    #[test]
    fn a_whole_last_line_that_does_not_fit_is_an_error_not_a_cut() {
        let d = dir("backwards");
        let mut j = Journal::create(&d, &Header::default(), "g1").unwrap();
        j.append(&Entry { t: 50, record: Record::Clock(Color::White) }).unwrap();
        let path = j.path().to_path_buf();
        drop(j);
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, format!("{text}{{\"t\": 10, \"clock\": \"black\"}}\n")).unwrap();
        let e = Journal::recover(&d).err().unwrap();
        assert!(format!("{e:#}").contains("backwards"), "{e:#}");
        assert_eq!(fs::read_to_string(&path).unwrap().lines().count(), 3, "nothing was cut");
    }

    #[test]
    fn damage_in_the_middle_is_an_error_naming_the_line() {
        let d = dir("damaged");
        let mut j = Journal::create(&d, &Header::default(), "g1").unwrap();
        j.append(&Entry { t: 10, record: Record::Clock(Color::White) }).unwrap();
        let path = j.path().to_path_buf();
        drop(j);
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, format!("{text}garbage\n{{\"t\": 50, \"clock\": \"black\"}}\n")).unwrap();
        let e = Journal::recover(&d).err().unwrap();
        assert!(format!("{e:#}").contains("line 3"), "{e:#}");
    }
}
