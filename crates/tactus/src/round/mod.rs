//! `tactus relay --round-trf FILE --round N`: a round from the pairing
//! program. The relay reads the file (FIDE's TRF, tactus-trf), numbers the
//! round's boards in FIDE's order and tells each hall board whose id ends in
//! its number its pairing, sealed with the hall key (tactus-net's
//! `PairingSender`), until the board shows it. The games' results, and those
//! the arbiter sets on the page, are written back into the file served at
//! `/round.trf`. SIGHUP, or the page, reads the file again for the next
//! round; a file that fails keeps the round the relay had, and says why,
//! naming the line and the column.
//!
//! The results are kept on disk as they come (`kept`, in the relay's state
//! directory): a relay restarted in the middle of the round has them all,
//! the arbiter's included.

mod desk;
mod kept;
mod load;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context;
use tactus_net::{HallLink, PairingSender, RoundDesk, RoundError, RoundView, SharedHall};
use tactus_trf::Outcome;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use desk::Desk;
use load::FileError;

/// How often the relay looks at the hall for the round's boards.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// The round a relay plays, shared by its task, the server and SIGHUP.
pub struct Round {
    file: PathBuf,
    hall_boards: usize,
    desk: Mutex<Desk>,
    /// Look at the hall now (a round read again).
    look: Notify,
}

impl Round {
    fn desk(&self) -> MutexGuard<'_, Desk> {
        self.desk.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn name(&self) -> String {
        self.file.file_name().map_or_else(|| self.file.display().to_string(), |n| n.to_string_lossy().into_owned())
    }

    /// Reads round `number` of the file.
    fn read(file: &Path, number: u32, hall_boards: usize) -> Result<load::Loaded, FileError> {
        let bytes = std::fs::read(file).map_err(|source| FileError::Read { file: file.to_path_buf(), source })?;
        let loaded = load::load(file, &bytes, number, hall_boards)?;
        for w in loaded.trf.warnings() {
            tracing::warn!("round: {}: line {}, column {}: {}", file.display(), w.line, w.column, w.text);
        }
        Ok(loaded)
    }

    /// Reads the file again for round `number` (the next when `None`).
    fn read_again(&self, number: Option<u32>) -> Result<(), FileError> {
        let number = number.unwrap_or_else(|| self.desk().number().map_or(1, |n| n + 1));
        match Round::read(&self.file, number, self.hall_boards) {
            Ok(loaded) => {
                tracing::info!(
                    "round: {} boards of round {number} from {}",
                    loaded.round.boards.len(),
                    self.file.display()
                );
                self.desk().replace(loaded);
                self.look.notify_one();
                Ok(())
            }
            Err(why) => {
                let had = self.desk().number().map_or("none".to_string(), |n| format!("round {n}"));
                tracing::error!("round: {why}; the relay keeps the round it had ({had})");
                self.desk().error = Some(why.to_string());
                Err(why)
            }
        }
    }
}

impl RoundDesk for Round {
    fn view(&self) -> RoundView {
        self.desk().view(&self.name())
    }

    fn trf(&self) -> Result<(String, Vec<u8>), RoundError> {
        self.desk().trf()
    }

    fn set_result(&self, board: u32, result: Option<Outcome>) -> Result<(), RoundError> {
        self.desk().set_result(board, result)?;
        let said = result.map_or("the game's own".to_string(), |r| r.to_string());
        tracing::info!("round: the arbiter set board {board}'s result: {said}");
        // Kept on disk now, not at the next look.
        self.look.notify_one();
        Ok(())
    }

    fn reload(&self, round: Option<u32>) -> Result<(), RoundError> {
        self.read_again(round).map_err(|e| RoundError::File(Box::new(e)))
    }
}

/// The round being played: its task's handle.
pub struct Playing {
    pub round: Arc<Round>,
    tasks: TaskTracker,
    sender: Arc<PairingSender>,
    keeper: Arc<tokio::sync::Mutex<Keeper>>,
}

impl Playing {
    /// Waits until the round's task and its sender have stopped, then keeps
    /// the results once more: the relay awaits this after its server has
    /// ended, so a result the arbiter set in the last instant is kept too.
    pub async fn stopped(&self) {
        self.tasks.wait().await;
        self.sender.stopped().await;
        self.keeper.lock().await.keep(&self.round).await;
    }
}

/// The results of a round kept before: taken back into `desk` if there are
/// some of its round. A kept file that is damaged is set aside (the next
/// write would lose it) and said; one that cannot be read, or set aside,
/// stops the relay.
fn take_back(desk: &mut Desk, file: &Path) -> anyhow::Result<()> {
    match kept::read(file) {
        Ok(None) => {}
        Ok(Some(k)) => match desk.restore(&k) {
            0 => tracing::info!("round: {} holds no result of this round's boards", file.display()),
            n => tracing::info!("round: the results of {n} boards taken back from {}", file.display()),
        },
        Err(why @ kept::KeptError::Read { .. }) => anyhow::bail!("round: {why}"),
        Err(why) => {
            let aside = kept::set_aside(file).with_context(|| format!("round: {why}; cannot set it aside"))?;
            tracing::error!("round: {why}; set aside as {}, the round begins without it", aside.display());
        }
    }
    Ok(())
}

