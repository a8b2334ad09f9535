#!/usr/bin/env bash
# Adds Transcribe Import to the desktop's application menu (launcher, icons, AppStream metainfo).
#   bash install-desktop-entry.sh             for this user (~/.local/share); no root needed
#   bash install-desktop-entry.sh --prefix P  under P/share instead (e.g. /usr/local, as root)
#   bash install-desktop-entry.sh --uninstall [--prefix P]
# Inside the Linux bundle (dist/transcribe-import/linux/) the launcher runs that bundle's
# executable by its absolute path; from a clone it runs `transcribe-import` found on PATH
# (pip or pipx install).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
prefix="${XDG_DATA_HOME:-$HOME/.local/share}"
uninstall=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2/share"; shift 2 ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-desktop-entry.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

APP=transcribe-import
METAINFO=org.transcribe.TranscribeImport.metainfo.xml
SIZES=(16 32 48 64 128 256)

files_installed() {
  echo "$prefix/applications/$APP.desktop"
  echo "$prefix/metainfo/$METAINFO"
  echo "$prefix/icons/hicolor/scalable/apps/$APP.svg"
  for s in "${SIZES[@]}"; do echo "$prefix/icons/hicolor/${s}x${s}/apps/$APP.png"; done
}

refresh_caches() {
  command -v update-desktop-database >/dev/null 2>&1 \
    && update-desktop-database -q "$prefix/applications" 2>/dev/null || true
  command -v gtk-update-icon-cache >/dev/null 2>&1 \
    && gtk-update-icon-cache -q -t "$prefix/icons/hicolor" 2>/dev/null || true
}

if [ -n "$uninstall" ]; then
  files_installed | while read -r f; do rm -f "$f"; done
  refresh_caches
  echo "Removed Transcribe Import from the menu ($prefix)."
  exit 0
fi

if [ -x "$here/../$APP" ] && [ -d "$here/../_internal" ]; then  # the PyInstaller bundle
  exe="$(cd "$here/.." && pwd)/$APP"
  icons="$here/../_internal/transcribe_import/resources/icons"
else  # a clone of the repository, with the app installed by pip or pipx
  exe="$(command -v "$APP" || true)"
  icons="$here/../../resources/icons"
  if [ -z "$exe" ]; then
    echo "install-desktop-entry.sh: $APP is not on PATH; install it first (pipx install ...)" >&2
    exit 1
  fi
fi
case "$exe" in
  *[\"\`\$\\]*) echo "install-desktop-entry.sh: cannot write a launcher for $exe" >&2; exit 1 ;;
esac

mkdir -p "$prefix/applications" "$prefix/metainfo" "$prefix/icons/hicolor/scalable/apps"
# Exec and TryExec name the executable by its absolute path, quoted as the spec requires.
sed -e "s|^Exec=$APP |Exec=\"$exe\" |" -e "s|^TryExec=.*|TryExec=$exe|" \
  "$here/$APP.desktop" > "$prefix/applications/$APP.desktop"
cp "$here/$METAINFO" "$prefix/metainfo/$METAINFO"
cp "$icons/$APP.svg" "$prefix/icons/hicolor/scalable/apps/$APP.svg"
for s in "${SIZES[@]}"; do
  mkdir -p "$prefix/icons/hicolor/${s}x${s}/apps"
  cp "$icons/$APP-$s.png" "$prefix/icons/hicolor/${s}x${s}/apps/$APP.png"
done
refresh_caches
echo "Added Transcribe Import to the menu ($prefix/applications/$APP.desktop -> $exe)."
