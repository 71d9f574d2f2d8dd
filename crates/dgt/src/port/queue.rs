//! The two bounded queues between a line's thread and the rest: inputs from
//! the owner, which never waits for the line, and messages for the client,
//! which never waits for the client to read. Full, both drop what a newer
//! entry makes stale, then the oldest.

use std::collections::{HashSet, VecDeque};
use std::os::fd::OwnedFd;
use std::sync::Mutex;

use rustix::event::{EventfdFlags, eventfd};

/// Inputs waiting for the line's thread, at most (it takes them all at
/// each turn: only a thread held up fills this).
const INBOX: usize = 1024;
/// Bytes of messages waiting for the client to read, at most (a few of each
/// kind: stale ones are dropped first).
const OUTBOX_BYTES: usize = 8 * 1024;

/// An input that makes an older one, still waiting, stale: the newest
/// position replaces a position not yet shown.
pub(crate) trait Supersede {
    /// `older` need not be handled once `self` is.
    fn supersedes(&self, older: &Self) -> bool;
}

/// Inputs from the owner to the line's thread: `put` never blocks on the
/// line (the lock is held only to push or take), and wakes the thread.
pub(crate) struct Mailbox<I> {
    waiting: Mutex<Waiting<I>>,
    /// Readable while something is waiting: the thread polls it with the line.
    wake: OwnedFd,
}

struct Waiting<I> {
    inputs: VecDeque<I>,
    stop: bool,
}

impl<I: Supersede> Mailbox<I> {
    pub(crate) fn new() -> std::io::Result<Mailbox<I>> {
        let wake = eventfd(0, EventfdFlags::NONBLOCK | EventfdFlags::CLOEXEC)?;
        Ok(Mailbox { waiting: Mutex::new(Waiting { inputs: VecDeque::new(), stop: false }), wake })
    }

    /// Queues `input`; over the bound, drops the oldest input a newer one
    /// supersedes, or else the oldest.
    pub(crate) fn put(&self, input: I) {
        {
            let mut w = self.lock();
            w.inputs.push_back(input);
            if w.inputs.len() > INBOX {
                let inputs = &w.inputs;
                let stale = (0..inputs.len())
                    .find(|&i| inputs.iter().skip(i + 1).any(|newer| newer.supersedes(&inputs[i])))
                    .unwrap_or(0);
                w.inputs.remove(stale);
            }
        }
        self.ring();
    }

    /// Asks the thread to stop.
    pub(crate) fn stop(&self) {
        self.lock().stop = true;
        self.ring();
    }

    /// Everything waiting, and whether to stop.
    pub(crate) fn take(&self) -> (VecDeque<I>, bool) {
        let mut buf = [0u8; 8];
        // Emptied before taking: a put after the take rings again.
        let _ = rustix::io::read(&self.wake, &mut buf);
        let mut w = self.lock();
        (std::mem::take(&mut w.inputs), w.stop)
    }

    /// What the thread polls.
    pub(crate) fn bell(&self) -> &OwnedFd {
        &self.wake
    }

    fn ring(&self) {
        // An eventfd write fails only when its counter would overflow, and
        // then the bell is ringing anyway.
        let _ = rustix::io::write(&self.wake, &1u64.to_ne_bytes());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting<I>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What an earlier message, still unsent, is about: a newer message with
/// the same key makes it stale.
pub(crate) type Key = u16;

/// When an unsent message may be dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stale {
    /// Never for a newer message (an acknowledgement, noise).
    Never,
    /// When a newer one with the key is queued behind it and the client is
    /// not keeping up: the board, the clock, a square's field update told
    /// again. A client that reads gets every one, in turn.
    Superseded(Key),
}

/// One message for the client.
#[derive(Debug)]
pub(crate) struct Outgoing {
    pub stale: Stale,
    pub bytes: Vec<u8>,
}

/// Messages for the client, in order, bounded. While the client keeps up,
/// each goes out; once it has left what the line holds unread too long
/// ([`LineOutbox::congested`]), or the outbox is full, a message drops the
/// unsent ones it supersedes, and over the bound the oldest go. A message
/// the line took part of is finished first, unless the line's own queue is
/// thrown away ([`LineOutbox::cut`]).
#[derive(Debug, Default)]
pub(crate) struct LineOutbox {
    /// The rest of the message the line is writing.
    head: Vec<u8>,
    queue: VecDeque<Outgoing>,
    queued: usize,
    /// The client has stopped reading: only the newest of each kind counts.
    congested: bool,
}

impl LineOutbox {
    pub(crate) fn push(&mut self, message: Outgoing) {
        if message.bytes.is_empty() {
            return;
        }
        self.queued += message.bytes.len();
        self.queue.push_back(message);
        if self.congested || self.queued > OUTBOX_BYTES {
            self.drop_superseded();
        }
        while self.queued > OUTBOX_BYTES && self.queue.len() > 1 {
            if let Some(old) = self.queue.pop_front() {
                self.queued -= old.bytes.len();
            }
        }
    }

    /// Keeps the newest message of each key.
    fn drop_superseded(&mut self) {
        let mut seen = HashSet::new();
        let mut newest: Vec<bool> = self
            .queue
            .iter()
            .rev()
            .map(|m| match m.stale {
                Stale::Superseded(key) => seen.insert(key),
                Stale::Never => true,
            })
            .collect();
        newest.reverse();
        let mut keep = newest.into_iter();
        self.queue.retain(|_| keep.next().unwrap_or(true));
        self.queued = self.queue.iter().map(|m| m.bytes.len()).sum();
    }

