//! The game as the rules see it: the position (shakmaty), the moves played
//! with their clock readings, repetitions, and how the game ends on the board
//! (Articles 5 and 9).

use std::cell::RefCell;

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{
    Bitboard, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, FromSetup, Move, Piece, Position, Square,
};

use crate::event::{Article, CastleSide, ClaimKind, EndReason, MoveInfo};
use crate::pgn::Note;
use tactus_trace::{GameResult, Variant};

/// One legal move with what it does to the board's occupancy.
#[derive(Debug, Clone, Copy)]
pub struct LegalMove {
    pub mv: Move,
    /// Occupancy after the move.
    pub after: Bitboard,
    /// Squares whose pieces must have been lifted for this move to have
    /// happened, beyond what the final occupancy shows: a captured piece's
    /// square, the squares of a king and rook that trade places.
    pub lifted: Bitboard,
}

/// A completed move in the record.
#[derive(Debug, Clone)]
pub struct Played {
    pub info: MoveInfo,
    /// The mover's clock after the press, increment included.
    pub clock_ms: Option<i64>,
    /// Rulings made while this ply was being made, before the move that
    /// stood (a 7.5.1 attempt and its penalty), for the PGN.
    pub before: Vec<Note>,
    /// Rulings and remarks on this move, for the PGN.
    pub comments: Vec<Note>,
    /// An illegal move that stood under A.5.2 (no SAN exists for it).
    pub stood_illegal: bool,
}

impl Played {
    /// This move, played again from `pos`; `None` for an illegal move that
    /// stood (A.5.2), which no legal replay reproduces.
    fn replayed(&self, pos: &Chess) -> Option<Move> {
        if self.stood_illegal {
            return None;
        }
        self.info.uci.parse::<UciMove>().ok()?.to_move(pos).ok()
    }
}

/// How the game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ending {
    pub result: GameResult,
    pub reason: EndReason,
    pub article: Article,
}

#[derive(Debug, Clone)]
pub struct Game {
    pub variant: Variant,
    pub mode: CastlingMode,
    start: Chess,
    pos: Chess,
    pub played: Vec<Played>,
    /// Zobrist keys of the positions since the last irreversible move,
    /// the current one included.
    keys: Vec<u64>,
    options: Vec<LegalMove>,
    /// Rulings at the ply being made, until its move is played.
    notes: Vec<Note>,
    pub ending: Option<Ending>,
    /// The round's pairing, when the hall sent one: the record's players,
    /// event and round, over the header's.
    pub pairing: Option<tactus_trace::Pairing>,
    /// The move last described in this position: a move is described when
    /// it is announced and again when it is completed.
    described: RefCell<Option<(Move, MoveInfo)>>,
}

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("start_fen {fen:?} is not a valid FEN: {why}")]
    Fen { fen: String, why: String },
    #[error("start_fen {fen:?} is not a legal position: {why}")]
    Position { fen: String, why: String },
}

impl Game {
    pub fn new(variant: Variant, start_fen: Option<&str>) -> Result<Game, SetupError> {
        let mode = match variant {
            Variant::Standard => CastlingMode::Standard,
            Variant::Chess960 => CastlingMode::Chess960,
        };
        let start = match start_fen {
            None => Chess::default(),
            Some(text) => {
                let fen = Fen::from_ascii(text.as_bytes())
                    .map_err(|e| SetupError::Fen { fen: text.into(), why: e.to_string() })?;
                fen.into_position(mode).map_err(|e| SetupError::Position { fen: text.into(), why: e.to_string() })?
            }
        };
        Ok(Game::from_start(variant, start))
    }

    fn key(&self) -> u64 {
        self.pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
    }

    pub fn position(&self) -> &Chess {
        &self.pos
    }

    pub fn start(&self) -> &Chess {
        &self.start
    }

    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// The ply the player to move is making (1 = White's first move).
    pub fn ply(&self) -> u32 {
        let start_ply = (self.start.fullmoves().get() - 1) * 2 + u32::from(self.start.turn() == Color::Black);
        start_ply + self.played.len() as u32 + 1
    }

    pub fn occupancy(&self) -> Bitboard {
        self.pos.board().occupied()
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.pos.board().piece_at(sq)
    }

