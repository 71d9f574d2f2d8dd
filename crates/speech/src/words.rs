//! Words for events: one phrase per event, in a language and a style.
//!
//! Moves are said as the game record writes them ("knight b d2", "e takes d5",
//! "short castling, check"), and lower-case, like the examples;
//! rulings and readouts are sentences. Rule explanations use the language's
//! own words ("the king would be in check"); the pieces and squares the
//! player must handle use the style ("put the Springer back on Gustav eins").

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::{CastlingSide, Color, File, Piece, Rank, Role, Square};
use tactus_core::{Attempt, ClaimKind, EndReason, Event, EventKind, Fix, Irregularity, MoveInfo, Placed, Reason};

use crate::lang::{Case, Lexicon, fill, lexicon};
use crate::{Lang, Style};

/// How a position is read out on request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Readout {
    /// White's pieces then Black's, king first: "White: king g1; rooks a1, f1".
    #[default]
    BySide,
    /// Rank 8 down to rank 1, file a to h: "Rank 8: black rook a8, black king e8".
    ByRank,
}

/// The phrase book of one language in one style.
#[derive(Clone, Copy)]
pub struct Words {
    lang: Lang,
    style: Style,
    readout: Readout,
    lex: &'static Lexicon,
}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Words")
            .field("lang", &self.lang)
            .field("style", &self.style)
            .field("readout", &self.readout)
            .finish()
    }
}

const ROLES_BY_RANK: [Role; 6] = [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];

impl Words {
    pub fn new(lang: Lang, style: Style) -> Self {
        Words { lang, style, readout: Readout::default(), lex: lexicon(lang) }
    }