/// Where the round's results are written as they change, one file per
/// round of a file: the last written, and the last failure (said once).
struct Keeper {
    dir: PathBuf,
    written: Option<kept::Kept>,
    failed: Option<String>,
}

impl Keeper {
    /// Writes what `round` holds now if it changed; a failure is said once
    /// and the next change (or look) tries again: nothing is lost while
    /// the relay runs, `/round.trf` has it.
    async fn keep(&mut self, round: &Arc<Round>) {
        let now = round.desk().kept();
        if now == self.written {
            return;
        }
        let Some(k) = now.clone() else { return };
        let file = kept::path(&self.dir, &k.trf, k.round);
        let to = file.clone();
        let written = tokio::task::spawn_blocking(move || kept::write(&to, &k)).await;
        match written {
            Ok(Ok(())) => {
                self.written = now;
                if self.failed.take().is_some() {
                    tracing::info!("round: the results are kept in {} again", file.display());
                }
            }
            Ok(Err(why)) => {
                let why = why.to_string();
                if self.failed.as_ref() != Some(&why) {
                    tracing::error!(
                        "round: {why}: a restarted relay would not have the newest results (download /round.trf)"
                    );
                }
                self.failed = Some(why);
            }
            Err(e) => tracing::error!("round: keeping the results: {e}"),
        }
    }
}

/// Reads round `number` of `file` (an error names the line and column, and
/// the relay does not start), takes back the results kept in `state_dir`
/// for it (a directory where they cannot be kept stops the relay, naming
/// it), and plays it until `stop`: each board of the hall told its
/// pairing, SIGHUP reading the file again for the next round, the results
/// kept as they come.
pub fn start(
    file: &Path,
    number: u32,
    state_dir: &Path,
    link: &HallLink,
    hall: &SharedHall,
    hall_boards: usize,
    stop: &CancellationToken,
) -> anyhow::Result<Playing> {
    if link.key.is_none() {
        anyhow::bail!("--round-trf needs the hall key (--hall-key): a board takes its pairing only sealed with it");
    }
    // The kept results name the file they are of: one path for it however
    // it is spelled (links, `..`).
    let file = &std::fs::canonicalize(file).with_context(|| format!("{}: cannot read", file.display()))?;
    let loaded = Round::read(file, number, hall_boards)?;
    tracing::info!("round: {} boards of round {number} from {}", loaded.round.boards.len(), file.display());
    let kept_file = kept::path(state_dir, file, number);
    let mut desk = Desk::new(loaded);
    take_back(&mut desk, &kept_file)?;
    // Written once now: a directory where the results cannot be kept is
    // said before the round begins, not found at its first result.
    let now = desk.kept();
    if let Some(k) = &now {
        kept::write(&kept_file, k).with_context(|| {
            format!("round: the results cannot be kept in {} (give --state-dir DIR)", state_dir.display())
        })?;
    }
    let keeper = Arc::new(tokio::sync::Mutex::new(Keeper { dir: state_dir.to_path_buf(), written: now, failed: None }));
    let sender = PairingSender::start(link, hall.read(|h| h.name().to_string()).as_str(), stop)
        .map_err(|e| anyhow::anyhow!("round: {e}"))?;
    let sender = Arc::new(sender);
    let round = Arc::new(Round { file: file.to_path_buf(), hall_boards, desk: Mutex::new(desk), look: Notify::new() });
    let mut hangups = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
        .context("round: cannot listen for SIGHUP")?;
    let tasks = TaskTracker::new();
    let (task_round, hall, stop, task_keeper) = (round.clone(), hall.clone(), stop.clone(), keeper.clone());
    let pairings = sender.clone();
    tasks.spawn(async move {
        let mut ticks = tokio::time::interval(LOOK_EVERY);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                _ = ticks.tick() => {}
                () = task_round.look.notified() => {}
                Some(()) = hangups.recv() => {
                    tracing::info!("round: SIGHUP: the file read again for the next round");
                    let r = task_round.clone();
                    // Reading a file: off the runtime's thread.
                    let _ = tokio::task::spawn_blocking(move || r.read_again(None)).await;
                }
            }
            let due = hall.read(|h| task_round.desk().look(h, Instant::now()));
            for (board, epoch, pairing) in due {
                if !pairings.send(&board, epoch, &pairing) {
                    tracing::warn!("round: board {board}'s pairing waits for the broker; sent again later");
                }
            }
            task_keeper.lock().await.keep(&task_round).await;
        }
    });
    tasks.close();
    Ok(Playing { round, tasks, sender, keeper })
}
