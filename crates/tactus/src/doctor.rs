//! `tactus doctor`: checks what the daemon needs on this machine and says
//! how to fix each thing that is missing.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use tactus_lichess::api::{BOARD_PLAY, STUDY_WRITE};
use tactus_lichess::http::{Client, Settings};
use tactus_lichess::token::Token;

use crate::config::{self, BoardKind, ClockKind, Config};
use crate::daemon::web_dir;
use crate::sink::{self, VoiceSink};

#[derive(clap::Args)]
pub struct Args {
    /// The configuration to check against (default /etc/tactus/tactus.toml, if present).
    #[arg(long)]
    config: Option<PathBuf>,
}

/// One finding: what was checked, whether it is fine, and the fix.
struct Check {
    what: String,
    ok: bool,
    detail: String,
    fix: Option<String>,
}

fn check(what: impl Into<String>, ok: bool, detail: impl Into<String>, fix: Option<String>) -> Check {
    Check { what: what.into(), ok, detail: detail.into(), fix: if ok { None } else { fix } }
}

/// Whether this process may read and write a device file.
fn accessible(path: &Path) -> std::io::Result<()> {
    std::fs::OpenOptions::new().read(true).write(true).open(path).map(drop)
}

fn device_check(what: &str, paths: &[String], group: &str, enable: &str) -> Check {
    let found = paths.iter().map(Path::new).find(|p| p.exists());
    match found {
        None => check(what, false, format!("{} missing", paths.join(" / ")), Some(enable.to_string())),
        Some(p) => match accessible(p) {
            Ok(()) => check(what, true, format!("{} usable", p.display()), None),
            Err(e) => check(
                what,
                false,
                format!("{}: {e}", p.display()),
                Some(format!(
                    "add the user to group {group} (sudo usermod -aG {group} $USER, then log in again); the tactus service is in it already"
                )),
            ),
        },
    }
}

/// Why a host's port cannot be reached.
#[derive(Debug, thiserror::Error)]
enum Unreachable {
    #[error("cannot resolve {host}: {source}")]
    Unresolved { host: String, source: std::io::Error },
    #[error("{0} has no address")]
    NoAddress(String),
    #[error("{addr}: {source}")]
    Refused { addr: std::net::SocketAddr, source: std::io::Error },
}

/// Whether a TCP connection to `host:port` opens within two seconds.
fn reachable(host: &str, port: u16) -> Result<(), Unreachable> {
    use std::net::ToSocketAddrs;
    let addrs =
        (host, port).to_socket_addrs().map_err(|source| Unreachable::Unresolved { host: host.into(), source })?;
    let mut last = Unreachable::NoAddress(host.into());
    for addr in addrs {
        match std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)) {
            Ok(_) => return Ok(()),
            Err(source) => last = Unreachable::Refused { addr, source },
        }
    }
    Err(last)
}

fn board_check(cfg: &Config) -> Check {
    let b = &cfg.board;
    match b.kind {
        BoardKind::Sim => match &b.sim_trace {
            None => check("board (sim)", true, "lifts and places typed at standard input", None),
            Some(path) => match std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|t| tactus_trace::read_str(&t).map(|(_, entries)| entries.len()).map_err(|e| e.to_string()))
            {
                Ok(n) => check("board (sim)", true, format!("{}: {n} entries", path.display()), None),
                Err(e) => check(
                    "board (sim)",
                    false,
                    format!("{}: {e}", path.display()),
                    Some("give [board] sim_trace a readable trace (docs/trace-format.md)".into()),
                ),
            },
        },
        BoardKind::GpioMatrix => device_check(
            "board (gpio-matrix)",
            &["/dev/gpiomem".into(), "/dev/gpiomem0".into()],
            "gpio",
            "this is not a Raspberry Pi, or the GPIO driver is missing; to try tactus without a board: tactus run --board sim",
        ),
        BoardKind::Dgt => device_check(
            "board (dgt)",
            &[b.dgt_path.display().to_string()],
            "dialout",
            "plug in the DGT board's USB cable (or pair it: hardware/dgt-emulation.md has the Bluetooth steps), or set [board] dgt_path",
        ),
        BoardKind::Mcp23017 | BoardKind::Hall => device_check(
            &format!("board ({})", b.kind),
            &[b.i2c_device().display().to_string()],
            "i2c",
            &format!(
                "enable I²C bus {} (on a Raspberry Pi: sudo raspi-config nonint do_i2c 0, then reboot), or set [board] i2c_bus",
                b.i2c_bus
            ),
        ),
    }
}

