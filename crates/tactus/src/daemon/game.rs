//! The game task: it owns the game being played — the core's session, its
//! journal, the outputs, the clock link and the opponent — and takes one
//! input at a time. Every step goes through `GameTask::commit`: an input
//! is journaled before the core sees it, and on disk before anything it
//! leads to is announced.

use std::time::{Duration, Instant};

use shakmaty::Bitboard;
use tactus_core::{Event, EventKind, Session};
use tactus_trace::{Entry, Input, Ms, Record};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::chess_clock::ChessClock;
use super::date::{pgn_date, unix_seconds};
use super::dgt::DgtEmulation;
use super::input::{Incoming, stamp};
use super::journal::JournalThread;
use super::lichess::LichessHost;
use super::mate::MateSearches;
use super::opening::{Opened, Setup, create_journal};
use super::opponent::{FromOpponent, NewGame, Now, Opponent};
use super::outputs::Outputs;
use super::pairing::{Offer, Seating};
use super::time::{BoardTime, GameTime};
use super::view::{clock_line, diagram};
use super::watchdog::Watchdog;
use crate::{notify, terminal};

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

/// Between two games: what the board shows.
enum Phase {
    Playing,
    /// The last game is over and closed, and still answers questions; on a
    /// sensor board the next begins once the board shows the starting
    /// position.
    Between {
        shows: Bitboard,
        /// The clock's own inputs meanwhile (a DGT clock started, or set,
        /// before the last piece is back): the next game begins with them.
        clock: Vec<Input>,
    },
}

pub struct GameTask {
    session: Session,
    mate: MateSearches,
    /// Who plays the other side, when not a person at the board.
    opponent: Option<Opponent>,
    /// The game's address (its `Site` tag): a game an opponent starts again
    /// after a restart (an online game) is the journal's game.
    site: Option<String>,
    /// When the latest input came in (for the opponent's latency).
    input_at: Instant,
    journal: Option<JournalThread>,
    out: Outputs,
    clock: Option<ChessClock>,
    time: GameTime,
    last_t: Ms,
    setup: Setup,
    phase: Phase,
    games: u32,
    /// Whether a clock is there to press, as last said: each game begins
    /// with it.
    clock_connected: bool,
    board_time: BoardTime,
    /// The board said it has nothing more to say (a simulated board's `end`).
    board_done: bool,
    /// The game is a stand-in until an online server's starts (`Setup::online`).
    stand_in: bool,
    /// The round's pairings the hall sends, and which the board takes.
    pairings: Option<mpsc::Receiver<tactus_net::SentPairing>>,
    seating: Seating,
    /// A pairing taken for the next game (the last is over, or this one is
    /// an earlier round's): journaled and said when the next game begins.
    next_pairing: Option<tactus_trace::Pairing>,
}

/// What the board shows of a stand-in game, as inputs for the game `next`
/// that replaces it: the squares that differ from its start, and a press
/// for each move the stand-in completed (the player's presses, meant for
/// the new game).
fn carried_over(stand_in: &Session, next: &Session) -> Vec<Record> {
    let shows = stand_in.occupancy();
    let mut records: Vec<Record> = (next.occupancy() ^ shows)
        .into_iter()
        .map(|sq| Record::Edge { sq, on: shows.contains(sq), piece: None })
        .collect();
    records.extend(stand_in.game().played.iter().map(|p| Record::Clock(p.info.side)));
    records
}

/// What the opponent says next; never, without one.
async fn next_said(opponent: &mut Option<Opponent>, now: Now<'_>) -> FromOpponent {
    match opponent {
        Some(opponent) => opponent.next(now).await,
        None => std::future::pending().await,
    }
}

