//! The order of speech. Moves and rulings are always said, in order; a
//! phrase that is only information may be dropped while it waits, or cut
//! off while it is said, when a newer one makes it stale: a move, a ruling
//! or a new question ends a long readout. Time trouble mutes nothing.
//! What the online server says besides the game (`Kind::Note`: chat, its
//! notices) gives way: anything else waiting is said before it.

use std::collections::VecDeque;

use crate::announcer::{Kind, Utterance};

/// At most this many utterances wait; past it the oldest information goes,
/// then (a voice that cannot keep up at all) the oldest of anything.
pub const MAX_WAITING: usize = 256;

#[derive(Debug, Default)]
pub struct SpeechQueue {
    waiting: VecDeque<Utterance>,
}

/// Whether a newer utterance of kind `new` makes one of kind `old` not worth
/// saying any more — waiting, or being said (then it is cut off).
pub fn supersedes(new: Kind, old: Kind) -> bool {
    let a_move = matches!(new, Kind::Move | Kind::Echo | Kind::Tone);
    let a_question = matches!(new, Kind::Readout | Kind::Clock);
    match old {
        Kind::Move | Kind::Echo | Kind::Tone | Kind::Ruling | Kind::Note => false,
        // The touch led to a move, or to another touch.
        Kind::Touch => new == Kind::Touch || a_move,
        Kind::Board => new == old,
        Kind::Warning(_) => new == old,
        // A new question.
        Kind::Clock => a_question,
        // A readout of a position a move has changed, of a question the
        // player no longer waits for, or one a ruling must not wait behind.
        Kind::Readout => a_move || a_question || new == Kind::Ruling,
    }
}

impl SpeechQueue {
    pub fn new() -> Self {
        SpeechQueue::default()
    }

    /// Queues an utterance; returns those it made stale and dropped.
    pub fn push(&mut self, utterance: Utterance) -> Vec<Utterance> {
        self.push_all(vec![utterance])
    }

    /// Queues the chunks of one event (`Announcer::hear_chunks`): they make
    /// older ones stale, never each other. Returns what was dropped.
    pub fn push_all(&mut self, chunks: Vec<Utterance>) -> Vec<Utterance> {
        let Some(first) = chunks.first() else { return Vec::new() };
        let new = first.kind;
        let (mut dropped, keep): (Vec<Utterance>, Vec<Utterance>) =
            self.waiting.drain(..).partition(|old| supersedes(new, old.kind));
        self.waiting = keep.into();
        self.waiting.extend(chunks);
        while self.waiting.len() > MAX_WAITING {
            let droppable = self.waiting.iter().position(|u| !matches!(u.kind, Kind::Move | Kind::Ruling));
            dropped.extend(self.waiting.remove(droppable.unwrap_or(0)));
        }
        dropped
    }

    /// Drops what a newer utterance of kind `new` makes stale, without
    /// queueing anything; returns what was dropped.
    pub fn drop_stale(&mut self, new: Kind) -> Vec<Utterance> {
        let (dropped, keep): (Vec<Utterance>, Vec<Utterance>) =
            self.waiting.drain(..).partition(|old| supersedes(new, old.kind));
        self.waiting = keep.into();
        dropped
    }

    /// The next utterance to say: the oldest, but a note only once
    /// nothing else waits.
    pub fn pop(&mut self) -> Option<Utterance> {
        let first = self.waiting.iter().position(|u| u.kind != Kind::Note).unwrap_or(0);
        self.waiting.remove(first)
    }

    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use super::*;

    fn u(t: u64, kind: Kind) -> Utterance {
        Utterance { t, kind, text: format!("{t}") }
    }

    fn drain(q: &mut SpeechQueue) -> Vec<u64> {
        std::iter::from_fn(|| q.pop()).map(|u| u.t).collect()
    }

