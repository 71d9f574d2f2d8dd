//! The cases of the native review (`tests/review.rs`): games played through
//! the core against an engine that plays Black (or White, where the case
//! needs it), heard by the player of White; each case is the events one
//! moment of a game brings.

#![allow(dead_code)] // each test binary uses its own part

use std::collections::BTreeMap;

use shakmaty::{Color, File, Rank, Role, Square};
use tactus_core::{Event, EventKind};
use tactus_speech::{Lang, Readout, Style, Words};
use tactus_trace::{Claim, Header, Input, Record, Request, Variant};

use crate::play::{self, Pace, Play};

/// One moment of a game: the game's events, and where the moment's begin.
pub struct Case {
    pub name: &'static str,
    pub events: Vec<Event>,
    pub from: usize,
    pub readout: Readout,
}

/// What the listener hears for a case, in a language and a style.
pub fn heard(case: &Case, lang: Lang, style: Style) -> String {
    play::heard(&case.events, case.from, Words::new(lang, style).with_readout(case.readout))
}

pub const HEADING: &str = "\
# What a blind player who plays White against the engine hears: one case a
# block, its grammar note, then the text in each style. Written by
# `UPDATE_REVIEW=1 cargo test -p tactus-speech --test review`, which keeps
# the notes; a native reader checks the texts and writes the notes.

";

/// A reviewed case: the note on its grammar and its text in each style.
pub struct Reviewed {
    pub note: String,
    pub texts: BTreeMap<String, String>,
}

impl Reviewed {
    pub fn render(name: &str, note: &str, texts: &[(String, String)]) -> String {
        let mut out = format!("## {name}\nnote: {note}\n");
        for (style, text) in texts {
            out.push_str(&format!("{style}\t{text}\n"));
        }
        out
    }
}

/// Reads a review file.
pub fn parse(text: &str) -> Result<BTreeMap<String, Reviewed>, String> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, Reviewed)> = None;
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        if line.starts_with("# ") || line == "#" || line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix("## ") {
            if let Some((name, r)) = current.take() {
                out.insert(name, r);
            }
            current = Some((name.to_owned(), Reviewed { note: String::new(), texts: BTreeMap::new() }));
            continue;
        }
        let Some((_, r)) = current.as_mut() else { return Err(format!("line {n}: no case above it")) };
        if let Some(note) = line.strip_prefix("note: ") {
            r.note = note.to_owned();
        } else if let Some((style, said)) = line.split_once('\t') {
            r.texts.insert(style.to_owned(), said.to_owned());
        } else {
            return Err(format!("line {n}: neither a note nor STYLE<TAB>TEXT"));
        }
    }
    if let Some((name, r)) = current {
        out.insert(name, r);
    }
    Ok(out)
}

/// A game with a classical time control, its hands brisk.
fn game(fen: Option<&str>, engine: Option<Color>, variant: Variant) -> Play {
    let header = Header {
        variant,
        start_fen: fen.map(str::to_owned),
        time_control: Some("40/5400+30:1800+30".into()),
        engine,
        ..Header::default()
    };
    Play::new(&header, Pace { edge_ms: 200, still_ms: 1000 })
}

/// A standard game against the engine playing `engine`.
fn against(fen: Option<&str>, engine: Color) -> Play {
    game(fen, Some(engine), Variant::Standard)
}

/// The moment of `g` from event `from` on, read by side.
fn case(g: &Play, name: &'static str, from: usize) -> Case {
    case_read(g, name, from, Readout::BySide)
}

fn case_read(g: &Play, name: &'static str, from: usize, readout: Readout) -> Case {
    assert!(from < g.events.len(), "{name}: nothing happened; the game so far:\n{}", g.transcript());
    Case { name, events: g.events.clone(), from, readout }
}

/// Every case, in the order of the file.
pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    against_the_engine(&mut out);
    carrying_out(&mut out);
    engine_moves(&mut out);
    rulings(&mut out);
    out
}

