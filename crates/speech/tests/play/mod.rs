//! A game played through the core by hand, as the speech tests hear it:
//! hands that lift and place, presses, inputs and the engine's choices, each
//! a fixed time after the last; and what the player of White hears of it.

#![allow(dead_code)] // each test binary uses its own part

use shakmaty::{Color, Square};
use tactus_core::{Event, Policy, Session};
use tactus_speech::{Announcer, SpeechPolicy, Words};
use tactus_trace::{Entry, Header, Input, Record, Request};

/// How fast the hands go: from one lift or place to the next, and how long
/// the board then holds still.
pub struct Pace {
    pub edge_ms: u64,
    pub still_ms: u64,
}

/// A game fed by hand, with every event the core made so far.
pub struct Play {
    pub session: Session,
    pub t: u64,
    pub events: Vec<Event>,
    pace: Pace,
}

impl Play {
    /// A game of `header`, its hands at `pace`.
    pub fn new(header: &Header, pace: Pace) -> Play {
        let mut session = Session::new(header, Policy::default().with_recorded(header)).unwrap();
        let events = session.drain().collect();
        Play { session, t: 0, events, pace }
    }

    pub fn feed(&mut self, dt: u64, record: Record) {
        self.t += dt;
        self.session.handle(Entry { t: self.t, record });
        self.events.extend(self.session.drain());
    }

    pub fn wait(&mut self, ms: u64) {
        self.t += ms;
        self.session.advance(self.t);
        self.events.extend(self.session.drain());
    }

    /// Lifts (`e2-`) and places (`e4+`), in order, then the board holds still.
    pub fn hands(&mut self, moves: &str) {
        for word in moves.split_whitespace() {
            let (sq, on) = word.split_at(2);
            let sq: Square = sq.parse().unwrap();
            self.feed(self.pace.edge_ms, Record::Edge { sq, on: on == "+", piece: None });
        }
        self.wait(self.pace.still_ms);
    }

    /// The player's move on the board, and the mover's press.
    pub fn play(&mut self, moves: &str) {
        self.hands(moves);
        let side = self.session.game().turn();
        self.feed(300, Record::Clock(side));
    }

    /// The engine's choice (`e7e5`) for the ply to play.
    pub fn engine(&mut self, uci: &str) {
        let ply = self.session.game().ply();
        self.feed(1000, Record::Input(Input::Opponent { ply, uci: uci.parse().unwrap(), eval: None }));
    }

    pub fn input(&mut self, input: Input) {
        self.feed(300, Record::Input(input));
    }

    pub fn ask(&mut self, request: Request) {
        self.input(Input::Request(request));
    }

    /// Where the events from now on begin.
    pub fn mark(&self) -> usize {
        self.events.len()
    }

    /// The events so far, a line each: for a case that went wrong.
    pub fn transcript(&self) -> String {
        let lines: Vec<String> = self.events.iter().map(|e| serde_json::to_string(e).unwrap()).collect();
        lines.join("\n")
    }
}

/// What the player of White hears in `words` of `events` from `from` on,
/// the announcer having heard all before (as the daemon is configured for
/// a blind player: touches not said).
pub fn heard(events: &[Event], from: usize, words: Words) -> String {
    let policy = SpeechPolicy { listener: Some(Color::White), ..SpeechPolicy::default() };
    let mut announcer = Announcer::new(words, policy);
    let mut said = Vec::new();
    for (i, ev) in events.iter().enumerate() {
        let u = announcer.hear(ev);
        if i >= from {
            said.extend(u.map(|u| u.text));
        }
    }
    said.join(" ")
}
