//! What leaves a tactus board: the live PGN feed, the HTTP API and page,
//! server-sent events, MQTT to a hall, and the relay that gathers a hall's
//! boards. See `API.md` beside this crate for the HTTP and MQTT contract.
//!
//! Everything is built from the core's events: a [`Hall`] of [`BoardFeed`]s
//! (pure) is shared live as a [`SharedHall`] whose updates go to `/events`;
//! arbiter actions come back as [`Control`]s.
//!
//! The modules are private, in layers; each imports only from the layers
//! below it (`tests/layers.rs` holds them to it):
//!
//! | layer | modules | what |
//! |---|---|---|
//! | 1 | `wire` | words on the wire: names and topics, a change's envelope, the arbiter's controls, the wall clock |
//! | 2 | `teams` | pure: team matches, their boards and scores |
//! | 3 | `feed` | pure: a hall's games as the core's events tell them, and their PGN |
//! | 4 | `vet` | pure: what a relay takes from the broker, checked |
//! | 5 | `auth` | the hall key's seals, secrets read from files, refusals counted |
//! | 6 | `sse` | the hall shared live, and `/events` (given the hall, not the server) |
//! | 7 | `http`, `mqtt` | the server; a board's publisher and the broker's client |
//! | 8 | `relay` | a hall's boards gathered from the broker |

mod auth;
mod feed;
mod http;
mod mqtt;
mod relay;
mod sse;
mod teams;
mod vet;
mod wire;

pub use auth::{HallKey, Refusals, SecretError, read_secret};
pub use feed::{Applied, ArbiterNote, BoardFeed, Change, Clocks, EngineView, FeedMove, Hall, Spoken, Tags, Trust};
pub use http::{AppState, Limits, MAX_HEAD, arbiter_token, serve};
pub use mqtt::{BoardPublisher, Broker, HallLink, LinkSettings, Login, MqttError};
pub use relay::{MAX_BOARDS, Relay, RelayOptions, RelayStats, UNTRUSTED, relay};
pub use sse::{SharedHall, Shutdown, Update};
pub use teams::{BoardScore, BoardTeams, HomeAway, MatchScore, Team, TeamMatch, TeamScore};
pub use wire::{BadName, Control, check_arbiter_input};
