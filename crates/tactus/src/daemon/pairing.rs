//! The round's pairing at the board: which of the pairings the hall sends
//! is taken. Pure; the game task journals what is taken.
//!
//! A relay sends each board of a round its pairing, sealed with the hall
//! key for the board's run (tactus-net's `BoardPublisher` refuses anything
//! else, and anything its sender sent already). What is left to decide is
//! freshness, and it goes by the round, which the board keeps: a pairing is
//! taken when it is for a later round than the one the board has, or for
//! the same round and sent later (the sender's number is its wall clock in
//! µs). So a stranger with access to the broker but without the hall key,
//! who recorded an earlier round's pairing and plays it back, changes
//! nothing: sealed for a run of the board that is over, it is refused by
//! the seal; replayed within the run it was sent to, it is a number the
//! board has had, or an earlier round than the one it holds. A relay
//! restarted sends the round again: the same pairing changes nothing.
//! After a restart the board knows its round from the journal of the game
//! it recovered; a board that starts afresh holds none, and takes the
//! first pairing sealed for its new run (which only the hall key makes).

use tactus_net::SentPairing;
use tactus_trace::Pairing;

/// The pairing the board holds, and when it was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Held {
    pairing: Pairing,
    /// The sender's number; 0 for a pairing read from the journal.
    n: u64,
}

/// Which pairings the board takes.
#[derive(Debug, Default)]
pub struct Seating {
    held: Option<Held>,
}

/// What to do with a pairing the hall sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offer {
    /// A new pairing: the board's from now on.
    Take(Pairing),
    /// The pairing the board has, sent again.
    Same,
    /// Older than what the board has: refused, and why.
    Stale(String),
}

impl Seating {
    /// The board holding the pairing of the game it recovered, if any.
    pub fn holding(pairing: Option<&Pairing>) -> Seating {
        Seating { held: pairing.map(|p| Held { pairing: p.clone(), n: 0 }) }
    }

    /// Whether the board takes `sent`.
    pub fn offer(&mut self, sent: SentPairing) -> Offer {
        let round = sent.pairing.round;
        if let Some(held) = &mut self.held {
            let has = held.pairing.round;
            if round < has {
                return Offer::Stale(format!("it is for round {round}, and the board has round {has}'s: replayed?"));
            }
            if round == has && sent.n <= held.n {
                return Offer::Stale(format!(
                    "it was sent before the pairing the board has for round {round} ({} ≤ {}): replayed?",
                    sent.n, held.n
                ));
            }
            if round == has && sent.pairing == held.pairing {
                held.n = sent.n;
                return Offer::Same;
            }
        }
        self.held = Some(Held { pairing: sent.pairing.clone(), n: sent.n });
        Offer::Take(sent.pairing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tactus_trace::Player;

    fn pairing(round: u32, white: &str) -> Pairing {
        let player = |name: &str| Player { name: name.into(), title: None, elo: None, fide_id: None, federation: None };
        Pairing { tournament: None, round, board: 3, white: player(white), black: player("Volkov, Dmitri") }
    }

    fn sent(n: u64, pairing: Pairing) -> SentPairing {
        SentPairing { from: 7, n, pairing }
    }

    #[test]
    fn a_later_round_or_a_later_correction_is_taken() {
        let mut s = Seating::default();
        assert_eq!(s.offer(sent(100, pairing(1, "A"))), Offer::Take(pairing(1, "A")));
        assert_eq!(s.offer(sent(200, pairing(1, "A"))), Offer::Same, "the relay sent it again");
        assert_eq!(s.offer(sent(300, pairing(1, "B"))), Offer::Take(pairing(1, "B")), "the arbiter corrected it");
        assert_eq!(s.offer(sent(400, pairing(2, "C"))), Offer::Take(pairing(2, "C")));
    }

    #[test]
    fn an_earlier_round_replayed_changes_nothing() {
        let mut s = Seating::default();
        let round1 = sent(100, pairing(1, "A"));
        assert!(matches!(s.offer(round1.clone()), Offer::Take(_)));
        assert!(matches!(s.offer(sent(200, pairing(2, "C"))), Offer::Take(_)));
        // Recorded in round 1, played back in round 2: with any number.
        let Offer::Stale(why) = s.offer(round1) else { panic!() };
        assert!(why.contains("round 1") && why.contains("round 2"), "{why}");
        assert!(matches!(s.offer(sent(u64::MAX, pairing(1, "A"))), Offer::Stale(_)));
        // Round 2's own first sending, replayed after a correction.
        assert!(matches!(s.offer(sent(300, pairing(2, "D"))), Offer::Take(_)));
        assert!(matches!(s.offer(sent(200, pairing(2, "C"))), Offer::Stale(_)));
        assert_eq!(s.held.as_ref().unwrap().pairing, pairing(2, "D"));
    }

    #[test]
    fn a_recovered_game_keeps_its_round() {
        let mut s = Seating::holding(Some(&pairing(2, "C")));
        assert!(matches!(s.offer(sent(5, pairing(1, "A"))), Offer::Stale(_)));
        assert_eq!(s.offer(sent(5, pairing(2, "C"))), Offer::Same, "the relay sends the run its round again");
        assert!(matches!(s.offer(sent(6, pairing(3, "E"))), Offer::Take(_)));
    }
}
