//! The game task. It routes what comes in — the board's and the clock's
//! inputs, the opponent's word, the mate searches' verdicts, the arbiter's
//! controls, the hall's pairings and the timers — to the game being played
//! ([`state::GameState`]: session, journal, clocks, time; every step
//! through its `commit`: an input is journaled before the core sees it,
//! and on disk before anything it leads to is announced), or, once a game
//! is over, to the handling between games ([`between`]: the game closed,
//! the next one set up).

use std::time::{Duration, Instant};

use tactus_core::{EventKind, Session};
use tactus_trace::{Entry, Input, Record};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::chess_clock::ChessClock;
use super::dgt::DgtEmulation;
use super::input::Incoming;
use super::opening::{Opened, Setup};
use super::opponent::{FromOpponent, Opponent};
use super::outputs::Outputs;
use super::time::GameTime;
use super::view::clock_line;
use super::watchdog::Watchdog;
use crate::{notify, terminal};

mod between;
mod state;

use between::{Between, Games, Hall};
use state::{GameState, Heard, Step};

/// Why the game task's loop returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// A signal, or the service manager, stopped the daemon.
    Stopped,
    /// A simulated board's trace or typed input ran out.
    InputClosed,
    /// A simulated board's game is over and its input has ended.
    GameOver,
}

/// Where the board's games stand.
enum Phase {
    /// A game is being played.
    Playing,
    /// The last game is over and closed, and still answers questions; on a
    /// sensor board the next begins once the board shows the starting
    /// position.
    Between(Between),
}

/// What the board's input queue still brings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BoardInput {
    /// Anything.
    Open,
    /// The board said it has nothing more to say (a simulated board's
    /// `end`); what it sent before still comes.
    Said,
    /// Nothing: the queue closed.
    Closed,
}

pub struct GameTask {
    /// The game being played; between games, the last one.
    state: GameState,
    phase: Phase,
    /// Whether the board's games stand in for an online server's.
    games: Games,
    /// The round's pairings, and the one held for the next game.
    hall: Hall,
    board: BoardInput,
}

impl GameTask {
    pub fn new(setup: Setup, opened: Opened, out: Outputs, time: GameTime) -> Self {
        let games = if setup.online && opened.recovered.is_none() { Games::StandIn } else { Games::Real };
        let hall = Hall::holding(&opened.session);
        GameTask {
            state: GameState::new(setup, opened, out, time),
            phase: Phase::Playing,
            games,
            hall,
            board: BoardInput::Open,
        }
    }

    /// The round's pairings the hall sends are taken from now on.
    pub fn take_pairings(&mut self, pairings: mpsc::Receiver<tactus_net::SentPairing>) {
        self.hall.listen(pairings);
    }

    /// The game as it stands.
    pub fn session(&self) -> &Session {
        self.state.session()
    }

    /// The game's address, its `Site` tag.
    pub fn site(&self) -> Option<&str> {
        self.state.site.as_deref()
    }

    /// Chess software follows the game as on a DGT board.
    pub fn emulate_dgt(&mut self, dgt: DgtEmulation) {
        self.state.out.dgt = Some(dgt);
    }

    /// The chess clock shows the game's times from now on (and a DGT
    /// client's texts).
    pub fn link_clock(&mut self, clock: ChessClock) {
        self.state.link_clock(clock);
    }

    /// The opponent takes its seat: it plays one side from now on.
    pub fn seat(&mut self, opponent: Opponent) {
        self.state.seat(opponent);
    }

    /// The first game begins (`recovered`: goes on).
    pub async fn begin(&mut self, recovered: bool) -> anyhow::Result<()> {
        self.state.begin(recovered).await
    }

    /// One input, to the game being played or between games.
    async fn take(&mut self, msg: Incoming) -> anyhow::Result<()> {
        let record = match &msg {
            Incoming::At(_, record) | Incoming::Exact(Entry { record, .. }) => Some(record),
            _ => None,
        };
        if record == Some(&Record::End) && self.board == BoardInput::Open {
            self.board = BoardInput::Said;
        }
        // An answer to the online server: between games too (a challenge).
        if let Some(&Record::Input(Input::Online(ask))) = record {
            self.state.ask_opponent(ask);
        }
        match msg {
            Incoming::Quiet(t) => self.state.quiet_before(t),
            Incoming::Notice(at, kind) => self.state.notice(at, kind).await,
            // A player's draw or resign button where no opponent is hosted:
            // the players at the board offer and resign to each other.
            Incoming::PlayerButton(at, button) if self.state.player().is_none() => {
                tracing::info!("the {button:?} button is for a player against an opponent the daemon hosts: none here");
                let why = tactus_core::NotNow::NoOpponent;
                self.state.say(at, EventKind::NotNow { why }).await;
            }
            msg => match self.phase {
                Phase::Playing => self.state.take(msg).await?,
                Phase::Between(_) => self.between_games(msg).await?,
            },
        }
        Ok(())
    }

