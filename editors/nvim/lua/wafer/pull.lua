-- wafer.pull: the model on first use. While the daemon serves its small bundled model
-- (`wafer/stats` names the catalogue model to get instead, and the draft model the
-- catalogue pairs with it), the plugin says once, in a notification, that :WaferPull
-- downloads them. :WaferPull [NAME] runs `wafer pull NAME` (without NAME: the suggested
-- model, then its draft; or the draft of the catalogue model that serves, when the stats
-- name one) with the binary the plugin finds, shows its progress in the
-- command line (and in `wafer.pull.progress`, { name, percent }, for statuslines; percent
-- of all the files), and when it is done tells the daemon (`wafer/modelsChanged`), which
-- switches to the model without a restart. A failed download (offline, a wrong checksum)
-- says why; completion goes on (with the model alone when only its draft failed).
local M = {}

M.progress = nil -- { name, percent } while a download runs
M.job = nil

local function notify(msg, level)
  vim.notify('wafer: ' .. msg, level or vim.log.levels.INFO)
end

-- The marker that an offer was made (kept across sessions): of a model, or of a draft.
local function marker(what)
  return vim.fn.stdpath('data') .. '/wafer/' .. (what == 'draft' and 'draft-offered' or 'pull-offered')
end

-- Whether the offer `what` is made now: false if made before; else remembered as made.
local function first_offer(what, name)
  local path = marker(what)
  if vim.fn.filereadable(path) == 1 then
    return false
  end
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  vim.fn.writefile({ name }, path)
  return true
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
  local function item(v)
    if type(v) ~= 'table' or type(v.name) ~= 'string' or v.name == '' then
      return nil
    end
    return { name = v.name, bytes = tonumber(v.bytes) or 0 }
  end
  local s = item(model.suggested)
  if s then
    s.draft = item(model.suggested.draft) -- the model that drafts for it (faster, the same text)
  end
  return s
end

-- The draft to offer, from a `wafer/stats` answer: set while a catalogue model serves
-- without the draft model the catalogue pairs with it. { name, bytes, for } or nil.
function M.suggested_draft(stats)
  local model = type(stats) == 'table' and stats.model or nil
  local d = type(model) == 'table' and model.suggested_draft or nil
  if type(d) ~= 'table' or type(d.name) ~= 'string' or d.name == '' or type(d['for']) ~= 'string' then
    return nil
  end
  return { name = d.name, bytes = tonumber(d.bytes) or 0, ['for'] = d['for'] }
end

local function size(bytes)
  if bytes >= 1e9 then
    return ('%.1f GB'):format(bytes / 1e9)
  end
  return ('%d MB'):format(math.max(1, math.floor(bytes / 1e6 + 0.5)))
end

-- Says once (ever) that a better model can be pulled, when the stats say the bundled one
-- serves; or once that the draft of the catalogue model that serves can be.
function M.offer(stats)
  local d = M.suggested_draft(stats)
  if d then
    if not first_offer('draft', d.name) then
      return false
    end
    notify((':WaferPull downloads %s (%s), which drafts for %s: the same suggestions, faster.'):format(
      d.name, size(d.bytes), d['for']))
    return true
  end
  local s = M.suggested(stats)
  if not s or require('wafer.config').options.model or not first_offer('model', s.name) then
    return false
  end
  local what = ('%s (%s) for much better suggestions'):format(s.name, size(s.bytes))
  if s.draft then
    what = what .. (', and its draft model %s (%s), which makes them faster'):format(s.draft.name, size(s.draft.bytes))
  end
  notify(('completions come from the small bundled model. :WaferPull downloads %s.'):format(what))
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

