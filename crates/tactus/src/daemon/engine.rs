//! The engine opponent in the daemon. A task of its own owns the UCI engine
//! (`tactus_engine::Opponent`: levels, book, restarts of a crashed or hung
//! engine) and answers one request at a time; the game task asks when the
//! engine is on move and journals the answer as an `opponent` input, so a
//! game against the engine replays exactly.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use shakmaty::uci::UciMove;
use shakmaty::{Color, Position};
use tactus_core::Session;
use tactus_engine::conduct::Stance;
use tactus_engine::protocol::{ClockTimes, Score as EngineScore};
use tactus_engine::{EngineConfig, Level, Line, Opponent, OpponentConfig, Source};
use tactus_trace::{Eval, Ms, PV_MAX, Score};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::config::{EngineSettings, EngineSide};

/// After a failed request the engine is asked again no sooner than this:
/// an engine that cannot be restarted is not restarted on every edge.
const RETRY_AFTER: Duration = Duration::from_secs(5);

/// How long the engine gets to quit when the daemon stops.
const QUIT_WAIT: Duration = Duration::from_secs(3);

enum Request {
    NewGame {
        chess960: bool,
    },
    Level(Level),
    /// Moves were taken back: the engine's judgement of the game so far
    /// (for resigning and draws) starts again.
    TakeBack,
    Choose {
        asked: Asked,
        line: Box<Line>,
        clock: Option<ClockTimes>,
    },
    Hint {
        asked: Asked,
        line: Box<Line>,
    },
}

/// The engine's answer to one request.
pub struct Answer {
    /// What it answers: answers for an earlier game, or for a position
    /// since taken back, are dropped.
    pub asked: Asked,
    pub answered: Answered,
}

pub enum Answered {
    /// Its move.
    Move(Result<Chosen, String>),
    /// Its suggestion for the player.
    Hint(Result<UciMove, String>),
}

/// How long the engine thinks, at full strength, about a hint.
const HINT_THINK: Duration = Duration::from_secs(1);

pub struct Chosen {
    pub uci: UciMove,
    /// Its score and line, when the move is the engine's own best.
    pub eval: Option<Eval>,
    pub san: String,
    pub stance: Stance,
    /// From the request to the choice inside the opponent: the engine's
    /// search, and its restarts.
    pub search: Duration,
    pub restarts: u32,
}

pub struct EngineHost {
    side: Color,
    requests: mpsc::Sender<Request>,
    pub answers: mpsc::Receiver<Answer>,
    /// What a move was asked for, and since when (the input that made the
    /// engine's turn).
    asked: Option<(Asked, Instant)>,
    /// The session's take-backs the engine has been told of.
    take_backs: u32,
    /// Whether the engine would accept a draw now, by its judgement after
    /// its latest move (kept by its task).
    accepts_draw: Arc<AtomicBool>,
    failed_at: Option<Instant>,
    /// Per move (the latest [`KEPT`]): the engine's search, and the time
    /// from the input that made its turn to its move announced besides it.
    timings: std::collections::VecDeque<(Duration, Duration)>,
    task: JoinHandle<()>,
}

/// The game, its take-backs and the ply a move was asked for: an answer
/// for a ply since taken back and played again is not for this position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asked {
    pub game: u32,
    pub take_backs: u32,
    pub ply: u32,
}

impl Asked {
    /// The position `session` is at, in the daemon's game number `game`.
    pub fn now(session: &Session, game: u32) -> Asked {
        Asked { game, take_backs: session.take_backs(), ply: session.game().ply() }
    }
}

/// How many moves' timings are kept for the summary.
const KEPT: usize = 10_000;

