#!/usr/bin/env bash
# The windows phase of scripts/test.sh: cross-compiles wafer for Windows x86-64 (Debian's
# mingw-w64, cmake/mingw-w64.cmake; libuv and libcurl with Schannel built from Debian's
# source packages by scripts/windows-deps.sh, kept in the build folder) into
# WINDOWS_BUILD_DIR (default build-windows) and runs the tests whose code differs per OS
# under wine64: the runtime (thread pool wait/wake, file views, pages, CPU topology), the
# kernels against their scalar twins, tokenizer vectors, GGUF, the forward pass against the
# reference logits, the protocol units, URIs, paths and document keys, UTF-8 file names,
# and the LSP sessions driving `wafer.exe lsp` over pipes. Then `wafer.exe complete` on the sample must print the native
# build's (BUILD_DIR) greedy text with the bundled model. Installs what it needs
# (scripts/setup.sh windows). Times under wine are not Windows' times.
#
# WINDOWS_RELEASE=1 builds what users run (scripts/package.sh --build): `wafer.exe` alone, in
# the same folder and at the same -O2, and checks only its greedy completions under wine.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh windows
start=$(date +%s)

DIR=${WINDOWS_BUILD_DIR:-build-windows}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$DIR"
JOBS=$JOBS scripts/windows-deps.sh "$DIR/deps"
export WINEPREFIX="$PWD/$DIR/wine" WINEDEBUG=-all
# The executables run under wine (their names; ctest labels them so).
TESTS=(
  engine_test_dispatch engine_test_matmul_many engine_test_quantize_kernels
  engine_test_cpu_features engine_test_threadpool engine_test_huge_pages
  engine_test_gguf engine_test_gguf_hostile
  engine_test_tokenizer_vectors engine_test_forward_reference
  server_test_framing server_test_jsonrpc server_test_utf8 server_test_documents
  server_test_prompt_paths server_test_path_styles server_test_document_key engine_test_path_utf8
  server_test_workspace_index
  integration_test_lsp_session integration_test_faults integration_test_file_names
)
# Not run under wine (reported as such): the TCP session's client is a python3 of the host,
# which a Windows program cannot start, and the KV cache's out-of-memory test limits the
# daemon's address space through the host's /bin/sh (ulimit -v); on Windows that limit is a
# job object's, which the tests' process launcher does not set.
EXCLUDE='^(lsp session: loopback TCP|faults: no memory for the KV cache)'


# One optimisation level (-O2) for everything, no debug info: the runs under wine need the
# engine fast, and the tree-sitter tables compile no slower at -O2 than the tests need.
cmake -S . -B "$DIR" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake -DWAFER_WINDOWS_DEPS="$PWD/$DIR/deps" \
  -DCMAKE_BUILD_TYPE=Release -DWAFER_WERROR=ON -DWAFER_LLD=OFF -DWAFER_BUILD_BENCH=ON \
  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" >/dev/null
if [ "${WINDOWS_RELEASE:-0}" = 1 ]; then
  cmake --build "$DIR" -j "$JOBS" --target wafer
else
  cmake --build "$DIR" -j "$JOBS" --target wafer "${TESTS[@]}"

  labels() { local IFS='|'; echo "^($*)\$"; }
  # A failed test runs once more: now and then a test's wine cannot reach the wine server
  # ("wine client error: recvmsg: Connection reset by peer", when it starts while the
  # last test's server shuts down) and fails before it runs. A real failure fails twice.
  echo "windows: ctest under wine64"
  ctest --test-dir "$DIR" -L "$(labels "${TESTS[@]}")" -E "$EXCLUDE" -j "$JOBS" --output-on-failure --timeout 900 \
    --repeat until-pass:2
  echo "windows: not run under wine: $(ctest --test-dir "$DIR" -N -R "$EXCLUDE" | grep -c 'Test *#') test(s) matching '$EXCLUDE'"
fi

# The same greedy completion as the native build (the bundled Q8_0 model, the sample).
native=${BUILD_DIR:-build}/server/wafer
if [ ! -x "$native" ]; then
  echo "windows: FAILED: no native build at $native to compare wafer complete with (build it first)"
  exit 1
fi
model=models/wafer-tiny-code-q8_0.gguf
args=(complete scripts/sample/inventory.py:29:12 --model "$model")
want=$("$native" "${args[@]}" 2>/dev/null)
got=$(cmake/wine64.sh "$DIR/server/wafer.exe" "${args[@]}" 2>/dev/null)
echo "windows: wafer.exe complete: $(printf '%s' "$got" | head -c 200 | tr '\n' '|')"
if [ "$got" != "$want" ]; then
  echo "windows: FAILED: the native build printed: $(printf '%s' "$want" | head -c 200 | tr '\n' '|')"
  exit 1
fi
echo "windows: wafer.exe complete prints the native build's greedy completion"

# The same with the model at a path with spaces and letters outside ASCII (the command line
# reaches wafer.exe as UTF-16 and is taken as such).
odd="$DIR/paths/Modèles 模型/tiny modèl.gguf"
mkdir -p "$(dirname "$odd")"
cp "$model" "$odd"
args[3]=$odd
got=$(cmake/wine64.sh "$DIR/server/wafer.exe" "${args[@]}" 2>"$DIR/paths/stderr") || true
if [ "$got" != "$want" ]; then
  echo "windows: FAILED: with the model at '$odd' wafer.exe printed: $(printf '%s' "$got" | head -c 300 | tr '\n' '|')"
  tail -5 "$DIR/paths/stderr"
  exit 1
fi
echo "windows: the same with the model at '$odd'"
echo "windows: all passed in $(( $(date +%s) - start )) s"
