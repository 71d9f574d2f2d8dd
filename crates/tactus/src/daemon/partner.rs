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
//! It sits in the game task's opponent slot (`opponent.rs`): what the game
//! commits is looked at for this board's completed moves and rulings, which
//! are sent once the step is on disk (at the next wait for the partner);
//! the partner's move is given to the game when the game waits for it.
//!
//! The game's own numbers keep the two in step across restarts: a daemon
//! starting (or recovering its game from the journal) says `hello` with the
//! ply its game is at, and the partner sends again its moves from there; a
//! move for a ply already played is a duplicate, one for a later ply waits
//! its turn. Nothing is lost or taken twice.
//!
//! At one table with one clock between the boards (`[pair] clock`), the
//! board the clock is attached to sends each press of the partner's player
//! on (with the ply it came at and the time that clock read), and sends
//! again on `hello` the one whose move is still to come; the other board
//! takes it as a `table_press` input at its ply, once.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use shakmaty::Color;
use shakmaty::uci::UciMove;
use tactus_core::{Article, Device, EndReason, EventKind, Irregularity, Session};
use tactus_net::{FromPartner, PairMessage, PartnerLink};
use tactus_trace::{Claim, Entry, Input, OffBoardReason, Record, TableClock};

use super::opponent::{FromOpponent, Now};
use super::percentile;
use tokio_util::sync::CancellationToken;

use crate::config::PartnerPlan;

/// Moves for later plies held until their turn (a partner never is more
/// than a move ahead; a forged flood is not kept).
const PENDING_KEPT: usize = 16;

/// A move of the partner's, waiting for this board to be ready for it.
#[derive(Debug, Clone)]
struct Pending {
    uci: UciMove,
    /// The mover's time after it, as the partner's clock kept it.
    clock_ms: Option<i64>,
    /// When it arrived, for the latency the daemon reports.
    at: Instant,
}

pub struct PartnerHost {
    link: PartnerLink,
    /// The side this board's player has.
    side: Color,
    pending: BTreeMap<u32, Pending>,
    /// What the game committed for the partner, sent once it is on disk.
    outgoing: Vec<PairMessage>,
    /// The partner's move given to the game, and the time its clock kept.
    carried: Option<(u32, Option<i64>)>,
    /// That time, once the move is complete here: this board shows it too.
    clock_due: Option<Input>,
    /// Time given here because the partner's board gave it: not sent back.
    echo: Option<Input>,
    /// A claim the partner's board ruled was ruled here too, and gave its
    /// penalty here: the partner's ruling of that penalty, which comes
    /// next, is not given again.
    claim_penalised: bool,
    /// From a partner's move arriving to it being given to the game.
    waits: Vec<Duration>,
    /// One clock at the table: where it is.
    table: Option<TableClock>,
    /// This board's player's press at the table's clock (its ply, and the
    /// time that clock read), waiting for this board's game to reach it.
    press_due: Option<(u32, i64)>,
    /// The table's clock here was lost or is back: presses complete moves
    /// or not (`clock_connected`), taken next.
    table_due: Option<Input>,
    /// The table's clock at the partner board: the partner away, or the
    /// clock unplugged there. Presses complete moves here only with neither.
    away: bool,
    unplugged: bool,
    stop: CancellationToken,
}

impl PartnerHost {
    /// Links with the partner board of the plan.
    pub fn start(plan: &PartnerPlan) -> anyhow::Result<PartnerHost> {
        let (partner, side) = (&plan.partner, plan.side);
        let link = plan.hall.link().map_err(|e| anyhow::anyhow!("pair: {e}"))?;
        let stop = CancellationToken::new();
        let link = PartnerLink::start(&link, &plan.hall.hall, plan.board.as_str(), partner.as_str(), &stop)
            .map_err(|e| anyhow::anyhow!("pair: {e}"))?;
        let name = if side == Color::White { "White" } else { "Black" };
        tracing::info!("this board plays {name} against board {partner}");
        Ok(PartnerHost {
            link,
            side,
            pending: BTreeMap::new(),
            outgoing: Vec::new(),
            carried: None,
            clock_due: None,
            echo: None,
            claim_penalised: false,
            waits: Vec::new(),
            table: plan.table_clock,
            press_due: None,
            table_due: None,
            away: false,
            unplugged: false,
            stop,
        })
    }

    /// The side the partner board's player has.
    pub fn side(&self) -> Color {
        !self.side
    }

