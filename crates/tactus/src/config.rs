//! The daemon's configuration: a TOML file (`config/tactus.toml` documents
//! every key), overridden by command-line flags. Every value is parsed into
//! its type here, at the boundary: a bad file is an error that names the
//! file, the line and the key, whether its syntax or a value is wrong.

use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Deserializer};
use tactus_dgt::protocol::ClockSide;
use tactus_lichess::broadcast::{PushOptions, RoundSpec};
use tactus_net::{Tags, Title};
use tactus_speech::{Choice, Readout, Touches};
use tactus_trace::{Supervision, Variant};

use crate::sink::VoiceSink;

/// The installed configuration, read when no `--config` is given.
pub const DEFAULT_PATH: &str = "/etc/tactus/tactus.toml";

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

/// Which sensors the board has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum BoardKind {
    /// A simulated board: a trace file, or lifts and places typed at the terminal.
    Sim,
    /// An 8×8 reed or hall matrix on 16 GPIOs (hardware/reed-matrix-gpio.md).
    GpioMatrix,
    /// The same matrix behind one MCP23017 I²C expander (hardware/mcp23017.md).
    Mcp23017,
    /// 64 hall sensors, one input each, on eight MCP23017s (hardware/hall-sensors.md).
    Hall,
    /// A DGT e-Board on USB or Bluetooth serial (`[board] dgt_path`).
    Dgt,
}

impl BoardKind {
    pub fn name(self) -> &'static str {
        match self {
            BoardKind::Sim => "sim",
            BoardKind::GpioMatrix => "gpio-matrix",
            BoardKind::Mcp23017 => "mcp23017",
            BoardKind::Hall => "hall",
            BoardKind::Dgt => "dgt",
        }
    }
}

impl fmt::Display for BoardKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How much faster than real time a simulated board plays: a finite factor
/// from 0.01 to 10,000, so that game time always fits a `Duration`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(try_from = "f64")]
pub struct Speed(f64);

impl Speed {
    pub const REAL_TIME: Speed = Speed(1.0);
    const RANGE: std::ops::RangeInclusive<f64> = 0.01..=10_000.0;

    pub fn factor(self) -> f64 {
        self.0
    }
}

impl TryFrom<f64> for Speed {
    type Error = String;
    fn try_from(v: f64) -> Result<Speed, String> {
        if Speed::RANGE.contains(&v) {
            Ok(Speed(v))
        } else {
            Err(format!("a speed factor from 0.01 to 10000, not {v:?}"))
        }
    }
}

impl FromStr for Speed {
    type Err = String;
    fn from_str(s: &str) -> Result<Speed, String> {
        let v: f64 = s.parse().map_err(|_| format!("{s:?} is not a number"))?;
        Speed::try_from(v)
    }
}

impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BoardConfig {
    pub kind: BoardKind,
    /// Scans per second of a sensor matrix.
    #[serde(deserialize_with = "ranged::board_scan_hz")]
    pub scan_hz: u32,
    /// `sim`: a trace to play (absent: lifts and places typed at the terminal).
    pub sim_trace: Option<PathBuf>,
    /// `sim`: how much faster than real time the trace plays.
    pub sim_speed: Speed,
    /// `gpio-matrix`: BCM numbers of the eight row outputs, rank 1 first.
    pub rows: [u8; 8],
    /// `gpio-matrix`: BCM numbers of the eight column inputs, file a first.
    pub cols: [u8; 8],
    /// `mcp23017`, `hall`: the I²C bus (`/dev/i2c-N`).
    pub i2c_bus: u8,
    /// `mcp23017`: the expander's address.
    #[serde(deserialize_with = "ranged::board_i2c_address")]
    pub i2c_address: u16,
    /// `hall`: the address of the expander of each rank, rank 1 first.
    pub hall_addresses: [u16; 8],
    /// Microseconds to let a column's pull-up recharge after a row that pulled it low.
    #[serde(deserialize_with = "ranged::board_settle_us")]
    pub settle_us: u64,
    /// The calibration: the square under each (row, column) wire pair, row
    /// by row; absent: a1 … h8 in wire order.
    #[serde(deserialize_with = "square_map")]
    pub squares: Option<tactus_board::SquareMap>,
    /// Be a DGT e-Board for chess software here: a serial device (a USB
    /// gadget port `/dev/ttyGS0`, Bluetooth `/dev/rfcomm0`), or else a
    /// pseudo-terminal whose other end is linked at this path.
    pub dgt_emulate: Option<PathBuf>,
    /// `dgt`: the DGT e-Board's serial device (USB `/dev/ttyACM0`, Bluetooth
    /// `/dev/rfcomm0`; tactus's udev rules name a USB one `/dev/tactus-dgt`).
    pub dgt_path: PathBuf,
}

impl Default for BoardConfig {
    fn default() -> Self {
        BoardConfig {
            kind: BoardKind::GpioMatrix,
            scan_hz: 100,
            sim_trace: None,
            sim_speed: Speed::REAL_TIME,
            rows: tactus_board::GpioConfig::DEFAULT_ROWS,
            cols: tactus_board::GpioConfig::DEFAULT_COLS,
            i2c_bus: 1,
            i2c_address: 0x20,
            hall_addresses: [0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27],
            settle_us: 20,
            squares: None,
            dgt_emulate: None,
            dgt_path: "/dev/tactus-dgt".into(),
        }
    }
}

impl BoardConfig {
    pub fn i2c_device(&self) -> PathBuf {
        PathBuf::from(format!("/dev/i2c-{}", self.i2c_bus))
    }
}

/// A time control in PGN `TimeControl` syntax (extended), checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeControlText(pub String);

