//! The partner board (Appendix D two-board play; a match between two
//! places): this board's player has one side, the partner board's player
//! the other, and each plays on their own board. A move completed here goes
//! to the partner over the hall's broker (`tactus_net::PartnerLink`); the
//! partner's move comes back as an `opponent` input, journaled, guided onto
//! this board and completed when the board shows it, every wrong square
//! fixed — as an engine's move is. Rulings made here are said there too.
//! A draw offer made here stands there (9.1.2); a claim upheld here is
//! ruled there too (9.2, 9.3, A.5.2). Under A.5.2 an illegal move that
//! stands here is carried out there as made, and may be claimed there.
//!
//! The rules are pure ([`rules::PartnerRules`], with their state diagram);
//! this is their thin shell: the link's news goes in, what the rules say
//! goes to the game and to the link. It sits in the game task's opponent
//! slot (`opponent.rs`): what the game commits is looked at for this
//! board's completed moves and rulings, which are sent once the step is on
//! disk (at the next wait for the partner); the partner's move is given to
//! the game when the game waits for it.

mod rules;

use std::time::{Duration, Instant};

use shakmaty::Color;
use tactus_core::{EventKind, Session};
use tactus_net::{PairGame, PartnerLink};
use tactus_stats::Sorted;
use tactus_trace::Entry;
use tokio_util::sync::CancellationToken;

use super::opponent::{FromOpponent, Now};
use crate::config::PartnerPlan;
use rules::{PartnerRules, Said, Setup};

pub struct PartnerHost {
    link: PartnerLink,
    rules: PartnerRules,
    /// The game was recovered from the journal: its first seat says how it
    /// goes on.
    recovered: bool,
    stop: CancellationToken,
}

impl PartnerHost {
    /// Links with the partner board of the plan. `recovered`: the game
    /// goes on from the journal.
    pub fn start(plan: &PartnerPlan, stop: &CancellationToken, recovered: bool) -> anyhow::Result<PartnerHost> {
        let (partner, side) = (plan.partner.as_str(), plan.side);
        let link = plan.hall.link().map_err(|e| anyhow::anyhow!("pair: {e}"))?;
        let stop = stop.child_token();
        let link = PartnerLink::start(&link, &plan.hall.hall, plan.board.as_str(), partner, &stop)
            .map_err(|e| anyhow::anyhow!("pair: {e}"))?;
        let name = if side == Color::White { "White" } else { "Black" };
        tracing::info!("this board plays {name} against board {partner}");
        let setup = Setup {
            board: plan.board.as_str().to_string(),
            partner: partner.to_string(),
            side,
            table: plan.table_clock,
        };
        Ok(PartnerHost { link, rules: PartnerRules::new(setup), recovered, stop })
    }

    /// The side the partner board's player has.
    pub fn side(&self) -> Color {
        self.rules.side()
    }

    /// The game is under way here (new, or recovered from the journal):
    /// the partner hears where it stands, and sends again what it lacks.
    pub fn seat(&mut self, session: &Session) {
        let recovered = std::mem::take(&mut self.recovered);
        self.rules.seat(session, PairGame::draw(), recovered);
    }

    /// What the partner says next, for the game `now`. What the game
    /// committed for the partner goes first.
    pub async fn next(&mut self, now: Now<'_>) -> FromOpponent {
        loop {
            for (game, msg) in self.rules.take_sends() {
                self.link.send(game, msg);
            }
            if let Some(said) = self.rules.next(now.session, Instant::now()) {
                return match said {
                    Said::Inputs(inputs) => FromOpponent::Inputs(inputs),
                    Said::Notice(kind) => FromOpponent::Notice(kind),
                };
            }
            let from = self.link.next().await;
            self.rules.heard(from, now.session, Instant::now());
        }
    }

    /// The game took a step: what it leads to for the partner.
    pub fn committed(&mut self, session: &Session, entry: Option<&Entry>) {
        self.rules.committed(session, entry);
    }

    /// A device said something about itself (the table's clock here).
    pub fn noticed(&mut self, kind: &EventKind) {
        self.rules.noticed(kind);
    }

    /// Says goodbye to the broker (within `deadline`) and reports how long
    /// the partner's moves waited here for the board to be ready.
    pub async fn stop(self, deadline: Instant) {
        let (waits, other_games) = self.rules.summary();
        let ms = Sorted::new(waits.iter().map(|d: &Duration| d.as_secs_f64() * 1000.0));
        if let (Some(p50), Some(max)) = (ms.percentile(50), ms.max()) {
            tracing::info!(
                "the partner's {} latest moves waited here p50 {p50:.1} ms, max {max:.1} ms; {} messages from the \
                 broker refused, {} of another game",
                ms.len(),
                self.link.refused(),
                other_games,
            );
        }
        self.stop.cancel();
        let _ = tokio::time::timeout_at(deadline.into(), self.link.shutdown()).await;
    }
}
