#!/usr/bin/env bash
# Installs tactus on Raspberry Pi OS (or Debian on a Pi): the binary, the
# configuration, the service user, the systemd unit and the udev rules; then
# enables and (re)starts the service. Safe to run again: the configuration is
# never overwritten, everything else is replaced by this checkout's version.
#
#   cargo build --release -p tactus && sudo install/pi.sh
#
# Options:
#   --dry-run        print what would be done, change nothing (no root needed)
#   --binary PATH    install this binary (default: target/release/tactus,
#                    built with cargo as the invoking user if missing)
#   --no-packages    do not apt-get install the runtime packages
#   --no-start       install and enable, but do not (re)start the service
#   -h, --help       this text
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
args=("$@")
dry_run=0
binary=""
packages=1
start=1

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

while (($#)); do
  case "$1" in
    --dry-run) dry_run=1 ;;
    --binary) binary="${2:?--binary needs a path}"; shift ;;
    --no-packages) packages=0 ;;
    --no-start) start=0 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "pi.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done

say() { echo "pi.sh: $*" >&2; }
die() { say "$*"; exit 1; }
# Runs a command, or prints it in a dry run.
run() {
  if ((dry_run)); then
    printf '+'; printf ' %q' "$@"; printf '\n'
  else
    "$@"
  fi
}

if ((!dry_run)) && [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "run as root"
  exec sudo -- "$0" "${args[@]}"
fi

# --- The binary -------------------------------------------------------------
if [ -z "$binary" ]; then
  binary="$repo/target/release/tactus"
  if [ ! -x "$binary" ]; then
    command -v cargo >/dev/null || die "no $binary and no cargo: build it (cargo build --release -p tactus) or pass --binary PATH"
    builder="${SUDO_USER:-$(id -un)}"
    say "building the release binary as $builder"
    if [ "$builder" != "$(id -un)" ]; then
      run sudo -u "$builder" -- cargo build --release --locked -p tactus --manifest-path "$repo/Cargo.toml"
    else
      run cargo build --release --locked -p tactus --manifest-path "$repo/Cargo.toml"
    fi
  fi
fi
if ((!dry_run)) && [ ! -x "$binary" ]; then
  die "$binary is not an executable"
fi

# --- Runtime packages ---------------------------------------------------------
# espeak-ng speaks; libasound2 plays; i2c-tools (i2cdetect) is how
# hardware/assembly.md checks an expander.
if ((packages)); then
  alsa=libasound2
  apt-cache show libasound2t64 >/dev/null 2>&1 && alsa=libasound2t64 # Debian 13 / Pi OS Trixie
  wanted=(espeak-ng "$alsa" i2c-tools)
  missing=()
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    run apt-get update -qq
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi

# --- Groups and the service user ------------------------------------------
# Raspberry Pi OS has gpio, i2c and spi; plain Debian does not.
for g in gpio i2c spi dialout audio; do
  getent group "$g" >/dev/null || run groupadd --system "$g"
done
if id tactus >/dev/null 2>&1; then
  run usermod --append --groups gpio,i2c,spi,dialout,audio tactus
else
  run useradd --system --user-group --home-dir /var/lib/tactus --no-create-home \
    --shell /usr/sbin/nologin --comment "tactus chess arbiter" \
    --groups gpio,i2c,spi,dialout,audio tactus
fi

# --- Files --------------------------------------------------------------------
run install -D -m 0755 "$binary" /usr/local/bin/tactus.new
run mv -f /usr/local/bin/tactus.new /usr/local/bin/tactus

example="$repo/config/tactus.example.toml"
if [ -e /etc/tactus/tactus.toml ]; then
  say "/etc/tactus/tactus.toml exists: kept (compare with $example after upgrades)"
elif [ -e "$example" ]; then
  run install -D -m 0640 -o root -g tactus "$example" /etc/tactus/tactus.toml
else
  ((dry_run)) || die "$example is missing: cannot write /etc/tactus/tactus.toml"
  say "would write /etc/tactus/tactus.toml from $example (missing in this checkout!)"
fi

run install -D -m 0644 "$repo/systemd/tactus.service" /etc/systemd/system/tactus.service
run install -D -m 0644 "$repo/udev/99-tactus.rules" /etc/udev/rules.d/99-tactus.rules
run install -d -m 0755 /usr/local/share/doc/tactus
run cp -r "$repo/README.md" "$repo/hardware" /usr/local/share/doc/tactus/

# --- Reload udev and systemd; enable -------------------------------------
run udevadm control --reload-rules
run udevadm trigger --action=change --subsystem-match=gpio --subsystem-match=bcm2835-gpiomem \
  --subsystem-match=rpi-gpiomem --subsystem-match=i2c-dev --subsystem-match=spidev --subsystem-match=tty
run systemctl daemon-reload
run systemctl enable tactus.service
if ((start)); then
  run systemctl restart tactus.service
  ((dry_run)) || systemctl --no-pager --lines=5 status tactus.service || true
fi

if ! grep -qs '^dtparam=i2c_arm=on' /boot/firmware/config.txt /boot/config.txt; then
  say "I²C is off: the mcp23017 board needs it (sudo raspi-config nonint do_i2c 0, then reboot)"
fi
say "done: journalctl -u tactus -f shows the daemon; /etc/tactus/tactus.toml configures it"
