#!/usr/bin/env bash
# Sets up everything a fresh Debian/Ubuntu machine needs, then opens the app or runs the tests.
#   bash packaging/dev.sh app [ARGS...]   open the window on the default corpus (or: app doctor, ...)
#   bash packaging/dev.sh test [PYTEST ARGS...]   lint and run the whole test suite
#   bash packaging/dev.sh fetch-real-files   download the real-file corpora only (below)
set -euo pipefail
cd "$(dirname "$0")/.."

cmd="${1:-app}"
[ $# -gt 0 ] && shift

# Libraries Qt needs to start (offscreen for tests, xcb for a real screen); a bare Debian lacks them.
APT_PACKAGES=(libglib2.0-0 libegl1 libgl1 libx11-6 libdbus-1-3 libfontconfig1 libxkbcommon0
  libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-render-util0 libxcb-shape0
  libxkbcommon-x11-0 python3-venv)
# The handwriting the tests' labelled set of notebook pages is written in (tests/helpers/pages.py).
APT_TEST_FONTS=(fonts-dkg-handwriting fonts-breip fonts-femkeklaver fonts-rufscript
  fonts-sjfonts fonts-dancingscript fonts-bwht fonts-comic-neue)

install_system_packages() {
  command -v dpkg >/dev/null 2>&1 || return 0
  local missing=()
  for p in "${APT_PACKAGES[@]}" "${APT_TEST_FONTS[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "Installing system packages: ${missing[*]}" >&2
  apt_get $sudo update -qq
  apt_get $sudo install -y -qq --no-install-recommends "${missing[@]}"
}

# apt-get (after an optional sudo), waiting while another package manager holds its lock (an
# unattended upgrade just after boot holds it for minutes) instead of failing at once: apt's
# own wait where it has one (DPkg::Lock::Timeout, apt 1.9.11 and later), and a retry every
# APT_LOCK_RETRY_S seconds (default 10), for at most APT_LOCK_WAIT_S (default 600), for the
# locks it does not wait for. Its output is shown only when it fails.
apt_get() {
  local sudo=()
  [ "$1" = sudo ] && sudo=(sudo) && shift
  local start=$SECONDS told="" out
  local every="${APT_LOCK_RETRY_S:-10}" most="${APT_LOCK_WAIT_S:-600}"
  while true; do
    if out=$(DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get \
      -o DPkg::Lock::Timeout="$most" "$@" 2>&1); then
      return 0
    fi
    if ! grep -qiE "could not get lock|unable to acquire the dpkg frontend lock|unable to lock" \
      <<<"$out" || [ $((SECONDS - start)) -ge "$most" ]; then
      printf '%s\n' "$out" >&2
      return 1
    fi
    [ -z "$told" ] && told=1 && echo "Waiting for another package manager to finish" \
      "(apt-get $1: its lock is held); giving up after ${most} s." >&2
    sleep "$every"
  done
}

# "3.11": the major.minor version of the Python at $1 (empty when it does not run).
python_version() {
  "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true
}

setup_venv() {
  local py="${PYTHON:-python3}"
  local want
  want=$(python_version "$py")
  local major=${want%%.*} minor=${want#*.}
  if [ -z "$want" ] || [ "$major" -lt 3 ] || { [ "$major" -eq 3 ] && [ "$minor" -lt 11 ]; }; then
    echo "Python 3.11 or newer is needed; $py is ${want:-not a Python that runs}." \
      "Install one, or name it: PYTHON=python3.12 bash packaging/dev.sh ..." >&2
    exit 2
  fi
  # A .venv made by another Python (an older clone, another machine's python3) is made again:
  # its packages are built for that Python, and pip would keep them.
  local have=""
  [ -x .venv/bin/python ] && have=$(python_version .venv/bin/python)
  if [ "$have" != "$want" ]; then
    if [ -e .venv ]; then
      echo "Making .venv again: it was made by Python ${have:-that no longer runs}, not" \
        "$want ($py)." >&2
      rm -rf .venv
    fi
    "$py" -m venv .venv
  fi
  # Reinstall only when the project's metadata changed since the last install.
  local stamp=.venv/.installed-pyproject
  if ! cmp -s pyproject.toml "$stamp"; then
    echo "Installing the app and its test tools into .venv/ (a few minutes the first time)" >&2
    pip_quiet install --upgrade pip
    pip_quiet install -e '.[test]'
    cp pyproject.toml "$stamp"
  fi
}

# pip in .venv, its output shown only when it fails: an editable install's build prints
# setuptools' notes (a "BuildBackendWarning" box) even with -q, which read like a failure.
pip_quiet() {
  local out
  if ! out=$(.venv/bin/python -m pip -q "$@" 2>&1); then
    printf '%s\n' "$out" >&2
    return 1
  fi
}

# The real-file corpora (Pillow's Tests/images, pypdf's resources) are in the sdists of the
# installed Pillow and pypdf; tests/engine/media/test_real_files.py imports every page file in
# them. Downloaded once into .cache/real-files (about 55 MB), from PyPI.
REAL_FILES="${TRANSCRIBE_REAL_FILES:-$PWD/.cache/real-files}"
fetch_real_files() {
  local pins
  pins=$(.venv/bin/python -c 'from importlib.metadata import version as v
print("pillow==" + v("pillow"), "pypdf==" + v("pypdf"))')
  local missing=0
  for pin in $pins; do
    [ -f "$REAL_FILES/${pin/==/-}.tar.gz" ] || missing=1
  done
  [ "$missing" -eq 0 ] && return 0
  mkdir -p "$REAL_FILES"
  echo "Downloading the real-file corpora ($pins) into $REAL_FILES" >&2
  # shellcheck disable=SC2086  # $pins is two words on purpose
  .venv/bin/python -m pip download -q --no-deps --no-binary :all: \
    $pins -d "$REAL_FILES"
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
    .venv/bin/mypy  # the whole package, engine and faces, typed ([tool.mypy])
    fetch_real_files
    # Set, the real-file test fails rather than skips when the corpora are missing.
    export TRANSCRIBE_REAL_FILES="$REAL_FILES"
    export QT_QPA_PLATFORM=offscreen
    exec .venv/bin/python -m pytest "$@"
    ;;
  fetch-real-files)
    fetch_real_files
    ;;
  *)
    echo "usage: bash packaging/dev.sh app|test|fetch-real-files [ARGS...]" >&2
    exit 2
    ;;
esac
