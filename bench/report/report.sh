#!/usr/bin/env bash
# Writes a section of docs/performance.md from this machine's runs: the tools run, their JSON
# reports are kept, and the tables are made from those reports (never typed), with the CPU,
# the date, the machine's load and the commands above each table.
#
#   bench/report/report.sh typing [BUILD_DIR] > section.md
#
# typing: the typing replay (bench/typing/replay.sh) of the 0.5B-shaped synthetic Q8_0
#   model with Qwen2's real vocabulary and with the filler one, and of the bundled model,
#   ROUNDS times in turn (default 2); one row per run. Environment as replay.sh's (FILE,
#   KEYS, WPM, THREADS, SEED), plus ROUNDS and OUT (where the JSON reports stay).
set -euo pipefail
cd "$(dirname "$0")/../.."
section=${1:-}
build=${2:-build}
rounds=${ROUNDS:-2}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"

cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //') || cpu=unknown
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
isa="AVX2"
case " $flags " in *" avx512_vnni "*) isa="AVX-512 VNNI";; esac
case " $flags " in *" amx_int8 "*) isa="$isa, AMX";; esac

case $section in
  typing)
    file=${FILE:-/usr/lib/python3.11/argparse.py}
    keys=${KEYS:-200} wpm=${WPM:-40} threads=${THREADS:-2} seed=${SEED:-3}
    rows=()
    load_before=$(cut -d' ' -f1 /proc/loadavg)
    for ((r = 1; r <= rounds; ++r)); do
      for vocab in qwen2 filler; do
        OUT="$out/$vocab-$r" VOCAB=$vocab RUNS=0.5b FILE=$file KEYS=$keys WPM=$wpm THREADS=$threads SEED=$seed \
          bench/typing/replay.sh "$build" >&2
        rows+=("0.5B, $vocab vocabulary, run $r=$out/$vocab-$r/0.5b.json")
      done
      OUT="$out/bundled-$r" RUNS=bundled FILE=$file KEYS=$keys WPM=$wpm THREADS=$threads SEED=$seed \
        bench/typing/replay.sh "$build" >&2
      rows+=("bundled model, run $r=$out/bundled-$r/bundled.json")
    done
    load_after=$(cut -d' ' -f1 /proc/loadavg)
    echo "### Typing replay ($cpu, $isa, $(nproc) CPUs), $(date -u +%F)"
    echo
    echo "Made by \`bench/report/report.sh typing\` (load average $load_before before, $load_after after;"
    echo "JSON reports in \`$out\`). Each run:"
    echo
    echo '```sh'
    for vocab in qwen2 filler; do
      echo "build/server/wafer bench replay $file --threads $threads --keystrokes $keys --wpm $wpm --seed $seed \\"
      echo "  --model \"\$(build/bench/bench_latency --shape 0.5b --vocab $vocab --write-model)\" --max-tokens 16 --min-confidence 0"
    done
    echo "build/server/wafer bench replay $file --threads $threads --keystrokes $keys --wpm $wpm --seed $seed \\"
    echo "  --model models/wafer-tiny-code-q8_0.gguf"
    echo '```'
    echo
    python3 bench/report/typing_table.py "${rows[@]}"
    ;;
  *)
    echo "usage: bench/report/report.sh typing [BUILD_DIR] > section.md" >&2
    exit 2 ;;
esac
