//! What leaves the board (crate `tactus-net`): the live page, `/games.pgn`
//! and `/events` over HTTP, and the hall's MQTT broker. Arbiter actions come
//! back as inputs, journaled like any other.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use tactus_core::Event;
use tactus_net::{AppState, BoardPublisher, Control, Hall, Paired, SharedHall, Tags};
use tactus_speech::Scribe;
use tactus_trace::Header;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::shutdown;
use super::voice::OnSaid;
use crate::config::{GameConfig, Plan};

/// What the broker's goodbye is left of the shutdown's budget.
const GOODBYE: Duration = Duration::from_millis(100);

/// A game's tags as this board publishes them.
fn board_tags(game: &GameConfig, pair: Option<&Paired>, header: &Header) -> Tags {
    Tags { pair: pair.cloned(), ..game.player_tags(Tags::from(header)) }
}

pub struct Broadcast {
    board: String,
    /// The board's words for the rulings and notes the page shows, in the
    /// language the board speaks.
    scribe: Scribe,
    /// The players' FIDE IDs, titles and ratings go on every game's tags.
    game: GameConfig,
    /// A game on two boards: this board's side and its partner go on the
    /// tags, for a relay to show the two boards as one game.
    pair: Option<Paired>,
    hall: SharedHall,
    publisher: Option<Arc<BoardPublisher>>,
    /// Stops the server and the publisher: a child of the daemon's stop
    /// signal.
    stop: CancellationToken,
    /// The server, on the daemon's tracker.
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
    /// The server is one of `tasks`; the server and the publisher begin to
    /// stop, the orderly way, as soon as `stop` is cancelled.
    pub async fn start(
        plan: &Plan,
        header: &Header,
        controls: mpsc::Sender<Control>,
        tasks: &TaskTracker,
        stop: &CancellationToken,
    ) -> anyhow::Result<Option<Self>> {
        let cfg = &plan.config;
        let access = cfg.mqtt.access();
        if cfg.http.listen.is_none() && access.is_none() {
            return Ok(None);
        }
        let board = cfg.mqtt.board_id.name().to_string();
        let mut server = None;
        let hall_name = cfg.mqtt.hall_name();
        let hall = SharedHall::new(Hall::new(&hall_name));
        let pair = plan.opponent.partner().map(|p| Paired { with: p.partner.to_string(), plays: p.side });
        let tags = board_tags(&cfg.game, pair.as_ref(), header);
        hall.set_tags(&board, tags.clone());
        let stop = stop.child_token();
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
            let mut state = AppState::new(hall.clone(), controls.clone()).with_web_dir(web);
            let token = match &cfg.http.token {
                Some(token) => Some(token.clone()),
                None => tactus_net::arbiter_token(cfg.http.token_file.as_deref())?,
            };
            if let Some(token) = token {
                state = state.with_token(token);
            }
            tracing::info!("http: serving on http://{}/", listener.local_addr()?);
            let serving = tactus_net::serve(listener, state, &stop);
            server = Some(tasks.spawn(async move {
                if let Err(e) = serving.await {
                    tracing::error!("http: {e}");
                }
            }));
        }
        let publisher = match access {
            None => None,
            Some(access) => {
                let link = access.link().map_err(|e| anyhow::anyhow!("mqtt: {e}"))?;
                let p = BoardPublisher::start(&link, &hall_name, &board, Some(controls), &stop)
                    .map_err(|e| anyhow::anyhow!("mqtt: {e}"))?;
                // Its stop may begin with the daemon's stop signal: its
                // flush ends within the shutdown's budget, its goodbye in
                // what is left.
                p.close_within(shutdown::BUDGET - GOODBYE);
                p.set_tags(tags);
                Some(Arc::new(p))
            }
        };
        let scribe = Scribe::natural(cfg.voice.say.lang);
        Ok(Some(Broadcast { board, scribe, game: cfg.game.clone(), pair, hall, publisher, stop, server }))
    }

    /// A new game on this board: its tags.
    pub fn new_game(&self, header: &Header) {
        let tags = board_tags(&self.game, self.pair.as_ref(), header);
        self.hall.set_tags(&self.board, tags.clone());
        if let Some(p) = &self.publisher {
            p.set_tags(tags);
        }
    }

    /// The round's pairings the hall sends this board (with the hall key).
    pub fn pairings(&self) -> Option<mpsc::Receiver<tactus_net::SentPairing>> {
        self.publisher.as_ref().and_then(|p| p.pairings())
    }

    /// Whether the page and feeds are served over HTTP.
    pub fn serves_http(&self) -> bool {
        self.server.is_some()
    }

    pub fn board(&self) -> &str {
        &self.board
    }

    /// An event for the page and the hall, with the board's words for it.
    pub fn event(&mut self, event: &Event) {
        let text = self.scribe.write(event);
        self.hall.apply(&self.board, event, text.as_deref());
        if let Some(p) = &self.publisher {
            p.event(event, text.as_deref());
        }
    }

    /// Reports what the voice said; callable from the voice's thread.
    pub fn said(&self) -> OnSaid {
        let (hall, board, publisher) = (self.hall.clone(), self.board.clone(), self.publisher.clone());
        Arc::new(move |t, text| {
            hall.spoken(&board, t, text);
            if let Some(p) = &publisher {
                p.spoken(t, text);
            }
        })
    }

    /// Flushes the broker, closes the page's streams and waits for the
    /// server and the publisher, until `deadline`: a broker that does not
    /// take the last changes, or a client that does not read its reply, is
    /// left behind.
    pub async fn stop(self, deadline: Instant) {
        let publisher = async {
            if let Some(p) = &self.publisher {
                // Its flush waits for the broker; the rest (the goodbye)
                // follows it.
                p.shutdown(shutdown::left(deadline, GOODBYE)).await;
            }
        };
        self.stop.cancel();
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
