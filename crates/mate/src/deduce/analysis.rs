//! What each piece may ever do: a fixpoint over reachable squares.
//!
//! Every piece starts able to reach only its own square. Each pass lets
//! every piece move, from every square it may reach, to the squares the
//! rules below do not rule out, and derives from the grown reach which
//! pieces may be captured, which squares stay empty, which stay attacked.
//! Reach only grows, so the passes end; at the fixpoint the fields hold the
//! guarantees their comments state (over-approximations: absence is proof;
//! under-approximations: presence is proof).

use shakmaty::{
    Bitboard, Board, ByColor, CastlingSide, Chess, Color, File, Piece, Position, Rank, Role, Square, attacks,
};

use crate::budget::{Meter, OutOfBudget};

/// A case of the deduction's case split on a piece that cannot move but may
/// be captured: either it is never taken before it moves, or it never moves
/// and can only be taken where it stands.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Assumptions {
    /// Pieces on these squares are not captured while they have not moved.
    pub(crate) never_taken_in_place: Bitboard,
    /// Pieces on these squares never move; they can only be taken there.
    pub(crate) only_taken_in_place: Bitboard,
}

pub(crate) struct Analysis {
    board: Board,
    assumptions: Assumptions,
    /// Over: the squares the piece now on a square may ever stand on
    /// (indexed by its current square).
    pub(crate) reach: [Bitboard; 64],
    /// Under: squares whose piece never moves and is never captured.
    pub(crate) steady: Bitboard,
    /// Under: squares no piece will ever stand on.
    pub(crate) clear: Bitboard,
    /// Under: squares each colour attacks for the rest of the game.
    attacked: ByColor<Bitboard>,
    /// Over: pieces (by current square) that may be captured.
    capturable: Bitboard,
    /// Over: pieces (by current square) that may leave their square.
    movable: Bitboard,
    /// Over: squares each colour's non-bishops may reach.
    non_bishop_reach: ByColor<Bitboard>,
    /// Over: squares where each colour may offer a non-king piece.
    sacrificable: ByColor<Bitboard>,
    /// The first pieces found both steady and capturable: where the case
    /// split of [`super::proves_no_mate`] looks. Only a choice of where to
    /// split, never a reason for a verdict.
    pub(crate) first_steady_capturable: Option<Bitboard>,
    /// Over: some pawn may promote.
    promotable: bool,
}

impl Analysis {
    pub(crate) fn new(board: &Board, assumptions: Assumptions) -> Analysis {
        let occupied = board.occupied();
        let mut reach = [Bitboard::EMPTY; 64];
        for sq in occupied {
            reach[sq as usize] = Bitboard::from_square(sq);
        }
        let mut analysis = Analysis {
            board: board.clone(),
            assumptions,
            reach,
            steady: occupied,
            clear: !occupied,
            attacked: ByColor::new_with(|_| Bitboard::EMPTY),
            capturable: Bitboard::EMPTY,
            movable: Bitboard::EMPTY,
            non_bishop_reach: ByColor::new_with(|_| Bitboard::EMPTY),
            sacrificable: ByColor::new_with(|_| Bitboard::EMPTY),
            first_steady_capturable: None,
            promotable: false,
        };
        analysis.update_attacked();
        analysis
    }

    pub(crate) fn board(&self) -> &Board {
        &self.board
    }

    /// Runs the passes to the fixpoint. A pass costs a step for every square
    /// a piece moves from (about the work of a move tried in a search).
    pub(crate) fn saturate(&mut self, meter: &mut Meter) -> Result<(), OutOfBudget> {
        let occupied = self.board.occupied();
        let white_has_spare_material = self.board.by_color(Color::White).count() > 2;
        loop {
            let work: usize = occupied.into_iter().map(|sq| self.reach[sq as usize].count()).sum();
            meter.charge(work as u64)?;
            let mut progress = false;
            for origin in occupied {
                let Some(piece) = self.board.piece_at(origin) else { continue };
                for from in self.reach[origin as usize] {
                    let mut targets = moves(piece, from, self.steady);
                    // When White has one piece left besides the king, Black
                    // gains nothing by taking it, so pawn captures are left
                    // out for Black.
                    if piece.role == Role::Pawn && (piece.color == Color::White || white_has_spare_material) {
                        targets |= attacks::pawn_attacks(piece.color, from) & *self.sacrificable.get(!piece.color);
                    }
                    let targets = self.prune(origin, piece, from, targets);
                    self.grow_reach(origin, piece, targets, &mut progress);
                    if (targets & !Bitboard::from_square(origin)).any() {
                        update(&mut self.movable, |movable| movable.with(origin), &mut progress);
                    }
                }
                self.derive_from_reach(origin, piece, white_has_spare_material, &mut progress);
            }
            self.update_attacked();
            if !progress {
                return Ok(());
            }
        }
    }