fn checks(cfg: &Config, cfg_note: &str) -> Vec<Check> {
    let mut out = vec![check("configuration", true, cfg_note, None), board_check(cfg)];
    let card = sink::sound_card();
    let wants_sound = cfg.voice.sink == VoiceSink::Sound;
    out.push(check(
        "sound card",
        card.is_some() || !wants_sound,
        card.unwrap_or_else(|| "none found".into()),
        Some("plug in a USB sound card or speaker, or set [voice] sink to text, wav:DIR or text+wav:DIR".into()),
    ));
    let espeak = Command::new("espeak-ng").arg("--version").output();
    out.push(match espeak {
        Ok(o) if o.status.success() => {
            check("espeak-ng", true, String::from_utf8_lossy(&o.stdout).trim().to_string(), None)
        }
        _ => check(
            "espeak-ng",
            !cfg.voice.sink.synthesises(),
            "not found",
            Some("sudo apt-get install espeak-ng".into()),
        ),
    });
    if let VoiceSink::Wav(dir) | VoiceSink::TextWav(dir) = &cfg.voice.sink {
        out.push(writable("WAV folder", dir, "make it writable, or set [voice] sink to another folder"));
    }
    if cfg.clock.device != ClockKind::None {
        let path = cfg.clock.path();
        let what = format!("clock ({:?} at {} baud)", cfg.clock.device, cfg.clock.baud()).to_lowercase();
        out.push(match accessible(&path) {
            Ok(()) => check(what, true, path.display().to_string(), None),
            Err(e) => check(
                what,
                false,
                format!("{}: {e}", path.display()),
                Some(if path.exists() {
                    "add the user to group dialout (sudo usermod -aG dialout $USER)".into()
                } else {
                    "plug in the clock's USB serial adapter; tactus's udev rules name it /dev/tactus-clock (a DGT board: /dev/tactus-dgt), or set [clock] path".into()
                }),
            ),
        });
    }
    out.push(writable(
        "state directory",
        &cfg.state.dir,
        &format!("make it writable for the service: sudo install -d -o tactus {}", cfg.state.dir.display()),
    ));
    let web = web_dir(cfg.http.assets.as_ref());
    let page = web.join("index.html").exists();
    out.push(check(
        "web page",
        page || cfg.http.listen.is_none(),
        if page { web.display().to_string() } else { format!("no index.html in {}", web.display()) },
        Some("install the tactus package (it brings /usr/share/tactus/web), or build it: cd web && npm ci && npm run build".into()),
    ));
    if let Some(addr) = cfg.http.listen {
        out.push(match std::net::TcpListener::bind(addr) {
            Ok(_) => check("HTTP", true, format!("{addr} free to serve on"), None),
            Err(e) => check(
                "HTTP",
                false,
                format!("{addr}: {e}"),
                Some("if the tactus service is running, it is serving there; else choose another [http] listen".into()),
            ),
        });
    }
    if let Some(broker) = &cfg.mqtt.broker {
        out.push(match reachable(&broker.host, broker.port) {
            Ok(()) => check("MQTT broker", true, format!("{broker} answers"), None),
            Err(e) => check(
                "MQTT broker",
                false,
                e.to_string(),
                Some(format!("is the broker running and reachable? check [mqtt] broker ({broker})")),
            ),
        });
    }
    if let Some(c) = lichess_check(cfg) {
        out.push(c);
    }
    out
}

/// Where a Lichess token with the broadcast's scope is made, filled in.
const BROADCAST_TOKEN: &str =
    "https://lichess.org/account/oauth/token/create?scopes[]=study:write&description=tactus+broadcast";

