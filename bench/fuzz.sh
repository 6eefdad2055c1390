#!/usr/bin/env bash
# Runs one libFuzzer target for a while: bench/fuzz.sh TARGET SECONDS [extra libFuzzer args]
#   e.g. bench/fuzz.sh fuzz_gguf 300
# Builds the fuzz targets with clang + ASan + UBSan (-O1) in build-fuzz/ (FUZZ_BUILD_DIR;
# the same configuration as scripts/sanitize.sh address, so build-asan can be reused; needs
# the Debian packages clang and libclang-rt-dev), seeds the run from the committed corpus
# tests/<folder>/corpus/<name>/ (fuzz_gguf -> tests/engine/corpus/gguf, fuzz_lsp ->
# tests/server/corpus/lsp) and works in BUILD/corpus/TARGET. A crashing input is written to
# BUILD/crashes/; copy it into the committed corpus once fixed, so ctest replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: bench/fuzz.sh TARGET SECONDS}
seconds=${2:?usage: bench/fuzz.sh TARGET SECONDS}
shift 2
name=${target#fuzz_}
build=${FUZZ_BUILD_DIR:-build-fuzz}

scripts/sanitize.sh configure "$build" address
cmake --build "$build" -j "${JOBS:-2}" --target "$target"

seeds=$(ls -d tests/*/corpus/"$name" 2>/dev/null | head -1 || true)
work="$build/corpus/$target"
mkdir -p "$work" "$build/crashes"
dict=()
dict_name=$name
if [ "$name" = framing ]; then dict_name=lsp; fi  # the same header and JSON-RPC tokens
if [ -f "fuzz/$dict_name.dict" ]; then dict=(-dict="fuzz/$dict_name.dict"); fi
echo "fuzz.sh: $target for $seconds s (seeds: ${seeds:-none}, corpus: $work)"
"$build/fuzz/$target" "$work" ${seeds:+"$seeds"} "${dict[@]}" -max_total_time="$seconds" \
  -artifact_prefix="$build/crashes/$target-" -print_final_stats=1 "$@"
