//! The engine as an opponent: the opening book, the level, restarts of a
//! crashed or hung engine, resigning and draw offers, and hints.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

use crate::book::{Book, BookError};
use crate::conduct::{Conduct, Judge, Stance};
use crate::engine::{Engine, EngineConfig, EngineError, EngineId, Search};
use crate::level::{self, Level, LevelPlan, Pick, Picked};
use crate::line::Line;
use crate::process::Ended;
use crate::protocol::{ClockTimes, Go, Score, UciOption};

/// Everything about the engine opponent that the configuration sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpponentConfig {
    pub engine: EngineConfig,
    pub level: Level,
    /// A Polyglot book, used in standard chess.
    pub book: Option<PathBuf>,
    /// The book is used for the game's first this many plies.
    pub book_plies: u32,
    /// Syzygy tablebases, handed to an engine that offers `SyzygyPath`.
    pub syzygy: Option<PathBuf>,
    /// Thinking time per move at full strength when the game has no clock.
    pub think_ms: u64,
    /// Restarts for one request before giving up.
    pub max_restarts: u32,
    /// Seeds the book's and the weak levels' choices.
    pub seed: u64,
}

impl OpponentConfig {
    pub fn new(engine: EngineConfig, level: Level) -> OpponentConfig {
        OpponentConfig {
            engine,
            level,
            book: None,
            book_plies: 20,
            syzygy: None,
            think_ms: 2000,
            max_restarts: 2,
            seed: 0x7ac7_05e1,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OpponentError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Book(#[from] BookError),
    #[error("no legal move to choose: the game is over")]
    NoLegalMove,
    #[error("gave up after {restarts} restarts of the engine: {last}")]
    GaveUp { restarts: u32, last: EngineError },
}

/// Where the move came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Book,
    /// The engine's own choice.
    Engine,
    /// Another of the engine's lines, picked by a weak level (1-based
    /// MultiPV index).
    Line(u32),
    /// Any legal move, picked by a weak level.
    Random,
}

/// The engine's move, and what comes with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub mv: Move,
    /// In the game's castling notation (king takes rook in Chess960).
    pub uci: String,
    pub san: String,
    pub source: Source,
    /// The engine's evaluation from its own point of view (none from the
    /// book).
    pub score: Option<Score>,
    /// The engine's best line from the position, legal moves only.
    pub pv: Vec<Move>,
    pub stance: Stance,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// The engine's own account of its search time.
    pub engine_ms: Option<u64>,
    /// From the request to the choice, restarts included.
    pub elapsed: Duration,
    /// Engine restarts this request needed.
    pub restarts: u32,
}

/// A suggestion for the player, at the engine's full strength.
#[derive(Debug, Clone, PartialEq)]
pub struct Hint {
    pub mv: Move,
    pub san: String,
    /// From the player's point of view.
    pub score: Option<Score>,
    pub pv: Vec<Move>,
}

/// A UCI engine playing one side of the game.
#[derive(Debug)]
pub struct Opponent {
    config: OpponentConfig,
    engine: Option<Engine>,
    id: EngineId,
    offered: Vec<UciOption>,
    plan: LevelPlan,
    book: Option<Book>,
    rng: SmallRng,
    judge: Judge,
    chess960: bool,
    restarts: u32,
}

impl Opponent {
    /// Starts the engine and opens the book: a bad path or an engine that
    /// does not speak UCI is reported now, not at the first move.
    pub async fn start(config: OpponentConfig) -> Result<Opponent, OpponentError> {
        let book = config.book.as_ref().map(Book::open).transpose()?;
        let engine = Engine::start(&config.engine).await?;
        let offered = engine.options().to_vec();
        let mut opponent = Opponent {
            plan: level::plan(config.level, &offered),
            id: engine.id().clone(),
            offered,
            rng: SmallRng::seed_from_u64(config.seed),
            judge: Judge::new(Conduct::for_level(config.level)),
            engine: Some(engine),
            book,
            chess960: false,
            restarts: 0,
            config,
        };
        opponent.prepare_engine().await?;
        Ok(opponent)
    }

    pub fn engine_id(&self) -> &EngineId {
        &self.id
    }

    pub fn offered_options(&self) -> &[UciOption] {
        &self.offered
    }

    pub fn level(&self) -> Level {
        self.plan.level
    }

    pub fn plan(&self) -> &LevelPlan {
        &self.plan
    }

    /// Engine restarts so far.
    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    /// The process id of the running engine (none while it is down).
    pub fn engine_pid(&self) -> Option<u32> {
        self.engine.as_ref().and_then(Engine::pid)
    }

    /// Changes the level from the next move on.
    pub fn set_level(&mut self, level: Level) {
        self.plan = level::plan(level, &self.offered);
        self.judge.set_conduct(Conduct::for_level(level));
    }

