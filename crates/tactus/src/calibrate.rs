//! `tactus calibrate`: walks a builder through placing one piece on each
//! square, learns which (row, column) wire pair is under it, and writes the
//! map to the config as `board.squares`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use shakmaty::{Bitboard, Square};
use tactus_board::SquareMap;

use crate::config;

#[derive(clap::Args)]
pub struct Args {
    /// The configuration to read the wiring from and write the map to.
    #[arg(long, default_value = "/etc/tactus/tactus.toml")]
    config: PathBuf,
    /// Print the map instead of writing it to the config.
    #[arg(long)]
    dry_run: bool,
}

/// How long a single piece must rest before its wires are taken.
const STEADY: Duration = Duration::from_millis(500);

/// Learns one square at a time from frames read in wire order.
#[derive(Debug, Default)]
pub struct Calibration {
    /// Wire index (row × 8 + column) of each square learned, in `Square` order.
    found: Vec<(Square, u32)>,
    candidate: Option<(u32, Instant)>,
}

/// What a frame meant for the square being asked for.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// The board must be empty but for one piece.
    Waiting,
    /// More than one wire pair reads closed: lift the others.
    TooMany(u32),
    /// This wire pair was closed under the square too long.
    Taken { sq: Square, wire: u32 },
    /// That wire pair already belongs to another square.
    Duplicate { wire: u32, owner: Square },
}

impl Calibration {
    /// The square to place a piece on next, if any remain.
    pub fn next_square(&self) -> Option<Square> {
        Square::ALL.get(self.found.len()).copied()
    }

    /// One frame (wires as bits, in wire order) at time `at`.
    pub fn frame(&mut self, raw: Bitboard, at: Instant) -> Step {
        let Some(sq) = self.next_square() else { return Step::Waiting };
        if raw.count() > 1 {
            self.candidate = None;
            return Step::TooMany(raw.count() as u32);
        }
        let Some(bit) = raw.first() else {
            self.candidate = None;
            return Step::Waiting;
        };
        let wire = bit as u32;
        if let Some(&(owner, _)) = self.found.iter().find(|(_, w)| *w == wire) {
            return Step::Duplicate { wire, owner };
        }
        match self.candidate {
            Some((w, since)) if w == wire && at.duration_since(since) >= STEADY => {
                self.found.push((sq, wire));
                self.candidate = None;
                Step::Taken { sq, wire }
            }
            Some((w, _)) if w == wire => Step::Waiting,
            _ => {
                self.candidate = Some((wire, at));
                Step::Waiting
            }
        }
    }

    /// The map once all 64 squares are known.
    pub fn map(&self) -> Option<SquareMap> {
        if self.found.len() < 64 {
            return None;
        }
        let mut by_wire = [Square::A1; 64];
        for &(sq, wire) in &self.found {
            by_wire[wire as usize] = sq;
        }
        SquareMap::from_squares(by_wire).ok()
    }
}

