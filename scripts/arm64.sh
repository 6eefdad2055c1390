#!/usr/bin/env bash
# The arm64 phase of scripts/test.sh: cross-compiles wafer for 64-bit Arm Linux (Debian's
# crossbuild-essential-arm64, cmake/aarch64-linux-gnu.cmake) into ARM64_BUILD_DIR (default
# build-arm64) and runs a chosen set of tests under qemu-aarch64 twice: with `-cpu max`
# (dot product, i8mm, SVE: the neon-dotprod kernels) and with `-cpu cortex-a57` (no dot
# product: the plain neon kernels). Then `wafer generate` on the bundled model must print
# the same greedy completion under both CPU models as the native x86 build (BUILD_DIR) does,
# when that build has the binary. Installs what it needs (scripts/setup.sh arm64).
# Times under qemu say nothing about performance on Arm hardware.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh arm64

DIR=${ARM64_BUILD_DIR:-build-arm64}
JOBS=${JOBS:-$(nproc)}
# The tests run under qemu (their executables' names; ctest labels them so): kernels
# against the scalar reference, the runtime, quantization, GGUF, tokenizers, the forward
# pass with the reference logits (../shared/testdata, skipped when absent), sessions, the
# engine, and the server's protocol units. Tests that start the `wafer` binary are left
# out: their child processes would not run under qemu.
TESTS=(
  engine_test_dispatch engine_test_matmul_many engine_test_quantize_kernels engine_test_amx_check
  engine_test_cpu_features engine_test_threadpool engine_test_huge_pages
  engine_test_float16 engine_test_quant engine_test_quant_kquants
  engine_test_gguf engine_test_gguf_hostile
  engine_test_tokenizer engine_test_tokenizer_vectors engine_test_unicode
  engine_test_forward engine_test_forward_reference engine_test_kv_cache
  engine_test_session engine_test_engine_local
  server_test_jsonrpc server_test_framing server_test_utf8
)

# The generated tree-sitter parsers at -O0 (C only; wafer's own C++ keeps -O2): their
# tables compile many times faster, and these tests parse little.
cmake -S . -B "$DIR" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWAFER_WERROR=ON -DWAFER_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O0 -DNDEBUG" \
  -DWAFER_GRAMMAR_OPT=-O0 >/dev/null
cmake --build "$DIR" -j "$JOBS" --target wafer "${TESTS[@]}"

labels=$(IFS='|'; echo "^(${TESTS[*]})\$")
for cpu in max cortex-a57; do
  echo "arm64: ctest under qemu-aarch64 -cpu $cpu"
  WAFER_QEMU_CPU=$cpu ctest --test-dir "$DIR" -L "$labels" -j "$JOBS" --output-on-failure --timeout 900
done

# The same greedy completion as on x86 (the bundled Q8_0 model).
model=models/wafer-tiny-code-q8_0.gguf
prompt='def fibonacci(n):'
native=${BUILD_DIR:-build}/server/wafer
want=""
if [ -x "$native" ]; then want=$("$native" generate "$model" --prompt "$prompt" -n 24 2>/dev/null); fi
for cpu in max cortex-a57; do
  # Through the same emulator script as ctest: the multiarch arm64 runtime, not the cross
  # toolchain's libc (see cmake/qemu-aarch64.sh).
  got=$(WAFER_QEMU_CPU=$cpu cmake/qemu-aarch64.sh "$DIR/server/wafer" generate "$model" \
          --prompt "$prompt" -n 24 2>/dev/null)
  echo "arm64: wafer generate (-cpu $cpu): $(printf '%s' "$got" | head -c 200 | tr '\n' '|')"
  if [ -n "$want" ] && [ "$got" != "$want" ]; then
    echo "arm64: FAILED: x86 printed: $(printf '%s' "$want" | head -c 200 | tr '\n' '|')"
    exit 1
  fi
done
[ -n "$want" ] && echo "arm64: wafer generate prints the x86 build's greedy completion under both CPU models"
echo "arm64: all passed"
