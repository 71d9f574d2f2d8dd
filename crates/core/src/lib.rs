//! The pure core of tactus: raw sensor edges, clock presses and inputs in;
//! the FIDE Laws' events out. No I/O, no async, no wall clock — every input
//! carries its time, timers are inputs — so a replay is exact and recovery
//! after a power cut is replaying the journal.

mod debounce;
pub mod event;
pub mod game;
pub mod guide;
pub mod pgn;
pub mod policy;
pub mod query;
mod recognise;
pub mod replay;
pub mod serde_chess;
mod session;

pub use event::{
    Article, Attempt, CastleSide, ChatLine, ClaimKind, Device, EndReason, EngineEval, Event, EventKind, FailedWhy, Fix,
    GameResult, Irregularity, Lost, MoveInfo, Ms, NotNow, NotPlayedReason, OnBoard, Online, OnlineAsk, Pair, Placed,
    Reason, RefusedWhy, Restarted, ServerEnd, Slip, ToControl, TokenState,
};
pub use policy::{MateSearch, Policy, Supervision};
pub use session::{MateQuestion, Session, StartError, search_mate};
