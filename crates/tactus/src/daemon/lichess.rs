//! The online opponent ([`super::opponent::Opponent::Lichess`]): a game on
//! Lichess played on the board through the Board API. [`Play`] keeps the
//! streams open, follows the game and sends requests one at a time; this
//! host turns what it says into the game's inputs — the opponent's move is an `opponent` input,
//! journaled and guided onto the board exactly as an engine's — and the
//! board's own acts (a move completed, a draw offered, a resignation, a
//! board set back) into its commands. The server is the judge of what the
//! game holds: moves go back when it takes them back (`take_back`), the
//! board's side's move made on the website is carried out on the board
//! (`website_move`), and a game begun elsewhere is set up move by move.
//!
//! The journal is the board's memory of the game: its header names the game
//! (`Site`, the game's address), and after a restart its moves go to the
//! follower, which sends our last one only if the server lacks it — a move
//! is never sent twice. The server is the judge of the game's end: its
//! result is journaled as an input, so the journal replays to the same game
//! and PGN. Nothing here waits on the network: [`Play::command`] never
//! blocks, and the updates come on a bounded queue. The board's acts go to
//! the server only once the journal has them on disk: they are queued when
//! the game commits them and sent when the game task next listens.

mod chat;

use std::time::{Duration, Instant};

use anyhow::Context;
use chat::Chat;
use shakmaty::Color;
use tactus_core::{
    ChatLine, Device, EventKind, FailedWhy, NotPlayedReason, Online, RefusedWhy, ServerEnd, Session, TokenState,
};
use tactus_lichess::api::{ChallengeSpec, DeclineReason, EndRequest};
use tactus_lichess::follower::{Action, Clocks, EndReason, Ending, OfferKind, Refusal, Started};
use tactus_lichess::http::{Client, Error, Settings};
use tactus_lichess::play::TokenState as Taken;
use tactus_lichess::play::{Command, Failure, GameCommand, NotPlayed, Play, PlayOptions, Resume, TokenFault, Update};
use tactus_lichess::retry::Link;
use tactus_lichess::token::Token;
use tactus_lichess::wire::{Challenge, Room, TimeControl};
use tactus_stats::Sorted;
use tactus_trace::{Entry, GameResult, Input, OffBoardReason, OnlineAsk, Record};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::opponent::{FromOpponent, NewGame, Now};
use crate::config::LichessPlan;

/// How long the account is asked for at start; the game does not wait on
/// a network that is down (the actor retries on its own).
const ACCOUNT_WAIT: Duration = Duration::from_secs(10);

/// How many moves' timings are kept for the summary.
const KEPT: usize = 10_000;

/// The most of a chat line that is said (Lichess's own limit).
const CHAT_SAID: usize = 140;
/// The most of a name that is said (Lichess's are shorter).
const NAME_SAID: usize = 40;

/// The moves of a game begun elsewhere, which no journal holds (and any
/// made meanwhile), carried out on the board one at a time: each as the
/// opponent's or a move made on the website, once the board has the one
/// before — the core takes a move for the ply to be made only.
#[derive(Default)]
struct Joining {
    moves: std::collections::VecDeque<Input>,
    /// The ply of the move being carried out.
    carried: Option<u32>,
}

/// The ply of a move to carry out.
fn move_ply(input: &Input) -> Option<u32> {
    match input {
        Input::Opponent { ply, .. } | Input::WebsiteMove { ply, .. } => Some(*ply),
        _ => None,
    }
}

/// The game the board plays on the server.
struct Playing {
    id: String,
    color: Color,
    /// The opponent's name, as their chat lines give it.
    opponent: String,
    /// The opponent asks to take back a move: `online takeback_…` answers it.
    takeback_asked: bool,
    /// The board asked the server for a take-back: its answer is awaited.
    asked_back: bool,
    /// Our move of this ply was made on the website (ply, UCI): the board's
    /// move of that ply is not sent, the server having its own.
    website: Option<(u32, String)>,
    /// A game begun elsewhere: its moves are set up on the board one at a
    /// time, until it has them all.
    joining: Option<Joining>,
    /// The game is over on the server, or the result came from it: the
    /// board's own end (the core's mate, an agreement) sends nothing.
    over: bool,
}

pub struct LichessHost {
    play: Play,
    updates: Option<mpsc::Receiver<Update>>,
    /// Lichess's address, for the games' `Site` tags.
    url: String,
    /// The game the journal holds, if any: the board knows its moves.
    journaled: Option<String>,
    game: Option<Playing>,
    /// What it has to say, in order, before the next update is read.
    said: std::collections::VecDeque<FromOpponent>,
    /// The board's acts committed, sent once the journal has them on disk.
    outbox: Vec<GameCommand>,
    /// The moves of the board's game as last told: a move more is the
    /// board's to send (when ours), fewer a take-back.
    plies: usize,
    /// The challenge to the account said last: `online accept|decline`.
    challenge: Option<String>,
    /// The opponent's chat: a line or two said, the rest held.
    chat: Chat,
    /// When the update being handled came in; per opponent's move, the time
    /// from it to the move announced.
    heard_at: Instant,
    /// What it said last is an opponent's move, to be timed once announced.
    timing: bool,
    opponent_timings: std::collections::VecDeque<Duration>,
}

