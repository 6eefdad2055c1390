#!/usr/bin/env bash
# Builds the VS Code extension's per-platform packages (.vsix, with @vscode/vsce pinned in
# editors/vscode/package-lock.json): each holds one platform's `wafer` binary, stripped, and
# the bundled model in the layout the binary and the extension find without settings:
#   extension/bin/<platform>-<arch>/wafer            (wafer.exe on Windows; editors/vscode/src/binary.ts)
#   extension/bin/<platform>-<arch>/models/<model>   (models/ beside the binary; server/pull/model_choice.h)
#
#   scripts/package.sh [--build] [TARGET...]
#
# TARGET: linux-x64 (default), linux-arm64, win32-x64, darwin-arm64, darwin-x64, or all.
# The binaries, each built for users (-O2, no debug info in the package):
#   linux-x64     BUILD_DIR/server/wafer (default build; scripts/test.sh's build phase, -O2)
#   linux-arm64   ARM64_RELEASE_DIR/server/wafer (default build-arm64-release; ARM64_RELEASE=1 scripts/arm64.sh)
#   win32-x64     WINDOWS_BUILD_DIR/server/wafer.exe (default build-windows; scripts/windows.sh, -O2)
#   darwin-arm64  MACOS_BUILD_DIR/release-aarch64/server/wafer (default build-macos; MACOS_RELEASE=1 scripts/macos.sh)
#   darwin-x64    MACOS_BUILD_DIR/release-x86_64/server/wafer
# --build builds each target's binary first with those commands (the cross toolchains and
# libraries are the test phases', installed by scripts/setup.sh; a first macOS build takes
# a while, as its libc++ is built for each target). Without it, a target whose binary was
# not built is skipped with a line saying so. The test phases' own cross builds are not
# packaged: they are tuned for their tests (the macOS one at -O0, the arm64 one at -O1).
# Output: PACKAGE_DIR (default BUILD_DIR/packages)/wafer-<target>-<version>.vsix, and each
# package's size. Fails when the linux-x64 package is 15 MB or more.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
BUILD_DIR=${BUILD_DIR:-build}
out=${PACKAGE_DIR:-$BUILD_DIR/packages}
ext=$root/editors/vscode
model=wafer-tiny-code-q8_0.gguf  # server/pull/model_choice.h: kBundledModelFile
max_linux_bytes=$((15 * 1000 * 1000))
log() { echo "package: $*"; }

build=0
if [ "${1:-}" = --build ]; then build=1; shift; fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(linux-x64)
[ "${targets[*]}" = all ] && targets=(linux-x64 linux-arm64 win32-x64 darwin-arm64 darwin-x64)

# binary TARGET: the built binary's path; strip_tool TARGET: the strip for its format.
binary() {
  case $1 in
    linux-x64) echo "$BUILD_DIR/server/wafer" ;;
    linux-arm64) echo "${ARM64_RELEASE_DIR:-build-arm64-release}/server/wafer" ;;
    win32-x64) echo "${WINDOWS_BUILD_DIR:-build-windows}/server/wafer.exe" ;;
    darwin-arm64) echo "${MACOS_BUILD_DIR:-build-macos}/release-aarch64/server/wafer" ;;
    darwin-x64) echo "${MACOS_BUILD_DIR:-build-macos}/release-x86_64/server/wafer" ;;
    *) echo "package: unknown target $1 (linux-x64, linux-arm64, win32-x64, darwin-arm64, darwin-x64, all)" >&2; return 1 ;;
  esac
}
strip_tool() {
  case $1 in
    linux-x64) echo strip ;;
    linux-arm64) echo aarch64-linux-gnu-strip ;;
    win32-x64) echo x86_64-w64-mingw32-strip ;;
    darwin-*) echo llvm-strip ;;
  esac
}

for target in "${targets[@]}"; do binary "$target" >/dev/null; done

