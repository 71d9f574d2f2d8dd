//! The daemon's configuration: a TOML file (`config/tactus.toml` documents
//! every key), with command-line flags on top (`daemon/args.rs`). Every
//! value is parsed into its type at the boundary — a number into a type
//! that knows its range (`ranged.rs`), a word into its enum or type
//! (`values.rs`) — by the file and the flags alike. A bad file is an error
//! that names the file, the line and the key (`errors.rs`, from TOML's
//! spans), whether its syntax, a value, or a value with its neighbours
//! (`check.rs`) is wrong. Once the flags are on top, the whole becomes one
//! [`Plan`] with at most one opponent (`opponent.rs`); the daemon runs the
//! plan.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`Config`], reading a file ([`Draft`]), the [`Plan`] |
//! | `board.rs` | `[board]`, `[clock]` |
//! | `game.rs` | `[game]`, `[voice]`, `[state]` |
//! | `hall.rs` | `[http]`, `[mqtt]`, `HallAccess` (the way to the hall's broker) |
//! | `opponent.rs` | `[engine]`, `[pair]`, `[lichess]`, [`OpponentPlan`] |
//! | `round.rs` | `[round]`: the relay's round from the pairing program's file |
//! | `ranged.rs` | the numbers, each with its range |
//! | `values.rs` | the words: time control, names, Lichess's address |
//! | `check.rs` | what only the whole shows |
//! | `errors.rs` | [`ConfigError`]: file, line, key |
//! | `keys.rs` | [`Key`], `key!`, and `keys::all`, the list of keys the tests hold the rest to |
//!
//! # Adding a key
//!
//! 1. A field in its table's struct, with a comment saying what it does;
//!    its type says what it takes: a number is a `ranged!` type (its
//!    range and what it counts, `ranged.rs`), a word an enum or a type
//!    with `FromStr` (`#[serde(deserialize_with = "parsed")]`); its default
//!    in the table's `Default`. The field's name is the key's name: no list
//!    names it again — `keys::all` reads the keys from the structs.
//! 2. The key in `config/tactus.toml` with its default, set or commented
//!    out, under a comment, and in `docs/operator-guide.md`'s table of keys
//!    (`config/tests.rs` fails until both have it).
//! 3. A flag, if it has one: a field of `daemon/args.rs`'s `Args` of the
//!    key's type, and one line `flag => table.key` in its `flags!` table
//!    (its test fails for a flag without a line, and the guide's table
//!    must list it).
//! 4. A rule between keys goes in `check.rs` (or `opponent.rs`), naming
//!    its key with `key!`, which the compiler checks.

use std::path::{Path, PathBuf};

use serde::Deserialize;

mod board;
mod check;
mod errors;
mod game;
mod hall;
pub mod keys;
mod opponent;
mod ranged;
mod round;
mod values;

#[cfg(test)]
mod tests;

pub use board::{BoardConfig, BoardKind, ClockConfig, ClockKind};
pub use errors::{At, ConfigError, KeyError};
pub use game::{GameConfig, Listener, StateConfig, VoiceConfig};
pub use hall::{HttpConfig, MqttConfig};
pub use keys::Key;
#[cfg(test)]
pub(crate) use keys::key;
pub use opponent::{
    EnginePlan, EngineSettings, LichessConfig, LichessPlan, OpponentPlan, PairClock, PairConfig, PartnerPlan, Side,
};
pub use ranged::{EngineLevel, RoundNumber, Speed};
pub use round::RoundConfig;
pub use values::{BoardId, LichessUrl, PlainName, TimeControlText};

/// The installed configuration, read when no `--config` is given.
pub const DEFAULT_PATH: &str = "/etc/tactus/tactus.toml";

/// The file's tables.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub board: BoardConfig,
    pub game: GameConfig,
    pub voice: VoiceConfig,
    pub clock: ClockConfig,
    pub engine: EngineSettings,
    pub http: HttpConfig,
    pub mqtt: MqttConfig,
    pub pair: PairConfig,
    pub lichess: LichessConfig,
    pub round: RoundConfig,
    pub state: StateConfig,
}

/// A configuration file as read: its path and its text, whose lines the
/// errors found once the flags are on top still name.
#[derive(Debug, Clone)]
struct Source {
    path: PathBuf,
    text: String,
}

/// A configuration with each value checked alone: the flags go on top of
/// it before the whole is checked, so that a `[pair]` in the file may have
/// its broker from `--mqtt`.
#[derive(Debug, Clone)]
pub struct Draft {
    pub config: Config,
    source: Option<Source>,
}

/// What `tactus run` runs: the configuration checked whole, once the flags
/// are on top, and the one opponent it names. The daemon seats the
/// opponent from here, never from the tables.
#[derive(Debug, Clone)]
pub struct Plan {
    pub config: Config,
    pub opponent: OpponentPlan,
    /// The file it came from, for messages.
    pub file: Option<PathBuf>,
}

impl Draft {
    /// The file `--config` names, else the installed one, else the
    /// built-in defaults.
    pub fn read(given: Option<&Path>) -> Result<Draft, ConfigError> {
        let default = Path::new(DEFAULT_PATH);
        let path = match given {
            Some(p) => p,
            None if default.exists() => default,
            None => return Ok(Draft::of(Config::default())),
        };
        let text = read(path)?;
        let config = values(path, &text)?;
        Ok(Draft { config, source: Some(Source { path: path.to_path_buf(), text }) })
    }

    /// A configuration made in code, from no file.
    pub fn of(config: Config) -> Draft {
        Draft { config, source: None }
    }

    /// The whole checked, as `tactus doctor` sees it: the configuration and
    /// its file.
    pub fn checked(self) -> Result<(Config, Option<PathBuf>), ConfigError> {
        self.whole()?;
        Ok((self.config, self.source.map(|s| s.path)))
    }

    /// The whole checked, with what running it needs: the plan.
    pub fn plan(self) -> Result<Plan, ConfigError> {
        let opponent = self.whole()?;
        if let Some(asking) = self.config.lichess.asking()
            && !matches!(opponent, OpponentPlan::Lichess(_))
        {
            let e = KeyError::new(
                asking,
                "online games need the account's token: [lichess] token_file or --lichess-token-file (scope board:play)",
            );
            return Err(self.located(e));
        }
        Ok(Plan { config: self.config, opponent, file: self.source.map(|s| s.path) })
    }

    fn whole(&self) -> Result<OpponentPlan, ConfigError> {
        self.config.check().map_err(|e| self.located(e))
    }

    fn located(&self, e: KeyError) -> ConfigError {
        errors::from_key(self.source.as_ref().map(|s| (s.path.as_path(), s.text.as_str())), e)
    }
}

/// Loads a config file, checked whole.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    parse(path, &read(path)?)
}

/// A config file's text, checked whole.
pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
    let draft = Draft { config: values(path, text)?, source: Some(Source { path: path.into(), text: text.into() }) };
    draft.checked().map(|(config, _)| config)
}

/// Where a configuration came from, for messages.
pub fn origin(file: Option<&Path>) -> String {
    At { file: file.map(Path::to_path_buf), line: None }.to_string()
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })
}

/// The file's values, each checked alone.
fn values(path: &Path, text: &str) -> Result<Config, ConfigError> {
    toml::from_str(text).map_err(|e| errors::from_toml(path, text, &e))
}
