#!/usr/bin/env bash
# Runs the Neovim plugin's headless tests.
#   editors/nvim/test/run.sh FILES... [-- DAEMON_COMMAND...]
# FILES are test files in this folder (test_text.lua ...). DAEMON_COMMAND defaults to the
# scripted fake daemon (fake_lsp.py); pass e.g. `-- build/server/wafer lsp --model M.gguf`
# for the real one. NVIM: the Neovim binary (default `nvim` on PATH). Exit 0 all passed, 1 a
# failure, 77 that Neovim is not installed (skipped; a failure with WAFER_REQUIRE_EDITORS=1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plugin=$(dirname "$here")

files=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do files+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
if [ $# -gt 0 ]; then
  cmd=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' "$@")
else
  cmd=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' python3 "$here/fake_lsp.py" ${WAFER_FAKE_ARGS:-})
  export WAFER_TEST_FAKE=1
fi

NVIM=${NVIM:-nvim}
if ! command -v "$NVIM" >/dev/null 2>&1; then
  echo "SKIPPED: $NVIM not installed (scripts/setup.sh installs Debian's neovim; the editors phase of scripts/test.sh builds a newer one)"
  [ "${WAFER_REQUIRE_EDITORS:-0}" = 1 ] && exit 1
  exit 77
fi
NVIM=$(command -v "$NVIM")
NVIM=$(cd "$(dirname "$NVIM")" && pwd)/$(basename "$NVIM") # the tests run in a temporary folder
"$NVIM" --version 2>&1 | sed -n 1p

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A private HOME/XDG so the user's config, shada and LSP log stay out of the test.
export HOME="$tmp" XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" \
       XDG_STATE_HOME="$tmp/state" XDG_CACHE_HOME="$tmp/cache"
export WAFER_TEST_CMD="$cmd" WAFER_TEST_FILES="${files[*]}"
cd "$tmp"
# SIGKILL on timeout: a Neovim stuck in a blocking call ignores SIGTERM.
timeout -s KILL "${WAFER_TEST_TOTAL_TIMEOUT:-280}" \
  "$NVIM" --headless --clean -u NONE --cmd "set rtp^=$plugin" -c "luafile $here/run.lua" </dev/null
