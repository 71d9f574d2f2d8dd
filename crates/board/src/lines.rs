//! Row-by-row decoding of a switch matrix, shared by the GPIO and MCP23017
//! backends and testable against an electrical model of the wires.
//!
//! One row is driven low at a time; a column reads low when a closed switch
//! joins it to that row. With a diode in series with every switch (anode on the
//! column, cathode on the row) current can only flow from a column into the
//! driven row through a switch of that row, so what a column reads is exactly
//! that one switch: no ghosts, however many switches are closed.

use crate::BoardError;

/// The row and column wires of an 8 × 8 matrix.
pub trait Lines {
    /// Drives row `row` (0–7) active and releases the others; `None` releases
    /// every row.
    fn select(&mut self, row: Option<usize>) -> Result<(), BoardError>;
    /// Bit `c` set: column `c` reads active (pulled low through a closed switch).
    fn columns(&mut self) -> Result<u8, BoardError>;
    /// Waits for the wires to settle after [`Lines::select`] (pull-ups charging
    /// the cable). Sleeps; the default is no wait.
    fn settle(&mut self) {}
}

/// Reads a whole frame: bit `row * 8 + col` set for a closed switch. Also
/// returns the columns that read active with no row driven — a column shorted
/// to ground or missing its pull-up — whose eight readings mean nothing.
///
/// The rows are released between frames, so the columns are high when a frame
/// starts. A column pulled low through a closed switch falls at once (a few
/// ohms of driver and diode) but rises again only through its pull-up, so the
/// read of a row waits ([`Lines::settle`]) only when the previous row pulled
/// some column low: on an idle board about half the rows hold no piece and
/// their reads need no wait.
pub fn scan_lines<L: Lines + ?Sized>(lines: &mut L) -> Result<(u64, u8), BoardError> {
    lines.select(None)?;
    let idle = lines.columns()?;
    let mut raw = 0u64;
    let mut pulled_low = 0u8;
    for row in 0..8 {
        lines.select(Some(row))?;
        if pulled_low & !idle != 0 {
            lines.settle();
        }
        pulled_low = lines.columns()?;
        raw |= u64::from(pulled_low) << (row * 8);
    }
    lines.select(None)?;
    Ok((raw, idle))
}

/// All eight rows of the columns in `cols`, as raw frame bits.
pub(crate) fn column_bits(cols: u8) -> u64 {
    u64::from(cols) * 0x0101_0101_0101_0101
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wires as a circuit: closed switches join a row and a column; a
    /// column reads low if current from its pull-up can reach the driven row.
    struct Wires {
        closed: u64,
        diodes: bool,
        selected: Option<usize>,
        /// Columns shorted to ground.
        grounded: u8,
        settles: usize,
    }

    impl Wires {
        fn closed(&self, row: usize, col: usize) -> bool {
            self.closed >> (row * 8 + col) & 1 == 1
        }
    }

    impl Lines for Wires {
        fn settle(&mut self) {
            self.settles += 1;
        }
        fn select(&mut self, row: Option<usize>) -> Result<(), BoardError> {
            self.selected = row;
            Ok(())
        }
        fn columns(&mut self) -> Result<u8, BoardError> {
            let mut low = self.grounded;
            let Some(driven) = self.selected else { return Ok(low) };
            if self.diodes {
                // Current flows column → row only: just the driven row's switches.
                for col in 0..8 {
                    if self.closed(driven, col) {
                        low |= 1 << col;
                    }
                }
                return Ok(low);
            }
            // Without diodes every closed switch conducts both ways: a column is
            // low if any path of closed switches joins it to the driven row.
            let mut rows = 1u8 << driven;
            loop {
                let mut cols = low;
                for r in 0..8 {
                    for c in 0..8 {
                        if rows >> r & 1 == 1 && self.closed(r, c) {
                            cols |= 1 << c;
                        }
                    }
                }
                let mut more_rows = rows;
                for r in 0..8 {
                    for c in 0..8 {
                        if cols >> c & 1 == 1 && self.closed(r, c) {
                            more_rows |= 1 << r;
                        }
                    }
                }
                if cols == low && more_rows == rows {
                    return Ok(low);
                }
                low = cols;
                rows = more_rows;
            }
        }
    }

    fn bit(row: usize, col: usize) -> u64 {
        1 << (row * 8 + col)
    }

    #[test]
    fn three_switches_at_rectangle_corners_ghost_a_fourth_without_diodes() {
        let closed = bit(0, 0) | bit(0, 1) | bit(1, 0);
        let mut bare = Wires { closed, diodes: false, selected: None, grounded: 0, settles: 0 };
        let (raw, _) = scan_lines(&mut bare).unwrap();
        assert_eq!(raw, closed | bit(1, 1), "the fourth corner reads closed: a ghost");
        let mut with_diodes = Wires { closed, diodes: true, selected: None, grounded: 0, settles: 0 };
        let (raw, idle) = scan_lines(&mut with_diodes).unwrap();
        assert_eq!(raw, closed, "diodes: exactly the closed switches");
        assert_eq!(idle, 0);
    }

    #[test]
    fn with_diodes_any_set_of_closed_switches_decodes_exactly() {
        // The 32 pieces of the start position, and pseudo-random frames.
        let start = 0xFFFF_0000_0000_FFFFu64;
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut frames = vec![start, u64::MAX, 0];
        for _ in 0..500 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            frames.push(x);
        }
        for closed in frames {
            let mut w = Wires { closed, diodes: true, selected: None, grounded: 0, settles: 0 };
            assert_eq!(scan_lines(&mut w).unwrap(), (closed, 0), "{closed:#018x}");
            assert_eq!(w.selected, None, "every row is released after a scan");
        }
    }

    #[test]
    fn a_row_is_waited_for_only_after_a_row_that_pulled_a_column_low() {
        // The start position: ranks 1, 2, 7 and 8 hold pieces. Rows 1, 2 and 7
        // follow such a row; rows 0 (after the idle read), 3 … 6 need no wait.
        let mut w = Wires { closed: 0xFFFF_0000_0000_FFFF, diodes: true, selected: None, grounded: 0, settles: 0 };
        scan_lines(&mut w).unwrap();
        assert_eq!(w.settles, 3);
        w.settles = 0;
        w.closed = 0;
        scan_lines(&mut w).unwrap();
        assert_eq!(w.settles, 0, "an empty board: no waits");
    }

    #[test]
    fn a_grounded_column_reads_active_with_no_row_driven() {
        let mut w = Wires { closed: bit(3, 4), diodes: true, selected: None, grounded: 1 << 6, settles: 0 };
        let (raw, idle) = scan_lines(&mut w).unwrap();
        assert_eq!(idle, 1 << 6);
        assert_eq!(w.settles, 1, "a grounded column does not need to recharge: only after row 3");
        assert_eq!(raw & column_bits(1 << 6), column_bits(1 << 6), "the whole column reads closed");
        assert_eq!(raw & !column_bits(1 << 6), bit(3, 4));
    }
}
