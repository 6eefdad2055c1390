#!/usr/bin/env bash
# Builds everything (engine, server, grammars, tests, benchmarks) with warnings as errors
# and runs the whole test suite, then the reliability phases. Installs what it needs first
# (scripts/setup.sh). Prints the time of every phase at the end.
#
# Phases (WAFER_PHASES, default all of them, in this order):
#   build  cmake build of everything in BUILD_DIR (gcc, -Werror)
#   editors  what the editor tests need beyond Debian 12's packages, kept in BUILD_DIR so
#          reruns skip it: Neovim 0.10 built from Debian trixie's source packages
#          (editors/nvim/test/build-nvim.sh, ~2 min once) and code-server for the VS Code
#          workbench test (editors/vscode/e2e/install-code-server.sh); after it, the test
#          phase runs the Neovim tests on 0.7.2 and 0.10 and the workbench test, and a
#          missing editor there is a failure, not a skip
#   test   ctest: every unit and integration test; then scripts/judge_skips.py prints every
#          skipped test with its reason and fails on a reason tests/skip_reasons.txt does
#          not accept (a CPU feature this machine lacks is one; missing data or tools are not)
#   soak   bench_soak: 20000 keystrokes over four documents (opened, edited, closed,
#          reopened) 10 ms apart, then a 500-request flood; one reply per request, a
#          suggestion for at least 80% of the keystrokes (the bundled model, with the
#          confidence gate off: the soak judges the daemon, not the model's certainty), and an RSS
#          slope under 16 KiB per 1000 requests over the typing's second half, once the
#          engine's buffers are warm (on a slow machine warming up takes more than 5000
#          keystrokes; about 4 minutes); the flood's RSS is printed, not judged
#   asan   scripts/sanitize.sh address: ASan + UBSan build (clang) of the daemon, the
#          parser/server tests and the integration tests; runs them
#   tsan   scripts/sanitize.sh thread: TSan build of the scheduler and thread-pool tests
#   fuzz   every libFuzzer target for FUZZ_SECONDS (default 10) over the committed corpus
#          (a fresh working corpus each time), two at a time, in the asan phase's build;
#          each must run at least its minimum of new inputs (fuzz_min_new_runs)
#   arm64  scripts/arm64.sh: cross build for 64-bit Arm Linux (ARM64_BUILD_DIR, default
#          build-arm64), chosen tests under qemu-aarch64 with and without the dot product,
#          and the bundled model's greedy completion compared with the x86 build's (which
#          the build phase makes); setup.sh installs its cross toolchain and qemu up front
#   windows  scripts/windows.sh: cross build for Windows x86-64 (mingw-w64; WINDOWS_BUILD_DIR,
#          default build-windows, which also keeps the libuv and curl it builds from Debian's
#          sources), the tests whose code differs per OS under wine64, and `wafer.exe
#          complete` compared with the native build's
#   macos  scripts/macos.sh: cross build for macOS with Zig (MACOS_BUILD_DIR, default
#          build-macos): `wafer` compiled and linked for aarch64-macos and x86_64-macos, the
#          test executables for aarch64-macos, each checked to be a Mach-O executable of its
#          CPU type; nothing runs (no Mach-O file runs here)
# Options through the environment: BUILD_DIR (default build), JOBS (default nproc),
# WAFER_SANITIZE=ON for an ASan+UBSan main build, WAFER_PHASES="build test", FUZZ_SECONDS.
# The clang phases need clang + libclang-rt-dev (setup.sh installs them); without them they
# are reported as skipped, unless WAFER_REQUIRE_CLANG=1 (CI), where that is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
PHASES=${WAFER_PHASES:-build editors test soak asan tsan fuzz arm64 windows macos}
want() { [[ " $PHASES " == *" $1 "* ]]; }
./scripts/setup.sh
want arm64 && ./scripts/setup.sh arm64
want windows && ./scripts/setup.sh windows
want macos && ./scripts/setup.sh macos
# New build trees use Ninja: CMake's Makefiles build the targets named on one command line
# one after another; Ninja keeps every core busy. A tree configured before keeps its generator.
if [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null 2>&1; then export CMAKE_GENERATOR=Ninja; fi

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
timings=()
trap 'echo "test.sh: phase times: ${timings[*]:-none}"' EXIT

run_phase() {  # run_phase NAME COMMAND...: runs and times it; a skip (exit 3) is reported
  local name=$1 start rc=0
  shift
  start=$(date +%s)
  echo "test.sh: === $name ==="
  "$@" || rc=$?
  local took=$(( $(date +%s) - start ))
  if [ $rc = 3 ]; then
    timings+=("$name=skipped")
    echo "test.sh: $name skipped (see above)"
    return 0
  fi
  timings+=("$name=${took}s")
  if [ $rc != 0 ]; then
    echo "test.sh: $name FAILED (exit $rc)"
    exit $rc
  fi
}

build() {
  # Line tables only (-g1): backtraces keep file and line, and the build is about a third
  # faster than with full debug info (-g), which CI never reads.
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWAFER_WERROR=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DWAFER_SANITIZE="${WAFER_SANITIZE:-OFF}" >/dev/null &&
    cmake --build "$BUILD_DIR" -j "$JOBS"
}
editors() {
  JOBS=$JOBS editors/nvim/test/build-nvim.sh "$BUILD_DIR/nvim-new" &&
    editors/vscode/e2e/install-code-server.sh "$BUILD_DIR/code-server" &&
    export WAFER_REQUIRE_EDITORS=1
}
tests() {  # every test, then the skips judged: only a reason of tests/skip_reasons.txt may skip
  local junit rc=0
  junit="$(cd "$BUILD_DIR" && pwd)/ctest-junit.xml"
  ctest --test-dir "$BUILD_DIR" -j "$JOBS" --output-on-failure --timeout 600 --output-junit "$junit" || rc=$?
  python3 scripts/judge_skips.py "$junit" || rc=1
  return $rc
}
soak() {
  "$BUILD_DIR/bench/bench_soak" --typing 20000 --typing-ms 10 --flood 500 --max-slope-kib 16 --min-slope-requests 1000 \
    --min-non-empty 0.8 --lsp-arg --min-confidence --lsp-arg 0
}
# The fewest new inputs (runs after the corpus is loaded) each target must run in the default
# FUZZ_SECONDS=10, scaled for other FUZZ_SECONDS (at least 1): a target that hangs on its
# corpus or stops at once ("Done 0 runs") fails the phase. Each is a fifth to a third of the
# fewest measured with two targets on two cores (docs/reliability.md); fuzz_lsp's is small
# because it runs the whole daemon per input, under ASan at -O0.
fuzz_min_new_runs() {
  case $1 in
    fuzz_documents) echo 100 ;;
    fuzz_framing) echo 400 ;;
    fuzz_gguf) echo 5000 ;;
    fuzz_listen_token) echo 20000 ;;
    fuzz_lsp) echo 10 ;;
    fuzz_settings) echo 2000 ;;
    fuzz_sse) echo 2000 ;;
    fuzz_tokenizer) echo 400 ;;
    fuzz_trace) echo 300 ;;
    *) echo "fuzz: $1 has no minimum in scripts/test.sh" >&2; return 1 ;;
  esac
}
# Runs after loading the corpus, from a libFuzzer log ("#N INITED" ... "Done M runs").
fuzz_new_runs() {
  local inited done_runs
  inited=$(sed -n 's/^#\([0-9]*\)[[:space:]]*INITED.*/\1/p' "$1" | head -1)
  done_runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$1" | head -1)
  [ -n "$inited" ] && [ -n "$done_runs" ] && echo $((done_runs - inited))
}
fuzz() {
  local dir=${ASAN_BUILD_DIR:-build-asan} logs targets failed=0 new min
  scripts/sanitize.sh configure "$dir" address || return $?
  logs=$(mktemp -d)
  targets=$(cd fuzz && ls fuzz_*.cpp | sed 's/\.cpp$//')
  # shellcheck disable=SC2086
  cmake --build "$dir" -j "$JOBS" --target $targets || return 1
  # shellcheck disable=SC2086
  set -- $targets
  # The targets are built: the runs beside each other must not configure or build the
  # shared tree again.
  while [ $# -gt 0 ]; do
    local batch=()
    for _ in $(seq "$JOBS"); do [ $# -gt 0 ] && batch+=("$1") && shift; done
    for t in "${batch[@]}"; do
      FUZZ_NO_BUILD=1 FUZZ_BUILD_DIR=$dir FUZZ_CORPUS_DIR=$logs/corpus bench/fuzz.sh "$t" "$FUZZ_SECONDS" >"$logs/$t.log" 2>&1 &
    done
    for t in "${batch[@]}"; do
      if wait -n; then :; else failed=1; fi
    done
    for t in "${batch[@]}"; do
      new=$(fuzz_new_runs "$logs/$t.log") || new=
      if ! min=$(fuzz_min_new_runs "$t"); then failed=1 && continue; fi
      min=$((min * FUZZ_SECONDS / 10 > 1 ? min * FUZZ_SECONDS / 10 : 1))
      if [ -n "$new" ] && [ "$new" -ge "$min" ]; then
        echo "fuzz: $t: $new new inputs (at least $min), $(grep -E '^Done [0-9]* runs' "$logs/$t.log"), corpus $(grep -c . <(ls "$logs/corpus/$t")) inputs"
      else
        failed=1
        echo "fuzz: $t FAILED: ${new:-no} new inputs, at least $min wanted:"
        tail -60 "$logs/$t.log"
      fi
    done
  done
  return $failed
}

want build && run_phase build build
want editors && run_phase editors editors
want test && run_phase test tests
want soak && run_phase soak soak
want asan && run_phase asan scripts/sanitize.sh address
want tsan && run_phase tsan scripts/sanitize.sh thread
want fuzz && run_phase fuzz fuzz
want arm64 && run_phase arm64 scripts/arm64.sh
want windows && run_phase windows scripts/windows.sh
want macos && run_phase macos scripts/macos.sh
echo "test.sh: all phases passed"
