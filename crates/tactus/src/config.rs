//! The daemon's configuration: a TOML file (`config/tactus.example.toml`
//! documents every key), overridden by command-line flags. A bad file is an
//! error that names the file, the line and the key.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::voice::VoiceSink;

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub board: BoardConfig,
    pub game: GameConfig,
    pub voice: VoiceConfig,
    pub clock: ClockConfig,
    pub http: HttpConfig,
    pub mqtt: MqttConfig,
    pub state: StateConfig,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BoardConfig {
    /// `sim`, `gpio-matrix` or `mcp23017`.
    pub kind: String,
    /// Scans per second of a sensor matrix.
    pub scan_hz: u32,
    /// `sim`: a trace to play (absent: lifts and places typed at the terminal).
    pub sim_trace: Option<PathBuf>,
    /// `sim`: how much faster than real time the trace plays.
    pub sim_speed: f64,
    /// `gpio-matrix`: BCM numbers of the eight row outputs, rank 1 first.
    pub rows: Vec<u8>,
    /// `gpio-matrix`: BCM numbers of the eight column inputs, file a first.
    pub cols: Vec<u8>,
    /// `mcp23017`: I²C bus and address of the expander.
    pub i2c_bus: u8,
    pub i2c_address: u16,
    /// Microseconds to let a column's pull-up recharge after a row that pulled it low.
    pub settle_us: u64,
    /// The calibration: the square under each (row, column) wire pair, row by
    /// row (64 names); empty: a1 … h8 in wire order.
    pub squares: Vec<String>,
}