    pub fn with_readout(self, readout: Readout) -> Self {
        Words { readout, ..self }
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    pub fn style(&self) -> Style {
        self.style
    }

    /// The phrase for an event, or `None` for the events that are never said:
    /// `Complete` (the move was said when it was made) and `Displaced` (the
    /// piece is already back). Which of the others are said is up to the
    /// `SpeechPolicy`; see `Announcer`.
    pub fn say(&self, ev: &Event) -> Option<String> {
        let lex = self.lex;
        Some(match &ev.kind {
            EventKind::Start { fen, chess960, white_ms, black_ms, .. } => {
                let mut out = vec![lex.new_game.to_owned()];
                if *chess960 {
                    out.push(fill(lex.chess960, &[("list", &self.first_rank(fen)?)]));
                }
                if let (Some(w), Some(b)) = (white_ms, black_ms) {
                    out.push(format!("{}.", sentence(&self.times(*w, *b))));
                }
                out.join(" ")
            }
            EventKind::Touch { sq, piece, ply, .. } => fill(lex.touch, &[("piece", &self.touched(*piece, *sq, *ply))]),
            EventKind::Move { mv, correction: false } => self.move_text(mv),
            EventKind::Move { mv, correction: true } => fill(lex.correction, &[("move", &self.move_text(mv))]),
            EventKind::Withdrawn { san, .. } => fill(lex.withdrawn, &[("move", &self.san(san))]),
            EventKind::Complete { .. } | EventKind::Displaced { .. } => return None,
            EventKind::Irregularity(irr) => self.irregularity(irr),
            EventKind::Penalty { side, ms, .. } => sentence(&fill(
                lex.penalty,
                &[("side", lex.side(*side)), ("side_gen", lex.side_gen(*side)), ("time", &lex.duration(*ms))],
            )),
            EventKind::GameOver { result, reason, .. } => {
                let mut out = sentence(&fill(lex.game_over, &[("reason", lex.end_reasons[end_index(*reason)])]));
                if let Some(r) = result_index(result) {
                    out = format!("{out} {}", lex.results[r]);
                }
                out
            }
            EventKind::Observation { first, then, .. } => {
                fill(lex.observation, &[("first", &self.san(first)), ("then", &self.san(then))])
            }
            EventKind::Ambiguous { candidates, chosen, .. } => {
                let others: Vec<String> = candidates.iter().filter(|c| *c != chosen).map(|c| self.san(c)).collect();
                let or = format!(" {} ", lex.or);
                fill(lex.ambiguous, &[("chosen", &self.san(chosen)), ("others", &others.join(&or))])
            }
            EventKind::Claimable { claim, side, .. } => {
                let claim = match claim {
                    ClaimKind::Threefold => lex.claims[0],
                    ClaimKind::Fifty => lex.claims[1],
                };
                sentence(&fill(lex.claimable, &[("side", lex.side(*side)), ("claim", claim)]))
            }
            EventKind::BoardMismatch { missing, extra, fix } => self.mismatch(missing, extra, fix),
            EventKind::BoardOk => lex.board_ok.to_owned(),
            EventKind::SensorFault { sq, .. } => fill(lex.sensor_fault, &[("square", &self.square(*sq))]),
            EventKind::SensorOk { sq } => fill(lex.sensor_ok, &[("square", &self.square(*sq))]),
            EventKind::Paused => lex.paused.to_owned(),
            EventKind::Resumed => lex.resumed.to_owned(),
            EventKind::ClockSet { white_ms, black_ms } => {
                fill(lex.clock_set, &[("times", &self.times(*white_ms, *black_ms))])
            }
            EventKind::Time { white_ms, black_ms, black_moves, running, .. } => {
                let n = (black_moves + 1).to_string();
                let mut out = fill(lex.time_readout, &[("times", &self.times(*white_ms, *black_ms)), ("n", &n)]);
                if let Some(side) = running {
                    out = format!("{out}, {}", self.side_to_play(*side));
                }
                sentence(&format!("{out}."))
            }
            EventKind::Position { fen } => self.position(fen)?,
            EventKind::LastMove { mv } => fill(
                lex.last_move,
                &[("side", lex.side(mv.side)), ("side_gen", lex.side_gen(mv.side)), ("move", &self.move_text(mv))],
            ),
            EventKind::TimeWarning { side, remaining_ms } => self.time_warning(*side, *remaining_ms),
        })
    }

    /// "White: 5 minutes left."
    pub fn time_warning(&self, side: Color, remaining_ms: i64) -> String {
        let lex = self.lex;
        sentence(&fill(
            lex.time_warning,
            &[("side", lex.side(side)), ("side_gen", lex.side_gen(side)), ("time", &lex.duration(remaining_ms))],
        ))
    }

    /// A move given as SAN ("Nbd2", "O-O+"); text that is not SAN is returned
    /// as it is.
    pub fn san(&self, san: &str) -> String {
        match SanPlus::from_ascii(san.as_bytes()) {
            Ok(sp) => self.san_words(&sp.san, sp.suffix, false),
            Err(_) => san.to_owned(),
        }
    }

    fn move_text(&self, mv: &MoveInfo) -> String {
        let suffix = if mv.mate {
            Some(Suffix::Checkmate)
        } else if mv.check {
            Some(Suffix::Check)
        } else {
            None
        };
        match SanPlus::from_ascii(mv.san.as_bytes()) {
            Ok(sp) => self.san_words(&sp.san, suffix, mv.en_passant),
            // No SAN (a malformed record): say piece, from, to.
            Err(_) => with_suffix(
                self.lex,
                format!("{} {} {}", self.piece(mv.piece.role, Case::Nom), self.square(mv.from), self.square(mv.to)),
                suffix,
            ),
        }
    }

    fn san_words(&self, san: &San, suffix: Option<Suffix>, en_passant: bool) -> String {
        let lex = self.lex;
        let body = match *san {
            San::Normal { role, file, rank, capture, to, promotion } => {
                let mut parts = Vec::new();
                // Pawns go unnamed, as in SAN, except a promoting pawn with
                // no file letter to lead the phrase: "pawn e8, …".
                if role != Role::Pawn || (promotion.is_some() && !capture) {
                    parts.push(self.piece(role, Case::Nom).to_owned());
                }
                parts.extend(file.map(|f| self.file(f)));
                parts.extend(rank.map(|r| self.rank(r)));
                if capture {
                    parts.push(lex.takes.to_owned());
                }
                parts.push(self.square(to));
                if en_passant {
                    parts.push(lex.en_passant.to_owned());
                }
                let said = parts.join(" ");
                match promotion {
                    Some(p) => fill(
                        lex.promotion,
                        &[
                            ("move", &said),
                            ("piece", self.piece(p, Case::Nom)),
                            ("piece_acc", self.piece(p, Case::Acc)),
                        ],
                    ),
                    None => said,
                }
            }
            San::Castle(side) => {
                let names = if self.style == Style::AnnexD { &lex.annex_castles } else { &lex.castles };
                names[usize::from(side == CastlingSide::QueenSide)].to_owned()
            }
            San::Put { role, to } => format!("{} {}", self.piece(role, Case::Nom), self.square(to)),
            San::Null => "--".to_owned(),
        };
        with_suffix(lex, body, suffix)
    }

    fn piece(&self, role: Role, case: Case) -> &'static str {
        self.names().get(role, case)
    }

