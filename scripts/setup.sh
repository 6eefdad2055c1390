#!/usr/bin/env bash
# Installs everything wafer needs to build and test on Debian 12 (as root, or with sudo):
# compiler, CMake, libuv, nlohmann/json, Catch2, libcurl (`wafer pull`, `wafer bench infill`),
# zlib + chromium (the bench HTML report test), Neovim (editor tests), Node.js/npm, the pinned
# tree-sitter grammars (npm ci), clang with its sanitizer and libFuzzer runtimes and
# llvm-symbolizer (scripts/sanitize.sh, bench/fuzz.sh), lld (links the ~100 test executables
# about 4x faster than GNU ld), ninja-build (the generator of every build tree the scripts
# create), and python3-numpy with python3-torch (Debian's 1.13, CPU only) for the tools/train
# tests. Idempotent: does nothing that is already done.
# `scripts/setup.sh windows` installs the mingw-w64 cross compiler and wine64 (scripts/windows.sh).
# `scripts/setup.sh arm64` installs, in addition, the arm64 cross toolchain, the :arm64
# multiarch library packages and qemu-user (scripts/arm64.sh; scripts/test.sh asks for them
# when its arm64 phase is wanted, which it is by default). `scripts/setup.sh macos` installs
# what the macOS cross build needs beyond that (scripts/macos.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# missing PKG...: the packages not installed yet, one a line.
missing() {
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || echo "$pkg"
  done
}
# install PKG...: apt-get install of the packages given (none: nothing).
install() {
  [ $# -gt 0 ] || return 0
  echo "setup: installing $*"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "$@"
}

# shellcheck disable=SC2086
mapfile -t need < <(missing build-essential cmake pkg-config libuv1-dev nlohmann-json3-dev catch2 ca-certificates openssl neovim \
                             libcurl4-openssl-dev zlib1g-dev chromium python3 python3-numpy python3-torch clang libclang-rt-dev llvm lld \
                             ninja-build ${WAFER_EXTRA_PACKAGES:-})
if ! command -v npm >/dev/null 2>&1; then need+=(nodejs npm); fi
install "${need[@]}"

# The arm64 cross build: Debian's cross compilers, the libraries wafer links as :arm64
# packages (nlohmann-json and Catch2 are headers, shared with the host), qemu-user to run the
# tests, and the multiarch arm64 C and C++ runtime the tests run with under qemu (the cross
# toolchain's own libc in /usr/aarch64-linux-gnu hangs at thread creation under qemu 7.2's
# user mode; cmake/qemu-aarch64.sh). The -dev:arm64 packages bring their runtime libraries;
# ninja-build is the generator scripts/arm64.sh builds with.
if [ "${1:-}" = arm64 ]; then
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "setup: adding the arm64 architecture to dpkg"
    $SUDO dpkg --add-architecture arm64
    arm64_update=1
  fi
  mapfile -t need < <(missing crossbuild-essential-arm64 ninja-build libc6:arm64 libstdc++6:arm64 libuv1-dev:arm64 \
                               libcurl4-openssl-dev:arm64 zlib1g-dev:arm64 qemu-user)
  if [ ${#need[@]} -gt 0 ]; then
    install "${need[@]}"
  elif [ -n "${arm64_update:-}" ]; then
    $SUDO apt-get update -q
  fi
fi

# The macOS cross build (scripts/macos.sh): dpkg-source unpacks libuv's Debian source package
# and the archive keyring verifies it; the toolchain itself (Zig) comes from npm.
if [ "${1:-}" = macos ]; then
  mapfile -t need < <(missing dpkg-dev debian-archive-keyring ninja-build python3)
  install "${need[@]}"
fi

# The Windows cross build (scripts/windows.sh): mingw-w64 with the posix thread model
# (std::thread), wine64 to run the tests (/usr/lib/wine/wine64), ninja-build; libuv and curl
# are built from Debian's source packages by scripts/windows-deps.sh.
if [ "${1:-}" = windows ]; then
  mapfile -t need < <(missing g++-mingw-w64-x86-64-posix wine64 ninja-build curl)
  install "${need[@]}"
fi

./scripts/grammars.sh

# The VS Code extension's pinned npm dependencies (unit tests: typescript + vitest).
stamp=editors/vscode/node_modules/.wafer-lock
if [ ! -f "$stamp" ] || ! cmp -s editors/vscode/package-lock.json "$stamp"; then
  echo "setup: fetching the VS Code extension's dependencies (npm ci)"
  (cd editors/vscode && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp editors/vscode/package-lock.json "$stamp"
fi
