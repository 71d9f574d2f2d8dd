//! Who can still mate (5.2.2, 6.9, 7.5.5), searched off the game loop: a
//! search runs on a thread of its own, and its verdict comes back to the
//! game task as an input, journaled like any other, so a replay rules the
//! same. The threads are kept and joined when the daemon stops.

use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use tactus_core::{MateQuestion, Session};
use tactus_trace::MateVerdict;
use tokio::sync::mpsc;

use super::shutdown::{self, Thread};

/// How long a game waits for the search of who can still mate. The
/// search's fixed step budget takes about 0.5 s on the development machine
/// and a few seconds on a Raspberry Pi 4, so the budget, which any replay
/// repeats exactly, nearly always ends it first; the deadline only bounds
/// the wait for a result on an overloaded board, and past it the
/// conservative ruling stands, marked undetermined.
const MATE_DEADLINE: Duration = Duration::from_secs(8);

/// Verdicts on their way to the game task.
const VERDICTS: usize = 4;

/// The searches running off the game loop, and their answers.
pub struct MateSearches {
    /// The latest question asked, until it is answered.
    asked: Option<MateQuestion>,
    /// Each question a search is running for, and until when the game
    /// waits for it.
    pending: Vec<(MateQuestion, Instant)>,
    tx: mpsc::Sender<(MateQuestion, MateVerdict)>,
    rx: mpsc::Receiver<(MateQuestion, MateVerdict)>,
    /// The searches' threads, each ending within its step budget.
    threads: Vec<Thread<()>>,
}

impl MateSearches {
    pub fn new() -> Self {
        let (tx, rx) = mpsc::channel(VERDICTS);
        MateSearches { asked: None, pending: Vec::new(), tx, rx, threads: Vec::new() }
    }

    /// Whether the game waits for a verdict.
    pub fn waiting(&self) -> bool {
        self.asked.is_some()
    }

    /// Starts the search the game waits for, unless it is already running.
    pub fn ask(&mut self, session: &Session) {
        let Some(question) = session.mate_question() else { return };
        if self.asked.as_ref() == Some(&question) {
            return;
        }
        self.asked = Some(question.clone());
        self.threads.retain(|t| !t.is_finished());
        let (searched, tx) = (question.clone(), self.tx.clone());
        let spawned = shutdown::spawn("mate-search", move || {
            let verdict = match std::panic::catch_unwind(AssertUnwindSafe(|| tactus_core::search_mate(&searched))) {
                Ok(verdict) => verdict,
                Err(_) => {
                    tracing::error!("the mate search failed (it panicked); the ruling is left undetermined");
                    MateVerdict::Undetermined
                }
            };
            // The game has moved on to another game, or stopped: no one waits.
            let _ = tx.blocking_send((searched, verdict));
        });
        match spawned {
            Ok(thread) => self.threads.push(thread),
            // Its deadline passes with the ruling undetermined.
            Err(e) => tracing::error!("cannot start the mate search: {e}"),
        }
        self.pending.push((question, Instant::now() + MATE_DEADLINE));
    }

    /// The next verdict: a search's, or undetermined once a search is past
    /// its deadline (its late answer is dropped). Never, while none runs.
    pub async fn next(&mut self) -> (MateQuestion, MateVerdict) {
        loop {
            let due = self.pending.iter().map(|&(_, due)| due).min();
            let overdue = async {
                match due {
                    Some(due) => tokio::time::sleep_until(due.into()).await,
                    None => std::future::pending().await,
                }
            };
            let answer = tokio::select! {
                Some((question, verdict)) = self.rx.recv() => {
                    let Some(i) = self.pending.iter().position(|(q, _)| *q == question) else { continue };
                    self.pending.remove(i);
                    (question, verdict)
                }
                () = overdue => {
                    let Some(i) = self.pending.iter().position(|&(_, d)| Some(d) == due) else { continue };
                    let (question, _) = self.pending.remove(i);
                    tracing::warn!(
                        "the mate search took longer than {} s; the ruling is left undetermined",
                        MATE_DEADLINE.as_secs()
                    );
                    (question, MateVerdict::Undetermined)
                }
            };
            self.asked = None;
            return answer;
        }
    }

    /// A new game: what is still being searched belongs to the last one.
    pub fn new_game(&mut self) {
        let (tx, rx) = mpsc::channel(VERDICTS);
        (self.tx, self.rx) = (tx, rx);
        self.asked = None;
        self.pending.clear();
    }

    /// Waits for the searches still running, until `deadline`: one still
    /// searching then is left behind.
    pub async fn stop(self, deadline: Instant) {
        let MateSearches { rx, threads, .. } = self;
        drop(rx);
        for thread in threads {
            if thread.join_by(deadline).await.is_none() {
                tracing::warn!("a mate search did not end in time; left behind");
            }
        }
    }
}
