//! The journal is the trace: every raw edge, press and input of the current
//! game is appended to its trace file in `STATE/games/`, and synced to disk
//! before anything it leads to is announced — and so is what the game's
//! timers did (a `timers` line: they ran up to then; a flag fall's `end`).
//! Its header names the board it comes from ([`Origin`]). After a crash or
//! a power cut the unfinished game is the one named in `STATE/current`;
//! replaying its trace puts the game back as it stood, having said what it
//! said, so a restart says nothing again.
//!
//! The file work happens on a thread of its own ([`JournalThread`]): the
//! async runtime, serving HTTP and MQTT, never waits for the disk.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use tactus_trace::{Entry, Header, Ms, Record, TraceWriter};
use tokio::sync::{mpsc, oneshot};

use super::shutdown::{self, Thread};
use super::source::Origin;

pub struct Journal {
    path: PathBuf,
    state_dir: PathBuf,
    out: TraceWriter<File>,
    unsynced: bool,
}

/// An unfinished game found on start.
pub struct Recovered {
    pub journal: Journal,
    pub header: Header,
    /// The board it names; `None` for a journal of an older tactus.
    pub source: Option<Origin>,
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

/// The header line: the trace's header with the board's `source` added
/// (readers ignore fields they do not know).
fn header_line(header: &Header, source: &Origin) -> anyhow::Result<Vec<u8>> {
    let mut plain = Vec::new();
    TraceWriter::new(&mut plain).write_header(header)?;
    let mut value: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&plain)?;
    value.insert("source".into(), serde_json::to_value(source)?);
    let mut line = serde_json::to_vec(&value)?;
    line.push(b'\n');
    Ok(line)
}

