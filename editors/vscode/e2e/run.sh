#!/usr/bin/env bash
# End-to-end test of the VS Code extension in a real VS Code workbench: code-server
# (VS Code 1.100.3 from npm) in headless Chromium driven by playwright-core. Installs the
# built .vsix, opens a Python file, and checks (test.mjs) that the ghost text from the
# daemon appears and streams, that Escape, accept word, accept line, Tab, typing through,
# next/previous and the toggle do what they should, with the file on disk as the witness.
#
#   editors/vscode/e2e/run.sh [DAEMON...]
#
# DAEMON: the command that stands for `wafer` (it is run as `DAEMON lsp ...`); default
# WAFER_SCRIPTED, the build's wafer-scripted (wafer with the scripted test engine,
# --fake-engine e2e/fake-engine.json).
# Environment: CODE_SERVER (default /work/.cache/code-server/node_modules/.bin/code-server;
# install with ../shared/recipes/install-code-server.sh), CHROMIUM (/usr/bin/chromium),
# WAFER_ARGS (extra `wafer lsp` arguments as a JSON list), E2E_STREAM (1, default: the
# wafer.stream setting on; 0: off), E2E_FIND (setting, default: the daemon named in
# wafer.path; path: wafer.path unset and the daemon's folder first on PATH, so the extension
# finds it itself; none: nothing to find; package: the .vsix E2E_VSIX from scripts/package.sh
# installed as it is, with no setting, PATH without wafer and an empty home, so its own binary
# and bundled model serve; pull: the daemon given (the real `wafer`, serving its bundled model)
# in wafer.path, with $WAFER_CATALOG naming a test catalogue whose model and its draft a loopback server
# (editors/nvim/test/pull_server.py) hands out and a fresh $XDG_CACHE_HOME, for "Download" on
# the offer). Each way the extension's log must name the binary and how it was
# found (and with package, the model beside that binary).
# Exit 0 passed, 1 failed, 77 skipped (code-server or chromium missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ext=$(dirname "$here")
root=$(cd "$ext/../.." && pwd)
CODE_SERVER=${CODE_SERVER:-/work/.cache/code-server/node_modules/.bin/code-server}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
WAFER_SCRIPTED=${WAFER_SCRIPTED:-$root/build/tests/support/fixtures/wafer-scripted}
skip() {  # a failure instead of a skip with WAFER_REQUIRE_EDITORS=1 (CI)
  echo "SKIPPED: $*"
  [ "${WAFER_REQUIRE_EDITORS:-0}" = 1 ] && exit 1
  exit 77
}
[ -x "$CODE_SERVER" ] || skip "code-server not found at $CODE_SERVER (e2e/install-code-server.sh installs it)"
[ -x "$CHROMIUM" ] || skip "chromium not found at $CHROMIUM"
find=${E2E_FIND:-setting}
if [ "$find" = package ]; then
  [ -f "${E2E_VSIX:-}" ] || { echo "FAIL: no package at E2E_VSIX='${E2E_VSIX:-}' (scripts/package.sh linux-x64)"; exit 1; }