-- Runs `wafer pull NAME` (NAME nil: the model the daemon suggests, then its draft model).
-- `on_done(ok, message)` is for tests; the user sees notifications.
function M.pull(name, on_done)
  on_done = on_done or function() end
  if M.job then
    notify('a download is already running', vim.log.levels.WARN)
    return on_done(false, 'busy')
  end
  local client = require('wafer.client')
  local items, draft_for
  if not name or name == '' then
    local stats = client.request_sync('wafer/stats', vim.empty_dict(), 2000)
    local d = M.suggested_draft(stats)
    if d then -- a catalogue model serves without its draft: the draft
      items, draft_for = { d }, d['for']
    else
      local s = M.suggested(stats) or { name = 'qwen2.5-coder-1.5b', bytes = 0 }
      items = { s, s.draft }
    end
  else
    items = { { name = name, bytes = 0 } }
  end
  name = items[1].name
  local draft = items[2]
  -- The binary as the plugin finds it (`binary`, its own bin/, PATH...), not a `cmd` that
  -- runs the daemon some other way.
  local binary = require('wafer.binary')
  local found, nf = binary.find(vim.tbl_extend('force', require('wafer.config').options, { cmd = false }))
  if not found then
    local why = binary.not_found_message(nf, binary.host())
    notify('cannot download: ' .. why, vim.log.levels.ERROR)
    return on_done(false, why)
  end
  -- Each file's share of `percent`: by size when every size is known, else equal.
  local shares, total = {}, 0
  for i, it in ipairs(items) do
    shares[i] = (draft and items[1].bytes > 0 and draft.bytes > 0) and it.bytes or 1
    total = total + shares[i]
  end
  local before = 0 -- the shares of the files done
  M.progress = { name = name, percent = 0 }
  local run

  local function finish(ok, message)
    M.job, M.progress = nil, nil
    on_done(ok, message)
  end

  run = function(i)
    local item = items[i]
    local last, pending = '', ''
    local function line(l)
      if l:match('%S') then
        last = vim.trim(l)
      end
      local p = M.percent(l)
      if p and M.progress then
        local overall = math.floor((before + shares[i] * p / 100) / total * 100)
        if overall > M.progress.percent then
          M.progress.percent = overall
          vim.api.nvim_echo({ { ('wafer: downloading %s %d%%'):format(item.name, p) } }, false, {})
        end
      end
    end
    M.job = vim.fn.jobstart({ found.path, 'pull', item.name }, {
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
        local why = last:gsub('^wafer pull:%s*', '')
        if M.cancelled then
          M.cancelled = nil
          local what = ('the download of %s was cancelled; it resumes where it stopped next time'):format(item.name)
          if i > 1 then -- the model is there: it serves alone
            client.notify('wafer/modelsChanged', vim.empty_dict())
            what = ('downloaded %s; completions switch to it now. The download of its draft model %s was cancelled; it resumes where it stopped next time'):format(name, item.name)
          end
          notify(what)
          return finish(false, 'cancelled')
        end
        if code == 0 and i < #items then
          before = before + shares[i]
          M.progress.percent = math.floor(before / total * 100)
          return run(i + 1)
        end
        if code == 0 then
          client.notify('wafer/modelsChanged', vim.empty_dict())
          if draft_for then
            notify(('downloaded %s; it drafts for %s from now on'):format(name, draft_for))
          elseif draft then
            notify(('downloaded %s and its draft model %s; completions switch to them now'):format(name, draft.name))
          else
            notify(('downloaded %s; completions switch to it now'):format(name))
          end
          return finish(true, last)
        end
        if i == 1 then
          local go_on = draft_for and ('with %s alone'):format(draft_for) or 'with the bundled model'
          notify(('could not download %s: %s. Completions go on %s.'):format(name, why, go_on), vim.log.levels.ERROR)
          return finish(false, why)
        end
        -- The model is there: it serves alone; the draft can be pulled later.
        client.notify('wafer/modelsChanged', vim.empty_dict())
        notify(('downloaded %s, but could not download its draft model %s: %s. Completions switch to %s without it (:WaferPull again resumes).'):format(
          name, item.name, why, name), vim.log.levels.ERROR)
        finish(false, why)
      end,
    })
    if M.job <= 0 then
      notify('cannot run ' .. found.path, vim.log.levels.ERROR)
      return finish(false, 'cannot run')
    end
  end

  run(1)
  if M.job then
    notify(('downloading %s%s (:WaferPullCancel stops; it resumes next time)'):format(
      name, draft and (' and its draft model ' .. draft.name) or ''))
  end
end

function M.cancel()
  if M.job then
    M.cancelled = true
    vim.fn.jobstop(M.job)
  end
end

return M