impl FromStr for TimeControlText {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match tactus_clock::TimeControl::parse(s) {
            Err(e) if e.kind == tactus_clock::ParseErrorKind::NoTimeAtStart => Err(format!(
                "{s:?} starts the clocks at 0:00, so White's flag falls before the first move: give a start time (\"300\" is five minutes), or \"-\" for no clock"
            )),
            Err(e) => Err(e.to_string()),
            Ok(_) => Ok(TimeControlText(s.to_string())),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GameConfig {
    pub white: Option<String>,
    pub black: Option<String>,
    pub event: Option<String>,
    pub site: Option<String>,
    pub round: Option<String>,
    /// Each player's FIDE ID, title and rating, for the PGN and the
    /// broadcasts (`WhiteFideId`, `WhiteTitle`, `WhiteElo`, …).
    #[serde(deserialize_with = "ranged::game_white_fide_id")]
    pub white_fide_id: Option<u32>,
    #[serde(deserialize_with = "parsed_opt")]
    pub white_title: Option<Title>,
    #[serde(deserialize_with = "ranged::game_white_elo")]
    pub white_elo: Option<u16>,
    #[serde(deserialize_with = "ranged::game_black_fide_id")]
    pub black_fide_id: Option<u32>,
    #[serde(deserialize_with = "parsed_opt")]
    pub black_title: Option<Title>,
    #[serde(deserialize_with = "ranged::game_black_elo")]
    pub black_elo: Option<u16>,
    /// PGN `TimeControl` syntax, extended; `-` for no clock.
    #[serde(deserialize_with = "parsed")]
    pub time_control: TimeControlText,
    pub variant: Variant,
    /// A set-up or Chess960 start: its FEN.
    pub start_fen: Option<String>,
    pub supervision: Supervision,
    /// Milliseconds a sensor reading must hold to count.
    #[serde(deserialize_with = "ranged::game_debounce_ms")]
    pub debounce_ms: u64,
    /// Milliseconds a board must hold still before its move is announced.
    #[serde(deserialize_with = "ranged::game_settle_ms")]
    pub settle_ms: u64,
    /// Milliseconds a clock press waits for a piece still in the hand to land.
    #[serde(deserialize_with = "ranged::game_press_grace_ms")]
    pub press_grace_ms: u64,
}

impl GameConfig {
    /// The players' FIDE IDs, titles and ratings, on the game's tags.
    pub fn player_tags(&self, tags: Tags) -> Tags {
        Tags {
            white_fide_id: self.white_fide_id,
            white_title: self.white_title,
            white_elo: self.white_elo,
            black_fide_id: self.black_fide_id,
            black_title: self.black_title,
            black_elo: self.black_elo,
            ..tags
        }
    }
}

impl Default for GameConfig {
    fn default() -> Self {
        GameConfig {
            white: None,
            black: None,
            event: None,
            site: None,
            round: None,
            white_fide_id: None,
            white_title: None,
            white_elo: None,
            black_fide_id: None,
            black_title: None,
            black_elo: None,
            time_control: TimeControlText("5400+30".into()),
            variant: Variant::Standard,
            start_fen: None,
            supervision: Supervision::Arbiter,
            debounce_ms: 10,
            settle_ms: 100,
            press_grace_ms: 250,
        }
    }
}

/// The side of a blind player who announces their own moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Listener {
    White,
    Black,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VoiceConfig {
    #[serde(deserialize_with = "parsed")]
    pub sink: VoiceSink,
    /// Language and style: `en:natural`, `de:annex-d`, …
    #[serde(deserialize_with = "parsed")]
    pub say: Choice,
    /// Words per minute.
    #[serde(deserialize_with = "ranged::voice_rate")]
    pub rate: u32,
    /// An espeak-ng voice instead of the language's own (e.g. `de+f3`).
    pub espeak_voice: Option<String>,
    pub touches: Touches,
    pub listener: Option<Listener>,
    /// How the position is read out on request: `by-side` (each army, king
    /// first) or `by-rank` (rank 8 down to 1).
    pub readout: Readout,
    /// Seconds left at which a player is warned.
    #[serde(deserialize_with = "ranged::voice_time_warnings")]
    pub time_warnings: Vec<u64>,
}

impl Default for VoiceConfig {
    fn default() -> Self {
        VoiceConfig {
            sink: VoiceSink::Sound,
            say: "en:natural".parse().expect("a known choice"),
            rate: 160,
            espeak_voice: None,
            touches: Touches::Never,
            readout: Readout::BySide,
            listener: None,
            time_warnings: vec![300, 60, 10],
        }
    }
}

/// The chess clock's protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ClockKind {
    /// No clock device: the daemon keeps time alone.
    #[default]
    None,
    /// A home-made clock speaking the open line protocol (hardware/clock/).
    Open,
    /// A DGT 3000 through a DGT board's serial port.
    Dgt3000,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ClockConfig {
    pub device: ClockKind,
    /// The serial device; default `/dev/tactus-clock` (open) or `/dev/tactus-dgt` (dgt3000).
    pub path: Option<PathBuf>,
    /// Default 115200 (open) or 9600 (dgt3000).
    #[serde(deserialize_with = "ranged::clock_baud")]
    pub baud: Option<u32>,
    /// dgt3000 (or a DGT clock on a DGT board): the side of White's face,
    /// seen from the clock's front.
    #[serde(deserialize_with = "parsed")]
    pub white: ClockSide,
}

impl ClockConfig {
    pub fn path(&self) -> PathBuf {
        self.path.clone().unwrap_or_else(|| match self.device {
            ClockKind::Dgt3000 => "/dev/tactus-dgt".into(),
            _ => "/dev/tactus-clock".into(),
        })
    }

    pub fn baud(&self) -> u32 {
        self.baud.unwrap_or(match self.device {
            ClockKind::Dgt3000 => 9600,
            _ => 115_200,
        })
    }
}

/// The side a UCI engine plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum EngineSide {
    White,
    #[default]
    Black,
}

impl EngineSide {
    pub fn color(self) -> shakmaty::Color {
        match self {
            EngineSide::White => shakmaty::Color::White,
            EngineSide::Black => shakmaty::Color::Black,
        }
    }
}

/// A UCI engine as the opponent.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EngineSettings {
    /// The engine's program; none: two people play.
    pub path: Option<PathBuf>,
    pub plays: EngineSide,
    /// 0 (first games: loses to a beginner) to 10 (full strength).
    #[serde(deserialize_with = "ranged::engine_level")]
    pub level: u8,
    /// A Polyglot opening book.
    pub book: Option<PathBuf>,
    /// The book is used for this many plies of the game.
    #[serde(deserialize_with = "ranged::engine_book_plies")]
    pub book_plies: u32,
    /// Syzygy tablebases, for an engine that offers `SyzygyPath`.
    pub syzygy: Option<PathBuf>,
    /// Thinking time per move at full strength when the game has no clock (ms).
    #[serde(deserialize_with = "ranged::engine_think_ms")]
    pub think_ms: u64,
    /// A different legal move made for the engine's side is the player's
    /// own choice for it, not a slip to fix.
    pub accept_other_moves: bool,
}

impl EngineSettings {
    /// The side the engine plays, when one is configured.
    pub fn side(&self) -> Option<shakmaty::Color> {
        self.path.as_ref().map(|_| self.plays.color())
    }
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            path: None,
            plays: EngineSide::Black,
            level: 3,
            book: None,
            book_plies: 20,
            syzygy: None,
            think_ms: 2000,
            accept_other_moves: false,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct HttpConfig {
    /// Where to serve the live page and PGN feed; absent: no HTTP.
    pub listen: Option<SocketAddr>,
    /// Bearer token the arbiter's actions need; absent: actions are refused.
    pub token: Option<String>,
    /// The token in a file only the service may read (better than `token`).
    pub token_file: Option<PathBuf>,
    /// The built web page; default a checkout's `web/dist`, or `/usr/share/tactus/web`.
    pub assets: Option<PathBuf>,
}

/// The hall's MQTT broker, `host:port`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerAddr(pub tactus_net::Broker);

impl FromStr for BrokerAddr {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        s.parse().map(BrokerAddr).map_err(|e: tactus_net::MqttError| e.to_string())
    }
}

impl fmt::Display for BrokerAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct MqttConfig {
    #[serde(deserialize_with = "parsed_opt")]
    pub broker: Option<BrokerAddr>,
    #[serde(deserialize_with = "plain_name")]
    pub hall: String,
    #[serde(deserialize_with = "plain_name")]
    pub board_id: String,
    /// The hall key shared by the hall's boards and relays (a file only the
    /// service may read); absent: nothing is sealed and MQTT control is off.
    pub hall_key_file: Option<PathBuf>,
    /// The broker login (see config/mosquitto/): user name and password file.
    pub username: Option<String>,
    pub password_file: Option<PathBuf>,
    /// The certificates TLS trusts for an `mqtts://` broker (default: the system's).
    pub ca_file: Option<PathBuf>,
}

