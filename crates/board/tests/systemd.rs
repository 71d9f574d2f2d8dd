//! The Raspberry Pi install files: `systemd/tactus.service` passes
//! `systemd-analyze verify` and `systemd-analyze security --offline=true`
//! rates it 2.0 or lower; `udev/99-tactus.rules` is well formed; the install
//! script parses and its dry run names every step.
//!
//! Needs `systemd-analyze` (Debian package `systemd`; systemd need not be
//! running). Without it these tests fail: CI must not pass by skipping them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The highest exposure level the unit may have.
const MAX_EXPOSURE: f64 = 2.0;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn unit() -> PathBuf {
    repo().join("systemd/tactus.service")
}

fn systemd_analyze() -> Command {
    let found = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join("systemd-analyze").is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "systemd-analyze not found: install the Debian package `systemd` (apt-get install systemd); \
         it need not be running. The unit's checks cannot be skipped."
    );
    Command::new("systemd-analyze")
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tactus-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn unit_passes_systemd_analyze_verify() {
    // `verify` insists that ExecStart's binary exists: check a copy whose
    // ExecStart names an executable that does, keeping every argument.
    let text = std::fs::read_to_string(unit()).unwrap();
    let exec = "ExecStart=/usr/bin/tactus ";
    assert!(text.contains(exec), "the unit runs the packaged /usr/bin/tactus");
    let dir = tempdir("verify");
    let copy = dir.join("tactus.service");
    std::fs::write(&copy, text.replace(exec, "ExecStart=/bin/true ")).unwrap();
    let out = systemd_analyze().arg("verify").arg(&copy).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.status.success(), "systemd-analyze verify failed:\n{stderr}");
    // Unknown keys and bad values are warnings that still exit 0.
    let about_unit: Vec<&str> = stderr.lines().filter(|l| l.contains("tactus.service")).collect();
    assert!(about_unit.is_empty(), "systemd-analyze verify warns:\n{}", about_unit.join("\n"));
}

#[test]
fn unit_exposure_is_at_most_two() {
    let out = systemd_analyze().args(["security", "--offline=true", "--no-pager"]).arg(unit()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stdout
        .lines()
        .find(|l| l.contains("Overall exposure level for tactus.service"))
        .unwrap_or_else(|| panic!("no overall exposure level in:\n{stdout}\n{stderr}"));
    let level: f64 = line
        .split(':')
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("cannot read the level in {line:?}"));
    println!("{line}");
    assert!(level <= MAX_EXPOSURE, "exposure {level} > {MAX_EXPOSURE}; what counts against it:\n{stdout}");
    for hardening in [
        "Type=notify",
        "WatchdogSec=",
        "Restart=on-failure",
        "RestartSec=10s",
        "StartLimitBurst=5",
        "RestartPreventExitStatus=2",
        "StateDirectory=tactus",
        "User=tactus",
    ] {
        assert!(std::fs::read_to_string(unit()).unwrap().contains(hardening), "the unit sets {hardening}");
    }
}

/// Each rule line is comma-separated `KEY op "value"` pairs with keys udev knows.
#[test]
fn udev_rules_are_well_formed() {
    let text = std::fs::read_to_string(repo().join("udev/99-tactus.rules")).unwrap();
    const KEYS: &[&str] = &[
        "ACTION",
        "SUBSYSTEM",
        "SUBSYSTEMS",
        "KERNEL",
        "KERNELS",
        "ENV{ID_VENDOR_ID}",
        "ENV{ID_MODEL_ID}",
        "ENV{ID_SERIAL_SHORT}",
        "ATTRS{idVendor}",
        "ATTRS{idProduct}",
        "ATTRS{serial}",
        "ATTRS{product}",
        "GROUP",
        "MODE",
        "SYMLINK",
        "TAG",
        "ENV{ID_MM_DEVICE_IGNORE}",
        "LABEL",
        "GOTO",
    ];
    let mut symlinks = Vec::new();
    let mut joined = String::new();
    for (n, raw) in text.lines().enumerate() {
        let n = n + 1;
        if let Some(head) = raw.strip_suffix('\\') {
            joined.push_str(head);
            continue;
        }
        joined.push_str(raw);
        let line = std::mem::take(&mut joined);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        for pair in line.split(", ") {
            let pair = pair.trim();
            let op = ["==", "!=", "+=", "-=", ":=", "="].iter().find_map(|op| pair.find(op).map(|i| (i, *op)));
            let Some((i, op)) = op else { panic!("line {n}: {pair:?} has no operator") };
            let (key, value) = (&pair[..i], &pair[i + op.len()..]);
            assert!(KEYS.contains(&key), "line {n}: unknown key {key:?}");
            assert!(value.len() >= 2 && value.starts_with('"') && value.ends_with('"'), "line {n}: {value} unquoted");
            if key == "SYMLINK" {
                symlinks.push(value.trim_matches('"').to_string());
            }
        }
    }
    assert!(symlinks.iter().any(|s| s == "tactus-clock"), "a /dev/tactus-clock symlink: {symlinks:?}");
    assert!(symlinks.iter().any(|s| s == "tactus-dgt"), "a /dev/tactus-dgt symlink: {symlinks:?}");
    for group in ["GROUP=\"gpio\"", "GROUP=\"i2c\"", "GROUP=\"spi\""] {
        assert!(text.contains(group), "the rules set {group}");
    }
}

#[test]
fn install_script_parses_and_its_dry_run_names_every_step() {
    let script = repo().join("install/pi.sh");
    let syntax = Command::new("bash").arg("-n").arg(&script).output().unwrap();
    assert!(syntax.status.success(), "{}", String::from_utf8_lossy(&syntax.stderr));
    let out = Command::new("bash").arg(&script).arg("--dry-run").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "dry run failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    for step in
        ["install/build-package", "apt-get install", "target/debian/tactus_", "systemctl enable", "systemctl restart"]
    {
        assert!(stdout.contains(step), "the dry run does not mention {step:?}:\n{stdout}");
    }
}

/// The service's user and groups, as systemd-sysusers reads them.
#[test]
fn sysusers_entry_makes_the_user_and_its_groups() {
    let entry = repo().join("systemd/tactus.sysusers");
    let root = tempdir("sysusers");
    std::fs::create_dir_all(root.join("etc")).unwrap();
    let out = Command::new("systemd-sysusers").arg("--root").arg(&root).arg(&entry).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let passwd = std::fs::read_to_string(root.join("etc/passwd")).unwrap();
    assert!(passwd.lines().any(|l| l.starts_with("tactus:") && l.contains(":/var/lib/tactus:")), "{passwd}");
    let group = std::fs::read_to_string(root.join("etc/group")).unwrap();
    for g in ["gpio", "i2c", "spi", "dialout", "audio"] {
        let members = group.lines().find(|l| l.starts_with(&format!("{g}:"))).and_then(|l| l.rsplit(':').next());
        assert!(members.is_some_and(|m| m.split(',').any(|u| u == "tactus")), "tactus is in group {g}:\n{group}");
    }
}
