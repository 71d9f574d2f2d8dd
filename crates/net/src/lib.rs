//! What leaves a tactus board: the live PGN feed, the HTTP API and page,
//! server-sent events, MQTT to a hall, and the relay that gathers a hall's
//! boards. See `API.md` beside this crate for the HTTP and MQTT contract.
//!
//! Everything is built from the core's events: a [`Hall`] of [`BoardFeed`]s
//! (pure, in [`feed`]) is shared live as a [`SharedHall`] whose updates go to
//! `/events`; arbiter actions come back as [`Control`]s.

pub mod auth;
pub mod feed;
pub mod http;
pub mod mqtt;
pub mod relay;
pub mod sse;
pub mod teams;
pub mod vet;

pub use auth::{HallKey, SecretError, read_secret};
pub use feed::{Applied, ArbiterNote, BoardFeed, Change, Clocks, EngineView, FeedMove, Hall, Spoken, Tags, Trust};
pub use http::{AppState, Control, Limits, check_arbiter_input, serve};
pub use mqtt::{BoardPublisher, Broker, HallLink, LinkSettings, Login, MqttError};
pub use relay::{Relay, RelayOptions, RelayStats, relay};
pub use sse::{SharedHall, Shutdown, Update};
pub use teams::{BoardTeams, HomeAway, MatchScore, Team, TeamMatch};
