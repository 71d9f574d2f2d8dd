//! The game being played: the core's session, its journal, the clocks
//! (game time and the chess clock link), the opponent, the mate searches
//! and the outputs — and the one rule every step keeps ([`GameState::commit`]).

use std::time::Instant;

use tactus_core::{Event, EventKind, Policy, Session};
use tactus_trace::{Entry, Header, Input, Ms, OnlineAsk, Record, Variant};

use super::super::chess_clock::ChessClock;
use super::super::input::{Incoming, stamp};
use super::super::journal::JournalThread;
use super::super::mate::MateSearches;
use super::super::opening::{Opened, Setup, create_journal};
use super::super::opponent::{FromOpponent, Now, Opponent};
use super::super::outputs::Outputs;
use super::super::time::{BoardTime, GameTime};
use super::super::view::diagram;
use crate::terminal;

/// One step the game takes.
pub enum Step {
    /// An input, at its game time.
    Input(Entry),
    /// The core's timers, due at this game time.
    Timers(Ms),
}

/// What the game's helpers say next.
pub enum Heard {
    /// The opponent.
    Opponent(FromOpponent),
    /// A mate search's verdict, as the input it is.
    Verdict(Input),
}

/// Where the game is in time.
struct Time {
    /// The daemon's game number (1 for the first since start): what an
    /// opponent says for an earlier game is stale.
    game: u32,
    /// Turns instants into game time.
    clock: GameTime,
    /// The game time of the latest step: none is ever before it.
    last_t: Ms,
    /// When the latest input came in (for the opponent's latency).
    input_at: Instant,
    /// Whose time the timers follow.
    board: BoardTime,
}

impl Time {
    /// Where the game in `session` stands, for the opponent.
    fn now<'a>(&self, session: &'a Session) -> Now<'a> {
        Now { session, game: self.game, t: self.last_t, since: self.input_at }
    }
}

/// The game being played, and everything a step of it reaches.
pub struct GameState {
    /// What every game on this board starts from.
    pub setup: Setup,
    session: Session,
    /// None between games: the last game's is closed.
    journal: Option<JournalThread>,
    time: Time,
    /// The chess clock's link: it shows the game's times.
    clock: Option<ChessClock>,
    /// Whether a clock is there to press, as last said: each game begins
    /// with it.
    clock_connected: bool,
    /// Who plays the other side, when not a person at the board.
    opponent: Option<Opponent>,
    mate: MateSearches,
    pub out: Outputs,
    /// The game's address (its `Site` tag): a game an opponent starts again
    /// after a restart (an online game) is the journal's game.
    pub site: Option<String>,
}

impl GameState {
    pub fn new(setup: Setup, opened: Opened, out: Outputs, clock: GameTime) -> Self {
        let time = Time {
            game: 1,
            clock,
            last_t: opened.last_t,
            input_at: Instant::now(),
            // Until its thread promises quiet, a recording may say anything.
            board: match setup.source.trace {
                Some(_) => BoardTime::Recorded { quiet_before: opened.last_t },
                None => BoardTime::Live,
            },
        };
        GameState {
            session: opened.session,
            journal: Some(opened.journal),
            time,
            clock: None,
            clock_connected: setup.clock_connected,
            opponent: None,
            mate: MateSearches::new(),
            out,
            site: opened.header.site.clone(),
            setup,
        }
    }

