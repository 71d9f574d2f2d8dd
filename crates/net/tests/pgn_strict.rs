//! The PGN feed read strictly by python-chess and by pgn-extract: games
//! played on the simulated board through the core, of every kind the feed
//! writes (finished and in progress, Chess960, rulings, team tags).
//! Both readers must be installed: `pip install chess`, `apt-get install pgn-extract`.

mod common;

use std::process::Command;

use common::{Game, pgn_extract, played};
use tactus_core::{EndReason, EventKind};
use tactus_net::{Hall, Tags, Team, TeamMatch};
use tactus_sim::Profile;
use tactus_speech::{Lang, Scribe, Style, Words};
use tactus_trace::GameResult;

/// The record's words in every language in turn: rulings in Cyrillic and
/// with dashes are comments a strict reader must pass over all the same.
fn words(i: usize) -> Words {
    Words::new(Lang::ALL[i % Lang::ALL.len()], Style::Natural)
}

struct Expected {
    white: String,
    moves: Vec<String>,
    result: String,
    clocks: bool,
}

fn hall() -> (Hall, Vec<Expected>) {
    let team = TeamMatch {
        name: "Schools cup".into(),
        home: Team { name: "Oakfield".into(), boards: vec!["t1".into(), "t2".into()] },
        away: Team { name: "Riverside".into(), boards: Vec::new() },
        white_on_odd_boards_for: tactus_net::HomeAway::Home,
    };
    let mut hall = Hall::new("test").with_matches(vec![team]);
    let games: Vec<(&str, Game, usize)> = vec![
        ("a", played(1, 80, false, Profile::Realistic, Some("5400+30")), usize::MAX),
        ("b", played(2, 300, false, Profile::Clean, Some("40/5400+30:1800+30")), usize::MAX),
        ("c", played(3, 80, true, Profile::Hostile, Some("180+2")), usize::MAX),
        ("d", played(4, 80, false, Profile::Irregular, Some("5400+30")), usize::MAX),
        ("e", played(5, 60, true, Profile::Realistic, None), usize::MAX),
        ("t1", played(6, 50, false, Profile::Realistic, Some("900+10")), usize::MAX),
        // In progress: the game so far.
        ("t2", played(7, 60, false, Profile::Realistic, Some("900+10")), 150),
    ];
    let mut expected = Vec::new();
    for (i, (id, game, cut)) in games.into_iter().enumerate() {
        hall.set_tags(id, Tags::from(&game.header));
        let events = &game.events[..cut.min(game.events.len())];
        let mut scribe = Scribe::new(words(i));
        for ev in events {
            hall.apply(id, ev, scribe.write(ev).as_deref());
        }
        let feed = hall.feed(id).unwrap();
        let moves: Vec<String> = feed.moves.iter().map(|m| m.san.to_string()).collect();
        let completed: Vec<String> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Complete { san, .. } => Some(san.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(moves, completed, "board {id}: the feed has every completed move");
        // A flag can fall before the simulated players finish; otherwise
        // the game is the one they played.
        if cut == usize::MAX && feed.end_reason != Some(EndReason::FlagFall) {
            assert_eq!(moves, game.moves, "board {id}: the moves the arbiter records");
        }
        assert!(!moves.is_empty());
        expected.push(Expected {
            white: game.header.white.clone().unwrap(),
            moves,
            result: feed.result.map_or("*", GameResult::as_str).to_string(),
            clocks: game.header.time_control.is_some(),
        });
    }
    assert!(expected.iter().any(|e| e.result == "*"), "a game in progress");
    assert!(expected.iter().any(|e| e.result != "*"), "a finished game");
    (hall, expected)
}

const READ: &str = r#"
import json, sys
try:
    import chess.pgn
except ImportError:
    sys.exit("python-chess is not installed: pip install chess")
games = []
with open(sys.argv[1], encoding="utf-8") as f:
    while True:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        nodes = list(game.mainline())
        games.append({
            "white": game.headers.get("White"),
            "result": game.headers.get("Result"),
            "variant": game.headers.get("Variant"),
            "white_team": game.headers.get("WhiteTeam"),
            "board": game.headers.get("Board"),
            "moves": [n.san() for n in nodes],
            "clocks": [n.clock() for n in nodes],
            "errors": [repr(e) for e in game.errors],
        })
print(json.dumps(games))
"#;

#[test]
fn python_chess_reads_every_game_move_and_clock() {
    let (hall, expected) = hall();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.pgn");
    std::fs::write(&path, hall.games_pgn()).unwrap();
    let out = Command::new("python3")
        .arg("-c")
        .arg(READ)
        .arg(&path)
        .output()
        .expect("python3 is installed (with python-chess: pip install chess)");
    assert!(out.status.success(), "python-chess failed: {}", String::from_utf8_lossy(&out.stderr));
    let games: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(games.len(), expected.len(), "every game is read");
    for exp in &expected {
        let game = games.iter().find(|g| g["white"] == exp.white.as_str()).expect("the game is there");
        assert_eq!(game["errors"], serde_json::json!([]), "{}: python-chess found errors", exp.white);
        assert_eq!(game["moves"], serde_json::json!(exp.moves), "{}: the moves", exp.white);
        assert_eq!(game["result"], exp.result.as_str());
        let clocks = game["clocks"].as_array().unwrap();
        if exp.clocks {
            assert!(
                clocks.iter().all(|c| c.as_f64().is_some_and(|s| s >= 0.0)),
                "{}: a clock after each move",
                exp.white
            );
        } else {
            assert!(clocks.iter().all(serde_json::Value::is_null));
        }
    }
    let c960 = games.iter().filter(|g| g["variant"] == "Chess960").count();
    assert_eq!(c960, 2);
    let team = games.iter().find(|g| g["board"] == "2").expect("board 2 of the match");
    assert_eq!(team["white_team"], "Riverside");
}

#[test]
fn pgn_extract_reads_every_game_without_complaint() {
    let (hall, expected) = hall();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("games.pgn");
    let output = dir.path().join("out.pgn");
    let log = dir.path().join("log.txt");
    std::fs::write(&input, hall.games_pgn()).unwrap();
    let status = Command::new(pgn_extract())
        .arg("-s")
        .arg(format!("-l{}", log.display()))
        .arg(format!("-o{}", output.display()))
        .arg(&input)
        .status()
        .expect("pgn-extract runs");
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(status.success(), "pgn-extract failed: {log}");
    // Silent (-s), pgn-extract writes only what is wrong; a game it cannot
    // replay is left out of its output.
    assert_eq!(log.trim(), "", "pgn-extract reported errors");
    let out = std::fs::read_to_string(&output).unwrap();
    assert_eq!(out.matches("[Event ").count(), expected.len(), "every game is read and written back");
}

/// The record `tactus replay` writes for every fixture trace — the irregular
/// ones with a ruling or penalty comment at each ply where one was made —
/// and the moves a strict reader finds in it.
fn replayed_fixtures() -> (String, Vec<Vec<String>>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/traces");
    let mut traces: Vec<std::path::PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).into_iter().flatten())
        .map(|f| f.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".trace.jsonl"))
        .collect();
    traces.sort();
    assert!(traces.len() >= 40, "the fixtures are there");
    let mut text = String::new();
    let mut moves = Vec::new();
    for (i, trace) in traces.into_iter().enumerate() {
        let file = std::io::BufReader::new(std::fs::File::open(&trace).unwrap());
        let r = tactus_core::replay::replay(file, tactus_core::Policy::default()).unwrap();
        text.push_str(&tactus_core::pgn::write(&r.header, r.session.game(), &words(i)));
        moves.push(r.session.game().played.iter().map(|p| p.info.san.clone()).collect());
    }
    assert!(text.matches("7.5.1 ").count() >= 10, "rulings are in the record");
    (text, moves)
}