/// One game on two boards (Appendix D two-board play; a remote match):
/// this board plays one side, the partner board of the same hall the other.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct PairConfig {
    /// The partner board's name in the hall; none: this board plays alone.
    #[serde(deserialize_with = "plain_name_opt")]
    pub with: Option<String>,
    /// The side this board's player has.
    pub plays: Option<EngineSide>,
    /// Where the chess clock is: each board its own (or none), or one at
    /// the table attached to this board or to the partner's.
    pub clock: PairClock,
}

/// The chess clock of a game on two boards (`[pair] clock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum PairClock {
    /// Each board keeps its player's time, with its own clock or none.
    #[default]
    Own,
    /// One clock at the table, attached to this board.
    Here,
    /// One clock at the table, attached to the partner board.
    Partner,
}

impl PairConfig {
    /// The side this board's player has, when paired.
    pub fn side(&self) -> Option<shakmaty::Color> {
        self.with.as_ref().and(self.plays).map(EngineSide::color)
    }

    /// Where the one clock at the table is, when there is one.
    pub fn table_clock(&self) -> Option<tactus_trace::TableClock> {
        self.side()?;
        match self.clock {
            PairClock::Own => None,
            PairClock::Here => Some(tactus_trace::TableClock::Here),
            PairClock::Partner => Some(tactus_trace::TableClock::Partner),
        }
    }
}

/// Lichess: the account's token; for `tactus run`, the games the board plays
/// online (the Board API); for a relay, the broadcast rounds it pushes the
/// hall to.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LichessConfig {
    /// Lichess's address; a test server's `http://127.0.0.1:PORT`.
    #[serde(deserialize_with = "lichess_url")]
    pub url: String,
    /// The account's personal access token, in a file only the service may
    /// read (mode 600). A broadcast needs the scope `study:write`.
    pub token_file: Option<PathBuf>,
    /// `tactus relay`: the broadcast rounds the hall goes to, each `ID`
    /// (boards 1 to 100) or `ID=FIRST-LAST`.
    #[serde(deserialize_with = "rounds")]
    pub broadcast: Vec<RoundSpec>,
    /// `tactus run`: challenge this player at start, with `[game]
    /// time_control`'s clock.
    pub challenge: Option<String>,
    /// `tactus run`: the players whose challenges are accepted at once.
    pub accept_from: Vec<String>,
    /// `tactus run`: seek an opponent at start, with `[game]
    /// time_control`'s clock (the Board API seeks rapid and slower).
    pub seek: bool,
}

impl LichessConfig {
    /// The clock of a challenge or a seek, from `time_control` (`"1800+5"`):
    /// Lichess takes whole minutes (or a few short limits) and an increment
    /// of whole seconds.
    pub fn clock(time_control: &str) -> Result<(u32, u32), String> {
        use tactus_clock::{Bonus, System, TimeControl};
        let one = |why: &str| format!("{time_control:?}: {why}");
        let tc = TimeControl::parse(time_control)
            .map_err(|e| one(&e.to_string()))?
            .ok_or_else(|| one("an online game needs a clock, like 1800+5"))?;
        let (limit_ms, inc_ms) = match tc.system() {
            System::Periods { periods, byoyomi: None } => match periods.as_slice() {
                [p] if p.moves.is_none() => match p.bonus {
                    Bonus::None => (p.time_ms, 0),
                    Bonus::Increment(ms) => (p.time_ms, ms),
                    _ => return Err(one("Lichess plays with an increment, not a delay")),
                },
                _ => return Err(one("Lichess plays one period for the game, like 1800+5")),
            },
            _ => return Err(one("Lichess plays one period for the game, like 1800+5")),
        };
        if limit_ms % 1000 != 0 || inc_ms % 1000 != 0 {
            return Err(one("Lichess takes whole seconds"));
        }
        let (limit_s, increment_s) = ((limit_ms / 1000) as u32, (inc_ms / 1000) as u32);
        if !(matches!(limit_s, 15 | 30 | 45 | 60 | 90) || (limit_s % 60 == 0 && limit_s <= 10_800)) || increment_s > 180
        {
            return Err(format!(
                "{time_control:?}: Lichess takes a limit of whole minutes up to 180, and an increment up to 180 s"
            ));
        }
        Ok((limit_s, increment_s))
    }
}

impl Default for LichessConfig {
    fn default() -> Self {
        LichessConfig {
            url: tactus_lichess::http::LICHESS.into(),
            token_file: None,
            broadcast: Vec::new(),
            challenge: None,
            accept_from: Vec::new(),
            seek: false,
        }
    }
}

fn lichess_url<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    lichess_url_checked(&String::deserialize(d)?).map_err(serde::de::Error::custom)
}

/// Lichess's address as given, if it is one.
pub fn lichess_url_checked(url: &str) -> Result<String, String> {
    if url.starts_with("https://") || url.starts_with("http://") {
        Ok(url.to_owned())
    } else {
        Err(format!(
            "{url:?}: Lichess's address starts with https:// (https://lichess.org), or http:// for a test server"
        ))
    }
}

fn rounds<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<RoundSpec>, D::Error> {
    Vec::<String>::deserialize(d)?.iter().map(|r| r.parse().map_err(serde::de::Error::custom)).collect()
}

/// `tactus relay --config`: a round of a tournament from the pairing
/// program's file (FIDE's TRF): each board told its players, the results
/// written back (docs/operator-guide.md, "A round from the pairing program").
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoundConfig {
    /// The Tournament Report File the pairing program exported.
    pub trf: Option<PathBuf>,
    /// The round it pairs, to play now.
    #[serde(deserialize_with = "ranged::round_number")]
    pub number: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StateConfig {
    /// Where each game's trace (the journal) is kept.
    pub dir: PathBuf,
}

impl Default for StateConfig {
    fn default() -> Self {
        StateConfig { dir: "/var/lib/tactus".into() }
    }
}

/// A string value parsed by its type's `FromStr`; its error is the value's.
fn parsed<'de, D: Deserializer<'de>, T: FromStr>(d: D) -> Result<T, D::Error>
where
    T::Err: fmt::Display,
{
    let s = String::deserialize(d)?;
    s.parse().map_err(serde::de::Error::custom)
}

fn parsed_opt<'de, D: Deserializer<'de>, T: FromStr>(d: D) -> Result<Option<T>, D::Error>
where
    T::Err: fmt::Display,
{
    parsed(d).map(Some)
}

/// A hall's or a board's name on the broker (and in URLs and file names):
/// empty for the default, else letters, digits, `-`, `_`, at most 64.
fn plain_name<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let name = String::deserialize(d)?;
    let plain = name.len() <= 64 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if plain {
        Ok(name)
    } else {
        Err(serde::de::Error::custom(format!(
            "{name:?} is not a plain name: letters, digits, '-' or '_', at most 64 (it names MQTT topics and URLs)"
        )))
    }
}

fn plain_name_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    plain_name(d).map(Some)
}

/// The range of every number in the file: a value outside is an error
/// that names the file, the line, the key and the range (see [`parse`]).
pub mod ranged {
    use serde::{Deserialize, Deserializer};
    use tactus_net::{MAX_ELO, MAX_FIDE_ID};
    use tactus_trace::range as trace;

