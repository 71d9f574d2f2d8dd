//! `tactus bench --speech`: what a blind player hears, measured in words
//! and in seconds of espeak-ng at the configured rate — the engine's
//! capture, castling and promotion as announced, the fixes for a castling
//! begun with the rook and for another piece carried onto the engine's
//! target, and the answers to questions (the board and a square among them
//! while the engine's move is still to go) — in every language.
//! The events come from the core itself, playing scripted games against an
//! engine that plays Black for a listener who plays White, so the figures
//! are what the daemon says.

use std::io::Write;

use shakmaty::{Color, Square};
use tactus_core::{Event, EventKind, Policy, Session};
use tactus_speech::{Announcer, Choice, Lang, Readout, SpeechPolicy, Style, Voice, VoiceSettings, Words};
use tactus_trace::{Entry, Header, Input, Record, Request};

/// A game driven by hand: the player's moves pressed, the engine's carried
/// out, with the board let to hold still after each.
struct Script {
    session: Session,
    t: u64,
    events: Vec<Event>,
}

impl Script {
    fn new(fen: Option<&str>) -> anyhow::Result<Script> {
        let header = Header {
            start_fen: fen.map(str::to_owned),
            time_control: Some("900+10".into()),
            engine: Some(Color::Black),
            ..Header::default()
        };
        let mut session = Session::new(&header, Policy::default().with_recorded(&header))?;
        let events = session.drain().collect();
        Ok(Script { session, t: 0, events })
    }

    fn feed(&mut self, dt: u64, record: Record) {
        self.t += dt;
        self.session.handle(Entry { t: self.t, record });
        self.events.extend(self.session.drain());
    }

    fn edge(&mut self, sq: &str, on: bool) -> anyhow::Result<()> {
        let sq: Square = sq.parse()?;
        self.feed(300, Record::Edge { sq, on, piece: None });
        Ok(())
    }

    /// Lifts and places, in order (`-` lift, `+` place), then holds still.
    fn hands(&mut self, moves: &str) -> anyhow::Result<()> {
        for word in moves.split_whitespace() {
            let (sq, on) = word.split_at(2);
            self.edge(sq, on == "+")?;
        }
        self.t += 1000;
        self.session.advance(self.t);
        self.events.extend(self.session.drain());
        Ok(())
    }

    fn press(&mut self) {
        self.feed(300, Record::Clock(Color::White));
    }

    fn engine(&mut self, uci: &str) -> anyhow::Result<()> {
        let ply = self.session.game().ply();
        self.feed(1000, Record::Input(Input::Opponent { ply, uci: uci.parse()?, eval: None }));
        Ok(())
    }

    fn ask(&mut self, request: Request) {
        self.feed(500, Record::Input(Input::Request(request)));
    }

    /// The events since `mark`, each with what it is measured as.
    fn since(&self, mark: usize) -> &[Event] {
        &self.events[mark..]
    }
}

/// One thing measured: its name and the events said for it.
struct Item {
    name: &'static str,
    events: Vec<Event>,
    readout: Readout,
}

fn opponent_move(events: &[Event]) -> Vec<Event> {
    events.iter().filter(|e| matches!(e.kind, EventKind::OpponentMove { .. })).cloned().collect()
}

/// Everything but the moves themselves, which the player's hands made.
fn said_to_the_hands(events: &[Event]) -> Vec<Event> {
    events.iter().filter(|e| !matches!(e.kind, EventKind::Move { .. } | EventKind::Complete { .. })).cloned().collect()
}

/// The scripted games and what they measure.
fn items() -> anyhow::Result<Vec<Item>> {
    let mut items = Vec::new();
    let item = |name, events, readout| Item { name, events, readout };

    // 1.e4 d5 2.exd5 Qxd5: the engine's capture, then questions.
    let mut g = Script::new(None)?;
    g.hands("e2- e4+")?;
    g.press();
    g.engine("d7d5")?;
    g.hands("d7- d5+")?;
    g.hands("d5- e4- d5+")?;
    g.press();
    let mark = g.events.len();
    g.engine("d8d5")?;
    items.push(item("capture", opponent_move(g.since(mark)), Readout::BySide));
    g.hands("d5- d8- d5+")?;
    for (name, request, readout) in [
        ("board", Request::Position, Readout::BySide),
        ("board by rank", Request::Position, Readout::ByRank),
        ("last move", Request::LastMove, Readout::BySide),
        ("square d5", Request::Square(Square::D5), Readout::BySide),
        ("time", Request::Time, Readout::BySide),
    ] {
        let mark = g.events.len();
        g.ask(request);
        items.push(item(name, g.since(mark).to_vec(), readout));
    }

    // The engine castles; the player moves the rook first.
    let mut g = Script::new(Some("r3k2r/pppq1ppp/2n2n2/4p3/4P3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1"))?;
    g.hands("a2- a3+")?;
    g.press();
    let mark = g.events.len();
    g.engine("e8g8")?;
    items.push(item("castling", opponent_move(g.since(mark)), Readout::BySide));
    let mark = g.events.len();
    g.hands("h8- f8+")?;
    items.push(item("fix", said_to_the_hands(g.since(mark)), Readout::BySide));

    // The engine's knight to c6; the player carries the c7 pawn there
    // instead, and asks about the board and the square meanwhile.
    let mut g = Script::new(None)?;
    g.hands("e2- e4+")?;
    g.press();
    g.engine("b8c6")?;
    let mark = g.events.len();
    g.hands("c7- c6+")?;
    items.push(item("wrong piece", said_to_the_hands(g.since(mark)), Readout::BySide));
    for (name, request) in [("board, pending", Request::Position), ("square, pending", Request::Square(Square::C6))] {
        let mark = g.events.len();
        g.ask(request);
        items.push(item(name, g.since(mark).to_vec(), Readout::BySide));
    }

    // The engine promotes.
    let mut g = Script::new(Some("4k3/8/8/8/8/8/p5K1/8 w - - 0 1"))?;
    g.hands("g2- f2+")?;
    g.press();
    let mark = g.events.len();
    g.engine("a2a1q")?;
    items.push(item("promotion", opponent_move(g.since(mark)), Readout::BySide));
    Ok(items)
}

/// Words of a text: runs with a letter or a digit in them.
fn words(text: &str) -> usize {
    text.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric)).count()
}

/// Prints, per language, each item's words and seconds, and its text.
pub fn run(out: &mut impl Write, style: Style, settings: &VoiceSettings) -> anyhow::Result<()> {
    let items = items()?;
    writeln!(out, "speech ({style}, {} words a minute; listener White, engine Black): words, seconds", settings.speed)?;
    for lang in Lang::ALL {
        let mut voice = Voice::espeak(lang, settings.clone());
        for item in &items {
            let words_of = Words::new(lang, style).with_readout(item.readout);
            let policy = SpeechPolicy { listener: Some(Color::White), ..SpeechPolicy::everything() };
            let mut announcer = Announcer::new(words_of, policy);
            let said: Vec<String> = item.events.iter().filter_map(|e| announcer.hear(e)).map(|u| u.text).collect();
            anyhow::ensure!(!said.is_empty(), "{lang}: nothing is said for the {}", item.name);
            let text = said.join(" ");
            let seconds: f64 =
                said.iter().map(|s| voice.render(s).map(|a| a.duration().as_secs_f64())).sum::<Result<f64, _>>()?;
            writeln!(
                out,
                "{}\t{:<15}\t{:>3}\t{:>5.1}\t{text}",
                Choice { lang, style },
                item.name,
                words(&text),
                seconds
            )?;
        }
    }
    Ok(())
}