# build_binary TARGET: builds TARGET's binary as listed above.
build_binary() {
  log "building the $1 binary"
  case $1 in
    linux-x64)
      [ -f "$BUILD_DIR/CMakeCache.txt" ] || cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
      cmake --build "$BUILD_DIR" --target wafer ;;
    linux-arm64) ARM64_RELEASE=1 ARM64_BUILD_DIR=${ARM64_RELEASE_DIR:-build-arm64-release} scripts/arm64.sh ;;
    win32-x64) WINDOWS_RELEASE=1 scripts/windows.sh ;;
    darwin-arm64) MACOS_RELEASE=1 MACOS_ARCHS=aarch64 scripts/macos.sh ;;
    darwin-x64) MACOS_RELEASE=1 MACOS_ARCHS=x86_64 scripts/macos.sh ;;
  esac
}
if [ $build = 1 ]; then
  # The arm64 and Windows checks compare with the native binary's greedy text.
  build_binary linux-x64
  for target in "${targets[@]}"; do [ "$target" = linux-x64 ] || build_binary "$target"; done
fi
[ -x "$ext/node_modules/.bin/vsce" ] || { log "FAILED: no vsce; run scripts/setup.sh (npm ci in editors/vscode)"; exit 1; }
version=$(node -p "require('$ext/package.json').version")
(cd "$ext" && npm run --silent typecheck && node esbuild.mjs --production >/dev/null)
mkdir -p "$out"
out=$(cd "$out" && pwd)
failed=0
for target in "${targets[@]}"; do
  bin=$(binary "$target")
  if [ ! -f "$bin" ]; then
    log "skipped $target: no binary at $bin (scripts/package.sh --build $target builds it)"
    continue
  fi
  stage=$out/stage-$target
  rm -rf "$stage"
  mkdir -p "$stage/dist" "$stage/bin/$target/models"
  cp "$ext/package.json" "$ext/README.md" "$ext/.vscodeignore" "$stage/"
  cp "$ext/dist/extension.js" "$stage/dist/"
  dest=$stage/bin/$target/$(basename "$bin")
  tool=$(strip_tool "$target")
  if ! command -v "$tool" >/dev/null; then
    log "$target: $tool not found, the binary is packaged unstripped"
    cp "$bin" "$dest"
  elif ! "$tool" -o "$dest" "$bin"; then
    log "$target: $tool failed, the binary is packaged unstripped"
    cp "$bin" "$dest"
  fi
  chmod +x "$dest"
  # An arm64 Mac runs only a binary whose signature (ad hoc, the linker's) matches it: the
  # packaged file, stripped, is checked page by page.
  case $target in
    darwin-arm64) macho_arch=arm64 ;;
    darwin-x64) macho_arch=x86_64 ;;
    *) macho_arch= ;;
  esac
  if [ -n "$macho_arch" ] && ! python3 cmake/macos/macho.py "$macho_arch" "$dest" | sed 's/^/package: /'; then
    log "FAILED: $target's packaged binary is not a runnable Mach-O file"
    failed=1
    continue
  fi
  bin_mb=$(awk -v b="$(stat -c %s "$dest")" 'BEGIN { printf "%.1f MB", b / 1e6 }')
  cp "models/$model" "$stage/bin/$target/models/"
  vsix=$out/wafer-$target-$version.vsix
  (cd "$stage" && "$ext/node_modules/.bin/vsce" package --target "$target" --no-dependencies \
    --allow-missing-repository --skip-license -o "$vsix" >/dev/null)
  rm -rf "$stage"
  bytes=$(stat -c %s "$vsix")
  log "$vsix: $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }') (the binary $bin_mb, the model $(du -k "models/$model" | cut -f1) KB, before compression)"
  if [ "$target" = linux-x64 ] && [ "$bytes" -ge $max_linux_bytes ]; then
    log "FAILED: $vsix is $bytes bytes, the limit is $max_linux_bytes"
    failed=1
  fi
done
exit $failed