impl LichessHost {
    /// Reads the token (mode 600, or refused naming the file), names the
    /// account, and starts following it; `resume` is the game the journal
    /// holds. A token Lichess refuses stops the daemon with what to fix; a
    /// network that is down does not (the actor retries).
    /// `stop` is the daemon's stop signal: the actor's streams close with it.
    pub async fn start(
        l: &LichessPlan,
        resume: Option<Resume>,
        stop: &CancellationToken,
    ) -> anyhow::Result<LichessHost> {
        let token_file = &l.token_file;
        let token = Token::read(token_file)?;
        let client = Client::new(token, Settings { url: l.url.to_string(), ..Settings::default() })
            .with_context(|| format!("[lichess] url {}", l.url))?;
        let mut account = None;
        match tokio::time::timeout(ACCOUNT_WAIT, client.account()).await {
            Ok(Ok(me)) => {
                tracing::info!("playing on Lichess ({}) as {}", l.url, me.username);
                account = Some(me.id);
            }
            Ok(Err(e @ (Error::Unauthorized(_) | Error::Forbidden(_)))) => {
                return Err(anyhow::anyhow!("{e} ({}); `tactus doctor` checks it", token_file.display()));
            }
            Ok(Err(e)) => tracing::warn!("Lichess ({}): {e}; retrying", l.url),
            Err(_) => {
                tracing::warn!("Lichess ({}) did not answer within {} s; retrying", l.url, ACCOUNT_WAIT.as_secs())
            }
        }
        let resuming = resume.is_some();
        let journaled = resume.as_ref().map(|r| r.game_id.clone());
        if let Some(r) = &resume {
            tracing::info!("going on with the Lichess game {} ({} moves journaled)", r.game_id, r.moves.len());
        }
        let options = PlayOptions { accept_from: l.accept_from.clone(), resume, account };
        let (play, updates) = Play::start(client, options, stop);
        let host = LichessHost {
            play,
            updates: Some(updates),
            url: l.url.as_str().trim_end_matches('/').to_owned(),
            journaled,
            game: None,
            said: Default::default(),
            outbox: Vec::new(),
            plies: 0,
            challenge: None,
            chat: Chat::default(),
            heard_at: Instant::now(),
            timing: false,
            opponent_timings: Default::default(),
        };
        // A game under way goes on: no new one is asked for.
        if !resuming {
            host.ask_for_a_game(l);
        }
        Ok(host)
    }

    /// The challenge or the seek the configuration asks for.
    fn ask_for_a_game(&self, l: &LichessPlan) {
        if let Some((username, clock)) = &l.challenge {
            let spec = ChallengeSpec { clock: clock.challenge(), rated: false, color: None };
            self.command(Command::Challenge { username: username.clone(), spec });
        }
        if let Some(seek) = l.seek {
            self.command(Command::Seek(seek));
        }
    }