    /// The game is under way here (new, or recovered from the journal):
    /// the partner hears where it stands, and sends again what it lacks.
    pub fn seat(&mut self, session: &Session) {
        self.pending.clear();
        (self.carried, self.clock_due, self.press_due) = (None, None, None);
        self.outgoing.push(PairMessage::Hello { ply: session.game().ply(), answer: false });
    }

    /// What the partner says next, for the game `now`: its move once the
    /// game waits for it, the partner away or back, its rulings. What was
    /// committed for the partner goes first.
    pub async fn next(&mut self, now: Now<'_>) -> FromOpponent {
        for msg in self.outgoing.drain(..) {
            self.link.send(msg);
        }
        if let Some(clock) = self.clock_due.take().or_else(|| self.table_due.take()) {
            return FromOpponent::Inputs(vec![clock]);
        }
        // Presses from the table complete moves here while they can come.
        let presses = !self.away && !self.unplugged;
        if self.table == Some(TableClock::Partner)
            && presses != now.session.presses_complete()
            && !now.session.finished()
        {
            return FromOpponent::Inputs(vec![Input::ClockConnected(presses)]);
        }
        loop {
            if let Some(inputs) = self.due(now.session) {
                return FromOpponent::Inputs(inputs);
            }
            let from = self.link.next().await;
            if let Some(said) = self.heard(from, now.session) {
                return said;
            }
        }
    }

