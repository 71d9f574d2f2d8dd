//! Words for events: the phrase for an event, in a language and a style, in
//! short chunks a new move or question can cut off between.
//!
//! Moves are said as the game record writes them ("knight b d2", "e takes d5",
//! "short castling, check"), and lower-case, like the examples;
//! rulings and readouts are sentences. A ruling names who committed it and
//! what happens next ("Black: illegal move — the king would be in check. Put
//! the knight back on c3; Black moves again."). Rule explanations use the
//! language's own words; the pieces and squares the player must handle use
//! the style ("put the Springer back on Gustav eins"). With a listener, a
//! side is "you" or "your opponent" and the listener's time comes first.

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::{Bitboard, CastlingSide, Color, File, Piece, Rank, Role, Square};
use tactus_core::pgn::{Commentary, MateVerdict, Settled};
use tactus_core::{
    Article, ClaimKind, Device, EndReason, Event, EventKind, Fix, GameResult, Irregularity, Lost, MoveInfo, NotNow,
    OnBoard, Online, Pair, Placed, Reason, Restarted, ServerEnd, Slip, ToControl,
};

use crate::lang::{Case, Lexicon, Persons, fill, gender_index, lexicon, side_index};
use crate::scene::Scene;
use crate::{Lang, Style};

/// How a position is read out on request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Readout {
    /// Piece by piece, each side's army king first: "White: king g1.",
    /// "Rooks a1, f1.", …
    #[default]
    BySide,
    /// Rank 8 down to rank 1, file a to h: "Rank 8: black rook a8, black king e8."
    ByRank,
}

/// Who makes the moves the board guides onto it (`opponent_move`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Opponent {
    /// A UCI engine: "Engine: knight g8 to f6."
    #[default]
    Engine,
    /// The player on the partner board of one game on two boards:
    /// "Opponent: knight g8 to f6."
    Partner,
    /// A player on an online server (Lichess), said by name once the
    /// server names them: "Magnus plays knight g8 to f6."
    Online,
}

/// The phrase book of one language in one style.
#[derive(Clone, Copy)]
pub struct Words {
    lang: Lang,
    style: Style,
    readout: Readout,
    opponent: Opponent,
    lex: &'static Lexicon,
}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Words")
            .field("lang", &self.lang)
            .field("style", &self.style)
            .field("readout", &self.readout)
            .field("opponent", &self.opponent)
            .finish()
    }
}

/// King first: the order a player takes stock of an army in.
const ROLES: [Role; 6] = [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];

impl Words {
    pub fn new(lang: Lang, style: Style) -> Self {
        Words { lang, style, readout: Readout::default(), opponent: Opponent::default(), lex: lexicon(lang) }
    }

    pub fn with_readout(self, readout: Readout) -> Self {
        Words { readout, ..self }
    }

