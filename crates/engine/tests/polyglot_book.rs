//! The Polyglot book reader against Polyglot itself: the reference keys
//! published with the format, and a book made by Debian's `polyglot
//! make-book` from the British Championship 2017 games of the corpus.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use rand::SeedableRng;
use rand::rngs::SmallRng;
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Color, Position};
use tactus_engine::book::{Book, polyglot_key};

const POLYGLOT: &str = "/usr/games/polyglot";
const MAX_PLY: usize = 12;

/// The test data of "Polyglot book format" (Michel Van den Bergh), as
/// shipped in Debian's polyglot package (`/usr/share/doc/polyglot/
/// book_format.html`): FENs as published there, en passant squares
/// included even where no capture is possible (the key ignores those).
const REFERENCE_KEYS: [(&str, u64); 9] = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0x463b96181691fc9c),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", 0x823c9b50fd114196),
    ("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2", 0x0756b94461c50fb0),
    ("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2", 0x662fafb965db29d4),
    ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 0x22a48b5a8e47ff78),
    ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 0 3", 0x652a607ca3f242c1),
    ("rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 0 4", 0x00fdd303c946bdd9),
    ("rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3", 0x3c8123ea7b067637),
    ("rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4", 0x5c3f9b829b279560),
];

#[test]
fn keys_match_polyglots_reference_keys() {
    for (fen, key) in REFERENCE_KEYS {
        let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        assert_eq!(polyglot_key(&pos), key, "{fen}");
    }
}

/// Games of a PGN file: the moves in SAN and White's score (2 win, 1 draw,
/// 0 loss), for decided games.
fn games(pgn: &str) -> Vec<(Vec<String>, u32)> {
    let mut out = Vec::new();
    for game in pgn.split("[Event ").skip(1) {
        let result = game.lines().find_map(|l| l.strip_prefix("[Result \"")).map(|r| r.trim_end_matches("\"]"));
        let white = match result {
            Some("1-0") => 2,
            Some("1/2-1/2") => 1,
            Some("0-1") => 0,
            _ => continue,
        };
        let text: String =
            game.lines().filter(|l| !l.starts_with('[') && !l.ends_with(']')).collect::<Vec<_>>().join(" ");
        let mut depth = 0;
        let text: String = text
            .chars()
            .map(|c| {
                match c {
                    '{' | '(' => depth += 1,
                    '}' | ')' => {
                        depth -= 1;
                        return ' ';
                    }
                    _ => {}
                }
                if depth > 0 { ' ' } else { c }
            })
            .collect();
        let moves = text
            .split_whitespace()
            .map(|t| t.rsplit('.').next().unwrap_or(t))
            .filter(|t| !t.is_empty() && !["1-0", "0-1", "1/2-1/2", "*"].contains(t) && !t.starts_with('$'))
            .map(str::to_owned)
            .collect();
        out.push((moves, white));
    }
    out
}

#[test]
fn reads_a_book_made_by_polyglot_as_polyglot_wrote_it() {
    assert!(
        Path::new(POLYGLOT).exists(),
        "{POLYGLOT} is missing: this test needs Debian's polyglot package (apt-get install polyglot; ./setup installs it)"
    );
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/gbr-ch-2017.pgn");
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("gbr.bin");
    let status = Command::new(POLYGLOT)
        .args(["make-book", "-pgn"])
        .arg(&corpus)
        .arg("-bin")
        .arg(&bin)
        .args(["-max-ply", &MAX_PLY.to_string(), "-min-game", "1"])
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let book = Book::open(&bin).unwrap();
    assert!(book.len() > 1000);

    // What the book must hold by the format's description: for every
    // position in the games' first plies and every move played there,
    // 2 for each win and 1 for each draw of the side that moved.
    let pgn = std::fs::read_to_string(&corpus).unwrap();
    let mut expected: HashMap<u64, (Chess, HashMap<String, u32>)> = HashMap::new();
    let mut castles = 0;
    for (moves, white) in games(&pgn) {
        let mut pos = Chess::default();
        for san in moves.iter().take(MAX_PLY) {
            let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
            let score = if pos.turn() == Color::White { white } else { 2 - white };
            let entry = expected.entry(polyglot_key(&pos)).or_insert_with(|| (pos.clone(), HashMap::new()));
            *entry.1.entry(m.to_uci(CastlingMode::Standard).to_string()).or_default() += score;
            castles += usize::from(m.is_castle());
            pos.play_unchecked(m);
        }
    }
    assert!(castles > 50, "the openings castle, so castling moves are read from the book too");
    for (pos, moves) in expected.values() {
        let mut want: Vec<(String, u32)> =
            moves.iter().filter(|(_, w)| **w > 0).map(|(m, w)| (m.clone(), *w)).collect();
        want.sort();
        let mut got: Vec<(String, u32)> = book
            .moves(pos)
            .unwrap()
            .into_iter()
            .map(|b| (b.mv.to_uci(CastlingMode::Standard).to_string(), u32::from(b.weight)))
            .collect();
        got.sort();
        assert_eq!(got, want, "{}", Fen::from_position(pos, shakmaty::EnPassantMode::Legal));
    }
    // A position the games never reached has no book moves.
    let mut rare = Chess::default();
    for u in ["h2h4", "a7a5", "h1h3"] {
        let m = u.parse::<shakmaty::uci::UciMove>().unwrap().to_move(&rare).unwrap();
        rare.play_unchecked(m);
    }
    assert!(book.moves(&rare).unwrap().is_empty());

    // Weighted choice: each move about as often as its share of the weight.
    let start = book.moves(&Chess::default()).unwrap();
    let total: u32 = start.iter().map(|b| u32::from(b.weight)).sum();
    let mut rng = SmallRng::seed_from_u64(12);
    let mut counts: HashMap<shakmaty::Move, u32> = HashMap::new();
    let draws = 20_000;
    for _ in 0..draws {
        *counts.entry(book.choose(&Chess::default(), &mut rng).unwrap().unwrap().mv).or_default() += 1;
    }
    for b in &start {
        let share = f64::from(b.weight) / f64::from(total);
        let seen = f64::from(counts.get(&b.mv).copied().unwrap_or(0)) / f64::from(draws);
        assert!((seen - share).abs() < 0.02, "{:?}: {seen} vs {share}", b.mv);
    }
}