    /// Takes what the partner said: its move is held for [`Self::due`];
    /// what is for the game now is returned.
    fn heard(&mut self, from: FromPartner, session: &Session) -> Option<FromOpponent> {
        let partner = self.link.partner().to_string();
        match from {
            FromPartner::Away => {
                tracing::warn!("the partner board {partner} cannot be reached");
                // The table's clock with it: the game goes on timed here.
                self.away = true;
                Some(FromOpponent::Notice(EventKind::DeviceLost {
                    device: Device::Partner,
                    why: tactus_core::Lost::Connection,
                    diagnostic: Some(format!("board {partner}")),
                }))
            }
            FromPartner::Back => {
                tracing::info!("the partner board {partner} is back");
                self.away = false;
                Some(FromOpponent::Notice(EventKind::DeviceBack { device: Device::Partner }))
            }
            FromPartner::Message(PairMessage::Hello { ply, answer }) => {
                self.send_from(ply, session);
                // The press whose move the partner has not sent yet: it may
                // not have taken it before it restarted.
                if let Some((handed, Some(clock_ms))) = session.handed()
                    && handed >= ply
                {
                    self.link.send(PairMessage::Press { ply: handed, clock_ms });
                }
                if self.table == Some(TableClock::Here) {
                    self.link.send(PairMessage::TableClock { connected: session.presses_complete() });
                }
                if !answer {
                    self.link.send(PairMessage::Hello { ply: session.game().ply(), answer: true });
                }
                None
            }
            FromPartner::Message(PairMessage::Move { ply, uci, san, clock_ms }) => {
                let Ok(uci) = uci.parse::<UciMove>() else { return None };
                let game = session.game();
                if ply < game.ply() {
                    // Played already: sent again after a restart. One that
                    // differs is the boards' disagreement, for the arbiter.
                    let first = game.ply() - game.played.len() as u32;
                    let ours = ply.checked_sub(first).and_then(|i| game.played.get(i as usize));
                    if ours.is_some_and(|p| p.info.uci != uci.to_string()) {
                        tracing::warn!(
                            "the partner board {partner} played {san} at ply {ply}; this board has another move there"
                        );
                    }
                    return None;
                }
                if ply_side(ply) == self.side {
                    tracing::warn!(
                        "the partner board {partner} sent a move for this board's side (ply {ply}): ignored"
                    );
                    return None;
                }
                if self.pending.len() < PENDING_KEPT || self.pending.contains_key(&ply) {
                    self.pending.entry(ply).or_insert(Pending { uci, clock_ms, at: Instant::now() });
                }
                None
            }
            FromPartner::Message(PairMessage::Ruling { event }) => match event.kind {
                // Given here already, ruling the claim it is for.
                EventKind::Penalty { .. } if std::mem::take(&mut self.claim_penalised) => None,
                // Time the partner's board gave a player is given here too.
                EventKind::Penalty { side, ms, .. } => u64::try_from(ms)
                    .ok()
                    .filter(|&ms| (1..=*tactus_trace::range::ADDED_MS.values.end()).contains(&ms))
                    .map(|ms| {
                        self.echo = Some(Input::AddTime { side, ms });
                        FromOpponent::Inputs(vec![Input::AddTime { side, ms }])
                    }),
                // Said, not ruled again: the fix is for the partner's board.
                EventKind::Irregularity(irregularity) => {
                    // A press at the table's clock here that completed no
                    // move there: the clock goes back to before it.
                    let no_move = matches!(irregularity.article, Article::A7_5_1 | Article::A7_5_3);
                    if self.table == Some(TableClock::Here)
                        && no_move
                        && !irregularity.stands
                        && irregularity.side == !self.side
                        && session.handed().is_some_and(|(ply, _)| ply == irregularity.ply)
                    {
                        self.table_due = Some(Input::PressRuled { ply: irregularity.ply });
                    }
                    Some(FromOpponent::Notice(EventKind::Irregularity(Irregularity {
                        fix: Vec::new(),
                        ..irregularity
                    })))
                }
                _ => None,
            },
            FromPartner::Message(PairMessage::Press { ply, clock_ms }) => {
                if self.table != Some(TableClock::Partner) {
                    tracing::warn!("the partner board {partner} sent a press of its clock; this board has its own");
                } else if ply >= session.game().ply() {
                    self.press_due = Some((ply, clock_ms));
                }
                None
            }
            FromPartner::Message(PairMessage::TableClock { connected }) => {
                if self.table != Some(TableClock::Partner) || self.unplugged != connected {
                    return None;
                }
                self.unplugged = !connected;
                Some(FromOpponent::Notice(if connected {
                    tracing::info!("the clock at board {partner} is back");
                    EventKind::DeviceBack { device: Device::Clock }
                } else {
                    tracing::warn!("the clock at board {partner} is unplugged; the game goes on timed by the boards");
                    EventKind::DeviceLost {
                        device: Device::Clock,
                        why: tactus_core::Lost::Unplugged,
                        diagnostic: Some(format!("at board {partner}")),
                    }
                }))
            }
            FromPartner::Message(PairMessage::TableClockStopped { stopped }) => {
                let runs = session.clock().is_some_and(|c| c.running().is_some());
                if self.table != Some(TableClock::Partner) || session.finished() || runs != stopped {
                    return None;
                }
                Some(FromOpponent::Inputs(vec![if stopped { Input::Pause } else { Input::Resume }]))
            }
            FromPartner::Message(PairMessage::Over { result, reason }) => {
                (!session.finished()).then(|| FromOpponent::Inputs(vec![Input::Result { result, reason }]))
            }
            // The partner's player offers a draw (9.1.2): the offer stands
            // here too, for this board's player to accept by offering in
            // turn or to decline by moving. One the game here has passed was
            // declined by the move made since (9.1.2.3).
            FromPartner::Message(PairMessage::DrawOffer { ply }) => {
                (!session.finished() && ply >= session.game().ply() && session.draw_offered() != Some(!self.side))
                    .then(|| FromOpponent::Inputs(vec![Input::DrawOffer { side: !self.side }]))
            }
            // A claim the partner's board ruled is ruled here too, at the
            // same ply, the same way: a draw for the same reason, an
            // illegal move that stood here taken back and counted (A.5.2,
            // 7.5.5), an incorrect claim's penalty (9.5.3). What it leads to
            // here is the partner's already: not sent back.
            FromPartner::Message(PairMessage::Claim { .. }) if session.finished() => None,
            FromPartner::Message(PairMessage::Claim { ply, side, claim }) => {
                if side == self.side || ply != session.game().ply() {
                    tracing::warn!(
                        "the partner board {partner} ruled a claim ({claim}) at ply {ply}; this board's game is at ply {}: not taken",
                        session.game().ply()
                    );
                    return None;
                }
                let input = Input::Claim { side, claim };
                self.echo = Some(input);
                Some(FromOpponent::Inputs(vec![input]))
            }
        }
    }

