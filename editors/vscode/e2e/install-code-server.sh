#!/usr/bin/env bash
# Installs code-server 4.100.3 (VS Code 1.100.3, the last release that runs on Node 20) from
# npm with the lockfile in e2e/code-server/ (npm ci: exact versions, integrity checked), and
# Chromium from Debian, for the end-to-end test (run.sh). Nothing is downloaded from
# GitHub: ripgrep comes from Debian, native modules are built from source.
#
#   editors/vscode/e2e/install-code-server.sh DEST
#
# Prints DEST/node_modules/.bin/code-server. Does nothing when DEST already holds this
# version (CI keeps it in the build folder). Needs root for apt-get; ~300 MB, a minute or
# two on 2 cores.
set -euo pipefail
VERSION=4.100.3
dest=${1:?usage: install-code-server.sh DEST}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
bin=$dest/node_modules/.bin/code-server
stamp=$dest/.installed
want="$VERSION $(sha256sum < "$here/code-server/package-lock.json" | cut -c1-16)"
if [ -x "$bin" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  echo "$bin"
  exit 0
fi
log() { echo "install-code-server: $*" >&2; }
start=$(date +%s)

pkgs=(build-essential pkg-config python3 libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep chromium curl)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >&2
fi

cd "$dest"
cp "$here/code-server/package.json" "$here/code-server/package-lock.json" .
export npm_config_yes=true npm_config_audit=false npm_config_fund=false npm_config_loglevel=error
{
  # postinstall.sh is skipped: it downloads ripgrep from GitHub.
  npm ci --ignore-scripts
  npm rebuild argon2 # its prebuilt binary comes from GitHub; built from source instead
  cd node_modules/code-server/lib/vscode
  npm install --omit=dev --ignore-scripts
  mkdir -p node_modules/@vscode/ripgrep/bin
  cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
  nice -n 10 npm rebuild # node-pty, spdlog, kerberos, @parcel/watcher, ...
  ln -sfn node_modules node_modules.asar
  (cd bin/remote-cli && ln -sfn code-linux.sh code-server)
  (cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
  (cd extensions && npm install --omit=dev)
} >&2
echo "$want" > "$stamp"
log "installed in $(( $(date +%s) - start )) s"
echo "$bin"