    /// Updates what follows from one piece's reach: steadiness, captures,
    /// clear squares, sacrifices, promotion.
    fn derive_from_reach(&mut self, origin: Square, piece: Piece, white_has_spare_material: bool, progress: &mut bool) {
        let reach = self.reach[origin as usize];
        let kings = self.board.kings();
        if (reach & !Bitboard::from_square(origin)).any() {
            update(&mut self.steady, |steady| steady.without(origin), progress);
        }

        // Opponents whose reach meets this piece's may be captured by it (a
        // pawn never takes on its own file).
        let mut capturable = Bitboard::EMPTY;
        if piece.color == Color::White || white_has_spare_material {
            let mut prey = self.board.by_color(!piece.color) & !kings;
            if piece.role == Role::Pawn {
                prey &= !Bitboard::from_file(origin.file());
            }
            for victim in prey {
                if (reach & self.reach[victim as usize]).any() {
                    capturable.add(victim);
                }
            }
        }
        self.note_capturable(capturable, progress);

        // A piece that may come to a square may capture what stands there.
        update(&mut self.steady, |steady| steady & !(reach.without(origin) & !kings), progress);
        update(&mut self.clear, |clear| clear & !reach, progress);
        if piece.role != Role::King {
            update(self.sacrificable.get_mut(piece.color), |sacrificable| sacrificable | reach, progress);
        }

        // A promoted pawn may go anywhere but onto its own steady pieces or a
        // steady king.
        if piece.role == Role::Pawn && (reach & Bitboard::BACKRANKS).any() {
            self.promotable = true;
            let barred = self.steady & (self.board.by_color(piece.color) | kings);
            self.grow_reach(origin, piece, !barred, progress);
        }
    }

    fn grow_reach(&mut self, origin: Square, piece: Piece, squares: Bitboard, progress: &mut bool) {
        update(&mut self.reach[origin as usize], |reach| reach | squares, progress);
        if piece.role != Role::Bishop {
            update(self.non_bishop_reach.get_mut(piece.color), |reach| reach | squares, progress);
        }
    }

    fn note_capturable(&mut self, capturable: Bitboard, progress: &mut bool) {
        let steady_and_capturable = capturable & self.steady;
        if steady_and_capturable.any() {
            match self.first_steady_capturable {
                None => self.first_steady_capturable = Some(steady_and_capturable),
                // Grows with the pieces found in the same way until a pawn may
                // promote (after that, everything is reachable and the split
                // would no longer be informative).
                Some(found) if !self.promotable => self.first_steady_capturable = Some(found | steady_and_capturable),
                Some(_) => {}
            }
        }
        update(&mut self.capturable, |known| known | capturable, progress);
    }

    /// The squares each colour attacks for good: those a piece that is never
    /// captured attacks from every square it may ever stand on.
    fn update_attacked(&mut self) {
        let mut attacked = ByColor::new_with(|_| Bitboard::EMPTY);
        for sq in self.board.occupied() & !self.capturable {
            let Some(piece) = self.board.piece_at(sq) else { continue };
            let mut obstacles = !self.clear;
            if piece.role == Role::Bishop {
                // A friendly bishop on a square that only friendly bishops
                // can ever reach hides nothing: while it stands in the line
                // it attacks the squares behind itself, and once it has left
                // the line is open. Such bishops are transparent here.
                obstacles &= !(self.board.by_color(piece.color)
                    & self.board.bishops()
                    & !*self.non_bishop_reach.get(piece.color)
                    & !self.capturable);
            }
            let mut always = Bitboard::FULL;
            for from in self.reach[sq as usize] {
                always &= attacks_from(piece, from, obstacles);
            }
            *attacked.get_mut(piece.color) |= always;
        }
        self.attacked = attacked;
    }