    pub fn with_opponent(self, opponent: Opponent) -> Self {
        Words { opponent, ..self }
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    pub fn style(&self) -> Style {
        self.style
    }

    /// A device lost, and why, from its code: the device's own report
    /// (`diagnostic`) is never part of it.
    fn device_lost(&self, device: Device, why: Lost) -> String {
        let lex = self.lex;
        let cause = match why {
            Lost::Ended => return lex.device_ended[device_index(device)].to_owned(),
            Lost::NoStart => 0,
            Lost::Exited => 1,
            Lost::NoAnswer => 2,
            Lost::Faulty => 3,
            Lost::Io => 4,
            Lost::Unplugged => 5,
            Lost::Connection => 6,
        };
        format!("{} {}", lex.device_lost[device_index(device)], lex.lost_cause[cause])
    }

    /// The terminal's status line: both clocks (ms left), the move number,
    /// and who is to move (`None`: the clocks are stopped).
    pub fn status_line(&self, white_ms: i64, black_ms: i64, fullmove: u32, to_move: Option<Color>) -> String {
        let status = &self.lex.status;
        let state = to_move.map_or(status.stopped, |side| status.to_move[side_index(side)]);
        fill(
            status.line,
            &[
                ("white", &tactus_core::pgn::clock_text(white_ms)),
                ("black", &tactus_core::pgn::clock_text(black_ms)),
                ("move", &fullmove.to_string()),
                ("state", state),
            ],
        )
    }

    pub fn readout(&self) -> Readout {
        self.readout
    }

    /// The phrase for one event on its own, as if nothing came before it and
    /// nobody in particular listened; `None` for the events that are never
    /// said. An [`Announcer`](crate::Announcer) phrases events in the
    /// context of the game (who stood, whose flag, "you").
    pub fn say(&self, ev: &Event) -> Option<String> {
        let chunks = self.phrase(ev, &Scene::new(None));
        (!chunks.is_empty()).then(|| chunks.join(" "))
    }

    /// Every word the style says for files, ranks, pieces (each case and the
    /// plurals) and castlings, as written: what the voice must say right.
    pub fn vocabulary(&self) -> Vec<String> {
        let mut out: Vec<String> = File::ALL.iter().map(|&f| self.file(f)).collect();
        out.extend(Rank::ALL.iter().map(|&r| self.rank(r)));
        let names = self.names();
        for forms in [&names.nom, &names.acc, &names.genitive, &names.plural, &names.none] {
            out.extend(forms.iter().map(|w| (*w).to_owned()));
        }
        let castles = if self.style == Style::AnnexD { &self.lex.annex_castles } else { &self.lex.castles };
        out.extend(castles.iter().map(|c| (*c).to_owned()));
        let mut seen = std::collections::HashSet::new();
        out.retain(|w| seen.insert(w.clone()));
        out
    }

    /// The phrase for an event in the context of the game, in chunks; empty
    /// for the events that are never said: `Complete` (the move was said
    /// when it was made; a new period is said with it) and `Displaced` (the
    /// piece is already back). Which of the others are said is up to the
    /// `SpeechPolicy`; see `Announcer`.
    pub(crate) fn phrase(&self, ev: &Event, scene: &Scene) -> Vec<String> {
        let lex = self.lex;
        let one = |s: String| vec![s];
        match &ev.kind {
            // The names last: nothing in them is taken for a blank.
            EventKind::Pairing(p) => one(fill(
                lex.pairing,
                &[
                    ("board", &p.board.to_string()),
                    ("round", &p.round.to_string()),
                    ("white", &p.white.name),
                    ("black", &p.black.name),
                ],
            )),
            EventKind::Start { fen, chess960, white_ms, black_ms, .. } => {
                let mut out = vec![lex.new_game.to_owned()];
                if let Some(listener) = scene.listener {
                    out.push(lex.you_play[side_index(listener)].to_owned());
                }
                if *chess960 && let Some(list) = self.first_rank(fen) {
                    out.push(fill(lex.chess960, &[("list", &list)]));
                }
                if let (Some(w), Some(b)) = (white_ms, black_ms) {
                    out.push(format!("{}.", sentence(&self.times(*w, *b, scene))));
                }
                let mut chunks = vec![out.join(" ")];
                // A position set up on the board is described: the players
                // cannot take it for granted.
                if !*chess960 && !is_standard_start(fen) {
                    chunks.extend(self.position(fen, scene));
                }
                chunks
            }
            EventKind::Touch { sq, piece, ply, .. } => {
                one(fill(lex.touch, &[("piece", &self.touched(*piece, *sq, *ply, scene))]))
            }
            EventKind::Move { mv, correction } => {
                // A castling begun with the rook was announced as a rook
                // move first: the castling completes it, it corrects nothing.
                let rook_first = scene
                    .announced
                    .as_ref()
                    .is_some_and(|a| a.ply == mv.ply && a.piece.role == Role::Rook && mv.castle.is_some());
                if *correction && !rook_first {
                    one(fill(lex.correction, &[("move", &self.move_text(mv))]))
                } else {
                    one(self.move_text(mv))
                }
            }
            EventKind::Withdrawn { san, .. } => one(fill(lex.withdrawn, &[("move", &self.san(san))])),
            EventKind::Complete { side, .. } => self.period_added(*side, scene).into_iter().collect(),
            EventKind::Displaced { .. } => vec![],
            EventKind::Irregularity(irr) => one(self.irregularity(irr, scene)),
            EventKind::Penalty { article, side, ms } => one(self.penalty(*article, *side, *ms, scene)),
            EventKind::GameOver { result, reason, .. } => {
                one(format!("{} {}", lex.game_over, self.ending(*result, *reason, scene)))
            }
            EventKind::Observation { first, then, .. } => {
                one(fill(lex.observation, &[("first", &self.san(first)), ("then", &self.san(then))]))
            }
            EventKind::Ambiguous { candidates, chosen, .. } => {
                let others: Vec<String> = candidates.iter().filter(|c| *c != chosen).map(|c| self.san(c)).collect();
                let or = format!(" {} ", lex.or);
                one(fill(lex.ambiguous, &[("chosen", &self.san(chosen)), ("others", &others.join(&or))]))
            }
            EventKind::Claimable { claim, side, .. } => {
                one(self.said(&lex.claimable, *side, scene, &[("claim", lex.claims[claim_index(*claim)])]))
            }
            EventKind::BoardMismatch { missing, extra, fix } => one(self.mismatch(missing, extra, fix, scene)),
            EventKind::BoardOk => one(lex.board_ok.to_owned()),
            EventKind::SensorFault { sq, .. } => one(fill(lex.sensor_fault, &[("square", &self.square(*sq))])),
            EventKind::SensorOk { sq } => one(fill(lex.sensor_ok, &[("square", &self.square(*sq))])),
            EventKind::Paused => one(lex.paused.to_owned()),
            EventKind::Resumed => one(lex.resumed.to_owned()),
            EventKind::ClockSet { white_ms, black_ms } => {
                one(fill(lex.clock_set, &[("times", &self.times(*white_ms, *black_ms, scene))]))
            }
            EventKind::Time { white_ms, black_ms, black_moves, running, .. } => {
                let n = (black_moves + 1).to_string();
                let mut out = fill(lex.time_readout, &[("times", &self.times(*white_ms, *black_ms, scene)), ("n", &n)]);
                if let Some(side) = running {
                    out = format!("{out}, {}", self.person(&lex.to_play, *side, scene, &[]));
                } else if scene.clocks_stopped {
                    out = format!("{out}; {}", lex.time_stopped);
                }
                one(sentence(&format!("{out}.")))
            }
            EventKind::Position { fen, pending: None } => self.position(fen, scene),
            // The move still to be carried out first: the position read out
            // is the one before it, and nobody is to play until it stands.
            EventKind::Position { fen, pending: Some(mv) } => {
                let mut chunks = vec![self.pending(mv, scene)];
                chunks.extend(self.position(fen, scene));
                chunks.pop();
                chunks
            }
            EventKind::LastMove { mv } => {
                one(self.said(&lex.last_move, mv.side, scene, &[("move", &self.long_move(mv))]))
            }
            EventKind::TimeWarning { side, remaining_ms } => {
                one(self.said(&lex.time_warning, *side, scene, &[("time", &lex.duration(*remaining_ms))]))
            }
            EventKind::Pieces { side, role: Some(role), pieces, board } => {
                let said = self.kind(*side, *role, pieces, scene);
                one(match board {
                    Some(squares) if squares.is_empty() => format!("{said} {}", lex.kind_on_board[1]),
                    Some(squares) => {
                        let list = self.squares_in_runs(squares);
                        format!("{said} {}", fill(lex.kind_on_board[0], &[("list", &list)]))
                    }
                    None => said,
                })
            }
            EventKind::Pieces { side, role: None, pieces, .. } => self.army(*side, pieces, scene),
            EventKind::OnRank { rank, pieces } => self.line(Line::Rank(*rank), pieces, scene),
            EventKind::OnFile { file, pieces } => self.line(Line::File(*file), pieces, scene),
            EventKind::OnSquare { sq, piece, board, pending } => {
                let said = self.on_square(*sq, *piece, *board, scene);
                one(match pending {
                    Some(mv) => format!("{said} {}", self.pending(mv, scene)),
                    None => said,
                })
            }
            EventKind::MovesToControl { white, black } => one(self.moves_to_control(*white, *black, scene)),
            EventKind::OpponentMove { mv, steps, left, website: true, .. } => {
                one(self.website_move(mv, steps, left.as_deref()))
            }
            EventKind::OpponentMove { mv, steps, left, .. } => {
                let name = scene.online.as_ref().map(|(name, ai)| self.online_name(name, *ai));
                one(self.opponent_move(mv, steps, left.as_deref(), name.as_deref()))
            }
            EventKind::OpponentFix { slip, fix, .. } => one(self.slip(slip, fix, scene)),
            EventKind::Hint { mv } => one(fill(lex.hint, &[("move", &self.long_move(mv))])),
            EventKind::EngineLevel { level } => one(fill(lex.engine_level, &[("level", &level.to_string())])),
            EventKind::DeviceLost { device, why, .. } => one(self.device_lost(*device, *why)),
            EventKind::DeviceBack { device } => one(lex.device_back[device_index(*device)].to_owned()),
            EventKind::Online(online) => self.online(online),
            EventKind::Pair(pair) => one(self.pair(pair, scene)),
            EventKind::DrawOffer { side, irregular: false } => one(self.said(&lex.draw_offer, *side, scene, &[])),
            EventKind::DrawOffer { side, irregular: true } => {
                one(self.said(&lex.draw_offer_irregular, *side, scene, &[]))
            }
            EventKind::DrawDeclined { side } => one(self.said(&lex.draw_declined, *side, scene, &[])),
            EventKind::TakeBackAsked { .. } => one(lex.online.take_back_asked.to_owned()),
            EventKind::TakeBack { taken, white_ms, black_ms, .. } => {
                let moves: Vec<String> = taken.iter().map(|san| self.san(san)).collect();
                let template = lex.take_back[usize::from(taken.len() > 1)];
                let mut said = fill(template, &[("moves", &moves.join(", "))]);
                if let (Some(w), Some(b)) = (white_ms, black_ms) {
                    said = format!("{said} {}.", sentence(&self.times(*w, *b, scene)));
                }
                one(said)
            }
            EventKind::PromotionChoice { role } => {
                let blanks = self.piece_blanks(role.of(Color::White), false, None);
                one(fill(lex.promotion_choice, &pairs(&blanks)))
            }
            // What waits on a player far away is theirs, not an engine's.
            EventKind::NotNow { why: why @ (NotNow::CarryOutFirst | NotNow::EngineThinking) }
                if self.opponent_in(scene) != Opponent::Engine =>
            {
                one(lex.not_now_opponent[usize::from(*why == NotNow::EngineThinking)].to_owned())
            }
            EventKind::NotNow { why } => one(lex.not_now[not_now_index(*why)].to_owned()),
            EventKind::NotUnderstood { typed } => one(fill(lex.not_understood, &[("typed", typed)])),
        }
    }

    /// What the partner board's link says besides the game's messages.
    fn pair(&self, pair: &Pair, scene: &Scene) -> String {
        let lex = &self.lex.pair;
        let tc = |tc: &Option<String>| tc.clone().unwrap_or_else(|| lex.no_clock.to_owned());
        match pair {
            Pair::SameSide { partner, side } => {
                fill(lex.same_side, &[("partner", partner), ("side", lex.sides[usize::from(*side == Color::Black)])])
            }
            Pair::TimeControl { partner, ours, theirs } => {
                fill(lex.time_control, &[("partner", partner), ("ours", &tc(ours)), ("theirs", &tc(theirs))])
            }
            Pair::TableClock { partner, .. } => fill(lex.table_clock, &[("partner", partner)]),
            Pair::OtherGame { partner } => fill(lex.other_game, &[("partner", partner)]),
            Pair::Twin { board } => fill(lex.twin, &[("board", board)]),
            Pair::Agreed { partner } => fill(lex.agreed, &[("partner", partner)]),
            Pair::GoesOn { to_move, carrying, clocks } => {
                let how = if *carrying { &lex.goes_on_carrying } else { &lex.goes_on };
                let said = self.said(how, *to_move, scene, &[]);
                match clocks {
                    Some(clocks) => {
                        let i = match clocks {
                            Restarted::Run => 0,
                            Restarted::Stopped => 1,
                            Restarted::AtTable => 2,
                        };
                        format!("{said} {}", lex.clocks[i])
                    }
                    None => said,
                }
            }
        }
    }

    /// What the online game's server says besides the moves. The player's
    /// own offers and requests are said when made, not again here.
    fn online(&self, online: &Online) -> Vec<String> {
        let lex = &self.lex.online;
        let one = |s: String| vec![s];
        match online {
            Online::Playing { opponent, ai_level, side, .. } => {
                let side = lex.sides[usize::from(*side == Color::Black)];
                one(fill(lex.playing, &[("name", &self.online_name(opponent, *ai_level)), ("side", side)]))
            }
            Online::Challenge { player, incoming, clock, .. } => {
                let clock = clock.as_deref().unwrap_or(lex.correspondence);
                one(fill(lex.challenge[usize::from(!incoming)], &[("name", player), ("clock", clock)]))
            }
            Online::ChallengeGone { declined, .. } => one(lex.challenge_gone[usize::from(*declined)].to_owned()),
            Online::TakebackOffer { open } => one(lex.takeback_offer[usize::from(!open)].to_owned()),
            Online::TakenBack { .. } => one(lex.taken_back.to_owned()),
            Online::TakebackDeclined => one(lex.takeback_declined.to_owned()),
            // The text last: nothing in it is taken for a blank.
            Online::Chat { from, text } => one(fill(lex.chat, &[("name", from), ("text", text)])),
            Online::Refused { san, .. } => one(fill(lex.refused, &[("move", &self.san(san))])),
            Online::OpponentGone { gone: false, .. } => one(lex.opponent_gone[2].to_owned()),
            Online::OpponentGone { gone: true, claim_in_s } => {
                one(lex.opponent_gone[usize::from(*claim_in_s == Some(0))].to_owned())
            }
            Online::Ended { status } => {
                let i = match status {
                    ServerEnd::Aborted => 0,
                    ServerEnd::OpponentLeft => 1,
                    ServerEnd::FlagFall => 2,
                    ServerEnd::NoStart => 3,
                    ServerEnd::Other => 4,
                };
                one(fill(lex.ended, &[("status", lex.statuses[i])]))
            }
            Online::RateLimited { for_s } => one(fill(lex.rate_limited, &[("seconds", &for_s.to_string())])),
            Online::NotPlayed { reason, .. } => one(lex.not_played_why[*reason as usize].to_owned()),
            Online::Failed { why } => one(lex.failed_why[*why as usize].to_owned()),
            Online::ChatHeld { count } => {
                let count = self.lex.count(u64::from(*count), &lex.chat_lines);
                one(fill(lex.chat_held, &[("count", &count)]))
            }
            Online::ChatLines { lines } if lines.is_empty() => one(lex.no_chat.to_owned()),
            // One chunk a line: a move cuts in between.
            Online::ChatLines { lines } => {
                lines.iter().map(|l| fill(lex.chat, &[("name", &l.from), ("text", &l.text)])).collect()
            }
            Online::Token { state } => one(lex.token[*state as usize].to_owned()),
            Online::Asked { ask, standing } => {
                use tactus_core::OnlineAsk as Ask;
                let said = match (ask, standing) {
                    (Ask::Abort, true) => lex.asked[0],
                    (Ask::TakebackNo, true) => lex.asked[1],
                    (Ask::TakebackYes, true) => lex.asked[2],
                    (Ask::Accept, true) => lex.asked[3],
                    (Ask::Decline, true) => lex.asked[4],
                    (Ask::ClaimVictory, true) => lex.asked[5],
                    (Ask::Abort | Ask::ClaimVictory, false) => lex.nothing_to_answer[0],
                    (Ask::DrawNo, _) => lex.nothing_to_answer[1],
                    (Ask::TakebackNo | Ask::TakebackYes, false) => lex.nothing_to_answer[2],
                    (Ask::Accept | Ask::Decline, false) => lex.nothing_to_answer[3],
                    (Ask::Chat, _) => lex.no_chat,
                };
                one(said.to_owned())
            }
        }
    }

    /// The online opponent's name as said: Lichess's AI in the player's
    /// language, a player by their name.
    fn online_name(&self, name: &str, ai_level: Option<u8>) -> String {
        match ai_level {
            Some(level) => fill(self.lex.online.ai_name, &[("level", &level.to_string())]),
            None => name.to_owned(),
        }
    }

    /// The player's own move made on the website, as the opponent's is said
    /// but as theirs: "Played for you on the website: bishop f1 to b5."
    fn website_move(&self, mv: &MoveInfo, steps: &[Fix], left: Option<&[Fix]>) -> String {
        let said = fill(self.lex.online.website_move, &[("move", &self.long_move(mv))]);
        self.with_steps(said, mv, steps, left)
    }

    /// "Engine: knight g8 to f6." — the move from square to square, each
    /// square said once. Its steps only where they are not the usual ones
    /// (castling in Chess960); asked for again mid-move, the steps left.
    fn opponent_move(&self, mv: &MoveInfo, steps: &[Fix], left: Option<&[Fix]>, online: Option<&str>) -> String {
        let lex = self.lex;
        let said = match online {
            // "Magnus castles short", not "plays short castling"; Annex D
            // names castling by its own words, as any move.
            Some(name) if mv.castle.is_some() && self.style != Style::AnnexD => {
                let side = usize::from(mv.castle == Some(tactus_core::CastleSide::Queen));
                let body = fill(lex.online.castles[side], &[("name", name)]);
                format!("{}.", with_suffix(lex, body, suffix_of(mv)))
            }
            Some(name) => fill(lex.online.opponent_move, &[("name", name), ("move", &self.long_move(mv))]),
            None => {
                let said_as = match self.opponent {
                    Opponent::Engine => lex.engine_move,
                    // Online before the server named the opponent.
                    Opponent::Partner | Opponent::Online => lex.partner_move,
                };
                fill(said_as, &[("move", &self.long_move(mv))])
            }
        };
        self.with_steps(said, mv, steps, left)
    }

    /// A move to carry out as said, with its steps where the move does not
    /// say them, and the steps left when asked for again mid-move.
    fn with_steps(&self, mut said: String, mv: &MoveInfo, steps: &[Fix], left: Option<&[Fix]>) -> String {
        let lex = self.lex;
        if mv.castle.is_some() && !usual_castling(steps) {
            said = format!("{said} {}.", sentence(&self.steps(steps)));
        }
        if let Some(left) = left.filter(|l| !l.is_empty()) {
            said = format!("{said} {}", fill(lex.left, &[("steps", &self.steps(left))]));
        }
        said
    }

    /// Steps of the engine's move, in order, as one clause.
    fn steps(&self, steps: &[Fix]) -> String {
        let list: Vec<String> = steps.iter().filter_map(|f| self.step(f)).collect();
        list.join(self.lex.then)
    }

    /// A move said from its square to its square: "bishop c8 takes e6,
    /// check", "e7 to e8, promotes to queen", "short castling".
    fn long_move(&self, mv: &MoveInfo) -> String {
        let lex = self.lex;
        let body = match mv.castle {
            Some(side) => {
                let names = if self.style == Style::AnnexD { &lex.annex_castles } else { &lex.castles };
                names[usize::from(side == tactus_core::CastleSide::Queen)].to_owned()
            }
            None => {
                let mut parts = Vec::with_capacity(5);
                if mv.piece.role != Role::Pawn {
                    parts.push(self.piece(mv.piece.role, Case::Nom).to_owned());
                }
                parts.push(self.square(mv.from));
                parts.push(if mv.capture.is_some() { lex.takes } else { lex.to }.to_owned());
                parts.push(self.square(mv.to));
                if mv.en_passant {
                    parts.push(lex.en_passant.to_owned());
                }
                let said = parts.join(" ");
                match mv.promotion {
                    Some(role) => self.promoted(&said, role),
                    None => said,
                }
            }
        };
        with_suffix(lex, body, suffix_of(mv))
    }

    /// A move and the piece its pawn becomes.
    fn promoted(&self, said: &str, role: Role) -> String {
        let mut blanks = vec![("move", said.to_owned())];
        blanks.extend(self.piece_blanks(role.of(Color::White), false, None));
        fill(self.lex.promotion, &pairs(&blanks))
    }

    /// One step of carrying out the engine's move.
    fn step(&self, f: &Fix) -> Option<String> {
        let lex = self.lex;
        let template = match (f.from, f.to) {
            (Some(_), Some(_)) => lex.step_move,
            (None, Some(_)) => lex.step_put,
            (Some(_), None) => lex.step_remove,
            (None, None) => return None,
        };
        let mut blanks = self.piece_or_generic(f.piece);
        blanks.extend(f.from.map(|s| ("from", self.square(s))));
        blanks.extend(f.to.map(|s| ("to", self.square(s))));
        Some(fill(template, &pairs(&blanks)))
    }

    /// What went wrong carrying out the engine's move, and how to fix it.
    fn slip(&self, slip: &Slip, fix: &[Fix], scene: &Scene) -> String {
        let lex = self.lex;
        let with = |template: &str, piece: Option<Piece>, squares: &[(&str, Square)]| {
            let mut blanks = self.piece_or_generic(piece);
            blanks.extend(squares.iter().map(|(k, sq)| (*k, self.square(*sq))));
            sentence(&fill(template, &pairs(&blanks)))
        };
        match slip {
            Slip::NotThatOne { sq, piece, instead } => {
                let put_back = with(lex.not_that_one, Some(*piece), &[("sq", *sq)]);
                match instead.as_ref().and_then(|f| self.step(f)) {
                    Some(step) => format!("{put_back}{}{step}.", lex.then),
                    None => format!("{put_back}."),
                }
            }
            Slip::Misplaced { sq, piece, belongs: Some(to) } => {
                with(lex.misplaced, *piece, &[("sq", *sq), ("belongs", *to)])
            }
            Slip::Misplaced { sq, piece, belongs: None } => with(lex.misplaced_off, *piece, &[("sq", *sq)]),
            Slip::Missing { sq, piece } => with(lex.missing_piece, Some(*piece), &[("sq", *sq)]),
            Slip::OtherMove { san, uci } => {
                let (from, to) = uci_squares(uci);
                // Said without its check: the move does not stand.
                let played = SanPlus::from_ascii(san.as_bytes())
                    .map(|sp| self.san_from(&sp.san, from, None, false))
                    .unwrap_or_else(|_| san.clone());
                let other_move = match self.opponent_in(scene) {
                    Opponent::Engine => lex.other_move,
                    Opponent::Partner | Opponent::Online => lex.partner_other_move,
                };
                let out = fill(other_move, &[("move", &played)]);
                // Each piece from where it stands: the piece moved goes back
                // where it came from, a piece it took back on its square;
                // the rest are the opponent's move, carried forward.
                let back =
                    |f: &Fix| (f.from.is_some() && f.from == to && f.to == from) || (f.from.is_none() && f.to == to);
                let steps: Vec<String> =
                    fix.iter().filter_map(|f| if back(f) { self.fix(f, scene) } else { self.step(f) }).collect();
                if steps.is_empty() { out } else { format!("{out} {}.", sentence(&steps.join(lex.then))) }
            }
            Slip::Halfway { next } => match self.step(next) {
                Some(step) => fill(lex.halfway, &[("step", &step)]),
                None => String::new(),
            },
        }
    }

    /// Who makes the moves the board guides onto it, in the game heard so
    /// far: an online game's opponent once the server has named them.
    fn opponent_in(&self, scene: &Scene) -> Opponent {
        if scene.online.is_some() { Opponent::Online } else { self.opponent }
    }

    /// A move announced and not yet carried out on the board: "Your
    /// opponent's move is still to be carried out: knight b1 to c3."
    fn pending(&self, mv: &MoveInfo, scene: &Scene) -> String {
        self.said(&self.lex.pending, mv.side, scene, &[("move", &self.long_move(mv))])
    }

    /// The blanks for a piece, or for "the piece" when it is not known.
    fn piece_or_generic(&self, piece: Option<Piece>) -> Vec<(&'static str, String)> {
        match piece {
            Some(p) => self.piece_blanks(p, false, None),
            None => {
                let lex = self.lex;
                let (g, the) = (&lex.generic, lex.the[1]);
                vec![
                    ("piece", g[0].to_owned()),
                    ("piece_acc", g[1].to_owned()),
                    ("piece_gen", g[2].to_owned()),
                    ("the_piece", format!("{the}{}", g[1])),
                    ("the_piece_nom", format!("{}{}", lex.the_nom[1], g[0])),
                    ("a_piece", format!("{}{}", lex.a[1], g[1])),
                ]
            }
        }
    }

    /// A move given as SAN ("Nbd2", "O-O+"); text that is not SAN is returned
    /// as it is.
    pub fn san(&self, san: &str) -> String {
        match SanPlus::from_ascii(san.as_bytes()) {
            Ok(sp) => self.san_words(&sp.san, sp.suffix, false),
            Err(_) => san.to_owned(),
        }
    }

    /// A sentence about `side`: named, or to the listener as "you" or "your
    /// opponent".
    fn person(&self, t: &Persons, side: Color, scene: &Scene, blanks: &[(&str, &str)]) -> String {
        let i = match scene.listener {
            None => 0,
            Some(l) if l == side => 1,
            Some(_) => 2,
        };
        let [s, o] = [side_index(side), side_index(!side)].map(|i| self.lex.sides[i]);
        let mut all: Vec<(&str, &str)> = vec![
            ("side", s[0]),
            ("side_gen", s[1]),
            ("side_dat", s[2]),
            ("other", o[0]),
            ("other_gen", o[1]),
            ("other_dat", o[2]),
        ];
        all.extend_from_slice(blanks);
        fill(t[i], &all)
    }

    /// `person`, as a sentence of its own.
    fn said(&self, t: &Persons, side: Color, scene: &Scene, blanks: &[(&str, &str)]) -> String {
        sentence(&self.person(t, side, scene, blanks))
    }

    fn move_text(&self, mv: &MoveInfo) -> String {
        let suffix = suffix_of(mv);
        match SanPlus::from_ascii(mv.san.as_bytes()) {
            Ok(sp) => self.san_from(&sp.san, Some(mv.from), suffix, mv.en_passant),
            // No SAN (a malformed record): say piece, from, to.
            Err(_) => with_suffix(
                self.lex,
                format!("{} {} {}", self.piece(mv.piece.role, Case::Nom), self.square(mv.from), self.square(mv.to)),
                suffix,
            ),
        }
    }

    /// A move as the record writes it, but a piece that two of its kind
    /// could have moved said from its square ("knight from e4 to c5", not
    /// "knight e c5") — except in Annex D, which names the record's
    /// letters (D.2.1: the names stand for the letters of the notation).
    fn san_from(&self, san: &San, from: Option<Square>, suffix: Option<Suffix>, en_passant: bool) -> String {
        match (*san, from) {
            (San::Normal { role, file, rank, capture, to, promotion: None }, Some(from))
                if role != Role::Pawn && (file.is_some() || rank.is_some()) && self.style != Style::AnnexD =>
            {
                let blanks = [
                    ("piece", self.piece(role, Case::Nom).to_owned()),
                    ("from", self.square(from)),
                    ("to", self.square(to)),
                ];
                with_suffix(self.lex, fill(self.lex.from_to[usize::from(capture)], &pairs(&blanks)), suffix)
            }
            _ => self.san_words(san, suffix, en_passant),
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
                    Some(p) => self.promoted(&said, p),
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

    /// "black knight", "чёрную ладью", "czarnej wieży"; to a listener,
    /// "your knight", "ладью соперника".
    fn coloured(&self, piece: Piece, case: Case, listener: Option<Color>) -> String {
        let gender = self.names().gender(piece.role);
        let name = self.piece(piece.role, case);
        match listener {
            None => format!("{} {name}", self.lex.adjective(piece.color, case, gender)),
            Some(l) => fill(self.lex.whose(piece.color == l, case, gender), &[("piece", name)]),
        }
    }

    /// Pieces of one kind and side, in the plural: "black pawns", "your pawns".
    fn coloured_plural(&self, piece: Piece, listener: Option<Color>) -> String {
        let name = self.names().plural[piece.role as usize - 1];
        match listener {
            None => format!("{} {name}", self.lex.adjectives_plural[side_index(piece.color)]),
            Some(l) => fill(self.lex.whose_plural[usize::from(piece.color != l)], &[("pieces", name)]),
        }
    }

    /// The blanks a template may use for a piece: `{piece}` (nominative),
    /// `{piece_acc}`, `{piece_gen}`, `{the_piece}` (definite, accusative),
    /// `{the_piece_nom}`, `{a_piece}` (indefinite, accusative), with the
    /// piece's colour when `coloured` — to a listener, whose it is; an own
    /// piece's "your" stands instead of the article.
    fn piece_blanks(&self, piece: Piece, coloured: bool, listener: Option<Color>) -> Vec<(&'static str, String)> {
        let form = |case| {
            if coloured { self.coloured(piece, case, listener) } else { self.piece(piece.role, case).to_owned() }
        };
        let g = gender_index(self.names().gender(piece.role));
        let own = coloured && listener == Some(piece.color);
        let lex = self.lex;
        let (the, the_nom) = if own { ("", "") } else { (lex.the[g], lex.the_nom[g]) };
        vec![
            ("piece", form(Case::Nom)),
            ("piece_acc", form(Case::Acc)),
            ("piece_gen", form(Case::Gen)),
            ("the_piece", format!("{the}{}", form(Case::Acc))),
            ("the_piece_nom", format!("{the_nom}{}", form(Case::Nom))),
            ("a_piece", format!("{}{}", lex.a[g], form(Case::Acc))),
        ]
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
    fn touched(&self, piece: Piece, sq: Square, ply: u32, scene: &Scene) -> String {
        // Ply 1 is White's first move (the event contract).
        let mover = if ply % 2 == 1 { Color::White } else { Color::Black };
        if piece.color == mover {
            format!("{} {}", self.piece(piece.role, Case::Nom), self.square(sq))
        } else {
            format!("{} {}", self.coloured(piece, Case::Nom, scene.listener), self.square(sq))
        }
    }

    /// What stands on a square; where the board differs from the game, both.
    fn on_square(&self, sq: Square, piece: Option<Piece>, board: Option<OnBoard>, scene: &Scene) -> String {
        let lex = self.lex;
        // Not capitalised: a square is written "d5" wherever it stands.
        let square = self.square(sq);
        let name = |p: Option<Piece>| p.map(|p| self.coloured(p, Case::Nom, scene.listener));
        match (board, name(piece)) {
            (Some(board), game) => {
                let board = match board {
                    OnBoard::Empty => lex.vacant.to_owned(),
                    OnBoard::Piece(p) => self.coloured(p, Case::Nom, scene.listener),
                    OnBoard::Unknown => lex.a_piece.to_owned(),
                };
                let game = game.unwrap_or_else(|| lex.vacant.to_owned());
                fill(lex.square_differs, &[("square", &square), ("board", &board), ("game", &game)])
            }
            (None, Some(name)) => fill(lex.square_piece, &[("square", &square), ("piece", &name)]),
            (None, None) => fill(lex.square_empty, &[("square", &square)]),
        }
    }

    /// Who did what, and what happens next.
    fn irregularity(&self, irr: &Irregularity, scene: &Scene) -> String {
        let stands = irr.stands || scene.stands(irr.article, irr.ply);
        let head = self.ruling_head(irr, scene, stands);
        // After an illegal move or a press without one the offender moves
        // again, unless the move stands (A.5.2); a touch-move ruling, a
        // castling begun with the rook and pieces displaced leave the move
        // made.
        let moves_again = !matches!(irr.article, Article::A4_3_1 | Article::A4_3_2 | Article::A4_3_3)
            && !matches!(irr.reason, Reason::RookFirst | Reason::Displaced);
        if moves_again && !stands { join_sentences(head, self.what_next(irr, scene)) } else { head }
    }

    /// Who did what: the ruling itself, said in `scene`; `stands`, an
    /// illegal move that stands unless claimed (A.5.2).
    fn ruling_head(&self, irr: &Irregularity, scene: &Scene, stands: bool) -> String {
        let lex = self.lex;
        let side = irr.side;
        let with = |t: &Persons, piece: Option<(Placed, bool)>, extra: &[(&str, &str)]| {
            let mut blanks: Vec<(&str, String)> = Vec::new();
            if let Some((p, coloured)) = piece {
                blanks.extend(self.piece_blanks(p.piece, coloured, scene.listener));
                blanks.push(("sq", self.square(p.sq)));
            }
            let mut all: Vec<(&str, &str)> = blanks.iter().map(|(k, v)| (*k, v.as_str())).collect();
            all.extend_from_slice(extra);
            self.said(t, side, scene, &all)
        };
        match (irr.article, irr.reason) {
            (Article::A4_3_1 | Article::A4_3_2 | Article::A4_3_3, _) => match irr.touched {
                Some(t) if t.piece.color != side => with(&lex.touched_opp, Some((t, true)), &[]),
                Some(t) if irr.article == Article::A4_3_3 => with(&lex.touched_both, Some((t, false)), &[]),
                Some(t) => with(&lex.touched_own, Some((t, false)), &[]),
                None => with(&lex.touched_generic, None, &[]),
            },
            (_, Reason::RookFirst) => match irr.touched {
                Some(t) => with(&lex.rook_first, Some((t, false)), &[]),
                None => with(&lex.touched_generic, None, &[]),
            },
            (_, Reason::Displaced) => {
                let head = with(&lex.displaced, None, &[]);
                match self.fixes(&irr.fix, scene) {
                    Some(fixes) => format!("{head} {}.", sentence(&fixes)),
                    None => head,
                }
            }
            (_, Reason::NoMove) => with(&lex.no_move, None, &[]),
            _ => {
                let reason = self.reason(irr);
                with(if stands { &lex.stands } else { &lex.illegal }, None, &[("reason", &reason)])
            }
        }
    }

    /// Why a move is illegal.
    fn reason(&self, irr: &Irregularity) -> String {
        let lex = self.lex;
        match (irr.reason, irr.attempt) {
            (Reason::LeavesKingInCheck, _) => lex.king_in_check.to_owned(),
            (Reason::NotAMoveOfThatPiece, Some(a)) => {
                let name = self.piece(a.piece.role, Case::Nom);
                let the = lex.the_nom[gender_index(self.names().gender(a.piece.role))];
                fill(
                    lex.cannot_move,
                    &[
                        ("piece", name),
                        ("the_piece", &format!("{the}{name}")),
                        ("from", &self.square(a.from)),
                        ("to", &self.square(a.to)),
                    ],
                )
            }
            (Reason::CastlingNotAllowed, _) => lex.castling_not_allowed.to_owned(),
            (Reason::Unrecognised, _) => lex.unrecognised.to_owned(),
            _ => lex.cannot_move_generic.to_owned(),
        }
    }

    /// After an illegal act ruled at once: how to put the board right, and
    /// that the offender moves again — with the touched piece, if it can
    /// (7.5.1 applies 4.3). A second act ends the game instead (7.5.5): the
    /// result says so.
    fn what_next(&self, irr: &Irregularity, scene: &Scene) -> Option<String> {
        let lex = self.lex;
        let mut steps: Vec<String> = self.fixes(&irr.fix, scene).into_iter().collect();
        let second = scene.illegal[side_index(irr.side)] >= 1;
        if !second {
            steps.push(match irr.touched.filter(|t| t.piece.color == irr.side) {
                Some(t) => {
                    let mut blanks = self.piece_blanks(t.piece, false, None);
                    blanks.push(("sq", self.square(t.sq)));
                    self.person(&lex.moves_again_touched, irr.side, scene, &pairs(&blanks))
                }
                None => self.person(&lex.moves_again, irr.side, scene, &[]),
            });
        }
        (!steps.is_empty()).then(|| format!("{}.", sentence(&steps.join("; "))))
    }

    /// The steps that put the board right, as one clause.
    fn fixes(&self, fix: &[Fix], scene: &Scene) -> Option<String> {
        let steps: Vec<String> = fix.iter().filter_map(|f| self.fix(f, scene)).collect();
        (!steps.is_empty()).then(|| steps.join("; "))
    }

    fn fix(&self, f: &Fix, scene: &Scene) -> Option<String> {
        let lex = self.lex;
        let template = match (f.from, f.to) {
            (Some(_), Some(_)) => lex.fix_move,
            (None, Some(_)) => lex.fix_put,
            (Some(_), None) => lex.fix_remove,
            (None, None) => return None,
        };
        // A piece to put back may be either side's: say its colour.
        let mut blanks = match f.piece {
            Some(p) => self.piece_blanks(p, f.from.is_none(), scene.listener),
            None => self.piece_or_generic(None),
        };
        blanks.extend(f.from.map(|s| ("from", self.square(s))));
        blanks.extend(f.to.map(|s| ("to", self.square(s))));
        Some(fill(template, &pairs(&blanks)))
    }

    fn penalty(&self, article: Article, side: Color, ms: i64, scene: &Scene) -> String {
        let lex = self.lex;
        let time = lex.duration(ms);
        let t = match article {
            // A claim against an illegal move that stood (A.5.2).
            Article::A7_5_5 if scene.stood == Some(!side) => &lex.claim_upheld,
            Article::A7_5_5 => &lex.gets_time,
            Article::A9_5_3 => &lex.claim_rejected,
            _ => &lex.arbiter_adds,
        };
        self.said(t, side, scene, &[("time", &time)])
    }

    /// How the game ended, as it is written: the ending, and that the
    /// search did not settle it when it did not (6.9, 7.5.5).
    pub(crate) fn ended(&self, result: GameResult, reason: EndReason, undetermined: bool, scene: &Scene) -> String {
        let ending = self.ending(result, reason, scene);
        match result.winner().filter(|_| undetermined) {
            Some(winner) => format!("{ending} {}", self.unsettled(winner)),
            None => ending,
        }
    }

    /// The search did not settle whether `side` can checkmate: the loss stands.
    fn unsettled(&self, side: Color) -> String {
        let name = self.lex.sides[side_index(side)][0];
        sentence(&fill(self.lex.written.undetermined, &[("side", name)]))
    }

    /// The board showed one move, then another (4.7), and what that may be.
    pub(crate) fn observed(&self, side: Color, first: &str, then: &str) -> String {
        let name = self.lex.sides[side_index(side)][0];
        let blanks = [("side", name), ("first", &self.san(first)), ("then", &self.san(then))];
        sentence(&fill(self.lex.written.observation, &blanks))
    }

    fn ending(&self, result: GameResult, reason: EndReason, scene: &Scene) -> String {
        let e = &self.lex.endings;
        let winner = result.winner();
        let about = |t: &Persons, side: Color| self.said(t, side, scene, &[]);
        match (reason, winner) {
            (EndReason::Checkmate, Some(w)) => about(&e.checkmate, w),
            (EndReason::Resignation, Some(w)) => about(&e.resignation, w),
            (EndReason::FlagFall, Some(w)) => about(&e.flag_fall, !w),
            // The side whose flag fell is the side that was to move.
            (EndReason::FlagFall, None) => about(&e.flag_fall_draw, scene.turn),
            (EndReason::IllegalMoves, Some(w)) => about(&e.illegal, !w),
            (EndReason::IllegalMoves, None) => {
                about(&e.illegal_draw, scene.stood.or(scene.offender).unwrap_or(scene.turn))
            }
            // A correct claim is made by the player to move (9.2, 9.3).
            (EndReason::ThreefoldRepetition, _) => {
                self.said(&e.claimed, scene.turn, scene, &[("claim", self.lex.claims[0])])
            }
            (EndReason::FiftyMoves, _) => self.said(&e.claimed, scene.turn, scene, &[("claim", self.lex.claims[1])]),
            (EndReason::Stalemate, _) => e.stalemate.to_owned(),
            (EndReason::InsufficientMaterial | EndReason::DeadPosition, _) => e.dead_position.to_owned(),
            (EndReason::FivefoldRepetition, _) => e.fivefold.to_owned(),
            (EndReason::SeventyFiveMoves, _) => e.seventy_five.to_owned(),
            (EndReason::Agreement, _) => e.agreement.to_owned(),
            (_, Some(w)) => about(&e.arbiter, w),
            (_, None) => e.arbiter_draw.to_owned(),
        }
    }

    /// A side reaching a time control: the new period's time (6.3), said
    /// when the move that reaches it is completed.
    fn period_added(&self, side: Color, scene: &Scene) -> Option<String> {
        let done = scene.moves[side_index(side)];
        let control = scene.control.as_ref()?.next_control(done)?;
        (control.at_move == done + 1).then(|| {
            let time = self.lex.duration(i64::try_from(control.added_ms).unwrap_or(i64::MAX));
            self.said(&self.lex.period_added, side, scene, &[("time", &time)])
        })
    }

    fn moves_to_control(&self, white: ToControl, black: ToControl, scene: &Scene) -> String {
        let lex = self.lex;
        let mut sides = [(Color::White, white), (Color::Black, black)];
        if scene.listener == Some(Color::Black) {
            sides.reverse();
        }
        let ahead: Vec<(Color, u32, u32, i64)> =
            sides.iter().filter_map(|&(side, c)| Some((side, c.left?, c.moves + c.left?, c.added_ms?))).collect();
        let Some(&(_, _, at, added)) = ahead.first() else {
            return lex.no_control.to_owned();
        };
        let list: Vec<String> = ahead
            .iter()
            .filter(|a| a.2 == at)
            .map(|&(side, left, _, _)| {
                let moves = lex.moves[(lex.plural)(u64::from(left))];
                self.person(&lex.to_control, side, scene, &[("n", &left.to_string()), ("moves", moves)])
            })
            .collect();
        let head = fill(lex.moves_to_control, &[("at", &at.to_string()), ("list", &list.join(", "))]);
        let then = fill(lex.then_added, &[("time", &lex.duration(added))]);
        format!("{}; {then}.", sentence(&head))
    }

    fn mismatch(&self, missing: &[Placed], extra: &[Square], fix: &[Fix], scene: &Scene) -> String {
        let lex = self.lex;
        let mut out = vec![lex.board_differs.to_owned()];
        match self.fixes(fix, scene) {
            Some(fixes) => out.push(format!("{}.", sentence(&fixes))),
            None => {
                if !missing.is_empty() {
                    let list: Vec<String> = missing
                        .iter()
                        .map(|p| format!("{} {}", self.coloured(p.piece, Case::Nom, scene.listener), self.square(p.sq)))
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

    /// "White 1 hour 23 minutes, Black 45 minutes 10 seconds"; the
    /// listener's time first.
    fn times(&self, white_ms: i64, black_ms: i64, scene: &Scene) -> String {
        let mut both = [(Color::White, white_ms), (Color::Black, black_ms)];
        if scene.listener == Some(Color::Black) {
            both.reverse();
        }
        let said: Vec<String> = both
            .iter()
            .map(|&(side, ms)| self.person(&self.lex.side_time, side, scene, &[("time", &self.lex.duration(ms))]))
            .collect();
        said.join(", ")
    }

    /// "White's knights: b1, f3.", "Your queen: d1.", "You have no rooks."
    fn kind(&self, side: Color, role: Role, pieces: &[Placed], scene: &Scene) -> String {
        let lex = self.lex;
        let names = self.names();
        let i = role as usize - 1;
        let squares: Vec<Square> = pieces.iter().map(|p| p.sq).collect();
        let (name, your) = match squares.len() {
            0 => return self.said(&lex.no_kind, side, scene, &[("none", names.none[i])]),
            1 => (names.nom[i], lex.your[gender_index(names.gender(role))]),
            _ => (names.plural[i], lex.your[2]),
        };
        let list = self.squares_in_runs(&squares);
        self.said(&lex.kind, side, scene, &[("name", name), ("your", your), ("list", &list)])
    }

    /// Squares in the order given, three or more side by side on a rank
    /// said as a run: "a2 to d2, f2, h2".
    fn squares_in_runs(&self, squares: &[Square]) -> String {
        let said = runs(squares, |a, b| a.rank() == b.rank() && b.file() as u32 == a.file() as u32 + 1)
            .into_iter()
            .map(|run| match run {
                [one] => self.square(*one),
                [first, .., last] if run.len() >= 3 => {
                    fill(self.lex.run, &[("first", &self.square(*first)), ("last", &self.square(*last))])
                }
                _ => run.iter().map(|s| self.square(*s)).collect::<Vec<_>>().join(", "),
            })
            .collect::<Vec<_>>();
        said.join(", ")
    }

    /// One side's army, a kind of piece a chunk: "White: king g1.",
    /// "Queen d1.", "Rooks a1, f1.", "Pawns a2 to h2." …
    fn army(&self, side: Color, pieces: &[Placed], scene: &Scene) -> Vec<String> {
        let names = self.names();
        let groups: Vec<String> = ROLES
            .iter()
            .filter_map(|&role| {
                let squares: Vec<Square> = pieces.iter().filter(|p| p.piece.role == role).map(|p| p.sq).collect();
                let name = match squares.len() {
                    0 => return None,
                    1 => names.get(role, Case::Nom),
                    _ => names.plural[role as usize - 1],
                };
                Some(format!("{name} {}", self.squares_in_runs(&squares)))
            })
            .collect();
        let mut chunks = Vec::with_capacity(groups.len());
        for (i, group) in groups.iter().enumerate() {
            chunks.push(if i == 0 {
                self.said(&self.lex.army, side, scene, &[("list", group)])
            } else {
                format!("{}.", sentence(group))
            });
        }
        chunks
    }

    /// What stands on a rank or a file, at most four groups a chunk. The
    /// line is named once, so each piece is said by its file (on a rank)
    /// or its rank (on a file); a colour once for the pieces of that colour
    /// that follow it; pieces of one kind that follow each other together,
    /// three side by side as a run: "Rank 2: white pawns a to c, e to h,
    /// knight f." — or "Rank 5: empty."
    fn line(&self, line: Line, pieces: &[Placed], scene: &Scene) -> Vec<String> {
        const PER_CHUNK: usize = 4;
        let (template, name) = match line {
            Line::Rank(r) => (self.lex.rank_pieces, ("rank", self.rank(r))),
            Line::File(f) => (self.lex.file_pieces, ("file", self.file(f))),
        };
        // Where a square is along the line: its file on a rank, its rank on
        // a file — or the square, where a letter alone is not heard as one.
        let letters_alone = self.lex.letters_alone || matches!(self.style, Style::AnnexD | Style::Nato);
        let coordinate = |sq: Square| match line {
            Line::Rank(_) if letters_alone => self.file(sq.file()),
            Line::Rank(_) => self.square(sq),
            Line::File(_) => self.rank(sq.rank()),
        };
        let index = |sq: Square| match line {
            Line::Rank(_) => sq.file() as u32,
            Line::File(_) => sq.rank() as u32,
        };
        let mut groups = Vec::new();
        let mut colour = None;
        for run in runs(pieces, |a, b| a.piece == b.piece) {
            let piece = run[0].piece;
            let side_by_side = runs(run, |a, b| index(a.sq) + 1 == index(b.sq));
            let at: Vec<String> = side_by_side
                .iter()
                .map(|r| match r {
                    [first, .., last] if r.len() >= 3 => {
                        fill(self.lex.run, &[("first", &coordinate(first.sq)), ("last", &coordinate(last.sq))])
                    }
                    _ => r.iter().map(|p| coordinate(p.sq)).collect::<Vec<_>>().join(", "),
                })
                .collect();
            let at = at.join(", ");
            let named = match (run.len(), colour == Some(piece.color)) {
                (1, false) => self.coloured(piece, Case::Nom, scene.listener),
                (1, true) => self.piece(piece.role, Case::Nom).to_owned(),
                (_, false) => self.coloured_plural(piece, scene.listener),
                (_, true) => self.names().plural[piece.role as usize - 1].to_owned(),
            };
            colour = Some(piece.color);
            groups.push(format!("{named} {at}"));
        }
        let mut said = groups.chunks(PER_CHUNK).map(|g| g.join(", "));
        let first = said.next().unwrap_or_else(|| self.lex.empty.to_owned());
        let mut chunks = vec![fill(template, &[(name.0, &name.1), ("list", &first)])];
        chunks.extend(said.map(|g| format!("{}.", sentence(&g))));
        chunks
    }

    /// Ranks with nothing on them, from the 8th down: "Ranks 6 to 3: empty."
    fn empty_ranks(&self, ranks: &[Rank]) -> String {
        let lex = self.lex;
        match ranks {
            [one] => fill(lex.rank_pieces, &[("rank", &self.rank(*one)), ("list", lex.empty)]),
            [first, .., last] if lex.rank_runs && ranks.len() >= 3 => {
                let list = fill(lex.run, &[("first", &self.rank(*first)), ("last", &self.rank(*last))]);
                fill(lex.empty_ranks, &[("list", &list)])
            }
            _ => {
                let list: Vec<String> = ranks.iter().map(|r| self.rank(*r)).collect();
                fill(lex.empty_ranks, &[("list", &list.join(", "))])
            }
        }
    }

    fn position(&self, fen: &str, scene: &Scene) -> Vec<String> {
        let Ok(fen) = Fen::from_ascii(fen.as_bytes()) else { return vec![] };
        let setup = fen.into_setup();
        let board = &setup.board;
        let placed = |squares: Bitboard| -> Vec<Placed> {
            squares.into_iter().filter_map(|sq| board.piece_at(sq).map(|piece| Placed { sq, piece })).collect()
        };
        let mut out = Vec::new();
        match self.readout {
            Readout::BySide => {
                let mut sides = [Color::White, Color::Black];
                if scene.listener == Some(Color::Black) {
                    sides.reverse();
                }
                for side in sides {
                    let army: Vec<Placed> =
                        ROLES.iter().flat_map(|&role| placed(board.by_piece(Piece { color: side, role }))).collect();
                    out.extend(self.army(side, &army, scene));
                }
            }
            Readout::ByRank => {
                let mut empty = Vec::new();
                for &rank in Rank::ALL.iter().rev() {
                    let pieces = placed(board.occupied() & Bitboard::from_rank(rank));
                    if pieces.is_empty() {
                        empty.push(rank);
                        continue;
                    }
                    if !empty.is_empty() {
                        out.push(self.empty_ranks(&std::mem::take(&mut empty)));
                    }
                    out.extend(self.line(Line::Rank(rank), &pieces, scene));
                }
                if !empty.is_empty() {
                    out.push(self.empty_ranks(&empty));
                }
            }
        }
        out.push(format!("{}.", self.said(&self.lex.to_play, setup.turn, scene, &[])));
        out
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

/// The game record's remarks in these words: a ruling as it is written
/// (who did what; what came next is the record's next remark), and how a
/// result was settled on who can still checkmate.
impl Commentary for Words {
    fn ruling(&self, ruling: &Irregularity) -> String {
        self.ruling_head(ruling, &Scene::new(None), ruling.stands)
    }

    fn settled(&self, settled: &Settled) -> String {
        let e = &self.lex.endings;
        let Settled::Lost { article, loser, opponent } = *settled else { return e.dead_position.to_owned() };
        let draw = opponent == MateVerdict::CannotMate;
        let about = match (article, draw) {
            (Article::A6_9, true) => &e.flag_fall_draw,
            (Article::A6_9, false) => &e.flag_fall,
            (_, true) => &e.illegal_draw,
            (_, false) => &e.illegal,
        };
        let said = self.said(about, loser, &Scene::new(None), &[]);
        match opponent {
            MateVerdict::Undetermined => format!("{said} {}", self.unsettled(!loser)),
            MateVerdict::CanMate | MateVerdict::CannotMate => said,
        }
    }
}

/// A rank or a file, read out.
#[derive(Debug, Clone, Copy)]
enum Line {
    Rank(Rank),
    File(File),
}

/// Splits `items` into runs of neighbours, `next(a, b)` saying whether `b`
/// continues a run that ends in `a`.
fn runs<T>(items: &[T], next: impl Fn(&T, &T) -> bool) -> Vec<&[T]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=items.len() {
        if i == items.len() || !next(&items[i - 1], &items[i]) {
            if i > start {
                out.push(&items[start..i]);
            }
            start = i;
        }
    }
    out
}

/// The blanks as `fill` takes them.
fn pairs<'a>(blanks: &'a [(&'a str, String)]) -> Vec<(&'a str, &'a str)> {
    blanks.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

fn suffix_of(mv: &MoveInfo) -> Option<Suffix> {
    if mv.mate {
        Some(Suffix::Checkmate)
    } else if mv.check {
        Some(Suffix::Check)
    } else {
        None
    }
}

/// Castling's king and rook going where they go in standard chess: the
/// player needs no steps for it.
fn usual_castling(steps: &[Fix]) -> bool {
    let file = |sq: Option<Square>| sq.map(|s| s.file());
    steps.iter().all(|f| match f.piece.map(|p| p.role) {
        Some(Role::King) => file(f.from) == Some(File::E) && matches!(file(f.to), Some(File::G | File::C)),
        Some(Role::Rook) => {
            matches!((file(f.from), file(f.to)), (Some(File::H), Some(File::F)) | (Some(File::A), Some(File::D)))
        }
        _ => false,
    })
}

/// The squares a move in UCI leaves and reaches.
fn uci_squares(uci: &str) -> (Option<Square>, Option<Square>) {
    let square = |s: Option<&str>| s.and_then(|s| Square::from_ascii(s.as_bytes()).ok());
    (square(uci.get(0..2)), square(uci.get(2..4)))
}

/// Whether `fen` is the standard starting position, White to move.
fn is_standard_start(fen: &str) -> bool {
    let mut fields = fen.split_whitespace();
    (fields.next(), fields.next()) == (Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"), Some("w"))
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

/// Two sentences, the second only if there is one.
fn join_sentences(first: String, second: Option<String>) -> String {
    match second {
        Some(second) => format!("{first} {second}"),
        None => first,
    }
}

fn not_now_index(why: NotNow) -> usize {
    match why {
        NotNow::NoMoveYet => 0,
        NotNow::CarryOutFirst => 1,
        NotNow::EngineThinking => 2,
        NotNow::NoEngine => 3,
        NotNow::NothingToClaim => 4,
        NotNow::GameOver => 5,
        NotNow::NoOpponent => 6,
    }
}

fn claim_index(claim: ClaimKind) -> usize {
    match claim {
        ClaimKind::Threefold => 0,
        ClaimKind::Fifty => 1,
    }
}

fn device_index(device: Device) -> usize {
    match device {
        Device::Board => 0,
        Device::Clock => 1,
        Device::Engine => 2,
        Device::Online => 3,
        Device::Partner => 4,
    }
}
