//! How strong the weakest levels are: matches with Debian's Stockfish of
//! level 0 against a random mover and against level 1, and of each weak
//! level against the next.
//!
//! `cargo run --release -p tactus-engine --example level_match [-- GAMES [A:B …]]`
//! (A and B: levels, or `random`)
//!
//! Colours alternate; a game is drawn by stalemate, insufficient material,
//! threefold repetition, the 75-move rule or after 400 plies.

use std::collections::HashMap;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position};
use tactus_engine::{EngineConfig, Level, Line, Opponent, OpponentConfig};

const STOCKFISH: &str = "/usr/games/stockfish";

enum Player {
    Random(SmallRng),
    Engine(Box<Opponent>),
}

impl Player {
    async fn new(spec: &str, seed: u64) -> Player {
        if spec == "random" {
            return Player::Random(SmallRng::seed_from_u64(seed));
        }
        let level: Level = spec.parse().expect("a level or \"random\"");
        let mut config = OpponentConfig::new(EngineConfig::new(STOCKFISH), level);
        config.seed = seed;
        Player::Engine(Box::new(Opponent::start(config).await.expect("Stockfish starts")))
    }

    async fn choose(&mut self, line: &Line) -> Move {
        match self {
            Player::Random(rng) => {
                let moves = line.position().legal_moves();
                moves[rng.random_range(0..moves.len())]
            }
            Player::Engine(o) => o.choose(line, None).await.expect("a move").mv,
        }
    }

    async fn new_game(&mut self) {
        if let Player::Engine(o) = self {
            o.new_game(false).await.expect("new game");
        }
    }
}

/// The winner, or `None` for a draw.
async fn play(white: &mut Player, black: &mut Player) -> Option<Color> {
    white.new_game().await;
    black.new_game().await;
    let mut line = Line::new(Chess::default());
    let mut seen: HashMap<u64, u32> = HashMap::new();
    for _ in 0..400 {
        let pos = line.position();
        if pos.is_checkmate() {
            return Some(!pos.turn());
        }
        if pos.is_stalemate() || pos.is_insufficient_material() || pos.halfmoves() >= 150 {
            return None;
        }
        let key = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        let count = seen.entry(key).or_default();
        *count += 1;
        if *count >= 3 {
            return None;
        }
        let mover = if pos.turn() == Color::White { &mut *white } else { &mut *black };
        let m = mover.choose(&line).await;
        line.push(m).expect("legal");
    }
    None
}

async fn matchup(a: &str, b: &str, games: u32) {
    let mut pa = Player::new(a, 1).await;
    let mut pb = Player::new(b, 2).await;
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for g in 0..games {
        let a_white = g % 2 == 0;
        let winner = if a_white { play(&mut pa, &mut pb).await } else { play(&mut pb, &mut pa).await };
        match winner {
            None => draws += 1,
            Some(c) if (c == Color::White) == a_white => wins += 1,
            Some(_) => losses += 1,
        }
    }
    let score = (f64::from(wins) + f64::from(draws) / 2.0) / f64::from(games) * 100.0;
    println!("level {a} vs {b}: {games} games, +{wins} ={draws} -{losses} ({score:.0} % for {a})");
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    assert!(std::path::Path::new(STOCKFISH).exists(), "{STOCKFISH} missing: apt-get install stockfish");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: u32 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(50);
    let mut pairs: Vec<(String, String)> =
        args.iter().filter_map(|a| a.split_once(':')).map(|(x, y)| (x.to_owned(), y.to_owned())).collect();
    if pairs.is_empty() {
        pairs = [("0", "random"), ("0", "1"), ("1", "2"), ("2", "3"), ("3", "4")]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
            .to_vec();
    }
    for (a, b) in pairs {
        matchup(&a, &b, games).await;
    }
}
