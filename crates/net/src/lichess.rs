//! The hall on a Lichess broadcast: each board's game, as the relay renders
//! it, handed to the pusher (crate `tactus-lichess`) whenever it changes,
//! under the board's number (see [`crate::lichess_view`]); and what the
//! arbiter sees of the pushing.
//!
//! The pusher takes a game without waiting (the newest of each board wins)
//! and pushes on its own task: Lichess being slow, away or asking for a
//! minute's pause never holds the relay. Only boards heard from are pushed:
//! a team match's board listed before its daemon speaks has no players yet,
//! and a game pushed with other players' names would be another game to
//! Lichess.

use std::collections::BTreeMap;
use std::time::Instant;

use tactus_lichess::broadcast::{GameError, PushStatus, Pusher, RoundSpec};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::warn;

use crate::lichess_view::{BoardNumbers, LichessBoard, LichessView, Unnumbered, with_board_tag};
use crate::relay::Relay;
use crate::sse::SharedHall;
use crate::teams::TeamMatch;
use crate::wire::unix_ms;

/// The pushing of a relay's hall, running until its owner's token is
/// cancelled.
pub struct LichessPush {
    /// What the arbiter's page shows (`GET /api/lichess`).
    pub status: watch::Receiver<LichessView>,
    task: JoinHandle<()>,
}

impl LichessPush {
    /// Waits until the pushing has stopped (the token cancelled).
    pub async fn stopped(self) {
        let _ = self.task.await;
    }
}

/// Pushes the relay's boards with `pusher` (needs a Tokio runtime), on the
/// owner's `tasks`, until `stop`.
pub fn push_to_lichess(relay: &Relay, pusher: Pusher, tasks: &TaskTracker, stop: &CancellationToken) -> LichessPush {
    let rounds = pusher.rounds().to_vec();
    let view = LichessView { rounds: rounds.iter().map(ToString::to_string).collect(), ..LichessView::default() };
    let (tx, status) = watch::channel(view);
    let pushing = Pushing {
        hall: relay.hall.clone(),
        pusher,
        rounds,
        matches: relay.hall.read(|h| h.matches().to_vec()),
        numbers: BoardNumbers::default(),
        refused: BTreeMap::new(),
        view: tx,
    };
    let task = tasks.spawn(pushing.run(relay.changed.clone(), stop.child_token()));
    LichessPush { status, task }
}

/// What keeps a board from being pushed, found by the relay.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum NotPushed {
    #[error(transparent)]
    Unnumbered(#[from] Unnumbered),
    #[error(transparent)]
    Game(#[from] GameError),
}

struct Pushing {
    hall: SharedHall,
    pusher: Pusher,
    rounds: Vec<RoundSpec>,
    /// The team matches, fixed for the relay's life.
    matches: Vec<TeamMatch>,
    numbers: BoardNumbers,
    /// What keeps a board from being pushed, found here: no number, or one
    /// in no round, or a game too large.
    refused: BTreeMap<String, NotPushed>,
    view: watch::Sender<LichessView>,
}

impl Pushing {
    async fn run(mut self, changed: std::sync::Arc<crate::relay::Changed>, stop: CancellationToken) {
        let mut status = self.pusher.status();
        loop {
            tokio::select! {
                boards = changed.take() => {
                    if self.hand_over(boards) {
                        let status = status.borrow().clone();
                        self.show(&status);
                    }
                }
                pushed = status.changed() => {
                    if pushed.is_err() {
                        return;
                    }
                    let status = status.borrow_and_update().clone();
                    self.show(&status);
                }
                () = stop.cancelled() => return,
            }
        }
    }

    /// Hands the changed boards' games to the pusher, with the other games
    /// of their team matches (whose `MatchScore` tag a result changes).
    /// Whether a board's place in the broadcast changed.
    fn hand_over(&mut self, changed: impl IntoIterator<Item = String>) -> bool {
        let games: Vec<(String, String)> = self.hall.read(|h| {
            let mut ids: Vec<String> = Vec::new();
            for board in changed {
                // The two boards of a pair are pushed as their one game.
                let game = h.paired_game(&board).unwrap_or_else(|| board.clone());
                if let Some(m) = h.matches().iter().find(|m| m.boards().contains(&board)) {
                    ids.extend(m.games(h).into_iter().map(|(_, id)| id));
                }
                ids.push(game);
            }
            ids.sort();
            ids.dedup();
            ids.into_iter()
                .filter(|id| h.game(id).is_some_and(|(g, _)| g.seq > 0))
                .filter_map(|id| h.game_pgn(&id).map(|pgn| (id, pgn)))
                .collect()
        });
        let mut moved = false;
        for (id, pgn) in games {
            let known = self.numbers.of(&id).is_some();
            let handed: Result<(), NotPushed> = self
                .numbers
                .number(&self.matches, &id)
                .map_err(NotPushed::from)
                .and_then(|n| Ok(self.pusher.set_game(n, with_board_tag(&pgn, n))?));
            moved |= !known;
            match handed {
                Ok(()) => moved |= self.refused.remove(&id).is_some(),
                Err(why) => {
                    if self.refused.get(&id) != Some(&why) {
                        warn!("Lichess broadcast: board {id:?} is not pushed: {why}");
                        self.refused.insert(id, why);
                        moved = true;
                    }
                }
            }
        }
        moved
    }

    fn show(&self, status: &PushStatus) {
        let round = |n: u32| self.rounds.iter().find(|r| r.boards.contains(&n)).map(|r| r.id.clone());
        let mut boards: Vec<LichessBoard> = self
            .numbers
            .iter()
            .map(|(n, b)| LichessBoard {
                board: b.to_string(),
                number: Some(n),
                round: round(n),
                error: self.refused.get(b).map(ToString::to_string).or_else(|| status.errors.get(&n).cloned()),
            })
            .collect();
        for (b, why) in &self.refused {
            if !boards.iter().any(|x| x.board == *b) {
                boards.push(LichessBoard { board: b.clone(), number: None, round: None, error: Some(why.to_string()) });
            }
        }
        self.view.send_modify(|v| {
            v.pushes = status.pushes;
            v.bytes = status.bytes;
            v.last_ok_unix_ms = status.last_ok.map(unix_at);
            v.paused_until_unix_ms = status.paused_until.map(unix_at);
            v.failing.clone_from(&status.failing);
            v.boards = boards;
        });
    }
}

/// An instant of this process's clock on the wall clock (Unix ms).
fn unix_at(at: Instant) -> u64 {
    let (now, wall) = (Instant::now(), unix_ms());
    let ms = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    if at >= now { wall.saturating_add(ms(at - now)) } else { wall.saturating_sub(ms(now - at)) }
}
