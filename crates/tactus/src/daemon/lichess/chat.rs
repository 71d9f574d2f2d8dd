//! The opponent's chat as the board says it: a line or two, then only how
//! many more came ("More in the chat: 18 lines"), the lines held for `online
//! chat` — so that a flood of chat never stands between the player and the
//! game. Each move renews the budget.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use tactus_core::{ChatLine, Online};

/// Lines said as they come between two moves.
const SAID_AT_ONCE: u8 = 2;
/// Lines held for `online chat`: the newest.
const HELD: usize = 64;
/// How many held lines came is said once the chat has been quiet this long
/// (or at the next move, if sooner).
const QUIET: Duration = Duration::from_secs(2);

#[derive(Debug, Default)]
pub struct Chat {
    /// Lines said since the last move.
    said: u8,
    held: VecDeque<ChatLine>,
    /// Lines held whose count has not been said yet.
    unsaid: u32,
    /// When that count is due.
    due: Option<Instant>,
}

impl Chat {
    /// A line of the opponent's: said now, or held and counted.
    pub fn line(&mut self, line: ChatLine, now: Instant) -> Option<Online> {
        if self.said < SAID_AT_ONCE {
            self.said += 1;
            return Some(Online::Chat { from: line.from, text: line.text });
        }
        if self.held.len() == HELD {
            self.held.pop_front();
        }
        self.held.push_back(line);
        self.unsaid += 1;
        self.due = Some(now + QUIET);
        None
    }

    /// A move was made: the budget is renewed, and how many lines were held
    /// since they were last counted is said now.
    pub fn moved(&mut self) -> Option<Online> {
        self.said = 0;
        self.count()
    }

    /// When the count of held lines is due, if it is.
    pub fn due(&self) -> Option<Instant> {
        self.due
    }

    /// The chat has been quiet a while: how many lines were held.
    pub fn tick(&mut self, now: Instant) -> Option<Online> {
        if self.due.is_some_and(|due| due <= now) { self.count() } else { None }
    }

    fn count(&mut self) -> Option<Online> {
        self.due = None;
        let count = std::mem::take(&mut self.unsaid);
        (count > 0).then_some(Online::ChatHeld { count })
    }

    /// `online chat`: the lines held, read now and forgotten.
    pub fn read(&mut self) -> Online {
        self.due = None;
        self.unsaid = 0;
        Online::ChatLines { lines: self.held.drain(..).collect() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: u32) -> ChatLine {
        ChatLine { from: "Magnus".into(), text: format!("line {n}") }
    }

    #[test]
    fn a_flood_is_two_lines_and_a_count_the_lines_held_for_the_asking() {
        let now = Instant::now();
        let mut chat = Chat::default();
        let said: Vec<Online> = (1..=20).filter_map(|n| chat.line(line(n), now)).collect();
        assert_eq!(said.len(), 2, "two said as they come: {said:?}");
        assert_eq!(chat.tick(now), None, "not while the lines come");
        assert_eq!(chat.due(), Some(now + QUIET));
        assert_eq!(chat.moved(), Some(Online::ChatHeld { count: 18 }), "a move says the count at once");
        assert_eq!(chat.tick(now + QUIET), None, "said once");
        let Online::ChatLines { lines } = chat.read() else { panic!() };
        assert_eq!(lines, (3..=20).map(line).collect::<Vec<_>>());
        assert_eq!(chat.read(), Online::ChatLines { lines: Vec::new() });
        // The move renewed the budget.
        assert!(matches!(chat.line(line(21), now), Some(Online::Chat { .. })));
    }

    #[test]
    fn the_count_comes_once_the_chat_is_quiet_and_the_held_lines_are_bounded() {
        let now = Instant::now();
        let mut chat = Chat::default();
        for n in 0..(HELD as u32 + 12) {
            chat.line(line(n), now);
        }
        assert_eq!(chat.tick(now + QUIET), Some(Online::ChatHeld { count: HELD as u32 + 10 }));
        assert_eq!(chat.due(), None);
        let Online::ChatLines { lines } = chat.read() else { panic!() };
        assert_eq!(lines.len(), HELD, "the newest kept");
        assert_eq!(lines.last(), Some(&line(HELD as u32 + 11)));
    }
}
