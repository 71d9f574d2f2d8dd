//! `[round]`: `tactus relay --config`'s round of a tournament, from the
//! pairing program's file (FIDE's TRF): each board told its players, the
//! results written back (docs/operator-guide.md, "A round from the pairing
//! program"). `--round-trf` and `--round` go over it.

use std::path::PathBuf;

use serde::Deserialize;

use super::ranged::RoundNumber;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoundConfig {
    /// The Tournament Report File the pairing program exported, the round
    /// paired.
    pub trf: Option<PathBuf>,
    /// The round it pairs, to play now.
    pub number: Option<RoundNumber>,
}
