//! `tactus relay`: follows a hall's boards on its MQTT broker and serves
//! them together: the hall's `/games.pgn`, a page with every board, and the
//! arbiter's view that raises each irregularity and flag fall as it happens.

use std::path::{Path, PathBuf};
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
    let broker: Broker = args.broker.parse().map_err(|e| anyhow::anyhow!("--broker {:?}: {e}", args.broker))?;
    let mut hall = Hall::new(&args.hall);
    if let Some(path) = &args.teams {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        hall = hall.with_matches(teams(path, &text)?);
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let relay = tactus_net::relay(&broker, hall).map_err(|e| anyhow::anyhow!("relay: {e}"))?;
        let listener = tokio::net::TcpListener::bind(&args.http)
            .await
            .with_context(|| format!("--http {}: cannot listen", args.http))?;
        let web = web_dir(args.web.as_ref());
        tracing::info!("relay: hall {:?} from {} on http://{}/", args.hall, args.broker, listener.local_addr()?);
        if !web.join("index.html").exists() {
            tracing::warn!(
                "relay: no web page in {}: the feeds are served, the page is not (give --web DIR)",
                web.display()
            );
        }
        let shutdown = Shutdown::new();
        let mut state =
            AppState::new(relay.hall.clone(), relay.controls.clone()).with_web_dir(web).with_shutdown(shutdown.clone());
        if let Some(token) = &args.token {
            state = state.with_token(token.clone());
        }
        let server = tokio::spawn(tactus_net::serve(listener, state));
        let mut sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        let mut summaries = tokio::time::interval(std::time::Duration::from_secs(10));
        loop {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => break,
                _ = sigterm.recv() => break,
                _ = summaries.tick() => crate::log::summarise(false),
            }
        }
        shutdown.trigger();
        let _ = server.await;
        relay.stop();
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
