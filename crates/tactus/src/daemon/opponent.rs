//! The opponent slot: who plays the other side when it is not a person at
//! the board. The game task holds at most one; it waits for what the
//! opponent says ([`Opponent::next`]) alongside its other inputs, tells it
//! every step the game takes ([`Opponent::committed`]) — so that an
//! opponent far away can be sent the player's completed move — and stops
//! it with the rest of the daemon.
//!
//! What an opponent says comes in as inputs like any other: journaled,
//! then ruled on, so a game against any opponent replays exactly.
//!
//! The game task names no host: what it needs of an opponent — to start
//! one, to hear it, to tell it — is a method here.

use std::time::Instant;

use shakmaty::Color;
use tactus_core::{EventKind, Session};
use tactus_engine::conduct::Stance;
use tactus_trace::{Entry, GameResult, Input, Ms, OffBoardReason, OnlineAsk, Record, Request};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::engine::{Answered, EngineHost, Reply};
use super::lichess::LichessHost;
use super::partner::PartnerHost;
use crate::config::OpponentPlan;

/// Who plays the other side.
pub enum Opponent {
    /// A UCI engine on this machine.
    Engine(EngineHost),
    /// A player on the partner board of the same hall (two-board play).
    Partner(PartnerHost),
    /// A player on Lichess, through the Board API.
    Lichess(LichessHost),
}

/// The game a restart recovered, as an opponent goes on with it.
#[derive(Clone, Copy)]
pub struct Recovered<'a> {
    pub session: &'a Session,
    /// Its `Site` tag: an online game is found again by it.
    pub site: Option<&'a str>,
}

/// Where the game stands when the opponent is told of it or asked.
#[derive(Clone, Copy)]
pub struct Now<'a> {
    pub session: &'a Session,
    /// The daemon's game number: what is said for an earlier game is stale.
    pub game: u32,
    /// Game time.
    pub t: Ms,
    /// When the latest input came in.
    pub since: Instant,
}

/// What the opponent says.
pub enum FromOpponent {
    /// Inputs for the game, taken in order; one after the first only while
    /// the game is not over (9.1.2.1: a draw offer made with the move).
    Inputs(Vec<Input>),
    /// What it says about itself (lost, back), or about the game besides
    /// its inputs: published, not journaled.
    Notice(EventKind),
    /// A game it starts (a server's game): the board plays it from now on.
    NewGame(NewGame),
    /// The game ended with no result (aborted): the journal ends.
    Abandoned,
}

/// A game the opponent starts, as the board begins it.
pub struct NewGame {
    /// The side the opponent plays.
    pub side: Color,
    pub white: String,
    pub black: String,
    /// `1800+5`; none for a game without a clock.
    pub time_control: Option<String>,
    /// The game's address, its `Site` tag: a restart finds the game by it.
    pub site: String,
}

impl Opponent {
    /// Starts the opponent `plan` names, if any, its tasks on `tasks` and
    /// stopped by `stop` (the daemon's one root); an online one goes on
    /// with the `recovered` game when it is one of its server's.
    pub async fn start(
        plan: &OpponentPlan,
        chess960: bool,
        recovered: Option<Recovered<'_>>,
        tasks: &TaskTracker,
        stop: &CancellationToken,
    ) -> anyhow::Result<Option<Opponent>> {
        Ok(Some(match plan {
            OpponentPlan::None => return Ok(None),
            OpponentPlan::Engine(engine) => Opponent::Engine(EngineHost::start(engine, chess960, tasks, stop).await?),
            OpponentPlan::Partner(pair) => Opponent::Partner(PartnerHost::start(pair, stop, recovered.is_some())?),
            OpponentPlan::Lichess(online) => {
                let resume = recovered.and_then(|game| {
                    let moves = game.session.game().played.iter().map(|p| p.info.uci.clone()).collect();
                    LichessHost::resume_of(online.url.as_str(), game.site, moves)
                });
                Opponent::Lichess(LichessHost::start(online, resume, stop).await?)
            }
        }))
    }

    /// The side it plays.
    pub fn side(&self) -> Color {
        match self {
            Opponent::Engine(engine) => engine.side(),
            Opponent::Partner(partner) => partner.side(),
            Opponent::Lichess(online) => online.side(),
        }
    }

    /// It takes its seat at the game as it stands (a recovered game goes
    /// on at the level last set at the board).
    pub fn seat(&mut self, now: Now<'_>) {
        match self {
            Opponent::Engine(engine) => {
                if let Some(level) = now.session.engine_level() {
                    engine.set_level(level);
                }
                engine.ask(now.session, now.game, now.t, now.since);
            }
            Opponent::Partner(partner) => partner.seat(now.session),
            Opponent::Lichess(online) => online.seat(now.session),
        }
    }