    /// Rules out targets that are impossible or pointless for a helpmate by
    /// White. `origin` is where the piece stands now, `from` where it may be.
    fn prune(&self, origin: Square, piece: Piece, from: Square, targets: Bitboard) -> Bitboard {
        let mut targets = targets & !self.reach[origin as usize];
        targets &= !(self.board.by_color(piece.color) & self.steady);
        if piece.role == Role::King {
            targets &= !*self.attacked.get(!piece.color);
        }
        if piece.color == Color::Black {
            targets &= !self.black_would_mate_white(piece, from, targets);
        }
        if piece.color == Color::White && self.board.by_color(Color::White).count() == 2 {
            targets &= !self.last_white_piece_lost(piece, targets);
        }
        if piece.role == Role::King {
            targets &= !self.stalemating(piece.color, from, targets);
        }
        targets &= !self.blocked_for_good(origin, piece, from, targets);
        if targets.any() {
            targets &= !(self.assumptions.never_taken_in_place & self.steady);
        }
        if self.assumptions.only_taken_in_place.contains(origin) {
            targets = Bitboard::EMPTY;
        }
        targets
    }

    /// With the white king stuck, a black piece that checks it from a square
    /// no white piece can reach, or uncovers a check by a steady black piece,
    /// would mate White or end nothing useful: Black never goes there.
    fn black_would_mate_white(&self, piece: Piece, from: Square, targets: Bitboard) -> Bitboard {
        let Some(white_king) = self.board.king_of(Color::White) else { return Bitboard::EMPTY };
        if !self.steady.contains(white_king) {
            return Bitboard::EMPTY;
        }
        let mut ruled_out = Bitboard::EMPTY;
        for to in targets {
            if attacks_from(piece, to, !self.clear).contains(white_king)
                && !self.sacrificable.get(Color::White).contains(to)
            {
                ruled_out.add(to);
            }
        }
        let obstacles = !self.clear & !Bitboard::from_square(from);
        let checkers =
            self.board.by_color(Color::Black) & self.steady & !Bitboard::from_square(from) & line(white_king, from);
        for to in targets & !ruled_out {
            let uncovers_check = checkers.into_iter().any(|checker| {
                self.board.piece_at(checker).is_some_and(|checker_piece| {
                    attacks_from(checker_piece, checker, obstacles.with(to)).contains(white_king)
                })
            });
            if uncovers_check {
                ruled_out.add(to);
            }
        }
        ruled_out
    }

    /// White's last piece besides the king checking the steady black king
    /// from next to it is simply taken, leaving a bare king, unless the white
    /// king may come to defend it and no steady black piece guards the square.
    fn last_white_piece_lost(&self, piece: Piece, targets: Bitboard) -> Bitboard {
        let (Some(white_king), Some(black_king)) = (self.board.king_of(Color::White), self.board.king_of(Color::Black))
        else {
            return Bitboard::EMPTY;
        };
        let guards = self.steady & self.board.by_color(Color::Black) & !Bitboard::from_square(black_king);
        let mut ruled_out = Bitboard::EMPTY;
        for to in targets {
            if (self.reach[white_king as usize] & attacks::king_attacks(to)).any() {
                let guarded = guards.into_iter().any(|guard| {
                    self.board
                        .piece_at(guard)
                        .is_some_and(|guard_piece| attacks_from(guard_piece, guard, !self.clear).contains(to))
                });
                if !guarded {
                    continue;
                }
            }
            if self.steady.contains(black_king)
                && attacks::king_attacks(to).contains(black_king)
                && attacks_from(piece, to, !self.clear).contains(black_king)
            {
                ruled_out.add(to);
            }
        }
        ruled_out
    }

    /// King moves that would leave an opponent, who can move nothing but the
    /// king, at most one free square: a stalemate, not a mate, unless the
    /// king uncovers a line for one of its own sliders.
    ///
    /// Only king moves are judged this way: a king's attacks from a square
    /// are exact, other pieces' are over-approximated here.
    fn stalemating(&self, color: Color, from: Square, targets: Bitboard) -> Bitboard {
        let opponent = self.board.by_color(!color);
        let Some(opponent_king) = self.board.king_of(!color) else { return Bitboard::EMPTY };
        if (opponent.without(opponent_king) & self.movable).any() {
            return Bitboard::EMPTY;
        }
        // The neighbours not yet known to be attacked or occupied for good
        // keep this rule and its mirror image for the other king from
        // waiting on each other.
        let opponent_region = self.reach[opponent_king as usize]
            | (attacks::king_attacks(opponent_king) & !*self.attacked.get(color) & !self.steady);
        let own = self.board.by_color(color);
        let diagonal_sliders = own & (self.board.bishops() | self.board.queens());
        let straight_sliders = own & (self.board.rooks() | self.board.queens());

        let mut ruled_out = Bitboard::EMPTY;
        for to in targets {
            let covered = attacks::king_attacks(to).with(to);
            if (attacks::king_attacks(opponent_king) & covered).is_empty() {
                continue;
            }
            let obstacles = !self.clear | Bitboard::from_square(to);
            let diagonals = attacks::bishop_attacks(from, obstacles) & !obstacles;
            if diagonal_sliders.into_iter().any(|s| (self.reach[s as usize] & diagonals).any()) {
                continue;
            }
            let straights = attacks::rook_attacks(from, obstacles) & !obstacles;
            if straight_sliders.into_iter().any(|s| (self.reach[s as usize] & straights).any()) {
                continue;
            }
            if (opponent_region & !covered).count() <= 1 {
                ruled_out.add(to);
            }
        }
        ruled_out
    }

