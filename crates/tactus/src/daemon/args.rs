//! `tactus run`'s flags: each one given replaces one key of the
//! configuration file, named in one table (`flags!`); then the whole is
//! checked into the daemon's plan ([`Args::plan`]). A flag takes the key's
//! own type, so it is refused as the file's value would be.

use std::path::PathBuf;

use tactus_net::Broker;

use crate::config::{
    BoardId, BoardKind, ClockKind, Config, ConfigError, Draft, EngineLevel, LichessUrl, PairClock, PlainName, Plan,
    Side, Speed, TimeControlText,
};
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
    pub engine_plays: Option<Side>,
    /// The engine's level: 0 (first games) to 10 (full strength).
    #[arg(long, value_name = "N")]
    pub engine_level: Option<EngineLevel>,
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
    pub mqtt: Option<Broker>,
    /// The hall's name on the broker.
    #[arg(long)]
    pub hall: Option<PlainName>,
    /// This board's name in the hall.
    #[arg(long)]
    pub board_id: Option<PlainName>,
    /// One game on two boards: the partner board's name in the hall (needs
    /// --mqtt, --hall, --hall-key, --board-id and --plays).
    #[arg(long, value_name = "BOARD")]
    pub pair_with: Option<PlainName>,
    /// The side this board's player has when paired.
    #[arg(long, value_enum)]
    pub plays: Option<Side>,
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
    pub lichess_url: Option<LichessUrl>,
}

/// The flags' one table: each flag given replaces the key it names, as
/// it is (`flag => table.key`) or wrapped (`flag => table.key = Some`).
macro_rules! flags {
    ($($flag:ident => $table:ident . $name:ident $(= $wrap:path)?),* $(,)?) => {
        impl Args {
            /// Puts each flag given over its key.
            fn over(&self, cfg: &mut Config) {
                $(
                    if let Some(value) = &self.$flag {
                        cfg.$table.$name = flags!(@wrap value.clone() $(, $wrap)?);
                    }
                )*
            }

            /// Each flag of the table, and the key it sets.
            #[cfg(test)]
            pub fn keys() -> Vec<(String, crate::config::Key)> {
                vec![$((format!("--{}", stringify!($flag).replace('_', "-")), crate::config::key!($table.$name))),*]
            }
        }
    };
    (@wrap $value:expr) => { $value };
    (@wrap $value:expr, $wrap:path) => { $wrap($value) };
}

flags! {
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
    hall => mqtt.hall = Some,
    board_id => mqtt.board_id = BoardId::Named,
    pair_with => pair.with = Some,
    plays => pair.plays = Some,
    pair_clock => pair.clock,
    lichess_token_file => lichess.token_file = Some,
    lichess_url => lichess.url,
}

impl Args {
    /// The daemon's plan: the file, the flags on top, the whole checked.
    pub fn plan(&self) -> Result<Plan, ConfigError> {
        let mut draft = Draft::read(self.config.as_deref())?;
        self.over(&mut draft.config);
        draft.plan()
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
        let plan = cli.args.plan().unwrap();
        let cfg = &plan.config;
        assert_eq!(plan.file.as_deref(), Some(file.as_path()));
        assert_eq!(cfg.board.kind, BoardKind::Sim, "the file's");
        assert_eq!(cfg.board.sim_trace.as_deref(), Some(std::path::Path::new("game.trace.jsonl")));
        assert_eq!(cfg.engine.level.get(), 7, "the flag's, over the file's 3");
        assert_eq!(cfg.http.listen, Some("127.0.0.1:8080".parse().unwrap()), "the flag's default address");
        assert_eq!((cfg.mqtt.hall_name().as_str(), cfg.mqtt.board_id.name().as_str()), ("club", "b4"));
        assert_eq!(cfg.clock.device, ClockKind::None, "not given anywhere: the default");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A flag takes its key's type: what the file refuses, the flag does
    /// too, in the same words, before anything starts.
    #[test]
    fn a_flag_is_refused_as_its_key_would_be() {
        let refused = |args: &[&str]| Cli::try_parse_from([&["run"], args].concat()).err().map(|e| e.to_string());
        let e = refused(&["--engine-level", "11"]).unwrap();
        assert!(e.contains("--engine-level") && e.contains("11 is out of range: 0 to 10"), "{e}");
        let e = refused(&["--board-id", "a/b"]).unwrap();
        assert!(e.contains("--board-id") && e.contains("is not a plain name"), "{e}");
        let e = refused(&["--hall", "#"]).unwrap();
        assert!(e.contains("--hall") && e.contains("is not a plain name"), "{e}");
        let e = refused(&["--lichess-url", "lichess.org"]).unwrap();
        assert!(e.contains("--lichess-url") && e.contains("starts with https://"), "{e}");
        assert_eq!(refused(&["--engine-level", "10", "--board-id", "b-1"]), None);
    }

    /// Every flag but `--config` and `--events` sets a key, in the one
    /// table; the operator's guide lists each in its table's row.
    #[test]
    fn every_flag_is_in_the_table_and_the_guide() {
        use clap::Args as _;
        let table = Args::keys();
        let command = Args::augment_args(clap::Command::new("run"));
        for arg in command.get_arguments() {
            let flag = format!("--{}", arg.get_long().unwrap());
            if flag == "--config" || flag == "--events" {
                continue;
            }
            assert!(table.iter().any(|(f, _)| *f == flag), "{flag} is not in the flags' table");
        }
        let guide =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/operator-guide.md")).unwrap();
        for (flag, key) in table {
            let row = guide.lines().find(|l| l.starts_with(&format!("| `[{}]` |", key.table))).unwrap();
            let flags = row.split('|').nth(3).unwrap();
            assert!(flags.contains(&format!("`{flag}`")), "{flag} ({key}) is not in the guide's row: {row}");
        }
    }
}
