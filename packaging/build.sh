#!/usr/bin/env bash
# Builds Transcribe Import's installable artefacts from a clean clone and smoke-tests each one.
#   bash packaging/build.sh wheel    sdist + wheel (dist/), installed with pip and pipx in fresh
#                                    virtual environments and run (~40 s)
#   bash packaging/build.sh bundle   the wheel, then the Linux one-folder PyInstaller bundle
#                                    (dist/transcribe-import/ + a .tar.gz), run and used to import
#   bash packaging/build.sh [all]    both, each with its smoke test (what CI runs, ~2 min)
# Installs what it needs with apt-get (through sudo when not root). Work files go to build/,
# artefacts to dist/; logs of each step are in build/logs/. Ends with "N passed, M failed".
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
BUILD="$ROOT/build"
DIST="$ROOT/dist"
LOGS="$BUILD/logs"
PYTHON="${PYTHON:-python3}"
what="${1:-all}"
case "$what" in wheel|bundle|all) ;; *) sed -n '2,9p' "$0" >&2; exit 2 ;; esac

VERSION="$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' app/transcribe_import/__init__.py)"
APP=transcribe-import
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
mkdir -p "$BUILD" "$DIST" "$LOGS"
WORK="$(mktemp -d "$BUILD/smoke.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# ---------------------------------------------------------------- system packages
# Qt's runtime libraries: the same list as packaging/dev.sh (tests/test_packaging.py checks).
APT_QT=(libglib2.0-0 libegl1 libgl1 libx11-6 libdbus-1-3 libfontconfig1 libxkbcommon0
  libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-render-util0 libxcb-shape0
  libxkbcommon-x11-0 python3-venv)
# Validators of the desktop entry and the AppStream metainfo.
APT_VALIDATE=(desktop-file-utils appstream)
# PyInstaller reads binaries with ldd/objdump; the bundle's window is opened on Xvfb (xcb).
APT_BUNDLE=(binutils xvfb xauth x11-utils)

