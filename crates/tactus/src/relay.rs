//! `tactus relay`: follows a hall's boards on its MQTT broker and serves
//! them together: the hall's `/games.pgn`, a page with every board, and the
//! arbiter's view that raises each irregularity and flag fall as it happens.
//!
//! With `--hall-key` it takes only what the hall's boards sealed, and the
//! arbiter's actions go back sealed; without one it says plainly that it
//! cannot tell the boards from strangers, and actions are off.
//!
//! With `--lichess-broadcast` it pushes every board's game to Lichess
//! broadcast rounds as well (see `tactus_net::push_to_lichess`).
//!
//! With `--round-trf FILE --round N` it plays a round from the pairing
//! program: each board told its players, the results written back
//! (`crate::round`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use serde::Deserialize;
use tactus_net::{AppState, Hall, HallLink, LinkSettings, RelayOptions, TeamMatch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use tactus_lichess::broadcast::{PushOptions, Pusher, RoundSpec};
use tactus_lichess::http::{Client, Settings};
use tactus_lichess::token::Token;

use crate::config::{self, LichessConfig};
use crate::daemon::web_dir;

#[derive(clap::Args)]
pub struct Args {
    /// The hall's broker: host:port, or mqtts://host:port for TLS.
    #[arg(long)]
    broker: String,
    /// The hall to follow (the boards publish under tactus/<hall>/…).
    #[arg(long)]
    hall: String,
    /// Where to serve the hall.
    #[arg(long, default_value = "127.0.0.1:8080")]
    http: String,
    /// The hall key, shared with the boards: a file only its owner may read.
    /// Without it the relay cannot tell boards from strangers, and the
    /// arbiter's actions are off.
    #[arg(long, value_name = "FILE")]
    hall_key: Option<PathBuf>,
    /// The broker login's user name (see config/mosquitto/).
    #[arg(long, value_name = "USER")]
    mqtt_user: Option<String>,
    /// The broker login's password, in a file (or TACTUS_MQTT_PASSWORD).
    #[arg(long, value_name = "FILE")]
    mqtt_password_file: Option<PathBuf>,
    /// The certificates TLS trusts for the broker (default: the system's).
    #[arg(long, value_name = "FILE")]
    mqtt_ca: Option<PathBuf>,
    /// The token the arbiter's actions need, in a file (or TACTUS_TOKEN).
    /// Without one they are refused.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// The token itself. Avoid: every user of the machine sees it in `ps`.
    #[arg(long, hide = true)]
    token: Option<String>,
    /// Team matches: a TOML file of `[[match]]` tables (docs/team-matches.md).
    #[arg(long)]
    teams: Option<PathBuf>,
    /// The built web page (default web/dist, or /usr/share/tactus/web).
    #[arg(long)]
    web: Option<PathBuf>,
    /// The most boards followed (1 to 10000), those of the team matches
    /// included. When all places are taken, a new board takes the place of
    /// the board heard from least lately (never a team match's), else it is
    /// refused (and logged).
    #[arg(
        long,
        default_value_t = tactus_net::MAX_BOARDS as u64,
        value_parser = clap::value_parser!(u64).range(1..=10_000)
    )]
    max_boards: u64,
    /// A configuration file (tactus.toml): the relay reads its `[lichess]`
    /// table; the flags below go over it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Push the hall's games to this Lichess broadcast round: its id (the end
    /// of the round's URL), and in a hall of more than 100 boards the boards
    /// it shows, ID=101-200. Once for each round.
    #[arg(long, value_name = "ROUND")]
    lichess_broadcast: Vec<RoundSpec>,
    /// The Lichess token the pushes need (scope study:write), in a file only
    /// its owner may read.
    #[arg(long, value_name = "FILE")]
    lichess_token_file: Option<PathBuf>,
    /// Lichess's address (default https://lichess.org).
    #[arg(long, value_name = "URL")]
    lichess_url: Option<String>,
    /// A round of a tournament: the pairing program's Tournament Report
    /// File (FIDE's TRF-16 or TRF-26), exported with the round paired. Each
    /// board is told its players; `/round.trf` gives the file back with the
    /// results. SIGHUP reads it again for the next round. Needs the hall key.
    #[arg(long, value_name = "FILE")]
    round_trf: Option<PathBuf>,
    /// The round the file pairs, to play now.
    #[arg(long, value_name = "N")]
    round: Option<config::RoundNumber>,
    /// Where the round's results are kept, so that a restarted relay has
    /// them (default: the config's [state] dir with --config, else
    /// systemd's $STATE_DIRECTORY, $XDG_STATE_HOME/tactus or
    /// ~/.local/state/tactus).
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
}

