-- :checkhealth wafer — the Neovim version, the binary found and how (or where the plugin
-- looked and how to fix it), its `wafer --version`, the model it will serve, the daemon and
-- model state, the last latency. Works with the health API of every Neovim from 0.7
-- (report_*) to current (start/ok/...).
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

-- Runs `argv` (at most 20 s); returns { code, out } with stdout (or, when it failed,
-- stderr) trimmed.
local function run(argv)
  local out, err = {}, {}
  local function into(list)
    return function(_, data)
      for _, l in ipairs(data or {}) do
        table.insert(list, l)
      end
    end
  end
  local ok, job = pcall(vim.fn.jobstart, argv, { stdout_buffered = true, stderr_buffered = true,
    on_stdout = into(out), on_stderr = into(err) })
  if not ok or job <= 0 then
    return { code = -1, out = 'cannot run ' .. argv[1] }
  end
  local code = vim.fn.jobwait({ job }, 20000)[1]
  if code == -1 then
    vim.fn.jobstop(job)
  end
  local text = vim.trim(table.concat(code == 0 and out or err, '\n'))
  return { code = code, out = text }
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
  local binary = require('wafer.binary')
  local host = binary.host()
  local found, nf = binary.find(config.options, host)
  if not found then
    if nf.setting ~= '' then
      error(('binary: `binary` is %q, and there is no program there (looked for %s)'):format(nf.setting, table.concat(nf.searched, ', ')),
        { 'set `binary` in setup() to the full path of the wafer binary, or leave it unset to search' })
    else
      error('binary: no wafer binary found; looked for ' .. table.concat(nf.searched, ', '), {
        ('install wafer into %s or a folder on PATH (see the README\'s Install section)'):format(binary.install_path(host)),
        "or set `binary` in setup() to the binary's full path, e.g. require('wafer').setup({ binary = '~/wafer/bin/wafer' })",
      })
    end
    info('model and daemon: not checked without a binary')
    return
  end
  ok('binary: ' .. binary.describe(found))
  local cmd = { found.path }
  local version = run({ cmd[1], '--version' })
  if version.code == 0 then
    ok('version: ' .. version.out)
  else
    error('`' .. cmd[1] .. ' --version` failed: ' .. version.out,
      { 'check that it is the wafer binary built for this machine (' .. host.os .. '-' .. host.arch .. ')' })
  end

  -- The model the daemon will serve: the `model` setting, else its default choice.
  local model = config.init_options().model
  local args = { cmd[1], 'info', '--json' }
  if type(model) == 'string' and model ~= '' then
    args = { cmd[1], 'info', model, '--json' }
  end
  local infos = run(args)
  local decoded = infos.code == 0 and pcall(vim.fn.json_decode, infos.out) and vim.fn.json_decode(infos.out) or nil
  if type(decoded) ~= 'table' then
    error('model: ' .. (infos.out ~= '' and infos.out or ('`' .. table.concat(args, ' ') .. '` failed')),
      { 'set `model` in setup() to a GGUF file or a pulled name (`wafer pull --list`)' })
  else
    local name = decoded.name and decoded.name ~= '' and decoded.name or vim.fn.fnamemodify(decoded.file or '?', ':t')
    local what = ('model: %s (%s, source: %s)'):format(name, tostring(decoded.file), tostring(decoded.source or 'setting'))
    local fim = decoded.fim and decoded.fim.tokens
    if decoded.supported == false then
      error(what .. ': architecture not supported by the engine')
    elseif type(fim) == 'table' and #fim == 0 then
      error(what .. ': no fill-in-the-middle tokens (use a base code model)')
    elseif decoded.source == 'bundled' then
      warn(what, { 'the bundled model is a tiny demo; run `wafer pull qwen2.5-coder-1.5b` for real suggestions' })
    else
      ok(what)
    end
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