    /// The legal moves of the player to move, with their occupancies.
    pub fn options(&self) -> &[LegalMove] {
        &self.options
    }

    fn refresh_options(&mut self) {
        self.options = legal_moves(&self.pos);
    }

    /// Everything a voice or a record needs to know about a legal move.
    pub fn describe(&self, mv: Move) -> MoveInfo {
        if let Some((last, info)) = &*self.described.borrow()
            && *last == mv
        {
            return info.clone();
        }
        let info = describe(&self.pos, self.mode, self.ply(), mv);
        *self.described.borrow_mut() = Some((mv, info.clone()));
        info
    }

    /// Plays a legal move and returns what can now be claimed.
    pub fn play(&mut self, mv: Move, clock_ms: Option<i64>) -> (MoveInfo, Option<ClaimKind>) {
        self.play_known(mv, clock_ms, None)
    }

    /// [`Game::play`], given the legal moves after it when they are known
    /// already (the reply watched before the press has them).
    pub fn play_known(
        &mut self,
        mv: Move,
        clock_ms: Option<i64>,
        options: Option<Vec<LegalMove>>,
    ) -> (MoveInfo, Option<ClaimKind>) {
        let info = self.describe(mv);
        let irreversible = self.pos.is_irreversible(mv);
        self.pos.play_unchecked(mv);
        self.described = RefCell::default();
        if irreversible {
            self.keys.clear();
        }
        self.keys.push(self.key());
        let before = std::mem::take(&mut self.notes);
        self.played.push(Played { info: info.clone(), clock_ms, before, comments: Vec::new(), stood_illegal: false });
        match options {
            Some(options) => self.options = options,
            None => self.refresh_options(),
        }
        self.ending = self.ending_on_board();
        let claim = if self.ending.is_some() {
            None
        } else if self.repetitions() >= 3 {
            Some(ClaimKind::Threefold)
        } else if self.pos.halfmoves() >= 100 {
            Some(ClaimKind::Fifty)
        } else {
            None
        };
        (info, claim)
    }

    /// How often the current position has stood on the board (9.2.2: same
    /// player to move, same pieces, same castling and en passant rights).
    pub fn repetitions(&self) -> usize {
        let now = self.keys.last().copied().unwrap_or_default();
        self.keys.iter().filter(|k| **k == now).count()
    }

    /// Articles 5.1.1, 5.2.1, 5.2.2, 9.6.1 and 9.6.2, in that order: a mate on
    /// the 75th move still wins.
    fn ending_on_board(&self) -> Option<Ending> {
        let mover = !self.pos.turn();
        // No legal move: mate or stalemate (the options are the legal moves).
        let stuck = self.options.is_empty();
        if stuck && self.pos.is_check() {
            return Some(Ending {
                result: GameResult::win_for(mover),
                reason: EndReason::Checkmate,
                article: Article::A5_1_1,
            });
        }
        let draw = |reason, article| Some(Ending { result: GameResult::Draw, reason, article });
        if stuck {
            return draw(EndReason::Stalemate, Article::A5_2_1);
        }
        if self.pos.is_insufficient_material() {
            return draw(EndReason::InsufficientMaterial, Article::A5_2_2);
        }
        if self.repetitions() >= 5 {
            return draw(EndReason::FivefoldRepetition, Article::A9_6_1);
        }
        if self.pos.halfmoves() >= 150 {
            return draw(EndReason::SeventyFiveMoves, Article::A9_6_2);
        }
        None
    }

    /// Would this legal move end the game on the board (mate, stalemate, a
    /// dead position)? Such a move is complete at once (6.2.1, 5.1.1, 5.2).
    pub fn ends_game(&self, mv: Move) -> bool {
        let mut after = self.pos.clone();
        after.play_unchecked(mv);
        after.is_checkmate() || after.is_stalemate() || after.is_insufficient_material()
    }

    /// A ruling or remark for the record, at the ply it concerns: on a move
    /// already played, or before the move of the ply being made.
    pub fn note(&mut self, ply: u32, note: Note) {
        match self.played.iter_mut().rev().find(|p| p.info.ply == ply) {
            Some(played) => played.comments.push(note),
            None => self.notes.push(note),
        }
    }

    /// Rulings at the ply being made whose move has not been played (the game
    /// ended there, or the record stops there).
    pub fn pending_notes(&self) -> &[Note] {
        &self.notes
    }