    /// What this board is ready for: this board's player's press at the
    /// table at its ply; the partner's move at its turn and ply, with no
    /// move of its being carried out already — at one table, after the
    /// press that completed it there.
    fn due(&mut self, session: &Session) -> Option<Vec<Input>> {
        let ply = session.game().ply();
        if let Some((pressed, ms)) = self.press_due
            && pressed <= ply
        {
            self.press_due = None;
            // Once: a press already waiting for the piece is this one.
            let stopped = session.clock().is_some_and(|c| c.running().is_none());
            let counts = !session.awaits_engine() || stopped;
            if pressed == ply && counts && !session.press_waiting() {
                return Some(vec![Input::TablePress { side: self.side, ms: clock_reading(ms) }]);
            }
        }
        if !session.awaits_engine() {
            return None;
        }
        self.pending.retain(|&p, _| p >= ply);
        let pending = self.pending.remove(&ply)?;
        self.waits.push(pending.at.elapsed());
        self.carried = Some((ply, pending.clock_ms));
        let opponent = Input::Opponent { ply, uci: pending.uci, eval: None };
        Some(match (self.table, pending.clock_ms) {
            (Some(TableClock::Partner), Some(ms)) => {
                vec![Input::TablePress { side: !self.side, ms: clock_reading(ms) }, opponent]
            }
            _ => vec![opponent],
        })
    }

    /// The game took a step: this board's completed move goes to the
    /// partner, and its rulings, to be said there too — sent once the step
    /// is on disk.
    pub fn committed(&mut self, session: &Session, entry: Option<&Entry>) {
        // The table's clock here unplugged or back: the partner hears it.
        if self.table == Some(TableClock::Here)
            && let Some(&Entry { record: Record::Input(Input::ClockConnected(connected)), .. }) = entry
        {
            self.outgoing.push(PairMessage::TableClock { connected });
        }
        // The arbiter stopped or restarted the table's clock here (6.11):
        // the partner board's clocks with it.
        if self.table == Some(TableClock::Here)
            && let Some(Entry { record: Record::Input(input @ (Input::Pause | Input::Resume)), .. }) = entry
        {
            self.outgoing.push(PairMessage::TableClockStopped { stopped: *input == Input::Pause });
        }
        // The partner's player pressed the table's clock here: sent on,
        // unless the clock stays stopped (6.11) for it.
        if self.table == Some(TableClock::Here)
            && let Some(&Entry { t, record: Record::Clock(side) }) = entry
            && side == !self.side
            && session.clock().is_none_or(|c| c.running().is_some())
        {
            let clock_ms = session.clock().map_or(0, |c| c.remaining(side, t));
            self.outgoing.push(PairMessage::Press { ply: session.game().ply(), clock_ms });
        }
        if let (Some(echo), Some(entry)) = (self.echo, entry)
            && entry.record == Record::Input(echo)
        {
            self.echo = None;
            self.claim_penalised = matches!(echo, Input::Claim { .. })
                && session.pending().iter().any(|e| matches!(e.kind, EventKind::Penalty { .. }));
            return;
        }
        // The partner rules the claim itself (`heard`), before it hears
        // what it led to here.
        self.outgoing.extend(self.ruled_claim(session, entry));
        for event in session.pending() {
            match &event.kind {
                EventKind::DrawOffer { side, .. } if *side == self.side => {
                    self.outgoing.push(PairMessage::DrawOffer { ply: session.game().ply() });
                }
                EventKind::Complete { ply, side, san, uci, clock_ms, .. } if *side == self.side => {
                    let msg = PairMessage::Move { ply: *ply, uci: uci.clone(), san: san.clone(), clock_ms: *clock_ms };
                    self.outgoing.push(msg);
                }
                EventKind::Complete { ply, side, clock_ms, .. } if *side != self.side => {
                    // The time shown already (a press at the table carried it) needs no setting.
                    if let Some((carried, Some(ms))) = self.carried
                        && carried == *ply
                        && *clock_ms != Some(ms)
                    {
                        let ms = ms.clamp(0, tactus_trace::range::CLOCK_MS.values.end().cast_signed());
                        self.clock_due = Some(Input::PartnerClock { side: *side, ms: ms.cast_unsigned() });
                    }
                    self.carried = None;
                }
                EventKind::Irregularity(_) | EventKind::Penalty { .. } => {
                    self.outgoing.push(PairMessage::Ruling { event: event.clone() });
                }
                EventKind::GameOver { result, reason, .. } => {
                    // A move's end (a mate, a draw by the position) the
                    // partner's board reaches by itself.
                    let off_board = match reason {
                        EndReason::Resignation => Some(OffBoardReason::Resignation),
                        EndReason::Agreement => Some(OffBoardReason::Agreement),
                        EndReason::Arbiter
                        | EndReason::FlagFall
                        | EndReason::IllegalMoves
                        | EndReason::ThreefoldRepetition
                        | EndReason::FiftyMoves => Some(OffBoardReason::Arbiter),
                        EndReason::Checkmate
                        | EndReason::Stalemate
                        | EndReason::InsufficientMaterial
                        | EndReason::DeadPosition
                        | EndReason::FivefoldRepetition
                        | EndReason::SeventyFiveMoves => None,
                    };
                    if let Some(reason) = off_board {
                        self.outgoing.push(PairMessage::Over { result: *result, reason });
                    }
                }
                _ => {}
            }
        }
    }

