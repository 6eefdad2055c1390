#!/usr/bin/env bash
# Fuzzes every libFuzzer target for a long time: bench/fuzz_long.sh [SECONDS] [TARGET...]
#   SECONDS per target (default 3600), targets (default every fuzz/fuzz_*.cpp), JOBS at a
#   time (default 2), each under `nice -n 10`, built as bench/fuzz.sh builds them
#   (build-fuzz, ASan + UBSan, -O1; FUZZ_BUILD_DIR to use another build). With
#   FUZZ_SANITIZERS=undefined the runs go without ASan, for speed (build-fuzz-undefined),
#   and each grown corpus is then replayed once through the ASan build.
# The corpus each target grows is kept outside the repository, in
# FUZZ_CACHE/TARGET (default ~/.cache/wafer-fuzz), so the next run starts where this one
# ended; the committed corpus (tests/<folder>/corpus/<name>/) seeds it. A crashing input is
# minimised (libFuzzer -minimize_crash) and copied into the committed corpus as
# crash-<target>-<sha1>: once the bug is fixed, ctest replays it through the target
# (tests/server/test_fuzz_corpus.cpp, tests/engine/*/test_*_corpus.cpp). Prints one line
# per target: inputs run, inputs per second, coverage (cov: edges, ft: features), corpus
# size, crashes and timeouts (a timeout is then run again alone: see keep_crashes).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-3600}
shift || true
targets=("$@")
if [ ${#targets[@]} = 0 ]; then
  mapfile -t targets < <(cd fuzz && ls fuzz_*.cpp | sed 's/\.cpp$//')
fi
build=${FUZZ_BUILD_DIR:-build-fuzz${FUZZ_SANITIZERS:+-${FUZZ_SANITIZERS//,/-}}}
if [ -z "${FUZZ_BUILD_DIR:-}" ]; then export SANITIZE_OPT=${SANITIZE_OPT:--O1}; fi  # as bench/fuzz.sh builds it
cache=${FUZZ_CACHE:-$HOME/.cache/wafer-fuzz}
jobs=${JOBS:-2}
logs="$cache/logs"
mkdir -p "$cache/crashes" "$logs"

scripts/sanitize.sh configure "$build" address >/dev/null
nice -n 10 cmake --build "$build" -j "$jobs" --target "${targets[@]}"

# The committed corpus folder of a target (fuzz_gguf -> tests/engine/corpus/gguf).
corpus_of() { ls -d tests/*/corpus/"${1#fuzz_}" 2>/dev/null | head -1; }

# Minimises each new crash of a target into its committed corpus folder. A slow unit
# (libFuzzer's report of an input over -report_slow_units, 10 s) is only reported, and a
# timeout is kept only if the input times out again when run alone: libFuzzer measures
# wall time, so a run that was paused or starved of CPU (a loaded machine, a stopped
# process) reports timeouts that are not the target's.
keep_crashes() {
  local t=$1 found=0 crash min dest
  for crash in "$cache/crashes/$t"-*; do
    [ -f "$crash" ] || continue
    case "$crash" in *.min|*.kept|*.unreproduced) continue ;; esac  # minimised / in the corpus / a false alarm
    case "$crash" in
      */"$t"-slow-unit-*)
        echo "fuzz_long: $t: slow unit (not a failure): $crash"
        mv "$crash" "$crash.unreproduced"
        continue
        ;;
      */"$t"-timeout-*)
        if nice -n 10 "$build/fuzz/$t" -timeout=30 "$crash" >"$logs/$t.timeout-check.log" 2>&1; then
          echo "fuzz_long: $t: a timeout that does not reproduce (the input runs within 30 s alone): $crash"
          mv "$crash" "$crash.unreproduced"
          continue
        fi
        ;;
    esac
    min="$crash.min"
    nice -n 10 "$build/fuzz/$t" -minimize_crash=1 -max_total_time=120 -exact_artifact_path="$min" "$crash" \
      >"$logs/$t.minimize.log" 2>&1 || true
    [ -s "$min" ] || cp "$crash" "$min"
    dest="$(corpus_of "$t")/crash-$t-$(sha1sum "$min" | cut -c1-16)"
    cp "$min" "$dest"
    echo "fuzz_long: $t: crash minimised to $dest ($(stat -c %s "$dest") bytes); original $crash"
    mv "$crash" "$crash.kept"
    found=$((found + 1))
  done
  return $found
}

# The summary line of a finished run, from libFuzzer's log.
summary() {
  local t=$1 log="$logs/$1.log" last runs execs crashes timeouts
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  runs=$(grep -oE 'stat::number_of_executed_units: +[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "${last%% *}")
  execs=$(grep -oE 'stat::average_exec_per_sec: +[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
  crashes=$(grep -cE '^==[0-9]+==ERROR|^fuzz_[a-z]+: promise broken|deadly signal' "$log" || true)
  timeouts=$(grep -c 'ERROR: libFuzzer: timeout' "$log" || true)
  echo "$t: runs ${runs:-?}, exec/s ${execs:-?}, $(grep -oE 'cov: [0-9]+ ft: [0-9]+' <<<"$last" || echo 'cov: ? ft: ?'), corpus $(ls "$cache/$t" | wc -l), crashes ${crashes:-0}, timeouts ${timeouts:-0} (rechecked below)"
}

set -- "${targets[@]}"
failed=0
while [ $# -gt 0 ]; do
  batch=()
  for _ in $(seq "$jobs"); do [ $# -gt 0 ] && batch+=("$1") && shift; done
  for t in "${batch[@]}"; do
    FUZZ_NO_BUILD=1 FUZZ_BUILD_DIR=$build FUZZ_CORPUS_DIR=$cache FUZZ_CRASH_DIR=$cache/crashes \
      nice -n 10 bench/fuzz.sh "$t" "$seconds" -timeout=30 >"$logs/$t.log" 2>&1 &
  done
  for _ in "${batch[@]}"; do wait -n || true; done
  for t in "${batch[@]}"; do
    summary "$t"
    keep_crashes "$t" || failed=1
  done
done

# Runs without ASan: every grown corpus once through the ASan build, so a memory error an
# input reaches is caught too (its input is then kept like any crash).
if [ -n "${FUZZ_SANITIZERS:-}" ] && [[ "$FUZZ_SANITIZERS" != *address* ]]; then
  build=build-fuzz
  FUZZ_SANITIZERS='' scripts/sanitize.sh configure "$build" address >/dev/null
  nice -n 10 cmake --build "$build" -j "$jobs" --target "${targets[@]}"
  for t in "${targets[@]}"; do
    if ASAN_OPTIONS=malloc_context_size=0 nice -n 10 "$build/fuzz/$t" "$cache/$t" -runs=0 -timeout=30 \
      -artifact_prefix="$cache/crashes/$t-" >"$logs/$t.asan-replay.log" 2>&1; then
      echo "fuzz_long: $t: $(ls "$cache/$t" | wc -l) corpus inputs replayed under ASan: no error"
    else
      echo "fuzz_long: $t: the ASan replay of its corpus failed ($logs/$t.asan-replay.log)"
      keep_crashes "$t" || true
      failed=1
    fi
  done
fi
exit $failed