    pub fn end(&mut self, ending: Ending) {
        self.ending = Some(ending);
    }

    pub fn fen(&self) -> String {
        Fen::from_position(&self.pos, EnPassantMode::Legal).to_string()
    }

    pub fn start_fen(&self) -> String {
        Fen::from_position(&self.start, EnPassantMode::Legal).to_string()
    }

    /// Was the game set up from the standard start?
    pub fn standard_start(&self) -> bool {
        self.start == Chess::default()
    }
}

impl Game {
    /// The positions the game has been through, the start first and the
    /// current one last; `None` when an illegal move stood (A.5.2), which
    /// no legal replay reproduces.
    pub fn positions(&self) -> Option<Vec<Chess>> {
        let mut pos = self.start.clone();
        let mut out = Vec::with_capacity(self.played.len() + 1);
        out.push(pos.clone());
        for played in &self.played {
            pos.play_unchecked(played.replayed(&pos)?);
            out.push(pos.clone());
        }
        Some(out)
    }

    /// Takes the last `plies` moves back: the game goes on from the position
    /// before them, their records gone. Returns the moves taken back, in the
    /// order they were played; `None` (nothing changed) when there are not
    /// that many, or an illegal move stood (A.5.2).
    pub fn take_back(&mut self, plies: usize) -> Option<Vec<MoveInfo>> {
        let keep = self.played.len().checked_sub(plies)?;
        if plies == 0 || self.played.iter().any(|p| p.stood_illegal) {
            return None;
        }
        let mut rebuilt = Game::from_start(self.variant, self.start.clone());
        for played in &self.played[..keep] {
            rebuilt.play(played.replayed(&rebuilt.pos)?, played.clock_ms);
        }
        let mut played = std::mem::take(&mut self.played);
        let taken = played.split_off(keep).into_iter().map(|p| p.info).collect();
        // The kept moves keep their rulings and remarks.
        rebuilt.played = played;
        *self = rebuilt;
        Some(taken)
    }

    /// A game at `start`, no move played yet.
    fn from_start(variant: Variant, start: Chess) -> Game {
        let mode = match variant {
            Variant::Standard => CastlingMode::Standard,
            Variant::Chess960 => CastlingMode::Chess960,
        };
        let mut game = Game {
            variant,
            mode,
            pos: start.clone(),
            start,
            played: Vec::new(),
            keys: Vec::new(),
            options: Vec::new(),
            notes: Vec::new(),
            ending: None,
            pairing: None,
            described: RefCell::default(),
        };
        game.keys.push(game.key());
        game.refresh_options();
        game
    }
}

impl Game {
    /// A.5.2: an illegal move that stands. The game goes on from the position
    /// it made; `None` when that position cannot exist (the mover's king left
    /// in check could be taken).
    pub fn force(&mut self, a: crate::event::Attempt) -> Option<MoveInfo> {
        let side = self.pos.turn();
        let (pos, captured) = play_anyway(&self.pos, a.from, a.to)?;
        let info = MoveInfo {
            ply: self.ply(),
            side,
            san: format!(
                "{}{}{}{}",
                a.piece.role.upper_char(),
                a.from,
                if captured.is_some() { 'x' } else { '-' },
                a.to
            ),
            uci: format!("{}{}", a.from, a.to),
            piece: a.piece,
            from: a.from,
            to: a.to,
            capture: captured,
            promotion: None,
            castle: None,
            en_passant: false,
            check: pos.is_check(),
            mate: pos.is_checkmate(),
        };
        self.pos = pos;
        self.described = RefCell::default();
        self.keys.clear();
        self.keys.push(self.key());
        let before = std::mem::take(&mut self.notes);
        self.played.push(Played {
            info: info.clone(),
            clock_ms: None,
            before,
            comments: Vec::new(),
            stood_illegal: true,
        });
        self.refresh_options();
        self.ending = self.ending_on_board();
        Some(info)
    }
}