    /// The journal's game, if it is one of this server's: its id and moves.
    pub fn resume_of(url: &str, site: Option<&str>, moves: Vec<String>) -> Option<Resume> {
        let site = site?;
        let id = site.strip_prefix(url.trim_end_matches('/'))?.strip_prefix('/')?;
        let valid = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric());
        valid.then(|| Resume { game_id: id.to_owned(), moves })
    }

    fn command(&self, command: Command) {
        if let Err(e) = self.play.command(command.clone()) {
            tracing::error!("Lichess: {command:?} not sent: {e}");
        }
    }

    fn game_command(&self, what: GameCommand) {
        if let Some(g) = &self.game {
            self.command(Command::Game { id: g.id.clone(), what });
        }
    }

    /// The side the opponent plays (Black until a game has started).
    pub fn side(&self) -> Color {
        self.game.as_ref().map_or(Color::Black, |g| !g.color)
    }

    /// It takes its seat at the game as it stands, or a new game's.
    pub fn seat(&mut self, session: &Session) {
        self.plies = session.game().played.len();
    }

    /// What it says next. The board's acts committed since it last listened
    /// are on disk now: they go to the server first.
    pub async fn next(&mut self, now: Now<'_>) -> FromOpponent {
        for what in std::mem::take(&mut self.outbox) {
            self.game_command(what);
        }
        loop {
            if let Some(said) = self.said.pop_front() {
                self.timing =
                    matches!(&said, FromOpponent::Inputs(inputs) if matches!(inputs[..], [Input::Opponent { .. }]));
                return said;
            }
            let due = self.chat.due();
            let update = tokio::select! {
                update = self.recv() => update,
                () = sleep_until(due) => {
                    let held = self.chat.tick(Instant::now());
                    self.said.extend(held.map(|o| FromOpponent::Notice(EventKind::Online(o))));
                    continue;
                }
            };
            let heard = self.heard(update, now.session);
            // What comes after the game's end is for no game.
            let finished = now.session.finished();
            self.said.extend(
                heard
                    .into_iter()
                    .filter(|s| !(finished && matches!(s, FromOpponent::Inputs(_) | FromOpponent::Abandoned))),
            );
        }
    }

    /// What it said last was taken and announced.
    pub fn announced(&mut self) {
        if !std::mem::take(&mut self.timing) {
            return;
        }
        if self.opponent_timings.len() == KEPT {
            self.opponent_timings.pop_front();
        }
        self.opponent_timings.push_back(self.heard_at.elapsed());
    }

    /// The actor's next update; none once it has ended (said once).
    async fn recv(&mut self) -> Update {
        let Some(updates) = &mut self.updates else { return std::future::pending().await };
        if let Some(update) = updates.recv().await {
            self.heard_at = Instant::now();
            return update;
        }
        self.updates = None;
        tracing::error!("the Lichess connection's task has ended: no online game from now on");
        Update::Link(Link::Lost { why: "the connection's task has ended".into() })
    }

    /// What the game does with `update`; `session` is the game as it stands.
    pub fn heard(&mut self, update: Update, session: &Session) -> Vec<FromOpponent> {
        let say = |online| vec![FromOpponent::Notice(EventKind::Online(online))];
        match update {
            Update::Link(Link::Lost { why }) => {
                vec![FromOpponent::Notice(EventKind::DeviceLost {
                    device: Device::Online,
                    why: tactus_core::Lost::Connection,
                    diagnostic: Some(why),
                })]
            }
            Update::Link(Link::Restored) => {
                vec![FromOpponent::Notice(EventKind::DeviceBack { device: Device::Online })]
            }
            Update::Token(state) => {
                let state = match state {
                    Taken::Refused { .. } => TokenState::Refused,
                    Taken::ForGood(TokenFault::Unknown) => TokenState::Unknown,
                    Taken::ForGood(TokenFault::LacksScope) => TokenState::LacksScope,
                    Taken::Accepted => TokenState::Accepted,
                };
                say(Online::Token { state })
            }
            Update::RateLimited { for_s } => say(Online::RateLimited { for_s }),
            Update::Challenge { challenge, incoming } => {
                if incoming {
                    self.challenge = Some(challenge.id.clone());
                }
                say(challenge_said(&challenge, incoming))
            }
            Update::ChallengeGone { id, declined } => {
                if self.challenge.as_ref() == Some(&id) {
                    self.challenge = None;
                }
                say(Online::ChallengeGone { id, declined: declined.is_some() })
            }
            Update::NotPlayed { id, why } => say(Online::NotPlayed { game: id, reason: not_played_reason(&why) }),
            Update::SeekEnded { why } => {
                tracing::info!("Lichess: {why}");
                Vec::new()
            }
            Update::Failed { command, why } => {
                tracing::warn!("Lichess did not carry out {command:?}: {why}");
                say(Online::Failed { why: failed_why(&why) })
            }
            Update::Game { id, action } => {
                let heard = self.action(id, action, session);
                self.join_next(session);
                heard
            }
        }
    }

    /// A game being set up: its next move to carry out, once the board has
    /// the one before; the setting up ends with the last.
    fn join_next(&mut self, session: &Session) {
        let Some(g) = &mut self.game else { return };
        let Some(j) = &mut g.joining else { return };
        let ply = session.game().ply();
        if j.carried.is_some_and(|c| c >= ply) {
            return; // still being carried out
        }
        let Some(input) = j.moves.pop_front() else {
            // The last one is on the board (before the first: the moves
            // are still to come).
            if j.carried.is_some() {
                g.joining = None;
            }
            return;
        };
        j.carried = move_ply(&input);
        let fits = j.carried == Some(ply);
        if let Input::WebsiteMove { ply, uci } = &input {
            g.website = Some((*ply, uci.to_string()));
        }
        self.said.push_back(FromOpponent::Inputs(vec![input]));
        if !fits {
            // The board's game is not the server's: no more setting up.
            tracing::warn!("setting up the Lichess game: a move is not for ply {ply}; the moves go on as they come");
            let rest = g.joining.take().map(|j| j.moves).unwrap_or_default();
            self.said.extend(rest.into_iter().map(|i| FromOpponent::Inputs(vec![i])));
        }
    }

    fn action(&mut self, id: String, action: Action, session: &Session) -> Vec<FromOpponent> {
        if let Action::Started(s) = action {
            return self.started(*s);
        }
        let Some(g) = self.game.as_mut().filter(|g| g.id == id) else { return Vec::new() };
        let chat = &mut self.chat;
        let say = |online| vec![FromOpponent::Notice(EventKind::Online(online))];
        match action {
            Action::Started(_) => Vec::new(),
            Action::Move(m) => {
                let Ok(uci) = m.uci.parse() else { return Vec::new() };
                let input = if m.ours {
                    Input::WebsiteMove { ply: m.ply, uci }
                } else {
                    Input::Opponent { ply: m.ply, uci, eval: None }
                };
                if let Some(j) = &mut g.joining {
                    j.moves.push_back(input);
                    return Vec::new();
                }
                if m.ours {
                    tracing::info!("our move {} was made on the website: the board follows it", m.san);
                    g.website = Some((m.ply, m.uci));
                }
                // The move first; the chat held since is counted after it.
                let mut heard = vec![FromOpponent::Inputs(vec![input])];
                heard.extend(chat.moved().map(|o| FromOpponent::Notice(EventKind::Online(o))));
                heard
            }
            Action::Send { .. } | Action::Resync => Vec::new(),
            Action::Confirmed { ply, uci } => {
                tracing::debug!("Lichess has our move {uci} (ply {ply})");
                Vec::new()
            }
            Action::Refused { ply, uci, why } => {
                let (said, why) = match why {
                    Refusal::Server(e) => (e, RefusedWhy::Server),
                    Refusal::Superseded { uci } => (format!("the server has {uci} there"), RefusedWhy::Superseded),
                    Refusal::GameOver => ("the game is over".into(), RefusedWhy::GameOver),
                };
                tracing::warn!("Lichess refused our move {uci} (ply {ply}): {said}");
                let san = san_of(session, ply).unwrap_or_else(|| uci.clone());
                // The server never had it: the board goes back.
                vec![
                    FromOpponent::Notice(EventKind::Online(Online::Refused { ply, uci, san, why })),
                    FromOpponent::Inputs(vec![Input::TakeBack { ply }]),
                ]
            }
            Action::TakenBack { ply } => {
                g.asked_back = false;
                if ply >= session.game().ply() {
                    return Vec::new(); // nothing the board holds
                }
                vec![
                    FromOpponent::Notice(EventKind::Online(Online::TakenBack { ply })),
                    FromOpponent::Inputs(vec![Input::TakeBack { ply }]),
                ]
            }
            Action::Clocks(c) => {
                server_clock(&c, session).map_or_else(Vec::new, |i| vec![FromOpponent::Inputs(vec![i])])
            }
            Action::Offer { kind: OfferKind::Draw, by, open: true } if by != g.color && !session.finished() => {
                vec![FromOpponent::Inputs(vec![Input::DrawOffer { side: by }])]
            }
            Action::Offer { kind: OfferKind::Takeback, by, open } if by != g.color => {
                g.takeback_asked = open;
                say(Online::TakebackOffer { open })
            }
            // Our request closed without moves taken back: declined.
            Action::Offer { kind: OfferKind::Takeback, open: false, .. } if std::mem::take(&mut g.asked_back) => {
                say(Online::TakebackDeclined)
            }
            Action::Offer { .. } => Vec::new(),
            Action::OpponentGone { gone, claim_win_in_s } => {
                say(Online::OpponentGone { gone, claim_in_s: claim_win_in_s })
            }
            Action::Chat { room, username, text } => {
                tracing::info!("Lichess chat ({room:?}): {username}: {text}");
                chat_line(room, &username, &text, &g.opponent)
                    .and_then(|line| chat.line(line, Instant::now()))
                    .map_or_else(Vec::new, say)
            }
            Action::Ended(e) => {
                g.over = true;
                ended(e, session)
            }
        }
    }

    fn started(&mut self, s: Started) -> Vec<FromOpponent> {
        // The tags' names; Lichess's AI is said by its level, in the
        // player's language.
        let name = |p: &tactus_lichess::wire::Player| match (p.ai_level, &p.name) {
            (Some(level), _) => format!("Lichess AI level {level}"),
            (None, Some(name)) => clean(name, NAME_SAID),
            (None, None) => String::new(),
        };
        let (white, black) = (name(&s.white), name(&s.black));
        let theirs = if s.color == Color::White { &s.black } else { &s.white };
        let ai_level = theirs.ai_level;
        let opponent = if s.color == Color::White { black.clone() } else { white.clone() };
        tracing::info!("the Lichess game {} starts: the board plays {:?} against {opponent}", s.id, s.color);
        let start = NewGame {
            side: !s.color,
            white,
            black,
            time_control: s
                .clock
                .and_then(|c| tactus_clock::TimeControl::with_increment(c.initial, c.increment))
                .map(|t| t.to_string()),
            site: format!("{}/{}", self.url, s.id),
        };
        self.game = Some(Playing {
            id: s.id.clone(),
            color: s.color,
            opponent: opponent.clone(),
            takeback_asked: false,
            asked_back: false,
            website: None,
            // Begun elsewhere, and not the journal's: its moves are set up.
            joining: (s.played > 0 && self.journaled.as_deref() != Some(s.id.as_str())).then(Joining::default),
            over: false,
        });
        // The journal holds it from now on: started again (the token
        // refused a while), it goes on from the board's moves.
        self.journaled = Some(s.id.clone());
        if s.played > 0 {
            tracing::info!("the Lichess game {} has {} moves: set up on the board", s.id, s.played);
        }
        vec![
            FromOpponent::NewGame(start),
            FromOpponent::Notice(EventKind::Online(Online::Playing { game: s.id, opponent, ai_level, side: s.color })),
        ]
    }

    /// The game committed `entry` (or its timers ran): our move completed,
    /// a draw offered, a resignation, a take-back asked (the board set
    /// back) are queued for the server — sent once the journal has them on
    /// disk ([`Self::next`]). Moves go back only when the server takes
    /// them back (an `Input::TakeBack` of its word), so fewer moves ask
    /// nothing.
    pub fn committed(&mut self, session: &Session, entry: Option<&Entry>) {
        let played = &session.game().played;
        let before = std::mem::replace(&mut self.plies, played.len());
        let Some(g) = &mut self.game else { return };
        if g.over {
            return;
        }
        for p in played.iter().skip(before).filter(|p| p.info.side == g.color) {
            match g.website.take_if(|(ply, _)| *ply == p.info.ply) {
                // Made on the website: the server has it.
                Some((_, uci)) if uci == p.info.uci => {}
                // The board's own move came first: the website's stands,
                // and the board goes back to carry it out.
                Some((ply, uci)) => {
                    tracing::warn!("the board's {} came after {uci} was made on the website: not sent", p.info.uci);
                    if let Ok(parsed) = uci.parse() {
                        let inputs = vec![Input::TakeBack { ply }, Input::WebsiteMove { ply, uci: parsed }];
                        self.said.push_back(FromOpponent::Inputs(inputs));
                        g.website = Some((ply, uci));
                    }
                }
                None => self.outbox.push(GameCommand::Move { uci: p.info.uci.clone(), offering_draw: false }),
            }
        }
        // The player moved: the chat held meanwhile is counted after it.
        if played.iter().skip(before).any(|p| p.info.side == g.color)
            && let Some(held) = self.chat.moved()
        {
            self.said.push_back(FromOpponent::Notice(EventKind::Online(held)));
        }
        if session.pending().iter().any(|e| matches!(e.kind, EventKind::TakeBackAsked { .. })) {
            g.asked_back = true;
            self.outbox.push(GameCommand::Takeback(true));
        }
        match entry.map(|e| &e.record) {
            Some(&Record::Input(Input::DrawOffer { side })) if side == g.color => {
                self.outbox.push(GameCommand::Draw(true));
            }
            Some(&Record::Input(Input::Result { result, reason: OffBoardReason::Resignation }))
                if result.winner() == Some(!g.color) =>
            {
                self.outbox.push(GameCommand::End(EndRequest::Resign));
            }
            _ => {}
        }
        // The board's own end (a mate, an agreement): the server's follows.
        g.over |= session.finished();
        self.join_next(session);
    }

    /// A player's answer or request typed or pressed at the board.
    /// Each is answered at once: sent, and said so (a draw declined the
    /// game says itself), or said to have nothing to answer.
    pub fn asked(&mut self, ask: OnlineAsk, session: &Session) {
        let playing = self.game.as_ref().filter(|g| !g.over);
        let standing = match ask {
            OnlineAsk::Abort | OnlineAsk::ClaimVictory => playing.is_some(),
            OnlineAsk::DrawNo => playing.is_some_and(|g| session.draw_offered() == Some(!g.color)),
            OnlineAsk::TakebackNo | OnlineAsk::TakebackYes => playing.is_some_and(|g| g.takeback_asked),
            OnlineAsk::Accept | OnlineAsk::Decline => self.challenge.is_some(),
            OnlineAsk::Chat => {
                let lines = self.chat.read();
                return self.said.push_back(FromOpponent::Notice(EventKind::Online(lines)));
            }
        };
        if standing {
            match ask {
                OnlineAsk::Abort => self.game_command(GameCommand::End(EndRequest::Abort)),
                OnlineAsk::DrawNo => self.game_command(GameCommand::Draw(false)),
                OnlineAsk::TakebackNo | OnlineAsk::TakebackYes => {
                    self.game_command(GameCommand::Takeback(ask == OnlineAsk::TakebackYes));
                    if let Some(g) = &mut self.game {
                        g.takeback_asked = false;
                    }
                }
                OnlineAsk::ClaimVictory => self.game_command(GameCommand::End(EndRequest::ClaimVictory)),
                OnlineAsk::Accept | OnlineAsk::Decline => {
                    let challenge = self.challenge.take().expect("checked above");
                    self.command(if ask == OnlineAsk::Accept {
                        Command::Accept { challenge }
                    } else {
                        Command::Decline { challenge, reason: DeclineReason::Generic }
                    });
                }
                OnlineAsk::Chat => {}
            }
        }
        // A draw declined is the game's own event.
        if !(standing && ask == OnlineAsk::DrawNo) {
            self.said.push_back(FromOpponent::Notice(EventKind::Online(Online::Asked { ask, standing })));
        }
    }

    /// Stops by `deadline`: the board's acts the journal has that the
    /// actor has not been given yet (the commit that queued them synced the
    /// journal) go to it, and it sends them and waits for Lichess's answers
    /// until the deadline; a move left without one is logged, to be sent
    /// after a restart if Lichess lacks it. The streams close at once.
    pub async fn stop(mut self, deadline: Instant) {
        // Nobody reads the updates any more: the actor never waits on them.
        self.updates = None;
        for what in std::mem::take(&mut self.outbox) {
            self.game_command(what);
        }
        let ms = Sorted::new(self.opponent_timings.iter().map(|d| d.as_secs_f64() * 1000.0));
        if let (Some(p50), Some(p95), Some(max)) = (ms.percentile(50), ms.percentile(95), ms.max()) {
            tracing::info!(
                "the online opponent made {} moves: update to event p50 {p50:.2} ms, p95 {p95:.2} ms, max {max:.2} ms",
                ms.len(),
            );
        }
        self.play.stop(deadline).await;
    }
}