    /// A key's allowed values, and what they count.
    #[derive(Debug)]
    pub struct KeyRange {
        pub key: &'static str,
        pub lo: i64,
        pub hi: i64,
        pub what: &'static str,
    }

    impl KeyRange {
        /// What is wrong with `v`, if anything.
        pub fn check(&self, v: i64) -> Result<(), String> {
            if (self.lo..=self.hi).contains(&v) { Ok(()) } else { Err(self.refuse(&v.to_string())) }
        }

        fn refuse(&self, v: &str) -> String {
            format!("{v} is out of range: {} to {} {}", self.lo, self.hi, self.what)
        }
    }

    /// Every numeric key but those whose type says its range (`sim_speed`)
    /// and the pin tables, which their board checks whole.
    pub const RANGES: &[KeyRange] = &[
        KeyRange { key: "board.scan_hz", lo: 1, hi: 2000, what: "scans a second" },
        KeyRange {
            key: "board.i2c_address",
            lo: 0x20,
            hi: 0x27,
            what: "(0x20 to 0x27: an MCP23017's A2 A1 A0 straps)",
        },
        KeyRange { key: "board.settle_us", lo: 0, hi: 1000, what: "µs for a pull-up to recharge" },
        KeyRange {
            key: "game.debounce_ms",
            lo: *trace::DEBOUNCE_MS.values.start() as i64,
            hi: *trace::DEBOUNCE_MS.values.end() as i64,
            what: trace::DEBOUNCE_MS.means,
        },
        KeyRange {
            key: "game.settle_ms",
            lo: *trace::SETTLE_MS.values.start() as i64,
            hi: *trace::SETTLE_MS.values.end() as i64,
            what: trace::SETTLE_MS.means,
        },
        KeyRange {
            key: "game.press_grace_ms",
            lo: *trace::PRESS_GRACE_MS.values.start() as i64,
            hi: *trace::PRESS_GRACE_MS.values.end() as i64,
            what: trace::PRESS_GRACE_MS.means,
        },
        KeyRange { key: "game.white_fide_id", lo: 1, hi: MAX_FIDE_ID as i64, what: "(a FIDE ID, at most nine digits)" },
        KeyRange { key: "game.white_elo", lo: 1, hi: MAX_ELO as i64, what: "rating points" },
        KeyRange { key: "game.black_fide_id", lo: 1, hi: MAX_FIDE_ID as i64, what: "(a FIDE ID, at most nine digits)" },
        KeyRange { key: "game.black_elo", lo: 1, hi: MAX_ELO as i64, what: "rating points" },
        KeyRange { key: "voice.rate", lo: 80, hi: 450, what: "words a minute (what espeak-ng speaks)" },
        KeyRange {
            key: "voice.time_warnings",
            lo: 1,
            hi: 35_999,
            what: "seconds left (a clock shows at most 9:59:59)",
        },
        KeyRange { key: "clock.baud", lo: 1200, hi: 4_000_000, what: "baud" },
        KeyRange { key: "engine.level", lo: 0, hi: 10, what: "(0 first games, 10 full strength)" },
        KeyRange { key: "engine.book_plies", lo: 0, hi: 200, what: "plies (no book goes deeper)" },
        KeyRange { key: "engine.think_ms", lo: 1, hi: 600_000, what: "ms a move, ten minutes at most" },
        KeyRange {
            key: "round.number",
            lo: 1,
            hi: tactus_trace::MAX_ROUND as i64,
            what: "(a round of the TRF's columns)",
        },
    ];

    /// How many warnings `voice.time_warnings` may list.
    pub const MAX_WARNINGS: usize = 10;

    pub fn of(key: &str) -> &'static KeyRange {
        RANGES.iter().find(|r| r.key == key).expect("every ranged key is in RANGES")
    }

    fn value<'de, D: Deserializer<'de>, T: TryFrom<i64>>(d: D, key: &str) -> Result<T, D::Error> {
        let range = of(key);
        let v = i64::deserialize(d)?;
        range.check(v).map_err(serde::de::Error::custom)?;
        T::try_from(v).map_err(|_| serde::de::Error::custom(range.refuse(&v.to_string())))
    }

    macro_rules! keys {
        ($($name:ident: $t:ty = $key:literal;)*) => {
            $(pub fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                value(d, $key)
            })*
        };
    }

    keys! {
        board_scan_hz: u32 = "board.scan_hz";
        board_i2c_address: u16 = "board.i2c_address";
        board_settle_us: u64 = "board.settle_us";
        game_debounce_ms: u64 = "game.debounce_ms";
        game_settle_ms: u64 = "game.settle_ms";
        game_press_grace_ms: u64 = "game.press_grace_ms";
        voice_rate: u32 = "voice.rate";
        engine_level: u8 = "engine.level";
        engine_book_plies: u32 = "engine.book_plies";
        engine_think_ms: u64 = "engine.think_ms";
    }

    macro_rules! optional_keys {
        ($($name:ident: $t:ty = $key:literal;)*) => {
            $(pub fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<Option<$t>, D::Error> {
                value(d, $key).map(Some)
            })*
        };
    }

    optional_keys! {
        clock_baud: u32 = "clock.baud";
        game_white_fide_id: u32 = "game.white_fide_id";
        game_white_elo: u16 = "game.white_elo";
        game_black_fide_id: u32 = "game.black_fide_id";
        game_black_elo: u16 = "game.black_elo";
        round_number: u32 = "round.number";
    }

    pub fn voice_time_warnings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
        let range = of("voice.time_warnings");
        let seconds = Vec::<i64>::deserialize(d)?;
        if seconds.len() > MAX_WARNINGS {
            return Err(serde::de::Error::custom(format!("{} warnings: at most {MAX_WARNINGS}", seconds.len())));
        }
        seconds
            .into_iter()
            .map(|v| range.check(v).map(|()| v.unsigned_abs()).map_err(serde::de::Error::custom))
            .collect()
    }
}

fn square_map<'de, D: Deserializer<'de>>(d: D) -> Result<Option<tactus_board::SquareMap>, D::Error> {
    let names = Vec::<String>::deserialize(d)?;
    if names.is_empty() {
        return Ok(None);
    }
    names.join(" ").parse().map(Some).map_err(serde::de::Error::custom)
}

/// Loads a config file. Errors name the file, the line and the key.
pub fn load(path: &Path) -> anyhow::Result<Config> {
    let text = read(path)?;
    parse(path, &text)
}

fn read(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).map_err(|e| match e.kind() {
        // The package makes it readable by root and the service's group only:
        // it may hold the arbiter's token.
        std::io::ErrorKind::PermissionDenied => anyhow::anyhow!(
            "{}: cannot read: {e}; it is readable by root and group tactus (sudo -u tactus tactus …)",
            path.display()
        ),
        _ => anyhow::anyhow!("{}: cannot read: {e}", path.display()),
    })
}

/// The configuration `--config` names, else the installed one, else the
/// built-in defaults; with the file it came from.
pub fn load_default(given: Option<&Path>) -> anyhow::Result<(Config, Option<PathBuf>)> {
    let (config, file) = load_under_flags(given)?;
    let (path, text) = file.as_ref().map(|(p, t)| (p.as_path(), t.as_str())).unzip();
    checked(&config, path, text)?;
    Ok((config, path.map(Path::to_path_buf)))
}

