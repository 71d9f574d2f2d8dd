//! `[board]` and `[clock]`: the devices at the table.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Deserializer};
use tactus_dgt::protocol::ClockSide;

use super::ranged::{Baud, I2cAddress, ScanHz, SettleUs, Speed};
use super::values::parsed;

/// Which sensors the board has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum BoardKind {
    /// A simulated board: a trace file, or lifts and places typed at the terminal.
    Sim,
    /// An 8×8 reed or hall matrix on 16 GPIOs (hardware/reed-matrix-gpio.md).
    GpioMatrix,
    /// The same matrix behind one MCP23017 I²C expander (hardware/mcp23017.md).
    Mcp23017,
    /// 64 hall sensors, one input each, on eight MCP23017s (hardware/hall-sensors.md).
    Hall,
    /// A DGT e-Board on USB or Bluetooth serial (`[board] dgt_path`).
    Dgt,
}

impl BoardKind {
    pub fn name(self) -> &'static str {
        match self {
            BoardKind::Sim => "sim",
            BoardKind::GpioMatrix => "gpio-matrix",
            BoardKind::Mcp23017 => "mcp23017",
            BoardKind::Hall => "hall",
            BoardKind::Dgt => "dgt",
        }
    }
}

impl fmt::Display for BoardKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BoardConfig {
    pub kind: BoardKind,
    /// Scans per second of a sensor matrix.
    pub scan_hz: ScanHz,
    /// `sim`: a trace to play (absent: lifts and places typed at the terminal).
    pub sim_trace: Option<PathBuf>,
    /// `sim`: how much faster than real time the trace plays.
    pub sim_speed: Speed,
    /// `gpio-matrix`: BCM numbers of the eight row outputs, rank 1 first.
    pub rows: [u8; 8],
    /// `gpio-matrix`: BCM numbers of the eight column inputs, file a first.
    pub cols: [u8; 8],
    /// `mcp23017`, `hall`: the I²C bus (`/dev/i2c-N`).
    pub i2c_bus: u8,
    /// `mcp23017`: the expander's address.
    pub i2c_address: I2cAddress,
    /// `hall`: the address of the expander of each rank, rank 1 first.
    pub hall_addresses: [u16; 8],
    /// Microseconds to let a column's pull-up recharge after a row that pulled it low.
    pub settle_us: SettleUs,
    /// The calibration: the square under each (row, column) wire pair, row
    /// by row; absent: a1 … h8 in wire order.
    #[serde(deserialize_with = "square_map")]
    pub squares: Option<tactus_board::SquareMap>,
    /// Be a DGT e-Board for chess software here: a serial device (a USB
    /// gadget port `/dev/ttyGS0`, Bluetooth `/dev/rfcomm0`), or else a
    /// pseudo-terminal whose other end is linked at this path.
    pub dgt_emulate: Option<PathBuf>,
    /// `dgt`: the DGT e-Board's serial device (USB `/dev/ttyACM0`, Bluetooth
    /// `/dev/rfcomm0`; tactus's udev rules name a USB one `/dev/tactus-dgt`).
    pub dgt_path: PathBuf,
}

impl Default for BoardConfig {
    fn default() -> Self {
        BoardConfig {
            kind: BoardKind::GpioMatrix,
            scan_hz: const { ScanHz::of(100) },
            sim_trace: None,
            sim_speed: Speed::REAL_TIME,
            rows: tactus_board::GpioConfig::DEFAULT_ROWS,
            cols: tactus_board::GpioConfig::DEFAULT_COLS,
            i2c_bus: 1,
            i2c_address: const { I2cAddress::of(0x20) },
            hall_addresses: [0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27],
            settle_us: const { SettleUs::of(20) },
            squares: None,
            dgt_emulate: None,
            dgt_path: "/dev/tactus-dgt".into(),
        }
    }
}

impl BoardConfig {
    pub fn i2c_device(&self) -> PathBuf {
        PathBuf::from(format!("/dev/i2c-{}", self.i2c_bus))
    }
}

fn square_map<'de, D: Deserializer<'de>>(d: D) -> Result<Option<tactus_board::SquareMap>, D::Error> {
    let names = Vec::<String>::deserialize(d)?;
    if names.is_empty() {
        return Ok(None);
    }
    names.join(" ").parse().map(Some).map_err(serde::de::Error::custom)
}

/// The chess clock's protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ClockKind {
    /// No clock device: the daemon keeps time alone.
    #[default]
    None,
    /// A home-made clock speaking the open line protocol (hardware/clock/).
    Open,
    /// A DGT 3000 through a DGT board's serial port.
    Dgt3000,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ClockConfig {
    pub device: ClockKind,
    /// The serial device; default `/dev/tactus-clock` (open) or `/dev/tactus-dgt` (dgt3000).
    pub path: Option<PathBuf>,
    /// Default 115200 (open) or 9600 (dgt3000).
    pub baud: Option<Baud>,
    /// dgt3000 (or a DGT clock on a DGT board): the side of White's face,
    /// seen from the clock's front.
    #[serde(deserialize_with = "parsed")]
    pub white: ClockSide,
}

impl ClockConfig {
    pub fn path(&self) -> PathBuf {
        self.path.clone().unwrap_or_else(|| match self.device {
            ClockKind::Dgt3000 => "/dev/tactus-dgt".into(),
            _ => "/dev/tactus-clock".into(),
        })
    }

    pub fn baud(&self) -> u32 {
        self.baud.map_or(
            match self.device {
                ClockKind::Dgt3000 => 9600,
                _ => 115_200,
            },
            Baud::get,
        )
    }
}