/// A challenge as said: who, and the clock (`minutes+seconds`).
fn challenge_said(c: &Challenge, incoming: bool) -> Online {
    let player = if incoming {
        clean(&c.challenger.name, NAME_SAID)
    } else {
        c.dest_user.as_ref().map_or_else(String::new, |u| clean(&u.name, NAME_SAID))
    };
    let clock = match c.time_control {
        Some(TimeControl::Clock { limit, increment }) => Some(format!("{}+{increment}", limit / 60)),
        _ => None,
    };
    Online::Challenge { id: c.id.clone(), player, incoming, clock }
}

/// A chat line as said: the opponent's in the players' room only (not
/// Lichess's own notes, nor the spectators'), its first [`CHAT_SAID`]
/// characters, and nothing the voice could take for markup.
fn chat_line(room: Room, from: &str, text: &str, opponent: &str) -> Option<ChatLine> {
    if room != Room::Player || !clean(from, NAME_SAID).eq_ignore_ascii_case(opponent) {
        return None;
    }
    Some(ChatLine { from: clean(from, NAME_SAID), text: clean(text, CHAT_SAID) })
}

/// A name or a text from the server as the voice may take it: no control
/// characters and no brackets (espeak-ng reads `[[…]]` as phonemes), at most
/// `max` characters.
fn clean(text: &str, max: usize) -> String {
    text.chars().filter(|c| !c.is_control() && !matches!(c, '[' | ']' | '{' | '}')).take(max).collect()
}

