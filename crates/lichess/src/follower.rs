//! Following one game of the Board API: the server's game stream
//! (`gameFull`, `gameState`, `chatLine`, `opponentGone`) and the moves the
//! board completes go in; what the owner must do comes out ([`Action`]).
//! Pure and deterministic: no clock, no network — the driver reports what
//! became of each request, and when it opened a stream.
//!
//! The board's game (the *line*) and the server's move list are kept
//! equal. Our move, once the board completed it, is *pending* until the
//! server's list shows it:
//!
//! ```text
//!   our_move ──▶ Sending ── 200 ──▶ Posted ── the list shows it ──▶ Confirmed
//!                  │ 400                        a later stream's gameFull lacks it ──▶ TakenBack
//!                  ▼
//!               Verifying ── a later stream's gameFull ──▶ has it: Confirmed / lacks it: Refused
//!   Sending ── no answer (network, 5xx, 429) ──▶ Uncertain ── a later stream's gameFull ──▶ has it: Confirmed
//!                                                                                     lacks it: sent again
//!   resumed from a journal, the last move ours and not on the server: Unsent ── first gameFull ──▶ sent
//!   any state ── the list has another move at that ply ──▶ Refused (the board goes back)
//! ```
//!
//! A move is sent again only when a stream opened after its failure shows
//! the server does not have it: a move in the server's list is never sent
//! again, whatever the reconnections, restarts and lost answers.

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{ByColor, CastlingMode, Chess, Color, KnownOutcome, Move, Outcome, Position};

use crate::wire::{
    ClockSetup, GameEvent, GameFull, GameState, InitialFen, OpponentGone, Player, Room, Speed, Status, VariantKey,
};

/// Chat text longer than this is cut (Lichess's own limit is far lower).
const MAX_CHAT: usize = 500;

/// What the owner of the game must do, or know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// The first `gameFull`: the game as the server has it.
    Started(Box<Started>),
    /// The server has a move the board has not: carry it out on the board.
    /// The opponent's, or ours made elsewhere (on the website).
    Move(ServerMove),
    /// POST our move: `POST /api/board/game/{id}/move/{uci}`; report the
    /// outcome with [`Follower::sent`].
    Send {
        ply: u32,
        uci: String,
        offering_draw: bool,
    },
    /// Our move is in the server's list.
    Confirmed {
        ply: u32,
        uci: String,
    },
    /// Reopen the game stream (and call [`Follower::stream_opened`]): only
    /// a `gameFull` from a stream opened now tells what became of our move.
    Resync,
    /// The server does not have our move of `ply`: the board goes back to
    /// the position before it, where `ply` is to be made again.
    Refused {
        ply: u32,
        uci: String,
        why: Refusal,
    },
    /// Moves were taken back on the server: the board goes back to the
    /// position where `ply` is to be made.
    TakenBack {
        ply: u32,
    },
    /// The clocks as the server has them now.
    Clocks(Clocks),
    /// A draw or takeback offer stands (`open`), or no longer does.
    Offer {
        kind: OfferKind,
        by: Color,
        open: bool,
    },
    /// The opponent left the game, or came back; a win can be claimed in
    /// `claim_win_in_s` seconds (0: now).
    OpponentGone {
        gone: bool,
        claim_win_in_s: Option<u32>,
    },
    Chat {
        room: Room,
        username: String,
        text: String,
    },
    /// The game is over.
    Ended(Ending),
}

/// The game as the first `gameFull` gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    pub id: String,
    /// The side the account plays.
    pub color: Color,
    pub white: Player,
    pub black: Player,
    /// None: correspondence or unlimited.
    pub clock: Option<ClockSetup>,
    pub speed: Option<Speed>,
    pub rated: bool,
    pub variant: VariantKey,
    /// The start position, when it is not the standard one.
    pub initial_fen: Option<Fen>,
    /// The ply to be made now (1: White's first move).
    pub ply: u32,
    /// How many moves the server's list held when the board began
    /// following the game: moves made before the board knew of it, unless
    /// its journal holds them.
    pub played: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerMove {
    /// 1 = White's first move of the game (counted from the start
    /// position's move number, as tactus-core counts).
    pub ply: u32,
    pub side: Color,
    /// In the notation the game's castling takes: `e1g1` in standard
    /// chess, king takes rook (`e1h1`) in Chess960.
    pub uci: String,
    pub san: String,
    /// Ours, made elsewhere.
    pub ours: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The server answered 400 with this error.
    Server(String),
    /// The server has another move at that ply (made elsewhere).
    Superseded { uci: String },
    /// The game ended before the move counted.
    GameOver,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clocks {
    pub white_ms: i64,
    pub black_ms: i64,
    pub white_inc_ms: i64,
    pub black_inc_ms: i64,
    /// The side whose clock runs: none before each side has moved (Lichess
    /// starts the clocks then) nor once the game is over.
    pub running: Option<Color>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfferKind {
    Draw,
    Takeback,
}

/// How the game ended, from the server's `status` and `winner`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ending {
    pub status: Status,
    pub winner: Option<Color>,
}

/// Why a game ended, in the terms a player hears.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    Checkmate,
    Resignation,
    Stalemate,
    /// A flag fell (`outoftime`); without a winner, the side with time
    /// could not mate.
    FlagFall,
    /// Agreed, or claimed by a rule (`draw`).
    Draw,
    /// `insufficientMaterialClaim`.
    InsufficientMaterial,
    /// The opponent left and the win (or draw) was claimed (`timeout`).
    OpponentLeft,
    Aborted,
    /// A player did not make the first move in time (`noStart`).
    NoStart,
    Cheat,
    VariantEnd,
    Unknown,
}

