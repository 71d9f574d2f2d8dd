//! A whole trace through a session: what `tactus replay` does (the daemon's
//! recovery does the same, line by line, keeping the journal open).

use std::io::BufRead;

use tactus_trace::{Header, TraceError, TraceReader};

use crate::event::Event;
use crate::policy::Policy;
use crate::session::{Session, StartError};

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{0}")]
    Trace(#[from] TraceError),
    #[error("line 1: {0}")]
    Start(#[from] StartError),
}

pub struct Replay {
    pub header: Header,
    pub session: Session,
    pub events: Vec<Event>,
    /// Sensor edges read.
    pub edges: u64,
    /// A bad line stops the replay; everything before it is kept here.
    pub error: Option<TraceError>,
}

/// Replays a trace under `policy`, ruling as the recording board did where
/// the header records how (`Policy::with_recorded`). A malformed line stops
/// the replay there: the result so far is returned with the error, so
/// nothing recognised before it is lost.
pub fn replay<R: BufRead>(src: R, policy: Policy) -> Result<Replay, ReplayError> {
    replay_with(src, |header| policy.with_recorded(header))
}

/// Replays a trace under the policy `policy_for` chooses from its header.
pub fn replay_with<R: BufRead>(src: R, policy_for: impl FnOnce(&Header) -> Policy) -> Result<Replay, ReplayError> {
    let (header, reader) = TraceReader::new(src)?;
    let mut session = Session::new(&header, policy_for(&header))?;
    let mut events: Vec<Event> = session.drain().collect();
    let mut edges = 0;
    let mut error = None;
    for entry in reader {
        match entry {
            Ok(entry) => {
                edges += u64::from(matches!(entry.record, tactus_trace::Record::Edge { .. }));
                session.handle(entry);
                events.extend(session.drain());
            }
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    Ok(Replay { header, session, events, edges, error })
}