/// The next pairing the hall sends; never, without the hall.
async fn next_pairing(
    pairings: &mut Option<mpsc::Receiver<tactus_net::SentPairing>>,
) -> Option<tactus_net::SentPairing> {
    match pairings {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// One step the game takes.
enum Step {
    /// An input, at its game time.
    Input(Entry),
    /// The core's timers, due at this game time.
    Timers(Ms),
}

impl GameTask {
    pub fn new(setup: Setup, opened: Opened, out: Outputs, time: GameTime) -> Self {
        let stand_in = setup.online && opened.recovered.is_none();
        // A recovered game's round is the board's.
        let seating = Seating::holding(opened.session.game().pairing.as_ref());
        GameTask {
            session: opened.session,
            mate: MateSearches::new(),
            opponent: None,
            site: opened.header.site.clone(),
            input_at: Instant::now(),
            journal: Some(opened.journal),
            out,
            clock: None,
            time,
            last_t: opened.last_t,
            clock_connected: setup.clock_connected,
            // Until its thread promises quiet, a recording may say anything.
            board_time: match setup.source.trace {
                Some(_) => BoardTime::Recorded { quiet_before: opened.last_t },
                None => BoardTime::Live,
            },
            seating,
            setup,
            phase: Phase::Playing,
            games: 1,
            board_done: false,
            stand_in,
            pairings: None,
            next_pairing: None,
        }
    }

    /// The round's pairings the hall sends are taken from now on.
    pub fn take_pairings(&mut self, pairings: mpsc::Receiver<tactus_net::SentPairing>) {
        self.pairings = Some(pairings);
    }

    /// A pairing the hall sent: taken if it is newer than the board's
    /// (`pairing.rs`), for the game being played when that is the round's
    /// game — not begun, or begun before any pairing came, or the same
    /// round corrected — else for the next game.
    async fn pairing(&mut self, sent: tactus_net::SentPairing) -> anyhow::Result<()> {
        let pairing = match self.seating.offer(sent) {
            Offer::Take(pairing) => pairing,
            Offer::Same => return Ok(()),
            Offer::Stale(why) => {
                tracing::warn!("a pairing from the hall was refused: {why}");
                return Ok(());
            }
        };
        let game = self.session.game();
        let this_game = matches!(self.phase, Phase::Playing)
            && !self.session.finished()
            && (game.played.is_empty() || game.pairing.as_ref().is_none_or(|p| p.round == pairing.round));
        if this_game {
            self.next_pairing = None;
            let t = self.time.t(Instant::now()).max(self.last_t);
            self.commit(Step::Input(Entry { t, record: Record::Pairing(Box::new(pairing)) })).await
        } else {
            tracing::info!(
                "the pairing of round {}, board {}, is for the next game on this board",
                pairing.round,
                pairing.board
            );
            self.next_pairing = Some(pairing);
            Ok(())
        }
    }

    /// Where the game stands, for the opponent.
    fn now(session: &Session, games: u32, t: Ms, since: Instant) -> Now<'_> {
        Now { session, game: games, t, since }
    }

    /// The game as it stands.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Chess software follows the game as on a DGT board.
    pub fn emulate_dgt(&mut self, dgt: DgtEmulation) {
        self.out.dgt = Some(dgt);
    }

    /// The chess clock shows the game's times from now on (and a DGT
    /// client's texts).
    pub fn link_clock(&mut self, clock: ChessClock) {
        if let Some(dgt) = &self.out.dgt {
            dgt.attach_clock(clock.texts());
        }
        self.clock = Some(clock);
    }

    /// The opponent takes its seat: it plays one side from now on.
    pub fn seat(&mut self, mut opponent: Opponent) {
        opponent.seat(Self::now(&self.session, self.games, self.last_t, self.input_at));
        self.opponent = Some(opponent);
    }

    /// The recovered game, if it is an online game of the server at `url`:
    /// its id and every move it holds.
    pub fn online_resume(&self, url: &str) -> Option<tactus_lichess::play::Resume> {
        let moves = self.session.game().played.iter().map(|p| p.info.uci.clone()).collect();
        LichessHost::resume_of(url, self.site.as_deref(), moves)
    }

    /// The opponent started a game (a server's): the journal's game goes on
    /// (a restart), or a new game begins with its players and clock, the
    /// opponent's side played as an engine's — its moves guided onto the
    /// board and completed when the board shows them.
    async fn opponent_game(&mut self, game: NewGame) -> anyhow::Result<()> {
        let same = self.site.as_deref() == Some(game.site.as_str());
        let mut carried = Vec::new();
        if !(same && matches!(self.phase, Phase::Playing) && !self.session.finished()) {
            // What the board shows of the stand-in's (a move made as the
            // server's game was starting) is the new game's, not lost.
            let stand_in = std::mem::take(&mut self.stand_in);
            if let Some(journal) = self.journal.take() {
                let path = journal.close().await?;
                // A game not begun on the board is no game, and a stand-in's
                // moves go into the new one: nothing is lost.
                if matches!(self.phase, Phase::Playing) && (stand_in || self.session.game().played.is_empty()) {
                    let _ = std::fs::remove_file(&path);
                }
            }
            let mut header = self.setup.header.clone();
            header.date = Some(pgn_date(unix_seconds()));
            header.white = Some(game.white);
            header.black = Some(game.black);
            header.time_control = game.time_control;
            header.site = Some(game.site.clone());
            let mut policy = self.setup.policy.clone();
            policy.engine = Some(game.side);
            policy.engine_override = false;
            // The server judges take-backs, and its clock is the game's.
            policy.online = true;
            policy.server_clock = true;
            policy.record(&mut header);
            let next = Session::new(&header, policy)?;
            if stand_in {
                carried = carried_over(&self.session, &next);
            }
            self.session = next;
            self.mate.new_game();
            self.journal = Some(create_journal(&self.setup, &header, self.games).await?);
            self.games += 1;
            self.time = GameTime::new(0, self.setup.speed);
            self.last_t = 0;
            self.phase = Phase::Playing;
            self.site = Some(game.site);
            if let Some(opponent) = &mut self.opponent {
                opponent.new_game(Self::now(&self.session, self.games, self.last_t, self.input_at), false);
            }
            if let Some(b) = &self.out.broadcast {
                b.new_game(&header);
            }
            self.announce(false).await?;
            self.begin(false).await?;
        }
        // The server's clock runs, whatever the board's did while the
        // daemon was away.
        if self.session.clock().is_some_and(|c| c.running().is_none()) {
            let t = self.time.t(Instant::now()).max(self.last_t);
            self.commit(Step::Input(Entry { t, record: Record::Input(Input::Resume) })).await?;
        }
        self.carry_in(carried).await
    }

    /// What the stand-in's board showed, as the new game's inputs: the
    /// board first, read as a move once it holds still; then the presses,
    /// which complete it.
    async fn carry_in(&mut self, carried: Vec<Record>) -> anyhow::Result<()> {
        let (edges, presses): (Vec<Record>, Vec<Record>) =
            carried.into_iter().partition(|r| matches!(r, Record::Edge { .. }));
        for record in edges {
            self.commit(Step::Input(Entry { t: self.last_t, record })).await?;
        }
        if !presses.is_empty() {
            let policy = &self.setup.policy;
            self.commit(Step::Timers(self.last_t + policy.debounce_ms + policy.settle_ms)).await?;
        }
        for record in presses {
            self.commit(Step::Input(Entry { t: self.last_t, record })).await?;
        }
        Ok(())
    }

    /// What the opponent said: its inputs are taken as any input is.
    async fn opponent_said(&mut self, said: FromOpponent) -> anyhow::Result<()> {
        match said {
            FromOpponent::Notice(kind) => self.take(Incoming::Notice(Instant::now(), kind)).await,
            FromOpponent::NewGame(game) => self.opponent_game(game).await,
            FromOpponent::Abandoned => {
                if matches!(self.phase, Phase::Playing) && !self.session.finished() {
                    let t = self.time.t(Instant::now()).max(self.last_t);
                    self.commit(Step::Input(Entry { t, record: Record::End })).await?;
                }
                Ok(())
            }
            FromOpponent::Inputs(inputs) => {
                for (i, input) in inputs.into_iter().enumerate() {
                    if i > 0 && self.session.finished() {
                        break;
                    }
                    self.take(Incoming::At(Instant::now(), Record::Input(input))).await?;
                }
                if let Some(opponent) = &mut self.opponent {
                    opponent.taken();
                }
                Ok(())
            }
        }
    }

    /// A sensor board's game starts when Black presses, starting White's
    /// clock, as players start a clock — not when the daemon starts. A
    /// replayed trace has no hands to restart a recovered game's clock.
    pub async fn begin(&mut self, recovered: bool) -> anyhow::Result<()> {
        // A recovered game may wait for a search its crash cut short.
        self.mate.ask(&self.session);
        let input = match (recovered, self.setup.real_board) {
            (false, true) => Input::Pause,
            (true, false) if self.setup.source.trace.is_some() => Input::Resume,
            _ => {
                self.show_clock();
                return Ok(());
            }
        };
        self.commit(Step::Input(Entry { t: self.last_t, record: Record::Input(input) })).await?;
        if !recovered && !self.clock_connected {
            let input = Input::ClockConnected(false);
            self.commit(Step::Input(Entry { t: self.last_t, record: Record::Input(input) })).await?;
        }
        Ok(())
    }

    fn show_clock(&self) {
        if let Some(clock) = &self.clock {
            clock.show(&self.session, self.last_t);
        }
    }

    fn journal(&self) -> anyhow::Result<&JournalThread> {
        self.journal.as_ref().ok_or_else(|| anyhow::anyhow!("no game is being journaled"))
    }

    /// One input: journaled, then the core, then the world.
    async fn take(&mut self, msg: Incoming) -> anyhow::Result<()> {
        if let Incoming::Quiet(t) = msg {
            if let BoardTime::Recorded { quiet_before } = &mut self.board_time {
                *quiet_before = t;
            }
            return Ok(());
        }
        if matches!(&msg, Incoming::At(_, Record::End) | Incoming::Exact(Entry { record: Record::End, .. })) {
            self.board_done = true;
        }
        // An answer to the online server: between games too (a challenge).
        if let (
            Some(Opponent::Lichess(online)),
            Incoming::At(_, Record::Input(Input::Online(ask)))
            | Incoming::Exact(Entry { record: Record::Input(Input::Online(ask)), .. }),
        ) = (&mut self.opponent, &msg)
        {
            online.asked(*ask, &self.session);
        }
        if let Incoming::Notice(at, kind) = msg {
            if let Some(opponent) = &mut self.opponent {
                opponent.noticed(&kind);
            }
            // Said and shown in any phase; the game's time is not advanced.
            let event = Event { t: self.time.t(at).max(self.last_t), kind };
            self.out.publish(std::slice::from_ref(&event)).await;
            return Ok(());
        }
        // A player's draw or resign button where no opponent is hosted: the
        // players at the board offer and resign to each other; said so.
        if let (Incoming::PlayerButton(at, button), None) = (&msg, &self.opponent) {
            tracing::info!("the {button:?} button is for a player against an opponent the daemon hosts: none here");
            let why = tactus_core::NotNow::NoOpponent;
            let event = Event { t: self.time.t(*at).max(self.last_t), kind: EventKind::NotNow { why } };
            self.out.publish(std::slice::from_ref(&event)).await;
            return Ok(());
        }
        let player = self.opponent.as_ref().map(|o| !o.side());
        if let Phase::Between { shows, clock } = &mut self.phase {
            let (t, record) = match msg {
                Incoming::At(at, record) => (self.time.t(at).max(self.last_t), record),
                Incoming::Exact(Entry { t, record }) => (t.max(self.last_t), record),
                // The game that ended answers it changes nothing now.
                Incoming::PlayerButton(at, button) => match player {
                    Some(side) => (self.time.t(at).max(self.last_t), Record::Input(button.input(side))),
                    None => return Ok(()),
                },
                Incoming::PauseButton(_) | Incoming::Notice(..) | Incoming::Quiet(_) => {
                    return Ok(());
                }
            };
            match record {
                Record::Edge { sq, on, .. } if self.setup.real_board => {
                    shows.set(sq, on);
                    if *shows == self.setup.start_occupancy()? {
                        let clock = std::mem::take(clock);
                        self.next_game().await?;
                        for input in clock {
                            self.commit(Step::Input(Entry { t: self.last_t, record: Record::Input(input) })).await?;
                        }
                    }
                }
                Record::Input(Input::ClockConnected(connected)) => self.clock_connected = connected,
                Record::Input(input @ (Input::SetClock { .. } | Input::Pause | Input::Resume)) => {
                    // The latest of each kind counts.
                    let running = |i: &Input| matches!(i, Input::Pause | Input::Resume);
                    clock.retain(|kept| if running(&input) { !running(kept) } else { running(kept) });
                    clock.push(input);
                }
                // A player's question or button: the game that ended answers.
                Record::Input(input) => self.after_the_end(Entry { t, record: Record::Input(input) }).await,
                _ => {}
            }
            return Ok(());
        }
        self.input_at = match msg {
            Incoming::At(at, _)
            | Incoming::PauseButton(at)
            | Incoming::PlayerButton(at, _)
            | Incoming::Notice(at, _) => at,
            Incoming::Exact(_) | Incoming::Quiet(_) => Instant::now(),
        };
        let Some(entry) = stamp(msg, &self.session, &self.time, self.last_t, player) else { return Ok(()) };
        let offered = match entry.record {
            Record::Input(Input::DrawOffer { side }) => Some(side),
            _ => None,
        };
        self.commit(Step::Input(entry)).await?;
        // The opponent answers a player's draw offer at once: it accepts
        // with an offer of its own, or declines by its next move.
        if let Some(side) = offered
            && let Some(opponent) = &self.opponent
            && side != opponent.side()
            && let Some(accept) = opponent.answer_offer(&self.session)
        {
            self.commit(Step::Input(Entry { t: self.last_t, record: Record::Input(accept) })).await?;
        }
        Ok(())
    }

    /// One step of the game, and the rule every step keeps: an input is
    /// journaled before the core rules on it, and what a step leads to is
    /// announced only once what led to it is on disk — so that the journal
    /// alone replays, and a restart recovers, to the game as it stands.
    /// The opponent hears of each step in between, and thinks while the
    /// journal reaches the disk.
    async fn commit(&mut self, step: Step) -> anyhow::Result<()> {
        let entry = match step {
            Step::Input(entry) => {
                if entry.record == Record::End && !self.session.finished() {
                    // The timers due by the end run first. A flag that falls
                    // then may leave the result to the mate search: its
                    // answer ends the game, journaled before any end (a
                    // replay reads nothing after an end); a game a timer
                    // ended is journaled as ended already.
                    Box::pin(self.commit(Step::Timers(entry.t))).await?;
                    if self.session.judging() || self.session.finished() {
                        return Ok(());
                    }
                }
                self.last_t = entry.t;
                if let Record::Input(Input::ClockConnected(connected)) = entry.record {
                    self.clock_connected = connected;
                }
                self.journal()?.append(entry.clone()).await?;
                self.session.handle(entry.clone());
                Some(entry)
            }
            Step::Timers(due) => {
                let t = due.max(self.last_t);
                self.last_t = t;
                self.session.advance(t);
                if self.session.finished() {
                    // A game a timer ended (a flag fall) ends in the journal
                    // too, so that replaying it, or recovering it, ends it
                    // the same way.
                    self.journal()?.append(Entry { t, record: Record::End }).await?;
                }
                None
            }
        };
        if let Some(opponent) = &mut self.opponent {
            opponent.committed(Self::now(&self.session, self.games, self.last_t, self.input_at), entry.as_ref());
        }
        self.announce(entry.is_none()).await
    }

    /// An input to the game that is over: answered (a question) or told it
    /// changes nothing; not journaled, the journal is closed.
    async fn after_the_end(&mut self, entry: Entry) {
        self.last_t = entry.t;
        self.session.handle(entry);
        let events: Vec<Event> = self.session.drain().collect();
        self.out.publish(&events).await;
    }

    /// Publishes what the core has to say, once what led to it is on disk:
    /// for what timers said, that they ran up to now (a game they ended
    /// has its `end` already) — so that nothing is said twice.
    async fn announce(&mut self, timer: bool) -> anyhow::Result<()> {
        let events: Vec<Event> = self.session.drain().collect();
        if !events.is_empty() {
            let journal = self.journal()?;
            if timer && !self.session.finished() {
                journal.append(Entry { t: self.last_t, record: Record::Timers }).await?;
            }
            journal.sync().await?;
        }
        // Before the events: whoever reads of a move there and asks the
        // emulated board finds the move on it.
        if let Some(dgt) = &mut self.out.dgt {
            dgt.show(&self.session);
            dgt.show_clock(&self.session, self.last_t);
        }
        if !events.is_empty() {
            if self.setup.draw_board {
                for e in &events {
                    if let EventKind::Position { fen, .. } = &e.kind
                        && let Some(board) = diagram(fen)
                    {
                        let _ = terminal::print_lines(terminal::Stream::Stderr, &board);
                    }
                }
            }
            self.out.publish(&events).await;
        }
        self.show_clock();
        self.mate.ask(&self.session);
        Ok(())
    }

    /// An arbiter's action from the page or the hall.
    async fn control(&mut self, control: tactus_net::Control) -> anyhow::Result<()> {
        let ours = self.out.broadcast.as_ref().is_some_and(|b| b.board() == control.board);
        if ours && matches!(self.phase, Phase::Playing) {
            self.take(Incoming::At(Instant::now(), Record::Input(control.input))).await?;
        }
        Ok(())
    }

    /// The game is over: its journal is closed (the trace stays).
    async fn close_game(&mut self) -> anyhow::Result<()> {
        if let Some(journal) = self.journal.take() {
            let path = journal.close().await?;
            tracing::info!("the game is over; its trace is {}", path.display());
        }
        Ok(())
    }

    /// The board shows the starting position again: a new game.
    async fn next_game(&mut self) -> anyhow::Result<()> {
        let mut header = self.setup.header.clone();
        header.date = Some(pgn_date(unix_seconds()));
        self.session = Session::new(&header, self.setup.policy.clone())?;
        // An answer still on its way belongs to the last game.
        self.mate.new_game();
        self.journal = Some(create_journal(&self.setup, &header, self.games).await?);
        self.games += 1;
        self.time = GameTime::new(0, self.setup.speed);
        self.last_t = 0;
        if let Some(opponent) = &mut self.opponent {
            let chess960 = header.variant == tactus_trace::Variant::Chess960;
            opponent.new_game(Self::now(&self.session, self.games, self.last_t, self.input_at), chess960);
        }
        self.phase = Phase::Playing;
        if let Some(b) = &self.out.broadcast {
            b.new_game(&header);
        }
        tracing::info!("the board shows the starting position: a new game");
        self.announce(false).await?;
        self.begin(false).await?;
        // Said at set-up, before the first move.
        if let Some(pairing) = self.next_pairing.take() {
            let entry = Entry { t: self.last_t, record: Record::Pairing(Box::new(pairing)) };
            self.commit(Step::Input(entry)).await?;
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
        // A simulated board's input may run out while the result waits for
        // the mate search: the game ends when its answer comes.
        let mut inputs_open = true;
        loop {
            if !inputs_open && !self.mate.waiting() && !self.session.finished() {
                return Ok(Ended::InputClosed);
            }
            if matches!(self.phase, Phase::Playing) && self.session.finished() {
                self.close_game().await?;
                self.phase = Phase::Between { shows: self.session.occupancy(), clock: Vec::new() };
            }
            // A simulated board's game is over and its input has ended: no
            // more questions can come.
            if (!inputs_open || self.board_done) && matches!(self.phase, Phase::Between { .. }) {
                return Ok(Ended::GameOver);
            }
            let deadline = match self.phase {
                Phase::Playing => self.session.next_deadline().filter(|&due| self.board_time.lets_run(due)),
                Phase::Between { .. } => None,
            };
            let wake = deadline.map(|d| self.time.instant(d));
            let sleep_until = [wake, watchdog.due(), Some(next_tick)].into_iter().flatten().min().unwrap_or(next_tick);
            tokio::select! {
                msg = inputs.recv(), if inputs_open => match msg {
                    Some(msg) => self.take(msg).await?,
                    None if self.mate.waiting() || matches!(self.phase, Phase::Between { .. }) => {
                        // A recording that ended has nothing more to say.
                        inputs_open = false;
                        self.board_time = BoardTime::Live;
                    }
                    None => return Ok(Ended::InputClosed),
                },
                Some(control) = controls.recv() => self.control(control).await?,
                Some(sent) = next_pairing(&mut self.pairings) => self.pairing(sent).await?,
                said = next_said(&mut self.opponent, Self::now(&self.session, self.games, self.last_t, self.input_at)) => {
                    self.opponent_said(said).await?;
                }
                (question, verdict) = self.mate.next() => {
                    let answer = Input::Verdict { ply: question.ply, side: question.side, verdict };
                    self.take(Incoming::At(Instant::now(), Record::Input(answer))).await?;
                }
                _ = tokio::time::sleep_until(sleep_until.into()) => {
                    let now = Instant::now();
                    if let (Some(due), Some(wake)) = (deadline, wake) && now >= wake {
                        // Timers never run ahead of an input already waiting;
                        // what comes after the game's end waits for the next.
                        while !self.session.finished()
                            && let Ok(msg) = inputs.try_recv()
                        {
                            self.take(msg).await?;
                        }
                        if !self.session.finished() {
                            self.commit(Step::Timers(due)).await?;
                        }
                    }
                    if now >= next_tick {
                        if self.setup.status_line && matches!(self.phase, Phase::Playing)
                            && let Some(line) = clock_line(&self.session, self.time.t(now).max(self.last_t))
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

    /// Stops the clock link, the opponent, the journal (a game still being
    /// played stays to be recovered), the outputs and the mate searches,
    /// all at once, until
    /// `deadline` at most: a part still stuck then is left behind.
    pub async fn stop(mut self, deadline: Instant) -> anyhow::Result<()> {
        if self.setup.status_line {
            terminal::clear_status();
        }
        notify::stopping();
        let (clock, opponent, journal) = (self.clock.take(), self.opponent.take(), self.journal.take());
        let (_, _, journaled, _, _) = tokio::join!(
            async {
                if let Some(clock) = clock {
                    clock.stop(deadline).await;
                }
            },
            async {
                if let Some(opponent) = opponent {
                    opponent.stop(deadline).await;
                }
            },
            async {
                match journal {
                    Some(journal) => journal.stop(deadline).await,
                    None => Ok(()),
                }
            },
            self.out.stop(deadline),
            self.mate.stop(deadline),
        );
        journaled
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
        self.out.broadcast.as_ref().is_some_and(|b| b.serves_http())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    use shakmaty::Color;
    use tactus_core::Policy;
    use tactus_trace::Header;

    use crate::config::Speed;
    use crate::daemon::event_log::EventLog;
    use crate::daemon::opening::open;
    use crate::daemon::source::Origin;

    /// Events written as JSON Lines, kept for the test to read.
    #[derive(Clone, Default)]
    struct Kept(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for Kept {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Black starts the clocks; 1. f3 e5 2. g4 Qh4#, each move pressed
    /// (`pressed`) or not (then the time asked after the mate, which a
    /// queue of inputs all waiting gives to the game the mate ends); then
    /// the pieces go back, the last from 11.5 s on, with `before_last` just
    /// before it.
    fn fools_mate_then_set_up_again(pressed: bool, before_last: Vec<Incoming>) -> Vec<Incoming> {
        use shakmaty::Square::*;
        let edge = |t, sq, on| Incoming::Exact(Entry { t, record: Record::Edge { sq, on, piece: None } });
        let press = |t, side| Incoming::Exact(Entry { t, record: Record::Clock(side) });
        let mut inputs = if pressed { vec![press(100, Color::Black)] } else { Vec::new() };
        let moves = [(F2, F3, Color::White), (E7, E5, Color::Black), (G2, G4, Color::White), (D8, H4, Color::Black)];
        for (i, (from, to, side)) in moves.into_iter().enumerate() {
            let t = 1000 * (i as u64 + 1);
            inputs.extend([edge(t, from, false), edge(t + 200, to, true)]);
            if pressed {
                inputs.push(press(t + 800, side));
            }
        }
        if !pressed {
            let time = tactus_trace::Request::Time;
            inputs.push(Incoming::Exact(Entry { t: 4800, record: Record::Input(Input::Request(time)) }));
        }
        let mut before_last = Some(before_last);
        for (i, (from, to, _)) in moves.into_iter().rev().enumerate() {
            let t = 10_000 + 500 * i as u64;
            if i == 3 {
                inputs.extend(before_last.take().unwrap_or_default());
            }
            inputs.extend([edge(t, to, false), edge(t + 200, from, true)]);
        }
        inputs
    }

    /// `inputs` played in a 180+2 game on a sensor board, game after game,
    /// with a clock to press or none (`clock_connected`), its state in
    /// `dir`: the events written, as JSON Lines.
    fn played_on_a_sensor_board(dir: &std::path::Path, clock_connected: bool, inputs: Vec<Incoming>) -> String {
        let _ = std::fs::remove_dir_all(dir);
        let cfg = crate::config::Config::default();
        let speed = Speed::try_from(1000.0).unwrap();
        let setup = Setup {
            header: Header { time_control: Some("180+2".into()), ..Header::default() },
            policy: Policy::default(),
            source: Origin::of(&cfg, None),
            state_dir: dir.to_path_buf(),
            real_board: true,
            clock_connected,
            speed,
            draw_board: false,
            status_line: false,
            stops_clocks_on_recovery: true,
            online: false,
        };
        let kept = Kept::default();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let log = EventLog::start(Box::new(kept.clone()), "test".into(), tactus_speech::Lang::En).unwrap();
            let mut out = Outputs { events: Some(log), voice: None, broadcast: None, dgt: None };
            let start = setup.start_occupancy().unwrap();
            let opened = open(&setup, Some(start), &mut out).await.unwrap();
            let time = GameTime::new(0, speed);
            let mut task = GameTask::new(setup, opened, out, time);
            task.begin(false).await.unwrap();
            let (tx, rx) = mpsc::channel(64);
            let (_controls_tx, controls) = mpsc::channel(1);
            let stop = CancellationToken::new();
            for input in inputs {
                tx.send(input).await.unwrap();
            }
            drop(tx);
            assert_eq!(task.run(rx, controls, &stop).await.unwrap(), Ended::InputClosed);
            task.stop(Instant::now() + Duration::from_secs(10)).await.unwrap();
        });
        String::from_utf8(kept.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn a_sensor_board_plays_game_after_game() {
        let dir = std::env::temp_dir().join(format!("tactus-game-next-{}", std::process::id()));
        let text = played_on_a_sensor_board(&dir, true, fools_mate_then_set_up_again(true, Vec::new()));
        let kinds: Vec<String> = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["event"].as_str().unwrap().to_string())
            .collect();
        let over = kinds.iter().position(|k| k == "game_over").expect("the mate ends the first game");
        assert_eq!(kinds.iter().filter(|k| *k == "start").count(), 2, "a second game starts: {kinds:?}");
        assert!(kinds[over..].contains(&"start".to_string()), "after the first is over: {kinds:?}");
        let games: Vec<_> = std::fs::read_dir(dir.join("games"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".trace.jsonl"))
            .collect();
        assert_eq!(games.len(), 2, "each game has its own journal");
        let current = std::fs::read_to_string(dir.join("current")).unwrap();
        let first = games.iter().find(|p| !current.contains(&*p.file_name().unwrap().to_string_lossy())).unwrap();
        let r = tactus_core::replay::replay(
            std::fs::File::open(first).map(std::io::BufReader::new).unwrap(),
            Policy::default(),
        )
        .unwrap();
        assert_eq!(r.session.game().played.len(), 4, "the first journal holds the finished game");
        assert!(r.session.finished());
    }

    /// The hall sends the next round's pairing while the last game is over
    /// and its pieces not yet back: it is the next game's, journaled and
    /// said when the board shows the starting position, and not the last's.
    #[test]
    fn a_pairing_that_comes_between_games_is_the_next_games() {
        let dir = std::env::temp_dir().join(format!("tactus-pairing-between-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cfg = crate::config::Config::default();
        let speed = Speed::try_from(1000.0).unwrap();
        let setup = Setup {
            header: Header { time_control: Some("180+2".into()), ..Header::default() },
            policy: Policy::default(),
            source: Origin::of(&cfg, None),
            state_dir: dir.clone(),
            real_board: true,
            clock_connected: true,
            speed,
            draw_board: false,
            status_line: false,
            stops_clocks_on_recovery: true,
            online: false,
        };
        let player = |name: &str| tactus_trace::Player {
            name: name.into(),
            title: None,
            elo: None,
            fide_id: None,
            federation: None,
        };
        let pairing = tactus_trace::Pairing {
            tournament: None,
            round: 2,
            board: 1,
            white: player("García, Lucía"),
            black: player("Volkov, Dmitri"),
        };
        let mut inputs = fools_mate_then_set_up_again(true, Vec::new());
        // Up to the mate; then the pieces go back.
        let setting_up = inputs.split_off(13);
        let kept = Kept::default();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let log = EventLog::start(Box::new(kept.clone()), "test".into(), tactus_speech::Lang::En).unwrap();
            let mut out = Outputs { events: Some(log), voice: None, broadcast: None, dgt: None };
            let start = setup.start_occupancy().unwrap();
            let opened = open(&setup, Some(start), &mut out).await.unwrap();
            let mut task = GameTask::new(setup, opened, out, GameTime::new(0, speed));
            task.begin(false).await.unwrap();
            let (tx, rx) = mpsc::channel(64);
            let (pairings_tx, pairings) = mpsc::channel(4);
            task.take_pairings(pairings);
            let (_controls_tx, controls) = mpsc::channel(1);
            let stop = CancellationToken::new();
            let said = |what: &str| String::from_utf8_lossy(&kept.0.lock().unwrap()).contains(what);
            let feed = async {
                for input in inputs {
                    tx.send(input).await.unwrap();
                }
                while !said("game_over") {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                let sent = tactus_net::SentPairing { from: 1, n: 1, pairing: pairing.clone() };
                pairings_tx.send(sent).await.unwrap();
                // Taken by the game task, between the games.
                while pairings_tx.capacity() < pairings_tx.max_capacity() {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                assert!(!said("pairing"), "not said until the next game");
                for input in setting_up {
                    tx.send(input).await.unwrap();
                }
                drop(tx);
            };
            let (ended, ()) = tokio::join!(task.run(rx, controls, &stop), feed);
            assert_eq!(ended.unwrap(), Ended::InputClosed);
            task.stop(Instant::now() + Duration::from_secs(10)).await.unwrap();
        });
        let text = String::from_utf8(kept.0.lock().unwrap().clone()).unwrap();
        let kinds: Vec<String> = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["event"].as_str().unwrap().to_string())
            .collect();
        let second = kinds.iter().rposition(|k| k == "start").unwrap();
        assert_eq!(
            kinds.iter().position(|k| k == "pairing"),
            kinds[second..].iter().position(|k| k == "pairing").map(|i| i + second),
            "{kinds:?}"
        );
        assert!(kinds[second..].contains(&"pairing".to_string()), "{kinds:?}");
        let current = std::fs::read_to_string(dir.join("current")).unwrap();
        for path in std::fs::read_dir(dir.join("games")).unwrap().map(|e| e.unwrap().path()) {
            let journal = std::fs::read_to_string(&path).unwrap();
            let next = current.contains(&*path.file_name().unwrap().to_string_lossy());
            assert_eq!(journal.contains(r#""pairing": {"round": 2"#), next, "{}:\n{journal}", path.display());
        }
    }

    /// On a DGT board the players start the clock for the next game (Follow
    /// sends SetClock and Resume once, as it starts) before the last piece
    /// is back: the next game begins with the times and the running clock
    /// the players set, not the header's.
    #[test]
    fn a_dgt_clock_started_between_games_goes_to_the_next_game() {
        let dir = std::env::temp_dir().join(format!("tactus-between-games-{}", std::process::id()));
        // The DGT clock, set to 1:00 each, started before the last piece is back.
        let input = |t, input| Incoming::Exact(Entry { t, record: Record::Input(input) });
        let clock =
            vec![input(11_400, Input::SetClock { white_ms: 60_000, black_ms: 60_000 }), input(11_400, Input::Resume)];
        let text = played_on_a_sensor_board(&dir, true, fools_mate_then_set_up_again(true, clock));
        let events: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let second = events.iter().rposition(|e| e["event"] == "start").expect("a second game starts");
        let after: Vec<&serde_json::Value> = events[second..].iter().collect();
        assert!(
            after.iter().any(|e| e["event"] == "clock_set" && e["white_ms"] == 60_000),
            "the next game takes the times of the clock the players started: {after:#?}"
        );
        assert!(after.iter().any(|e| e["event"] == "resumed"), "and its clock runs: {after:#?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A board with no clock to press: each game begins saying so, and its
    /// moves complete as the board holds still, game after game.
    #[test]
    fn a_board_without_a_clock_plays_game_after_game() {
        let dir = std::env::temp_dir().join(format!("tactus-game-no-clock-{}", std::process::id()));
        let text = played_on_a_sensor_board(&dir, false, fools_mate_then_set_up_again(false, Vec::new()));
        let events: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let completed: Vec<&str> =
            events.iter().filter(|e| e["event"] == "complete").map(|e| e["san"].as_str().unwrap()).collect();
        assert_eq!(completed, ["f3", "e5", "g4", "Qh4#"], "no press, yet each move completed");
        assert!(events.iter().any(|e| e["event"] == "game_over" && e["result"] == "0-1"), "{text}");
        assert_eq!(events.iter().filter(|e| e["event"] == "start").count(), 2, "a second game starts: {text}");
        for game in std::fs::read_dir(dir.join("games")).unwrap() {
            let (_, entries) = tactus_trace::read_str(&std::fs::read_to_string(game.unwrap().path()).unwrap()).unwrap();
            let no_clock = Record::Input(Input::ClockConnected(false));
            assert!(entries.iter().take(2).any(|e| e.record == no_clock), "each game begins without a clock");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
