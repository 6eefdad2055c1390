#!/usr/bin/env bash
# Sanitizer builds with clang, scoped so that CI can afford them (see the README's Tests
# section):
#   scripts/sanitize.sh address   ASan + UBSan (-O1) build in build-asan of the daemon, the
#                                 tests of every parser of outside input, the server's
#                                 protocol/documents/scheduler/completion tests and the
#                                 integration tests (real `wafer lsp`, fake engine); runs
#                                 them. The same build holds the libFuzzer targets
#                                 (bench/fuzz.sh with FUZZ_BUILD_DIR=build-asan).
#   scripts/sanitize.sh thread    TSan build in build-tsan of the threaded code's tests
#                                 (scheduler + engine thread, compute thread pool); runs them.
#   scripts/sanitize.sh thread-engine   on demand, not in CI: the same for the real engine
#                                 (multi-threaded forward passes, sessions, cancellation,
#                                 speculative decoding); compiles the whole engine with TSan.
#   scripts/sanitize.sh configure DIR address|thread   only configure (bench/fuzz.sh uses it)
# Optimisation: SANITIZE_OPT (default -O0; -O1 for thread-engine): at -O0 the ASan phase
# saves more compile time than its slower tests cost. The grammar tables keep -O2 and the per-ISA kernels are not
# instrumented (CMakeLists.txt).
# Needs clang and its runtimes (Debian: clang libclang-rt-dev; scripts/setup.sh installs
# them). Without them it says so and exits 3, or 1 when WAFER_REQUIRE_CLANG=1 (CI).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: scripts/sanitize.sh address|thread|thread-engine|configure DIR MODE}
JOBS=${JOBS:-$(nproc)}
# The whole engine under TSan runs real forward passes: those want -O1.
if [ "$mode" = thread-engine ]; then SANITIZE_OPT=${SANITIZE_OPT:--O1}; fi
CLANG_CC=${CLANG_CC:-clang}      # another clang (e.g. clang-19 with libclang-rt-19-dev) through these
CLANG_CXX=${CLANG_CXX:-clang++}

# Test executables (their ctest labels) run under ASan + UBSan. The fuzz corpora's replay
# tests (server_test_fuzz_corpus, engine_test_*_corpus) are left out: the fuzz phase runs
# every target over the same committed corpus in this build first.
ASAN_TESTS=(
  server_test_framing server_test_jsonrpc server_test_protocol server_test_documents server_test_syntax
  server_test_scheduler server_test_completion_result server_test_context
  engine_test_gguf engine_test_gguf_hostile engine_test_tokenizer engine_test_mapping_guard
  integration_test_lsp_session integration_test_transcripts integration_test_faults
)
TSAN_TESTS=(tsan_server_test_scheduler tsan_engine_test_threadpool)
TSAN_ENGINE_TESTS=(tsan_engine_test_engine_local)  # on demand (thread-engine): the whole engine

need_clang() {
  local problem=""
  if ! command -v "$CLANG_CXX" >/dev/null; then
    problem="$CLANG_CXX not found"
  elif [ ! -f "$("$CLANG_CXX" -print-runtime-dir)/libclang_rt.fuzzer-x86_64.a" ] &&
       [ ! -f "$("$CLANG_CXX" -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" ]; then
    problem="clang's sanitizer/libFuzzer runtime not found"
  fi
  [ -z "$problem" ] && return 0
  echo "sanitize.sh: $problem: install clang and libclang-rt-dev (scripts/setup.sh does)" >&2
  if [ "${WAFER_REQUIRE_CLANG:-0}" = 1 ]; then exit 1; fi
  exit 3
}

configure() {  # configure DIR address|thread
  local dir=$1 kind=$2 flag
  if [ "$kind" = thread ]; then flag=-DWAFER_TSAN=ON; else flag=-DWAFER_FUZZ=ON; fi
  if [ "$kind" = address ] && [ -n "${FUZZ_SANITIZERS:-}" ]; then flag="$flag -DWAFER_FUZZ_SANITIZERS=$FUZZ_SANITIZERS"; fi
  # shellcheck disable=SC2086  # flag holds one or two options
  CC=$CLANG_CC CXX=$CLANG_CXX cmake -S . -B "$dir" $flag -DWAFER_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="${SANITIZE_OPT:--O0} -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="${SANITIZE_OPT:--O0} -g1" >/dev/null
}

# ctest label regex for a list of executables.
labels() { local IFS='|'; echo "^($*)\$"; }

need_clang
# New build trees (unless test.sh already chose) use Ninja: CMake's Makefiles build the targets named on one command line
# one after another; Ninja keeps every core busy. A tree configured before keeps its generator.
if [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null 2>&1; then export CMAKE_GENERATOR=Ninja; fi
case "$mode" in
  configure)
    configure "${2:?DIR}" "${3:?address|thread}"
    ;;
  address)
    dir=${ASAN_BUILD_DIR:-build-asan}
    configure "$dir" address
    fuzzers=$(cd fuzz && ls fuzz_*.cpp | sed 's/\.cpp$//')
    # shellcheck disable=SC2086
    cmake --build "$dir" -j "$JOBS" --target wafer wafer-scripted "${ASAN_TESTS[@]}" $fuzzers
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    ctest --test-dir "$dir" -j "$JOBS" -L "$(labels "${ASAN_TESTS[@]}")" --output-on-failure --timeout 600
    ;;
  thread|thread-engine)
    dir=${TSAN_BUILD_DIR:-build-tsan}
    tests=("${TSAN_TESTS[@]}")
    if [ "$mode" = thread-engine ]; then tests=("${TSAN_ENGINE_TESTS[@]}"); fi
    configure "$dir" thread
    cmake --build "$dir" -j "$JOBS" --target "${tests[@]}"
    export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
    ctest --test-dir "$dir" -j "$JOBS" -L "$(labels "${tests[@]}")" --output-on-failure --timeout 1200
    ;;
  *)
    echo "usage: scripts/sanitize.sh address|thread|thread-engine|configure DIR MODE" >&2
    exit 2
    ;;
esac
