#!/usr/bin/env bash
# The main job: installs what is needed, builds wafer (Release), installs it into a local
# prefix and runs the installed `wafer complete` on a sample file with the default model
# (the most capable model `wafer pull` downloaded, else the bundled one), printing the
# suggestion, the model and the times to the first token and to the end.
#   PREFIX=DIR    install there (default: build-release/install; ~/.local for your own use)
#   MODEL=PATH    complete with another model (a GGUF file or a pulled catalogue name)
# Runs on Linux (Debian and Ubuntu: scripts/setup.sh installs with apt) and macOS
# (scripts/setup-macos.sh, with Homebrew); the lazy.nvim spec in the README runs it as its
# build step.
set -euo pipefail
cd "$(dirname "$0")/.."
configure=()
case "$(uname -s)" in
  Linux) ./scripts/setup.sh; jobs=$(nproc) ;;
  Darwin) ./scripts/setup-macos.sh; jobs=$(sysctl -n hw.ncpu); configure=(-DWAFER_LLD=OFF) ;;
  *)
    echo "run: no build script for $(uname -s): on Windows, use the VS Code package or wafer.exe built as the README's Windows section says" >&2
    exit 1 ;;
esac
# New build trees use Ninja: CMake's Makefiles build the targets named on one command line
# one after another; Ninja keeps every core busy. A tree configured before keeps its generator.
if [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null 2>&1; then export CMAKE_GENERATOR=Ninja; fi

BUILD_DIR=${BUILD_DIR:-build-release}
PREFIX=${PREFIX:-$BUILD_DIR/install}
mkdir -p "$PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DWAFER_BUILD_TESTS=OFF ${configure[@]+"${configure[@]}"} >/dev/null
cmake --build "$BUILD_DIR" -j "${JOBS:-$jobs}" --target wafer
# The build directory's install_manifest.txt names what `--target uninstall` removes: keep
# the one of a real install (e.g. to ~/.local) rather than this local one.
manifest="$BUILD_DIR/install_manifest.txt"
saved=""
if [ -f "$manifest" ]; then saved=$(mktemp); cp "$manifest" "$saved"; fi
cmake --install "$BUILD_DIR" --prefix "$PREFIX" >/dev/null
if [ -n "$saved" ]; then mv "$saved" "$manifest"; fi
WAFER="$PREFIX/bin/wafer"
echo "run: installed $("$WAFER" --version) in $PREFIX"

SAMPLE=scripts/sample/inventory.py
AT="$SAMPLE:29:12"
echo "run: wafer complete $AT${MODEL:+ --model $MODEL}"
echo "----- ${SAMPLE} line 29 -----"
sed -n 29p "$SAMPLE"
echo "----- suggestion -----"
"$WAFER" complete "$AT" ${MODEL:+--model "$MODEL"}
