//! Random legal games, and where the Laws end a game on the board.

use std::collections::HashMap;

use rand::{Rng, SeedableRng, rngs::SmallRng, seq::IndexedRandom};
use shakmaty::fen::Fen;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Position, Role, Setup};
use tactus_mate::{Budget, Deadness, Verdict};
use tactus_trace::{GameResult, Variant};

use crate::GameSpec;

/// A random legal game of at most `max_plies`, stopping where the Laws end
/// it. Castling, promotions, en passant and captures are picked with high
/// probability whenever legal, and pawns are pushed often, so the handling of
/// every kind of move shows up in short games. `chess960` starts from one of
/// the 960 positions. `think_ms` is left empty (drawn by `simulate`).
pub fn random_game(seed: u64, max_plies: usize, chess960: bool) -> GameSpec {
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mut pos, variant) = if chess960 {
        let board = Board::chess960(rng.random_range(0..960));
        let setup = Setup { castling_rights: board.rooks(), board, ..Setup::initial() };
        let pos = Chess::from_setup(setup, CastlingMode::Chess960).expect("a Chess960 start position is legal");
        (pos, Variant::Chess960)
    } else {
        (Chess::default(), Variant::Standard)
    };
    let start = Fen::from_position(&pos, EnPassantMode::Legal);
    let mut ending = Ending::new(&pos);
    let mut moves = Vec::new();
    while moves.len() < max_plies {
        let legal = pos.legal_moves();
        let Some(m) = pick(&mut rng, &legal) else {
            break;
        };
        moves.push(m);
        pos.play_unchecked(m);
        if ending.after(&pos).is_some() {
            break;
        }
    }
    GameSpec { variant, start, moves, think_ms: Vec::new() }
}

/// Tells whether a move is of one kind.
type Kind = fn(&Move) -> bool;

/// A legal move, biased towards the kinds that need special handling.
fn pick(rng: &mut SmallRng, legal: &[Move]) -> Option<Move> {
    let kinds: [(Kind, f64); 5] = [
        (|m| m.is_castle(), 0.8),
        (|m| m.is_promotion(), 0.9),
        (|m| m.is_en_passant(), 0.9),
        (|m| m.is_capture(), 0.5),
        (|m| m.role() == Role::Pawn, 0.3),
    ];
    for (kind, p) in kinds {
        let some: Vec<Move> = legal.iter().copied().filter(kind).collect();
        if !some.is_empty() && rng.random_bool(p) {
            return some.choose(rng).copied();
        }
    }
    legal.choose(rng).copied()
}

/// Follows a game to the first position where the Laws end it on the board.
pub(crate) struct Ending {
    seen: HashMap<Zobrist64, u32>,
}

impl Ending {
    pub fn new(start: &Chess) -> Ending {
        let mut ending = Ending { seen: HashMap::new() };
        ending.count(start);
        ending
    }

    fn count(&mut self, pos: &Chess) -> u32 {
        let n = self.seen.entry(pos.zobrist_hash(EnPassantMode::Legal)).or_default();
        *n += 1;
        *n
    }

    /// The result if the game ends in `pos`, just reached: checkmate,
    /// stalemate, a dead position (5.2.2), fivefold repetition (9.6.1)
    /// or 75 moves without a capture or pawn move (9.6.2).
    pub fn after(&mut self, pos: &Chess) -> Option<GameResult> {
        let repeated = self.count(pos);
        if let Some(known) = pos.outcome().known() {
            return Some(match known.winner() {
                Some(side) => GameResult::win_for(side),
                None => GameResult::Draw,
            });
        }
        (repeated >= 5 || pos.halfmoves() >= 150 || dead(pos)).then_some(GameResult::Draw)
    }
}

/// 5.2.2 beyond bare material, as a game on a board applies it: neither
/// side can mate, decided while pawns stand and none can move (see
/// `tactus_mate::pawns_can_move`), by the quick check and then the full
/// search.
fn dead(pos: &Chess) -> bool {
    pos.board().pawns().any()
        && !tactus_mate::pawns_can_move(pos)
        && match tactus_mate::quick_dead_position(pos) {
            Deadness::Dead => true,
            Deadness::NotDead => false,
            Deadness::Undetermined => tactus_mate::dead_position(pos, Budget::DEFAULT) == Deadness::Dead,
        }
}

/// Whether `side` can checkmate by some series of legal moves (6.9, 7.5.5);
/// a search that cannot settle it leaves the loss standing.
pub fn can_mate(pos: &Chess, side: Color) -> bool {
    !matches!(tactus_mate::can_mate(pos, side, Budget::DEFAULT).verdict, Verdict::CannotMate)
}