impl Default for BoardConfig {
    fn default() -> Self {
        BoardConfig {
            kind: "sim".into(),
            scan_hz: 100,
            sim_trace: None,
            sim_speed: 1.0,
            rows: tactus_board::GpioConfig::DEFAULT_ROWS.to_vec(),
            cols: tactus_board::GpioConfig::DEFAULT_COLS.to_vec(),
            i2c_bus: 1,
            i2c_address: 0x20,
            settle_us: 20,
            squares: Vec::new(),
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
    /// PGN `TimeControl` syntax, extended (`5400+30`, `40/5400+30:1800+30`, `*300`, `5400d30`, …).
    pub time_control: Option<String>,
    /// `standard` or `chess960`.
    pub variant: String,
    /// Chess960 or a set-up position: FEN of the start.
    pub start_fen: Option<String>,
    /// `arbiter` (every illegal move penalised) or `unsupervised` (A.5.2: stands unless claimed).
    pub supervision: String,
    /// Milliseconds a sensor reading must hold to count.
    pub debounce_ms: u64,
    /// Milliseconds a board must hold still before its move is announced.
    pub settle_ms: u64,
}

impl Default for GameConfig {
    fn default() -> Self {
        GameConfig {
            white: None,
            black: None,
            event: None,
            site: None,
            round: None,
            time_control: Some("5400+30".into()),
            variant: "standard".into(),
            start_fen: None,
            supervision: "arbiter".into(),
            debounce_ms: 10,
            settle_ms: 100,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VoiceConfig {
    /// `sound`, `text`, `wav:DIR` or `none`.
    pub sink: String,
    /// Language and style: `en:natural`, `de:annex-d`, `ru:nato`, `pl:literate`, …
    pub say: String,
    /// Words per minute.
    pub rate: u32,
    /// An espeak-ng voice instead of the language's own (e.g. `de+f3`).
    pub espeak_voice: Option<String>,
    /// Which touches are said: `never`, `binding`, `all`.
    pub touches: String,
    /// The side of a blind player who announces their own moves: `white`, `black` or absent.
    pub listener: Option<String>,
    /// Seconds left at which a player is warned.
    pub time_warnings: Vec<u64>,
}

impl Default for VoiceConfig {
    fn default() -> Self {
        VoiceConfig {
            sink: "sound".into(),
            say: "en:natural".into(),
            rate: 160,
            espeak_voice: None,
            touches: "never".into(),
            listener: None,
            time_warnings: vec![300, 60, 10],
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClockConfig {
    /// `none`, `open` (the open line protocol, hardware/clock/) or `dgt3000`.
    pub device: String,
    pub path: PathBuf,
    pub baud: u32,
}

impl Default for ClockConfig {
    fn default() -> Self {
        ClockConfig { device: "none".into(), path: "/dev/tactus-clock".into(), baud: 115_200 }
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct HttpConfig {
    /// Address to serve the live page and PGN feed on, e.g. `127.0.0.1:8080`; absent: no HTTP.
    pub listen: Option<String>,
    /// Bearer token the arbiter's actions need; absent: actions are refused.
    pub token: Option<String>,
    /// The token in a file only the service may read (better than `token`).
    pub token_file: Option<PathBuf>,
    /// The built web page (`web/dist`).
    pub assets: Option<PathBuf>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct MqttConfig {
    /// `host:port` of the hall's broker; absent: no MQTT.
    pub broker: Option<String>,
    pub hall: String,
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

/// Loads a config file. Errors name the file, the line and the key.
pub fn load(path: &Path) -> anyhow::Result<Config> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?;
    parse(path, &text)
}

pub fn parse(path: &Path, text: &str) -> anyhow::Result<Config> {
    toml::from_str(text).map_err(|e| anyhow::anyhow!("{}", describe(path, text, &e)))
}

/// `FILE:LINE: key `section.key`: what is wrong`.
fn describe(path: &Path, text: &str, e: &toml::de::Error) -> String {
    let Some(span) = e.span() else { return format!("{}: {}", path.display(), e.message()) };
    let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
    let key = key_at(text, line);
    match key {
        Some(key) => format!("{}:{line}: key `{key}`: {}", path.display(), e.message()),
        None => format!("{}:{line}: {}", path.display(), e.message()),
    }
}

/// The dotted key defined on a line, from the table header above it.
fn key_at(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let here = lines.get(line.checked_sub(1)?)?.trim();
    let table = lines[..line - 1]
        .iter()
        .rev()
        .find_map(|l| l.trim().strip_prefix('[').and_then(|l| l.split(']').next()).map(str::trim));
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

impl Config {
    /// Checks what serde cannot: the names in the string-valued keys.
    pub fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            ["sim", "gpio-matrix", "mcp23017"].contains(&self.board.kind.as_str()),
            "board.kind {:?}: choose sim, gpio-matrix or mcp23017",
            self.board.kind
        );
        anyhow::ensure!(self.board.sim_speed > 0.0, "board.sim_speed must be above 0");
        anyhow::ensure!(self.board.scan_hz > 0, "board.scan_hz must be above 0");
        anyhow::ensure!(
            ["standard", "chess960"].contains(&self.game.variant.as_str()),
            "game.variant {:?}: choose standard or chess960",
            self.game.variant
        );
        anyhow::ensure!(
            ["arbiter", "unsupervised"].contains(&self.game.supervision.as_str()),
            "game.supervision {:?}: choose arbiter or unsupervised",
            self.game.supervision
        );
        self.voice.sink.parse::<VoiceSink>().map_err(|e| anyhow::anyhow!("voice.sink: {e}"))?;
        self.voice.say.parse::<tactus_speech::Choice>().map_err(|e| anyhow::anyhow!("voice.say: {e}"))?;
        anyhow::ensure!(
            matches!(self.voice.listener.as_deref(), None | Some("white" | "black")),
            "voice.listener {:?}: white, black, or leave it out to hear both sides",
            self.voice.listener.as_deref().unwrap_or_default()
        );
        anyhow::ensure!(
            ["never", "binding", "all"].contains(&self.voice.touches.as_str()),
            "voice.touches {:?}: choose never, binding or all",
            self.voice.touches
        );
        anyhow::ensure!(
            ["none", "open", "dgt3000"].contains(&self.clock.device.as_str()),
            "clock.device {:?}: choose none, open or dgt3000",
            self.clock.device
        );
        if let Some(tc) = &self.game.time_control {
            tactus_clock::TimeControl::parse(tc).map_err(|e| anyhow::anyhow!("game.time_control: {e}"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_config_is_valid() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/tactus.example.toml");
        let config = load(&path).unwrap();
        config.validate().unwrap();
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let text = "[board]\nkind = \"sim\"\nscan_hz = \"fast\"\n";
        let e = parse(Path::new("/etc/tactus/tactus.toml"), text).unwrap_err().to_string();
        assert!(e.starts_with("/etc/tactus/tactus.toml:3: key `board.scan_hz`:"), "{e}");
        let text = "[voice]\nsay = \"de:annex-d\"\nvolume = 3\n";
        let e = parse(Path::new("t.toml"), text).unwrap_err().to_string();
        assert!(e.starts_with("t.toml:3: key `voice.volume`:") && e.contains("unknown field"), "{e}");
        let text = "[nonsense]\n";
        let e = parse(Path::new("t.toml"), text).unwrap_err().to_string();
        assert!(e.contains("t.toml:1") && e.contains("nonsense"), "{e}");
    }

    #[test]
    fn validation_names_the_key() {
        let mut c = Config::default();
        c.voice.say = "xx:annex-d".into();
        assert!(c.validate().unwrap_err().to_string().starts_with("voice.say:"));
        let mut c = Config::default();
        c.game.time_control = Some("40/".into());
        assert!(c.validate().unwrap_err().to_string().starts_with("game.time_control:"));
    }
}
