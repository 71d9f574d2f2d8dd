//! A game fed by hand, as the take-back and draw-offer tests play it: hands
//! that carry a piece and let the board hold still, presses, inputs, and the
//! engine's choices, every step a fixed time after the last.

#![allow(dead_code)] // each test binary uses its own part

use shakmaty::{Color, Square};
use tactus_core::{EndReason, Event, EventKind, Policy, Session};
use tactus_trace::{Entry, Header, Input, Record};

pub struct Game {
    pub session: Session,
    pub t: u64,
    pub events: Vec<Event>,
}

pub fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

impl Game {
    /// From `header`, with the recorded policy changed by `tweak`.
    pub fn with(header: Header, tweak: impl FnOnce(Policy) -> Policy) -> Game {
        let policy = tweak(Policy::default().with_recorded(&header));
        let mut session = Session::new(&header, policy).unwrap();
        let events = session.drain().collect();
        Game { session, t: 0, events }
    }

    /// A 300+2 game; `engine` plays that side.
    pub fn new(engine: Option<Color>) -> Game {
        Game::with(Header { time_control: Some("300+2".into()), engine, ..Header::default() }, |p| p)
    }

    pub fn feed(&mut self, dt: u64, record: Record) {
        self.t += dt;
        self.session.handle(Entry { t: self.t, record });
        self.events.extend(self.session.drain());
    }

    /// A piece carried from one square to another, then the board still.
    pub fn carry(&mut self, from: &str, to: &str) {
        self.feed(150, Record::Edge { sq: sq(from), on: false, piece: None });
        self.feed(150, Record::Edge { sq: sq(to), on: true, piece: None });
        self.wait(1000);
    }

    /// Lets `ms` pass.
    pub fn wait(&mut self, ms: u64) {
        self.t += ms;
        self.session.advance(self.t);
        self.events.extend(self.session.drain());
    }

    pub fn press(&mut self, side: Color) {
        self.feed(300, Record::Clock(side));
    }

    pub fn input(&mut self, input: Input) {
        self.feed(100, Record::Input(input));
    }

    /// The engine's choice for the ply being made.
    pub fn choose(&mut self, uci: &str) {
        let ply = self.session.game().ply();
        self.feed(2000, Record::Input(Input::Opponent { ply, uci: uci.parse().unwrap(), eval: None }));
    }

    /// The moves played, in SAN.
    pub fn sans(&self) -> Vec<String> {
        self.session.game().played.iter().map(|p| p.info.san.clone()).collect()
    }

    /// The events from number `from` on that `f` picks.
    pub fn count(&self, from: usize, f: impl Fn(&EventKind) -> bool) -> usize {
        self.events[from..].iter().filter(|e| f(&e.kind)).count()
    }

    /// The result and why, once the game is over.
    pub fn over(&self) -> Option<(String, EndReason)> {
        self.events.iter().find_map(|e| match &e.kind {
            EventKind::GameOver { result, reason, .. } => Some((result.to_string(), *reason)),
            _ => None,
        })
    }
}

/// The record's remarks as their data: the core's tests check that each is
/// where it belongs; its words are tested in tactus-speech.
pub struct Data;

impl tactus_core::pgn::Commentary for Data {
    fn ruling(&self, r: &tactus_core::Irregularity) -> String {
        let reason = serde_json::to_value(r.reason).unwrap();
        let attempt =
            r.attempt.map(|a| format!(" {}{}-{}", a.piece.role.upper_char(), a.from, a.to)).unwrap_or_default();
        format!("{} {}{attempt}", tactus_core::serde_chess::color_str(r.side), reason.as_str().unwrap())
    }

    fn settled(&self, s: &tactus_core::pgn::Settled) -> String {
        match *s {
            tactus_core::pgn::Settled::Dead => "dead".to_string(),
            tactus_core::pgn::Settled::Lost { loser, opponent, .. } => {
                let outcome = match opponent {
                    tactus_trace::MateVerdict::CanMate => "win",
                    tactus_trace::MateVerdict::CannotMate => "draw",
                    tactus_trace::MateVerdict::Undetermined => "undetermined",
                };
                format!("loser {}, {outcome}", tactus_core::serde_chess::color_str(loser))
            }
        }
    }
}
