-- wafer.pull: the model on first use. While the daemon serves its small bundled model
-- (`wafer/stats` names the catalogue model to get instead), the plugin says once, in a
-- notification, that :WaferPull downloads it. :WaferPull [NAME] runs `wafer pull NAME`
-- with the binary the plugin finds, shows its progress in the command line (and in
-- `wafer.pull.progress`, { name, percent }, for statuslines), and when it is done
-- tells the daemon (`wafer/modelsChanged`), which switches to the model without a restart.
-- A failed download (offline, a wrong checksum) says why; completion goes on.
local M = {}

M.progress = nil -- { name, percent } while a download runs
M.job = nil

local function notify(msg, level)
  vim.notify('wafer: ' .. msg, level or vim.log.levels.INFO)
end

-- The marker that the offer was made (kept across sessions).
local function marker()
  return vim.fn.stdpath('data') .. '/wafer/pull-offered'
end

-- The percentage in one of `wafer pull`'s progress lines, or nil.
function M.percent(line)
  local p = (line .. ' '):match('%s(%d+)%%%s')
  p = p and tonumber(p)
  if p and p <= 100 then
    return p
  end
  return nil
end

-- The model to offer, from a `wafer/stats` answer: set only while the bundled model serves.
function M.suggested(stats)
  local model = type(stats) == 'table' and stats.model or nil
  if type(model) ~= 'table' or model.source ~= 'bundled' or type(model.suggested) ~= 'table' then
    return nil
  end
  local s = model.suggested
  if type(s.name) ~= 'string' or s.name == '' then
    return nil
  end
  return { name = s.name, bytes = tonumber(s.bytes) or 0 }
end

local function size(bytes)
  if bytes >= 1e9 then
    return ('%.1f GB'):format(bytes / 1e9)
  end
  return ('%d MB'):format(math.max(1, math.floor(bytes / 1e6 + 0.5)))
end

-- Says once (ever) that a better model can be pulled, when the stats say the bundled one serves.
function M.offer(stats)
  local s = M.suggested(stats)
  if not s or require('wafer.config').options.model then
    return false
  end
  local path = marker()
  if vim.fn.filereadable(path) == 1 then
    return false
  end
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  vim.fn.writefile({ s.name }, path)
  notify(('completions come from the small bundled model. :WaferPull downloads %s (%s) for much better suggestions.'):format(
    s.name,
    size(s.bytes)
  ))
  return true
end

-- Asks the daemon for its stats (asynchronously) and makes the offer if it applies.
function M.check()
  local client = require('wafer.client')
  local c = client.get()
  if not c then
    return
  end
  c.request('wafer/stats', vim.empty_dict(), function(err, result)
    if not err then
      M.offer(result)
    end
  end, 0)
end

-- Runs `wafer pull NAME` (NAME nil: the model the daemon suggests). `on_done(ok, message)`
-- is for tests; the user sees notifications.
function M.pull(name, on_done)
  on_done = on_done or function() end
  if M.job then
    notify('a download is already running', vim.log.levels.WARN)
    return on_done(false, 'busy')
  end
  local client = require('wafer.client')
  if not name or name == '' then
    local stats = client.request_sync('wafer/stats', vim.empty_dict(), 2000)
    local s = M.suggested(stats)
    name = s and s.name or 'qwen2.5-coder-1.5b'
  end
  -- The binary as the plugin finds it (`binary`, its own bin/, PATH...), not a `cmd` that
  -- runs the daemon some other way.
  local binary = require('wafer.binary')
  local found, nf = binary.find(vim.tbl_extend('force', require('wafer.config').options, { cmd = false }))
  if not found then
    local why = binary.not_found_message(nf, binary.host())
    notify('cannot download: ' .. why, vim.log.levels.ERROR)
    return on_done(false, why)
  end
  local last, pending = '', ''
  M.progress = { name = name, percent = 0 }
  local function line(l)
    if l:match('%S') then
      last = vim.trim(l)
    end
    local p = M.percent(l)
    if p and M.progress and p > M.progress.percent then
      M.progress.percent = p
      vim.api.nvim_echo({ { ('wafer: downloading %s %d%%'):format(name, p) } }, false, {})
    end
  end
  M.job = vim.fn.jobstart({ found.path, 'pull', name }, {
    on_stderr = function(_, data)
      -- data: the chunk split at newlines; its first piece continues the last one.
      data[1] = pending .. data[1]
      pending = table.remove(data)
      for _, l in ipairs(data) do
        for piece in (l .. '\r'):gmatch('([^\r]*)\r') do
          line(piece)
        end
      end
    end,
    on_exit = function(_, code)
      if pending ~= '' then
        line(pending)
      end
      M.job, M.progress = nil, nil
      if code == 0 then
        client.notify('wafer/modelsChanged', vim.empty_dict())
        notify(('downloaded %s; completions switch to it now'):format(name))
        on_done(true, last)
      else
        local why = last:gsub('^wafer pull:%s*', '')
        notify(('could not download %s: %s. Completions go on with the bundled model.'):format(name, why), vim.log.levels.ERROR)
        on_done(false, why)
      end
    end,
  })
  if M.job <= 0 then
    M.job, M.progress = nil, nil
    notify('cannot run ' .. found.path, vim.log.levels.ERROR)
    return on_done(false, 'cannot run')
  end
  notify(('downloading %s (:WaferPullCancel stops; it resumes next time)'):format(name))
end

function M.cancel()
  if M.job then
    vim.fn.jobstop(M.job)
  end
end

return M