/// Replaces (or adds) `squares = [...]` in the `[board]` table of a TOML text.
pub fn with_squares(text: &str, map: &SquareMap) -> String {
    let names: Vec<String> = map.to_string().split_whitespace().map(|s| format!("\"{s}\"")).collect();
    let line = format!("squares = [{}]", names.join(", "));
    let mut out = Vec::new();
    let (mut in_board, mut skipping, mut written) = (false, false, false);
    for l in text.lines() {
        let trimmed = l.trim_start();
        if skipping {
            skipping = !trimmed.contains(']');
            continue;
        }
        if trimmed.starts_with('[') && !trimmed.starts_with("[[") {
            if in_board && !written {
                out.push(line.clone());
                written = true;
            }
            in_board = trimmed.starts_with("[board]");
        }
        if in_board && trimmed.starts_with("squares") && trimmed.contains('=') {
            out.push(line.clone());
            written = true;
            skipping = !trimmed.contains(']');
            continue;
        }
        out.push(l.to_string());
    }
    if !written {
        if !in_board {
            out.push(String::new());
            out.push("[board]".into());
        }
        out.push(line);
    }
    out.join("\n") + "\n"
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let cfg = config::load(&args.config)?;
    anyhow::ensure!(
        cfg.board.kind != crate::config::BoardKind::Sim,
        "{}: [board] kind is sim: calibration maps the wires of a real board (gpio-matrix, mcp23017, hall)",
        args.config.display()
    );
    // Read in wire order: the identity map.
    let mut matrix = crate::daemon::matrix(&cfg, SquareMap::default(), Some(&args.config))?;
    let mut cal = Calibration::default();
    let mut out = std::io::stdout().lock();
    writeln!(out, "Calibration: clear the board, then put one piece on each square as asked.")?;
    let mut asked = None;
    while let Some(sq) = cal.next_square() {
        if asked != Some(sq) {
            writeln!(out, "Put a piece on {sq} (and nowhere else).")?;
            asked = Some(sq);
        }
        let frame = matrix.read()?;
        match cal.frame(frame, Instant::now()) {
            Step::Taken { sq, wire } => writeln!(out, "  {sq}: row {} column {} — now lift it.", wire / 8, wire % 8)?,
            Step::Duplicate { wire, owner } => writeln!(
                out,
                "  that sensor (row {} column {}) is {owner}'s: is the piece on {sq}?",
                wire / 8,
                wire % 8
            )?,
            Step::TooMany(_) | Step::Waiting => {}
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let map = cal.map().context("the squares learned do not form a map")?;
    if args.dry_run {
        writeln!(out, "board.squares = {map}")?;
        return Ok(ExitCode::SUCCESS);
    }
    write_map(&args.config, &map)?;
    writeln!(out, "Wrote board.squares to {}.", args.config.display())?;
    Ok(ExitCode::SUCCESS)
}

fn write_map(path: &Path, map: &SquareMap) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let new = with_squares(&text, map);
    config::parse(path, &new)?;
    std::fs::write(path, new).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reversed_board_is_learned_square_by_square() {
        let mut cal = Calibration::default();
        let mut t = Instant::now();
        // The board is wired back to front: square i sits on wire 63 - i.
        while let Some(sq) = cal.next_square() {
            let wire = 63 - sq as u32;
            let frame = Bitboard::from(Square::new(wire));
            assert_eq!(cal.frame(frame, t), Step::Waiting);
            t += Duration::from_millis(300);
            assert_eq!(cal.frame(frame | Bitboard::from(Square::new((wire + 1) % 64)), t), Step::TooMany(2));
            assert_eq!(cal.frame(frame, t), Step::Waiting);
            t += STEADY;
            assert_eq!(cal.frame(frame, t), Step::Taken { sq, wire });
            assert_eq!(cal.frame(Bitboard::EMPTY, t), Step::Waiting);
        }
        let map = cal.map().unwrap();
        assert_eq!(map.square(0, 0), Square::H8);
        assert_eq!(map.square(7, 7), Square::A1);
    }

    #[test]
    fn a_sensor_already_taken_is_pointed_out() {
        let mut cal = Calibration::default();
        let t = Instant::now();
        let frame = Bitboard::from(Square::C3);
        cal.frame(frame, t);
        assert!(matches!(cal.frame(frame, t + STEADY), Step::Taken { .. }));
        assert_eq!(cal.frame(frame, t + STEADY * 2), Step::Duplicate { wire: Square::C3 as u32, owner: Square::A1 });
    }

    #[test]
    fn the_map_goes_into_the_board_table() {
        let map = SquareMap::default().rotated();
        let text = "[board]\nkind = \"gpio-matrix\"\nsquares = [\n  \"a1\",\n]\n\n[voice]\nsay = \"de:annex-d\"\n";
        let new = with_squares(text, &map);
        let cfg = config::parse(Path::new("t.toml"), &new).unwrap();
        assert_eq!(cfg.board.squares, Some(map));
        assert_eq!(cfg.board.kind, crate::config::BoardKind::GpioMatrix);
        assert_eq!(cfg.voice.say.to_string(), "de:annex-d");
        let cfg = config::parse(Path::new("t.toml"), &with_squares("[voice]\nrate = 150\n", &map)).unwrap();
        assert_eq!(cfg.board.squares, Some(map));
        assert_eq!(cfg.voice.rate.get(), 150);
    }
}
