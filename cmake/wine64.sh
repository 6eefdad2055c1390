#!/bin/sh
# ctest's emulator for the Windows cross build: the test under wine64 (Debian's wine64; the
# program is not on PATH), in the prefix WINEPREFIX (scripts/windows.sh keeps one in the
# build folder), without wine's debug channels.
export WINEDEBUG=-all
export WINEPREFIX="${WINEPREFIX:-${TMPDIR:-/tmp}/wafer-wine-$(id -u)}"
exec /usr/lib/wine/wine64 "$@"
