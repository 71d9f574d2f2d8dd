//! Talks to Lichess.
pub mod api;
pub mod broadcast;
pub mod follower;
pub mod http;
pub mod ndjson;
pub mod play;
pub mod retry;
pub mod token;
pub mod wire;