    /// The game as it stands.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Where the game stands, for the opponent.
    pub fn now(&self) -> Now<'_> {
        self.time.now(&self.session)
    }

    /// Game time at `at`: never before the latest step, so the journal
    /// replays as it was played.
    pub fn t(&self, at: Instant) -> Ms {
        self.time.clock.t(at).max(self.time.last_t)
    }

    /// The game time of the latest step.
    pub fn last_t(&self) -> Ms {
        self.time.last_t
    }

    /// The instant game time `t` is.
    pub fn instant(&self, t: Ms) -> Instant {
        self.time.clock.instant(t)
    }

    /// When the core's timers are due next, if they may run (a recording's
    /// timers wait for its promise of quiet).
    pub fn deadline(&self) -> Option<Ms> {
        self.session.next_deadline().filter(|&due| self.time.board.lets_run(due))
    }

    /// A board playing a recording says nothing before `t`.
    pub fn quiet_before(&mut self, t: Ms) {
        if let BoardTime::Recorded { quiet_before } = &mut self.time.board {
            *quiet_before = t;
        }
    }

    /// A recording that ended has nothing more to say: timers follow the
    /// wall clock.
    pub fn board_live(&mut self) {
        self.time.board = BoardTime::Live;
    }

    /// Whether a mate search's answer is still to come.
    pub fn judging(&self) -> bool {
        self.mate.waiting()
    }

    pub fn link_clock(&mut self, clock: ChessClock) {
        if let Some(dgt) = &self.out.dgt {
            dgt.attach_clock(clock.texts());
        }
        self.clock = Some(clock);
    }

    /// Whether a clock is there to press.
    pub fn set_clock_connected(&mut self, connected: bool) {
        self.clock_connected = connected;
    }

    /// The opponent takes its seat: it plays one side from now on.
    pub fn seat(&mut self, mut opponent: Opponent) {
        opponent.seat(self.now());
        self.opponent = Some(opponent);
    }

    /// A player's answer or request to the opponent (an online server's).
    pub fn ask_opponent(&mut self, ask: OnlineAsk) {
        if let Some(opponent) = &mut self.opponent {
            opponent.asked(ask, &self.session);
        }
    }

    /// What the opponent said last has been taken and announced.
    pub fn opponent_taken(&mut self) {
        if let Some(opponent) = &mut self.opponent {
            opponent.taken();
        }
    }

    /// The side of the player at this board, when the daemon hosts the
    /// opponent: its buttons are that side's.
    pub fn player(&self) -> Option<shakmaty::Color> {
        self.opponent.as_ref().map(|o| !o.side())
    }

    /// What the opponent or the mate searches say next; never, with
    /// neither.
    pub async fn heard(&mut self) -> Heard {
        let GameState { session, time, opponent, mate, .. } = self;
        let now = time.now(session);
        let said = async {
            match opponent {
                Some(opponent) => opponent.next(now).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            said = said => Heard::Opponent(said),
            (question, verdict) = mate.next() => {
                Heard::Verdict(Input::Verdict { ply: question.ply, side: question.side, verdict })
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
        self.commit_input(input).await?;
        if !recovered && !self.clock_connected {
            self.commit_input(Input::ClockConnected(false)).await?;
        }
        Ok(())
    }

    /// A new game, from `header` and `policy`: its own journal and time,
    /// the opponent and the broadcast told, begun as a sensor board's
    /// game begins. The last game's journal is closed already; its
    /// session is returned.
    pub async fn start_game(&mut self, header: &Header, policy: Policy) -> anyhow::Result<Session> {
        let last = std::mem::replace(&mut self.session, Session::new(header, policy)?);
        // An answer still on its way belongs to the last game.
        self.mate.new_game();
        self.journal = Some(create_journal(&self.setup, header, self.time.game).await?);
        self.time.game += 1;
        self.time.clock = GameTime::new(0, self.setup.speed);
        self.time.last_t = 0;
        if let Some(opponent) = &mut self.opponent {
            opponent.new_game(self.time.now(&self.session), header.variant == Variant::Chess960);
        }
        if let Some(b) = &self.out.broadcast {
            b.new_game(header);
        }
        self.announce(false).await?;
        self.begin(false).await?;
        Ok(last)
    }

    /// Closes the game's journal (the trace stays): its path, if it was
    /// open.
    pub async fn close_journal(&mut self) -> anyhow::Result<Option<std::path::PathBuf>> {
        match self.journal.take() {
            Some(journal) => Ok(Some(journal.close().await?)),
            None => Ok(None),
        }
    }

    fn show_clock(&self) {
        if let Some(clock) = &self.clock {
            clock.show(&self.session, self.time.last_t);
        }
    }

    fn journal(&self) -> anyhow::Result<&JournalThread> {
        self.journal.as_ref().ok_or_else(|| anyhow::anyhow!("no game is being journaled"))
    }

    /// An input of the daemon's own, at the latest step's game time.
    pub async fn commit_input(&mut self, input: Input) -> anyhow::Result<()> {
        self.commit(Step::Input(Entry { t: self.time.last_t, record: Record::Input(input) })).await
    }

    /// One input from the board, a device or a player: stamped with its
    /// game time, and committed. The opponent answers a player's draw
    /// offer at once: it accepts with an offer of its own, or declines by
    /// its next move.
    pub async fn take(&mut self, msg: Incoming) -> anyhow::Result<()> {
        self.time.input_at = match msg {
            Incoming::At(at, _)
            | Incoming::PauseButton(at)
            | Incoming::PlayerButton(at, _)
            | Incoming::Notice(at, _) => at,
            Incoming::Exact(_) | Incoming::Quiet(_) => Instant::now(),
        };
        let player = self.player();
        let Some(entry) = stamp(msg, &self.session, &self.time.clock, self.time.last_t, player) else {
            return Ok(());
        };
        let offered = match entry.record {
            Record::Input(Input::DrawOffer { side }) => Some(side),
            _ => None,
        };
        self.commit(Step::Input(entry)).await?;
        if let Some(side) = offered
            && let Some(opponent) = &self.opponent
            && side != opponent.side()
            && let Some(accept) = opponent.answer_offer(&self.session)
        {
            self.commit_input(accept).await?;
        }
        Ok(())
    }

    /// One step of the game, and the rule every step keeps: an input is
    /// journaled before the core rules on it, and what a step leads to is
    /// announced only once what led to it is on disk — so that the journal
    /// alone replays, and a restart recovers, to the game as it stands.
    /// The opponent hears of each step in between, and thinks while the
    /// journal reaches the disk.
    pub async fn commit(&mut self, step: Step) -> anyhow::Result<()> {
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
                self.time.last_t = entry.t;
                if let Record::Input(Input::ClockConnected(connected)) = entry.record {
                    self.clock_connected = connected;
                }
                self.journal()?.append(entry.clone()).await?;
                self.session.handle(entry.clone());
                Some(entry)
            }
            Step::Timers(due) => {
                let t = due.max(self.time.last_t);
                self.time.last_t = t;
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
            opponent.committed(self.time.now(&self.session), entry.as_ref());
        }
        self.announce(entry.is_none()).await
    }

    /// An input to the game that is over: answered (a question) or told it
    /// changes nothing; not journaled, the journal is closed.
    pub async fn after_the_end(&mut self, entry: Entry) {
        self.time.last_t = entry.t;
        self.session.handle(entry);
        let events: Vec<Event> = self.session.drain().collect();
        self.out.publish(&events).await;
    }

    /// What a device or the opponent said about itself: the opponent
    /// hears of it (a partner's table clock lost), and it is said.
    pub async fn notice(&mut self, at: Instant, kind: EventKind) {
        if let Some(opponent) = &mut self.opponent {
            opponent.noticed(&kind);
        }
        self.say(at, kind).await;
    }

    /// Says what is no step of the game, in any phase: not journaled, and
    /// the game's time is not advanced.
    pub async fn say(&mut self, at: Instant, kind: EventKind) {
        let event = Event { t: self.t(at), kind };
        self.out.publish(std::slice::from_ref(&event)).await;
    }

    /// Publishes what the core has to say, once what led to it is on disk:
    /// for what timers said, that they ran up to now (a game they ended
    /// has its `end` already) — so that nothing is said twice.
    pub async fn announce(&mut self, timer: bool) -> anyhow::Result<()> {
        let events: Vec<Event> = self.session.drain().collect();
        if !events.is_empty() {
            let journal = self.journal()?;
            if timer && !self.session.finished() {
                journal.append(Entry { t: self.time.last_t, record: Record::Timers }).await?;
            }
            journal.sync().await?;
        }
        // Before the events: whoever reads of a move there and asks the
        // emulated board finds the move on it.
        if let Some(dgt) = &mut self.out.dgt {
            dgt.show(&self.session);
            dgt.show_clock(&self.session, self.time.last_t);
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

    /// Stops the clock link, the opponent, the journal (a game still being
    /// played stays to be recovered), the outputs and the mate searches,
    /// all at once, until `deadline` at most: a part still stuck then is
    /// left behind.
    pub async fn stop(self, deadline: Instant) -> anyhow::Result<()> {
        let GameState { clock, opponent, journal, out, mate, .. } = self;
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
            out.stop(deadline),
            mate.stop(deadline),
        );
        journaled
    }
}