/// The position after the piece on `from` goes to `to`, legal or not (an
/// illegal move that stands, A.5.2), with what it took; `None` when that
/// position cannot exist (the mover's king left in check could be taken).
pub fn play_anyway(pos: &Chess, from: Square, to: Square) -> Option<(Chess, Option<Piece>)> {
    let side = pos.turn();
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    let piece = setup.board.remove_piece_at(from)?;
    let captured = setup.board.remove_piece_at(to);
    setup.board.set_piece_at(to, piece);
    setup.turn = !side;
    setup.ep_square = None;
    setup.halfmoves =
        if captured.is_some() || piece.role == shakmaty::Role::Pawn { 0 } else { setup.halfmoves.saturating_add(1) };
    if side == Color::Black {
        setup.fullmoves = setup.fullmoves.saturating_add(1);
    }
    // A king or rook moved by the illegal move loses its castling rights.
    let pos = match Chess::from_setup(setup, pos.castles().mode()) {
        Ok(pos) => pos,
        Err(e) => e.ignore_invalid_castling_rights().ok()?,
    };
    Some((pos, captured))
}

/// The legal moves of the player to move in `pos`, each with the occupancy it
/// leaves and the lifts it needs.
pub fn legal_moves(pos: &Chess) -> Vec<LegalMove> {
    let occupied = pos.board().occupied();
    let sq = Bitboard::from;
    pos.legal_moves()
        .into_iter()
        .map(|mv| {
            // Occupancy after the move, by bit arithmetic rather than by
            // playing it on a copy of the position: this runs for every
            // legal move after every move.
            let (after, lifted) = match mv {
                Move::Normal { from, to, capture, .. } => {
                    let lifted = if capture.is_some() { sq(from) | sq(to) } else { sq(from) };
                    ((occupied & !sq(from)) | sq(to), lifted)
                }
                Move::EnPassant { from, to } => {
                    let taken = Square::from_coords(to.file(), from.rank());
                    ((occupied & !sq(from) & !sq(taken)) | sq(to), sq(from) | sq(taken))
                }
                Move::Castle { king, rook } => {
                    let side = CastlingSide::from_king_side(king < rook);
                    let rank = king.rank();
                    let (king_to, rook_to) = (
                        Square::from_coords(side.king_to_file(), rank),
                        Square::from_coords(side.rook_to_file(), rank),
                    );
                    let mut lifted = Bitboard::EMPTY;
                    if king != king_to {
                        lifted.add(king);
                    }
                    if rook != rook_to {
                        lifted.add(rook);
                    }
                    ((occupied & !sq(king) & !sq(rook)) | sq(king_to) | sq(rook_to), lifted)
                }
                Move::Put { to, .. } => (occupied | sq(to), sq(to)),
            };
            LegalMove { mv, after, lifted }
        })
        .collect()
}

/// A legal move of `pos`, the `ply`-th of the game, described for a voice or
/// a record.
pub fn describe(pos: &Chess, mode: CastlingMode, ply: u32, mv: Move) -> MoveInfo {
    let side = pos.turn();
    let san = san_plus(pos, mv);
    let (from, to) = match mv {
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
        Move::Castle { king, rook } => {
            let cs = CastlingSide::from_king_side(king < rook);
            (king, Square::from_coords(cs.king_to_file(), king.rank()))
        }
        Move::Put { to, .. } => (to, to),
    };
    let capture = mv.capture().map(|role| Piece { color: !side, role });
    MoveInfo {
        ply,
        side,
        san: san.to_string(),
        uci: UciMove::from_move(mv, mode).to_string(),
        piece: Piece { color: side, role: mv.role() },
        from,
        to,
        capture,
        promotion: mv.promotion(),
        castle: mv.castling_side().map(|cs| if cs.is_king_side() { CastleSide::King } else { CastleSide::Queen }),
        en_passant: mv.is_en_passant(),
        check: san.suffix.is_some(),
        mate: matches!(san.suffix, Some(Suffix::Checkmate)),
    }
}

/// The SAN of a legal move with its suffix. `SanPlus::from_move` works out
/// every legal reply to tell mate from stalemate; the replies only matter
/// after a check, and this runs for every move announced and completed.
fn san_plus(pos: &Chess, mv: Move) -> SanPlus {
    let san = San::from_move(pos, mv);
    let mut after = pos.clone();
    after.play_unchecked(mv);
    let suffix =
        after.is_check().then(|| if after.legal_moves().is_empty() { Suffix::Checkmate } else { Suffix::Check });
    SanPlus { san, suffix }
}
