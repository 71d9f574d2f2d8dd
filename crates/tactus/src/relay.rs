//! `tactus relay`: follows a hall's boards on its MQTT broker and serves
//! them together: the hall's `/games.pgn`, a page with every board, and the
//! arbiter's view that raises each irregularity and flag fall as it happens.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use serde::Deserialize;
use tactus_net::{AppState, Broker, Hall, Shutdown, TeamMatch};

use crate::daemon::web_dir;

#[derive(clap::Args)]
pub struct Args {
    /// The hall's broker, host:port.
    #[arg(long)]
    broker: String,
    /// The hall to follow (the boards publish under tactus/<hall>/…).
    #[arg(long)]
    hall: String,
    /// Where to serve the hall.
    #[arg(long, default_value = "127.0.0.1:8080")]
    http: String,
    /// The token the arbiter's actions need (without one they are refused).
    #[arg(long)]
    token: Option<String>,
    /// Team matches: a TOML file of `[[match]]` tables (docs/team-matches.md).
    #[arg(long)]
    teams: Option<PathBuf>,
    /// The built web page (default web/dist, or /usr/share/tactus/web).
    #[arg(long)]
    web: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Teams {
    #[serde(rename = "match", default)]
    matches: Vec<TeamMatch>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let broker: Broker = args.broker.parse().map_err(|e| anyhow::anyhow!("--broker {:?}: {e}", args.broker))?;
    let mut hall = Hall::new(&args.hall);
    if let Some(path) = &args.teams {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let teams: Teams = toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        for m in &teams.matches {
            m.check().map_err(|e| anyhow::anyhow!("{}: match {:?}: {e}", path.display(), m.name))?;
        }
        hall = hall.with_matches(teams.matches);
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let relay = tactus_net::relay(&broker, hall).map_err(|e| anyhow::anyhow!("relay: {e}"))?;
        let listener = tokio::net::TcpListener::bind(&args.http)
            .await
            .with_context(|| format!("--http {}: cannot listen", args.http))?;
        eprintln!("tactus relay: hall {:?} from {} on http://{}/", args.hall, args.broker, listener.local_addr()?);
        let shutdown = Shutdown::new();
        let mut state = AppState::new(relay.hall.clone(), relay.controls.clone())
            .with_web_dir(web_dir(args.web.as_ref()))
            .with_shutdown(shutdown.clone());
        if let Some(token) = &args.token {
            state = state.with_token(token.clone());
        }
        let server = tokio::spawn(tactus_net::serve(listener, state));
        let mut sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = sigterm.recv() => {}
        }
        shutdown.trigger();
        let _ = server.await;
        relay.stop();
        Ok(ExitCode::SUCCESS)
    })
}
