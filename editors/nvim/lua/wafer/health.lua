-- :checkhealth wafer — binary found, its version, daemon and model state, last latency.
-- Works with the health API of every Neovim from 0.7 (report_*) to current (start/ok/...).
local M = {}

local function api()
  local h = vim.health or {}
  if h.start then
    return h.start, h.ok, h.warn, h.error, h.info
  end
  if h.report_start then
    return h.report_start, h.report_ok, h.report_warn, h.report_error, h.report_info
  end
  local ok, legacy = pcall(require, 'health') -- Neovim 0.7
  if ok and legacy.report_start then
    return legacy.report_start, legacy.report_ok, legacy.report_warn, legacy.report_error, legacy.report_info
  end
  local function fn(name)
    return function(msg)
      vim.fn['health#report_' .. name](msg)
    end
  end
  return fn('start'), fn('ok'), fn('warn'), fn('error'), fn('info')
end

function M.check()
  local start, ok, warn, error, info = api()
  local config = require('wafer.config')
  local client = require('wafer.client')
  local suggestion = require('wafer.suggestion')

  start('wafer')
  local v = vim.version()
  local nvim = ('Neovim %d.%d.%d'):format(v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.10') == 1 then
    ok(nvim .. ': ghost text as inline virtual text')
  elseif vim.fn.has('nvim-0.7') == 1 then
    ok(nvim .. ': ghost text drawn as an overlay (inline virtual text needs 0.10)')
  else
    error(nvim .. ' is too old: wafer needs Neovim 0.7 or newer')
  end
  info('suggestions ' .. (config.options.enabled == false and 'off (:WaferToggle turns them on)' or 'on'))
  local cmd, why = config.command()
  if not cmd then
    error(why)
    return
  end
  ok('binary: ' .. cmd[1])
  local version = vim.fn.system({ cmd[1], '--version' })
  if vim.v.shell_error == 0 then
    ok('version: ' .. vim.trim(version))
  else
    error('`' .. cmd[1] .. ' --version` failed: ' .. vim.trim(version))
  end

  if not client.id then
    warn('daemon not running' .. (client.error and (': ' .. client.error) or ' (no served buffer opened yet)'))
  else
    ok('daemon running (LSP client id ' .. client.id .. ')')
    local state = client.model_state
    if state == 'error' then
      error('model failed to load; see :messages')
    elseif state == 'loading' then
      info('model loading')
    else
      ok('model: ' .. state)
    end
    local stats, err = client.request_sync('wafer/stats', vim.empty_dict(), 1000)
    if stats then
      info('daemon stats: ' .. vim.fn.json_encode(stats))
    else
      warn('wafer/stats unavailable: ' .. tostring(err))
    end
  end
  local ms = suggestion.last_latency_ms
  info('last keystroke-to-suggestion latency: ' .. (ms and ('%.1f ms'):format(ms) or 'n/a'))
end

return M