/// The round to play: the flags, else the config's `[round]`; and where its
/// results are kept.
fn round_args(args: &Args) -> anyhow::Result<Option<(PathBuf, u32, PathBuf)>> {
    let (file, state_dir) = match &args.config {
        Some(path) => {
            let config = config::load(path)?;
            (config.round, Some(config.state.dir))
        }
        None => (config::RoundConfig::default(), None),
    };
    match (args.round_trf.clone().or(file.trf), args.round.or(file.number)) {
        (Some(trf), Some(n)) => {
            let state_dir = match args.state_dir.clone().or(state_dir) {
                Some(dir) => dir,
                None => default_state_dir()?,
            };
            Ok(Some((trf, n.get(), state_dir)))
        }
        (None, None) => Ok(None),
        (Some(_), None) => anyhow::bail!("a round's file needs the round it plays: --round N (or [round] number)"),
        (None, Some(_)) => anyhow::bail!("--round needs the round's file: --round-trf FILE (or [round] trf)"),
    }
}

/// Where a relay given no state directory keeps a round's results: the
/// one systemd made for its unit (`StateDirectory=`), else the user's own
/// (XDG), for a relay run by hand.
fn default_state_dir() -> anyhow::Result<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|d| !d.is_empty()).map(PathBuf::from);
    // systemd may list several, separated by colons: the first is the unit's own.
    let systemd = var("STATE_DIRECTORY").and_then(|d| d.to_str().and_then(|d| d.split(':').next()).map(PathBuf::from));
    let xdg = || var("XDG_STATE_HOME").map(|d| d.join("tactus"));
    let home = || var("HOME").map(|h| h.join(".local/state/tactus"));
    systemd
        .or_else(xdg)
        .or_else(home)
        .ok_or_else(|| anyhow::anyhow!("where to keep the round's results: give --state-dir DIR (no HOME)"))
}

/// What the relay needs to push the hall to Lichess: checked before it starts.
struct Broadcast {
    client: Client,
    options: PushOptions,
}

