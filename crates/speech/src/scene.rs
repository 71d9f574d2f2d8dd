//! What the announcer has heard of the game so far: the context a phrase
//! needs that its own event does not carry — whose turn it is, whether an
//! illegal move stood (A.5.2) or was ruled at once, how many illegal acts
//! each side has been penalised for (7.5.5), what was announced in the ply,
//! and the moves towards the next time control. Derived from the event
//! sequence alone, as the core counts.

use shakmaty::Color;
use shakmaty::fen::Fen;
use tactus_clock::TimeControl;
use tactus_core::{Article, Event, EventKind, MoveInfo, Online, Pair, Restarted};

use crate::lang::side_index;

#[derive(Debug, Clone)]
pub(crate) struct Scene {
    /// The player who listens, if one does: phrases say "you". An online
    /// game's player is the side the server gave the board.
    pub listener: Option<Color>,
    /// The side to move: the one whose flag can fall, who may claim a draw.
    pub turn: Color,
    /// The ply of the last completed move.
    pub last_complete: Option<u32>,
    /// Illegal acts each side has been penalised for (7.5.5).
    pub illegal: [u8; 2],
    /// An illegal move that stands until its opponent claims (A.5.2): who made it.
    pub stood: Option<Color>,
    /// Who committed the last illegal act.
    pub offender: Option<Color>,
    /// The move announced last in the ply being played.
    pub announced: Option<MoveInfo>,
    pub control: Option<TimeControl>,
    /// Moves each side has completed, as the clock counts them.
    pub moves: [u32; 2],
    /// The opponent far away (an online game's), by name, or Lichess's AI
    /// by its level: their moves are said as theirs, not an engine's.
    pub online: Option<(String, Option<u8>)>,
    /// The clocks were stopped (6.11, a restart) and not started since.
    pub clocks_stopped: bool,
}

impl Scene {
    pub fn new(listener: Option<Color>) -> Scene {
        Scene {
            listener,
            turn: Color::White,
            last_complete: None,
            illegal: [0; 2],
            stood: None,
            offender: None,
            announced: None,
            control: None,
            moves: [0; 2],
            online: None,
            clocks_stopped: false,
        }
    }

    /// Whether an illegal move ruled now is one that was completed and
    /// stands (A.5.2), rather than one ruled at once. (A ruling that says
    /// so itself is one too: the partner board's, which may come before
    /// the move is complete on this board.)
    pub fn stands(&self, article: Article, ply: u32) -> bool {
        article == Article::A7_5_1 && self.last_complete == Some(ply)
    }

    /// Takes in an event, after it has been phrased.
    pub fn heard(&mut self, ev: &Event) {
        match &ev.kind {
            EventKind::Start { fen, time_control, .. } => {
                *self = Scene::new(self.listener);
                if let Ok(fen) = Fen::from_ascii(fen.as_bytes()) {
                    self.turn = fen.as_setup().turn;
                }
                self.control = time_control.as_deref().and_then(|tc| TimeControl::parse(tc).ok().flatten());
            }
            // The player at the board plays the side the server gave it,
            // and was told so: from now on sides are "you" and "your
            // opponent", results what they mean to the player.
            EventKind::Online(Online::Playing { opponent, ai_level, side, .. }) => {
                self.online = Some((opponent.clone(), *ai_level));
                self.listener = Some(*side);
            }
            EventKind::Paused => self.clocks_stopped = true,
            EventKind::Resumed | EventKind::GameOver { .. } => self.clocks_stopped = false,
            // A board restarted says how its clocks go on: the arbiter's
            // stop (6.11) stands over the restart, which heard no `Paused`.
            EventKind::Pair(Pair::GoesOn { clocks, .. }) => {
                self.clocks_stopped = *clocks == Some(Restarted::Stopped);
            }
            EventKind::Move { mv, .. } => self.announced = Some(mv.clone()),
            EventKind::Withdrawn { .. } => self.announced = None,
            EventKind::Complete { ply, side, .. } => {
                self.last_complete = Some(*ply);
                self.turn = !*side;
                self.moves[side_index(*side)] += 1;
                self.announced = None;
                // The opponent moved on: an illegal move that stood can no
                // longer be claimed (A.5.2).
                if self.stood.is_some_and(|offender| offender != *side) {
                    self.stood = None;
                }
            }
            EventKind::Irregularity(irr) => {
                if irr.stands || self.stands(irr.article, irr.ply) {
                    self.stood = Some(irr.side);
                } else if matches!(irr.article, Article::A7_5_1 | Article::A7_5_3) {
                    self.illegal[side_index(irr.side)] += 1;
                    self.offender = Some(irr.side);
                }
            }
            EventKind::Penalty { article: Article::A7_5_5, side, .. } => {
                // A claim against an illegal move that stood: the position
                // before it comes back and the offender moves again.
                if let Some(offender) = self.stood.filter(|o| o != side) {
                    self.illegal[side_index(offender)] += 1;
                    self.offender = Some(offender);
                    self.turn = offender;
                    let m = &mut self.moves[side_index(offender)];
                    *m = m.saturating_sub(1);
                    self.stood = None;
                    self.last_complete = None;
                }
            }
            EventKind::Time { white_moves, black_moves, running, .. } => {
                self.moves = [*white_moves, *black_moves];
                if let Some(side) = running {
                    self.turn = *side;
                }
            }
            _ => {}
        }
    }
}
