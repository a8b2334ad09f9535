#!/usr/bin/env bash
# Sets up everything a fresh Debian/Ubuntu machine needs, then opens the app or runs the tests.
#   bash packaging/dev.sh app [ARGS...]   open the window on the default corpus (or: app doctor, ...)
#   bash packaging/dev.sh test [PYTEST ARGS...]   lint and run the whole test suite
set -euo pipefail
cd "$(dirname "$0")/.."

cmd="${1:-app}"
[ $# -gt 0 ] && shift

# Libraries Qt needs to start (offscreen for tests, xcb for a real screen); a bare Debian lacks them.
APT_PACKAGES=(libglib2.0-0 libegl1 libgl1 libx11-6 libdbus-1-3 libfontconfig1 libxkbcommon0
  libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-render-util0 libxcb-shape0
  libxkbcommon-x11-0 python3-venv)

install_system_packages() {
  command -v dpkg >/dev/null 2>&1 || return 0
  local missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "Installing system packages: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

setup_venv() {
  local py="${PYTHON:-python3}"
  [ -x .venv/bin/python ] || "$py" -m venv .venv
  # Reinstall only when the project's metadata changed since the last install.
  local stamp=.venv/.installed-pyproject
  if ! cmp -s pyproject.toml "$stamp"; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e '.[test]'
    cp pyproject.toml "$stamp"
  fi
}

install_system_packages
setup_venv

case "$cmd" in
  app)
    exec .venv/bin/transcribe-import "$@"
    ;;
  test)
    .venv/bin/ruff check app tests bench packaging
    .venv/bin/ruff format --check app tests bench packaging
    # Import contracts (pyproject.toml [tool.importlinter]): the engine's layers, no CLI,
    # window or Qt in the engine, and the faces doing the engine's work only through its api.
    .venv/bin/lint-imports
    .venv/bin/mypy  # the engine, typed ([tool.mypy])
    export QT_QPA_PLATFORM=offscreen
    exec .venv/bin/python -m pytest "$@"
    ;;
  *)
    echo "usage: bash packaging/dev.sh app|test [ARGS...]" >&2
    exit 2
    ;;
esac