impl Ending {
    /// The game's result; unknown for a game aborted.
    pub fn outcome(&self) -> Outcome {
        match (self.status, self.winner) {
            (Status::Aborted, _) | (Status::NoStart, None) => Outcome::Unknown,
            (Status::UnknownFinish | Status::Unknown, None) => Outcome::Unknown,
            (_, winner) => Outcome::Known(KnownOutcome::from_winner(winner)),
        }
    }

    /// The result as PGN spells it: `1-0`, `0-1`, `1/2-1/2`, or `*` for a
    /// game aborted.
    pub fn result(&self) -> &'static str {
        self.outcome().as_str()
    }

    pub fn reason(&self) -> EndReason {
        match self.status {
            Status::Mate => EndReason::Checkmate,
            Status::Resign => EndReason::Resignation,
            Status::Stalemate => EndReason::Stalemate,
            Status::Outoftime => EndReason::FlagFall,
            Status::Draw => EndReason::Draw,
            Status::InsufficientMaterialClaim => EndReason::InsufficientMaterial,
            Status::Timeout => EndReason::OpponentLeft,
            Status::Aborted => EndReason::Aborted,
            Status::NoStart => EndReason::NoStart,
            Status::Cheat => EndReason::Cheat,
            Status::VariantEnd => EndReason::VariantEnd,
            Status::Created | Status::Started | Status::UnknownFinish | Status::Unknown => EndReason::Unknown,
        }
    }
}

/// What the driver learnt of a POSTed move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    /// 200: the server took it.
    Accepted,
    /// 400: the server says no (its `error`) — or it already had the move.
    Refused(String),
    /// No answer that says: the connection failed, 5xx, 429, a timeout.
    Unknown,
}

/// Why the board's move cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error("the game has not started yet")]
    NotStarted,
    #[error("the game is over")]
    Over,
    #[error("it is not our turn")]
    NotOurTurn,
    #[error("our previous move still waits for the server")]
    Waiting,
    #[error("{0} is not a legal move here")]
    Illegal(String),
}