    /// What the opponent said: its inputs are taken as any input is.
    async fn opponent_said(&mut self, said: FromOpponent) -> anyhow::Result<()> {
        match said {
            FromOpponent::Notice(kind) => self.take(Incoming::Notice(Instant::now(), kind)).await,
            FromOpponent::NewGame(game) => self.server_game(game).await,
            FromOpponent::Abandoned => {
                if matches!(self.phase, Phase::Playing) && !self.state.session().finished() {
                    let t = self.state.t(Instant::now());
                    self.state.commit(Step::Input(Entry { t, record: Record::End })).await?;
                }
                Ok(())
            }
            FromOpponent::Inputs(inputs) => {
                for (i, input) in inputs.into_iter().enumerate() {
                    // What came with a move that ended the game is past it.
                    if i > 0 && self.state.session().finished() {
                        break;
                    }
                    self.take(Incoming::At(Instant::now(), Record::Input(input))).await?;
                }
                self.state.opponent_taken();
                Ok(())
            }
        }
    }

    /// An arbiter's action from the page or the hall.
    async fn control(&mut self, control: tactus_net::Control) -> anyhow::Result<()> {
        let ours = self.state.out.broadcast.as_ref().is_some_and(|b| b.board() == control.board);
        if ours && matches!(self.phase, Phase::Playing) {
            self.take(Incoming::At(Instant::now(), Record::Input(control.input))).await?;
        }
        Ok(())
    }

    /// Plays until the daemon is stopped, or a simulated board ends.
    /// A sensor board plays game after game.
    pub async fn run(
        &mut self,
        mut inputs: mpsc::Receiver<Incoming>,
        mut controls: mpsc::Receiver<tactus_net::Control>,
        stop: &CancellationToken,
    ) -> anyhow::Result<Ended> {
        let mut watchdog = Watchdog::new();
        let mut next_tick = Instant::now();
        loop {
            // A simulated board's input may run out while the result waits
            // for the mate search: the game ends when its answer comes.
            if self.board == BoardInput::Closed && !self.state.judging() && !self.state.session().finished() {
                return Ok(Ended::InputClosed);
            }
            if matches!(self.phase, Phase::Playing) && self.state.session().finished() {
                self.close_game().await?;
            }
            // A simulated board's game is over and its input has ended: no
            // more questions can come.
            if self.board != BoardInput::Open && matches!(self.phase, Phase::Between(_)) {
                return Ok(Ended::GameOver);
            }
            let deadline = match self.phase {
                Phase::Playing => self.state.deadline(),
                Phase::Between(_) => None,
            };
            let wake = deadline.map(|d| self.state.instant(d));
            let sleep_until = [wake, watchdog.due(), Some(next_tick)].into_iter().flatten().min().unwrap_or(next_tick);
            tokio::select! {
                msg = inputs.recv(), if self.board != BoardInput::Closed => match msg {
                    Some(msg) => self.take(msg).await?,
                    None if self.state.judging() || matches!(self.phase, Phase::Between(_)) => {
                        // A recording that ended has nothing more to say.
                        self.board = BoardInput::Closed;
                        self.state.board_live();
                    }
                    None => return Ok(Ended::InputClosed),
                },
                Some(control) = controls.recv() => self.control(control).await?,
                Some(sent) = self.hall.next() => self.pairing(sent).await?,
                heard = self.state.heard() => match heard {
                    Heard::Opponent(said) => self.opponent_said(said).await?,
                    Heard::Verdict(answer) => self.take(Incoming::At(Instant::now(), Record::Input(answer))).await?,
                },
                _ = tokio::time::sleep_until(sleep_until.into()) => {
                    let now = Instant::now();
                    if let (Some(due), Some(wake)) = (deadline, wake) && now >= wake {
                        // Timers never run ahead of an input already waiting;
                        // what comes after the game's end waits for the next.
                        while !self.state.session().finished()
                            && let Ok(msg) = inputs.try_recv()
                        {
                            self.take(msg).await?;
                        }
                        if !self.state.session().finished() {
                            self.state.commit(Step::Timers(due)).await?;
                        }
                    }
                    if now >= next_tick {
                        if let Some(lang) = self.state.setup.status_line && matches!(self.phase, Phase::Playing)
                            && let Some(line) = clock_line(self.state.session(), self.state.t(now), lang)
                        {
                            terminal::set_status(&line);
                        }
                        crate::log::summarise(false);
                        next_tick = now + Duration::from_secs(1);
                    }
                    watchdog.tell(now);
                }
                () = stop.cancelled() => return Ok(Ended::Stopped),
            }
        }
    }

    /// Stops the game's parts, all at once, until `deadline` at most
    /// ([`GameState::stop`]).
    pub async fn stop(self, deadline: Instant) -> anyhow::Result<()> {
        if self.state.setup.status_line.is_some() {
            terminal::clear_status();
        }
        notify::stopping();
        self.state.stop(deadline).await
    }

    /// Waits until the daemon is stopped, serving what the outputs serve
    /// (and telling the watchdog it is alive).
    pub async fn serve_until(&self, stop: &CancellationToken) {
        let mut watchdog = Watchdog::new();
        let mut summaries = tokio::time::interval(Duration::from_secs(10));
        loop {
            let ping = async {
                match watchdog.due() {
                    Some(due) => tokio::time::sleep_until(due.into()).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = stop.cancelled() => return,
                () = ping => watchdog.tell(Instant::now()),
                _ = summaries.tick() => crate::log::summarise(false),
            }
        }
    }

    /// Whether the page and feeds are served over HTTP.
    pub fn serving(&self) -> bool {
        self.state.out.broadcast.as_ref().is_some_and(|b| b.serves_http())
    }
}