/// The flags over the config's `[lichess]`; `None` when no round is given.
/// The client's connections are driven on `tasks`.
fn broadcast(args: &Args, tasks: &TaskTracker) -> anyhow::Result<Option<Broadcast>> {
    let file = match &args.config {
        Some(path) => config::load(path)?.lichess,
        None => LichessConfig::default(),
    };
    let rounds = if args.lichess_broadcast.is_empty() { file.broadcast } else { args.lichess_broadcast.clone() };
    if rounds.is_empty() {
        return Ok(None);
    }
    let options = PushOptions::new(rounds).map_err(|e| anyhow::anyhow!("--lichess-broadcast: {e}"))?;
    let token_file = args.lichess_token_file.clone().or(file.token_file).ok_or_else(|| {
        anyhow::anyhow!(
            "--lichess-broadcast needs the Lichess token: --lichess-token-file FILE (or [lichess] token_file), a token with the scope study:write"
        )
    })?;
    let token = Token::read(&token_file)?;
    let url = args.lichess_url.clone().unwrap_or_else(|| file.url.to_string());
    let client = Client::new(token, Settings { url, tasks: tasks.clone(), ..Settings::default() })?;
    Ok(Some(Broadcast { client, options }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Teams {
    #[serde(rename = "match", default)]
    matches: Vec<TeamMatch>,
}

/// The team matches of a file; a board may play in one match only.
fn teams(path: &Path, text: &str) -> anyhow::Result<Vec<TeamMatch>> {
    let teams: Teams = toml::from_str(text).map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.message()))?;
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for m in &teams.matches {
        m.check().map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        for b in m.home.boards.iter().chain(&m.away.boards) {
            if let Some((_, other)) = seen.iter().find(|(id, other)| id == b && *other != m.name) {
                anyhow::bail!("{}: board {b:?} is in two matches: {other:?} and {:?}", path.display(), m.name);
            }
            seen.push((b, &m.name));
        }
    }
    Ok(teams.matches)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // What the relay refuses, and why, goes to standard error.
    let _ = tracing_subscriber::fmt().with_writer(std::io::stderr).with_target(false).try_init();
    let settings = LinkSettings {
        broker: &args.broker,
        username: args.mqtt_user.as_deref(),
        password_file: args.mqtt_password_file.as_deref(),
        ca_file: args.mqtt_ca.as_deref(),
        hall_key_file: args.hall_key.as_deref(),
    };
    let link = HallLink::from_settings(&settings).map_err(|e| anyhow::anyhow!("{e}"))?;
    let token = match (&args.token, tactus_net::arbiter_token(args.token_file.as_deref())?) {
        (_, Some(token)) => Some(token),
        (Some(token), None) => {
            tracing::warn!("relay: --token is visible to every user in `ps`: use --token-file or TACTUS_TOKEN");
            Some(token.clone())
        }
        (None, None) => None,
    };
    // Within 1 to 10,000 (clap checked): a usize on any machine.
    let max_boards = args.max_boards as usize;
    let mut hall = Hall::new(&args.hall);
    if let Some(path) = &args.teams {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let matches = teams(path, &text)?;
        let listed: usize = matches.iter().map(|m| m.boards().len()).sum();
        anyhow::ensure!(
            listed <= max_boards,
            "{}: the matches list {listed} boards, more than --max-boards {max_boards}",
            path.display(),
        );
        hall = hall.with_matches(matches);
    }
    // Every task of the relay's own: the server, the signal watcher, the
    // Lichess pushing and its connections.
    let tasks = TaskTracker::new();
    let broadcast = broadcast(&args, &tasks)?;
    let round = round_args(&args)?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let options = RelayOptions { max_boards };
        // Stops the relay and the server.
        let stop = CancellationToken::new();
        let relay = tactus_net::relay(&link, hall, options, &stop).map_err(|e| anyhow::anyhow!("relay: {e}"))?;
        let listener = tokio::net::TcpListener::bind(&args.http)
            .await
            .with_context(|| format!("--http {}: cannot listen", args.http))?;
        let web = web_dir(args.web.as_ref());
        tracing::info!("relay: hall {:?} from {} on http://{}/", args.hall, link.broker, listener.local_addr()?);
        if !web.join("index.html").exists() {
            tracing::warn!(
                "relay: no web page in {}: the feeds are served, the page is not (give --web DIR)",
                web.display()
            );
        }
        let state = match &relay.controls {
            Some(tx) => AppState::new(relay.hall.clone(), tx.clone()),
            None => AppState::read_only(relay.hall.clone(), tactus_net::UNTRUSTED),
        };
        let mut state = state.with_web_dir(web);
        if let Some(token) = token {
            state = state.with_token(token);
        }
        let round = match &round {
            Some((file, n, state_dir)) => {
                Some(crate::round::start(file, *n, state_dir, &link, &relay.hall, max_boards, &stop)?)
            }
            None => None,
        };
        if let Some(round) = &round {
            state = state.with_round(round.round.clone());
        }
        let lichess = broadcast.map(|b| {
            let rounds: Vec<String> = b.options.rounds.iter().map(ToString::to_string).collect();
            tracing::info!(
                "relay: pushing the hall to the Lichess broadcast rounds {} at {}",
                rounds.join(", "),
                b.client.settings().url
            );
            if link.key.is_none() {
                tracing::warn!(
                    "relay: without a hall key, anyone who can publish on the broker can put games on the Lichess broadcast"
                );
            }
            let pusher = Pusher::start(b.client, b.options, &tasks, &stop);
            tactus_net::push_to_lichess(&relay, pusher, &tasks, &stop)
        });
        if let Some(lichess) = &lichess {
            state = state.with_lichess(lichess.status.clone());
        }
        let serving = tactus_net::serve(listener, state, &stop);
        tasks.spawn(async move {
            if let Err(e) = serving.await {
                tracing::error!("relay: http: {e}");
            }
        });
        crate::signals::cancel_on_signals(&stop, &tasks)?;
        let mut summaries = tokio::time::interval(std::time::Duration::from_secs(10));
        loop {
            tokio::select! {
                () = stop.cancelled() => break,
                _ = summaries.tick() => crate::log::summarise(false),
            }
        }
        tasks.close();
        tasks.wait().await;
        relay.stopped().await;
        if let Some(lichess) = lichess {
            lichess.stopped().await;
        }
        if let Some(round) = round {
            round.stopped().await;
        }
        crate::log::summarise(true);
        Ok(ExitCode::SUCCESS)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MATCH: &str = "[[match]]\nname = \"A-B\"\nwhite_on_odd_boards_for = \"home\"\n[match.home]\nname = \"A\"\nboards = [\"b1\", \"b2\"]\n[match.away]\nname = \"B\"\n";

    #[test]
    fn team_files_are_checked() {
        let p = Path::new("teams.toml");
        assert_eq!(teams(p, MATCH).unwrap().len(), 1);
        let e = teams(p, &MATCH.replace("boards = ", "bords = ")).unwrap_err().to_string();
        assert!(e.contains("teams.toml") && e.contains("bords"), "{e}");
        let twice = format!("{MATCH}{}", MATCH.replace("A-B", "C-D"));
        let e = teams(p, &twice).unwrap_err().to_string();
        assert!(e.contains("two matches"), "{e}");
        let e = teams(p, &MATCH.replace("[\"b1\", \"b2\"]", "[\"b1\", \"b1\"]")).unwrap_err().to_string();
        assert!(e.contains("twice"), "{e}");
    }
}