/// Why a request was not carried out, as the player hears it.
fn failed_why(why: &Failure) -> FailedWhy {
    match why {
        Failure::NoGame(_) => FailedWhy::NoGame,
        Failure::Move(_) => FailedWhy::NotPlayable,
        Failure::Busy => FailedWhy::Busy,
        Failure::Lichess(Error::RateLimited(_)) => FailedWhy::RateLimited,
        Failure::Lichess(e) if e.is_token() => FailedWhy::Token,
        Failure::Lichess(e) if e.is_transient() => FailedWhy::Network,
        Failure::Lichess(_) => FailedWhy::Refused,
    }
}

/// Why a game is not played, as the player hears it.
fn not_played_reason(why: &NotPlayed) -> NotPlayedReason {
    match why {
        NotPlayed::AnotherGame => NotPlayedReason::AnotherGame,
        NotPlayed::NotBoardApi => NotPlayedReason::NotBoardApi,
        NotPlayed::Variant(_) => NotPlayedReason::Variant,
        NotPlayed::NoSide => NotPlayedReason::NoSide,
        NotPlayed::NotAPlayer { .. } => NotPlayedReason::NotAPlayer,
        NotPlayed::SidesDisagree => NotPlayedReason::SidesDisagree,
        NotPlayed::OtherGame { .. } => NotPlayedReason::OtherGame,
        NotPlayed::IllegalMoves { .. } => NotPlayedReason::IllegalMoves,
        NotPlayed::Fen(_) => NotPlayedReason::StartPosition,
        NotPlayed::Gone(_) => NotPlayedReason::Gone,
    }
}