    /// A claim of this board's player that the game here ruled, as the
    /// partner is told of it: a draw by 9.2 or 9.3 or an incorrect claim
    /// (9.5.3), or an illegal move that stood taken back (A.5.2). A claim
    /// of nothing (no illegal move stands) is not sent.
    fn ruled_claim(&self, session: &Session, entry: Option<&Entry>) -> Option<PairMessage> {
        let Record::Input(Input::Claim { side, claim }) = entry?.record else { return None };
        if side != self.side {
            return None;
        }
        let ruled = |f: fn(&EventKind) -> bool| session.pending().iter().any(|e| f(&e.kind));
        let ply = match claim {
            // Counted (7.5.5): the game is back before the illegal move,
            // one ply earlier than where the claimant was to move.
            Claim::Illegal => {
                let counted = session.judging()
                    || ruled(|k| {
                        matches!(
                            k,
                            EventKind::Penalty { article: Article::A7_5_5, .. }
                                | EventKind::GameOver { reason: EndReason::IllegalMoves, .. }
                        )
                    });
                counted.then(|| session.game().ply() + 1)?
            }
            Claim::Threefold | Claim::Fifty => {
                let judged = ruled(|k| {
                    matches!(
                        k,
                        EventKind::GameOver { reason: EndReason::ThreefoldRepetition | EndReason::FiftyMoves, .. }
                            | EventKind::Penalty { article: Article::A9_5_3, .. }
                    )
                });
                judged.then(|| session.game().ply())?
            }
        };
        Some(PairMessage::Claim { ply, side, claim })
    }

    /// The table's clock here (on a serial line) was lost or is back: the
    /// game goes on timed by the boards, or with its presses again.
    pub fn noticed(&mut self, kind: &EventKind) {
        if self.table != Some(TableClock::Here) {
            return;
        }
        match kind {
            EventKind::DeviceLost { device: Device::Clock, .. } => {
                self.table_due = Some(Input::ClockConnected(false));
            }
            EventKind::DeviceBack { device: Device::Clock } => self.table_due = Some(Input::ClockConnected(true)),
            _ => {}
        }
    }

    /// Sends again this board's moves from ply `from` on, and its player's
    /// draw offer if it stands.
    fn send_from(&mut self, from: u32, session: &Session) {
        let game = session.game();
        let first = game.ply() - game.played.len() as u32;
        for (i, played) in game.played.iter().enumerate() {
            let ply = first + i as u32;
            if ply >= from && ply_side(ply) == self.side {
                let info = &played.info;
                self.link.send(PairMessage::Move {
                    ply,
                    uci: info.uci.clone(),
                    san: info.san.clone(),
                    clock_ms: played.clock_ms,
                });
            }
        }
        // An offer of this board's player that stands may not have reached
        // the partner before a restart here: told again. One the partner
        // has passed since was declined there; one it holds is not taken twice.
        if session.draw_offered() == Some(self.side) && !session.finished() {
            self.link.send(PairMessage::DrawOffer { ply: game.ply() });
        }
    }

    /// Says goodbye to the broker (within `deadline`) and reports how long
    /// the partner's moves waited here for the board to be ready.
    pub async fn stop(self, deadline: Instant) {
        if !self.waits.is_empty() {
            let mut ms: Vec<f64> = self.waits.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
            tracing::info!(
                "the partner's {} moves waited here p50 {:.1} ms, max {:.1} ms; {} messages from the broker refused",
                ms.len(),
                percentile(&mut ms, 0.5),
                percentile(&mut ms, 1.0),
                self.link.refused()
            );
        }
        self.stop.cancel();
        let _ = tokio::time::timeout_at(deadline.into(), self.link.shutdown()).await;
    }
}

/// A time a partner board's clock read, as a clock shows it.
fn clock_reading(ms: i64) -> u64 {
    u64::try_from(ms).unwrap_or(0).min(*tactus_trace::range::CLOCK_MS.values.end())
}

/// The side that makes ply `ply` (1 = White's first move).
fn ply_side(ply: u32) -> Color {
    if ply % 2 == 1 { Color::White } else { Color::Black }
}