    /// A new game: `ucinewgame`, Chess960 on or off, scores forgotten.
    pub async fn new_game(&mut self, chess960: bool) -> Result<(), OpponentError> {
        self.chess960 = chess960;
        self.judge.reset();
        if chess960 && !self.offers("UCI_Chess960") {
            return Err(EngineError::NoChess960 { program: self.config.engine.program.clone() }.into());
        }
        if let Err(e) = self.prepare_engine().await {
            // A fresh engine is started at the next request.
            self.drop_engine().await;
            if !e.calls_for_restart() {
                return Err(e.into());
            }
        }
        Ok(())
    }

    /// Moves were taken back: the scores seen so far no longer count.
    pub fn take_back(&mut self) {
        self.judge.reset();
    }

    /// Whether the engine accepts the player's draw offer now.
    pub fn accepts_draw(&self) -> bool {
        self.judge.accepts_draw()
    }

    /// The engine's move in the position at the end of `line`, with the
    /// game's clock times if it has a clock. A crashed or hung engine is
    /// restarted and asked again (the moves in `line` stand); its clock
    /// times are reduced by the time lost.
    pub async fn choose(&mut self, line: &Line, clock: Option<ClockTimes>) -> Result<Choice, OpponentError> {
        let started = Instant::now();
        let pos = line.position().clone();
        if pos.legal_moves().is_empty() {
            return Err(OpponentError::NoLegalMove);
        }
        let ply = u32::try_from(line.moves().len()).unwrap_or(u32::MAX);
        if let Some(book) = &self.book
            && line.castling_mode() == CastlingMode::Standard
            && ply < self.config.book_plies
        {
            match book.choose(&pos, &mut self.rng) {
                Ok(Some(entry)) => {
                    return Ok(self.choice(line, entry.mv, Source::Book, None, started, 0));
                }
                Ok(None) => {}
                Err(e) => tracing::warn!("{e}: playing without the book"),
            }
        }
        let go = self.go(clock, pos.turn());
        let options = self.plan.options.clone();
        let (search, restarts) = self.search(line, go, &options, started).await?;
        let (mv, source) = match self.plan.pick {
            Pick::Best => (search.best, Source::Engine),
            Pick::Weakened { random_permille, spread_cp, .. } => {
                let lines = level::legal_first_moves(&pos, &search.lines);
                match level::pick_weakened(&pos, &lines, random_permille, spread_cp, &mut self.rng) {
                    Some((m, Picked::Best)) => (Some(m), Source::Engine),
                    Some((m, Picked::Line(n))) => (Some(m), Source::Line(n)),
                    Some((m, Picked::Random)) => (Some(m), Source::Random),
                    None => (search.best, Source::Engine),
                }
            }
        };
        let mv = mv.ok_or(OpponentError::NoLegalMove)?;
        let stance = match search.score() {
            Some(score) => self.judge.after_search(score, ply + 1),
            None => Stance::Play,
        };
        let mut choice = self.choice(line, mv, source, Some(&search), started, restarts);
        choice.stance = stance;
        Ok(choice)
    }

    /// The move the engine would play for the side to move at full
    /// strength, thinking `think`.
    pub async fn hint(&mut self, line: &Line, think: Duration) -> Result<Hint, OpponentError> {
        let pos = line.position().clone();
        if pos.legal_moves().is_empty() {
            return Err(OpponentError::NoLegalMove);
        }
        let go = Go { movetime_ms: Some(u64::try_from(think.as_millis()).unwrap_or(u64::MAX).max(1)), ..Go::default() };
        let options = level::full_strength(&self.offered);
        let (search, _) = self.search(line, go, &options, Instant::now()).await?;
        let mv = search.best.ok_or(OpponentError::NoLegalMove)?;
        Ok(Hint {
            mv,
            san: SanPlus::from_move(pos.clone(), mv).to_string(),
            score: search.score(),
            pv: legal_pv(&pos, &search),
        })
    }

    /// Makes sure the engine runs and answers (`isready`): one that does
    /// not is ended and a fresh one started, as before a request.
    pub async fn revive(&mut self) -> Result<(), OpponentError> {
        if let Some(engine) = &mut self.engine
            && let Err(e) = engine.sync().await
        {
            tracing::warn!("{e}; restarting the engine");
            self.drop_engine().await;
        }
        self.running().await?;
        Ok(())
    }

    /// Ends the engine: `quit`, then SIGTERM, then SIGKILL.
    pub async fn quit(mut self) -> Option<std::io::Result<Ended>> {
        match self.engine.take() {
            Some(engine) => Some(engine.quit().await),
            None => None,
        }
    }

