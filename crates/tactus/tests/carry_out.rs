//! The opponent's move carried out wrongly, through the daemon against the
//! real Stockfish on the simulated board, as a blind player hears it (the
//! voice's text): another piece moved instead, and the right piece put on
//! a wrong square — each fix said with the pieces where the hands really
//! put them (issue 30, 2); the board asked about meanwhile, answered that
//! the move is still to be carried out (issue 30, 4); the player told the
//! side they play. In English and in German (the pieces in the accusative).
//! Needs Stockfish (`apt-get install stockfish`; ./setup installs it).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position, Role, Square};

mod common;
use common::moves::{Lcg, hands};
use common::{EventStream, Guard, line_with, lines, tempdir};

const STOCKFISH: &str = "/usr/games/stockfish";

/// How a language says what the test checks.
struct Said {
    lang: &'static str,
    you_play_black: &'static str,
    still_to_go: &'static str,
    /// `{piece}`'s accusative with its article, as a step names it.
    piece: fn(Role) -> &'static str,
    /// Put `{p}` from `{a}` back on `{b}`; then move `{m}` from `{c}` to `{d}`.
    back_then_move: fn(&str, Square, Square, &str, Square, Square) -> String,
    /// `{p}` (nominative with article, capitalised) belongs on `{b}`, not on `{a}`.
    belongs: fn(Role, Square, Square) -> String,
    other_move: &'static str,
}

const EN: Said = Said {
    lang: "en",
    you_play_black: "New game. You play Black.",
    still_to_go: "Your opponent's move is still to be carried out: ",
    piece: |r| match r {
        Role::Pawn => "the pawn",
        Role::Knight => "the knight",
        Role::Bishop => "the bishop",
        Role::Rook => "the rook",
        Role::Queen => "the queen",
        Role::King => "the king",
    },
    back_then_move: |p, a, b, m, c, d| format!("Put {p} from {a} back on {b}; then move {m} from {c} to {d}."),
    belongs: |r, a, b| {
        let p = (EN.piece)(r).trim_start_matches("the ");
        format!("The {p} belongs on {b}, not on {a}.")
    },
    other_move: "That is not the engine's move: ",
};

const DE: Said = Said {
    lang: "de",
    you_play_black: "Neue Partie. Sie spielen Schwarz.",
    still_to_go: "Der Zug Ihres Gegners ist noch auszuführen: ",
    piece: |r| match r {
        Role::Pawn => "den Bauern",
        Role::Knight => "den Springer",
        Role::Bishop => "den Läufer",
        Role::Rook => "den Turm",
        Role::Queen => "die Dame",
        Role::King => "den König",
    },
    back_then_move: |p, a, b, m, c, d| {
        let p = capitalised(p);
        format!("{p} von {a} zurück auf {b} stellen; dann {m} von {c} nach {d} ziehen.")
    },
    belongs: |r, a, b| {
        let p = match r {
            Role::Pawn => "Der Bauer",
            Role::Knight => "Der Springer",
            Role::Bishop => "Der Läufer",
            Role::Rook => "Der Turm",
            Role::Queen => "Die Dame",
            Role::King => "Der König",
        };
        format!("{p} gehört auf {b}, nicht auf {a}.")
    },
    other_move: "Das ist nicht der Zug der Engine: ",
};

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// A quiet move of another piece of the side to move than `mv`'s, that
/// leaves `mv`'s squares alone — onto `mv`'s target if one can go there.
fn another_move(pos: &Chess, mv: Move) -> Option<Move> {
    let quiet = |m: &Move| matches!(m, Move::Normal { capture: None, promotion: None, .. });
    let others: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| quiet(m) && m.from() != mv.from() && m.from() != Some(mv.to()))
        .collect();
    others
        .iter()
        .find(|m| m.to() == mv.to())
        .or_else(|| others.iter().find(|m| m.to() != mv.to() && Some(m.to()) != mv.from()))
        .copied()
}

