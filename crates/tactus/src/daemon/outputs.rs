//! Where the game's events go: JSON Lines, the voice, the page and the
//! hall, and chess software following as on a DGT board.

use std::time::Instant;

use tactus_core::Event;

use super::broadcast::Broadcast;
use super::dgt::DgtEmulation;
use super::event_log::EventLog;
use super::voice::VoiceThread;

/// Where events go: JSON Lines, the voice, the page and the hall.
#[derive(Default)]
pub struct Outputs {
    pub events: Option<EventLog>,
    pub voice: Option<VoiceThread>,
    pub broadcast: Option<Broadcast>,
    /// Chess software following the game as on a DGT board.
    pub dgt: Option<DgtEmulation>,
}

impl Outputs {
    /// A recovered game's past: the page and the hall get it again; what
    /// was said and written before the power went is not repeated.
    pub fn restore(&mut self, events: &[Event]) {
        if let Some(b) = &mut self.broadcast {
            events.iter().for_each(|e| b.event(e));
        }
    }

    pub async fn publish(&mut self, events: &[Event]) {
        for event in events {
            if let Some(b) = &mut self.broadcast {
                b.event(event);
            }
            if let Some(log) = &mut self.events {
                log.write(event);
            }
            if let Some(voice) = &self.voice {
                voice.hear(event);
            }
        }
    }

    /// Lets the voice finish, writes the events waiting, flushes the broker,
    /// stops serving and closes the DGT line — all at once, until
    /// `deadline` at most.
    pub async fn stop(self, deadline: Instant) {
        let Outputs { events, voice, broadcast, dgt } = self;
        tokio::join!(
            async {
                if let Some(dgt) = dgt {
                    dgt.stop(deadline).await;
                }
            },
            async {
                if let Some(voice) = voice {
                    voice.stop(deadline).await;
                }
            },
            async {
                if let Some(events) = events {
                    events.stop(deadline).await;
                }
            },
            async {
                if let Some(b) = broadcast {
                    b.stop(deadline).await;
                }
            },
        );
    }
}
