//! What one value alone cannot show, checked against the whole
//! configuration once the flags are on top: the pin tables, the start
//! position under the variant, a board and a clock on one port, a port to
//! listen on, and the one opponent.

use super::keys::key;
use super::opponent::OpponentPlan;
use super::{BoardKind, ClockKind, Config, KeyError};

impl Config {
    /// The whole checked; the opponent it names.
    pub fn check(&self) -> Result<OpponentPlan, KeyError> {
        let b = &self.board;
        let gpio = tactus_board::GpioConfig { rows: b.rows, cols: b.cols, ..Default::default() };
        if let Err(e) = gpio.validate() {
            let key = match e.wires {
                tactus_board::PinTable::Rows => key!(board.rows),
                tactus_board::PinTable::Columns => key!(board.cols),
            };
            return Err(KeyError::new(key, e.message));
        }
        let expander = tactus_board::Mcp23017Config {
            wiring: tactus_board::Mcp23017Wiring::Matrix { address: b.i2c_address.get() },
            ..Default::default()
        };
        expander.validate().map_err(|e| KeyError::new(key!(board.i2c_address), e.to_string()))?;
        let hall = tactus_board::Mcp23017Config {
            wiring: tactus_board::Mcp23017Wiring::Direct { addresses: b.hall_addresses },
            ..Default::default()
        };
        hall.validate().map_err(|e| KeyError::new(key!(board.hall_addresses), e.to_string()))?;
        let header = tactus_trace::Header {
            variant: self.game.variant,
            start_fen: self.game.start_fen.clone(),
            ..Default::default()
        };
        tactus_core::Session::new(&header, tactus_core::Policy::default())
            .map_err(|e| KeyError::new(key!(game.start_fen), e.to_string()))?;
        if b.kind == BoardKind::Dgt && self.clock.device == ClockKind::Dgt3000 {
            return Err(KeyError::new(
                key!(clock.device),
                "with board.kind = \"dgt\" the board owns its serial port, and its DGT 3000's levers \
                 are read through the board: set clock.device = \"none\"",
            ));
        }
        if self.http.listen.is_some_and(|a| a.port() == 0) {
            return Err(KeyError::new(
                key!(http.listen),
                "port 0 would listen on a port chosen at random, that no one can find: give one (e.g. 127.0.0.1:8080)",
            ));
        }
        self.opponent()
    }
}