    #[test]
    fn moves_and_rulings_are_never_dropped() {
        let mut q = SpeechQueue::new();
        for (t, kind) in [(1, Kind::Move), (2, Kind::Ruling), (3, Kind::Move), (4, Kind::Echo), (5, Kind::Ruling)] {
            assert!(q.push(u(t, kind)).is_empty());
        }
        assert_eq!(drain(&mut q), [1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_newer_question_replaces_a_waiting_answer() {
        let mut q = SpeechQueue::new();
        q.push(u(1, Kind::Clock));
        q.push(u(2, Kind::Move));
        let dropped = q.push(u(3, Kind::Clock));
        assert_eq!(dropped, [u(1, Kind::Clock)]);
        q.push(u(4, Kind::Readout));
        assert_eq!(drain(&mut q), [2, 4]);
    }

    #[test]
    fn the_chunks_of_one_readout_stay_together_until_a_move_comes() {
        let mut q = SpeechQueue::new();
        assert!(q.push_all(vec![u(1, Kind::Readout), u(2, Kind::Readout), u(3, Kind::Readout)]).is_empty());
        assert_eq!(q.len(), 3);
        assert_eq!(q.pop().map(|u| u.t), Some(1));
        let dropped = q.push(u(4, Kind::Move));
        assert_eq!(dropped.iter().map(|u| u.t).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(drain(&mut q), [4]);
    }

    #[test]
    fn a_move_makes_touches_and_readouts_stale() {
        let mut q = SpeechQueue::new();
        q.push(u(1, Kind::Touch));
        q.push(u(2, Kind::Readout));
        q.push(u(3, Kind::Board));
        assert_eq!(q.push(u(4, Kind::Move)).len(), 2);
        assert_eq!(drain(&mut q), [3, 4]);
    }

    #[test]
    fn what_is_being_said_is_cut_off_by_the_same_rules() {
        assert!(supersedes(Kind::Move, Kind::Readout));
        assert!(supersedes(Kind::Echo, Kind::Readout));
        assert!(supersedes(Kind::Readout, Kind::Readout));
        assert!(supersedes(Kind::Clock, Kind::Readout));
        assert!(supersedes(Kind::Ruling, Kind::Readout));
        assert!(!supersedes(Kind::Ruling, Kind::Clock));
        assert!(!supersedes(Kind::Readout, Kind::Move));
        assert!(!supersedes(Kind::Move, Kind::Ruling));
        assert!(!supersedes(Kind::Warning(Color::White), Kind::Readout));
    }

    #[test]
    fn warnings_are_stale_only_for_the_same_side() {
        let mut q = SpeechQueue::new();
        q.push(u(1, Kind::Warning(Color::White)));
        q.push(u(2, Kind::Warning(Color::Black)));
        q.push(u(3, Kind::Warning(Color::White)));
        assert_eq!(drain(&mut q), [2, 3]);
    }

    #[test]
    fn a_board_fix_gives_way_to_a_newer_board_state() {
        let mut q = SpeechQueue::new();
        q.push(u(1, Kind::Board));
        q.push(u(2, Kind::Ruling));
        q.push(u(3, Kind::Board));
        assert_eq!(drain(&mut q), [2, 3]);
        assert!(q.is_empty());
    }

    #[test]
    fn notes_give_way_to_anything_else() {
        let mut q = SpeechQueue::new();
        for t in 1..=20 {
            q.push(u(t, Kind::Note));
        }
        q.push(u(21, Kind::Move));
        q.push(u(22, Kind::Clock));
        q.push(u(23, Kind::Ruling));
        let order = drain(&mut q);
        assert_eq!(order[..4], [21, 22, 23, 1], "the move, the clock and the ruling first: {order:?}");
        assert_eq!(order[4..], (2..=20).collect::<Vec<_>>()[..], "the notes in their order");
    }

    #[test]
    fn the_queue_is_bounded() {
        let mut q = SpeechQueue::new();
        let dropped = q.push_all((0..MAX_WAITING as u64 + 50).map(|t| u(t, Kind::Board)).collect());
        assert_eq!((q.len(), dropped.len()), (MAX_WAITING, 50));
        // Information goes first; moves stay.
        q.push_all((0..MAX_WAITING as u64 / 2).map(|t| u(1000 + t, Kind::Move)).collect());
        q.push(u(2000, Kind::Warning(Color::White)));
        assert_eq!(q.len(), MAX_WAITING);
        assert_eq!(q.waiting.iter().filter(|u| u.kind == Kind::Move).count(), MAX_WAITING / 2);
        // A voice that cannot keep up at all loses the oldest of anything.
        q.push_all((0..MAX_WAITING as u64).map(|t| u(3000 + t, Kind::Move)).collect());
        assert_eq!(q.len(), MAX_WAITING);
        assert_eq!(q.pop().map(|u| u.t), Some(3000));
    }
}
