//! `tactus doctor`: checks what the daemon needs on this machine and says
//! how to fix each thing that is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::config::{self, Config};

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
fn accessible(path: &Path) -> Result<(), String> {
    match std::fs::OpenOptions::new().read(true).write(true).open(path) {
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

fn device_check(what: &str, paths: &[&str], group: &str, enable: &str) -> Check {
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
                    "add the user to group {group} (sudo usermod -aG {group} $USER, then log in again), or install the udev rules: sudo install/pi.sh"
                )),
            ),
        },
    }
}

fn checks(cfg: &Config, cfg_note: &str) -> Vec<Check> {
    let mut out = vec![check("configuration", true, cfg_note, None)];
    let needs_gpio = cfg.board.kind == "gpio-matrix";
    let needs_i2c = cfg.board.kind == "mcp23017";
    let gpio = device_check(
        "GPIO (gpio-matrix board)",
        &["/dev/gpiomem", "/dev/gpiomem0"],
        "gpio",
        "this is not a Raspberry Pi, or the GPIO driver is missing: use --board sim to try tactus",
    );
    out.push(if needs_gpio { gpio } else { Check { fix: None, ..gpio } });
    let i2c = device_check(
        "I²C (mcp23017 board)",
        &["/dev/i2c-1"],
        "i2c",
        "enable I²C: sudo raspi-config nonint do_i2c 0, then reboot",
    );
    out.push(if needs_i2c { i2c } else { Check { fix: None, ..i2c } });
    let cards = std::fs::read_to_string("/proc/asound/cards").unwrap_or_default();
    let has_card = Path::new("/dev/snd").exists() && !cards.trim().is_empty() && !cards.contains("no soundcards");
    let wants_sound = cfg.voice.sink == "sound";
    out.push(check(
        "sound card",
        has_card || !wants_sound,
        if has_card { cards.lines().next().unwrap_or("").trim().to_string() } else { "none found".into() },
        Some("plug in a USB sound card or speaker, or choose --voice text / wav:DIR".into()),
    ));
    let espeak = Command::new("espeak-ng").arg("--version").output();
    out.push(match espeak {
        Ok(o) if o.status.success() => {
            check("espeak-ng", true, String::from_utf8_lossy(&o.stdout).trim().to_string(), None)
        }
        _ => check(
            "espeak-ng",
            cfg.voice.sink == "none" || cfg.voice.sink == "text",
            "not found",
            Some("sudo apt-get install espeak-ng".into()),
        ),
    });
    if cfg.clock.device != "none" {
        let path = &cfg.clock.path;
        out.push(match accessible(path) {
            Ok(()) => check("clock", true, format!("{} ({})", path.display(), cfg.clock.device), None),
            Err(e) => check(
                "clock",
                false,
                format!("{}: {e}", path.display()),
                Some(if path.exists() {
                    "add the user to group dialout (sudo usermod -aG dialout $USER)".into()
                } else {
                    "plug in the clock's USB serial adapter; the udev rules (udev/99-tactus.rules) name it /dev/tactus-clock".into()
                }),
            ),
        });
    }
    let state = &cfg.state.dir;
    let probe = state.join(".tactus-doctor");
    let writable = std::fs::create_dir_all(state).and_then(|_| std::fs::write(&probe, b"ok")).is_ok();
    let _ = std::fs::remove_file(&probe);
    out.push(check(
        "state directory",
        writable,
        state.display().to_string(),
        Some(format!("make it writable for the service: sudo install -d -o tactus {}", state.display())),
    ));
    out
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let default = PathBuf::from("/etc/tactus/tactus.toml");
    let (cfg, note) = match &args.config {
        Some(p) => (config::load(p)?, p.display().to_string()),
        None if default.exists() => (config::load(&default)?, default.display().to_string()),
        None => (Config::default(), "none: the built-in defaults".to_string()),
    };
    cfg.validate()?;
    let found = checks(&cfg, &note);
    let mut problems = 0;
    for c in &found {
        let mark = if c.ok {
            "ok "
        } else if c.fix.is_some() {
            "FIX"
        } else {
            " - "
        };
        println!("{mark} {:<26} {}", c.what, c.detail);
        if let Some(fix) = &c.fix {
            problems += 1;
            println!("    → {fix}");
        }
    }
    if problems == 0 {
        println!("Everything tactus needs for this configuration is here.");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("{problems} thing(s) to fix.");
        Ok(ExitCode::from(1))
    }
}
