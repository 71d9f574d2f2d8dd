//! The reed (or hall) matrix on 16 GPIOs of a Raspberry Pi, through rppal:
//! eight row outputs driven low one at a time, eight column inputs with the
//! SoC's pull-ups, one diode per switch. Wiring: `hardware/reed-matrix-gpio.md`.

use std::path::Path;
use std::time::Duration;

use rppal::gpio::{Gpio, InputPin, OutputPin};
use shakmaty::Bitboard;

use crate::lines::{Lines, column_bits, scan_lines};
use crate::{BoardError, Matrix, SquareMap};

/// Which BCM GPIO numbers carry the matrix, and how squares sit on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpioConfig {
    /// BCM numbers of the row outputs, row 0 (rank 1 in the default map) first.
    pub rows: [u8; 8],
    /// BCM numbers of the column inputs, column 0 (file a) first.
    pub cols: [u8; 8],
    /// Wait before reading a row after a row that pulled a column low: the
    /// pull-up must recharge that column (50 kΩ internal pull-up × ~200 pF of
    /// cable ≈ 10 µs a time constant). Default 20 µs; with 4.7 kΩ external
    /// pull-ups on the columns, 3 µs.
    pub settle: Duration,
    pub map: SquareMap,
}

impl GpioConfig {
    /// The pin table of `hardware/reed-matrix-gpio.md`: I²C (BCM 2, 3), the
    /// UART (14, 15) and I²S audio (18–21) stay free.
    pub const DEFAULT_ROWS: [u8; 8] = [4, 17, 27, 22, 5, 6, 13, 26];
    pub const DEFAULT_COLS: [u8; 8] = [23, 24, 25, 8, 7, 12, 16, 9];

    pub fn validate(&self) -> Result<(), PinError> {
        let mut seen = 0u32;
        for (wires, what, pins) in [(PinTable::Rows, "row", &self.rows), (PinTable::Columns, "column", &self.cols)] {
            for (i, &pin) in pins.iter().enumerate() {
                if pin > 27 {
                    let message = format!("{what} {i}: BCM {pin} is not on the 40-pin header (GPIO 0–27)");
                    return Err(PinError { wires, message });
                }
                if seen >> pin & 1 == 1 {
                    let message =
                        format!("{what} {i}: BCM {pin} is used twice; each of the 16 matrix wires needs its own GPIO");
                    return Err(PinError { wires, message });
                }
                seen |= 1 << pin;
            }
        }
        Ok(())
    }
}

/// The matrix's two tables of pins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinTable {
    Rows,
    Columns,
}

/// A pin table that cannot work: which table holds the pin at fault, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PinError {
    pub wires: PinTable,
    pub message: String,
}

impl From<PinError> for BoardError {
    fn from(e: PinError) -> Self {
        BoardError::Config(e.message)
    }
}

impl Default for GpioConfig {
    fn default() -> Self {
        GpioConfig {
            rows: Self::DEFAULT_ROWS,
            cols: Self::DEFAULT_COLS,
            settle: Duration::from_micros(20),
            map: SquareMap::default(),
        }
    }
}

/// The device files through which rppal reaches the GPIO registers.
const GPIOMEM: [&str; 2] = ["/dev/gpiomem", "/dev/gpiomem0"];

/// The GPIO matrix. Construction claims the 16 pins; dropping it releases them
/// (back to inputs).
pub struct GpioMatrix {
    lines: PinLines,
    map: SquareMap,
    faulty: Bitboard,
}

struct PinLines {
    rows: Vec<OutputPin>,
    cols: Vec<InputPin>,
    selected: Option<usize>,
    settle: Duration,
}

impl Lines for PinLines {
    fn select(&mut self, row: Option<usize>) -> Result<(), BoardError> {
        if let Some(old) = self.selected {
            self.rows[old].set_high();
        }
        if let Some(new) = row {
            self.rows[new].set_low();
            // A read from the GPIO block completes the posted write and gives
            // the input synchronisers their few cycles before the columns are read.
            let _ = self.cols[0].is_low();
        }
        self.selected = row;
        Ok(())
    }