impl Journal {
    /// Starts the trace of a new game in `state_dir/games/`.
    pub fn create(state_dir: &Path, header: &Header, source: &Origin, name: &str) -> anyhow::Result<Journal> {
        let games = state_dir.join("games");
        fs::create_dir_all(&games).with_context(|| format!("cannot create {}", games.display()))?;
        let path = games.join(format!("{name}.trace.jsonl"));
        // Written whole beside it, then renamed into place: a journal is
        // never seen without its header, whenever the power goes.
        let partial = games.join(format!(".{name}.partial"));
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .open(&partial)
            .with_context(|| format!("cannot create {}", partial.display()))?;
        file.write_all(&header_line(header, source)?)?;
        file.sync_all()?;
        if path.exists() {
            anyhow::bail!("cannot create {}: it exists", path.display());
        }
        fs::rename(&partial, &path).with_context(|| format!("cannot create {}", path.display()))?;
        File::open(&games)?.sync_all()?;
        crate::atomic_file::write(&current_file(state_dir), format!("games/{name}.trace.jsonl\n").as_bytes())?;
        // The entries in the header's version: a DGT game's with its pieces.
        let out = TraceWriter::appending(file, header);
        Ok(Journal { path, state_dir: state_dir.to_path_buf(), out, unsynced: false })
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
        let source = Origin::from_header_line(text.lines().next().unwrap_or_default())
            .with_context(|| format!("{}: line 1", path.display()))?;
        let file = OpenOptions::new().write(true).open(&path)?;
        file.set_len(text.len() as u64)?;
        // Appended in the header's version: a DGT game's pieces go on.
        let mut out = TraceWriter::appending(file, &header);
        out.get_mut().seek(io::SeekFrom::End(0))?;
        out.get_mut().sync_all()?;
        let journal = Journal { path, state_dir: state_dir.to_path_buf(), out, unsynced: false };
        Ok(Some(Recovered { journal, header, source, entries, cut }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn append(&mut self, entry: &Entry) -> io::Result<()> {
        self.out.write_entry(entry)?;
        self.unsynced = true;
        Ok(())
    }

    pub fn sync(&mut self) -> io::Result<()> {
        if self.unsynced {
            self.out.get_mut().sync_data()?;
            self.unsynced = false;
        }
        Ok(())
    }

    /// The game is over, or set aside: it is no longer the one to recover.
    /// The trace stays where it is.
    pub fn close(mut self) -> io::Result<PathBuf> {
        self.sync()?;
        match fs::remove_file(current_file(&self.state_dir)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        File::open(&self.state_dir)?.sync_all()?;
        Ok(self.path)
    }
}

enum Command {
    Append(Entry),
    Sync(oneshot::Sender<io::Result<()>>),
    Close(oneshot::Sender<io::Result<PathBuf>>),
}

/// A journal on its own thread. Appends are queued (a bounded queue: a
/// slow disk slows the game, never memory); syncs answer once what was
/// appended is on disk. A write that failed is reported by the next sync.
pub struct JournalThread {
    tx: mpsc::Sender<Command>,
    thread: Option<Thread<()>>,
    path: PathBuf,
}

const QUEUE: usize = 256;

impl JournalThread {
    pub fn start(journal: Journal) -> anyhow::Result<JournalThread> {
        let (tx, mut rx) = mpsc::channel::<Command>(QUEUE);
        let path = journal.path.clone();
        let thread = shutdown::spawn("journal", move || {
            let mut failed: Option<io::Error> = None;
            let mut journal = Some(journal);
            while let Some(command) = rx.blocking_recv() {
                let Some(j) = journal.as_mut() else { break };
                match command {
                    Command::Append(entry) => {
                        if failed.is_none()
                            && let Err(e) = j.append(&entry)
                        {
                            failed = Some(e);
                        }
                    }
                    Command::Sync(reply) => {
                        let result = match failed.take() {
                            Some(e) => Err(e),
                            None => j.sync(),
                        };
                        let _ = reply.send(result);
                    }
                    Command::Close(reply) => {
                        let result = match (failed.take(), journal.take()) {
                            (Some(e), _) => Err(e),
                            (None, Some(j)) => j.close(),
                            (None, None) => Err(io::Error::other("the journal was closed")),
                        };
                        let _ = reply.send(result);
                        break;
                    }
                }
            }
        })?;
        Ok(JournalThread { tx, thread: Some(thread), path })
    }

    fn gone(&self) -> anyhow::Error {
        anyhow::anyhow!("journal {}: its thread stopped", self.path.display())
    }

    pub async fn append(&self, entry: Entry) -> anyhow::Result<()> {
        self.tx.send(Command::Append(entry)).await.map_err(|_| self.gone())
    }

    /// Returns once everything appended is on disk.
    pub async fn sync(&self) -> anyhow::Result<()> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(Command::Sync(reply)).await.map_err(|_| self.gone())?;
        answer.await.map_err(|_| self.gone())?.with_context(|| format!("journal {}", self.path.display()))
    }

    /// Syncs, stops being the game to recover, and ends the thread.
    pub async fn close(mut self) -> anyhow::Result<PathBuf> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(Command::Close(reply)).await.map_err(|_| self.gone())?;
        let result = answer.await.map_err(|_| self.gone())?;
        // The thread ends as soon as it has answered.
        self.join(Instant::now() + Duration::from_secs(1)).await;
        result.with_context(|| format!("journal {}", self.path.display()))
    }

    /// Ends the thread, leaving the game to recover (a stop mid-game); a
    /// disk that has not taken what was appended by `deadline` is left
    /// behind, and said: the game recovers from what reached it.
    pub async fn stop(mut self, deadline: Instant) -> anyhow::Result<()> {
        let synced = match tokio::time::timeout_at(deadline.into(), self.sync()).await {
            Ok(synced) => synced,
            Err(_) => {
                Err(anyhow::anyhow!("journal {}: the disk did not take the last entries in time", self.path.display()))
            }
        };
        self.join(deadline).await;
        synced
    }

    async fn join(&mut self, deadline: Instant) {
        let (tx, _) = mpsc::channel(1);
        drop(std::mem::replace(&mut self.tx, tx));
        if let Some(thread) = self.thread.take() {
            thread.join_by(deadline).await;
        }
    }
}

/// The last time in a journal's entries (0 for none).
pub fn last_t(entries: &[Entry]) -> Ms {
    entries.last().map_or(0, |e| e.t)
}

/// Whether the entries end the game (an `end` line).
pub fn ended(entries: &[Entry]) -> bool {
    entries.iter().any(|e| e.record == Record::End)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BoardKind, Config};
    use shakmaty::{Color, Square};

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tactus-journal-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    fn source() -> Origin {
        let mut cfg = Config::default();
        cfg.board.kind = BoardKind::Sim;
        Origin::of(&cfg, None)
    }

    #[test]
    fn a_torn_last_line_is_cut_and_the_game_goes_on() {
        let d = dir("torn");
        let mut j = Journal::create(&d, &Header::default(), &source(), "g1").unwrap();
        j.append(&Entry { t: 10, record: Record::Edge { sq: Square::E2, on: false, piece: None } }).unwrap();
        j.append(&Entry { t: 20, record: Record::Clock(Color::White) }).unwrap();
        j.sync().unwrap();
        let path = j.path().to_path_buf();
        drop(j);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"t": 30, "sq": "e"#).unwrap();
        let r = Journal::recover(&d).unwrap().unwrap();
        assert_eq!(r.entries.len(), 2);
        assert_eq!(r.source, Some(source()), "the header names the board");
        assert!(r.cut > 0);
        let mut j = r.journal;
        j.append(&Entry { t: 40, record: Record::Clock(Color::Black) }).unwrap();
        let (_, entries) = tactus_trace::read_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(entries.len(), 3, "appending goes on after the cut");
        assert_eq!(j.close().unwrap(), path, "the trace is kept");
        assert!(Journal::recover(&d).unwrap().is_none(), "a closed game is not recovered");
        assert!(path.exists());
    }

    #[test]
    fn a_dgt_game_is_journaled_in_version_2_with_its_pieces_after_a_restart_too() {
        let d = dir("dgt");
        let header = Header { board: Some(tactus_trace::BoardKind::Dgt), ..Header::default() };
        let pawn = Some(shakmaty::Role::Pawn.of(Color::White));
        let e4 = |t| Entry { t, record: Record::Edge { sq: Square::E4, on: true, piece: pawn } };
        let mut j = Journal::create(&d, &header, &source(), "g1").unwrap();
        j.append(&e4(10)).unwrap();
        let path = j.path().to_path_buf();
        drop(j);
        let mut j = Journal::recover(&d).unwrap().unwrap().journal;
        j.append(&e4(20)).unwrap();
        drop(j);
        let text = fs::read_to_string(&path).unwrap();
        let (h, reader) = tactus_trace::TraceReader::new(text.as_bytes()).unwrap();
        assert_eq!((reader.version(), h.board), (2, header.board), "{text}");
        let entries: Vec<Entry> = reader.collect::<Result<_, _>>().unwrap();
        assert_eq!(entries, [e4(10), e4(20)], "{text}");
        assert_eq!(Origin::from_header_line(text.lines().next().unwrap()).unwrap(), Some(source()));
    }

    #[test]
    fn a_whole_last_line_that_does_not_fit_is_an_error_not_a_cut() {
        let d = dir("backwards");
        let mut j = Journal::create(&d, &Header::default(), &source(), "g1").unwrap();
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
        let mut j = Journal::create(&d, &Header::default(), &source(), "g1").unwrap();
        j.append(&Entry { t: 10, record: Record::Clock(Color::White) }).unwrap();
        let path = j.path().to_path_buf();
        drop(j);
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, format!("{text}garbage\n{{\"t\": 50, \"clock\": \"black\"}}\n")).unwrap();
        let e = Journal::recover(&d).err().unwrap();
        assert!(format!("{e:#}").contains("line 3"), "{e:#}");
    }

