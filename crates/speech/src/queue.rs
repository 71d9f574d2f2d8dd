//! The order of speech. Moves and rulings are always said, in order; a
//! phrase that is only information may be dropped while it waits, when a
//! newer one makes it stale. Time trouble mutes nothing.

use std::collections::VecDeque;

use crate::announcer::{Kind, Utterance};

#[derive(Debug, Default)]
pub struct SpeechQueue {
    waiting: VecDeque<Utterance>,
}

/// Whether a newer utterance of kind `new` makes a waiting one of kind `old`
/// not worth saying any more.
fn supersedes(new: Kind, old: Kind) -> bool {
    match old {
        Kind::Move | Kind::Ruling => false,
        // The touch led to a move, or to another touch.
        Kind::Touch => matches!(new, Kind::Touch | Kind::Move),
        Kind::Board | Kind::Clock => new == old,
        Kind::Warning(_) => new == old,
        // A readout of a position that a move has changed.
        Kind::Readout => matches!(new, Kind::Readout | Kind::Move),
    }
}

impl SpeechQueue {
    pub fn new() -> Self {
        SpeechQueue::default()
    }

    /// Queues an utterance; returns those it made stale and dropped.
    pub fn push(&mut self, utterance: Utterance) -> Vec<Utterance> {
        let (stale, keep): (Vec<Utterance>, Vec<Utterance>) =
            self.waiting.drain(..).partition(|old| supersedes(utterance.kind, old.kind));
        self.waiting = keep.into();
        self.waiting.push_back(utterance);
        stale
    }

    /// The next utterance to say.
    pub fn pop(&mut self) -> Option<Utterance> {
        self.waiting.pop_front()
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
        for (t, kind) in [(1, Kind::Move), (2, Kind::Ruling), (3, Kind::Move), (4, Kind::Move), (5, Kind::Ruling)] {
            assert!(q.push(u(t, kind)).is_empty());
        }
        assert_eq!(drain(&mut q), [1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_newer_readout_of_the_same_kind_replaces_a_waiting_one() {
        let mut q = SpeechQueue::new();
        q.push(u(1, Kind::Clock));
        q.push(u(2, Kind::Move));
        let dropped = q.push(u(3, Kind::Clock));
        assert_eq!(dropped, [u(1, Kind::Clock)]);
        assert_eq!(drain(&mut q), [2, 3]);
    }

    #[test]
    fn a_move_makes_touches_and_position_readouts_stale() {
        let mut q = SpeechQueue::new();
        q.push(u(1, Kind::Touch));
        q.push(u(2, Kind::Readout));
        q.push(u(3, Kind::Clock));
        assert_eq!(q.push(u(4, Kind::Move)).len(), 2);
        assert_eq!(drain(&mut q), [3, 4]);
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
}