    fn columns(&mut self) -> Result<u8, BoardError> {
        Ok(self.cols.iter().enumerate().fold(0, |bits, (c, pin)| bits | u8::from(pin.is_low()) << c))
    }

    fn settle(&mut self) {
        if !self.settle.is_zero() {
            std::thread::sleep(self.settle);
        }
    }
}

fn gpio_error(e: rppal::gpio::Error) -> BoardError {
    use rppal::gpio::Error;
    match e {
        Error::PermissionDenied(path) => BoardError::Permission(format!(
            "no permission to open {path}: add the user to group gpio (`sudo adduser $USER gpio`, then log in again); \
             the tactus service has it through SupplementaryGroups=gpio and udev/99-tactus.rules"
        )),
        Error::PinUsed(pin) => BoardError::Config(format!(
            "BCM {pin} is already in use (by this process or a kernel driver: 1-wire, SPI, I²S?); \
             free it in /boot/firmware/config.txt or move the wire"
        )),
        Error::PinNotAvailable(pin) => BoardError::Config(format!("BCM {pin} is not available on this Raspberry Pi")),
        Error::UnknownModel => {
            BoardError::Unavailable("no GPIO: this is not a Raspberry Pi rppal knows (unknown model)".into())
        }
        other => BoardError::Io(format!("GPIO: {other}")),
    }
}

impl GpioMatrix {
    pub fn new(config: GpioConfig) -> Result<Self, BoardError> {
        config.validate()?;
        if !GPIOMEM.iter().any(|p| Path::new(p).exists()) {
            return Err(BoardError::Unavailable("no GPIO: /dev/gpiomem missing — is this a Raspberry Pi?".into()));
        }
        let gpio = Gpio::new().map_err(gpio_error)?;
        let mut rows = Vec::with_capacity(8);
        for pin in config.rows {
            rows.push(gpio.get(pin).map_err(gpio_error)?.into_output_high());
        }
        let mut cols = Vec::with_capacity(8);
        for pin in config.cols {
            cols.push(gpio.get(pin).map_err(gpio_error)?.into_input_pullup());
        }
        let lines = PinLines { rows, cols, selected: None, settle: config.settle };
        Ok(GpioMatrix { lines, map: config.map, faulty: Bitboard::EMPTY })
    }
}

impl Matrix for GpioMatrix {
    fn name(&self) -> &str {
        "gpio-matrix"
    }

    fn read(&mut self) -> Result<Bitboard, BoardError> {
        let (raw, idle) = scan_lines(&mut self.lines)?;
        self.faulty = self.map.map_bits(column_bits(idle));
        Ok(self.map.map_bits(raw))
    }

    fn faulty(&self) -> Bitboard {
        self.faulty
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_pins_are_valid_and_avoid_i2c_uart_and_i2s() {
        let c = GpioConfig::default();
        c.validate().unwrap();
        for pin in c.rows.iter().chain(&c.cols) {
            assert!(![2, 3, 14, 15, 18, 19, 20, 21].contains(pin), "BCM {pin}");
        }
    }

    #[test]
    fn duplicate_and_off_header_pins_are_refused() {
        let mut c = GpioConfig::default();
        c.cols[3] = c.rows[0];
        assert!(c.validate().unwrap_err().to_string().contains("column 3: BCM 4 is used twice"));
        c.cols[3] = 40;
        assert!(c.validate().unwrap_err().to_string().contains("not on the 40-pin header"));
    }

    #[test]
    fn off_a_pi_construction_says_what_to_do() {
        if GPIOMEM.iter().any(|p| Path::new(p).exists()) {
            return; // on a Pi: nothing to check here
        }
        let e = GpioMatrix::new(GpioConfig::default()).err().unwrap();
        assert!(matches!(e, BoardError::Unavailable(_)));
        assert_eq!(e.to_string(), "no GPIO: /dev/gpiomem missing — is this a Raspberry Pi?");
    }
}
