//! Real games — the 2007/08 Bundesliga round 1, the 2017 British
//! Championship, Chess960 engine games (`tests/corpus/`) — played out by
//! simulated hands under every handling profile, must replay to the game as
//! recorded and to exactly the rulings the hands' irregularities deserve.

use std::path::Path;

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Move, Position};
use tactus_core::{EventKind, Policy, Session};
use tactus_sim::{GameSpec, Profile, simulate};
use tactus_trace::Variant;

/// The games of a PGN file: start position, variant and moves. Comments,
/// variations, NAGs and move numbers are skipped.
fn games(file: &str) -> Vec<GameSpec> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(file);
    let text = std::fs::read_to_string(&path).expect("corpus file");
    let mut specs = Vec::new();
    let text = text.replace("\r\n", "\n");
    for chunk in text.split("\n[Event ").filter(|c| !c.trim().is_empty()) {
        let chunk = if chunk.starts_with("[Event ") { chunk.to_string() } else { format!("[Event {chunk}") };
        let tag = |name: &str| {
            chunk.lines().find_map(|l| l.strip_prefix(&format!("[{name} \""))?.strip_suffix("\"]").map(str::to_string))
        };
        let chess960 = tag("Variant").is_some_and(|v| v.to_lowercase().contains("960") || v.contains("fischer"));
        let (variant, mode) = if chess960 {
            (Variant::Chess960, CastlingMode::Chess960)
        } else {
            (Variant::Standard, CastlingMode::Standard)
        };
        let fen: Fen = match tag("FEN") {
            Some(f) => f.parse().expect("FEN tag"),
            None => Fen::default(),
        };
        let mut pos: Chess = fen.clone().into_position(mode).expect("legal start");
        let movetext: String = chunk.lines().filter(|l| !l.starts_with('[')).collect::<Vec<_>>().join(" ");
        let mut moves: Vec<Move> = Vec::new();
        let (mut depth_brace, mut depth_paren) = (0, 0);
        let mut cleaned = String::new();
        for c in movetext.chars() {
            match c {
                '{' => depth_brace += 1,
                '}' => depth_brace -= 1,
                '(' if depth_brace == 0 => depth_paren += 1,
                ')' if depth_brace == 0 => depth_paren -= 1,
                _ if depth_brace == 0 && depth_paren == 0 => cleaned.push(c),
                _ => {}
            }
        }
        for token in cleaned.split_whitespace() {
            if ["1-0", "0-1", "1/2-1/2", "*"].contains(&token) {
                continue;
            }
            let token = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            if token.is_empty() || token.starts_with('$') {
                continue;
            }
            let san: SanPlus = token.parse().unwrap_or_else(|_| panic!("{file}: bad SAN {token:?}"));
            let m = san.san.to_move(&pos).unwrap_or_else(|_| panic!("{file}: illegal {token:?}"));
            pos.play_unchecked(m);
            moves.push(m);
        }
        specs.push(GameSpec { variant, start: fen, moves, think_ms: Vec::new() });
    }
    specs
}

fn replay_matches(spec: &GameSpec, profile: Profile, seed: u64) -> Result<(), String> {
    let (entries, expect) = simulate(spec, profile, seed);
    let mut header = spec.header();
    header.time_control = Some("40/5400+30:1800+30".into());
    let mut session = Session::new(&header, Policy::default()).map_err(|e| e.to_string())?;
    let mut rulings = Vec::new();
    for entry in entries {
        session.handle(entry);
        for e in session.drain() {
            if let EventKind::Irregularity(i) = e.kind {
                rulings.push((i.article.as_str().to_string(), i.side.is_white(), i.ply));
            }
        }
    }
    let sans: Vec<String> = session.game().played.iter().map(|p| p.info.san.clone()).collect();
    if sans != expect.moves_san {
        let i = sans.iter().zip(&expect.moves_san).take_while(|(a, b)| a == b).count();
        return Err(format!("ply {}: want {:?} got {:?}", i + 1, expect.moves_san.get(i), sans.get(i)));
    }
    let mut wanted: Vec<_> =
        expect.irregularities.iter().map(|x| (x.article.to_string(), x.side.is_white(), x.ply)).collect();
    rulings.sort();
    wanted.sort();
    if rulings != wanted {
        return Err(format!("rulings: want {wanted:?} got {rulings:?}"));
    }
    let result = session.game().ending.map(|e| e.result.as_str().to_string());
    if result != expect.result {
        return Err(format!("result: want {:?} got {result:?}", expect.result));
    }
    Ok(())
}

fn check_all(file: &str, profiles: impl Fn(usize) -> Vec<Profile>) -> usize {
    let specs = games(file);
    let mut failures = Vec::new();
    let mut runs = 0;
    for (i, spec) in specs.iter().enumerate() {
        for profile in profiles(i) {
            runs += 1;
            if let Err(e) = replay_matches(spec, profile, i as u64) {
                failures.push(format!("{file} game {} ({profile}): {e}", i + 1));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {runs} failed:\n{}", failures.len(), failures.join("\n"));
    specs.len()
}

#[test]
fn bundesliga_games_under_every_handling() {
    assert_eq!(check_all("bundesliga-0708-r01.pgn", |_| Profile::ALL.to_vec()), 64);
}

#[test]
fn chess960_engine_games_under_every_handling() {
    assert_eq!(check_all("chess960-cutechess.pgn", |_| Profile::ALL.to_vec()), 4);
}

#[test]
fn british_championship_games_each_under_one_handling() {
    let n = check_all("gbr-ch-2017.pgn", |i| vec![Profile::ALL[i % Profile::ALL.len()]]);
    assert_eq!(n, 461);
}
