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
# quality: bench_quality's confidence gate on the bundled model (code it never saw), one run
#   per seed of SEEDS (default 2 3 4 5 6) at POINTS points (default 600), and
#   bench/quality/gate_scores.py over their per-point lines: other scores at half the
#   ungated coverage (fitted on the first three seeds, read on the rest) and the gate's
#   thresholds; then, per language, POINTS points of held-out code of each (Python: the
#   default folders without /usr/include; C: /usr/include; JavaScript: packages under
#   editors/vscode/node_modules; Go: /usr/share/go-1.19/src, from Debian's golang-1.19-src,
#   skipped with a line when it is not installed) at the bundled model's threshold, 0.35.
#   Environment: SEEDS, POINTS, OUT.
# engine: bench_engine on the synthetic 0.5B shape (prefill, decode near the start and deep
#   in a context), WEIGHTS (default q8_0,q4_0), THREADS (default 2), REPEAT runs a figure
#   (default 3, medians), with the AMX tiles and, where the CPU has them, without.
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
  quality)
    seeds=(${SEEDS:-2 3 4 5 6})
    points=${POINTS:-600}
    [ ${#seeds[@]} -ge 2 ] || { echo "report.sh quality: SEEDS needs two seeds or more" >&2; exit 2; }
    load_before=$(cut -d' ' -f1 /proc/loadavg)
    for s in "${seeds[@]}"; do
      "$build/bench/bench_quality" --points "$points" --seed "$s" --thresholds 0,0.2,0.3,0.35,0.4,0.5 \
        --points-out "$out/q$s.jsonl" --json > "$out/q$s.json"
    done
    load_after=$(cut -d' ' -f1 /proc/loadavg)
    fit=() read=()
    for i in "${!seeds[@]}"; do
      if [ "$i" -lt $(( (${#seeds[@]} + 1) / 2 )) ]; then fit+=("$out/q${seeds[$i]}.jsonl"); else read+=("$out/q${seeds[$i]}.jsonl"); fi
    done
    echo "### The confidence gate's score ($cpu), $(date -u +%F)"
    echo
    echo "Made by \`bench/report/report.sh quality\` (load average $load_before before, $load_after after;"
    echo "per-point lines in \`$out\`): the bundled model on code it never saw, each seed"
    echo "a run of"
    echo
    echo '```sh'
    echo "build/bench/bench_quality --points $points --seed S --points-out qS.jsonl"
    echo "/usr/bin/python3 bench/quality/gate_scores.py --fit ${fit[*]##*/} --read ${read[*]##*/}"
    echo '```'
    echo
    /usr/bin/python3 bench/quality/gate_scores.py --fit "${fit[@]}" --read "${read[@]}"
    nm=editors/vscode/node_modules go=/usr/share/go-1.19/src
    declare -A lang_roots=(
      [python]="/usr/lib/python3.11 /usr/lib/python3/dist-packages/requests /usr/lib/python3/dist-packages/yaml"
      [c]="/usr/include"
      [javascript]="$nm/semver/functions $nm/semver/ranges $nm/semver/classes $nm/semver/internal $nm/vscode-jsonrpc/lib/common $nm/vscode-languageclient/lib/common $nm/picomatch/lib"
      [go]="$go/strings $go/bytes $go/bufio $go/sort $go/strconv $go/net/url $go/encoding/json $go/text/template $go/path/filepath $go/os/exec")
    reports=()
    echo
    echo "Per language, seed ${seeds[0]}, each language's held-out code on its own:"
    echo
    echo '```sh'
    for lang in python c javascript go; do
      first=${lang_roots[$lang]%% *}
      if [ ! -d "$first" ]; then
        echo "# $lang: $first is missing, skipped"
        continue
      fi
      "$build/bench/bench_quality" --points "$points" --seed "${seeds[0]}" --thresholds 0,0.35 --json \
        ${lang_roots[$lang]} > "$out/lang-$lang.json"
      echo "build/bench/bench_quality --points $points --seed ${seeds[0]} --thresholds 0,0.35 ${lang_roots[$lang]}"
      reports+=("$out/lang-$lang.json")
    done
    echo '```'
    echo
    [ ${#reports[@]} -eq 0 ] || /usr/bin/python3 bench/report/gate_language_table.py 0.35 "${reports[@]}"
    ;;
  engine)
    weights=${WEIGHTS:-q8_0,q4_0} threads=${THREADS:-2} repeat=${REPEAT:-3}
    amx_runs=(on)
    case " $flags " in *" amx_int8 "*) amx_runs=(on off);; esac
    load_before=$(cut -d' ' -f1 /proc/loadavg)
    : > "$out/engine.jsonl"
    for amx in "${amx_runs[@]}"; do
      "$build/bench/bench_engine" --json --models 0.5b --weights "$weights" --threads "$threads" --repeat "$repeat" \
        --tests prefill,decode,deep --amx "$amx" >> "$out/engine.jsonl"
    done
    load_after=$(cut -d' ' -f1 /proc/loadavg)
    echo "### Engine ($cpu, $isa, $(nproc) CPUs), $(date -u +%F)"
    echo
    echo "Made by \`bench/report/report.sh engine\` (load average $load_before before, $load_after after;"
    echo "JSON lines in \`$out\`), medians of $repeat runs:"
    echo
    echo '```sh'
    for amx in "${amx_runs[@]}"; do
      echo "build/bench/bench_engine --models 0.5b --weights $weights --threads $threads --repeat $repeat --tests prefill,decode,deep --amx $amx"
    done
    echo '```'
    echo
    /usr/bin/python3 bench/report/engine_table.py "$out/engine.jsonl"
    ;;
  *)
    echo "usage: bench/report/report.sh typing|quality|engine [BUILD_DIR] > section.md" >&2
    exit 2 ;;
esac