apt_install() {
  command -v dpkg >/dev/null 2>&1 || return 0
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "Installing system packages: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# ---------------------------------------------------------------- checks
PASSED=0
FAILED=0
FAILURES=()
# check NAME COMMAND...: run it, count it, go on either way (its output is in build/logs/).
check() {
  local name="$1"
  shift
  local log
  log="$LOGS/check-$(echo "$name" | tr -c 'A-Za-z0-9\n' '-' | tr -s '-').log"
  # A separate bash, so that `set -e` holds inside multi-step checks (it is off in an `if`).
  if bash -euo pipefail -c '"$@"' check "$@" >"$log" 2>&1; then
    PASSED=$((PASSED + 1))
    echo "  ok    $name"
  else
    FAILED=$((FAILED + 1))
    FAILURES+=("$name")
    echo "  FAIL  $name (log: ${log#"$ROOT"/})"
    sed 's/^/        | /' "$log" | tail -n 15
  fi
}

expect_output() {  # expect_output TEXT COMMAND...: exit 0 and stdout equal to TEXT
  local out
  out="$("${@:2}")"
  [ "$out" = "$1" ] || { echo "got: $out"; echo "expected: $1"; return 1; }
}

expect_help() {  # expect_help COMMAND...: exit 0 with argparse's usage and the commands
  local out
  out="$("$@")"
  echo "$out"
  grep -q "^usage: $APP" <<<"$out" && grep -q "doctor" <<<"$out"
}

doctor_json() {  # doctor_json EXE DATA_DIR: `doctor --json` exits 0 with a clean report
  "$1" --data-dir "$2" doctor --json >"$WORK/doctor.json"
  cat "$WORK/doctor.json"
  "$SMOKE_PY" "$ROOT/packaging/smoke.py" check-doctor "$WORK/doctor.json"
}

window_stays_up() {  # window_stays_up EXE DATA_DIR: the window runs 8 s offscreen, no traceback
  local rc=0
  QT_QPA_PLATFORM=offscreen timeout 8 "$1" --data-dir "$2" 2>"$WORK/window.err" || rc=$?
  cat "$WORK/window.err"
  [ "$rc" -eq 124 ] || { echo "exit $rc: the window was not running after 8 s"; return 1; }
  ! grep -q "Traceback" "$WORK/window.err"
}

validate_linux_files() {
  desktop-file-validate "$ROOT/packaging/linux/$APP.desktop"
  appstreamcli validate --no-net --pedantic \
    "$ROOT/packaging/linux/org.transcribe.TranscribeImport.metainfo.xml"
}

# ---------------------------------------------------------------- wheel and sdist
build_wheel() {
  local t0=$SECONDS tools="$BUILD/venv-tools"
  echo "== wheel and sdist ($APP $VERSION)"
  [ -x "$tools/bin/python" ] || "$PYTHON" -m venv "$tools"
  "$tools/bin/python" -m pip install -q --upgrade pip build pipx >"$LOGS/tools.log" 2>&1
  rm -f "$DIST"/transcribe_import-*.whl "$DIST"/transcribe_import-*.tar.gz
  # The wheel is built from the sdist, so an sdist that lacks a file makes a broken wheel.
  "$tools/bin/python" -m build --outdir "$DIST" "$ROOT" >"$LOGS/build-wheel.log" 2>&1 \
    || { tail -n 30 "$LOGS/build-wheel.log"; exit 1; }
  WHEEL="$(ls "$DIST"/transcribe_import-"$VERSION"-*.whl)"
  SDIST="$DIST/transcribe_import-$VERSION.tar.gz"
  WHEEL_BUILD_S=$((SECONDS - t0))
  echo "   built ${WHEEL#"$ROOT"/} and ${SDIST#"$ROOT"/} in ${WHEEL_BUILD_S}s"
}

smoke_wheel() {
  local t0=$SECONDS venv="$BUILD/smoke-wheel" pipx_home="$BUILD/pipx"
  echo "== wheel smoke test"
  rm -rf "$venv" "$pipx_home"
  "$PYTHON" -m venv "$venv"
  "$venv/bin/python" -m pip install -q "$WHEEL" >"$LOGS/install-wheel.log" 2>&1 \
    || { tail -n 30 "$LOGS/install-wheel.log"; exit 1; }
  export SMOKE_PY="$venv/bin/python"
  local exe="$venv/bin/$APP" data="$WORK/wheel-data"
  check "wheel holds the icons" "$SMOKE_PY" -c "
import sys, zipfile, tarfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
sdist = set(tarfile.open(sys.argv[2]).getnames())
icons = ['transcribe-import.svg'] + [f'transcribe-import-{s}.png' for s in (16,32,48,64,128,256)]
miss = [i for i in icons if 'transcribe_import/resources/icons/' + i not in names]
miss += [i for i in icons if f'transcribe_import-$VERSION/resources/icons/' + i not in sdist]
print(miss or 'all icons in wheel and sdist'); sys.exit(bool(miss))" "$WHEEL" "$SDIST"
  check "pip: $APP --version" expect_output "$APP $VERSION" "$exe" --version
  check "pip: $APP --help" expect_help "$exe" --help
  check "pip: python -m transcribe_import --version" \
    expect_output "$APP $VERSION" "$venv/bin/python" -m transcribe_import --version
  check "pip: python -m transcribe_import --help" \
    expect_help "$venv/bin/python" -m transcribe_import --help
  check "pip: icons through importlib.resources, from the install" \
    "$SMOKE_PY" "$ROOT/packaging/smoke.py" check-resources "$VERSION" "$ROOT/resources"
  check "pip: $APP --data-dir TMP doctor --json" doctor_json "$exe" "$data"
  check "pip: window opens offscreen and stays up" window_stays_up "$exe" "$data"
  PIPX_HOME="$pipx_home" PIPX_BIN_DIR="$pipx_home/bin" PIPX_MAN_DIR="$pipx_home/man" \
    "$BUILD/venv-tools/bin/pipx" install --python "$PYTHON" "$WHEEL" >"$LOGS/install-pipx.log" 2>&1 \
    || { tail -n 30 "$LOGS/install-pipx.log"; exit 1; }
  check "pipx: $APP --version" expect_output "$APP $VERSION" "$pipx_home/bin/$APP" --version
  check "pipx: $APP --data-dir TMP doctor --json" \
    doctor_json "$pipx_home/bin/$APP" "$WORK/pipx-data"
  WHEEL_SMOKE_S=$((SECONDS - t0))
}

# ---------------------------------------------------------------- the Linux bundle
build_bundle() {
  local t0=$SECONDS venv="$BUILD/venv-bundle" out="$DIST/$APP"
  echo "== Linux one-folder bundle (PyInstaller)"
  # PyInstaller needs the interpreter's shared library (Debian's python3 keeps it apart).
  local pyver
  pyver="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  if command -v apt-cache >/dev/null 2>&1 \
    && ! "$PYTHON" -c 'import sysconfig, sys; sys.exit(not sysconfig.get_config_var("Py_ENABLE_SHARED"))'; then
    apt_install "libpython$pyver"
  fi
  rm -rf "$venv" "$out" "$BUILD/pyinstaller"
  "$PYTHON" -m venv "$venv"
  # The bundle is made from the installed wheel: package data comes from the install, as users get it.
  "$venv/bin/python" -m pip install -q "$WHEEL" "pyinstaller>=6.10,<7" >"$LOGS/install-bundle.log" 2>&1 \
    || { tail -n 30 "$LOGS/install-bundle.log"; exit 1; }
  (cd "$BUILD" && "$venv/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath "$DIST" --workpath "$BUILD/pyinstaller" "$ROOT/packaging/$APP.spec") \
    >"$LOGS/pyinstaller.log" 2>&1 || { tail -n 40 "$LOGS/pyinstaller.log"; exit 1; }
  mkdir -p "$out/linux"
  cp "$ROOT/packaging/linux/$APP.desktop" "$ROOT/packaging/linux/install-desktop-entry.sh" \
    "$ROOT/packaging/linux/install-audit-timer.sh" \
    "$ROOT/packaging/linux/org.transcribe.TranscribeImport.metainfo.xml" "$out/linux/"
  cp "$ROOT/packaging/linux/README-bundle.txt" "$out/README.txt"
  TARBALL="$DIST/$APP-$VERSION-linux-$(uname -m).tar.gz"
  tar -C "$DIST" -czf "$TARBALL" "$APP"
  BUNDLE_BUILD_S=$((SECONDS - t0))
  # The newest glibc symbol any bundled binary needs: the oldest Linux the bundle runs on.
  GLIBC_NEEDED="$(find "$out" -type f \( -name '*.so*' -o -name "$APP" \) -exec objdump -T {} + \
    2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -n 1)"
  BUNDLE_MB="$(du -sm "$out" | cut -f1)"
  TARBALL_MB="$(du -m "$TARBALL" | cut -f1)"
  echo "   built ${out#"$ROOT"/} (${BUNDLE_MB} MB; ${TARBALL#"$ROOT"/} ${TARBALL_MB} MB) in ${BUNDLE_BUILD_S}s"
}

import_with_bundle() {  # plan -> validate (accept the order) -> commit -> notebooks
  local exe="$1" data="$WORK/bundle-import" shelf="$WORK/shelf"
  "$SMOKE_PY" "$ROOT/packaging/smoke.py" make-shelf "$shelf"
  "$exe" --data-dir "$data" plan "$shelf" -o "$WORK/plan.json"
  local rc=0
  "$exe" --data-dir "$data" validate "$WORK/plan.json" --json >"$WORK/validate.json" || rc=$?
  cat "$WORK/validate.json"
  if [ "$rc" -eq 3 ]; then  # pages 1, 2, 4: a person accepts the order as it is
    for item in $("$SMOKE_PY" "$ROOT/packaging/smoke.py" accept-ids "$WORK/validate.json"); do
      "$exe" --data-dir "$data" order "$WORK/plan.json" "$item" --accept
    done
    "$exe" --data-dir "$data" validate "$WORK/plan.json"
  elif [ "$rc" -ne 0 ]; then
    return 1
  fi
  "$exe" --data-dir "$data" commit "$WORK/plan.json" --json
  "$exe" --data-dir "$data" notebooks --json >"$WORK/notebooks.json"
  cat "$WORK/notebooks.json"
  "$SMOKE_PY" "$ROOT/packaging/smoke.py" check-notebooks "$WORK/notebooks.json" "Field notes=3" "Letters=2"
  doctor_json "$exe" "$data"
}

xcb_window_has_icon() {  # on Xvfb: the window maps on xcb and carries the app icon
  xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
    QT_QPA_PLATFORM=xcb "$1" --data-dir "$2" 2>"$3" & pid=$!
    for _ in $(seq 1 60); do
      wid=$(xwininfo -root -tree 2>/dev/null | grep "(\"transcribe-import\"" | head -1 | awk "{print \$1}")
      [ -n "$wid" ] && break; sleep 0.25
    done
    sleep 1
    icon=$(xprop -id "$wid" _NET_WM_ICON 2>&1 | grep -o "Icon ([0-9]* x [0-9]*)" | tr "\n" " ")
    alive=0; kill -0 $pid 2>/dev/null && alive=1
    kill $pid 2>/dev/null; wait $pid 2>/dev/null
    cat "$3"; echo "window ${wid:-none}; icons: ${icon:-none}; alive: $alive"
    [ -n "$wid" ] && [ -n "$icon" ] && [ $alive = 1 ] && ! grep -q Traceback "$3"
  ' _ "$1" "$2" "$WORK/xcb.err"
}

desktop_entry_installs() {  # the bundle's installer writes a valid launcher for the bundle
  local prefix="$WORK/prefix"
  bash "$1/linux/install-desktop-entry.sh" --prefix "$prefix"
  cat "$prefix/share/applications/$APP.desktop"
  grep -q "^Exec=\"$1/$APP\" gui %F$" "$prefix/share/applications/$APP.desktop"
  desktop-file-validate "$prefix/share/applications/$APP.desktop"
  for s in 16 32 48 64 128 256; do test -s "$prefix/share/icons/hicolor/${s}x$s/apps/$APP.png"; done
  bash "$1/linux/install-desktop-entry.sh" --prefix "$prefix" --uninstall
  test ! -e "$prefix/share/applications/$APP.desktop"
}

smoke_bundle() {
  local t0=$SECONDS out="$DIST/$APP"
  local exe="$out/$APP" data="$WORK/bundle-data"
  export SMOKE_PY="$BUILD/venv-bundle/bin/python"
  echo "== bundle smoke test"
  check "bundle: Qt plugins xcb, offscreen, pdfium, libvips, icons inside" bash -c '
    cd "$1/_internal" && ls -d PySide6/Qt/plugins/platforms/libqxcb.so \
      PySide6/Qt/plugins/platforms/libqoffscreen.so pypdfium2_raw/libpdfium.so \
      transcribe_import/resources/icons/transcribe-import.svg \
      transcribe_import/resources/icons/transcribe-import-256.png PIL &&
      find . -name "libvips-*.so.*" | grep .' _ "$out"
  check "bundle: $APP --version" expect_output "$APP $VERSION" "$exe" --version
  check "bundle: $APP --help" expect_help "$exe" --help
  check "bundle: $APP --data-dir TMP doctor --json" doctor_json "$exe" "$data"
  check "bundle: window opens offscreen and stays up" window_stays_up "$exe" "$data"
  check "bundle: window on X11 (xcb, Xvfb) with the app icon" xcb_window_has_icon "$exe" "$data"
  check "bundle: import plan -> validate -> order --accept -> commit -> notebooks" \
    import_with_bundle "$exe"
  check "bundle: desktop entry installs and validates" desktop_entry_installs "$out"
  BUNDLE_SMOKE_S=$((SECONDS - t0))
}

# ---------------------------------------------------------------- main
export -f expect_output expect_help doctor_json window_stays_up validate_linux_files \
  import_with_bundle xcb_window_has_icon desktop_entry_installs
export ROOT WORK APP VERSION
start=$SECONDS
apt_install "${APT_QT[@]}" "${APT_VALIDATE[@]}"
[ "$what" = wheel ] || apt_install "${APT_BUNDLE[@]}"
cd "$WORK"  # every check runs away from the source tree; paths below are absolute
echo "== desktop entry and AppStream metainfo"
check "desktop-file-validate and appstreamcli validate" validate_linux_files
build_wheel
[ "$what" = bundle ] || smoke_wheel
if [ "$what" != wheel ]; then
  build_bundle
  smoke_bundle
fi

echo "== summary ($((SECONDS - start))s in all)"
smoke="${WHEEL_SMOKE_S:+${WHEEL_SMOKE_S}s}"
echo "wheel: built in ${WHEEL_BUILD_S}s, smoke test ${smoke:-not run}"
if [ "$what" != wheel ]; then
  echo "bundle: built in ${BUNDLE_BUILD_S}s, ${BUNDLE_MB} MB unpacked, ${TARBALL_MB} MB as .tar.gz," \
    "needs ${GLIBC_NEEDED/_/ }; smoke test ${BUNDLE_SMOKE_S}s"
fi
[ "$FAILED" -eq 0 ] || printf 'failed: %s\n' "${FAILURES[@]}"
echo "packaging: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
