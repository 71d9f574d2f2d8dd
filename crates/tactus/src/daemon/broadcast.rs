//! What leaves the board (crate `tactus-net`): the live page, `/games.pgn`
//! and `/events` over HTTP, and the hall's MQTT broker. Arbiter actions come
//! back as inputs, journaled like any other.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use tactus_core::Event;
use tactus_net::{AppState, BoardPublisher, Control, Hall, HallLink, LinkSettings, SharedHall, Shutdown, Tags};
use tactus_trace::Header;
use tokio::sync::mpsc;

use super::shutdown;
use super::voice::Said;
use crate::config::Config;

pub struct Broadcast {
    board: String,
    hall: SharedHall,
    publisher: Option<Arc<BoardPublisher>>,
    shutdown: Shutdown,
    server: Option<tokio::task::JoinHandle<()>>,
}

/// Where the built page is: the config, a checkout's `web/dist`, or the
/// installed copy.
pub fn web_dir(configured: Option<&PathBuf>) -> PathBuf {
    configured.cloned().unwrap_or_else(|| {
        ["web/dist", "/usr/share/tactus/web"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.exists())
            .unwrap_or("web/dist".into())
    })
}

impl Broadcast {
    /// Starts what the config asks for; `None` when it asks for nothing.
    pub async fn start(cfg: &Config, header: &Header, controls: mpsc::Sender<Control>) -> anyhow::Result<Option<Self>> {
        if cfg.http.listen.is_none() && cfg.mqtt.broker.is_none() {
            return Ok(None);
        }
        let board = if cfg.mqtt.board_id.is_empty() { "board".to_string() } else { cfg.mqtt.board_id.clone() };
        let mut server = None;
        let hall_name = if cfg.mqtt.hall.is_empty() { "tactus".to_string() } else { cfg.mqtt.hall.clone() };
        let hall = SharedHall::new(Hall::new(&hall_name));
        hall.set_tags(&board, Tags::from(header));
        let shutdown = Shutdown::new();
        if let Some(addr) = &cfg.http.listen {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("http.listen {addr}: cannot listen"))?;
            let web = web_dir(cfg.http.assets.as_ref());
            if !web.join("index.html").exists() {
                tracing::warn!(
                    "http: no web page in {}: the feeds are served, the page is not (build it: cd web && npm ci && npm run build; or give --web DIR)",
                    web.display()
                );
            }
            let mut state =
                AppState::new(hall.clone(), controls.clone()).with_web_dir(web).with_shutdown(shutdown.clone());
            let token = match &cfg.http.token {
                Some(token) => Some(token.clone()),
                None => tactus_net::http::arbiter_token(cfg.http.token_file.as_deref())?,
            };
            if let Some(token) = token {
                state = state.with_token(token);
            }
            tracing::info!("http: serving on http://{}/", listener.local_addr()?);
            server = Some(tokio::spawn(async move {
                if let Err(e) = tactus_net::serve(listener, state).await {
                    tracing::error!("http: {e}");
                }
            }));
        }
        let publisher = match &cfg.mqtt.broker {
            None => None,
            Some(broker) => {
                let broker = broker.to_string();
                let link = HallLink::from_settings(&LinkSettings {
                    broker: &broker,
                    username: cfg.mqtt.username.as_deref(),
                    password_file: cfg.mqtt.password_file.as_deref(),
                    ca_file: cfg.mqtt.ca_file.as_deref(),
                    hall_key_file: cfg.mqtt.hall_key_file.as_deref(),
                })
                .map_err(|e| anyhow::anyhow!("mqtt: {e}"))?;
                let p = BoardPublisher::start(&link, &hall_name, &board, Some(controls))
                    .map_err(|e| anyhow::anyhow!("mqtt: {e}"))?;
                p.set_tags(Tags::from(header));
                Some(Arc::new(p))
            }
        };
        Ok(Some(Broadcast { board, hall, publisher, shutdown, server }))
    }

    /// A new game on this board: its tags.
    pub fn new_game(&self, header: &Header) {
        self.hall.set_tags(&self.board, Tags::from(header));
        if let Some(p) = &self.publisher {
            p.set_tags(Tags::from(header));
        }
    }

    /// Whether the page and feeds are served over HTTP.
    pub fn serves_http(&self) -> bool {
        self.server.is_some()
    }

    pub fn board(&self) -> &str {
        &self.board
    }

    pub fn event(&self, event: &Event) {
        self.hall.apply(&self.board, event);
        if let Some(p) = &self.publisher {
            p.event(event);
        }
    }

    /// Reports what the voice said; callable from the voice's thread.
    pub fn said(&self) -> Said {
        let (hall, board, publisher) = (self.hall.clone(), self.board.clone(), self.publisher.clone());
        Arc::new(move |t, text| {
            hall.spoken(&board, t, text);
            if let Some(p) = &publisher {
                p.spoken(t, text);
            }
        })
    }

    /// Flushes the broker, closes the page's streams and waits for the
    /// server, until `deadline`: a broker that does not take the last
    /// changes, or a client that does not read its reply, is left behind.
    pub async fn stop(self, deadline: Instant) {
        self.shutdown.trigger();
        let publisher = async {
            if let Some(p) = self.publisher {
                match Arc::try_unwrap(p) {
                    // Its flush waits for the broker; the rest (a moment to
                    // write, the disconnect) follows it.
                    Ok(p) => p.shutdown(shutdown::left(deadline, Duration::from_millis(100))).await,
                    Err(_) => tracing::warn!("mqtt: still in use at shutdown; not flushed"),
                }
            }
        };
        let server = async {
            if let Some(mut server) = self.server
                && tokio::time::timeout_at(deadline.into(), &mut server).await.is_err()
            {
                // Its thread stops serving as the server's future goes.
                server.abort();
                tracing::warn!("http: replies still being sent at the end were cut off");
            }
        };
        let (_, _) = tokio::join!(tokio::time::timeout_at(deadline.into(), publisher), server);
    }
}
