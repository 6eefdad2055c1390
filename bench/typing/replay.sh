#!/usr/bin/env bash
# Typing at real speed through the whole daemon: `wafer bench replay` on a real Python file
# from Debian's standard library, with the 0.5B- and 1.5B-shaped synthetic Q8_0 models
# (written by `bench_latency --write-model`: Qwen2.5-Coder's shapes and Qwen2's real
# vocabulary, random weights; VOCAB=filler for the byte-level filler vocabulary) and with
# the bundled model. Prints each run's headline (shown rate, keystroke -> first ghost text,
# tokens prefilled per answer, waits behind background work) and keeps the JSON reports.
# The synthetic models have random weights, so their confidence means nothing: they run
# with the confidence gate off (--min-confidence 0); the bundled model with its default.
#
#   bench/typing/replay.sh [BUILD_DIR]      (default: build-release, else build)
#
# Environment: FILE (default /usr/lib/python3.11/argparse.py), KEYS (200), WPM (40),
# THREADS (2), SEED (3), OUT (a temporary directory), RUNS ("0.5b bundled"; also 1.5b),
# VOCAB (qwen2).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-}
if [ -z "$build" ]; then
  if [ -x build-release/server/wafer ]; then build=build-release; else build=build; fi
fi
wafer=$build/server/wafer
file=${FILE:-/usr/lib/python3.11/argparse.py}
keys=${KEYS:-200}
wpm=${WPM:-40}
threads=${THREADS:-2}
seed=${SEED:-3}
out=${OUT:-$(mktemp -d)}
runs=${RUNS:-0.5b bundled}
mkdir -p "$out"
[ -x "$wafer" ] || { echo "replay.sh: $wafer not built (cmake --build $build --target wafer)"; exit 2; }
[ -f "$file" ] || { echo "replay.sh: $file not found (set FILE to a source file of ~1,000-2,500 lines)"; exit 2; }

echo "replay.sh: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs; $(date -u +%F)"
echo "replay.sh: $file ($(wc -l < "$file") lines), $keys keystrokes at $wpm wpm, $threads threads, seed $seed"
for run in $runs; do
  case $run in
    0.5b|1.5b)
      [ -x "$build/bench/bench_latency" ] || { echo "replay.sh: build bench_latency to write the $run model"; exit 2; }
      model=$("$build/bench/bench_latency" --shape "$run" --vocab "${VOCAB:-qwen2}" --write-model)
      extra=(--max-tokens 16 --min-confidence 0) ;;  # random weights: the gate would hold back everything
    bundled)
      model=models/wafer-tiny-code-q8_0.gguf
      extra=() ;;
    *) echo "replay.sh: unknown run '$run' (0.5b, 1.5b, bundled)"; exit 2 ;;
  esac
  echo
  echo "=== $run: $model"
  "$wafer" bench replay "$file" --model "$model" --threads "$threads" --keystrokes "$keys" --wpm "$wpm" \
    --seed "$seed" "${extra[@]}" --out "$out/$run.json" | grep -E '^(shown rate|keystroke|outcomes|server:)'
done
echo
echo "replay.sh: JSON reports in $out"
