//! `tactus run`'s flags: each one given replaces one value of the
//! configuration file, named by its path in one table
//! ([`Args::config`]).

use std::path::PathBuf;

use crate::config::{self, BoardKind, BrokerAddr, ClockKind, Config, EngineSide, PairClock, Speed, TimeControlText};
use crate::sink::VoiceSink;

#[derive(clap::Args, Default)]
pub struct Args {
    /// The configuration file (default /etc/tactus/tactus.toml, if present).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The board.
    #[arg(long, value_enum)]
    pub board: Option<BoardKind>,
    /// sim: play this trace (without it, type lifts and places: `e2-`, `e4+`, `w`, `b`).
    #[arg(long)]
    pub sim_trace: Option<PathBuf>,
    /// sim: how much faster than real time the trace plays (0.01 to 10000).
    #[arg(long)]
    pub sim_speed: Option<Speed>,
    /// Where games are journaled (default /var/lib/tactus).
    #[arg(long)]
    pub state_dir: Option<PathBuf>,
    /// Where speech goes: sound, text, wav:DIR, text+wav:DIR, none.
    #[arg(long)]
    pub voice: Option<VoiceSink>,
    /// Language and style of speech, e.g. de:annex-d.
    #[arg(long)]
    pub say: Option<tactus_speech::Choice>,
    /// The time control, e.g. 5400+30 (`-`: no clock).
    #[arg(long)]
    pub time_control: Option<TimeControlText>,
    /// Write the events as JSON Lines here; `-` is standard output.
    #[arg(long)]
    pub events: Option<PathBuf>,
    /// Be a DGT e-Board for chess software at this serial device, or on a
    /// pseudo-terminal linked at this path.
    #[arg(long, value_name = "PATH")]
    pub dgt_emulate: Option<PathBuf>,
    /// A UCI engine plays one side: its program, e.g. /usr/games/stockfish.
    #[arg(long, value_name = "PATH")]
    pub engine: Option<PathBuf>,
    /// The side the engine plays (default black).
    #[arg(long, value_enum)]
    pub engine_plays: Option<EngineSide>,
    /// The engine's level: 0 (first games) to 10 (full strength).
    #[arg(long, value_name = "N")]
    pub engine_level: Option<u8>,
    /// The chess clock.
    #[arg(long, value_enum)]
    pub clock: Option<ClockKind>,
    /// The clock's serial device (default /dev/tactus-clock; /dev/tactus-dgt for a DGT 3000).
    #[arg(long)]
    pub clock_path: Option<PathBuf>,
    /// Serve the live page, /games.pgn and /events (default address 127.0.0.1:8080).
    #[arg(long, num_args = 0..=1, default_missing_value = "127.0.0.1:8080")]
    pub http: Option<std::net::SocketAddr>,
    /// The built web page the live page is served from (default web/dist, or /usr/share/tactus/web).
    #[arg(long)]
    pub web: Option<PathBuf>,
    /// The token the arbiter's actions on the page need.
    #[arg(long)]
    pub token: Option<String>,
    /// The token, in a file (or the TACTUS_TOKEN environment variable).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// The hall key shared with the hall's relays, in a file only its owner may read.
    #[arg(long, value_name = "FILE")]
    pub hall_key: Option<PathBuf>,
    /// Publish to the hall's MQTT broker, host:port.
    #[arg(long)]
    pub mqtt: Option<BrokerAddr>,
    /// The hall's name on the broker.
    #[arg(long)]
    pub hall: Option<String>,
    /// This board's name in the hall.
    #[arg(long)]
    pub board_id: Option<String>,
    /// One game on two boards: the partner board's name in the hall (needs
    /// --mqtt, --hall, --hall-key, --board-id and --plays).
    #[arg(long, value_name = "BOARD")]
    pub pair_with: Option<String>,
    /// The side this board's player has when paired.
    #[arg(long, value_enum)]
    pub plays: Option<EngineSide>,
    /// When paired, where the chess clock is: each board its own (own), or
    /// one at the table attached to this board (here) or to the partner's.
    #[arg(long, value_enum)]
    pub pair_clock: Option<PairClock>,
    /// Play online on Lichess (the Board API) with the token in this file
    /// (mode 600; scope board:play).
    #[arg(long, value_name = "FILE")]
    pub lichess_token_file: Option<PathBuf>,
    /// Lichess's address (default https://lichess.org; a test server's http://127.0.0.1:PORT).
    #[arg(long, value_name = "URL")]
    pub lichess_url: Option<String>,
}

