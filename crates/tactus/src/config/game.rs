//! `[game]`, `[voice]` and `[state]`: the game at this board — its tags,
//! its clock, how it is ruled and said, where it is journaled.

use std::path::PathBuf;

use serde::Deserialize;
use tactus_net::{Tags, Title};
use tactus_speech::{Choice, Readout, Touches};
use tactus_trace::{Supervision, Variant};

use super::ranged::{DebounceMs, Elo, FideId, PressGraceMs, SettleMs, TimeWarnings, VoiceRate};
use super::values::{TimeControlText, parsed, parsed_opt};
use crate::sink::VoiceSink;

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct GameConfig {
    pub white: Option<String>,
    pub black: Option<String>,
    pub event: Option<String>,
    pub site: Option<String>,
    pub round: Option<String>,
    /// Each player's FIDE ID, title and rating, for the PGN and the
    /// broadcasts (`WhiteFideId`, `WhiteTitle`, `WhiteElo`, …).
    pub white_fide_id: Option<FideId>,
    #[serde(deserialize_with = "parsed_opt")]
    pub white_title: Option<Title>,
    pub white_elo: Option<Elo>,
    pub black_fide_id: Option<FideId>,
    #[serde(deserialize_with = "parsed_opt")]
    pub black_title: Option<Title>,
    pub black_elo: Option<Elo>,
    /// PGN `TimeControl` syntax, extended; `-` for no clock.
    #[serde(deserialize_with = "parsed")]
    pub time_control: TimeControlText,
    pub variant: Variant,
    /// A set-up or Chess960 start: its FEN.
    pub start_fen: Option<String>,
    pub supervision: Supervision,
    pub debounce_ms: DebounceMs,
    pub settle_ms: SettleMs,
    pub press_grace_ms: PressGraceMs,
}

impl Default for DebounceMs {
    fn default() -> Self {
        DebounceMs::DEFAULT
    }
}

impl Default for SettleMs {
    fn default() -> Self {
        SettleMs::DEFAULT
    }
}

impl Default for PressGraceMs {
    fn default() -> Self {
        PressGraceMs::DEFAULT
    }
}

impl GameConfig {
    /// The players' FIDE IDs, titles and ratings, on the game's tags.
    pub fn player_tags(&self, tags: Tags) -> Tags {
        Tags {
            white_fide_id: self.white_fide_id.map(FideId::get),
            white_title: self.white_title,
            white_elo: self.white_elo.map(Elo::get),
            black_fide_id: self.black_fide_id.map(FideId::get),
            black_title: self.black_title,
            black_elo: self.black_elo.map(Elo::get),
            ..tags
        }
    }
}

/// The side of a blind player who announces their own moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Listener {
    White,
    Black,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VoiceConfig {
    #[serde(deserialize_with = "parsed")]
    pub sink: VoiceSink,
    /// Language and style: `en:natural`, `de:annex-d`, …
    #[serde(deserialize_with = "parsed")]
    pub say: Choice,
    pub rate: VoiceRate,
    /// An espeak-ng voice instead of the language's own (e.g. `de+f3`).
    pub espeak_voice: Option<String>,
    pub touches: Touches,
    pub listener: Option<Listener>,
    /// How the position is read out on request: `by-side` (each army, king
    /// first) or `by-rank` (rank 8 down to 1).
    pub readout: Readout,
    /// Seconds left at which a player is warned.
    pub time_warnings: TimeWarnings,
}

impl Default for VoiceConfig {
    fn default() -> Self {
        VoiceConfig {
            sink: VoiceSink::Sound,
            say: "en:natural".parse().expect("a known choice"),
            rate: const { VoiceRate::of(160) },
            espeak_voice: None,
            touches: Touches::Never,
            readout: Readout::BySide,
            listener: None,
            time_warnings: TimeWarnings::default(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StateConfig {
    /// Where each game's trace (the journal) is kept.
    pub dir: PathBuf,
}

impl Default for StateConfig {
    fn default() -> Self {
        StateConfig { dir: "/var/lib/tactus".into() }
    }
}