    /// Targets behind a piece that is never captured and never leaves the
    /// way there.
    fn blocked_for_good(&self, origin: Square, piece: Piece, from: Square, targets: Bitboard) -> Bitboard {
        let mut ruled_out = Bitboard::EMPTY;
        for to in targets {
            let way = attacks::between(from, to).with(from).with(to);
            for obstacle in self.board.occupied() & way & !Bitboard::from_square(origin) & !self.capturable {
                let Some(obstacle_piece) = self.board.piece_at(obstacle) else { continue };
                let mut way_out = way;
                // An enemy piece in the way can be taken where it stands,
                // except by a pawn pushing straight at it.
                let pushing_at_pawn =
                    obstacle_piece.role == Role::Pawn && piece.role == Role::Pawn && from.file() == to.file();
                if obstacle_piece.color != piece.color && !pushing_at_pawn {
                    way_out = way_out.without(obstacle);
                }
                // A pawn that never leaves its file is blocked by a pawn
                // anywhere on the file between them.
                if piece.role == Role::Pawn
                    && obstacle_piece.role == Role::Pawn
                    && (self.reach[origin as usize] & !Bitboard::from_file(to.file())).is_empty()
                {
                    way_out |= line(origin, obstacle);
                }
                if (self.reach[obstacle as usize] & !way_out).is_empty() {
                    ruled_out.add(to);
                }
            }
        }
        ruled_out
    }

    /// The squares a king of `color` may ever stand on.
    pub(crate) fn king_reach(&self, color: Color) -> Option<Bitboard> {
        Some(self.reach[self.board.king_of(color)? as usize])
    }
}

/// Where `piece` on `from` may move: pawn pushes (blocked by `obstacles`),
/// or the piece's attacks.
fn moves(piece: Piece, from: Square, obstacles: Bitboard) -> Bitboard {
    match piece.role {
        Role::Pawn => pawn_pushes(piece.color, from, obstacles),
        Role::King => attacks::king_attacks(from),
        role => attacks::attacks(from, Piece { color: piece.color, role }, obstacles),
    }
}

/// What `piece` on `from` attacks; a king also covers its own square.
pub(crate) fn attacks_from(piece: Piece, from: Square, obstacles: Bitboard) -> Bitboard {
    match piece.role {
        Role::King => attacks::king_attacks(from).with(from),
        _ => attacks::attacks(from, piece, obstacles),
    }
}

/// Single push, and double push from the pawn's second rank; none from the
/// last rank.
fn pawn_pushes(color: Color, from: Square, obstacles: Bitboard) -> Bitboard {
    let Some(one) = from.offset(if color == Color::White { 8 } else { -8 }) else { return Bitboard::EMPTY };
    if obstacles.contains(one) {
        return Bitboard::EMPTY;
    }
    let mut pushes = Bitboard::from_square(one);
    if from.rank() == color.fold_wb(Rank::Second, Rank::Seventh)
        && let Some(two) = one.offset(if color == Color::White { 8 } else { -8 })
        && !obstacles.contains(two)
    {
        pushes.add(two);
    }
    pushes
}

/// The whole line through two squares, empty unless they are distinct and
/// share a rank, file or diagonal.
fn line(a: Square, b: Square) -> Bitboard {
    if a == b { Bitboard::EMPTY } else { attacks::ray(a, b) }
}

fn update(field: &mut Bitboard, change: impl FnOnce(Bitboard) -> Bitboard, progress: &mut bool) {
    let value = change(*field);
    if *field != value {
        *field = value;
        *progress = true;
    }
}