/// Where a Lichess token for playing on the board is made, filled in.
const BOARD_TOKEN: &str = "https://lichess.org/account/oauth/token/create?scopes[]=board:play&description=tactus+board";

/// A configured Lichess token: readable only by its owner, known to
/// Lichess (`POST /api/token/test`), and with the scope it is for: a relay's
/// broadcast (the config names rounds) needs study:write; otherwise
/// `tactus run` plays the account's games on the board, which needs
/// board:play.
fn lichess_check(cfg: &Config) -> Option<Check> {
    let l = &cfg.lichess;
    let broadcast = !l.broadcast.is_empty();
    let (scope, create) = if broadcast { (STUDY_WRITE, BROADCAST_TOKEN) } else { (BOARD_PLAY, BOARD_TOKEN) };
    let new_token = || {
        format!(
            "create a token with the scope {scope} at {create}, save it in a file (chmod 600) and give it as [lichess] token_file"
        )
    };
    let what = "Lichess token";
    let Some(file) = &l.token_file else {
        let wants = if broadcast {
            Some("[lichess] broadcast names rounds")
        } else if l.asking().is_some() {
            Some("[lichess] challenge, seek or accept_from asks for online games")
        } else {
            None
        };
        return wants
            .map(|wants| check(what, false, format!("{wants}, but there is no token_file"), Some(new_token())));
    };
    let token = match Token::read(file) {
        Ok(token) => token,
        Err(e) => return Some(check(what, false, e.to_string(), Some(new_token()))),
    };
    let settings = Settings { url: l.url.to_string(), timeout: Duration::from_secs(10), ..Settings::default() };
    let asked = Client::new(token, settings).map_err(|e| e.to_string()).and_then(|client| {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
        runtime.block_on(client.token_check()).map_err(|e| e.to_string())
    });
    Some(match asked {
        Err(e) => check(
            what,
            false,
            format!("{}: {e}", l.url),
            Some(format!("is this machine online, and is [lichess] url ({}) Lichess's address?", l.url)),
        ),
        Ok(None) => check(
            what,
            false,
            format!("{}: Lichess does not know this token (revoked, expired or mistyped)", file.display()),
            Some(new_token()),
        ),
        Ok(Some(known)) => {
            let scopes = if known.scopes.is_empty() { "no scope".to_string() } else { known.scopes.join(", ") };
            let detail = format!("{}: {}'s, with {scopes}", file.display(), known.user_id);
            if known.has(scope) {
                check(what, true, detail, None)
            } else if broadcast {
                check(what, false, format!("{detail}: a broadcast push needs {STUDY_WRITE}"), Some(new_token()))
            } else {
                let needs = format!("{detail}: playing on the board (tactus run) needs {BOARD_PLAY}");
                check(what, false, needs, Some(new_token()))
            }
        }
    })
}

/// Whether this process can create a file in `dir` (creating `dir`).
fn writable(what: &str, dir: &Path, fix: &str) -> Check {
    let probe = dir.join(".tactus-doctor");
    let ok = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&probe, b"ok")).is_ok();
    let _ = std::fs::remove_file(&probe);
    check(what, ok, dir.display().to_string(), Some(fix.to_string()))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (cfg, file) = config::Draft::read(args.config.as_deref())?.checked()?;
    let found = checks(&cfg, &config::origin(file.as_deref()));
    let mut out = std::io::stdout().lock();
    let mut problems = 0;
    for c in &found {
        let mark = if c.ok {
            "ok "
        } else if c.fix.is_some() {
            "FIX"
        } else {
            " - "
        };
        writeln!(out, "{mark} {:<26} {}", c.what, c.detail)?;
        if let Some(fix) = &c.fix {
            problems += 1;
            writeln!(out, "    → {fix}")?;
        }
    }
    if problems == 0 {
        writeln!(out, "Everything tactus needs for this configuration is here.")?;
        Ok(ExitCode::SUCCESS)
    } else {
        writeln!(out, "{problems} thing(s) to fix.")?;
        Ok(ExitCode::from(1))
    }
}
