//! Every part of the daemon that has started, in one value, and the one
//! way they all stop. Start-up pushes each part in as it starts, so a part
//! that fails to start leaves the ones before it to [`Running::shutdown`]:
//! no start-up step has cleanup of its own to keep in step with the others.

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::board::BoardThreads;
use super::game::GameTask;
use super::outputs::Outputs;
use super::shutdown;

pub struct Running {
    /// The one stop signal, watched by the board's threads, the signal
    /// watcher and the game task; the parts that start tasks take a child
    /// of it (the engine's task, the HTTP server, the broker's publisher).
    pub stop: CancellationToken,
    /// The one tracker: every task the daemon starts that its parts do not
    /// hold and await themselves (the signal watcher, the engine's task,
    /// the HTTP server), waited for last.
    pub tasks: TaskTracker,
    /// The board's threads: stopped first, so that nothing more comes in.
    pub board: Option<BoardThreads>,
    /// The outputs, until the game task takes them.
    pub outputs: Outputs,
    /// The game task, with the parts it holds: the clock link, the
    /// opponent, the journal, the mate searches and the outputs.
    pub game: Option<GameTask>,
}

impl Running {
    pub fn new() -> Self {
        Running {
            stop: CancellationToken::new(),
            tasks: TaskTracker::new(),
            board: None,
            outputs: Outputs::default(),
            game: None,
        }
    }

    /// Stops every part, in order, by one deadline ([`shutdown::BUDGET`]
    /// from now): the stop signal; the board's threads; the game task's
    /// parts, all at once; the tasks. A part still stuck at the deadline —
    /// in a write nobody reads, on a device that hangs — is left behind
    /// for the process's exit to end. The journal's error, if any.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        let deadline = shutdown::deadline();
        let Running { stop, tasks, board, outputs, game } = self;
        stop.cancel();
        if let Some(board) = board {
            board.join(deadline).await;
        }
        let (journaled, ()) = tokio::join!(
            async {
                match game {
                    Some(game) => game.stop(deadline).await,
                    None => Ok(()),
                }
            },
            outputs.stop(deadline),
        );
        tasks.close();
        if tokio::time::timeout_at(deadline.into(), tasks.wait()).await.is_err() {
            tracing::warn!("a task did not end in time; left behind");
        }
        journaled
    }
}