    /// Every unsent message of `key` now says `bytes`: an answer still
    /// waiting tells what stands when it goes out, not what stood when it
    /// was asked for (a board dump queued before a move shows the move).
    pub(crate) fn refresh(&mut self, key: Key, bytes: &[u8]) {
        for m in self.queue.iter_mut().filter(|m| m.stale == Stale::Superseded(key)) {
            self.queued = self.queued - m.bytes.len() + bytes.len();
            m.bytes = bytes.to_vec();
        }
    }

    /// The client has left what the line holds unread too long: from now
    /// until it reads again, only the newest of each kind is kept.
    pub(crate) fn congested(&mut self) {
        self.congested = true;
        self.drop_superseded();
    }

    /// A message never dropped for a newer one.
    pub(crate) fn once(&mut self, bytes: Vec<u8>) {
        self.push(Outgoing { stale: Stale::Never, bytes });
    }

    /// The bytes to write next; empty when there are none.
    pub(crate) fn next(&mut self) -> &[u8] {
        if self.head.is_empty()
            && let Some(m) = self.queue.pop_front()
        {
            self.queued -= m.bytes.len();
            self.head = m.bytes;
        }
        &self.head
    }

    /// The line took `n` bytes of [`LineOutbox::next`]: the client reads again.
    pub(crate) fn wrote(&mut self, n: usize) {
        self.head.drain(..n.min(self.head.len()));
        self.congested = false;
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.head.is_empty() && self.queue.is_empty()
    }

    /// The line threw away what it held: the rest of a message begun there
    /// would be noise.
    pub(crate) fn cut(&mut self) {
        self.head.clear();
    }

    /// The line is gone: nothing here is for the next client.
    pub(crate) fn clear(&mut self) {
        *self = LineOutbox::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(key: u8, byte: u8, len: usize) -> Outgoing {
        Outgoing { stale: Stale::Superseded(key.into()), bytes: vec![byte; len] }
    }

    #[test]
    fn an_answer_still_waiting_tells_what_stands_when_it_goes_out() {
        let mut out = LineOutbox::default();
        out.push(message(1, 1, 5));
        out.once(vec![2; 3]);
        out.push(message(7, 9, 4));
        out.refresh(1, &[4; 6]);
        assert_eq!(out.next(), &[4; 6][..], "the waiting answer of that kind is the newest");
        out.wrote(6);
        assert_eq!(out.next(), &[2; 3][..]);
        out.wrote(3);
        assert_eq!(out.next(), &[9; 4][..], "other kinds are left as they were");
    }

    #[test]
    fn a_client_that_keeps_up_gets_every_message_in_turn() {
        let mut out = LineOutbox::default();
        out.push(message(1, 1, 67));
        out.once(vec![2; 10]);
        out.push(message(1, 3, 67));
        let mut got = Vec::new();
        while !out.is_empty() {
            let n = out.next().len().min(7);
            got.extend_from_slice(&out.next()[..n]);
            out.wrote(n);
        }
        assert_eq!(got, [vec![1; 67], vec![2; 10], vec![3; 67]].concat());
    }

    #[test]
    fn a_congested_or_full_outbox_keeps_the_newest_of_each_kind_and_stays_bounded() {
        let mut out = LineOutbox::default();
        out.push(message(1, 1, 67));
        out.push(message(2, 2, 5));
        out.once(vec![9; 10]);
        out.push(message(1, 3, 67));
        out.congested();
        assert_eq!(out.next(), &[2; 5][..], "the first dump was stale");
        out.wrote(2);
        out.push(message(2, 4, 5));
        assert_eq!(out.next(), &[2; 3][..], "a message begun is finished");
        out.wrote(3);
        assert_eq!(out.next(), &[9; 10][..], "what answers one command stays");
        out.wrote(10);
        assert_eq!((out.next().to_vec(), out.queue.len()), (vec![3; 67], 1));
        out.clear();
        // Not congested, but full: the newest of each of 64 squares stays.
        for i in 0..OUTBOX_BYTES {
            out.push(message((i % 64) as u8, (i / 64) as u8, 5));
        }
        assert!(out.queued <= OUTBOX_BYTES);
        for square in 0..64u8 {
            let newest = ((OUTBOX_BYTES - 64 + usize::from(square)) / 64) as u8;
            assert!(out.queue.iter().any(|m| m.stale == Stale::Superseded(square.into()) && m.bytes[0] == newest));
        }
        // What is never stale is bounded all the same, the newest kept.
        out.clear();
        for i in 0..10_000u32 {
            out.once(i.to_be_bytes().to_vec());
        }
        assert!(out.queued <= OUTBOX_BYTES, "bounded: {}", out.queued);
        assert_eq!(out.next(), &(10_000 - OUTBOX_BYTES as u32 / 4).to_be_bytes()[..], "the newest kept");
    }

    impl Supersede for (u8, u32) {
        fn supersedes(&self, older: &Self) -> bool {
            self.0 == older.0
        }
    }

    #[test]
    fn the_mailbox_keeps_every_input_in_turn_and_full_the_newest_of_a_kind() {
        let mailbox = Mailbox::new().unwrap();
        for i in 0..10 {
            mailbox.put((0, i));
        }
        assert_eq!(mailbox.take().0.len(), 10, "a thread that keeps up sees every input");
        for i in 0..(INBOX as u32 * 3) {
            mailbox.put((0, i));
            mailbox.put((1 + (i % 200) as u8, i));
        }
        let (inputs, stop) = mailbox.take();
        assert!(!stop);
        assert_eq!(inputs.len(), INBOX);
        let last = INBOX as u32 * 3 - 1;
        assert_eq!(inputs.back(), Some(&(1 + (last % 200) as u8, last)));
        assert!(inputs.contains(&(0, last)), "the newest of kind 0 is still there");
    }
}
