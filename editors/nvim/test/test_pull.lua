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

local with_draft = vim.deepcopy(bundled)
with_draft.model.suggested.draft = { name = 'qwen2.5-coder-0.5b', bytes = 500000000 }
-- A catalogue model serves, pulled without its draft.
local without_draft = {
  model = { name = 'qwen2.5-coder-1.5b', source = 'cache',
    suggested_draft = { name = 'qwen2.5-coder-0.5b', bytes = 500000000, ['for'] = 'qwen2.5-coder-1.5b' } },
}

-- A stand-in whose `pull NAME` behaves per NAME: `outcomes[NAME] = { last, code }` (after
-- the progress lines), or `{ hang = true }`: the first progress line, then a long wait.
local function fake_binary_per_name(outcomes)
  local lines = { '#!/bin/sh', 'case "$2" in' }
  for name, o in pairs(outcomes) do
    table.insert(lines, ('%s)'):format(name))
    table.insert(lines, 'printf "m.gguf  1.0 / 4.0 MiB   25%%  1.0 MiB/s\\n" >&2')
    if o.hang then
      table.insert(lines, 'exec sleep 30')
    else
      table.insert(lines, 'printf "m.gguf  2.0 / 4.0 MiB   50%%  1.0 MiB/s\\nm.gguf  4.0 / 4.0 MiB  100%%  1.0 MiB/s\\n" >&2')
      table.insert(lines, ('printf "%%s\\n" "%s" >&2; exit %d'):format(o.last, o.code))
    end
    table.insert(lines, ';;')
  end
  table.insert(lines, 'esac')
  table.insert(lines, 'exit 9')
  local path = vim.fn.tempname()
  vim.fn.writefile(lines, path)
  vim.fn.setfperm(path, 'rwx------')
  return path
end

-- Runs :WaferPull NAME with the given binary; returns ok, message, the echoed progress and
-- the notifications shown. `during(echoed)`, when given, runs while the download does.
local function run_pull(binary, name, during)
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
    if during then
      during(echoed)
    end
    h.wait_for(function()
      return done
    end, 5000, 'wafer pull to finish')
  end)
  vim.api.nvim_echo, vim.notify = orig_echo, orig_notify
  config.options.binary = saved
  assert(ok, err)
  return done[1], done[2], echoed, shown
end

-- Runs fn with vim.notify captured; returns fn's results and the messages shown.
local function with_notify(fn)
  local shown = {}
  local orig = vim.notify
  vim.notify = function(msg)
    table.insert(shown, msg)
  end
  local results = { pcall(fn) }
  vim.notify = orig
  assert(results[1], results[2])
  return shown, unpack(results, 2)
end

