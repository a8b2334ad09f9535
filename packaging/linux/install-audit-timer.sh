#!/usr/bin/env bash
# Sets up the nightly fixity audit as a systemd user timer, in one step (docs/cli.md, "audit").
#   bash install-audit-timer.sh                     every night at 03:00, 30 minutes at most
#   bash install-audit-timer.sh --minutes 60 --data-dir /srv/corpus-data --at "Sun 02:00"
#   bash install-audit-timer.sh --uninstall
# Options: --exec PATH (the transcribe-import to run; default: the one on PATH),
# --unit-dir DIR (default: ~/.config/systemd/user), --no-enable (write the units only).
# Runs as this user, no root needed. The timer is Persistent: a night the machine was off is
# made up at the next start. See what it did with `journalctl --user -u transcribe-import-audit`
# and `transcribe-import audit --report`.
set -euo pipefail

UNIT=transcribe-import-audit
unit_dir="${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user"
minutes=30
at="*-*-* 03:00:00"
data_dir=""
exe=""
enable=1
uninstall=""
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --at) at="$2"; shift 2 ;;
    --data-dir) data_dir="$2"; shift 2 ;;
    --exec) exe="$2"; shift 2 ;;
    --unit-dir) unit_dir="$2"; shift 2 ;;
    --no-enable) enable=""; shift ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-audit-timer.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

if [ -n "$uninstall" ]; then
  if [ -n "$enable" ] && command -v systemctl >/dev/null 2>&1; then
    systemctl --user disable --now "$UNIT.timer" 2>/dev/null || true
  fi
  rm -f "$unit_dir/$UNIT.service" "$unit_dir/$UNIT.timer"
  echo "Removed $UNIT.service and $UNIT.timer from $unit_dir."
  exit 0
fi

case "$minutes" in
  ''|*[!0-9]*) echo "install-audit-timer.sh: --minutes takes a whole number of minutes" >&2; exit 2 ;;
esac
if [ -z "$exe" ]; then
  exe="$(command -v transcribe-import || true)"
  if [ -z "$exe" ]; then
    echo "install-audit-timer.sh: transcribe-import is not on PATH; install it (pipx install" \
      "...) or give its path with --exec PATH" >&2
    exit 2
  fi
fi
exe="$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")"
args="audit --minutes $minutes"
if [ -n "$data_dir" ]; then
  data_dir="$(cd "$data_dir" 2>/dev/null && pwd || echo "$data_dir")"
  args="--data-dir $data_dir $args"
fi

mkdir -p "$unit_dir"
cat > "$unit_dir/$UNIT.service" <<UNIT_EOF
[Unit]
Description=Transcribe Import: fixity audit of the corpus (re-hash its files, keep the record)

[Service]
Type=oneshot
# Exit 1 (a file failed its check) leaves the unit failed, for `systemctl --user --failed`
# to show. SIGTERM (a shutdown, systemctl stop) stops the audit after the file it reads: what it
# checked is recorded and the next run goes on from there (exit 6).
ExecStart=$exe $args
SuccessExitStatus=6
Nice=10
IOSchedulingClass=idle
UNIT_EOF
cat > "$unit_dir/$UNIT.timer" <<UNIT_EOF
[Unit]
Description=Transcribe Import: the nightly fixity audit

[Timer]
OnCalendar=$at
Persistent=true
RandomizedDelaySec=10min

[Install]
WantedBy=timers.target
UNIT_EOF
echo "Wrote $unit_dir/$UNIT.service and $UNIT.timer: \`$exe $args\` at $at."
if [ -n "$enable" ]; then
  systemctl --user daemon-reload
  systemctl --user enable --now "$UNIT.timer"
  echo "Enabled: \`systemctl --user list-timers $UNIT.timer\` shows the next run."
fi
