#!/usr/bin/env bash
# Builds the VS Code extension's per-platform packages (.vsix, with @vscode/vsce pinned in
# editors/vscode/package-lock.json): each holds one platform's `wafer` binary, stripped, and
# the bundled model in the layout the binary and the extension find without settings:
#   extension/bin/<platform>-<arch>/wafer            (wafer.exe on Windows; editors/vscode/src/binary.ts)
#   extension/bin/<platform>-<arch>/models/<model>   (models/ beside the binary; server/pull/model_choice.h)
#
#   scripts/package.sh [TARGET...]
#
# TARGET: linux-x64 (default), linux-arm64, win32-x64, darwin-arm64, darwin-x64, or all.
# A target whose binary was not built is skipped with a line saying so. The binaries:
#   linux-x64     BUILD_DIR/server/wafer (default build; scripts/test.sh's build phase)
#   linux-arm64   ARM64_BUILD_DIR/server/wafer (default build-arm64; scripts/arm64.sh)
#   win32-x64     WINDOWS_BUILD_DIR/server/wafer.exe (default build-windows; scripts/windows.sh)
#   darwin-arm64  MACOS_BUILD_DIR/aarch64/server/wafer (default build-macos; scripts/macos.sh)
#   darwin-x64    MACOS_BUILD_DIR/x86_64/server/wafer
# The test scripts' cross builds are tuned for their tests: scripts/macos.sh builds at -O0
# (nothing runs there), scripts/arm64.sh at -O1 with the engine at -O2 and tree-sitter at -O0;
# scripts/windows.sh builds at -O2. Packages meant for users want optimised builds.
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

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(linux-x64)
[ "${targets[*]}" = all ] && targets=(linux-x64 linux-arm64 win32-x64 darwin-arm64 darwin-x64)

# binary TARGET: the built binary's path; strip_tool TARGET: the strip for its format.
binary() {
  case $1 in
    linux-x64) echo "$BUILD_DIR/server/wafer" ;;
    linux-arm64) echo "${ARM64_BUILD_DIR:-build-arm64}/server/wafer" ;;
    win32-x64) echo "${WINDOWS_BUILD_DIR:-build-windows}/server/wafer.exe" ;;
    darwin-arm64) echo "${MACOS_BUILD_DIR:-build-macos}/aarch64/server/wafer" ;;
    darwin-x64) echo "${MACOS_BUILD_DIR:-build-macos}/x86_64/server/wafer" ;;
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
[ -x "$ext/node_modules/.bin/vsce" ] || { log "FAILED: no vsce; run scripts/setup.sh (npm ci in editors/vscode)"; exit 1; }
version=$(node -p "require('$ext/package.json').version")
(cd "$ext" && npm run --silent typecheck && node esbuild.mjs --production >/dev/null)
mkdir -p "$out"
out=$(cd "$out" && pwd)
failed=0
for target in "${targets[@]}"; do
  bin=$(binary "$target")
  if [ ! -f "$bin" ]; then
    log "skipped $target: no binary at $bin (build it first)"
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
