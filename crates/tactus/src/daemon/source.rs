//! Which board a game is played on: written into its journal's header, so
//! that a restart recovers a game only on the board it was played on.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::{BoardKind, Config};

/// A simulated board's trace: where it was, and what it held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceFile {
    pub path: PathBuf,
    /// SHA-256 of the file's bytes, in hex.
    pub sha256: String,
}

/// The board a game comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    pub board: BoardKind,
    /// The board's name (`[mqtt] board_id`: given, or the host's).
    pub id: String,
    /// A simulated board playing a trace; absent: typed, or a real board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceFile>,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

impl Origin {
    /// This run's source; `trace` holds the sim trace's bytes when there is one.
    pub fn of(cfg: &Config, trace: Option<(&Path, &[u8])>) -> Origin {
        Origin {
            board: cfg.board.kind,
            id: cfg.mqtt.board_id.name().to_string(),
            trace: trace.map(|(path, bytes)| TraceFile {
                path: std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
                sha256: sha256_hex(bytes),
            }),
        }
    }

    /// Why a game from `journaled` is not this source's, if it is not. A
    /// trace is the same trace when its bytes are, wherever it lies now.
    pub fn differs_from(&self, journaled: &Origin) -> Option<String> {
        if self.board != journaled.board {
            return Some(format!("it was played on a {} board, this is a {} board", journaled.board, self.board));
        }
        if self.id != journaled.id {
            return Some(format!("it was played on board {:?}, this is board {:?}", journaled.id, self.id));
        }
        match (&self.trace, &journaled.trace) {
            (Some(now), Some(then)) if now.sha256 != then.sha256 => Some(format!(
                "it was played from the trace {} (SHA-256 {}…), this board plays {} (SHA-256 {}…)",
                then.path.display(),
                &then.sha256[..12.min(then.sha256.len())],
                now.path.display(),
                &now.sha256[..12]
            )),
            (Some(now), None) => {
                Some(format!("it was typed on the simulated board, this board plays {}", now.path.display()))
            }
            (None, Some(then)) => {
                Some(format!("it was played from the trace {}, this board is typed on", then.path.display()))
            }
            _ => None,
        }
    }

    /// Reads a journal header's `source`.
    pub fn from_header_line(line: &str) -> anyhow::Result<Option<Origin>> {
        let value: serde_json::Value = serde_json::from_str(line)?;
        match value.get("source") {
            None => Ok(None),
            Some(source) => Ok(Some(serde_json::from_value(source.clone()).context("the header's source")?)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(trace: Option<&[u8]>) -> Origin {
        let mut cfg = Config::default();
        cfg.board.kind = BoardKind::Sim;
        cfg.mqtt.board_id = crate::config::BoardId::Named("b1".parse().unwrap());
        Origin::of(&cfg, trace.map(|t| (Path::new("/tmp/g.trace.jsonl"), t)))
    }

    #[test]
    fn a_source_is_the_same_only_for_the_same_board_and_trace() {
        assert_eq!(sim(Some(b"a")).differs_from(&sim(Some(b"a"))), None);
        let e = sim(Some(b"a")).differs_from(&sim(Some(b"b"))).unwrap();
        assert!(e.contains("SHA-256"), "{e}");
        assert!(sim(None).differs_from(&sim(Some(b"a"))).is_some());
        let mut other = sim(None);
        other.id = "b2".into();
        assert!(sim(None).differs_from(&other).unwrap().contains("\"b2\""));
        let mut real = sim(None);
        real.board = BoardKind::GpioMatrix;
        assert!(sim(None).differs_from(&real).unwrap().contains("gpio-matrix"));
    }

    #[test]
    fn the_source_round_trips_through_a_header_line() {
        let s = sim(Some(b"x"));
        let line = format!("{{\"tactus_trace\": 1, \"source\": {}}}", serde_json::to_string(&s).unwrap());
        assert_eq!(Origin::from_header_line(&line).unwrap(), Some(s));
        assert_eq!(Origin::from_header_line("{\"tactus_trace\": 1}").unwrap(), None);
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
