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
//! | 2 | `teams`, `players` | pure: team matches, their boards and scores; the players' FIDE IDs, titles and ratings |
//! | 3 | `feed`, `lichess_view` | pure: a hall's games as the core's events tell them, and their PGN; the boards' numbers in a Lichess broadcast, and what the arbiter sees of it |
//! | 4 | `vet` | pure: what a relay takes from the broker, checked |
//! | 5 | `auth` | the hall key's seals, secrets read from files, refusals counted |
//! | 6 | `sse` | the hall shared live, and `/events` (given the hall, not the server) |
//! | 7 | `http`, `mqtt` | the server; a board's publisher and the broker's client |
//! | 8 | `relay`, `pair`, `pairings` | a hall's boards gathered from the broker; two boards of one game linked; a round's pairings sent to its boards |
//! | 9 | `lichess` | a relay's hall pushed to a Lichess broadcast |
//!
//! One stop for all it starts: [`serve`], [`relay`] and
//! [`BoardPublisher::start`] take their owner's `CancellationToken`
//! (tokio-util) and stop when it is cancelled, each the orderly way and
//! within a bound: the server finishes the requests in flight and ends the
//! `/events` streams, a board and a relay hand the broker what they hold
//! (not while it is away), say goodbye and wait for it to close the
//! connection. Their tasks are tracked: the future `serve` returns, and
//! `stopped()` of a board or a relay, are ready once all have ended;
//! `shutdown()` stops one alone. Nothing is aborted.

mod auth;
mod feed;
mod http;
mod lichess;
mod lichess_view;
mod mqtt;
mod pair;
mod pairings;
mod players;
mod relay;
mod sse;
mod teams;
mod vet;
mod wire;

pub use auth::{HallKey, MIN_KEY_BYTES, Refusals, SecretError, read_secret};
pub use feed::{
    Applied, ArbiterNote, BoardFeed, Change, Clocks, EngineView, FeedMove, Hall, MoveName, Paired, SPOKEN_KEPT, Spoken,
    Tags, Told, Trust,
};
pub use http::{
    AppState, Limits, MAX_HEAD, RoundBoard, RoundDesk, RoundError, RoundUnpaired, RoundView, TOKEN_ENV, arbiter_token,
    serve,
};
pub use lichess::{LichessPush, push_to_lichess};
pub use lichess_view::{LichessBoard, LichessView, Unnumbered, board_number};
pub use mqtt::{
    BoardPublisher, Broker, HallLink, LinkSettings, Login, MqttError, PASSWORD_ENV, SYSTEM_CA_FILE, SentPairing,
};
pub use pair::{FromPartner, PairGame, PairMessage, PartnerLink, Seat, UNACKED_KEPT};
pub use pairings::PairingSender;
pub use players::{MAX_ELO, MAX_FIDE_ID, Title};
pub use relay::{Changed, MAX_BOARDS, Relay, RelayOptions, RelayStats, UNTRUSTED, relay};
pub use sse::{SharedHall, Update, UpdateKind};
pub use teams::{BoardScore, BoardTeams, Games, HomeAway, MatchError, MatchScore, Team, TeamMatch, TeamScore};
pub use wire::{BadName, Control, NotAnAction, check_arbiter_input, check_name};