/// A game against the engine playing Black: its moves, the slips in
/// carrying them out, and the questions.
fn against_the_engine(out: &mut Vec<Case>) {
    let mut g = against(None, Color::Black);
    let m = g.mark();
    g.ask(Request::LastMove);
    out.push(case(&g, "last move, none yet", m));
    // What the daemon says of a typed command it did not understand.
    let m = g.mark();
    g.events.push(Event { t: g.t, kind: EventKind::NotUnderstood { typed: "z9".into() } });
    out.push(case(&g, "typed command not understood", m));
    let m = g.mark();
    g.ask(Request::Hint);
    g.input(Input::Request(Request::Hint));
    g.input(Input::Hint { ply: 1, uci: "e2e4".parse().unwrap() });
    out.push(case(&g, "hint", m));
    g.play("e2- e4+");
    let m = g.mark();
    g.ask(Request::Hint);
    out.push(case(&g, "hint, the engine thinking", m));
    let m = g.mark();
    g.engine("d7d5");
    out.push(case(&g, "engine: a pawn move", m));
    let m = g.mark();
    g.ask(Request::Hint);
    out.push(case(&g, "hint, the engine's move to carry out", m));
    g.hands("d7- d5+");
    g.play("d5- e4- d5+");
    let m = g.mark();
    g.engine("d8d5");
    out.push(case(&g, "engine: a capture", m));
    g.hands("d5- d8- d5+");
    for (name, request, readout) in [
        ("time", Request::Time, Readout::BySide),
        ("board, by side", Request::Position, Readout::BySide),
        ("board, by rank", Request::Position, Readout::ByRank),
        ("last move", Request::LastMove, Readout::BySide),
        ("square", Request::Square(Square::D5), Readout::BySide),
        ("square, empty", Request::Square(Square::E4), Readout::BySide),
        ("pieces of a kind", Request::Pieces { side: Color::White, role: Some(Role::Knight) }, Readout::BySide),
        ("pieces of a kind, one", Request::Pieces { side: Color::Black, role: Some(Role::Queen) }, Readout::BySide),
        ("pieces of a side", Request::Pieces { side: Color::Black, role: None }, Readout::BySide),
        ("rank", Request::Rank(Rank::Second), Readout::BySide),
        ("file", Request::File(File::D), Readout::BySide),
        ("moves to the time control", Request::MovesToControl, Readout::BySide),
    ] {
        let m = g.mark();
        g.ask(request);
        out.push(case_read(&g, name, m, readout));
    }
    // The player's move on the board, not yet pressed: the square as the
    // board shows it.
    g.hands("b1- c3+");
    let m = g.mark();
    g.ask(Request::Square(Square::C3));
    out.push(case(&g, "square, the board differs", m));
    let m = g.mark();
    g.ask(Request::Pieces { side: Color::White, role: Some(Role::Knight) });
    out.push(case(&g, "pieces of a kind, the board differs", m));
    g.feed(300, Record::Clock(Color::White));
    g.engine("d5a5");
    let m = g.mark();
    g.hands("b8-");
    out.push(case(&g, "fix: not that one", m));
    g.hands("b8+");
    let m = g.mark();
    g.hands("d5- d6+");
    out.push(case(&g, "fix: misplaced", m));
    g.hands("d6- a5+");
    g.play("d2- d4+");
    g.engine("b8c6");
    g.hands("g8-");
    let m = g.mark();
    g.hands("f6+");
    out.push(case(&g, "fix: another move", m));
    g.hands("f6- g8+ b8- c6+");
    g.play("g1- f3+");
    g.engine("c8g4");
    let m = g.mark();
    g.hands("d1-");
    g.wait(5000);
    out.push(case(&g, "fix: an own piece in the hand", m));
    g.hands("d1+");
    let m = g.mark();
    g.hands("g4+");
    out.push(case(&g, "fix: a piece put on from outside", m));
    g.hands("g4- c8- g4+");
    g.play("f1- e2+");
    g.engine("e7e6");
    g.hands("e7- e6+");
    g.play("e1- g1+ h1- f1+");
    g.engine("e8c8");
    let m = g.mark();
    g.hands("a8- d8+");
    out.push(case(&g, "fix: castling begun with the rook", m));
    let m = g.mark();
    g.ask(Request::LastMove);
    out.push(case(&g, "the engine's move asked for mid-move", m));
    g.hands("e8- c8+");
    // Setting the board back takes the moves back.
    g.play("a2- a3+");
    g.engine("f8e7");
    let m = g.mark();
    g.hands("a3- a2+");
    out.push(case(&g, "take-back of one move", m));
    let m = g.mark();
    g.input(Input::DrawOffer { side: Color::White });
    out.push(case(&g, "draw offered before moving", m));
    g.hands("a2- a3+");
    let m = g.mark();
    g.input(Input::DrawOffer { side: Color::White });
    out.push(case(&g, "draw offered after the move", m));
    g.feed(300, Record::Clock(Color::White));
    let m = g.mark();
    g.engine("f8e7");
    g.hands("f8- e7+");
    out.push(case(&g, "draw declined by the engine's move", m));
    let m = g.mark();
    g.input(Input::Promote(Role::Knight));
    out.push(case(&g, "promotion piece chosen", m));
    let m = g.mark();
    g.input(Input::EngineLevel(4));
    out.push(case(&g, "engine level", m));
    let m = g.mark();
    g.input(Input::Claim { side: Color::White, claim: Claim::Illegal });
    out.push(case(&g, "claim with nothing to claim", m));
    let m = g.mark();
    g.hands("a3- a2+");
    g.hands("e7- f8+");
    out.push(case(&g, "take-back of two moves", m));
}