/// What the server sent that cannot be followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FollowError {
    #[error("the variant {0} cannot be played on the board")]
    Variant(VariantKey),
    #[error("the start position {0:?} is not one the board can set up")]
    Fen(String),
    #[error("the server's move {uci:?} at ply {ply} is not legal: its move list is skipped")]
    Moves { ply: u32, uci: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum PendingState {
    /// Resumed from a journal: not yet sent by this run.
    Unsent,
    Sending,
    Posted,
    Verifying(String),
    Uncertain,
}

#[derive(Debug, Clone)]
struct Pending {
    mv: Move,
    ply: u32,
    offering_draw: bool,
    state: PendingState,
    /// The stream generation when the state was last learnt: a `gameFull`
    /// of a later stream is the server's word on the move.
    learnt_in: u64,
}

/// The server's move list as last read, kept so that a longer list is
/// read from where the last one ended.
#[derive(Debug, Clone)]
struct ServerLine {
    text: String,
    moves: Vec<Move>,
    pos: Chess,
}

#[derive(Debug, Clone)]
struct Game {
    id: String,
    start: Chess,
    mode: CastlingMode,
    /// Plies before the start position.
    start_ply: u32,
    /// The board's game: every move the owner has been told of or made
    /// and the server has shown (the pending move aside).
    line: Vec<Move>,
    pos: Chess,
}

impl Game {
    fn new(full: &GameFull) -> Result<Game, FollowError> {
        let mode = match &full.variant.key {
            VariantKey::Standard | VariantKey::FromPosition => CastlingMode::Standard,
            VariantKey::Chess960 => CastlingMode::Chess960,
            other => return Err(FollowError::Variant(other.clone())),
        };
        let start: Chess = match &full.initial_fen {
            InitialFen::StartPos => Chess::default(),
            InitialFen::Fen(fen) => fen.clone().into_position(mode).map_err(|_| FollowError::Fen(fen.to_string()))?,
            InitialFen::Unreadable(text) => return Err(FollowError::Fen(text.clone())),
        };
        let start_ply = (start.fullmoves().get() - 1) * 2 + u32::from(start.turn() == Color::Black);
        Ok(Game { id: full.id.clone(), pos: start.clone(), start, mode, start_ply, line: Vec::new() })
    }

    /// The ply of the move at `index` of the line.
    fn ply(&self, index: usize) -> u32 {
        self.start_ply + index as u32 + 1
    }

    fn uci(&self, m: Move) -> String {
        UciMove::from_move(m, self.mode).to_string()
    }

    fn push(&mut self, m: Move) {
        self.pos.play_unchecked(m);
        self.line.push(m);
    }

    fn truncate(&mut self, len: usize) {
        self.line.truncate(len);
        self.pos = self.start.clone();
        for &m in &self.line {
            self.pos.play_unchecked(m);
        }
    }
}

impl ServerLine {
    fn new(start: &Chess) -> ServerLine {
        ServerLine { text: String::new(), moves: Vec::new(), pos: start.clone() }
    }

    /// Reads the server's list, from where the last one ended when it goes on.
    fn read(&mut self, text: &str, g: &Game) -> Result<(), FollowError> {
        let goes_on = text.starts_with(self.text.as_str())
            && (self.text.is_empty() || text.len() == self.text.len() || text.as_bytes()[self.text.len()] == b' ');
        if !goes_on {
            *self = ServerLine::new(&g.start);
        }
        for token in text[self.text.len()..].split_ascii_whitespace() {
            let ply = g.ply(self.moves.len());
            let m = UciMove::from_ascii(token.as_bytes()).ok().and_then(|u| u.to_move(&self.pos).ok());
            let Some(m) = m else {
                *self = ServerLine::new(&g.start);
                return Err(FollowError::Moves { ply, uci: token.chars().take(16).collect() });
            };
            self.pos.play_unchecked(m);
            self.moves.push(m);
        }
        self.text.clear();
        self.text.push_str(text);
        Ok(())
    }
}

/// One game followed for the account that plays `color`.
#[derive(Debug, Clone)]
pub struct Follower {
    color: Color,
    /// The board's moves from a journal, read against the first `gameFull`.
    resumed: Option<Vec<String>>,
    game: Option<Game>,
    server: ServerLine,
    pending: Option<Pending>,
    /// Streams opened so far.
    stream: u64,
    ended: Option<Ending>,
    offers: ByColor<[bool; 2]>,
    clocks: Option<Clocks>,
    gone: Option<OpponentGone>,
    out: Vec<Action>,
}

impl Follower {
    /// A game the board starts now.
    pub fn new(color: Color) -> Follower {
        Follower::resume(color, Vec::new())
    }

    /// A game the board already played `moves` of (UCI, from its journal):
    /// after a restart. The first `gameFull` says which of them the server
    /// has; the last one, if ours and not on the server, is sent.
    pub fn resume(color: Color, moves: Vec<String>) -> Follower {
        Follower {
            color,
            resumed: Some(moves),
            game: None,
            server: ServerLine::new(&Chess::default()),
            pending: None,
            stream: 0,
            ended: None,
            offers: ByColor::new_with(|_| [false; 2]),
            clocks: None,
            gone: None,
            out: Vec::new(),
        }
    }

    pub fn color(&self) -> Color {
        self.color
    }

    /// The game's id, once its `gameFull` came.
    pub fn id(&self) -> Option<&str> {
        self.game.as_ref().map(|g| g.id.as_str())
    }

    pub fn ending(&self) -> Option<Ending> {
        self.ended
    }

    /// The ply of our move that waits for the server's word, if one does.
    pub fn pending_ply(&self) -> Option<u32> {
        self.pending.as_ref().map(|p| p.ply)
    }

    /// Our move whose POST Lichess has not answered with a 200 (not sent
    /// yet, in flight, or its answer lost): its ply and UCI. A move Lichess
    /// took (`Posted`) is not one.
    pub fn unanswered(&self) -> Option<(u32, String)> {
        let p = self.pending.as_ref().filter(|p| p.state != PendingState::Posted)?;
        Some((p.ply, self.game.as_ref()?.uci(p.mv)))
    }

    /// The board's game in UCI: every move it holds, ours pending included.
    pub fn line(&self) -> Vec<String> {
        let Some(g) = &self.game else { return Vec::new() };
        let mut line: Vec<String> = g.line.iter().map(|&m| g.uci(m)).collect();
        line.extend(self.pending.as_ref().map(|p| g.uci(p.mv)));
        line
    }

    /// The position the board's game has reached.
    pub fn position(&self) -> Option<Chess> {
        let g = self.game.as_ref()?;
        let mut pos = g.pos.clone();
        if let Some(p) = &self.pending {
            pos.play_unchecked(p.mv);
        }
        Some(pos)
    }

    /// Every action since the last drain, in order.
    pub fn drain(&mut self) -> std::vec::Drain<'_, Action> {
        self.out.drain(..)
    }

    /// The driver opened (requested) a new game stream; lines of older
    /// streams are not fed any more.
    pub fn stream_opened(&mut self) {
        self.stream += 1;
    }

    /// A line of the game stream.
    pub fn server(&mut self, event: GameEvent) -> Result<(), FollowError> {
        match event {
            GameEvent::GameFull(full) => self.full(&full),
            GameEvent::GameState(state) => self.state(&state, false),
            GameEvent::ChatLine(c) => {
                self.out.push(Action::Chat {
                    room: c.room,
                    username: c.username.chars().take(40).collect(),
                    text: c.text.chars().take(MAX_CHAT).collect(),
                });
                Ok(())
            }
            GameEvent::OpponentGone(g) => {
                if self.gone != Some(g) {
                    self.gone = Some(g);
                    self.out.push(Action::OpponentGone { gone: g.gone, claim_win_in_s: g.claim_win_in_seconds });
                }
                Ok(())
            }
            GameEvent::Other => Ok(()),
        }
    }

    /// The board completed our move (UCI, either castling notation).
    pub fn our_move(&mut self, uci: &str, offering_draw: bool) -> Result<(), MoveError> {
        let g = self.game.as_ref().ok_or(MoveError::NotStarted)?;
        if self.ended.is_some() {
            return Err(MoveError::Over);
        }
        if self.pending.is_some() {
            return Err(MoveError::Waiting);
        }
        if g.pos.turn() != self.color {
            return Err(MoveError::NotOurTurn);
        }
        let illegal = || MoveError::Illegal(uci.chars().take(16).collect());
        let mv = UciMove::from_ascii(uci.as_bytes()).map_err(|_| illegal())?.to_move(&g.pos).map_err(|_| illegal())?;
        let ply = g.ply(g.line.len());
        self.out.push(Action::Send { ply, uci: g.uci(mv), offering_draw });
        self.pending = Some(Pending { mv, ply, offering_draw, state: PendingState::Sending, learnt_in: self.stream });
        Ok(())
    }

    /// What became of the POST of our move of `ply`. Answers for a move no
    /// longer pending are stale and dropped.
    pub fn sent(&mut self, ply: u32, outcome: Sent) {
        let stream = self.stream;
        let Some(p) = &mut self.pending else { return };
        if p.ply != ply || p.state != PendingState::Sending {
            return;
        }
        p.learnt_in = stream;
        match outcome {
            Sent::Accepted => p.state = PendingState::Posted,
            Sent::Refused(why) => {
                p.state = PendingState::Verifying(why);
                self.out.push(Action::Resync);
            }
            Sent::Unknown => {
                p.state = PendingState::Uncertain;
                self.out.push(Action::Resync);
            }
        }
    }

    fn full(&mut self, full: &GameFull) -> Result<(), FollowError> {
        if self.game.is_none() {
            let mut game = Game::new(full)?;
            let mut server = ServerLine::new(&game.start);
            server.read(&full.state.moves, &game)?;
            let mut resumed_len = 0;
            for uci in self.resumed.take().unwrap_or_default() {
                let Some(m) = UciMove::from_ascii(uci.as_bytes()).ok().and_then(|u| u.to_move(&game.pos).ok()) else {
                    break;
                };
                game.push(m);
                resumed_len += 1;
            }
            self.out.push(Action::Started(Box::new(Started {
                id: full.id.clone(),
                color: self.color,
                white: full.white.clone(),
                black: full.black.clone(),
                clock: full.clock,
                speed: full.speed,
                rated: full.rated,
                variant: full.variant.key.clone(),
                initial_fen: match &full.initial_fen {
                    InitialFen::Fen(fen) => Some(fen.clone()),
                    InitialFen::StartPos | InitialFen::Unreadable(_) => None,
                },
                ply: game.ply(resumed_len),
                played: server.moves.len() as u32,
            })));
            // The board's last move, ours and not on the server: it becomes
            // pending, and is sent once the server's word on it is in.
            let on_server = server.moves.len();
            if game.line.len() == on_server + 1
                && game.line[..on_server] == server.moves[..]
                && game.pos.turn() != self.color
            {
                let mv = game.line[on_server];
                let ply = game.ply(on_server);
                game.truncate(on_server);
                self.pending =
                    Some(Pending { mv, ply, offering_draw: false, state: PendingState::Unsent, learnt_in: 0 });
            }
            self.game = Some(game);
            self.server = server;
        }
        self.state(&full.state, true)
    }

    fn state(&mut self, state: &GameState, full: bool) -> Result<(), FollowError> {
        let Some(g) = &mut self.game else { return Ok(()) };
        self.server.read(&state.moves, g)?;
        let server = &self.server.moves;
        let ongoing = state.status.is_ongoing() && self.ended.is_none();

        // Moves the server no longer has: taken back.
        let common = g.line.iter().zip(server).take_while(|(a, b)| a == b).count();
        if common < g.line.len() {
            g.truncate(common);
            self.pending = None;
            self.out.push(Action::TakenBack { ply: g.ply(common) });
        }

        if let Some(p) = self.pending.take() {
            let at = g.line.len();
            // The server's word, when the stream was opened after what we
            // last learnt of the move.
            let word = full && self.stream > p.learnt_in;
            match server.get(at) {
                Some(&m) if m == p.mv => {
                    self.out.push(Action::Confirmed { ply: p.ply, uci: g.uci(p.mv) });
                    g.push(m);
                }
                Some(&m) => self.out.push(Action::Refused {
                    ply: p.ply,
                    uci: g.uci(p.mv),
                    why: Refusal::Superseded { uci: g.uci(m) },
                }),
                None if !ongoing => {
                    self.out.push(Action::Refused { ply: p.ply, uci: g.uci(p.mv), why: Refusal::GameOver })
                }
                None if !word => self.pending = Some(p),
                None => match p.state {
                    PendingState::Unsent | PendingState::Uncertain => {
                        self.out.push(Action::Send { ply: p.ply, uci: g.uci(p.mv), offering_draw: p.offering_draw });
                        self.pending = Some(Pending { state: PendingState::Sending, learnt_in: self.stream, ..p });
                    }
                    PendingState::Verifying(why) => {
                        self.out.push(Action::Refused { ply: p.ply, uci: g.uci(p.mv), why: Refusal::Server(why) })
                    }
                    // Taken, then taken back before a line showed it.
                    PendingState::Posted => self.out.push(Action::TakenBack { ply: p.ply }),
                    PendingState::Sending => self.pending = Some(p),
                },
            }
        }

        for (i, &m) in server.iter().enumerate().skip(g.line.len()) {
            let side = g.pos.turn();
            let san = SanPlus::from_move(g.pos.clone(), m).to_string();
            self.out.push(Action::Move(ServerMove {
                ply: g.ply(i),
                side,
                uci: g.uci(m),
                san,
                ours: side == self.color,
            }));
            g.push(m);
        }

        if ongoing {
            let offers = ByColor { white: [state.wdraw, state.wtakeback], black: [state.bdraw, state.btakeback] };
            for by in Color::ALL {
                for (i, kind) in [OfferKind::Draw, OfferKind::Takeback].into_iter().enumerate() {
                    let open = offers.get(by)[i];
                    if open != self.offers.get(by)[i] {
                        self.out.push(Action::Offer { kind, by, open });
                    }
                }
            }
            self.offers = offers;
        }

        let started = g.line.len() >= 2;
        let clocks = Clocks {
            white_ms: state.wtime,
            black_ms: state.btime,
            white_inc_ms: state.winc,
            black_inc_ms: state.binc,
            running: (ongoing && started).then(|| g.pos.turn()),
        };
        // A stream's first line gives them again, changed or not: the
        // times after a while away (a reconnection, a restart).
        if full || self.clocks != Some(clocks) {
            self.clocks = Some(clocks);
            self.out.push(Action::Clocks(clocks));
        }

        if !state.status.is_ongoing() && self.ended.is_none() {
            if let Some(p) = self.pending.take() {
                self.out.push(Action::Refused { ply: p.ply, uci: g.uci(p.mv), why: Refusal::GameOver });
            }
            let ending = Ending { status: state.status, winner: state.winner.map(Color::from) };
            self.ended = Some(ending);
            self.out.push(Action::Ended(ending));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
