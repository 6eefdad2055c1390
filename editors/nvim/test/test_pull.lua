-- The model on first use: the once-only offer when the bundled model serves, and :WaferPull
-- driving a `wafer pull` (a scripted stand-in here: the real one is tested against a
-- loopback server in tests/server/cli/test_cmd_pull.cpp, and with this plugin and the real
-- daemon in test_pull_loopback.lua) with progress, the daemon told on success, and a clear
-- error on failure.
local h = require('helpers')
local pull = require('wafer.pull')
local config = require('wafer.config')
local client = require('wafer.client')

local bundled = {
  model = { name = 'tiny', source = 'bundled', suggested = { name = 'qwen2.5-coder-1.5b', bytes = 1900000000 } },
}

-- A stand-in for the wafer binary: `pull NAME` prints progress lines and `last` on stderr,
-- then exits with `code`.
local function fake_binary(last, code)
  local path = vim.fn.tempname()
  vim.fn.writefile({
    '#!/bin/sh',
    'printf "wafer pull: https://example/$2 -> /c/m.gguf.part\\n" >&2',
    'printf "m.gguf  1.0 / 4.0 MiB   25%%  1.0 MiB/s\\rm.gguf  2.0 / 4.0 MiB   50%%  1.0 MiB/s\\n" >&2',
    'printf "m.gguf  4.0 / 4.0 MiB  100%%  1.0 MiB/s\\n" >&2',
    ('printf "%%s\\n" "%s" >&2'):format(last),
    ('exit %d'):format(code),
  }, path)
  vim.fn.setfperm(path, 'rwx------')
  return path
end

-- Runs :WaferPull NAME with the given binary; returns ok, message, the echoed progress and
-- the notifications shown.
local function run_pull(binary, name)
  local saved = config.options.binary
  config.options.binary = binary
  local echoed, shown = {}, {}
  local orig_echo, orig_notify = vim.api.nvim_echo, vim.notify
  vim.api.nvim_echo = function(chunks, ...)
    table.insert(echoed, chunks[1][1])
    return orig_echo(chunks, ...)
  end
  vim.notify = function(msg, level, opts)
    table.insert(shown, { msg = msg, level = level })
  end
  local done
  local ok, err = pcall(function()
    pull.pull(name, function(success, message)
      done = { success, message }
    end)
    h.wait_for(function()
      return done
    end, 5000, 'wafer pull to finish')
  end)
  vim.api.nvim_echo, vim.notify = orig_echo, orig_notify
  config.options.binary = saved
  assert(ok, err)
  return done[1], done[2], echoed, shown
end

local function models_changed_count()
  local log = client.request_sync('fake/log', vim.empty_dict(), 2000) or {}
  local n = 0
  for _, m in ipairs(log) do
    if m.method == 'wafer/modelsChanged' then
      n = n + 1
    end
  end
  return n
end

return {
  { 'progress lines and the stats are read as wafer pull and the daemon write them', function()
    h.eq(50, pull.percent('m.gguf  2.0 / 4.0 MiB   50%  1.0 MiB/s'))
    h.eq(nil, pull.percent('m.gguf  2.0 MiB  1.0 MiB/s'))
    h.eq('qwen2.5-coder-1.5b', pull.suggested(bundled).name)
    h.eq(nil, pull.suggested({ model = { source = 'cache', suggested = bundled.model.suggested } }))
    h.eq(nil, pull.suggested(nil))
  end },

  { 'the offer is made once, ever, and only while the bundled model serves', function()
    local shown = {}
    local orig = vim.notify
    vim.notify = function(msg, level)
      table.insert(shown, msg)
    end
    local first = pull.offer({ model = { source = 'cache' } })
    local second = pull.offer(bundled)
    local third = pull.offer(bundled)
    vim.notify = orig
    h.eq(false, first, 'no offer while a pulled model serves')
    h.eq(true, second, 'offered')
    h.eq(false, third, 'not again')
    h.eq(1, #shown, 'one notification: ' .. vim.inspect(shown))
    h.ok(shown[1]:find(':WaferPull downloads qwen2.5%-coder%-1.5b %(1.9 GB%)'), shown[1])
  end },

  { ':WaferPull shows progress and tells the daemon when the model is there', function()
    h.new_buffer('python', { 'import os' }) -- starts the daemon
    h.wait_for(function()
      return client.get()
    end, 5000, 'daemon')
    local before = models_changed_count()
    local ok, message, echoed = run_pull(fake_binary('wafer pull: saved /c/m.gguf', 0), 'qwen2.5-coder-0.5b')
    h.eq(true, ok, message)
    h.eq({ 'wafer: downloading qwen2.5-coder-0.5b 25%', 'wafer: downloading qwen2.5-coder-0.5b 50%',
      'wafer: downloading qwen2.5-coder-0.5b 100%' }, echoed)
    h.wait_for(function()
      return models_changed_count() == before + 1
    end, 3000, 'wafer/modelsChanged sent')
  end },

  { 'a failed download says why and leaves the daemon alone', function()
    h.new_buffer('python', { 'import os' })
    local before = models_changed_count()
    local ok, message, _, shown = run_pull(fake_binary('wafer pull: checksum mismatch: expected ab, got cd', 1), 'x')
    h.eq(false, ok)
    h.eq('checksum mismatch: expected ab, got cd', message)
    local errors = vim.tbl_filter(function(m)
      return m.level == vim.log.levels.ERROR
    end, shown)
    h.eq(1, #errors, vim.inspect(shown))
    h.ok(errors[1].msg:find('could not download x: checksum mismatch'), errors[1].msg)
    h.sleep(200)
    h.eq(before, models_changed_count(), 'the daemon was not told')
  end },
}