/// Each flag given replaces the configuration's value at its path: a
/// value the configuration always has (`flag => path`), or one it may
/// leave out (`flag => Some(path)`).
macro_rules! flags_over_config {
    ($args:ident => $cfg:ident { $($flag:ident => $($path:ident).+ $(= $some:ident)?),* $(,)? }) => {
        $(
            if let Some(value) = &$args.$flag {
                $cfg.$($path).+ = flags_over_config!(@value value.clone() $(, $some)?);
            }
        )*
    };
    (@value $value:expr) => { $value };
    (@value $value:expr, Some) => { Some($value) };
}

impl Args {
    /// The configuration: the file, then the flags on top; and which file.
    pub fn config(&self) -> anyhow::Result<(Config, Option<PathBuf>)> {
        let (mut cfg, file) = config::load_under_flags(self.config.as_deref())?;
        flags_over_config!(self => cfg {
            board => board.kind,
            sim_trace => board.sim_trace = Some,
            sim_speed => board.sim_speed,
            dgt_emulate => board.dgt_emulate = Some,
            state_dir => state.dir,
            voice => voice.sink,
            say => voice.say,
            time_control => game.time_control,
            engine => engine.path = Some,
            engine_plays => engine.plays,
            engine_level => engine.level,
            clock => clock.device,
            clock_path => clock.path = Some,
            http => http.listen = Some,
            web => http.assets = Some,
            token => http.token = Some,
            token_file => http.token_file = Some,
            hall_key => mqtt.hall_key_file = Some,
            mqtt => mqtt.broker = Some,
            hall => mqtt.hall,
            board_id => mqtt.board_id,
            pair_with => pair.with = Some,
            plays => pair.plays = Some,
            pair_clock => pair.clock,
            lichess_token_file => lichess.token_file = Some,
        });
        if let Some(url) = &self.lichess_url {
            cfg.lichess.url = config::lichess_url_checked(url).map_err(|e| anyhow::anyhow!("--lichess-url {e}"))?;
        }
        let (path, text) = file.unzip();
        config::checked(&cfg, path.as_deref(), text.as_deref())?;
        Ok((cfg, path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn each_flag_given_replaces_its_value_and_the_rest_stay_the_files() {
        let dir = std::env::temp_dir().join(format!("tactus-args-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("tactus.toml");
        std::fs::write(&file, "[board]\nkind = \"sim\"\n[engine]\nlevel = 3\n[mqtt]\nhall = \"club\"\n").unwrap();
        let cli = Cli::try_parse_from([
            "run",
            "--config",
            file.to_str().unwrap(),
            "--sim-trace",
            "game.trace.jsonl",
            "--engine-level",
            "7",
            "--http",
            "--board-id",
            "b4",
        ])
        .unwrap();
        let (cfg, from) = cli.args.config().unwrap();
        assert_eq!(from.as_deref(), Some(file.as_path()));
        assert_eq!(cfg.board.kind, BoardKind::Sim, "the file's");
        assert_eq!(cfg.board.sim_trace.as_deref(), Some(std::path::Path::new("game.trace.jsonl")));
        assert_eq!(cfg.engine.level, 7, "the flag's, over the file's 3");
        assert_eq!(cfg.http.listen, Some("127.0.0.1:8080".parse().unwrap()), "the flag's default address");
        assert_eq!((cfg.mqtt.hall.as_str(), cfg.mqtt.board_id.as_str()), ("club", "b4"));
        assert_eq!(cfg.clock.device, ClockKind::None, "not given anywhere: the default");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
