#!/usr/bin/env bash
# The README's lazy.nvim spec, without lazy.nvim (not reachable in CI): the repository root
# on 'runtimepath' as lazy.nvim puts a plugin there, then the spec's `config`, which adds
# editors/nvim and calls setup() after startup (so plugin/wafer.lua is never sourced).
# Checks that the commands exist, that the binary built by the spec's `build` step
# (build-release/install/bin/wafer in the checkout) is found without PATH, and that
# :checkhealth wafer reports the binary, its version and the model.
#   editors/nvim/test/load_like_lazy.sh WAFER_BINARY
# NVIM: the Neovim binary (default nvim). Exit 0 passed, 1 failed, 77 skipped.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
wafer=${1:?usage: load_like_lazy.sh WAFER_BINARY}
NVIM=${NVIM:-nvim}
if ! command -v "$NVIM" >/dev/null 2>&1; then
  echo "SKIPPED: $NVIM not installed"
  [ "${WAFER_REQUIRE_EDITORS:-0}" = 1 ] && exit 1
  exit 77
fi
NVIM=$(command -v "$NVIM")
NVIM=$(cd "$(dirname "$NVIM")" && pwd)/$(basename "$NVIM")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A copy of the plugin's checkout as lazy.nvim would hold it, with the built binary.
mkdir -p "$tmp/wafer/editors" "$tmp/wafer/build-release/install/bin"
cp -r "$root/editors/nvim" "$tmp/wafer/editors/nvim"
ln -s "$(cd "$(dirname "$wafer")" && pwd)/$(basename "$wafer")" "$tmp/wafer/build-release/install/bin/wafer"
cat > "$tmp/init.lua" <<LUA
vim.opt.rtp:append('$tmp/wafer')
vim.api.nvim_create_autocmd('VimEnter', { callback = function()
  local plugin = { dir = '$tmp/wafer' }
  -- the spec's config:
  vim.opt.rtp:append(plugin.dir .. '/editors/nvim')
  require('wafer').setup({})
  local out = {}
  for _, c in ipairs({ 'WaferToggle', 'WaferAccept', 'WaferAcceptWord', 'WaferAcceptLine', 'WaferNext', 'WaferPrev', 'WaferStatus', 'WaferRestart' }) do
    table.insert(out, c .. '=' .. vim.fn.exists(':' .. c))
  end
  vim.cmd('checkhealth wafer')
  table.insert(out, table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n'))
  io.stdout:write('\n' .. table.concat(out, '\n') .. '\n')
  vim.cmd('qa!')
end })
LUA
out=$(cd "$tmp" && HOME=$tmp XDG_CONFIG_HOME=$tmp/config XDG_DATA_HOME=$tmp/data XDG_STATE_HOME=$tmp/state \
  XDG_CACHE_HOME=$tmp/cache PATH=/usr/bin:/bin timeout -s KILL 60 "$NVIM" --headless --clean -u "$tmp/init.lua" </dev/null 2>&1)
echo "$out"
fail=0
for c in WaferToggle WaferAccept WaferAcceptWord WaferAcceptLine WaferNext WaferPrev WaferStatus WaferRestart; do
  grep -q "^$c=2$" <<<"$out" || { echo "FAIL: :$c missing"; fail=1; }
done
grep -q "binary: $tmp/wafer/build-release/install/bin/wafer" <<<"$out" || { echo "FAIL: the checkout's binary was not found"; fail=1; }
grep -q "version: wafer " <<<"$out" || { echo "FAIL: no version in checkhealth"; fail=1; }
grep -q "model: " <<<"$out" || { echo "FAIL: no model in checkhealth"; fail=1; }
[ $fail = 0 ] && echo "passed"
exit $fail
