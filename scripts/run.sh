#!/usr/bin/env bash
# The main job: installs what is needed, builds wafer (Release) and runs it.
# Today: prints the version. (Later: a completion demo on the bundled model.)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

BUILD_DIR=${BUILD_DIR:-build-release}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DWAFER_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD_DIR" -j "${JOBS:-$(nproc)}" --target wafer
"$BUILD_DIR/server/wafer" --version