/// The daemon on the simulated board against Stockfish playing White, its
/// voice's text in `lang` read line by line.
fn against_stockfish(lang: &str) -> (Guard, std::process::ChildStdin, EventStream, Receiver<String>) {
    assert!(Path::new(STOCKFISH).exists(), "{STOCKFISH} is missing: apt-get install stockfish (./setup installs it)");
    let state = tempdir(&format!("stockfish-{lang}"));
    let config = state.join("tactus.toml");
    std::fs::write(
        &config,
        format!("[game]\ntime_control = \"-\"\n\n[engine]\npath = \"{STOCKFISH}\"\nplays = \"white\"\nlevel = 10\nthink_ms = 50\n"),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("run")
        .arg("--config")
        .arg(&config)
        .arg("--state-dir")
        .arg(&state)
        .args(["--board", "sim", "--voice", "text", "--say", &format!("{lang}:natural"), "--events", "-"])
        .env("TACTUS_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let events = EventStream::of(&mut child);
    let said = lines(child.stderr.take().unwrap());
    let stdin = child.stdin.take().unwrap();
    (Guard(child), stdin, events, said)
}

/// Plays as Black until the engine's moves have been carried out wrongly
/// both ways, checking what is said each time.
fn carried_out_wrongly(words: &Said) {
    let (mut guard, mut stdin, events, said) = against_stockfish(words.lang);
    let within = Duration::from_secs(60);
    let mut type_line = |line: &str| {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    };
    events.next("start");
    assert!(line_with(&said, words.you_play_black, within).contains(words.you_play_black));
    let mut pos = Chess::default();
    let mut rng = Lcg(0x30);
    let (mut another, mut misplaced, mut asked) = (false, false, false);
    for _ in 0..40 {
        if another && misplaced {
            break;
        }
        let chosen = events.next("opponent_move");
        let mv = chosen["uci"].as_str().unwrap().parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        let (from, to) = (mv.from().unwrap(), mv.to());
        let mover = mv.role();
        let piece = |r: Role| (words.piece)(r);
        if !asked {
            type_line("request board");
            let line = line_with(&said, words.still_to_go, within);
            assert!(line.contains(&from.to_string()) && line.contains(&to.to_string()), "{line}");
            asked = true;
        }
        let simple = matches!(mv, Move::Normal { capture: None, promotion: None, .. });
        if simple
            && !another
            && let Some(other) = another_move(&pos, mv)
        {
            // Another piece moved instead: it goes back from where it
            // stands, then the engine's move.
            let (ofrom, oto) = (other.from().unwrap(), other.to());
            type_line(&format!("{ofrom}- {oto}+"));
            // Lifted, the piece is "not that one" first (the hands are slow).
            let fix = loop {
                let fix = events.next("opponent_fix");
                if fix["slip"]["problem"] == "other_move" {
                    break fix;
                }
                assert_eq!(fix["slip"]["problem"], "not_that_one", "{fix}");
            };
            let line = line_with(&said, words.other_move, within);
            let want = (words.back_then_move)(piece(other.role()), oto, ofrom, piece(mover), from, to);
            assert!(line.ends_with(&want), "said: {line}\nwant it to end: {want}");
            type_line(&followed(&fix));
            another = true;
        } else if simple && !misplaced {
            // The right piece on an empty square next to its target.
            let wrong = Square::ALL
                .into_iter()
                .filter(|&sq| sq != to && sq != from && pos.board().piece_at(sq).is_none())
                .min_by_key(|&sq| sq.distance(to))
                .unwrap();
            type_line(&format!("{from}- {wrong}+"));
            let fix = events.next("opponent_fix");
            assert_eq!(fix["slip"]["problem"], "misplaced", "{fix}");
            let want = (words.belongs)(mover, wrong, to);
            let line = line_with(&said, &want, within);
            assert_eq!(line.trim(), want);
            type_line(&followed(&fix));
            misplaced = true;
        } else {
            type_line(&common::moves::carried_out(&chosen));
        }
        let done = events.next("complete");
        assert_eq!(done["uci"], chosen["uci"], "the engine's move completes once the fix is followed");
        pos.play_unchecked(mv);
        if pos.is_game_over() {
            break;
        }
        // The player (Black): a legal move, queens for promotions.
        let moves: Vec<Move> =
            pos.legal_moves().into_iter().filter(|m| m.promotion().is_none_or(|r| r == Role::Queen)).collect();
        let ours = moves[rng.below(moves.len())];
        type_line(&hands(&pos, ours).join(" "));
        events.next("move");
        type_line("b");
        assert_eq!(events.next("complete")["side"], "black");
        pos.play_unchecked(ours);
        if pos.is_game_over() {
            break;
        }
    }
    assert!(another && misplaced, "both slips were made and told (another {another}, misplaced {misplaced})");
    drop(stdin);
    assert!(guard.0.wait().unwrap().success());
}

/// The typed line that follows a fix as told (`opponent_fix`): each piece
/// lifted from where it stands and put where it goes.
fn followed(fix: &serde_json::Value) -> String {
    let mut edges = Vec::new();
    for step in fix["fix"].as_array().unwrap() {
        edges.extend(step["from"].as_str().map(|sq| format!("{sq}-")));
        edges.extend(step["to"].as_str().map(|sq| format!("{sq}+")));
    }
    edges.join(" ")
}

#[test]
fn a_wrong_carry_out_against_stockfish_is_told_from_where_the_pieces_stand() {
    carried_out_wrongly(&EN);
}

#[test]
fn in_german_too() {
    carried_out_wrongly(&DE);
}
