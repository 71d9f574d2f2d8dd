//! The matrix through MCP23017 I²C port expanders (`hardware/mcp23017.md`):
//!
//! - [`Mcp23017Wiring::Matrix`]: one expander, eight pins on the rows, eight on
//!   the columns with the chip's pull-ups, a diode per switch — the GPIO matrix
//!   on two wires instead of sixteen. A row is driven by making only its pin an
//!   output (its latch holds 0), so idle rows float instead of being driven
//!   high: open-drain rows, no row-to-row short even without diodes.
//! - [`Mcp23017Wiring::Direct`]: eight expanders, one a rank, one input per
//!   square, for hall sensors with open-drain outputs (low when a magnet is
//!   near): no matrix, no diodes.
//!
//! Pins are numbered 0–15: GPA0–GPA7, then GPB0–GPB7. GPA7 and GPB7 are
//! output-only on current silicon (datasheet revision D, 2022), so they can
//! drive rows but never read columns; the default pin table puts them on rows.

use std::time::Duration;

use shakmaty::Bitboard;

use crate::lines::{Lines, column_bits, scan_lines};
use crate::{BoardError, Matrix, SquareMap};

/// Registers, IOCON.BANK = 0 (the power-on layout): each A register is followed
/// by its B register, so one transfer reads or writes both ports.
mod reg {
    pub const IODIRA: u8 = 0x00;
    pub const IPOLA: u8 = 0x02;
    pub const IOCON: u8 = 0x0A;
    pub const GPPUA: u8 = 0x0C;
    pub const GPIOA: u8 = 0x12;
    pub const OLATA: u8 = 0x14;
}