    fn names(&self) -> &'static crate::lang::Names {
        if self.style == Style::AnnexD { &self.lex.annex_pieces } else { &self.lex.pieces }
    }

    /// "black knight", "чёрную ладью".
    fn coloured(&self, piece: Piece, case: Case) -> String {
        let gender = self.names().gender[piece.role as usize - 1];
        format!("{} {}", self.lex.adjective(piece.color, case, gender), self.piece(piece.role, case))
    }

    fn file(&self, f: File) -> String {
        match self.style {
            Style::Natural | Style::Literate => f.char().to_string(),
            Style::Nato => self.lex.nato_files[f as usize].to_owned(),
            Style::AnnexD => self.lex.annex_files[f as usize].to_owned(),
        }
    }

    fn rank(&self, r: Rank) -> String {
        match self.style {
            Style::Natural | Style::Nato => r.char().to_string(),
            Style::Literate => self.lex.rank_words[r as usize].to_owned(),
            Style::AnnexD => self.lex.annex_ranks[r as usize].to_owned(),
        }
    }

    fn square(&self, sq: Square) -> String {
        match self.style {
            Style::Natural => sq.to_string(),
            _ => format!("{} {}", self.file(sq.file()), self.rank(sq.rank())),
        }
    }

    /// A touched piece: the mover's own piece plainly, the opponent's with
    /// its colour, since touching it means it must be captured (4.3.2).
    fn touched(&self, piece: Piece, sq: Square, ply: u32) -> String {
        // Ply 1 is White's first move (the event contract).
        let mover = if ply % 2 == 1 { Color::White } else { Color::Black };
        if piece.color == mover {
            format!("{} {}", self.piece(piece.role, Case::Nom), self.square(sq))
        } else {
            format!("{} {}", self.coloured(piece, Case::Nom), self.square(sq))
        }
    }

    fn irregularity(&self, irr: &Irregularity) -> String {
        let lex = self.lex;
        let reason = match (irr.reason, irr.attempt, irr.touched) {
            (Reason::LeavesKingInCheck, ..) => lex.king_in_check.to_owned(),
            (Reason::NotAMoveOfThatPiece, Some(Attempt { piece, from, to }), _) => fill(
                lex.cannot_move,
                &[("piece", self.piece(piece.role, Case::Nom)), ("from", &self.square(from)), ("to", &self.square(to))],
            ),
            (Reason::NotAMoveOfThatPiece, None, _) => lex.cannot_move_generic.to_owned(),
            (Reason::CastlingNotAllowed, ..) => lex.castling_not_allowed.to_owned(),
            (Reason::Unrecognised, ..) => lex.unrecognised.to_owned(),
            (Reason::NoMove, ..) => lex.no_move.to_owned(),
            (Reason::TouchMove, _, Some(Placed { sq, piece })) => {
                let template = if piece.color == irr.side { lex.touch_move } else { lex.touch_capture };
                fill(
                    template,
                    &[
                        ("piece", self.piece(piece.role, Case::Nom)),
                        ("piece_acc", self.piece(piece.role, Case::Acc)),
                        ("sq", &self.square(sq)),
                    ],
                )
            }
            (Reason::TouchMove, _, None) => lex.touch_generic.to_owned(),
            (Reason::RookFirst, ..) => lex.rook_first.to_owned(),
            (Reason::Displaced, ..) => lex.displaced.to_owned(),
        };
        match self.fixes(&irr.fix) {
            Some(fixes) => format!("{reason} {fixes}"),
            None => reason,
        }
    }

    /// The steps that put the board right, as one sentence.
    fn fixes(&self, fix: &[Fix]) -> Option<String> {
        let steps: Vec<String> = fix.iter().filter_map(|f| self.fix(f)).collect();
        (!steps.is_empty()).then(|| sentence(&format!("{}.", steps.join("; "))))
    }

    fn fix(&self, f: &Fix) -> Option<String> {
        let lex = self.lex;
        let named = |case: Case| match f.piece {
            Some(p) => self.piece(p.role, case).to_owned(),
            None => lex.generic[usize::from(case == Case::Acc)].to_owned(),
        };
        let (from, to) = (f.from.map(|s| self.square(s)), f.to.map(|s| self.square(s)));
        Some(match (from, to) {
            (Some(from), Some(to)) => fill(
                lex.fix_move,
                &[("piece", &named(Case::Nom)), ("piece_acc", &named(Case::Acc)), ("from", &from), ("to", &to)],
            ),
            // A piece to put back may be either side's: say its colour.
            (None, Some(to)) => {
                let (nom, acc) = match f.piece {
                    Some(p) => (self.coloured(p, Case::Nom), self.coloured(p, Case::Acc)),
                    None => (named(Case::Nom), named(Case::Acc)),
                };
                fill(lex.fix_put, &[("piece", &nom), ("piece_acc", &acc), ("to", &to)])
            }
            (Some(from), None) => {
                fill(lex.fix_remove, &[("piece", &named(Case::Nom)), ("piece_acc", &named(Case::Acc)), ("from", &from)])
            }
            (None, None) => return None,
        })
    }

    fn mismatch(&self, missing: &[Placed], extra: &[Square], fix: &[Fix]) -> String {
        let lex = self.lex;
        let mut out = vec![lex.board_differs.to_owned()];
        match self.fixes(fix) {
            Some(fixes) => out.push(fixes),
            None => {
                if !missing.is_empty() {
                    let list: Vec<String> = missing
                        .iter()
                        .map(|p| format!("{} {}", self.coloured(p.piece, Case::Nom), self.square(p.sq)))
                        .collect();
                    out.push(fill(lex.missing, &[("list", &list.join(", "))]));
                }
                if !extra.is_empty() {
                    let list: Vec<String> = extra.iter().map(|s| self.square(*s)).collect();
                    out.push(fill(lex.extra, &[("list", &list.join(", "))]));
                }
            }
        }
        out.join(" ")
    }

    /// "White 1 hour 23 minutes, Black 45 minutes 10 seconds".
    fn times(&self, white_ms: i64, black_ms: i64) -> String {
        let lex = self.lex;
        let one = |side: Color, ms: i64| {
            fill(
                lex.side_time,
                &[("side", lex.side(side)), ("side_gen", lex.side_gen(side)), ("time", &lex.duration(ms))],
            )
        };
        format!("{}, {}", one(Color::White, white_ms), one(Color::Black, black_ms))
    }

    fn side_to_play(&self, side: Color) -> String {
        fill(self.lex.to_play, &[("side", self.lex.side(side)), ("side_gen", self.lex.side_gen(side))])
    }

    fn position(&self, fen: &str) -> Option<String> {
        let setup = Fen::from_ascii(fen.as_bytes()).ok()?.into_setup();
        let board = &setup.board;
        let lex = self.lex;
        let mut out = Vec::new();
        match self.readout {
            Readout::BySide => {
                for color in Color::ALL {
                    let groups: Vec<String> = ROLES_BY_RANK
                        .iter()
                        .filter_map(|&role| {
                            let squares = board.by_piece(Piece { color, role });
                            let name = match squares.count() {
                                0 => return None,
                                1 => self.piece(role, Case::Nom),
                                _ => self.names().plural[role as usize - 1],
                            };
                            let list: Vec<String> = squares.into_iter().map(|s| self.square(s)).collect();
                            Some(format!("{name} {}", list.join(", ")))
                        })
                        .collect();
                    let list = if groups.is_empty() { lex.empty.to_owned() } else { groups.join("; ") };
                    out.push(sentence(&fill(lex.side_pieces, &[("side", lex.side(color)), ("list", &list)])));
                }
            }
            Readout::ByRank => {
                for &rank in Rank::ALL.iter().rev() {
                    let pieces: Vec<String> = File::ALL
                        .iter()
                        .filter_map(|&file| {
                            let sq = Square::from_coords(file, rank);
                            board.piece_at(sq).map(|p| format!("{} {}", self.coloured(p, Case::Nom), self.square(sq)))
                        })
                        .collect();
                    let list = if pieces.is_empty() { lex.empty.to_owned() } else { pieces.join(", ") };
                    out.push(fill(lex.rank_pieces, &[("rank", &self.rank(rank)), ("list", &list)]));
                }
            }
        }
        out.push(sentence(&format!("{}.", self.side_to_play(setup.turn))));
        Some(out.join(" "))
    }

    /// White's first rank, a to h, for a Chess960 start.
    fn first_rank(&self, fen: &str) -> Option<String> {
        let board = Fen::from_ascii(fen.as_bytes()).ok()?.into_setup().board;
        let names: Vec<&str> = File::ALL
            .iter()
            .filter_map(|&f| board.piece_at(Square::from_coords(f, Rank::First)))
            .map(|p| self.piece(p.role, Case::Nom))
            .collect();
        Some(names.join(", "))
    }
}