/// The engine's move carried out wrongly, every kind of slip, each told
/// from where the pieces really stand (issue 30, 2); and the questions
/// asked meanwhile (issue 30, 4).
fn carrying_out(out: &mut Vec<Case>) {
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let mut g = against(Some(after_e4), Color::Black);
    g.engine("b8c6");
    let m = g.mark();
    g.ask(Request::Position);
    out.push(case(&g, "board, the engine's move still to carry out", m));
    let m = g.mark();
    g.ask(Request::Square(Square::C6));
    out.push(case(&g, "square, the engine's move still to carry out", m));
    let m = g.mark();
    g.hands("c7- c6+");
    out.push(case(&g, "fix: another piece onto the target", m));

    let mut g = against(Some(after_e4), Color::Black);
    g.engine("b8c6");
    let m = g.mark();
    g.hands("b8- a5+");
    out.push(case(&g, "fix: the knight to a square it cannot reach", m));

    let scenes: [(&'static str, &str, &str, &str); 5] = [
        (
            "fix: a capture's victim set down on the board",
            "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",
            "d5e4",
            "e4- c4+",
        ),
        (
            "fix: en passant's victim left on the board",
            "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPP2PPP/RNBQKBNR b KQkq e3 0 3",
            "d4e3",
            "d4- e3+",
        ),
        (
            "fix: castling begun with the wrong rook",
            "r3k2r/pppqbppp/2np1n2/4p3/4P3/2NP1N2/PPPQBPPP/R3K2R b KQkq - 0 8",
            "e8g8",
            "a8- d8+",
        ),
        ("fix: the promoting pawn to a wrong square", "8/6k1/8/8/8/8/4p1K1/8 b - - 0 1", "e2e1q", "e2- d1+"),
        ("fix: the new piece on, the pawn left", "8/6k1/8/8/8/8/4p1K1/8 b - - 0 1", "e2e1q", "e1+"),
    ];
    for (name, fen, uci, hands) in scenes {
        let mut g = against(Some(fen), Color::Black);
        g.engine(uci);
        let m = g.mark();
        g.hands(hands);
        g.wait(5000);
        out.push(case(&g, name, m));
    }
}

/// The engine's moves of every kind, each from a position of its own.
fn engine_moves(out: &mut Vec<Case>) {
    let cases: [(&'static str, &str, Color, &str); 9] = [
        (
            "engine: short castling",
            "r3k2r/pppqbppp/2np1n2/4p3/4P3/2NP1N2/PPPQBPPP/R3K2R b KQkq - 0 8",
            Color::Black,
            "e8g8",
        ),
        ("engine: long castling, check", "r3k3/8/8/8/8/8/8/3K4 b q - 0 1", Color::Black, "e8c8"),
        ("engine: en passant", "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPP2PPP/RNBQKBNR b KQkq e3 0 3", Color::Black, "d4e3"),
        ("engine: promotion, check", "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1", Color::White, "e7e8n"),
        ("engine: promotion with a capture", "3r2k1/4P3/8/8/8/8/6K1/8 w - - 0 1", Color::White, "e7d8q"),
        ("engine: a quiet move, check", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", Color::White, "a1a8"),
        ("engine: checkmate", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", Color::White, "d1d8"),
        (
            "engine: a capture, check",
            "rnbqk1nr/pppp1ppp/8/4p3/1b2P3/2N5/PPP2PPP/R1BQKBNR b KQkq - 0 3",
            Color::Black,
            "b4c3",
        ),
        ("engine: a knight", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", Color::Black, "g8f6"),
    ];
    for (name, fen, engine, uci) in cases {
        let mut g = against(Some(fen), engine);
        let m = g.mark();
        g.engine(uci);
        out.push(case(&g, name, m));
    }
    let mut g = game(Some("1rk5/8/8/8/8/8/8/1RK5 w Bb - 0 1"), Some(Color::White), Variant::Chess960);
    let m = g.mark();
    g.engine("c1b1");
    out.push(case(&g, "engine: castling in Chess960", m));
}

/// Two players: the rulings a blind player hears, and the game's end.
fn rulings(out: &mut Vec<Case>) {
    let mut g = game(None, None, Variant::Standard);
    out.push(case(&g, "a new game", 0));
    g.feed(300, Record::Clock(Color::Black));
    g.play("e2- e4+");
    let m = g.mark();
    g.play("d8- d4+");
    out.push(case(&g, "illegal move: a piece that cannot go there", m));
    g.hands("d4- d8+");
    g.play("e7- e5+");
    let m = g.mark();
    g.ask(Request::Hint);
    out.push(case(&g, "hint, no engine", m));
    g.play("g1- f3+");
    let m = g.mark();
    g.feed(300, Record::Clock(Color::Black));
    out.push(case(&g, "press without a move, a second illegal act", m));
    let m = g.mark();
    g.ask(Request::LastMove);
    out.push(case(&g, "last move, after the end", m));
    let m = g.mark();
    g.input(Input::DrawOffer { side: Color::White });
    out.push(case(&g, "a button after the end", m));
    // What the daemon says of a draw or resign button where it hosts no
    // opponent.
    let m = g.mark();
    g.events.push(Event { t: g.t, kind: EventKind::NotNow { why: tactus_core::NotNow::NoOpponent } });
    out.push(case(&g, "draw button, no opponent hosted", m));

    let mut g = game(None, None, Variant::Standard);
    g.feed(300, Record::Clock(Color::Black));
    g.play("f2- f3+");
    g.play("e7- e5+");
    g.play("g2- g4+");
    let m = g.mark();
    g.play("d8- h4+");
    out.push(case(&g, "checkmate", m));

    let mut g = game(Some("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"), None, Variant::Standard);
    out.push(case(&g, "a new game from a set-up position", 0));
    let m = g.mark();
    g.input(Input::Promote(Role::Rook));
    out.push(case(&g, "promotion piece chosen, rook", m));
    let m = g.mark();
    g.ask(Request::Pieces { side: Color::White, role: Some(Role::Knight) });
    out.push(case(&g, "pieces of a kind, none", m));
    let m = g.mark();
    g.ask(Request::Rank(Rank::Fifth));
    out.push(case(&g, "rank, empty", m));
}