/// An I²C bus as the expander driver needs it: register writes and reads at
/// 7-bit addresses. rppal's `I2c` on a Pi; a model of the chip in tests.
pub trait I2cBus: Send {
    /// Writes `values` to the registers from `reg` on (sequential addressing).
    fn write_regs(&mut self, addr: u16, reg: u8, values: &[u8]) -> Result<(), BoardError>;
    /// Reads `buf.len()` registers from `reg` on (sequential addressing).
    fn read_regs(&mut self, addr: u16, reg: u8, buf: &mut [u8]) -> Result<(), BoardError>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mcp23017Wiring {
    /// One expander at `address` (0x20–0x27), rows and columns on the pins
    /// of [`Mcp23017Config::rows`] and [`Mcp23017Config::cols`].
    Matrix { address: u16 },
    /// Eight expanders, one a wire row (rank, in the default map): columns 0–6
    /// (files a–g) on GPA0–GPA6, column 7 (file h) on GPB0.
    Direct { addresses: [u16; 8] },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mcp23017Config {
    /// The I²C bus: 1 is the header's SDA/SCL (BCM 2, 3), `/dev/i2c-1`.
    pub bus: u8,
    pub wiring: Mcp23017Wiring,
    /// Matrix wiring: the expander pin (0–15 = GPA0–GPB7) of each row, row 0 first.
    pub rows: [u8; 8],
    /// Matrix wiring: the expander pin of each column, column 0 first; never
    /// GPA7 (7) or GPB7 (15), which cannot read.
    pub cols: [u8; 8],
    /// Extra wait after selecting a row; an I²C transfer (≈ 100 µs at 400 kHz)
    /// is usually settling enough. Default 0.
    pub settle: Duration,
    pub map: SquareMap,
}

impl Default for Mcp23017Config {
    fn default() -> Self {
        Mcp23017Config {
            bus: 1,
            wiring: Mcp23017Wiring::Matrix { address: 0x20 },
            rows: Self::DEFAULT_ROWS,
            cols: Self::DEFAULT_COLS,
            settle: Duration::ZERO,
            map: SquareMap::default(),
        }
    }
}

impl Mcp23017Config {
    /// Rows (ranks 1–8): GPA0–GPA5, GPA7, GPB7 — the output-only pins drive rows.
    pub const DEFAULT_ROWS: [u8; 8] = [0, 1, 2, 3, 4, 5, 7, 15];
    /// Columns (files a–h): GPB0–GPB6, GPA6.
    pub const DEFAULT_COLS: [u8; 8] = [8, 9, 10, 11, 12, 13, 14, 6];

    pub fn addresses(&self) -> Vec<u16> {
        match self.wiring {
            Mcp23017Wiring::Matrix { address } => vec![address],
            Mcp23017Wiring::Direct { addresses } => addresses.to_vec(),
        }
    }

    pub fn validate(&self) -> Result<(), BoardError> {
        let addresses = self.addresses();
        for (i, a) in addresses.iter().enumerate() {
            if !(0x20..=0x27).contains(a) {
                return Err(BoardError::Config(format!(
                    "MCP23017 address {a:#04x}: must be 0x20–0x27 (0x20 + the A2 A1 A0 pins)"
                )));
            }
            if addresses[..i].contains(a) {
                return Err(BoardError::Config(format!(
                    "MCP23017 address {a:#04x} given twice: strap each expander's A0–A2 differently"
                )));
            }
        }
        if let Mcp23017Wiring::Matrix { .. } = self.wiring {
            let mut seen = 0u16;
            for (what, pins) in [("row", &self.rows), ("column", &self.cols)] {
                for (i, &pin) in pins.iter().enumerate() {
                    if pin > 15 {
                        return Err(BoardError::Config(format!(
                            "MCP23017 {what} {i}: pin {pin} does not exist (0–7 = GPA0–GPA7, 8–15 = GPB0–GPB7)"
                        )));
                    }
                    if seen >> pin & 1 == 1 {
                        return Err(BoardError::Config(format!(
                            "MCP23017 {what} {i}: {} is used twice",
                            pin_name(pin)
                        )));
                    }
                    seen |= 1 << pin;
                    if what == "column" && (pin == 7 || pin == 15) {
                        return Err(BoardError::Config(format!(
                            "MCP23017 column {i}: {} is output-only on current MCP23017s (datasheet rev. D); \
                             put it on a row",
                            pin_name(pin)
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

/// `GPA0` … `GPB7`.
pub fn pin_name(pin: u8) -> String {
    format!("GP{}{}", if pin < 8 { 'A' } else { 'B' }, pin % 8)
}

fn pin_mask(pins: &[u8; 8]) -> u16 {
    pins.iter().fold(0, |m, p| m | 1 << p)
}

/// The expander-backed matrix.
pub struct Mcp23017Matrix {
    bus: Box<dyn I2cBus>,
    config: Mcp23017Config,
    faulty: Bitboard,
}

impl Mcp23017Matrix {
    /// Opens `/dev/i2c-N` and sets the expanders up.
    #[cfg(target_os = "linux")]
    pub fn new(config: Mcp23017Config) -> Result<Self, BoardError> {
        config.validate()?;
        let dev = format!("/dev/i2c-{}", config.bus);
        if !std::path::Path::new(&dev).exists() {
            return Err(BoardError::Unavailable(format!(
                "no I²C bus: {dev} missing — enable I²C (`sudo raspi-config nonint do_i2c 0`, or \
                 dtparam=i2c_arm=on in /boot/firmware/config.txt, then reboot)"
            )));
        }
        let bus = rppal_bus::RppalBus::open(config.bus, &dev)?;
        Self::with_bus(bus, config)
    }

    /// Over any bus (tests: a model of the chips).
    pub fn with_bus(bus: impl I2cBus + 'static, config: Mcp23017Config) -> Result<Self, BoardError> {
        config.validate()?;
        let mut m = Mcp23017Matrix { bus: Box::new(bus), config, faulty: Bitboard::EMPTY };
        m.init()?;
        Ok(m)
    }

    fn init(&mut self) -> Result<(), BoardError> {
        let bus_no = self.config.bus;
        for addr in self.config.addresses() {
            let mut probe = [0u8];
            self.bus.read_regs(addr, reg::IODIRA, &mut probe).map_err(|e| {
                BoardError::Unavailable(format!(
                    "no MCP23017 answers at {addr:#04x} on /dev/i2c-{bus_no} ({e}): check power, SDA/SCL, \
                     the A0–A2 address straps and RESET tied high; `i2cdetect -y {bus_no}` lists what answers"
                ))
            })?;
            // Registers in A, B pairs. Matrix: latches 0, every pin an input
            // (rows released), pull-ups on the columns. Direct: all inputs
            // with pull-ups. Nothing inverted.
            let pullups = match self.config.wiring {
                Mcp23017Wiring::Matrix { .. } => pin_mask(&self.config.cols),
                Mcp23017Wiring::Direct { .. } => 0x7F7F,
            };
            self.bus.write_regs(addr, reg::IOCON, &[0x00])?;
            self.bus.write_regs(addr, reg::OLATA, &[0x00, 0x00])?;
            self.bus.write_regs(addr, reg::IPOLA, &[0x00, 0x00])?;
            self.bus.write_regs(addr, reg::GPPUA, &pullups.to_le_bytes())?;
            self.bus.write_regs(addr, reg::IODIRA, &[0xFF, 0xFF])?;
        }
        Ok(())
    }
}

struct ExpanderLines<'a> {
    bus: &'a mut dyn I2cBus,
    addr: u16,
    rows: [u8; 8],
    cols: [u8; 8],
    settle: Duration,
}

impl Lines for ExpanderLines<'_> {
    fn select(&mut self, row: Option<usize>) -> Result<(), BoardError> {
        // Only the selected row's pin is an output (driving its latch's 0).
        let iodir = row.map_or(0xFFFF, |r| !(1u16 << self.rows[r]));
        self.bus.write_regs(self.addr, reg::IODIRA, &iodir.to_le_bytes())
    }

    fn columns(&mut self) -> Result<u8, BoardError> {
        let mut ab = [0u8; 2];
        self.bus.read_regs(self.addr, reg::GPIOA, &mut ab)?;
        let levels = u16::from_le_bytes(ab);
        Ok(self.cols.iter().enumerate().fold(0, |bits, (c, pin)| bits | u8::from(levels >> pin & 1 == 0) << c))
    }

    fn settle(&mut self) {
        if !self.settle.is_zero() {
            std::thread::sleep(self.settle);
        }
    }
}

impl Matrix for Mcp23017Matrix {
    fn name(&self) -> &str {
        "mcp23017"
    }

    fn read(&mut self) -> Result<Bitboard, BoardError> {
        match self.config.wiring {
            Mcp23017Wiring::Matrix { address } => {
                let mut lines = ExpanderLines {
                    bus: &mut *self.bus,
                    addr: address,
                    rows: self.config.rows,
                    cols: self.config.cols,
                    settle: self.config.settle,
                };
                let (raw, idle) = scan_lines(&mut lines)?;
                self.faulty = self.config.map.map_bits(column_bits(idle));
                Ok(self.config.map.map_bits(raw))
            }
            Mcp23017Wiring::Direct { addresses } => {
                let mut raw = 0u64;
                for (k, addr) in addresses.iter().enumerate() {
                    let mut ab = [0u8; 2];
                    self.bus.read_regs(*addr, reg::GPIOA, &mut ab)?;
                    // Active low: an open-drain hall output pulls its input
                    // low. Files a–g on GPA0–GPA6, h on GPB0.
                    let rank = (!ab[0] & 0x7F) | (!ab[1] & 1) << 7;
                    raw |= u64::from(rank) << (8 * k);
                }
                Ok(self.config.map.map_bits(raw))
            }
        }
    }

    fn faulty(&self) -> Bitboard {
        self.faulty
    }
}

#[cfg(target_os = "linux")]
mod rppal_bus {
    use rppal::i2c::I2c;

    use super::I2cBus;
    use crate::BoardError;

    pub struct RppalBus {
        i2c: I2c,
        addr: Option<u16>,
        dev: String,
    }

    fn i2c_error(dev: &str, e: rppal::i2c::Error) -> BoardError {
        match e {
            rppal::i2c::Error::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
                BoardError::Permission(format!(
                    "no permission to open {dev}: add the user to group i2c (`sudo adduser $USER i2c`); the tactus \
                     service has it through SupplementaryGroups=i2c"
                ))
            }
            other => BoardError::Io(format!("{dev}: {other}")),
        }
    }

    impl RppalBus {
        pub fn open(bus: u8, dev: &str) -> Result<Self, BoardError> {
            let i2c = I2c::with_bus(bus).map_err(|e| i2c_error(dev, e))?;
            Ok(RppalBus { i2c, addr: None, dev: dev.to_string() })
        }

        fn address(&mut self, addr: u16) -> Result<(), BoardError> {
            if self.addr != Some(addr) {
                self.i2c.set_slave_address(addr).map_err(|e| i2c_error(&self.dev, e))?;
                self.addr = Some(addr);
            }
            Ok(())
        }
    }

    impl I2cBus for RppalBus {
        fn write_regs(&mut self, addr: u16, reg: u8, values: &[u8]) -> Result<(), BoardError> {
            self.address(addr)?;
            let mut buf = [0u8; 3];
            buf[0] = reg;
            buf[1..=values.len()].copy_from_slice(values);
            self.i2c.write(&buf[..=values.len()]).map(|_| ()).map_err(|e| i2c_error(&self.dev, e))
        }

        fn read_regs(&mut self, addr: u16, reg: u8, buf: &mut [u8]) -> Result<(), BoardError> {
            self.address(addr)?;
            self.i2c.write_read(&[reg], buf).map_err(|e| i2c_error(&self.dev, e))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};

    use shakmaty::Square;

    use super::*;

    /// MCP23017s as far as the driver uses them, with a diode matrix on the
    /// pins of the default table, or (direct) open-drain sensors on every input.
    #[derive(Default)]
    struct Chips {
        regs: HashMap<(u16, u8), u8>,
        /// Matrix: closed switches, bit row * 8 + col. Direct: sensors seeing a magnet.
        closed: u64,
        direct: bool,
        absent: Vec<u16>,
        transfers: usize,
    }

    impl Chips {
        fn get(&self, addr: u16, r: u8) -> u8 {
            self.regs.get(&(addr, r)).copied().unwrap_or(if r <= 1 { 0xFF } else { 0 })
        }
        fn get16(&self, addr: u16, r: u8) -> u16 {
            u16::from_le_bytes([self.get(addr, r), self.get(addr, r + 1)])
        }
        /// The level on each of the 16 pins.
        fn levels(&self, addr: u16) -> u16 {
            let k = (addr - 0x20) as usize;
            if self.direct {
                let rank = (self.closed >> (8 * k)) as u8;
                return !(u16::from(rank & 0x7F) | u16::from(rank >> 7) << 8);
            }
            let iodir = self.get16(addr, reg::IODIRA);
            let olat = self.get16(addr, reg::OLATA);
            let pullup = self.get16(addr, reg::GPPUA);
            let rows = Mcp23017Config::DEFAULT_ROWS;
            let cols = Mcp23017Config::DEFAULT_COLS;
            let mut low = !pullup; // an input without a pull-up floats: reads low here
            for (r, rp) in rows.iter().enumerate() {
                if iodir >> rp & 1 == 0 && olat >> rp & 1 == 0 {
                    low |= 1 << rp;
                    for (c, cp) in cols.iter().enumerate() {
                        if self.closed >> (r * 8 + c) & 1 == 1 {
                            low |= 1 << cp;
                        }
                    }
                }
            }
            !low
        }
    }

    #[derive(Clone, Default)]
    struct Bus(Arc<Mutex<Chips>>);

    impl I2cBus for Bus {
        fn write_regs(&mut self, addr: u16, reg: u8, values: &[u8]) -> Result<(), BoardError> {
            let mut c = self.0.lock().unwrap();
            if c.absent.contains(&addr) {
                return Err(BoardError::Io("Remote I/O error".into()));
            }
            c.transfers += 1;
            for (i, v) in values.iter().enumerate() {
                c.regs.insert((addr, reg + i as u8), *v);
            }
            Ok(())
        }

        fn read_regs(&mut self, addr: u16, reg: u8, buf: &mut [u8]) -> Result<(), BoardError> {
            let mut c = self.0.lock().unwrap();
            if c.absent.contains(&addr) {
                return Err(BoardError::Io("Remote I/O error".into()));
            }
            c.transfers += 1;
            let levels = c.levels(addr).to_le_bytes();
            for (i, b) in buf.iter_mut().enumerate() {
                let r = reg + i as u8;
                *b = match r {
                    0x12 | 0x13 => levels[(r - 0x12) as usize],
                    r => c.get(addr, r),
                };
            }
            Ok(())
        }
    }

    #[test]
    fn one_expander_scans_the_diode_matrix_row_by_row() {
        let bus = Bus::default();
        let mut m = Mcp23017Matrix::with_bus(bus.clone(), Mcp23017Config::default()).unwrap();
        assert_eq!(bus.0.lock().unwrap().get16(0x20, reg::GPPUA), 0x7F40, "pull-ups on the columns only");
        let start = 0xFFFF_0000_0000_FFFFu64;
        for closed in [start, 0, 1 << 28, start & !(1 << 12) | 1 << 28, u64::MAX, 1 << 63 | 1 << 7] {
            bus.0.lock().unwrap().closed = closed;
            let before = bus.0.lock().unwrap().transfers;
            assert_eq!(m.read().unwrap(), Bitboard(closed), "{closed:#018x}");
            assert_eq!(m.faulty(), Bitboard::EMPTY);
            // Ten IODIR writes (released, 8 rows, released) and nine reads.
            assert_eq!(bus.0.lock().unwrap().transfers - before, 19);
            assert_eq!(bus.0.lock().unwrap().get16(0x20, reg::IODIRA), 0xFFFF, "rows released after a frame");
        }
        assert_eq!(m.name(), "mcp23017");
    }

    #[test]
    fn eight_expanders_read_64_hall_sensors_directly() {
        let bus = Bus::default();
        let addresses = [0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27];
        let config = Mcp23017Config { wiring: Mcp23017Wiring::Direct { addresses }, ..Mcp23017Config::default() };
        bus.0.lock().unwrap().direct = true;
        let mut m = Mcp23017Matrix::with_bus(bus.clone(), config).unwrap();
        for squares in [[Square::A1, Square::H2, Square::E4], [Square::H8, Square::G7, Square::A8]] {
            let frame: Bitboard = squares.into_iter().collect();
            bus.0.lock().unwrap().closed = frame.0;
            assert_eq!(m.read().unwrap(), frame);
        }
        assert_eq!(bus.0.lock().unwrap().get16(0x27, reg::GPPUA), 0x7F7F, "pull-ups on every input");
    }

    #[test]
    fn a_missing_expander_is_named_with_what_to_check() {
        let bus = Bus::default();
        bus.0.lock().unwrap().absent = vec![0x21];
        let addresses = [0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27];
        let config = Mcp23017Config { wiring: Mcp23017Wiring::Direct { addresses }, ..Mcp23017Config::default() };
        let e = Mcp23017Matrix::with_bus(bus, config).err().unwrap().to_string();
        assert!(e.starts_with("no MCP23017 answers at 0x21 on /dev/i2c-1"), "{e}");
        assert!(e.contains("i2cdetect -y 1"), "{e}");
    }

    #[test]
    fn addresses_and_pins_are_checked() {
        let mut c = Mcp23017Config { wiring: Mcp23017Wiring::Matrix { address: 0x40 }, ..Mcp23017Config::default() };
        assert!(c.validate().unwrap_err().to_string().contains("0x40: must be 0x20–0x27"));
        c.wiring = Mcp23017Wiring::Direct { addresses: [0x20, 0x21, 0x21, 0x23, 0x24, 0x25, 0x26, 0x27] };
        assert!(c.validate().unwrap_err().to_string().contains("0x21 given twice"));
        let mut c = Mcp23017Config::default();
        c.validate().unwrap();
        c.cols[7] = 15;
        c.rows[7] = 6;
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains("column 7: GPB7 is output-only"), "{e}");
        c.cols[7] = 0;
        assert!(c.validate().unwrap_err().to_string().contains("column 7: GPA0 is used twice"));
    }
}
