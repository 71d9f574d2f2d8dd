//! `[http]` and `[mqtt]`: where the game is shown, and the hall's broker.

use std::net::SocketAddr;
use std::path::PathBuf;

use serde::Deserialize;
use tactus_net::Broker;

use super::values::{BoardId, PlainName, parsed_opt, plain_name_or_empty};

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct HttpConfig {
    /// Where to serve the live page and PGN feed; absent: no HTTP.
    pub listen: Option<SocketAddr>,
    /// Bearer token the arbiter's actions need; absent: actions are refused.
    pub token: Option<String>,
    /// The token in a file only the service may read (better than `token`).
    pub token_file: Option<PathBuf>,
    /// The built web page; default a checkout's `web/dist`, or `/usr/share/tactus/web`.
    pub assets: Option<PathBuf>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct MqttConfig {
    /// The hall's broker; absent: no MQTT.
    #[serde(deserialize_with = "parsed_opt")]
    pub broker: Option<Broker>,
    /// The hall's name on the broker; `""`: [`MqttConfig::DEFAULT_HALL`].
    #[serde(deserialize_with = "plain_name_or_empty")]
    pub hall: Option<PlainName>,
    pub board_id: BoardId,
    /// The hall key shared by the hall's boards and relays (a file only the
    /// service may read); absent: nothing is sealed and MQTT control is off.
    pub hall_key_file: Option<PathBuf>,
    /// The broker login (see config/mosquitto/): user name and password file.
    pub username: Option<String>,
    pub password_file: Option<PathBuf>,
    /// The certificates TLS trusts for an `mqtts://` broker (default: the system's).
    pub ca_file: Option<PathBuf>,
}

/// How this board reaches its hall on the broker (`[mqtt]`): where, under
/// which hall, the login, the CA and the hall key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HallAccess {
    pub broker: Broker,
    pub hall: String,
    pub username: Option<String>,
    pub password_file: Option<PathBuf>,
    pub ca_file: Option<PathBuf>,
    pub hall_key_file: Option<PathBuf>,
}

impl MqttConfig {
    /// The hall of a board that names none.
    pub const DEFAULT_HALL: &str = "tactus";

    /// The hall's name on the broker.
    pub fn hall_name(&self) -> String {
        self.hall.as_ref().map_or(MqttConfig::DEFAULT_HALL, PlainName::as_str).to_owned()
    }

    /// The way to the hall, when a broker is given.
    pub fn access(&self) -> Option<HallAccess> {
        Some(HallAccess {
            broker: self.broker.clone()?,
            hall: self.hall_name(),
            username: self.username.clone(),
            password_file: self.password_file.clone(),
            ca_file: self.ca_file.clone(),
            hall_key_file: self.hall_key_file.clone(),
        })
    }
}

impl HallAccess {
    /// The link the board's publisher and a partner board use.
    pub fn link(&self) -> Result<tactus_net::HallLink, tactus_net::MqttError> {
        let broker = self.broker.to_string();
        tactus_net::HallLink::from_settings(&tactus_net::LinkSettings {
            broker: &broker,
            username: self.username.as_deref(),
            password_file: self.password_file.as_deref(),
            ca_file: self.ca_file.as_deref(),
            hall_key_file: self.hall_key_file.as_deref(),
        })
    }
}