fn with_suffix(lex: &Lexicon, body: String, suffix: Option<Suffix>) -> String {
    match suffix {
        Some(Suffix::Check) => format!("{body}, {}", lex.check),
        Some(Suffix::Checkmate) => format!("{body}, {}", lex.mate),
        None => body,
    }
}

/// Upper-cases the first letter: templates that open with a side name
/// ("белые могут…") start a sentence.
fn sentence(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The index into `Lexicon::end_reasons`.
fn end_index(reason: EndReason) -> usize {
    match reason {
        EndReason::Checkmate => 0,
        EndReason::Stalemate => 1,
        EndReason::InsufficientMaterial => 2,
        EndReason::FivefoldRepetition => 3,
        EndReason::SeventyFiveMoves => 4,
        EndReason::ThreefoldRepetition => 5,
        EndReason::FiftyMoves => 6,
        EndReason::FlagFall => 7,
        EndReason::IllegalMoves => 8,
        EndReason::Resignation => 9,
        EndReason::Agreement => 10,
        EndReason::Arbiter => 11,
    }
}

/// White wins, Black wins, draw; `None` for an unfinished result ("*").
fn result_index(result: &str) -> Option<usize> {
    match result.trim() {
        "1-0" => Some(0),
        "0-1" => Some(1),
        "1/2-1/2" | "½-½" => Some(2),
        _ => None,
    }
}