    /// A disk that takes nothing (a FIFO nobody reads stands in for a device
    /// that hangs): stopping waits for it until the deadline only, and says
    /// that the last entries did not reach it; the daemon's exit is not held.
    #[test]
    fn stopping_waits_for_a_disk_that_hangs_until_the_deadline_only() {
        let d = dir("hung");
        fs::create_dir_all(&d).unwrap();
        let path = d.join("hung.trace.jsonl");
        assert!(std::process::Command::new("mkfifo").arg(&path).status().unwrap().success(), "mkfifo");
        // Opened to read and write, it needs no reader to open; nobody reads.
        let file = OpenOptions::new().read(true).write(true).open(&path).unwrap();
        let out = TraceWriter::appending(file, &Header::default());
        let journal = Journal { path, state_dir: d.clone(), out, unsynced: false };
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let stopped = tokio::time::timeout(Duration::from_secs(60), async {
                let j = JournalThread::start(journal).unwrap();
                // More than a pipe holds (64 KiB), less than that and the queue.
                for t in 0..2000 {
                    let e2 = Entry { t, record: Record::Edge { sq: Square::E2, on: t % 2 == 0, piece: None } };
                    j.append(e2).await.unwrap();
                }
                let deadline = Instant::now() + Duration::from_millis(200);
                let stopped = j.stop(deadline).await;
                assert!(Instant::now() < deadline + Duration::from_secs(1), "stopping waits until the deadline only");
                stopped
            })
            .await
            .expect("appending and stopping end within a minute");
            let e = stopped.expect_err("the disk did not take the last entries");
            assert!(e.to_string().contains("in time"), "{e}");
        });
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn the_thread_appends_syncs_and_closes() {
        let d = dir("thread");
        let j = Journal::create(&d, &Header::default(), &source(), "g1").unwrap();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let path = rt.block_on(async {
            let j = JournalThread::start(j).unwrap();
            j.append(Entry { t: 10, record: Record::Clock(Color::White) }).await.unwrap();
            j.sync().await.unwrap();
            j.close().await.unwrap()
        });
        let (_, entries) = tactus_trace::read_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(entries.len(), 1);
        assert!(!d.join("current").exists());
    }
}
