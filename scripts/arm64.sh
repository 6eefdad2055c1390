#!/usr/bin/env bash
# The arm64 phase of scripts/test.sh: cross-compiles wafer for 64-bit Arm Linux (Debian's
# crossbuild-essential-arm64, cmake/aarch64-linux-gnu.cmake) into ARM64_BUILD_DIR (default
# build-arm64) and runs chosen tests under qemu-aarch64: all of them with `-cpu max` (dot
# product, i8mm, SVE: the neon-dotprod kernels), and those whose results depend on the
# kernels with `-cpu cortex-a57` (no dot product: the plain neon kernels). Then `wafer
# generate` on the bundled model must print the same greedy completion under both CPU models
# as the native x86 build (BUILD_DIR) does. Installs what it needs (scripts/setup.sh arm64).
# Times under qemu say nothing about performance on Arm hardware.
#
# ARM64_RELEASE=1 builds what users run instead (scripts/package.sh --build): `wafer` alone,
# at -O2 throughout, in ARM64_BUILD_DIR (default build-arm64-release), and checks only its
# greedy completion against the x86 build's.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh arm64

RELEASE=${ARM64_RELEASE:-0}
DIR=${ARM64_BUILD_DIR:-build-arm64}
[ "$RELEASE" = 1 ] && DIR=${ARM64_BUILD_DIR:-build-arm64-release}
JOBS=${JOBS:-$(nproc)}
# The tests run under qemu (their executables' names; ctest labels them so): kernels
# against the scalar reference, the runtime, quantization, GGUF, tokenizers, the forward
# pass with the reference logits (tests/data; the optional larger ones from ../shared), sessions, the
# engine, and the server's protocol units. Tests that start the `wafer` binary are left
# out: their child processes would not run under qemu.
TESTS=(
  engine_test_dispatch engine_test_kernel_tables engine_test_matmul_many engine_test_quantize_kernels engine_test_amx_check
  engine_test_cpu_features engine_test_threadpool engine_test_huge_pages
  engine_test_float16 engine_test_quant engine_test_quant_kquants
  engine_test_gguf engine_test_gguf_hostile
  engine_test_tokenizer engine_test_tokenizer_vectors engine_test_unicode
  engine_test_forward engine_test_forward_reference engine_test_kv_cache
  engine_test_session engine_test_engine_local
  server_test_jsonrpc server_test_framing server_test_utf8
)
# Built, not run: the benchmarks with code per instruction set (a user's native Arm build
# compiles them by default, WAFER_BUILD_BENCH).
BENCHES=(bench_kernels bench_engine bench_latency)
# Under -cpu cortex-a57 again: the ones whose results go through the chosen kernels (the
# others compute the same with either CPU model). Under -cpu max only: the 0.5B-shaped
# model's generation (the slowest test under emulation; the same code as the small models)
# and the reference models with F32, F16 and BF16 weights, which go through the scalar
# backend (simd_backend.cpp) and differ from the quantized ones only there: the kernels they
# reach, attention over F32 and F16 caches and SwiGLU, run under -cpu cortex-a57 in the
# quantized models' reference tests and against the scalar twins in engine_test_dispatch.
TESTS_PLAIN_NEON=(
  engine_test_dispatch engine_test_kernel_tables engine_test_matmul_many engine_test_cpu_features
  engine_test_forward engine_test_forward_reference engine_test_kv_cache engine_test_session
)
EXCLUDE_PLAIN_NEON='0\.5B-shaped|^forward reference: (tiny-llama F32|tiny-qwen2 F16|small-llama BF16|F16 KV cache)'

# Optimised as far as the runs under qemu need, without debug info: the engine at -O2, its
# NEON kernel files at -O1 (engine/CMakeLists.txt: WAFER_NEON_OPT), the server, fixtures and
# tests at -O1 (`wafer generate` and these tests spend their time in the engine), the C of
# tree-sitter at -O0 (its tables compile many times faster, and these tests parse little).
# Only the chosen tests and `wafer` are built, with Ninja: CMake's Makefiles build the
# targets named on the command line one after another, and start a library's dependents
# only once it is archived; Ninja keeps both cores busy throughout.
if [ -f "$DIR/CMakeCache.txt" ] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$DIR/CMakeCache.txt"; then
  rm -rf "$DIR"  # configured by an earlier version of this script with another generator
fi
if [ "$RELEASE" = 1 ]; then
  cmake -S . -B "$DIR" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
    -DCMAKE_BUILD_TYPE=Release -DWAFER_WERROR=ON -DWAFER_BUILD_TESTS=OFF -DWAFER_BUILD_BENCH=OFF \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" >/dev/null
  cmake --build "$DIR" -j "$JOBS" --target wafer
else
  cmake -S . -B "$DIR" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWAFER_WERROR=ON -DWAFER_BUILD_BENCH=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O0 -DNDEBUG" \
    -DWAFER_ENGINE_OPT=-O2 -DWAFER_NEON_OPT="-O1 -g0" -DWAFER_GRAMMAR_OPT=-O0 >/dev/null
  cmake --build "$DIR" -j "$JOBS" --target wafer "${TESTS[@]}" "${BENCHES[@]}"

  labels() { local IFS='|'; echo "^($*)\$"; }
  echo "arm64: ctest under qemu-aarch64 -cpu max"
  WAFER_QEMU_CPU=max ctest --test-dir "$DIR" -L "$(labels "${TESTS[@]}")" -j "$JOBS" --output-on-failure --timeout 900
  echo "arm64: ctest under qemu-aarch64 -cpu cortex-a57"
  WAFER_QEMU_CPU=cortex-a57 ctest --test-dir "$DIR" -L "$(labels "${TESTS_PLAIN_NEON[@]}")" -E "$EXCLUDE_PLAIN_NEON" \
    -j "$JOBS" --output-on-failure --timeout 900
fi

# The same greedy completion as on x86 (the bundled Q8_0 model). The guest runs through the
# same emulator script as ctest: the multiarch arm64 runtime, not the cross toolchain's libc
# (see cmake/qemu-aarch64.sh).
model=models/wafer-tiny-code-q8_0.gguf
prompt='def fibonacci(n):'
native=${BUILD_DIR:-build}/server/wafer
if [ ! -x "$native" ]; then
  echo "arm64: FAILED: no x86 build at $native to compare wafer generate with (build it first)"
  exit 1
fi
want=$("$native" generate "$model" --prompt "$prompt" -n 24 2>/dev/null)
for cpu in max cortex-a57; do
  got=$(WAFER_QEMU_CPU=$cpu cmake/qemu-aarch64.sh "$DIR/server/wafer" generate "$model" \
          --prompt "$prompt" -n 24 2>/dev/null)
  echo "arm64: wafer generate (-cpu $cpu): $(printf '%s' "$got" | head -c 200 | tr '\n' '|')"
  if [ "$got" != "$want" ]; then
    echo "arm64: FAILED: x86 printed: $(printf '%s' "$want" | head -c 200 | tr '\n' '|')"
    exit 1
  fi
done
echo "arm64: wafer generate prints the x86 build's greedy completion under both CPU models"
echo "arm64: all passed"
