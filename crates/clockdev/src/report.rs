//! What a clock tells the host.

use std::fmt;
use std::time::Instant;

use shakmaty::Color;

/// A report from a clock device, in the order it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClockReport {
    /// `side` pressed its lever (completing its move, 6.2.1) at `at`: for
    /// the open protocol the clock's own press time mapped to the host's
    /// clock, else when the report was read.
    Lever {
        /// Who pressed.
        side: Color,
        /// When.
        at: Instant,
    },
    /// A button was pressed.
    Button {
        /// Which.
        button: Button,
        /// When.
        at: Instant,
    },
    /// The device answered the handshake; the last display has been queued.
    Connected {
        /// What it is (`"DGT 3000"`, or the open clock's own name).
        device: String,
        /// Its firmware and protocol versions, as it reports them.
        version: String,
    },
    /// The device is gone (unplugged, or it stopped answering). The game
    /// goes on with the core's time; the link keeps trying to get it back.
    Disconnected {
        /// What happened, naming the device.
        reason: String,
    },
    /// Bytes that were not a valid message were skipped. Never fatal.
    Garbage {
        /// The bytes, escaped (`\xNN` for what is not printable ASCII).
        line: String,
    },
    /// More garbled lines were skipped than are worth a report each: this
    /// many since the last report, in the last few seconds.
    Skipped {
        /// How many.
        lines: u64,
    },
    /// The device said it could not do something (an open clock's `ERR`).
    Error {
        /// Its words.
        message: String,
    },
}

/// A button on the clock, by what it asks for: the DGT 3000's five front
/// buttons and on/off, and the open protocol's names
/// (`hardware/clock/PROTOCOL.md`, read in either case), parsed here once.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Button {
    /// `TIME`: the times and the number of completed moves, to be spoken
    /// (D.2.6.1, D.2.10.4).
    TimeRequest,
    /// `MOVE`: the last move again.
    LastMove,
    /// `PAUSE`: stop the clocks, or restart them when stopped (6.11, 6.12):
    /// one button, the host knows which applies.
    Pause,
    /// `PLUS`: the arbiter's plus (add time, next item); a player's
    /// question for the position.
    Plus,
    /// `MINUS`: the arbiter's minus (previous item); a player's question
    /// for the moves to the next time control.
    Minus,
    /// `BOARD` (or `POSITION`): the position read out.
    Board,
    /// `CONTROL`: the moves to the next time control.
    Control,
    /// `WHITE`, `BLACK`: where that side's pieces stand.
    Pieces(Color),
    /// `HINT`: the engine's suggestion.
    Hint,
    /// `LEVEL0` … `LEVEL10`: the engine's level.
    Level(u8),
    /// `DRAW_WHITE`, `DRAW_BLACK`: that side offers a draw, or accepts the
    /// one offered.
    DrawBy(Color),
    /// `DRAW`: against an opponent the daemon hosts (an engine, a player
    /// online or on the partner board), the player offers or accepts a draw.
    Draw,
    /// `RESIGN`: against an opponent the daemon hosts, the player resigns
    /// (5.1.2).
    Resign,
    /// The DGT 3000's on/off button.
    OnOff,
    /// A name the protocol does not have (a builder's own button): passed
    /// on as it is, to be logged.
    Unknown(String),
}

/// The engine's levels a `LEVELn` button sets.
const LEVELS: std::ops::RangeInclusive<u8> = 0..=10;

impl Button {
    /// The button an open clock names `name`.
    pub fn from_name(name: &str) -> Button {
        let upper = name.to_ascii_uppercase();
        let level = upper.strip_prefix("LEVEL").and_then(|n| n.parse().ok()).filter(|n| LEVELS.contains(n));
        if let Some(level) = level {
            return Button::Level(level);
        }
        match upper.as_str() {
            "TIME" => Button::TimeRequest,
            "MOVE" => Button::LastMove,
            "PAUSE" => Button::Pause,
            "PLUS" => Button::Plus,
            "MINUS" => Button::Minus,
            "BOARD" | "POSITION" => Button::Board,
            "CONTROL" => Button::Control,
            "WHITE" => Button::Pieces(Color::White),
            "BLACK" => Button::Pieces(Color::Black),
            "HINT" => Button::Hint,
            "DRAW_WHITE" => Button::DrawBy(Color::White),
            "DRAW_BLACK" => Button::DrawBy(Color::Black),
            "DRAW" => Button::Draw,
            "RESIGN" => Button::Resign,
            _ => Button::Unknown(name.to_string()),
        }
    }
}

/// The name an open clock gives the button (the DGT 3000's on/off, which
/// the protocol has no name for, is `ON_OFF`).
impl fmt::Display for Button {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |c: &Color| match c {
            Color::White => "WHITE",
            Color::Black => "BLACK",
        };
        match self {
            Button::TimeRequest => f.write_str("TIME"),
            Button::LastMove => f.write_str("MOVE"),
            Button::Pause => f.write_str("PAUSE"),
            Button::Plus => f.write_str("PLUS"),
            Button::Minus => f.write_str("MINUS"),
            Button::Board => f.write_str("BOARD"),
            Button::Control => f.write_str("CONTROL"),
            Button::Pieces(c) => f.write_str(side(c)),
            Button::Hint => f.write_str("HINT"),
            Button::Level(n) => write!(f, "LEVEL{n}"),
            Button::DrawBy(c) => write!(f, "DRAW_{}", side(c)),
            Button::Draw => f.write_str("DRAW"),
            Button::Resign => f.write_str("RESIGN"),
            Button::OnOff => f.write_str("ON_OFF"),
            Button::Unknown(name) => f.write_str(name),
        }
    }
}

/// `bytes` as printable ASCII, at most 120 characters of it.
pub(crate) fn escape(bytes: &[u8]) -> String {
    let mut s: String = bytes.escape_ascii().to_string();
    if s.len() > 120 {
        s.truncate(117);
        s.push_str("...");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_button_reads_back_from_its_name_in_either_case() {
        let mut buttons = vec![
            Button::TimeRequest,
            Button::LastMove,
            Button::Pause,
            Button::Plus,
            Button::Minus,
            Button::Board,
            Button::Control,
            Button::Pieces(Color::White),
            Button::Pieces(Color::Black),
            Button::Hint,
            Button::DrawBy(Color::White),
            Button::DrawBy(Color::Black),
            Button::Draw,
        ];
        buttons.extend(LEVELS.map(Button::Level));
        for b in buttons {
            assert_eq!(Button::from_name(&b.to_string()), b);
            assert_eq!(Button::from_name(&b.to_string().to_ascii_lowercase()), b);
        }
        assert_eq!(Button::from_name("position"), Button::Board);
        for unknown in ["LEVEL11", "LEVEL", "LEVEL-1", "COFFEE"] {
            assert_eq!(Button::from_name(unknown), Button::Unknown(unknown.into()));
        }
    }
}
