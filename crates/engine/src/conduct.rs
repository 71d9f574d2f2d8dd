//! When the engine resigns or offers a draw, by its own evaluation over
//! several of its moves (one bad or level score is not enough), and whether
//! it accepts the player's draw offer (FIDE Laws 5.1.2 resignation, 9.1.2
//! draw offers).

use crate::level::Level;
use crate::protocol::Score;

/// Resign when the engine's score stays at or below `-cp` for `moves` of
/// its moves in a row; a score back above `-cp + HYSTERESIS_CP` starts the
/// count again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resign {
    pub cp: i32,
    pub moves: u32,
}

/// Offer a draw when the score stays within `±cp` for `moves` engine moves
/// in a row, not before `from_ply`, and not again within `every_plies`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawOffer {
    pub cp: i32,
    pub moves: u32,
    pub from_ply: u32,
    pub every_plies: u32,
}

/// How the engine behaves about the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conduct {
    pub resign: Option<Resign>,
    pub draw_offer: Option<DrawOffer>,
    /// Accept the player's offer when the engine's score is at most this.
    pub accept_draw_cp: Option<i32>,
}

/// How far a score must come back before a count starts again.
pub const HYSTERESIS_CP: i32 = 100;

impl Conduct {
    /// Weak levels play on to the end (a beginner wants to give mate) and
    /// never offer draws; stronger ones behave like a club player.
    pub fn for_level(level: Level) -> Conduct {
        if level.get() <= 4 {
            return Conduct { resign: None, draw_offer: None, accept_draw_cp: None };
        }
        Conduct {
            resign: Some(Resign { cp: 900, moves: 4 }),
            draw_offer: Some(DrawOffer { cp: 15, moves: 10, from_ply: 80, every_plies: 20 }),
            accept_draw_cp: Some(-50),
        }
    }
}

/// What the engine does besides its move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stance {
    Play,
    /// Plays its move and offers a draw (9.1.2.1: the offer is made with
    /// the move).
    OfferDraw,
    /// Resigns instead of moving.
    Resign,
}

/// The engine's scores so far in a game, and what they call for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judge {
    conduct: Conduct,
    losing: u32,
    level: u32,
    last_offer_ply: Option<u32>,
    last_score: Option<Score>,
}

impl Judge {
    pub fn new(conduct: Conduct) -> Judge {
        Judge { conduct, losing: 0, level: 0, last_offer_ply: None, last_score: None }
    }

    pub fn set_conduct(&mut self, conduct: Conduct) {
        self.conduct = conduct;
    }

    /// Forget the game (a new game, or a takeback changed its course).
    pub fn reset(&mut self) {
        *self = Judge::new(self.conduct);
    }

    /// The engine's score (its own point of view) after its search at
    /// `ply` (the ply its move will be).
    pub fn after_search(&mut self, score: Score, ply: u32) -> Stance {
        self.last_score = Some(score);
        let cp = score.to_cp();
        if let Some(r) = self.conduct.resign {
            if cp <= -r.cp {
                self.losing += 1;
            } else if cp > -r.cp + HYSTERESIS_CP {
                self.losing = 0;
            }
            if self.losing >= r.moves {
                return Stance::Resign;
            }
        }
        if let Some(d) = self.conduct.draw_offer {
            if cp.abs() <= d.cp {
                self.level += 1;
            } else if cp.abs() > d.cp + HYSTERESIS_CP {
                self.level = 0;
            }
            let rested = self.last_offer_ply.is_none_or(|p| ply >= p + d.every_plies);
            if self.level >= d.moves && ply >= d.from_ply && rested {
                self.last_offer_ply = Some(ply);
                return Stance::OfferDraw;
            }
        }
        Stance::Play
    }

    /// Whether the engine accepts a draw offered now, by its last score.
    pub fn accepts_draw(&self) -> bool {
        match (self.conduct.accept_draw_cp, self.last_score) {
            (Some(limit), Some(score)) => score.to_cp() <= limit,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strong() -> Judge {
        Judge::new(Conduct::for_level(Level::MAX))
    }

    #[test]
    fn resigns_only_after_several_lost_scores() {
        let mut j = strong();
        assert_eq!(j.after_search(Score::Cp(-1000), 40), Stance::Play);
        assert_eq!(j.after_search(Score::Cp(-1200), 42), Stance::Play);
        assert_eq!(j.after_search(Score::Mate(-9), 44), Stance::Play);
        assert_eq!(j.after_search(Score::Cp(-950), 46), Stance::Resign);
    }

    #[test]
    fn a_recovery_starts_the_count_again_but_a_wobble_does_not() {
        let mut j = strong();
        for ply in [40, 42, 44] {
            j.after_search(Score::Cp(-1000), ply);
        }
        // Within the hysteresis band: the count holds.
        assert_eq!(j.after_search(Score::Cp(-850), 46), Stance::Play);
        assert_eq!(j.after_search(Score::Cp(-1000), 48), Stance::Resign);
        j.reset();
        for ply in [40, 42, 44] {
            j.after_search(Score::Cp(-1000), ply);
        }
        assert_eq!(j.after_search(Score::Cp(-300), 46), Stance::Play);
        assert_eq!(j.after_search(Score::Cp(-1000), 48), Stance::Play);
    }

    #[test]
    fn offers_a_draw_in_a_level_ending_not_too_often() {
        let mut j = strong();
        let mut offers = Vec::new();
        for i in 0..31 {
            let ply = 60 + 2 * i;
            if j.after_search(Score::Cp(if i % 2 == 0 { 5 } else { -8 }), ply) == Stance::OfferDraw {
                offers.push(ply);
            }
        }
        // Not before ply 80, then once every 20 plies at most.
        assert_eq!(offers, vec![80, 100, 120]);
    }

    #[test]
    fn beginners_levels_play_to_the_end() {
        let mut j = Judge::new(Conduct::for_level(Level::MIN));
        for ply in 0..20 {
            assert_eq!(j.after_search(Score::Mate(-3), 100 + 2 * ply), Stance::Play);
        }
        assert!(!j.accepts_draw());
    }

    #[test]
    fn accepts_a_draw_only_when_not_better() {
        let mut j = strong();
        assert!(!j.accepts_draw());
        j.after_search(Score::Cp(120), 30);
        assert!(!j.accepts_draw());
        j.after_search(Score::Cp(-80), 32);
        assert!(j.accepts_draw());
    }
}
