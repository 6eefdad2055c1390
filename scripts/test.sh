#!/usr/bin/env bash
# Builds everything (engine, server, grammars, tests, benchmarks) with warnings as errors
# and runs the whole test suite. Installs what it needs first (scripts/setup.sh).
# Options through the environment: BUILD_DIR (default build), JOBS (default nproc),
# WAFER_SANITIZE=ON for an ASan+UBSan build.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
start=$(date +%s)
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWAFER_WERROR=ON \
  -DWAFER_SANITIZE="${WAFER_SANITIZE:-OFF}" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
built=$(date +%s)
ctest --test-dir "$BUILD_DIR" -j "$JOBS" --output-on-failure --timeout 600
echo "test.sh: build $((built - start)) s, tests $(( $(date +%s) - built )) s"