    /// The search limits for a move: the level's depth or nodes, its time
    /// cap (never more than a share of the clock), the clock itself.
    fn go(&self, clock: Option<ClockTimes>, turn: shakmaty::Color) -> Go {
        let movetime_ms = match (clock, self.plan.movetime_cap_ms) {
            (None, cap) => Some(cap.unwrap_or(self.config.think_ms)),
            (Some(c), Some(cap)) => {
                let (own, inc) = turn.fold_wb((c.white_ms, c.white_inc_ms), (c.black_ms, c.black_inc_ms));
                Some(cap.min((own / 20).saturating_add(inc)).max(1))
            }
            (Some(_), None) => None,
        };
        Go { clock, depth: self.plan.depth, nodes: self.plan.nodes, movetime_ms }
    }

    /// One search, restarting the engine when it crashes or hangs.
    async fn search(
        &mut self,
        line: &Line,
        go: Go,
        options: &[(String, String)],
        started: Instant,
    ) -> Result<(Search, u32), OpponentError> {
        let turn = line.position().turn();
        let mut restarts = 0;
        loop {
            let go = less_elapsed(go, started.elapsed(), turn);
            let result = match self.running().await {
                Ok(engine) => search_with(engine, line, go, options).await,
                Err(e) => Err(e),
            };
            match result {
                Ok(search) => return Ok((search, restarts)),
                Err(e) if e.calls_for_restart() => {
                    self.drop_engine().await;
                    if restarts >= self.config.max_restarts {
                        return Err(OpponentError::GaveUp { restarts, last: e });
                    }
                    tracing::warn!("{e}; restarting the engine");
                    restarts += 1;
                    self.restarts += 1;
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// The engine, started and prepared if it is down.
    async fn running(&mut self) -> Result<&mut Engine, EngineError> {
        if self.engine.is_none() {
            self.engine = Some(Engine::start(&self.config.engine).await?);
            if let Err(e) = self.prepare_engine().await {
                self.drop_engine().await;
                return Err(e);
            }
        }
        self.engine.as_mut().ok_or_else(|| EngineError::Broken { program: self.config.engine.program.clone() })
    }

    /// Sets the game's options on the running engine and starts a game.
    async fn prepare_engine(&mut self) -> Result<(), EngineError> {
        let has_960 = self.offers("UCI_Chess960");
        let syzygy = self.config.syzygy.clone().filter(|_| self.offers("SyzygyPath"));
        if self.config.syzygy.is_some() && syzygy.is_none() {
            tracing::warn!(
                "engine {} has no SyzygyPath option: tablebases not used",
                self.config.engine.program.display()
            );
        }
        let chess960 = self.chess960;
        let Some(engine) = self.engine.as_mut() else { return Ok(()) };
        if has_960 {
            engine.set_option("UCI_Chess960", if chess960 { "true" } else { "false" }).await?;
        }
        if let Some(path) = syzygy {
            engine.set_option("SyzygyPath", &path.display().to_string()).await?;
        }
        engine.new_game().await
    }

    async fn drop_engine(&mut self) {
        if let Some(engine) = self.engine.take() {
            engine.kill().await;
        }
    }

    fn offers(&self, name: &str) -> bool {
        self.offered.iter().any(|o| o.name.eq_ignore_ascii_case(name))
    }

    fn choice(
        &self,
        line: &Line,
        mv: Move,
        source: Source,
        search: Option<&Search>,
        started: Instant,
        restarts: u32,
    ) -> Choice {
        let pos = line.position();
        Choice {
            mv,
            uci: mv.to_uci(line.castling_mode()).to_string(),
            san: SanPlus::from_move(pos.clone(), mv).to_string(),
            source,
            score: search.and_then(Search::score),
            pv: search.map(|s| legal_pv(pos, s)).unwrap_or_default(),
            stance: Stance::Play,
            depth: search.and_then(|s| s.depth),
            nodes: search.and_then(|s| s.nodes),
            engine_ms: search.and_then(|s| s.engine_ms),
            elapsed: started.elapsed(),
            restarts,
        }
    }
}

async fn search_with(
    engine: &mut Engine,
    line: &Line,
    go: Go,
    options: &[(String, String)],
) -> Result<Search, EngineError> {
    for (name, value) in options {
        engine.set_option(name, value).await?;
    }
    engine.search(line, go).await
}

/// The mover's clock less the time already spent on this request.
fn less_elapsed(mut go: Go, elapsed: Duration, turn: shakmaty::Color) -> Go {
    go.clock = go.clock.map(|c| c.after(turn, elapsed));
    go
}

/// The best line as legal moves from `pos`, cut at the first that is not.
fn legal_pv(pos: &Chess, search: &Search) -> Vec<Move> {
    let mut pos = pos.clone();
    let mut out = Vec::new();
    for uci in search.lines.first().map(|l| l.pv.as_slice()).unwrap_or_default() {
        let Ok(m) = UciMove::to_move(*uci, &pos) else { break };
        pos.play_unchecked(m);
        out.push(m);
    }
    out
}