async fn sleep_until(t: Option<Instant>) {
    match t {
        Some(t) => tokio::time::sleep_until(t.into()).await,
        None => std::future::pending().await,
    }
}

/// The SAN of the move of `ply` in the game, if it holds it.
fn san_of(session: &Session, ply: u32) -> Option<String> {
    let first = session.game().ply() as usize - session.game().played.len();
    let i = (ply as usize).checked_sub(first)?;
    session.game().played.get(i).map(|p| p.info.san.clone())
}

/// The server's clocks, from every state it sends: the game's clock
/// (journaled, so a replay shows them too; the core says them only when
/// they moved the board's by much, after a while away).
fn server_clock(c: &Clocks, session: &Session) -> Option<Input> {
    session.clock()?;
    if session.finished() {
        return None;
    }
    let ms = |v: i64| v.clamp(0, *tactus_trace::range::CLOCK_MS.values.end() as i64) as u64;
    Some(Input::ServerClock { white_ms: ms(c.white_ms), black_ms: ms(c.black_ms), running: c.running.is_some() })
}

/// The server's end of the game, as the game takes it. A mate or a
/// stalemate the board ends itself once it shows the last move.
fn ended(e: Ending, session: &Session) -> Vec<FromOpponent> {
    let status = match e.reason() {
        EndReason::Aborted => ServerEnd::Aborted,
        EndReason::OpponentLeft => ServerEnd::OpponentLeft,
        EndReason::FlagFall => ServerEnd::FlagFall,
        EndReason::NoStart => ServerEnd::NoStart,
        _ => ServerEnd::Other,
    };
    if session.finished() {
        return Vec::new();
    }
    let result = e.outcome().known().map(GameResult::from);
    let reason = match e.reason() {
        EndReason::Checkmate | EndReason::Stalemate => return Vec::new(),
        EndReason::Resignation => OffBoardReason::Resignation,
        EndReason::Draw => OffBoardReason::Agreement,
        _ => OffBoardReason::Arbiter,
    };
    let mut heard = Vec::new();
    if !matches!(e.reason(), EndReason::Resignation | EndReason::Draw) {
        heard.push(FromOpponent::Notice(EventKind::Online(Online::Ended { status })));
    }
    heard.push(match result {
        Some(result) => FromOpponent::Inputs(vec![Input::Result { result, reason }]),
        None => FromOpponent::Abandoned,
    });
    heard
}