-- The errors among the notifications shown, checked to be exactly one.
local function one_error(shown)
  local errors = vim.tbl_filter(function(m)
    return m.level == vim.log.levels.ERROR
  end, shown)
  h.eq(1, #errors, vim.inspect(shown))
  return errors
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

-- :WaferPull without a name while the daemon suggests the model and its draft: the model's
-- pull succeeds, the draft's goes as `draft` says; waits until the daemon was told once
-- (the model is there in every case) and returns what run_pull returns.
local function pull_suggested(draft, during, stats)
  h.new_buffer('python', { 'import os' })
  local before = models_changed_count()
  local orig = client.request_sync
  client.request_sync = function(method, ...)
    if method == 'wafer/stats' then
      return stats or with_draft
    end
    return orig(method, ...)
  end
  local binary = fake_binary_per_name({
    ['qwen2.5-coder-1.5b'] = { last = 'wafer pull: saved /c/q.gguf', code = 0 },
    ['qwen2.5-coder-0.5b'] = draft,
  })
  local results = { pcall(run_pull, binary, nil, during) }
  client.request_sync = orig
  assert(results[1], results[2])
  h.wait_for(function()
    return models_changed_count() == before + 1
  end, 3000, 'wafer/modelsChanged sent once')
  return unpack(results, 2)
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
    local errors = one_error(shown)
    h.ok(errors[1].msg:find('could not download x: checksum mismatch'), errors[1].msg)
    h.sleep(200)
    h.eq(before, models_changed_count(), 'the daemon was not told')
  end },

  { 'the suggested model comes with its draft model: named in the offer', function()
    local s = pull.suggested(with_draft)
    h.eq({ name = 'qwen2.5-coder-0.5b', bytes = 500000000 }, s.draft)
    h.eq(nil, pull.suggested(bundled).draft)
    vim.fn.delete(vim.fn.stdpath('data') .. '/wafer/pull-offered')
    local shown, offered = with_notify(function()
      return pull.offer(with_draft)
    end)
    h.eq(true, offered)
    h.ok(shown[1]:find(':WaferPull downloads qwen2.5-coder-1.5b (1.9 GB) for much better suggestions, and its draft model ' ..
      'qwen2.5-coder-0.5b (500 MB), which makes them faster.', 1, true), shown[1])
  end },

  { ':WaferPull without a name pulls the suggested model, then its draft, then tells the daemon', function()
    local ok, message, echoed, shown = pull_suggested({ last = 'wafer pull: saved /c/d.gguf', code = 0 })
    h.eq(true, ok, message)
    -- Each file's progress, echoed while the whole (1.9 + 0.5 GB) advances.
    h.eq({ 'wafer: downloading qwen2.5-coder-1.5b 25%', 'wafer: downloading qwen2.5-coder-1.5b 50%',
      'wafer: downloading qwen2.5-coder-1.5b 100%', 'wafer: downloading qwen2.5-coder-0.5b 25%',
      'wafer: downloading qwen2.5-coder-0.5b 50%', 'wafer: downloading qwen2.5-coder-0.5b 100%' }, echoed)
    h.ok(vim.tbl_filter(function(m)
      return m.msg:find('downloaded qwen2.5-coder-1.5b and its draft model qwen2.5-coder-0.5b; completions switch to them now', 1, true)
    end, shown)[1], vim.inspect(shown))
  end },

  { 'only the draft fails: the daemon is told (the model serves alone) and the error says so', function()
    local ok, message, _, shown = pull_suggested({ last = 'wafer pull: d.gguf: sha256 mismatch', code = 1 })
    h.eq(false, ok)
    h.eq('d.gguf: sha256 mismatch', message)
    local errors = one_error(shown)
    h.ok(errors[1].msg:find('downloaded qwen2.5-coder-1.5b, but could not download its draft model qwen2.5-coder-0.5b: d.gguf: sha256 mismatch', 1, true), errors[1].msg)
  end },

  { ':WaferPullCancel during the draft: the model serves, the draft resumes next time', function()
    local ok, message, _, shown = pull_suggested({ hang = true }, function(echoed)
      h.wait_for(function()
        return echoed[#echoed] == 'wafer: downloading qwen2.5-coder-0.5b 25%'
      end, 5000, 'the draft to start')
      h.eq(84, pull.progress.percent, 'of the whole: (1.9 + 0.25 x 0.5) / 2.4 GB')
      vim.cmd('WaferPullCancel')
    end)
    h.eq(false, ok)
    h.eq('cancelled', message)
    h.ok(vim.tbl_filter(function(m)
      return m.msg:find('The download of its draft model qwen2.5-coder-0.5b was cancelled', 1, true)
    end, shown)[1], vim.inspect(shown))
  end },

  { 'a catalogue model serves without its draft: the draft is offered once, apart from the model', function()
    h.eq({ name = 'qwen2.5-coder-0.5b', bytes = 500000000, ['for'] = 'qwen2.5-coder-1.5b' }, pull.suggested_draft(without_draft))
    h.eq(nil, pull.suggested_draft(with_draft))
    h.eq(nil, pull.suggested(without_draft))
    vim.fn.delete(vim.fn.stdpath('data') .. '/wafer/draft-offered')
    local shown, first, again = with_notify(function()
      return pull.offer(without_draft), pull.offer(without_draft)
    end)
    h.eq(true, first)
    h.eq(false, again)
    h.eq(1, #shown, vim.inspect(shown))
    h.ok(shown[1]:find(':WaferPull downloads qwen2.5-coder-0.5b (500 MB), which drafts for qwen2.5-coder-1.5b', 1, true), shown[1])
  end },

  { ':WaferPull without a name then pulls the draft alone, and the daemon drafts with it', function()
    local ok, message, echoed, shown = pull_suggested({ last = 'wafer pull: saved /c/d.gguf', code = 0 }, nil, without_draft)
    h.eq(true, ok, message)
    h.eq({ 'wafer: downloading qwen2.5-coder-0.5b 25%', 'wafer: downloading qwen2.5-coder-0.5b 50%',
      'wafer: downloading qwen2.5-coder-0.5b 100%' }, echoed)
    h.ok(vim.tbl_filter(function(m)
      return m.msg:find('downloaded qwen2.5-coder-0.5b; it drafts for qwen2.5-coder-1.5b from now on', 1, true)
    end, shown)[1], vim.inspect(shown))
  end },
}