elif [ $# -eq 0 ]; then
  [ -x "$WAFER_SCRIPTED" ] || skip "$WAFER_SCRIPTED not built"
fi
[ -d "$ext/node_modules/playwright-core" ] || skip "the extension's npm dependencies are not installed (scripts/setup.sh)"

start=$(date +%s.%N)
cd "$ext"
[ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error
vsix=${E2E_VSIX:-$ext/wafer.vsix}
[ "$find" = package ] || npm run --silent package >/dev/null

tmp=$(mktemp -d)
cleanup() { [ -n "${cs_pid:-}" ] && kill "$cs_pid" 2>/dev/null; [ -n "${pull_pid:-}" ] && kill "$pull_pid" 2>/dev/null; if [ -n "${E2E_KEEP:-}" ]; then echo "e2e: kept $tmp"; else rm -rf "$tmp"; fi; }
trap cleanup EXIT
mkdir -p "$tmp/ws" "$tmp/user/User" "$tmp/ext" "$tmp/bin"

# The daemon: a wrapper named in wafer.path.
if [ $# -gt 0 ]; then
  daemon=("$@")
  args=${WAFER_ARGS:-[]}
else
  daemon=("$WAFER_SCRIPTED")
  args=${WAFER_ARGS:-"[\"--fake-engine\", \"$here/fake-engine.json\"]"}
fi
printf '#!/bin/sh\nexec %s "$@"\n' "$(printf '%q ' "${daemon[@]}")" > "$tmp/bin/wafer"
chmod +x "$tmp/bin/wafer"

printf 'import os\n\n\n' > "$tmp/ws/test.py"
cs_env=()
if [ "$find" = path ]; then
  path_setting=""
  how="found on PATH"
  # VSCODE_CLI=1: the environment is taken as it is; otherwise code-server replaces PATH
  # with a login shell's (as VS Code does), which would drop the daemon's folder.
  cs_env=(VSCODE_CLI=1 "PATH=$tmp/bin:$PATH")
elif [ "$find" = package ]; then
  # Only the package's own binary and model: PATH without wafer, a home folder without
  # ~/.local/bin/wafer or a download cache, no extra arguments.
  path_setting=""
  how="the extension's own binary"
  args='[]'
  mkdir -p "$tmp/home"
  if PATH=/usr/bin:/bin command -v wafer >/dev/null; then echo "FAIL: wafer is on PATH=/usr/bin:/bin"; exit 1; fi
  cs_env=(-u XDG_CACHE_HOME VSCODE_CLI=1 PATH=/usr/bin:/bin "HOME=$tmp/home")
elif [ "$find" = pull ]; then
  # The model is a copy of the bundled one served on loopback; the download lands in a fresh cache.
  path_setting="\"wafer.path\": \"$tmp/bin/wafer\","
  how="the wafer.path setting"
  args='[]'
  model=$root/models/wafer-tiny-code-q8_0.gguf
  mkdir -p "$tmp/control" "$tmp/cache"
  python3 "$root/editors/nvim/test/pull_server.py" "$model" "$tmp/control" > "$tmp/control/port" &
  pull_pid=$!
  for _ in $(seq 50); do [ -s "$tmp/control/port" ] && break; sleep 0.1; done
  # The model and the draft model paired with it (both copies of the bundled model).
  for entry in "loop-draft draft" "loop-coder model draft=loop-draft"; do
    set -- $entry
    printf '%s %s %s http://127.0.0.1:%s/%s.gguf %s.gguf %s | MIT | test model\n' "$1" \
      "$(stat -c %s "$model")" "$(sha256sum "$model" | cut -c1-64)" "$(cat "$tmp/control/port")" "$2" "$1" "${3:-}"
  done > "$tmp/catalogue.txt"
  cs_env=(VSCODE_CLI=1 "WAFER_CATALOG=$tmp/catalogue.txt" "XDG_CACHE_HOME=$tmp/cache")
elif [ "$find" = none ]; then
  # Nothing to find: PATH without the daemon, a home folder without ~/.local/bin/wafer.
  path_setting=""
  how=""
  mkdir -p "$tmp/home"
  cs_env=(VSCODE_CLI=1 PATH=/usr/bin:/bin "HOME=$tmp/home")
else
  path_setting="\"wafer.path\": \"$tmp/bin/wafer\","
  how="the wafer.path setting"
fi
cat > "$tmp/user/User/settings.json" <<JSON
{
  $path_setting
  "wafer.args": $args,
  "wafer.debounceMs": 20,
  "wafer.stream": $([ "${E2E_STREAM:-1}" = 0 ] && echo false || echo true),
  "editor.inlineSuggest.enabled": true,
  "editor.quickSuggestions": { "other": false, "comments": false, "strings": false },
  "editor.suggestOnTriggerCharacters": false,
  "editor.acceptSuggestionOnEnter": "off",
  "editor.autoClosingBrackets": "never",
  "editor.autoClosingQuotes": "never",
  "editor.autoIndent": "none",
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "python.languageServer": "None",
  "chat.disableAIFeatures": true,
  "workbench.welcomePage.walkthroughs.openOnInstall": false
}
JSON

"$CODE_SERVER" --user-data-dir "$tmp/user" --extensions-dir "$tmp/ext" \
  --install-extension "$vsix" >/dev/null 2>&1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$port" > "$tmp/config.yaml"
env "${cs_env[@]}" "$CODE_SERVER" --config "$tmp/config.yaml" --user-data-dir "$tmp/user" --extensions-dir "$tmp/ext" \
  --disable-telemetry --disable-update-check --disable-workspace-trust "$tmp/ws" > "$tmp/code-server.log" 2>&1 &
cs_pid=$!
for _ in $(seq 100); do
  curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break
  sleep 0.2
done

rc=0
E2E_URL="http://127.0.0.1:$port/?folder=$tmp/ws" E2E_FILE="$tmp/ws/test.py" CHROMIUM="$CHROMIUM" E2E_STREAM="${E2E_STREAM:-1}" \
  E2E_SHOTS="${E2E_SHOTS:-$here/out}" node "$here/test.mjs" || rc=$?
# The extension's log (its LogOutputChannel's file) names the binary and how it was found.
# Without a daemon, the log has the message of each try (the start and test.mjs's restart),
# while the notification came once.
if [ $rc -eq 0 ] && [ "$find" = none ]; then
  tries=$(find "$tmp/user" -name 'wafer.log' -exec cat {} + 2>/dev/null | grep -c "no wafer binary found" || true)
  if [ "$tries" -ge 2 ]; then echo "e2e: the log has the message of each of $tries tries"; else echo "FAIL: $tries messages in the log, expected 2"; rc=1; fi
fi
# logged LINE: the extension's log has a line matching the extended regex LINE.
logged() {
  local hit
  if hit=$(find "$tmp/user" -name 'wafer.log' -exec cat {} + 2>/dev/null | grep -Em1 "$1"); then
    echo "e2e: the log says: ${hit#*] }"
  else
    echo "FAIL: the extension's log has no line matching: $1"
    return 1
  fi
}
re() { printf '%s' "$1" | sed 's/[][\.*^$(){}+?|]/\\&/g'; }  # a literal for grep -E
if [ $rc -eq 0 ] && [ "$find" = pull ]; then
  # The files are in the cache as served, each fetched once: the model, then its draft.
  for f in loop-coder loop-draft; do
    if cmp -s "$model" "$tmp/cache/wafer/models/$f.gguf"; then echo "e2e: the cache holds the downloaded $f"
    else echo "FAIL: no $f.gguf equal to the served model in $tmp/cache/wafer/models"; rc=1; fi
  done
  reqs=$(cat "$tmp/control/requests" 2>/dev/null | tr '\n' ' ' || true)
  if [ "$reqs" = "GET /model.gguf GET /draft.gguf " ]; then echo "e2e: the server saw: $reqs"
  else echo "FAIL: the server saw: ${reqs:-nothing}"; rc=1; fi
fi
if [ $rc -eq 0 ] && [ "$find" = package ]; then
  own=$(re "$tmp/ext/")"[^/ ]+/bin/linux-x64"
  logged "using $own/wafer $(re "($how)")" || rc=1
  logged "model: .* \($own/models/wafer-tiny-code-q8_0\.gguf, the bundled model\)" || rc=1
elif [ $rc -eq 0 ] && [ -n "$how" ]; then
  logged "using $(re "$tmp/bin/wafer ($how)")" || rc=1
fi
if [ $rc -ne 0 ]; then
  echo "--- code-server log (tail)"; tail -20 "$tmp/code-server.log"
  find "$tmp/user" \( -name wafer.log -o -name '*wafer*.log' -path '*output*' \) -exec sh -c 'echo "--- $1"; tail -30 "$1"' _ {} \; 2>/dev/null || true
fi
echo "e2e: total $(python3 -c "import time; print(round(time.time() - $start, 1))") s (build + install + workbench + test)"
exit $rc
