//! The voice as a running thing: events in from any thread, speech out on a
//! thread of its own, a long readout cut off by a move, a ruling or a new
//! question — between its chunks and in the middle of one.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tactus_core::Event;

use crate::announcer::{Announcer, Kind, Utterance};
use crate::error::SpeechError;
use crate::queue::{SpeechQueue, supersedes};
use crate::sink::{Interrupt, Played, Speaker};

/// Hears what was said, and how far it got (or why it failed).
pub type Said = Box<dyn FnMut(&Utterance, Result<Played, SpeechError>) + Send>;

struct State {
    announcer: Announcer,
    queue: SpeechQueue,
    /// What the voice thread is saying now.
    playing: Option<Kind>,
    closed: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    interrupt: Interrupt,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        // A panic on the voice thread must not silence the board's events.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// How long the voice thread gets to end once what it says is cut off.
pub const CUT_OFF: Duration = Duration::from_millis(200);

/// Says a game's events on a thread of its own.
pub struct Narrator {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Narrator {
    /// Starts the voice thread. `speaker` builds the speaker on it (a sound
    /// device belongs to the thread that opened it); its error is returned
    /// here, so a missing sound card is an error at start. `said` hears
    /// every utterance once it has been said or cut off.
    pub fn spawn<F>(announcer: Announcer, speaker: F, mut said: Said) -> Result<Narrator, SpeechError>
    where
        F: FnOnce() -> Result<Speaker<'static>, SpeechError> + Send + 'static,
    {
        let shared = Arc::new(Shared {
            state: Mutex::new(State { announcer, queue: SpeechQueue::new(), playing: None, closed: false }),
            wake: Condvar::new(),
            interrupt: Interrupt::new(),
        });
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let on_thread = shared.clone();
        let thread = std::thread::Builder::new()
            .name("voice".into())
            .spawn(move || {
                let mut speaker = match speaker() {
                    Ok(s) => {
                        let _ = ready_tx.send(Ok(()));
                        s
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                while let Some(u) = next(&on_thread) {
                    let outcome = speaker.speak_until(&u, &on_thread.interrupt);
                    on_thread.state().playing = None;
                    said(&u, outcome);
                }
            })
            .map_err(SpeechError::io("voice thread"))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(Narrator { shared, thread: Some(thread) }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(SpeechError::NoVoice),
        }
    }

    /// Hears an event: queues what is to be said, drops what it makes stale,
    /// and cuts off what is being said if it is stale too.
    pub fn hear(&self, ev: &Event) {
        let mut state = self.shared.state();
        let chunks = state.announcer.hear_chunks(ev);
        let Some(kind) = chunks.first().map(|u| u.kind) else { return };
        state.queue.push_all(chunks);
        if state.playing.is_some_and(|playing| supersedes(kind, playing)) {
            self.shared.interrupt.raise();
        }
        self.shared.wake.notify_all();
    }

    /// Stops answering: drops the answers waiting and cuts off the one
    /// being said (a "quiet" button); moves and rulings go on.
    pub fn hush(&self) {
        let mut state = self.shared.state();
        state.queue.drop_stale(Kind::Readout);
        if state.playing.is_some_and(|playing| supersedes(Kind::Readout, playing)) {
            self.shared.interrupt.raise();
        }
    }

    /// Says what is still queued, then stops the voice thread.
    pub fn finish(mut self) {
        self.close();
    }

    /// Says what is still queued until `deadline`; then drops the rest, cuts
    /// off what is being said and gives the thread [`CUT_OFF`] to end. True
    /// if it ended; false if it did not even then (a sound device or a
    /// terminal that blocks): it is left behind, for the process's exit.
    pub fn finish_by(mut self, deadline: Instant) -> bool {
        self.shared.state().closed = true;
        self.shared.wake.notify_all();
        let Some(thread) = self.thread.take() else { return true };
        let ended = |until: Instant| {
            while !thread.is_finished() {
                if Instant::now() >= until {
                    return false;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            true
        };
        if !ended(deadline) {
            self.shared.state().queue = SpeechQueue::new();
            self.shared.interrupt.raise();
            if !ended(Instant::now() + CUT_OFF) {
                return false;
            }
        }
        let _ = thread.join();
        true
    }

    fn close(&mut self) {
        self.shared.state().closed = true;
        self.shared.wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Narrator {
    fn drop(&mut self) {
        self.close();
    }
}

/// The next utterance to say, waiting for one; `None` once closed and
/// everything has been said.
fn next(shared: &Shared) -> Option<Utterance> {
    let mut state = shared.state();
    loop {
        if let Some(u) = state.queue.pop() {
            // Under the lock that `hear` takes: a newer event either sees
            // this utterance playing or was queued before it was taken.
            state.playing = Some(u.kind);
            shared.interrupt.reset();
            return Some(u);
        }
        if state.closed {
            return None;
        }
        state = shared.wake.wait(state).unwrap_or_else(PoisonError::into_inner);
    }
}