#[cfg(test)]
mod tests {
    use super::*;
    use tactus_lichess::follower::ServerMove;
    use tactus_lichess::wire::Status;
    use tactus_trace::Header;

    fn session(time_control: Option<&str>) -> Session {
        let header = Header { time_control: time_control.map(str::to_owned), ..Header::default() };
        Session::new(&header, tactus_core::Policy::default()).unwrap()
    }

    #[test]
    fn the_journals_game_is_found_by_its_site_on_this_server_only() {
        let moves = vec!["e2e4".to_owned()];
        let r = LichessHost::resume_of("http://127.0.0.1:9/", Some("http://127.0.0.1:9/AbCd1234"), moves.clone());
        assert_eq!(r, Some(Resume { game_id: "AbCd1234".into(), moves: moves.clone() }));
        assert_eq!(
            LichessHost::resume_of("https://lichess.org", Some("http://127.0.0.1:9/AbCd1234"), moves.clone()),
            None
        );
        assert_eq!(
            LichessHost::resume_of("https://lichess.org", Some("https://lichess.org/../x"), moves.clone()),
            None
        );
        assert_eq!(LichessHost::resume_of("https://lichess.org", Some("https://lichess.org/"), moves.clone()), None);
        assert_eq!(LichessHost::resume_of("https://lichess.org", None, moves), None);
    }

    #[test]
    fn the_servers_end_becomes_the_games_result_or_the_journals_end() {
        let fresh = session(Some("1800+5"));
        let end = |status, winner| ended(Ending { status, winner }, &fresh);
        let result = |said: &[FromOpponent]| match said {
            [.., FromOpponent::Inputs(inputs)] => match inputs[..] {
                [Input::Result { result, reason }] => Some((result, reason)),
                _ => None,
            },
            _ => None,
        };
        let resigned = end(Status::Resign, Some(Color::Black));
        assert_eq!(result(&resigned), Some((GameResult::BlackWins, OffBoardReason::Resignation)));
        assert_eq!(resigned.len(), 1, "the game_over says a resignation: nothing more");
        let flag = end(Status::Outoftime, Some(Color::White));
        assert_eq!(result(&flag), Some((GameResult::WhiteWins, OffBoardReason::Arbiter)));
        assert!(matches!(
            &flag[0],
            FromOpponent::Notice(EventKind::Online(Online::Ended { status: ServerEnd::FlagFall }))
        ));
        let gone = end(Status::Timeout, None);
        assert_eq!(result(&gone), Some((GameResult::Draw, OffBoardReason::Arbiter)));
        let aborted = end(Status::Aborted, None);
        assert!(matches!(
            &aborted[..],
            [FromOpponent::Notice(EventKind::Online(Online::Ended { .. })), FromOpponent::Abandoned]
        ));
        // The board ends a mate itself, once it shows the last move.
        assert!(end(Status::Mate, Some(Color::White)).is_empty());
    }