/// The paths (squares that must be empty) of the castling rights the
/// deduction does not model. It models castling as a king walk plus a rook
/// slide, which the passes already allow, in the standard arrangement only:
/// king on the e-file, rooks in the corners. Chess960 rights in any other
/// arrangement are returned here.
pub(crate) fn unmodelled_castling_paths(pos: &Chess) -> Vec<Bitboard> {
    let castles = pos.castles();
    let mut paths = Vec::new();
    for color in [Color::White, Color::Black] {
        let back = color.fold_wb(Rank::First, Rank::Eighth);
        let standard_king = pos.board().king_of(color) == Some(Square::from_coords(File::E, back));
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            let Some(rook) = castles.rook(color, side) else { continue };
            let corner = match side {
                CastlingSide::KingSide => Square::from_coords(File::H, back),
                CastlingSide::QueenSide => Square::from_coords(File::A, back),
            };
            if !(standard_king && rook == corner) {
                paths.push(castles.path(color, side));
            }
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Chess, fen::Fen};

    use super::*;
    use crate::budget::Budget;

    fn position(fen: &str, mode: CastlingMode) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
    }

    fn saturated(fen: &str) -> Analysis {
        use shakmaty::Position;
        let pos = position(fen, CastlingMode::Standard);
        let mut analysis = Analysis::new(pos.board(), Assumptions::default());
        analysis.saturate(&mut Meter::new(Budget::steps(u64::MAX))).unwrap();
        analysis
    }

    #[test]
    fn pawn_pushes_stop_at_obstacles_and_the_last_rank() {
        let none = Bitboard::EMPTY;
        assert_eq!(pawn_pushes(Color::White, Square::E2, none), Bitboard::from_iter([Square::E3, Square::E4]));
        assert_eq!(
            pawn_pushes(Color::White, Square::E2, Bitboard::from_square(Square::E4)),
            Bitboard::from_square(Square::E3)
        );
        assert_eq!(pawn_pushes(Color::White, Square::E2, Bitboard::from_square(Square::E3)), none);
        assert_eq!(pawn_pushes(Color::White, Square::E8, none), none);
        assert_eq!(pawn_pushes(Color::Black, Square::D7, none), Bitboard::from_iter([Square::D6, Square::D5]));
        assert_eq!(pawn_pushes(Color::Black, Square::D1, none), none);
        assert!(attacks::pawn_attacks(Color::White, Square::H8).is_empty());
    }

    #[test]
    fn locked_pawns_and_their_kings_stay_apart() {
        // The example: pawn wall, bishops that cannot cross it.
        let analysis = saturated("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1");
        let pawns = Bitboard::from_iter([
            Square::B4,
            Square::D4,
            Square::F4,
            Square::H4,
            Square::B5,
            Square::D5,
            Square::F5,
            Square::H5,
        ]);
        assert_eq!(analysis.steady & pawns, pawns, "the pawns never move");
        let white_king = analysis.reach[Square::E1 as usize];
        assert!((white_king & Bitboard::from_rank(Rank::Fifth)).is_empty());
        let black_king = analysis.reach[Square::E8 as usize];
        assert!((black_king & Bitboard::from_rank(Rank::Fourth)).is_empty());
    }

    #[test]
    fn open_positions_saturate_to_freedom() {
        let analysis = saturated("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(analysis.steady.is_empty());
        assert!(analysis.reach[Square::E1 as usize].count() > 32, "the king may go nearly anywhere");
    }

    #[test]
    fn chess960_castling_outside_the_standard_squares_is_not_modelled() {
        let paths = |fen, mode| unmodelled_castling_paths(&position(fen, mode));
        assert!(paths("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", CastlingMode::Standard).is_empty());
        assert!(paths("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1", CastlingMode::Chess960).is_empty());
        assert!(paths("1r4kr/8/8/8/8/8/8/1R4KR w - - 0 1", CastlingMode::Chess960).is_empty());
        // King g1, rooks b1 and h1: the b-rook's path is c1-f1, the h-rook's
        // f1 (the rook's target; the king's is its own square).
        let paths = paths("1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1", CastlingMode::Chess960);
        assert_eq!(paths.len(), 4);
        assert!(paths.contains(&Bitboard::from_iter([Square::C1, Square::D1, Square::E1, Square::F1])));
        assert!(paths.contains(&Bitboard::from_square(Square::F1)));
    }
}
