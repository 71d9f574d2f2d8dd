//! A whole game against the real Stockfish through the daemon, typed on
//! the simulated board as a person would: lifts, places and presses for
//! their own moves; each of the engine's moves arrives as `opponent_move`
//! and is carried out step by step from what it says, completed without a
//! press. One of the engine's pieces is first put on a wrong square: the
//! daemon says how to fix the board, and the corrected move is taken. No
//! ruling is made against anyone, and the journal replays to the same game.
//! A hint is asked for, and the level set, at the board; two moves are
//! taken back by setting the board back.
//! Needs Stockfish (`apt-get install stockfish`; ./setup installs it).

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use serde_json::Value;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Role, Square};

mod common;
use common::moves::{Lcg, hands};
use common::{EventStream, tactus_run, tempdir};

const STOCKFISH: &str = "/usr/games/stockfish";

fn square(v: &Value) -> Option<Square> {
    v.as_str().map(|s| s.parse().unwrap())
}

#[test]
fn a_whole_game_against_stockfish_on_the_sim_board() {
    assert!(Path::new(STOCKFISH).exists(), "{STOCKFISH} is missing: apt-get install stockfish (./setup installs it)");
    let state = tempdir("game");
    let config = state.join("tactus.toml");
    std::fs::write(
        &config,
        format!("[game]\ntime_control = \"-\"\n\n[engine]\npath = \"{STOCKFISH}\"\nplays = \"black\"\nlevel = 10\nthink_ms = 50\n"),
    )
    .unwrap();
    let mut child = tactus_run(&config, &state).args(["--board", "sim"]).stdin(Stdio::piped()).spawn().unwrap();
    let events = EventStream::of(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    // One line per act: the sim board spaces a line's edges as hands do.
    let mut type_lines = |edges: &[String]| writeln!(stdin, "{}", edges.join(" ")).unwrap();
    events.next("start");
    let mut pos = Chess::default();
    // A hint for the person, and the level set at the board.
    type_lines(&["hint".to_string()]);
    let hint: UciMove = events.next("hint")["uci"].as_str().unwrap().parse().unwrap();
    assert!(hint.to_move(&pos).is_ok(), "the hint is a legal move for White: {hint}");
    type_lines(&["level 9".to_string()]);
    assert_eq!(events.next("engine_level")["level"], 9);
    let mut rng = Lcg(0x7ac7);
    let mut completed: Vec<String> = Vec::new();
    let mut corrected = false;
    let mut taken_back = false;
    let over = loop {
        assert!(completed.len() < 400, "no result after 400 plies: {completed:?}");
        // The person (White): a legal move, queens for promotions.
        let moves: Vec<Move> =
            pos.legal_moves().into_iter().filter(|m| m.promotion().is_none_or(|r| r == Role::Queen)).collect();
        let mv = moves[rng.below(moves.len())];
        let before = pos.clone();
        let uci = mv.to_uci(CastlingMode::Standard).to_string();
        type_lines(&hands(&pos, mv));
        assert_eq!(events.next("move")["uci"], uci.as_str(), "the board shows the person's move");
        type_lines(&["w".to_string()]);
        let done = events.next("complete");
        assert_eq!(done["uci"], uci.as_str());
        completed.push(done["san"].as_str().unwrap().to_string());
        pos.play_unchecked(mv);
        // The engine (Black), or the end.
        let chosen = events.next_of(&["opponent_move", "game_over"]);
        if chosen["event"] == "game_over" {
            break chosen;
        }
        assert_eq!(chosen["side"], "black");
        let uci: UciMove = chosen["uci"].as_str().unwrap().parse().unwrap();
        let engine_move = uci.to_move(&pos).expect("the engine's move is legal");
        let steps = chosen["steps"].as_array().unwrap().clone();
        assert!(!steps.is_empty());
        let (from, to) = (square(&steps[0]["from"]), square(&steps[0]["to"]));
        if let (false, Some(from), Some(to), Move::Normal { capture: None, promotion: None, .. }) =
            (corrected, from, to, engine_move)
        {
            // A slip of the hand: the piece goes on an empty square next to
            // where it belongs, then is put right.
            let wrong = Square::ALL
                .into_iter()
                .filter(|&sq| sq != to && pos.board().piece_at(sq).is_none())
                .min_by_key(|&sq| sq.distance(to))
                .unwrap();
            type_lines(&[format!("{from}-"), format!("{wrong}+")]);
            // Put right once the daemon has said what is wrong.
            let fix = events.next("opponent_fix");
            let steps_back = fix["fix"].as_array().unwrap();
            assert!(
                steps_back.iter().any(|f| square(&f["from"]) == Some(wrong) && square(&f["to"]) == Some(to)),
                "the fix moves the piece from {wrong} to {to}: {fix}"
            );
            type_lines(&[format!("{wrong}-"), format!("{to}+")]);
            corrected = true;
        } else {
            let mut lines = Vec::new();
            for step in &steps {
                lines.extend(square(&step["from"]).map(|sq| format!("{sq}-")));
                lines.extend(square(&step["to"]).map(|sq| format!("{sq}+")));
            }
            type_lines(&lines);
        }
        let done = events.next("complete");
        assert_eq!(done["uci"], chosen["uci"], "the engine's move is completed without a press");
        completed.push(done["san"].as_str().unwrap().to_string());
        pos.play_unchecked(engine_move);
        if pos.is_game_over() {
            break events.next("game_over");
        }
        let simple = |m: Move| matches!(m, Move::Normal { capture: None, promotion: None, .. });
        if !taken_back && completed.len() >= 6 && simple(mv) && simple(engine_move) {
            // Both moves set back by hand, the engine's piece first: the
            // position between, with the engine to move, takes nothing back.
            let back = |m: Move| [format!("{}-", m.to()), format!("{}+", m.from().unwrap())];
            type_lines(&back(engine_move));
            type_lines(&back(mv));
            let took = events.next("take_back");
            let last_two = completed.split_off(completed.len() - 2);
            assert_eq!(took["taken"], serde_json::json!(last_two), "{took}");
            assert_eq!(took["ply"], completed.len() + 1);
            pos = before;
            taken_back = true;
        }
    };
    assert!(taken_back, "two moves were taken back by setting the board back");
    assert!(corrected, "one of the engine's moves was first put on a wrong square");
    if pos.is_checkmate() {
        let winner = if pos.turn() == Color::White { "0-1" } else { "1-0" };
        assert_eq!(over["result"], winner, "{over}");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    for e in events.seen.borrow().iter() {
        assert!(
            !["irregularity", "penalty", "displaced"].contains(&e["event"].as_str().unwrap()),
            "a ruling against a player: {e}"
        );
    }
    // The journal replays to the same game, the engine's moves included.
    let trace = std::fs::read_dir(state.join("games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".trace.jsonl"))
        .unwrap();
    let r = tactus_core::replay::replay(
        std::io::BufReader::new(std::fs::File::open(&trace).unwrap()),
        tactus_core::Policy::default(),
    )
    .unwrap();
    let replayed: Vec<String> = r.session.game().played.iter().map(|p| p.info.san.clone()).collect();
    assert_eq!(replayed, completed);
}
