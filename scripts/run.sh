#!/usr/bin/env bash
# The main job: installs what is needed, builds wafer (Release) and runs it.
# Then runs a fill-in-the-middle completion on the bundled model (models/) with wafer's engine;
# MODEL=path.gguf picks another model.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

BUILD_DIR=${BUILD_DIR:-build-release}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DWAFER_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD_DIR" -j "${JOBS:-$(nproc)}" --target wafer
"$BUILD_DIR/server/wafer" --version
MODEL=${MODEL:-models/wafer-tiny-code-q8_0.gguf}
/usr/bin/python3 tools/train/demo.py "$BUILD_DIR/server/wafer" "$MODEL"
