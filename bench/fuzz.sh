#!/usr/bin/env bash
# Runs one libFuzzer target for a while: bench/fuzz.sh TARGET SECONDS [extra libFuzzer args]
#   e.g. bench/fuzz.sh fuzz_gguf 300
# Builds the fuzz targets with clang + ASan + UBSan (-O1) in build-fuzz/ (FUZZ_BUILD_DIR;
# scripts/sanitize.sh address's configuration, so build-asan can be reused at its -O0;
# FUZZ_NO_BUILD=1 uses the build as it is; needs the Debian packages clang and
# libclang-rt-dev), seeds the run from the committed corpus
# tests/<folder>/corpus/<name>/ (fuzz_gguf -> tests/engine/corpus/gguf, fuzz_lsp ->
# tests/server/corpus/lsp) and works in BUILD/corpus/TARGET (FUZZ_CORPUS_DIR/TARGET when
# set). A crashing input is written to BUILD/crashes/ (FUZZ_CRASH_DIR); copy it into the
# committed corpus once fixed, so ctest replays it. bench/fuzz_long.sh runs every target
# for long and does that copying.
# FUZZ_SANITIZERS=undefined builds without ASan (in build-fuzz-undefined): fuzz_lsp then
# runs about twice the inputs per second (docs/reliability.md); replay the corpus it grows
# through the ASan build afterwards (bench/fuzz_long.sh does), e.g.
# `FUZZ_CORPUS_DIR=DIR bench/fuzz.sh TARGET 0 -runs=0`.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: bench/fuzz.sh TARGET SECONDS}
seconds=${2:?usage: bench/fuzz.sh TARGET SECONDS}
shift 2
name=${target#fuzz_}
build=${FUZZ_BUILD_DIR:-build-fuzz${FUZZ_SANITIZERS:+-${FUZZ_SANITIZERS//,/-}}}

if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
  # Its own build is optimised (-O1: several times the inputs per second of -O0); a build
  # shared with the asan phase (FUZZ_BUILD_DIR=build-asan) keeps that phase's flags.
  if [ -z "${FUZZ_BUILD_DIR:-}" ]; then export SANITIZE_OPT=${SANITIZE_OPT:--O1}; fi
  scripts/sanitize.sh configure "$build" address
  cmake --build "$build" -j "${JOBS:-2}" --target "$target"
fi

seeds=$(ls -d tests/*/corpus/"$name" 2>/dev/null | head -1 || true)
work="${FUZZ_CORPUS_DIR:-$build/corpus}/$target"
crashes=${FUZZ_CRASH_DIR:-$build/crashes}
mkdir -p "$work" "$crashes"
dict=()
dict_name=$name
if [ "$name" = framing ]; then dict_name=lsp; fi  # the same header and JSON-RPC tokens
if [ -f "fuzz/$dict_name.dict" ]; then dict=(-dict="fuzz/$dict_name.dict"); fi
# Entropic scheduling keeps every feature seen fewer than this many times in a list it
# searches for each feature of each run; at its default (255) a target with tens of
# thousands of features per input (fuzz_lsp: the whole daemon) spent over half its time
# there, and its runs per second doubled at 8.
entropic=(-entropic_feature_frequency_threshold=8)
# ASan records the call stack of every allocation for its reports; the targets that run
# the daemon allocate per message, and the recording costs a share of the runs per second
# that grows as inputs get shorter. A crash's input is replayed by ctest in the asan build,
# whose reports keep the full stacks.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}
echo "fuzz.sh: $target for $seconds s (seeds: ${seeds:-none}, corpus: $work)"
"$build/fuzz/$target" "$work" ${seeds:+"$seeds"} "${dict[@]}" "${entropic[@]}" -max_total_time="$seconds" \
  -artifact_prefix="$crashes/$target-" -print_final_stats=1 "$@"
