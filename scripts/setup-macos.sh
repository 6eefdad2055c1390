#!/usr/bin/env bash
# What building wafer needs on a Mac (scripts/run.sh calls it there instead of setup.sh):
# Xcode's command-line tools (the compiler), and from Homebrew CMake, Ninja, pkg-config,
# libuv, nlohmann/json and Node.js (npm fetches the pinned tree-sitter grammars). Installs
# only the formulae that are missing; says what to do when Homebrew or the tools are not
# there rather than installing them itself.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! xcrun --find clang++ >/dev/null 2>&1; then
  echo "setup: no C++ compiler: install Xcode's command-line tools (xcode-select --install), then run this again" >&2
  exit 1
fi
if ! command -v brew >/dev/null 2>&1; then
  echo "setup: Homebrew (https://brew.sh) is needed for cmake, ninja, pkg-config, libuv, nlohmann-json and node" >&2
  exit 1
fi
need=()
for formula in cmake ninja pkg-config libuv nlohmann-json node; do
  brew list --formula "$formula" >/dev/null 2>&1 || need+=("$formula")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: brew install ${need[*]}"
  brew install "${need[@]}"
fi
./scripts/grammars.sh