#[test]
fn the_replays_records_with_their_rulings_are_read_strictly() {
    let (text, moves) = replayed_fixtures();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("replays.pgn");
    std::fs::write(&path, &text).unwrap();
    let out = Command::new("python3")
        .arg("-c")
        .arg(READ)
        .arg(&path)
        .output()
        .expect("python3 is installed (with python-chess: pip install chess)");
    assert!(out.status.success(), "python-chess failed: {}", String::from_utf8_lossy(&out.stderr));
    let games: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(games.len(), moves.len(), "every game is read");
    for (game, moves) in games.iter().zip(&moves) {
        assert_eq!(game["errors"], serde_json::json!([]), "python-chess found errors");
        assert_eq!(&game["moves"], &serde_json::json!(moves));
    }
    let output = dir.path().join("out.pgn");
    let log = dir.path().join("log.txt");
    let status = Command::new(pgn_extract())
        .arg("-s")
        .arg(format!("-l{}", log.display()))
        .arg(format!("-o{}", output.display()))
        .arg(&path)
        .status()
        .expect("pgn-extract runs");
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(status.success() && log.trim().is_empty(), "pgn-extract: {log}");
    let out = std::fs::read_to_string(&output).unwrap();
    assert_eq!(out.matches("[Event ").count(), moves.len(), "every game is read and written back");
}