impl EngineHost {
    /// Starts the engine: a bad path, or a program that does not speak UCI,
    /// is reported now, naming it.
    pub async fn start(settings: &EngineSettings, path: &Path, chess960: bool) -> anyhow::Result<EngineHost> {
        let level = Level::new(settings.level)
            .ok_or_else(|| anyhow::anyhow!("engine.level {} is not a level (0 to 10)", settings.level))?;
        let mut config = OpponentConfig::new(EngineConfig::new(path), level);
        config.book = settings.book.clone();
        config.book_plies = settings.book_plies;
        config.syzygy = settings.syzygy.clone();
        config.think_ms = settings.think_ms;
        let mut opponent =
            Opponent::start(config).await.with_context(|| format!("the engine {} did not start", path.display()))?;
        opponent.new_game(chess960).await.with_context(|| format!("the engine {}", path.display()))?;
        tracing::info!(
            "the engine {} plays {} at level {}",
            opponent.engine_id().name,
            side_name(settings.plays),
            level.get()
        );
        let accepts_draw = Arc::new(AtomicBool::new(false));
        let judged = Arc::clone(&accepts_draw);
        let (requests, mut rx) = mpsc::channel::<Request>(4);
        let (tx, answers) = mpsc::channel::<Answer>(4);
        let task = tokio::spawn(async move {
            while let Some(request) = rx.recv().await {
                match request {
                    Request::NewGame { chess960 } => {
                        if let Err(e) = opponent.new_game(chess960).await {
                            tracing::error!("the engine's new game: {e}");
                        }
                    }
                    Request::Level(level) => opponent.set_level(level),
                    Request::TakeBack => {
                        opponent.take_back();
                        judged.store(opponent.accepts_draw(), Ordering::Relaxed);
                    }
                    Request::Choose { asked, line, clock } => {
                        let result = opponent
                            .choose(&line, clock)
                            .await
                            .map(|c| Chosen {
                                uci: UciMove::from_move(c.mv, line.castling_mode()),
                                eval: eval_of(&c, line.position().turn(), line.castling_mode()),
                                san: c.san,
                                stance: c.stance,
                                search: c.elapsed,
                                restarts: c.restarts,
                            })
                            .map_err(|e| e.to_string());
                        judged.store(opponent.accepts_draw(), Ordering::Relaxed);
                        if tx.send(Answer { asked, answered: Answered::Move(result) }).await.is_err() {
                            break;
                        }
                    }
                    Request::Hint { asked, line } => {
                        let result = opponent
                            .hint(&line, HINT_THINK)
                            .await
                            .map(|h| UciMove::from_move(h.mv, line.castling_mode()))
                            .map_err(|e| e.to_string());
                        if tx.send(Answer { asked, answered: Answered::Hint(result) }).await.is_err() {
                            break;
                        }
                    }
                }
            }
            let _ = opponent.quit().await;
        });
        Ok(EngineHost {
            side: settings.plays.color(),
            requests,
            answers,
            asked: None,
            take_backs: 0,
            accepts_draw,
            failed_at: None,
            timings: Default::default(),
            task,
        })
    }

    /// Asks for the engine's move when it is on move and waits for one;
    /// `since` is when the input that made its turn came in.
    pub fn ask(&mut self, session: &Session, game: u32, t: Ms, since: Instant) {
        if session.take_backs() != self.take_backs {
            self.take_backs = session.take_backs();
            self.asked = None;
            // Judged anew by the task; until then, no judgement to draw on.
            self.accepts_draw.store(false, Ordering::Relaxed);
            if let Err(e) = self.requests.try_send(Request::TakeBack) {
                tracing::error!("the engine is not taking requests: {e}");
            }
        }
        let asked = Asked::now(session, game);
        if !session.awaits_engine() || self.asked.is_some_and(|(a, _)| a == asked) {
            return;
        }
        if self.failed_at.is_some_and(|at| at.elapsed() < RETRY_AFTER) {
            return;
        }
        let Some(line) = line_of(session) else { return };
        let request = Request::Choose { asked, line: Box::new(line), clock: clock_times(session, t) };
        match self.requests.try_send(request) {
            Ok(()) => self.asked = Some((asked, since)),
            Err(e) => tracing::error!("the engine is not taking requests: {e}"),
        }
    }

    /// The player asked for a hint: the engine's suggestion at full
    /// strength, when the player is on move.
    pub fn ask_hint(&mut self, session: &Session, game: u32) {
        if session.finished() || session.game().turn() == self.side {
            return;
        }
        let Some(line) = line_of(session) else { return };
        let asked = Asked::now(session, game);
        if let Err(e) = self.requests.try_send(Request::Hint { asked, line: Box::new(line) }) {
            tracing::error!("the engine is not taking requests: {e}");
        }
    }

    /// The level was set at the board.
    pub fn set_level(&mut self, level: u8) {
        let Some(level) = Level::new(level) else { return };
        tracing::info!("the engine's level is now {}", level.get());
        if let Err(e) = self.requests.try_send(Request::Level(level)) {
            tracing::error!("the engine is not taking requests: {e}");
        }
    }