/// As [`load_default`], with the file's text, and only each value checked:
/// flags go on top before what depends on more than one value is checked
/// ([`checked`]), so that a `[pair]` in the file may have its broker from
/// `--mqtt`.
pub fn load_under_flags(given: Option<&Path>) -> anyhow::Result<(Config, Option<(PathBuf, String)>)> {
    let default = Path::new(DEFAULT_PATH);
    let path = match given {
        Some(p) => p,
        None if default.exists() => default,
        None => return Ok((Config::default(), None)),
    };
    let text = read(path)?;
    let config = values(path, &text)?;
    Ok((config, Some((path.to_path_buf(), text))))
}

/// Where a configuration came from, for messages.
pub fn origin(file: Option<&Path>) -> String {
    file.map_or_else(|| "the built-in defaults (no config file)".into(), |p| p.display().to_string())
}

pub fn parse(path: &Path, text: &str) -> anyhow::Result<Config> {
    let config = values(path, text)?;
    checked(&config, Some(path), Some(text))?;
    Ok(config)
}

/// The file read with each value checked alone; errors name the line.
fn values(path: &Path, text: &str) -> anyhow::Result<Config> {
    toml::from_str(text).map_err(|e| anyhow::anyhow!("{}", describe(path, text, &e)))
}

/// What depends on more than one value, checked against the whole; the
/// error names the file and the key's line when the file sets it.
pub fn checked(config: &Config, path: Option<&Path>, text: Option<&str>) -> anyhow::Result<()> {
    let Err(e) = config.check() else { return Ok(()) };
    let line = text.and_then(|text| locate(text, e.key));
    Err(match (path, line) {
        (Some(path), Some(line)) => anyhow::anyhow!("{}:{line}: key `{}`: {}", path.display(), e.key, e.message),
        (path, _) => anyhow::anyhow!("{}: key `{}`: {}", origin(path), e.key, e.message),
    })
}

/// `FILE:LINE: key `section.key`: what is wrong`.
fn describe(path: &Path, text: &str, e: &toml::de::Error) -> String {
    let Some(span) = e.span() else { return format!("{}: {}", path.display(), e.message()) };
    let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
    let key = key_at(text, line);
    match key {
        Some(key) => {
            let message = e.message();
            // A number the file cannot even hold (past 2^63) fails before
            // its range is checked: say the range all the same.
            let range = ranged::RANGES.iter().find(|r| r.key == key && !message.contains("out of range"));
            let range = range.map_or(String::new(), |r| format!(" (the range is {} to {} {})", r.lo, r.hi, r.what));
            format!("{}:{line}: key `{key}`: {message}{range}", path.display())
        }
        None => format!("{}:{line}: {}", path.display(), e.message()),
    }
}

/// The table a line sits in: the nearest `[table]` header above it.
fn table_of<'a>(lines: &[&'a str]) -> Option<&'a str> {
    lines.iter().rev().find_map(|l| l.trim().strip_prefix('[').and_then(|l| l.split(']').next()).map(str::trim))
}

/// The dotted key defined on a line, from the table header above it.
fn key_at(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let here = lines.get(line.checked_sub(1)?)?.trim();
    let table = table_of(&lines[..line - 1]);
    if let Some(header) = here.strip_prefix('[') {
        return header.split(']').next().map(|h| h.trim().to_string());
    }
    let key = here.split('=').next()?.trim();
    if key.is_empty() {
        return table.map(str::to_string);
    }
    Some(match table {
        Some(table) => format!("{table}.{key}"),
        None => key.to_string(),
    })
}

/// The line that sets a dotted key (`board.rows`), if the file sets it.
fn locate(text: &str, dotted: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    (1..=lines.len()).find(|&n| {
        let l = lines[n - 1].trim();
        !l.starts_with('[') && !l.starts_with('#') && key_at(text, n).as_deref() == Some(dotted)
    })
}

/// A value that only its neighbours make wrong.
#[derive(Debug)]
pub struct KeyError {
    pub key: &'static str,
    pub message: String,
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "key `{}`: {}", self.key, self.message)
    }
}

impl std::error::Error for KeyError {}

impl Config {
    /// Checks what one value alone cannot show: the pin tables, the start
    /// position under the variant. Flags given on top are checked again.
    pub fn check(&self) -> Result<(), KeyError> {
        let b = &self.board;
        let gpio = tactus_board::GpioConfig { rows: b.rows, cols: b.cols, ..Default::default() };
        if let Err(e) = gpio.validate() {
            let key = match e.wires {
                tactus_board::PinTable::Rows => "board.rows",
                tactus_board::PinTable::Columns => "board.cols",
            };
            return Err(KeyError { key, message: e.message });
        }
        let expander = tactus_board::Mcp23017Config {
            wiring: tactus_board::Mcp23017Wiring::Matrix { address: b.i2c_address },
            ..Default::default()
        };
        expander.validate().map_err(|e| KeyError { key: "board.i2c_address", message: e.to_string() })?;
        let hall = tactus_board::Mcp23017Config {
            wiring: tactus_board::Mcp23017Wiring::Direct { addresses: b.hall_addresses },
            ..Default::default()
        };
        hall.validate().map_err(|e| KeyError { key: "board.hall_addresses", message: e.to_string() })?;
        let header = tactus_trace::Header {
            variant: self.game.variant,
            start_fen: self.game.start_fen.clone(),
            ..Default::default()
        };
        tactus_core::Session::new(&header, tactus_core::Policy::default())
            .map_err(|e| KeyError { key: "game.start_fen", message: e.to_string() })?;
        if self.board.kind == BoardKind::Dgt && self.clock.device == ClockKind::Dgt3000 {
            return Err(KeyError {
                key: "clock.device",
                message: "with board.kind = \"dgt\" the board owns its serial port, and its DGT 3000's levers \
                          are read through the board: set clock.device = \"none\""
                    .into(),
            });
        }
        // Flags set these on top of the file: checked again.
        ranged::of("engine.level")
            .check(self.engine.level.into())
            .map_err(|message| KeyError { key: "engine.level", message })?;
        if !self.lichess.broadcast.is_empty() {
            PushOptions::new(self.lichess.broadcast.clone())
                .map_err(|message| KeyError { key: "lichess.broadcast", message })?;
        }
        self.check_pair()?;
        if self.lichess.challenge.is_some() || self.lichess.seek {
            let key = if self.lichess.seek { "lichess.seek" } else { "lichess.challenge" };
            let (limit_s, _) = LichessConfig::clock(&self.game.time_control.0)
                .map_err(|message| KeyError { key: "game.time_control", message })?;
            // 10 minutes or more: rapid and slower, all a seek may ask.
            if self.lichess.seek && limit_s < 600 {
                return Err(KeyError {
                    key,
                    message: "the Board API seeks rapid and slower games: [game] time_control of 600 s or more".into(),
                });
            }
        }
        if self.http.listen.is_some_and(|a| a.port() == 0) {
            return Err(KeyError {
                key: "http.listen",
                message: "port 0 would listen on a port chosen at random, that no one can find: give one (e.g. 127.0.0.1:8080)"
                    .into(),
            });
        }
        Ok(())
    }
}

