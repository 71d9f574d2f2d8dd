//! The engine opponent for tactus.
//!
//! - [`protocol`]: the UCI protocol as text (sans-IO), written from the
//!   protocol's description.
//! - [`Engine`]: one engine process over `tokio::process`: handshake,
//!   options, searches that end in a legal move, hang detection, shutdown.
//! - [`level`]: levels 0 (first games) to 10 (full strength), keyed on what
//!   the engine offers; below the engine's weakest setting tactus picks
//!   among its lines itself.
//! - [`book`]: Polyglot opening books.
//! - [`conduct`]: resigning and draw offers by the engine's score.
//! - [`Opponent`]: all of it together, restarting a crashed or hung engine.
//!
//! ```no_run
//! # async fn demo() -> Result<(), tactus_engine::OpponentError> {
//! use tactus_engine::{EngineConfig, Level, Line, Opponent, OpponentConfig};
//! let config = OpponentConfig::new(EngineConfig::new("/usr/games/stockfish"), Level::new(3).unwrap());
//! let mut opponent = Opponent::start(config).await?;
//! opponent.new_game(false).await?;
//! let mut line = Line::new(shakmaty::Chess::default());
//! line.push_uci("e2e4").unwrap();
//! let choice = opponent.choose(&line, None).await?;
//! println!("{} ({})", choice.san, choice.uci);
//! # Ok(()) }
//! ```

pub mod book;
pub mod conduct;
mod engine;
pub mod level;
mod line;
mod opponent;
mod process;
pub mod protocol;

pub use engine::{Engine, EngineConfig, EngineError, EngineId, PvLine, Search, Timeouts};
pub use level::Level;
pub use line::{Line, LineError};
pub use opponent::{Choice, Hint, Opponent, OpponentConfig, OpponentError, Source};
pub use process::{BoundedLines, Ended, EngineProcess, MAX_LINE};
