#!/usr/bin/env bash
# Installs tactus on Raspberry Pi OS (or Debian on a Pi): the Debian
# package given with --deb (an arm64 one built on an amd64 machine with
# install/build-package --arch arm64, docs/operator-guide.md), or one built
# here from this checkout (install/build-package), installed with apt-get — the
# binary in /usr/bin, /etc/tactus/tactus.toml, the service's user, the
# systemd unit, the udev rules, the web page — then enables and starts the
# service. Safe to run again: apt keeps an edited configuration.
#
#   install/pi.sh            (as a user with sudo; builds as that user)
#
# Options:
#   --dry-run        print what would be done, change nothing
#   --deb PATH       install this package instead of building one
#   --no-start       install and enable, but do not (re)start the service
#   -h, --help       this text
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dry_run=0
deb=""
start=1

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

while (($#)); do
  case "$1" in
    --dry-run) dry_run=1 ;;
    --deb) deb="${2:?--deb needs a path}"; shift ;;
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
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# --- The package --------------------------------------------------------------
if [ -z "$deb" ]; then
  command -v cargo >/dev/null || die "no cargo: install Rust 1.95 or newer (https://rustup.rs), or pass --deb PATH"
  if ! cargo deb --version >/dev/null 2>&1; then
    say "installing cargo-deb"
    run cargo install cargo-deb --locked
  fi
  # The page the package serves: built by ./setup (npm).
  [ -f "$repo/web/dist/index.html" ] || ((dry_run)) || die "web/dist is not built: run ./setup first"
  if ((dry_run)); then
    run "$repo/install/build-package"
    deb="$repo/target/debian/tactus_VERSION_ARCH.deb"
  else
    deb="$("$repo/install/build-package" | tail -n 1)"
  fi
fi
case "$deb" in /*) ;; *) deb="./$deb" ;; esac

# --- Install, enable, start ---------------------------------------------------
run $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb"
run $sudo systemctl daemon-reload
run $sudo systemctl enable tactus.service
if ((start)); then
  run $sudo systemctl restart tactus.service
  ((dry_run)) || systemctl --no-pager --lines=5 status tactus.service || true
fi

if ! grep -qs '^dtparam=i2c_arm=on' /boot/firmware/config.txt /boot/config.txt; then
  say "I²C is off: the mcp23017 and hall boards need it (sudo raspi-config nonint do_i2c 0, then reboot)"
fi
say "done: sudo -u tactus tactus doctor checks the machine as the service sees it; journalctl -u tactus -f shows the daemon; /etc/tactus/tactus.toml configures it"