impl Config {
    /// A pair needs the hall's broker, its key and this board's name, a
    /// side, and no engine.
    fn check_pair(&self) -> Result<(), KeyError> {
        let Some(partner) = &self.pair.with else { return Ok(()) };
        let needs = |key: &'static str, what: &str| KeyError {
            key,
            message: format!("playing one game with board {partner:?} needs {what}"),
        };
        if self.pair.plays.is_none() {
            return Err(needs("pair.plays", "the side this board plays: \"white\" or \"black\" (--plays)"));
        }
        if self.mqtt.broker.is_none() {
            return Err(needs("mqtt.broker", "the hall's broker (--mqtt)"));
        }
        if self.mqtt.hall.is_empty() {
            return Err(needs("mqtt.hall", "the hall's name (--hall)"));
        }
        if self.mqtt.hall_key_file.is_none() {
            return Err(needs("mqtt.hall_key_file", "the hall key, which seals every move (--hall-key)"));
        }
        if self.mqtt.board_id.is_empty() {
            return Err(needs("mqtt.board_id", "this board's own name (--board-id)"));
        }
        if &self.mqtt.board_id == partner {
            return Err(KeyError { key: "pair.with", message: format!("{partner:?} is this board itself") });
        }
        if self.pair.clock == PairClock::Partner && self.clock.device != ClockKind::None {
            return Err(KeyError {
                key: "pair.clock",
                message: "the clock is at the partner board, yet this board has one ([clock] device)".into(),
            });
        }
        if self.engine.path.is_some() {
            return Err(KeyError {
                key: "engine.path",
                message: "a board plays its partner board or an engine, not both".into(),
            });
        }
        if self.lichess.token_file.is_some() {
            return Err(KeyError {
                key: "lichess.token_file",
                message: "a board plays its partner board or online on Lichess, not both".into(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config")
    }

    #[test]
    fn the_shipped_config_is_valid_and_suits_a_real_board() {
        let config = load(&config_dir().join("tactus.toml")).unwrap();
        assert_eq!(config.board.kind, BoardKind::GpioMatrix);
        assert_eq!(config.voice.sink, VoiceSink::Sound);
        assert_eq!(config.state.dir, Path::new("/var/lib/tactus"));
    }

    #[test]
    fn every_key_is_documented_in_the_shipped_config() {
        // Each key of each table appears, set or commented out, with a comment above.
        let text = std::fs::read_to_string(config_dir().join("tactus.toml")).unwrap();
        let keys = [
            (
                "board",
                &[
                    "kind",
                    "scan_hz",
                    "sim_trace",
                    "sim_speed",
                    "rows",
                    "cols",
                    "i2c_bus",
                    "i2c_address",
                    "hall_addresses",
                    "settle_us",
                    "squares",
                    "dgt_emulate",
                    "dgt_path",
                ][..],
            ),
            (
                "game",
                &[
                    "white",
                    "black",
                    "event",
                    "site",
                    "round",
                    "white_fide_id",
                    "white_title",
                    "white_elo",
                    "black_fide_id",
                    "black_title",
                    "black_elo",
                    "time_control",
                    "variant",
                    "start_fen",
                    "supervision",
                    "debounce_ms",
                    "settle_ms",
                    "press_grace_ms",
                ],
            ),
            ("voice", &["sink", "say", "rate", "espeak_voice", "touches", "listener", "readout", "time_warnings"]),
            ("clock", &["device", "path", "baud", "white"]),
            ("engine", &["path", "plays", "level", "book", "book_plies", "syzygy", "think_ms", "accept_other_moves"]),
            ("http", &["listen", "token", "token_file", "assets"]),
            ("mqtt", &["broker", "hall", "board_id", "hall_key_file", "username", "password_file", "ca_file"]),
            ("pair", &["with", "plays"]),
            ("lichess", &["url", "token_file", "broadcast", "challenge", "accept_from", "seek"]),
            ("round", &["trf", "number"]),
            ("state", &["dir"]),
        ];
        for (table, names) in keys {
            let start = text.find(&format!("\n[{table}]\n")).unwrap_or_else(|| panic!("no [{table}]"));
            let end = text[start + 1..].find("\n[").map_or(text.len(), |i| start + 1 + i);
            let body = &text[start..end];
            for name in names {
                let lines: Vec<&str> = body.lines().collect();
                let at = lines
                    .iter()
                    .position(|l| l.trim_start_matches("# ").starts_with(&format!("{name} =")))
                    .unwrap_or_else(|| panic!("{table}.{name} is not in the shipped config"));
                assert!(lines[at - 1].starts_with('#'), "{table}.{name} has no comment above it");
            }
        }
    }

    #[test]
    fn syntax_errors_name_file_line_and_key() {
        let text = "[board]\nkind = \"sim\"\nscan_hz = \"fast\"\n";
        let e = parse(Path::new("/etc/tactus/tactus.toml"), text).unwrap_err().to_string();
        assert!(e.starts_with("/etc/tactus/tactus.toml:3: key `board.scan_hz`:"), "{e}");
        let text = "[voice]\nsay = \"de:annex-d\"\nvolume = 3\n";
        let e = parse(Path::new("t.toml"), text).unwrap_err().to_string();
        assert!(e.starts_with("t.toml:3: key `voice.volume`:") && e.contains("unknown field"), "{e}");
        let e = parse(Path::new("t.toml"), "[nonsense]\n").unwrap_err().to_string();
        assert!(e.contains("t.toml:1") && e.contains("nonsense"), "{e}");
    }

    #[test]
    fn a_pair_needs_the_hall_and_no_engine() {
        let base = "[mqtt]\nbroker = \"127.0.0.1:1883\"\nhall = \"h\"\nboard_id = \"A\"\nhall_key_file = \"/k\"\n";
        // Parsing checks the whole.
        let check = |text: &str| parse(Path::new("t.toml"), text).map(|_| ()).map_err(|e| e.to_string());
        let paired = format!("{base}[pair]\nwith = \"B\"\nplays = \"white\"\n");
        assert_eq!(check(&paired), Ok(()));
        assert_eq!(parse(Path::new("t.toml"), &paired).unwrap().pair.side(), Some(shakmaty::Color::White));
        let e = check(&paired.replace("hall_key_file = \"/k\"\n", "")).unwrap_err();
        assert!(e.contains("mqtt.hall_key_file") && e.contains("--hall-key"), "{e}");
        let e = check(&paired.replace("plays = \"white\"\n", "")).unwrap_err();
        assert!(e.contains("pair.plays"), "{e}");
        let e = check(&paired.replace("with = \"B\"", "with = \"A\"")).unwrap_err();
        assert!(e.contains("this board itself"), "{e}");
        let e = check(&format!("{paired}[engine]\npath = \"/usr/games/stockfish\"\n")).unwrap_err();
        assert!(e.contains("engine.path"), "{e}");
        assert!(parse(Path::new("t.toml"), "[pair]\nwith = \"a/b\"\n").is_err(), "a partner's name is one topic level");
        // One clock at the table: attached here or to the partner board.
        let table = |clock: &str| parse(Path::new("t.toml"), &format!("{paired}clock = \"{clock}\"\n"));
        assert_eq!(parse(Path::new("t.toml"), &paired).unwrap().pair.table_clock(), None, "own, by default");
        assert_eq!(table("here").unwrap().pair.table_clock(), Some(tactus_trace::TableClock::Here));
        assert_eq!(table("partner").unwrap().pair.table_clock(), Some(tactus_trace::TableClock::Partner));
        assert!(table("both").is_err());
        let e = check(&format!("{paired}clock = \"partner\"\n[clock]\ndevice = \"open\"\n")).unwrap_err();
        assert!(e.contains("pair.clock"), "{e}");
    }

    #[test]
    fn a_file_is_checked_whole_once_the_flags_are_on_top() {
        let dir = std::env::temp_dir().join(format!("tactus-config-flags-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("pair.toml");
        std::fs::write(&file, "[mqtt]\nhall = \"h\"\n\n[pair]\nwith = \"B\"\nplays = \"white\"\n").unwrap();
        let e = load_default(Some(&file)).unwrap_err().to_string();
        assert!(e.contains("key `mqtt.broker`") && e.contains("--mqtt"), "{e}");
        let (mut config, text) = load_under_flags(Some(&file)).unwrap();
        config.mqtt.broker = Some("127.0.0.1:1883".parse().unwrap());
        let (path, text) = text.unwrap();
        let e = checked(&config, Some(&path), Some(&text)).unwrap_err().to_string();
        assert!(e.contains("key `mqtt.hall_key_file`"), "the next need, after --mqtt: {e}");
        config.mqtt.hall_key_file = Some("/k".into());
        config.mqtt.board_id = "B".into();
        let e = checked(&config, Some(&path), Some(&text)).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:5: key `pair.with`", path.display())), "the file's line: {e}");
        config.mqtt.board_id = "A".into();
        assert!(checked(&config, Some(&path), Some(&text)).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn value_errors_name_file_line_and_key() {
        let cases = [
            ("[game]\n\ntime_control = \"40/\"\n", "t.toml:3: key `game.time_control`:"),
            ("[board]\nkind = \"magic\"\n", "t.toml:2: key `board.kind`:"),
            ("[voice]\nsay = \"xx:annex-d\"\n", "t.toml:2: key `voice.say`: unknown language"),
            ("[voice]\nsink = \"loud\"\n", "t.toml:2: key `voice.sink`:"),
            ("[voice]\ntouches = \"some\"\n", "t.toml:2: key `voice.touches`:"),
            ("[voice]\nreadout = \"by-file\"\n", "t.toml:2: key `voice.readout`:"),
            ("[game]\nvariant = \"crazyhouse\"\n", "t.toml:2: key `game.variant`:"),
            ("[board]\nsim_speed = 1e-300\n", "t.toml:2: key `board.sim_speed`:"),
            ("[board]\nscan_hz = 0\n", "t.toml:2: key `board.scan_hz`:"),
            ("[board]\nrows = [1, 2]\n", "t.toml:2: key `board.rows`:"),
            ("[clock]\ndevice = \"dgt2010\"\n", "t.toml:2: key `clock.device`:"),
            ("[clock]\nwhite = \"up\"\n", "t.toml:2: key `clock.white`:"),
            ("[engine]\nplays = \"both\"\n", "t.toml:2: key `engine.plays`:"),
            ("[http]\nlisten = \"everywhere\"\n", "t.toml:2: key `http.listen`:"),
            ("[mqtt]\nbroker = \"a b:1\"\n", "t.toml:2: key `mqtt.broker`:"),
            ("# x\n[game]\nstart_fen = \"not a fen\"\n", "t.toml:3: key `game.start_fen`:"),
            ("[board]\nrows = [4, 4, 27, 22, 5, 6, 13, 26]\n", "t.toml:2: key `board.rows`:"),
            // A column on a row's pin: the column is at fault.
            ("[board]\ncols = [4, 24, 25, 8, 7, 12, 16, 9]\n", "t.toml:2: key `board.cols`: column 0: BCM 4"),
            ("[board]\ncols = [23, 24, 25, 8, 7, 12, 16, 28]\n", "t.toml:2: key `board.cols`: column 7: BCM 28"),
            ("[game]\nsupervision = \"lenient\"\n", "t.toml:2: key `game.supervision`: unknown supervision"),
            (
                "[game]\nwhite_title = \"XM\"\n",
                "t.toml:2: key `game.white_title`: \"XM\" is not a FIDE title: one of GM",
            ),
            ("[lichess]\nurl = \"lichess.org\"\n", "t.toml:2: key `lichess.url`: \"lichess.org\": Lichess's address"),
            (
                "[lichess]\nbroadcast = [\"AbCd1234\", \"short\"]\n",
                "t.toml:2: key `lichess.broadcast`: \"short\": a Lichess round id",
            ),
            (
                "[lichess]\nbroadcast = [\"AbCd1234=1-100\", \"AbCd1234=101-200\"]\n",
                "t.toml:2: key `lichess.broadcast`: the round AbCd1234 is given twice",
            ),
            (
                "[lichess]\n\nbroadcast = [\"AbCd1234=1-100\", \"Zz999999=50-149\"]\n",
                "t.toml:3: key `lichess.broadcast`: the rounds AbCd1234=1-100 and Zz999999=50-149 share boards",
            ),
            (
                "[board]\nhall_addresses = [0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x30]\n",
                "t.toml:2: key `board.hall_addresses`:",
            ),
        ];
        for (text, want) in cases {
            let e = parse(Path::new("t.toml"), text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }

    /// Every number has a range, and a time control, a broker and the
    /// names on the broker must make sense: out of it, the error names the
    /// file, the line, the key and the range (`settle_ms` = 2^63 - 1 once
    /// announced a move 3 ms after the placement; `baud = 0`,
    /// `time_control = "0"` and `broker = "::::"` were taken).
    #[test]
    fn values_out_of_range_name_file_line_key_and_range() {
        let cases = [
            (
                "[game]\nsettle_ms = 9223372036854775807\n",
                "t.toml:2: key `game.settle_ms`: 9223372036854775807 is out of range: 0 to 10000 ms",
            ),
            ("[game]\nsettle_ms = 18446744073709551615\n", "t.toml:2: key `game.settle_ms`:"),
            ("[game]\ndebounce_ms = 1001\n", "t.toml:2: key `game.debounce_ms`: 1001 is out of range: 0 to 1000 ms"),
            ("[game]\npress_grace_ms = -1\n", "t.toml:2: key `game.press_grace_ms`: -1 is out of range: 0 to 10000 ms"),
            ("[game]\ntime_control = \"0\"\n", "t.toml:2: key `game.time_control`: \"0\" starts the clocks at 0:00"),
            (
                "[game]\ntime_control = \"0+5\"\n",
                "t.toml:2: key `game.time_control`: \"0+5\" starts the clocks at 0:00",
            ),
            ("[game]\ntime_control = \"*0\"\n", "t.toml:2: key `game.time_control`:"),
            ("[clock]\nbaud = 0\n", "t.toml:2: key `clock.baud`: 0 is out of range: 1200 to 4000000 baud"),
            ("[clock]\nbaud = 99999999999\n", "t.toml:2: key `clock.baud`: 99999999999 is out of range"),
            ("[mqtt]\nbroker = \"::::\"\n", "t.toml:2: key `mqtt.broker`: \"::::\" is not a broker address"),
            ("[mqtt]\nbroker = \"hall:0\"\n", "t.toml:2: key `mqtt.broker`:"),
            ("[mqtt]\nhall = \"a/b\"\n", "t.toml:2: key `mqtt.hall`: \"a/b\" is not a plain name"),
            ("[mqtt]\nboard_id = \"#\"\n", "t.toml:2: key `mqtt.board_id`:"),
            ("[http]\nlisten = \"127.0.0.1:0\"\n", "t.toml:2: key `http.listen`: port 0"),
            (
                "[board]\nscan_hz = 2001\n",
                "t.toml:2: key `board.scan_hz`: 2001 is out of range: 1 to 2000 scans a second",
            ),
            (
                "[board]\nscan_hz = \"fast\"\n",
                "t.toml:2: key `board.scan_hz`: invalid type: string \"fast\", expected i64 (the range is 1 to 2000",
            ),
            ("[board]\ni2c_address = 0x40\n", "t.toml:2: key `board.i2c_address`: 64 is out of range"),
            (
                "[board]\nsettle_us = 1000000\n",
                "t.toml:2: key `board.settle_us`: 1000000 is out of range: 0 to 1000 µs",
            ),
            ("[voice]\nrate = 0\n", "t.toml:2: key `voice.rate`: 0 is out of range: 80 to 450 words a minute"),
            (
                "[voice]\ntime_warnings = [60, 0]\n",
                "t.toml:2: key `voice.time_warnings`: 0 is out of range: 1 to 35999 seconds",
            ),
            ("[voice]\ntime_warnings = [9223372036854775807]\n", "t.toml:2: key `voice.time_warnings`:"),
            (
                "[voice]\ntime_warnings = [1,2,3,4,5,6,7,8,9,10,11]\n",
                "t.toml:2: key `voice.time_warnings`: 11 warnings: at most 10",
            ),
            ("[engine]\nlevel = 11\n", "t.toml:2: key `engine.level`: 11 is out of range: 0 to 10"),
            ("[engine]\nlevel = 256\n", "t.toml:2: key `engine.level`: 256 is out of range: 0 to 10"),
            ("[engine]\nbook_plies = 100000\n", "t.toml:2: key `engine.book_plies`: 100000 is out of range: 0 to 200"),
            ("[engine]\nthink_ms = 0\n", "t.toml:2: key `engine.think_ms`: 0 is out of range: 1 to 600000 ms"),
            ("[game]\nwhite_fide_id = 0\n", "t.toml:2: key `game.white_fide_id`: 0 is out of range: 1 to 999999999"),
            ("[game]\nblack_fide_id = 1000000000\n", "t.toml:2: key `game.black_fide_id`: 1000000000 is out of range"),
            (
                "[game]\nblack_elo = 3501\n",
                "t.toml:2: key `game.black_elo`: 3501 is out of range: 1 to 3500 rating points",
            ),
        ];
        for (text, want) in cases {
            let e = parse(Path::new("t.toml"), text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
        // The edges of the ranges are in them.
        let edges = "[board]\nscan_hz = 2000\nsettle_us = 1000\ni2c_address = 0x27\n\
                     [game]\nsettle_ms = 10000\ndebounce_ms = 0\npress_grace_ms = 10000\ntime_control = \"0s5\"\n\
                     [voice]\nrate = 450\ntime_warnings = [35999, 1]\n[clock]\nbaud = 1200\n\
                     [engine]\nlevel = 10\nbook_plies = 0\nthink_ms = 600000\n\
                     [mqtt]\nbroker = \"[::1]:65535\"\nhall = \"club_1\"\nboard_id = \"b-1\"\n";
        let c = parse(Path::new("t.toml"), edges).unwrap();
        assert_eq!((c.game.settle_ms, c.clock.baud(), c.voice.time_warnings), (10_000, 1200, vec![35_999, 1]));
        // Every ranged key is a key of the file.
        for r in ranged::RANGES {
            let (table, key) = r.key.split_once('.').unwrap();
            assert!(
                parse(Path::new("t.toml"), &format!("[{table}]\n{key} = \"x\"\n"))
                    .unwrap_err()
                    .to_string()
                    .contains("the range is"),
                "{}",
                r.key
            );
        }
    }

    /// The players' FIDE IDs, titles and ratings go on the game's tags; the
    /// Lichess table gives the relay its rounds.
    #[test]
    fn a_challenge_or_a_seek_takes_the_games_clock_as_lichess_takes_clocks() {
        assert_eq!(LichessConfig::clock("1800+5"), Ok((1800, 5)));
        assert_eq!(LichessConfig::clock("900"), Ok((900, 0)));
        assert_eq!(LichessConfig::clock("30+0"), Ok((30, 0)));
        for bad in ["-", "1830+5", "1800+0.5", "40/5400+30:1800+30", "20000+0", "1800+200"] {
            assert!(LichessConfig::clock(bad).is_err(), "{bad}");
        }
        let text = "[game]\ntime_control = \"300+3\"\n[lichess]\nseek = true\n";
        let err = parse(Path::new("t.toml"), text).unwrap_err().to_string();
        assert!(err.contains("lichess.seek") && err.contains("rapid"), "{err}");
        let text = "[game]\ntime_control = \"1800+5\"\n[lichess]\nchallenge = \"friend\"\naccept_from = [\"coach\"]\n";
        let c = parse(Path::new("t.toml"), text).unwrap();
        assert_eq!(
            (c.lichess.challenge.as_deref(), &c.lichess.accept_from[..]),
            (Some("friend"), &["coach".to_owned()][..])
        );
    }

    #[test]
    fn players_and_lichess_keys_are_read() {
        let text = "[game]\nwhite = \"Ann\"\nwhite_fide_id = 1503014\nwhite_title = \"wgm\"\nblack_elo = 1987\n\
                    [lichess]\ntoken_file = \"/etc/tactus/lichess.token\"\nbroadcast = [\"AbCd1234=1-100\", \"Zz999999=101-200\"]\n";
        let c = parse(Path::new("t.toml"), text).unwrap();
        let tags = c.game.player_tags(Tags { white: Some("Ann".into()), ..Tags::default() });
        assert_eq!(tags.white.as_deref(), Some("Ann"));
        assert_eq!(
            (tags.white_fide_id, tags.white_title, tags.black_elo),
            (Some(1_503_014), Some(Title::Wgm), Some(1987))
        );
        assert_eq!((tags.white_elo, tags.black_fide_id, tags.black_title), (None, None, None));
        assert_eq!(c.lichess.url, "https://lichess.org");
        let rounds: Vec<String> = c.lichess.broadcast.iter().map(ToString::to_string).collect();
        assert_eq!(rounds, ["AbCd1234=1-100", "Zz999999=101-200"]);
        assert!(Config::default().lichess.broadcast.is_empty());
    }

    #[test]
    fn the_dgt_3000_has_its_own_defaults() {
        let c = parse(Path::new("t.toml"), "[clock]\ndevice = \"dgt3000\"\nwhite = \"right\"\n").unwrap();
        assert_eq!((c.clock.path(), c.clock.baud(), c.clock.white), ("/dev/tactus-dgt".into(), 9600, ClockSide::Right));
        let c = parse(Path::new("t.toml"), "[clock]\ndevice = \"open\"\nbaud = 57600\n").unwrap();
        assert_eq!((c.clock.path(), c.clock.baud()), ("/dev/tactus-clock".into(), 57600));
    }
}
