//! The words a trace (and the events, the config and the arbiter's page)
//! spells values with, each in one place: `as_str` writes them, `FromStr`
//! and serde read them back, and the error lists the choices. Anything
//! else is an error, never a silent default.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A value spelled with one word of a fixed vocabulary.
pub trait Word: Copy + std::str::FromStr<Err = UnknownWord> + 'static {
    /// Every value, in the order the error lists them.
    const ALL: &'static [Self];
    fn as_str(self) -> &'static str;
}

/// A word that is not one of its vocabulary's: what it was for, what it
/// was, and the choices.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {found:?} (one of {})", choices.join(", "))]
pub struct UnknownWord {
    /// What the word names: `variant`, `result`, …
    pub what: &'static str,
    pub found: String,
    pub choices: &'static [&'static str],
}

macro_rules! spelled {
    ($(#[$meta:meta])* $name:ident, $what:literal { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Every value's word, in the order of [`Self::ALL`].
            pub const WORDS: &'static [&'static str] = &[$($text),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl Word for $name {
            const ALL: &'static [$name] = $name::ALL;
            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownWord;
            fn from_str(s: &str) -> Result<Self, UnknownWord> {
                $name::ALL.iter().copied().find(|v| v.as_str() == s).ok_or_else(|| UnknownWord {
                    what: $what,
                    found: s.to_owned(),
                    choices: $name::WORDS,
                })
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

spelled!(
    /// The variant of chess played.
    #[derive(Default)]
    Variant, "variant" { #[default] Standard = "standard", Chess960 = "chess960" }
);

spelled!(
    /// Who watches the game (Competition Rules; Annex A.4, A.5, B.2, B.3).
    #[derive(Default)]
    Supervision, "supervision" {
        /// The board acts as an arbiter who sees every move: every illegal
        /// move is penalised at once (A.4, B.2, and all standard play).
        #[default]
        Arbiter = "arbiter",
        /// Rapid and blitz without adequate supervision (A.5.2, B.3): an
        /// illegal move stands unless the opponent claims before making
        /// their own move.
        Unsupervised = "unsupervised",
    }
);

spelled!(
    /// Where the full search for who can still mate runs (5.2.2, 6.9, 7.5.5).
    #[derive(Default)]
    MateSearch, "mate search" {
        /// In the core, when the question arises: replay and tests.
        #[default]
        Inline = "inline",
        /// By the driver, off its loop: the core waits for `Input::Verdict`
        /// (see `Session::mate_question`), and the trace holds the answers.
        Asked = "asked",
    }
);

spelled!(
    /// Two boards, one game at one table (Appendix D), one chess clock
    /// between them: where it is attached.
    TableClock, "table clock" {
        /// At this board: every press is read here, the partner's player's
        /// sent on to the partner board; this board keeps both times.
        Here = "here",
        /// At the partner board: this board's player's presses come from
        /// there, with the times that clock kept.
        Partner = "partner",
    }
);

spelled!(
    /// A kind of board that knows which piece stands on each square.
    BoardKind, "board" { Dgt = "dgt" }
);

spelled!(
    /// A player's answer or request to an online game's server (Lichess),
    /// made at the board. The game itself does not change: the server's
    /// answer comes back as the game's own inputs.
    OnlineAsk, "online request" {
        /// End the game before it has really begun.
        Abort = "abort",
        /// Decline the opponent's draw offer.
        DrawNo = "draw_no",
        /// Decline the opponent's takeback request.
        TakebackNo = "takeback_no",
        /// Accept the opponent's takeback request: the server takes the
        /// moves back (`take_back`).
        TakebackYes = "takeback_yes",
        /// Accept the challenge said last.
        Accept = "accept",
        /// Decline the challenge said last.
        Decline = "decline",
        /// The opponent left: claim the win.
        ClaimVictory = "claim_victory",
        /// Read the chat lines held back (more came than are said at once).
        Chat = "chat",
    }
);

spelled!(Claim, "claim" { Illegal = "illegal", Threefold = "threefold", Fifty = "fifty" });

spelled!(
    /// Whether a side can checkmate by any series of legal moves.
    MateVerdict, "verdict" { CanMate = "can_mate", CannotMate = "cannot_mate", Undetermined = "undetermined" }
);

spelled!(
    /// How a game ended, as PGN writes it.
    GameResult, "result" { WhiteWins = "1-0", BlackWins = "0-1", Draw = "1/2-1/2" }
);

impl GameResult {
    pub fn win_for(side: shakmaty::Color) -> GameResult {
        match side {
            shakmaty::Color::White => GameResult::WhiteWins,
            shakmaty::Color::Black => GameResult::BlackWins,
        }
    }

    /// The side that won; `None` for a draw.
    pub fn winner(self) -> Option<shakmaty::Color> {
        match self {
            GameResult::WhiteWins => Some(shakmaty::Color::White),
            GameResult::BlackWins => Some(shakmaty::Color::Black),
            GameResult::Draw => None,
        }
    }

    /// The result as PGN's movetext and `Result` tag write it: `*` for a
    /// game without one (yet).
    pub fn pgn(result: Option<GameResult>) -> &'static str {
        result.map_or(shakmaty::Outcome::Unknown.as_str(), GameResult::as_str)
    }
}

impl From<shakmaty::KnownOutcome> for GameResult {
    fn from(outcome: shakmaty::KnownOutcome) -> GameResult {
        outcome.winner().map_or(GameResult::Draw, GameResult::win_for)
    }
}

impl From<GameResult> for shakmaty::KnownOutcome {
    fn from(result: GameResult) -> shakmaty::KnownOutcome {
        shakmaty::KnownOutcome::from_winner(result.winner())
    }
}

spelled!(
    /// Why a game ended off the board; a result line without one is the arbiter's.
    #[derive(Default)]
    OffBoardReason, "reason" { Resignation = "resignation", Agreement = "agreement", #[default] Arbiter = "arbiter" }
);