    /// What it says next, for the game `now`; what is stale by then (an
    /// answer for an earlier game, or a position since taken back) is
    /// passed over.
    pub async fn next(&mut self, now: Now<'_>) -> FromOpponent {
        match self {
            Opponent::Engine(engine) => loop {
                let answer = match engine.next().await {
                    Reply::Answer(answer) => answer,
                    Reply::Notice(kind) => return FromOpponent::Notice(kind),
                };
                if answer.asked.game != now.game {
                    continue;
                }
                if let Answered::Hint(uci) = answer.answered {
                    // A hint for a position since taken back is for no position.
                    if answer.asked.take_backs == now.session.take_backs() {
                        return FromOpponent::Inputs(vec![Input::Hint { ply: answer.asked.ply, uci }]);
                    }
                    continue;
                }
                let Some(since) = engine.take(&answer) else { continue };
                let Answered::Move(chosen) = answer.answered else { continue };
                let side = engine.side();
                let inputs = match chosen.stance {
                    Stance::Resign => {
                        tracing::info!("the engine resigns");
                        vec![Input::Result { result: GameResult::win_for(!side), reason: OffBoardReason::Resignation }]
                    }
                    Stance::Play => vec![Input::Opponent { ply: answer.asked.ply, uci: chosen.uci, eval: chosen.eval }],
                    Stance::OfferDraw => vec![
                        Input::Opponent { ply: answer.asked.ply, uci: chosen.uci, eval: chosen.eval },
                        Input::DrawOffer { side },
                    ],
                };
                engine.choosing(since, chosen.search, chosen.restarts, chosen.san);
                return FromOpponent::Inputs(inputs);
            },
            Opponent::Partner(partner) => partner.next(now).await,
            Opponent::Lichess(online) => online.next(now).await,
        }
    }

    /// A device said something about itself (the chess clock lost or back).
    pub fn noticed(&mut self, kind: &EventKind) {
        if let Opponent::Partner(partner) = self {
            partner.noticed(kind);
        }
    }

    /// A player's answer or request to an online server (a challenge too,
    /// between games): only an online opponent has one to answer.
    pub fn asked(&mut self, ask: OnlineAsk, session: &Session) {
        if let Opponent::Lichess(online) = self {
            online.asked(ask, session);
        }
    }

    /// What it said last has been taken and announced.
    pub fn taken(&mut self) {
        match self {
            Opponent::Engine(engine) => engine.announced(),
            Opponent::Partner(_) => {}
            Opponent::Lichess(online) => online.announced(),
        }
    }

    /// The game took a step (`entry`, or its timers ran when `None`): the
    /// core has ruled on it and its events are about to be announced.
    pub fn committed(&mut self, now: Now<'_>, entry: Option<&Entry>) {
        match self {
            Opponent::Engine(engine) => {
                // The engine thinks while the journal reaches the disk.
                engine.ask(now.session, now.game, now.t, now.since);
                match entry.map(|e| &e.record) {
                    Some(Record::Input(Input::Request(Request::Hint))) => engine.ask_hint(now.session, now.game),
                    Some(&Record::Input(Input::EngineLevel(level))) => engine.set_level(level),
                    _ => {}
                }
            }
            Opponent::Partner(partner) => partner.committed(now.session, entry),
            Opponent::Lichess(online) => online.committed(now.session, entry),
        }
    }

    /// Its answer to a draw offer the player made (9.1.2): its own offer,
    /// which accepts it; none to decline (by playing on).
    pub fn answer_offer(&self, session: &Session) -> Option<Input> {
        match self {
            Opponent::Engine(engine) => {
                (engine.accepts_draw() && !session.finished()).then_some(Input::DrawOffer { side: engine.side() })
            }
            // The partner's player answers at their own board.
            Opponent::Partner(_) => None,
            // The server answers for the player far away.
            Opponent::Lichess(_) => None,
        }
    }

    /// A new game on this board, `now` at its start.
    pub fn new_game(&mut self, now: Now<'_>, chess960: bool) {
        match self {
            Opponent::Engine(engine) => {
                engine.new_game(chess960);
                engine.ask(now.session, now.game, now.t, now.since);
            }
            Opponent::Partner(partner) => partner.seat(now.session),
            Opponent::Lichess(online) => online.seat(now.session),
        }
    }

    /// Stops it, until `deadline`; one still running then is ended.
    pub async fn stop(self, deadline: Instant) {
        match self {
            Opponent::Engine(engine) => engine.stop(deadline).await,
            Opponent::Partner(partner) => partner.stop(deadline).await,
            Opponent::Lichess(online) => online.stop(deadline).await,
        }
    }
}