    /// The answer for the game and ply asked, with when the asking began;
    /// `None` for a stale one.
    pub fn take(&mut self, answer: &Answer) -> Option<Instant> {
        if !matches!(answer.answered, Answered::Move(_)) {
            return None;
        }
        let (asked, since) = self.asked?;
        if answer.asked != asked {
            return None;
        }
        self.asked = None;
        let Answered::Move(result) = &answer.answered else { return None };
        match result {
            Ok(_) => self.failed_at = None,
            Err(e) => {
                tracing::error!("the engine could not move: {e}; asking again in {} s", RETRY_AFTER.as_secs());
                self.failed_at = Some(Instant::now());
            }
        }
        Some(since)
    }

    /// A move announced: its search, and the time besides it.
    pub fn timed(&mut self, search: Duration, besides: Duration) {
        if self.timings.len() == KEPT {
            self.timings.pop_front();
        }
        self.timings.push_back((search, besides));
    }

    /// A new game on this board.
    pub fn new_game(&mut self, chess960: bool) {
        self.asked = None;
        self.take_backs = 0;
        self.failed_at = None;
        if let Err(e) = self.requests.try_send(Request::NewGame { chess960 }) {
            tracing::error!("the engine is not taking requests: {e}");
        }
    }

    /// Whether the engine accepts a draw offered now (9.1.2): by its score
    /// over its last moves, never at the weakest levels.
    pub fn accepts_draw(&self) -> bool {
        self.accepts_draw.load(Ordering::Relaxed)
    }

    /// The side the engine plays.
    pub fn side(&self) -> Color {
        self.side
    }

    /// Quits the engine (`quit`, then SIGTERM, then SIGKILL); a search
    /// under way is not waited for long.
    pub async fn stop(self) {
        if !self.timings.is_empty() {
            let ms = |d: Duration| d.as_secs_f64() * 1000.0;
            let (mut search, mut besides): (Vec<f64>, Vec<f64>) =
                self.timings.iter().map(|&(s, b)| (ms(s), ms(b))).unzip();
            tracing::info!(
                "the engine made {} moves: search p50 {:.1} ms; besides the search p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
                search.len(),
                percentile(&mut search, 0.5),
                percentile(&mut besides, 0.5),
                percentile(&mut besides, 0.95),
                percentile(&mut besides, 1.0)
            );
        }
        drop(self.requests);
        drop(self.answers);
        let mut task = self.task;
        if tokio::time::timeout(QUIT_WAIT, &mut task).await.is_err() {
            // Dropping the engine kills its process.
            task.abort();
            let _ = task.await;
        }
    }
}

/// The engine's view of its own best move, from White's point of view, for
/// the journal (and, in a game no arbiter supervises, the page).
fn eval_of(choice: &tactus_engine::Choice, turn: Color, mode: shakmaty::CastlingMode) -> Option<Eval> {
    if choice.source != Source::Engine || choice.pv.first() != Some(&choice.mv) {
        return None;
    }
    let white = |n: i32| if turn == Color::White { n } else { -n };
    let score = match choice.score? {
        EngineScore::Cp(cp) => Score::Cp(white(cp)),
        EngineScore::Mate(n) => Score::Mate(white(n)),
    };
    let mut pv = [None; PV_MAX];
    for (slot, m) in pv.iter_mut().zip(&choice.pv) {
        *slot = Some(UciMove::from_move(*m, mode));
    }
    Some(Eval { score, pv })
}

/// The game as the engine is told it: the start and the moves since.
fn line_of(session: &Session) -> Option<Line> {
    let mut line = Line::new(session.game().start().clone());
    for played in &session.game().played {
        if line.push_uci(&played.info.uci).is_err() {
            tracing::error!("the engine cannot be asked: {} does not follow in its line", played.info.uci);
            return None;
        }
    }
    Some(line)
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn side_name(side: EngineSide) -> &'static str {
    match side {
        EngineSide::White => "White",
        EngineSide::Black => "Black",
    }
}

/// The game's clock as the engine is told it (`wtime btime winc binc
/// movestogo`); none without a clock.
fn clock_times(session: &Session, t: Ms) -> Option<ClockTimes> {
    let clock = session.clock()?;
    let remaining = |side: Color| u64::try_from(clock.remaining(side, t)).unwrap_or(0);
    let turn = session.game().turn();
    let moves_to_go = session
        .time_control()
        .and_then(|tc| tc.next_control(clock.moves(turn)))
        .map(|control| control.at_move.saturating_sub(clock.moves(turn)).max(1));
    Some(ClockTimes {
        white_ms: remaining(Color::White),
        black_ms: remaining(Color::Black),
        white_inc_ms: clock.per_move_ms(Color::White),
        black_inc_ms: clock.per_move_ms(Color::Black),
        moves_to_go,
    })
}