    #[test]
    fn only_the_opponents_chat_is_said_cut_short_and_without_markup() {
        let said = |room, from: &str, text: &str| chat_line(room, from, text, "Magnus");
        assert_eq!(
            said(Room::Player, "magnus", "gg [[h@]] {x}\n"),
            Some(ChatLine { from: "magnus".into(), text: "gg h@ x".into() })
        );
        assert_eq!(said(Room::Spectator, "Magnus", "hi"), None, "the spectators' room");
        assert_eq!(said(Room::Player, "lichess", "Takeback sent"), None, "Lichess's own note");
        let long = "a".repeat(600);
        let Some(ChatLine { text, .. }) = said(Room::Player, "Magnus", &long) else { panic!("said") };
        assert_eq!(text.chars().count(), CHAT_SAID);
        // A name with markup is said without it.
        assert_eq!(clean("[[h@]]Coach", NAME_SAID), "h@Coach");
    }

    /// A host following a game as White, its actor pointed at a closed
    /// port (it only retries meanwhile).
    fn host_playing_white() -> LichessHost {
        let token = Token::new("lip_test").unwrap();
        let client = Client::new(token, Settings { url: "http://127.0.0.1:9".into(), ..Settings::default() }).unwrap();
        let (play, updates) = Play::start(client, PlayOptions::default(), &CancellationToken::new());
        LichessHost {
            play,
            updates: Some(updates),
            url: "http://127.0.0.1:9".into(),
            journaled: None,
            game: Some(Playing {
                id: "AbCd1234".into(),
                color: Color::White,
                opponent: "Magnus".into(),
                takeback_asked: false,
                asked_back: false,
                website: None,
                joining: None,
                over: false,
            }),
            said: Default::default(),
            outbox: Vec::new(),
            plies: 0,
            challenge: None,
            chat: Chat::default(),
            heard_at: Instant::now(),
            timing: false,
            opponent_timings: Default::default(),
        }
    }

    /// An online game with the board's 1. `uci` completed, as `from` `to`.
    fn played(from: &str, to: &str) -> Session {
        let header = Header { engine: Some(Color::Black), online: true, ..Header::default() };
        let mut s = Session::new(&header, tactus_core::Policy::default().with_recorded(&header)).unwrap();
        let sq = |name: &str| name.parse().unwrap();
        for (t, record) in [
            (0, tactus_trace::Record::Edge { sq: sq(from), on: false, piece: None }),
            (200, tactus_trace::Record::Edge { sq: sq(to), on: true, piece: None }),
            (1000, tactus_trace::Record::Clock(Color::White)),
        ] {
            s.handle(Entry { t, record });
        }
        assert_eq!(s.game().played.len(), 1, "{:?}", s.drain().collect::<Vec<_>>());
        s
    }

    #[tokio::test]
    async fn the_boards_move_after_the_websites_is_not_sent_and_gives_way_to_it() {
        let mut host = host_playing_white();
        let before = session(None);
        let website = ServerMove { ply: 1, side: Color::White, uci: "d2d4".into(), san: "d4".into(), ours: true };
        let heard = host.heard(Update::Game { id: "AbCd1234".into(), action: Action::Move(website) }, &before);
        let d4 = Input::WebsiteMove { ply: 1, uci: "d2d4".parse().unwrap() };
        assert!(matches!(&heard[..], [FromOpponent::Inputs(i)] if i[..] == [d4]));
        // The board's e4 is completed before the website's d4 reached it.
        host.committed(&played("e2", "e4"), None);
        assert!(host.outbox.is_empty(), "not sent: {:?}", host.outbox);
        assert!(
            matches!(host.said.front(), Some(FromOpponent::Inputs(i)) if i[..] == [Input::TakeBack { ply: 1 }, d4])
        );
        // The website's move itself, once carried out, is not sent either.
        let mut host = host_playing_white();
        let website = ServerMove { ply: 1, side: Color::White, uci: "e2e4".into(), san: "e4".into(), ours: true };
        host.heard(Update::Game { id: "AbCd1234".into(), action: Action::Move(website) }, &before);
        host.committed(&played("e2", "e4"), None);
        assert!(host.outbox.is_empty() && host.said.is_empty());
        // Without a website move, the board's is sent.
        let mut host = host_playing_white();
        host.committed(&played("e2", "e4"), None);
        assert_eq!(host.outbox, [GameCommand::Move { uci: "e2e4".into(), offering_draw: false }]);
    }

    #[test]
    fn the_servers_clocks_are_the_games_from_every_state() {
        let s = session(Some("1800+5"));
        let clocks = |white_ms, black_ms, running: bool| Clocks {
            white_ms,
            black_ms,
            white_inc_ms: 5000,
            black_inc_ms: 5000,
            running: running.then_some(Color::White),
        };
        assert_eq!(
            server_clock(&clocks(1_800_000, 1_799_000, true), &s),
            Some(Input::ServerClock { white_ms: 1_800_000, black_ms: 1_799_000, running: true })
        );
        assert_eq!(
            server_clock(&clocks(-5, 99_999_999, false), &s),
            Some(Input::ServerClock { white_ms: 0, black_ms: 35_999_000, running: false }),
            "within what a clock shows"
        );
        assert_eq!(server_clock(&clocks(1_700_000, 1_800_000, true), &session(None)), None, "a game without a clock");
    }
}
