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
//! The relay keeps the results in memory: restarted, it knows those the
//! boards still show. Download `/round.trf` before restarting it.

mod desk;
mod load;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context;
use tactus_net::{BoardResult, HallLink, PairingSender, RoundDesk, RoundError, RoundView, SharedHall};
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

    fn set_result(&self, board: u32, result: Option<BoardResult>) -> Result<(), RoundError> {
        self.desk().set_result(board, result)?;
        let said = result.map_or("the game's own".to_string(), |r| r.to_string());
        tracing::info!("round: the arbiter set board {board}'s result: {said}");
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
}

impl Playing {
    /// Waits until the round's task and its sender have stopped.
    pub async fn stopped(&self) {
        self.tasks.wait().await;
        self.sender.stopped().await;
    }
}

/// Reads round `number` of `file` (an error names the line and column, and
/// the relay does not start) and plays it until `stop`: each board of the
/// hall told its pairing, SIGHUP reading the file again for the next round.
pub fn start(
    file: &Path,
    number: u32,
    link: &HallLink,
    hall: &SharedHall,
    hall_boards: usize,
    stop: &CancellationToken,
) -> anyhow::Result<Playing> {
    if link.key.is_none() {
        anyhow::bail!("--round-trf needs the hall key (--hall-key): a board takes its pairing only sealed with it");
    }
    let loaded = Round::read(file, number, hall_boards)?;
    tracing::info!("round: {} boards of round {number} from {}", loaded.round.boards.len(), file.display());
    let sender = PairingSender::start(link, hall.read(|h| h.name().to_string()).as_str(), stop)
        .map_err(|e| anyhow::anyhow!("round: {e}"))?;
    let sender = Arc::new(sender);
    let round = Arc::new(Round {
        file: file.to_path_buf(),
        hall_boards,
        desk: Mutex::new(Desk::new(loaded)),
        look: Notify::new(),
    });
    let mut hangups = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
        .context("round: cannot listen for SIGHUP")?;
    let tasks = TaskTracker::new();
    let (task_round, hall, stop) = (round.clone(), hall.clone(), stop.clone());
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
        }
    });
    tasks.close();
    Ok(Playing { round, tasks, sender })
}
