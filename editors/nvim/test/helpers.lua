-- Helpers for the headless Neovim tests. Tests run inside a coroutine: keys fed with
-- nvim_feedkeys are only processed by Neovim's main loop, so every wait yields to it
-- (a timer resumes the test) instead of blocking in vim.wait.
local M = {}

M.co = nil -- the running test's coroutine (set by run.lua)

function M.sleep(ms)
  local co = M.co
  vim.defer_fn(function()
    local ok, err = coroutine.resume(co)
    if not ok then
      M.on_error(err)
    end
  end, ms)
  coroutine.yield()
end

-- Waits until `cond()` is truthy (polling every 10 ms); fails the test after `timeout` ms.
function M.wait_for(cond, timeout, what)
  local deadline = vim.loop.hrtime() + (timeout or 5000) * 1e6
  while true do
    local v = cond()
    if v then
      return v
    end
    if vim.loop.hrtime() > deadline then
      error('timed out waiting for ' .. (what or 'condition'), 2)
    end
    M.sleep(10)
  end
end

local function keys(s)
  return vim.api.nvim_replace_termcodes(s, true, false, true)
end

-- Types `s` (key notation allowed) as if typed by the user and waits until Neovim has
-- processed it (a <Cmd> marker after the keys), so a loaded machine does not make tests
-- look at the buffer too early. `raw`: no marker (for keys whose mode <Cmd> would end).
function M.type(s, raw)
  if raw then
    vim.api.nvim_feedkeys(keys(s), 't', false)
    M.sleep(30)
    return
  end
  _G.__wafer_keys_done = false
  vim.api.nvim_feedkeys(keys(s) .. keys('<Cmd>lua _G.__wafer_keys_done = true<CR>'), 't', false)
  M.wait_for(function()
    return _G.__wafer_keys_done
  end, 10000, 'keys ' .. s .. ' to be processed')
  M.sleep(10)
end

-- Types plain text one character at a time with `ms` between keys.
function M.type_slowly(s, ms)
  for ch in s:gmatch('.') do
    vim.api.nvim_feedkeys(ch, 't', false)
    M.sleep(ms or 40)
  end
end

-- What the screen shows on `row` (1-based), ghost text included, trailing blanks removed.
function M.screen_line(row)
  vim.cmd('redraw!')
  local out = {}
  for col = 1, vim.o.columns do
    table.insert(out, vim.fn.screenstring(row, col))
  end
  return (table.concat(out):gsub('%s+$', ''))
end

function M.lines(buf)
  return vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false)
end

function M.eq(want, got, what)
  if not vim.deep_equal(want, got) then
    error(('%s: expected %s, got %s'):format(what or 'value', vim.inspect(want), vim.inspect(got)), 2)
  end
end

function M.ok(v, what)
  if not v then
    error((what or 'assertion') .. ' failed', 2)
  end
  return v
end

-- A fresh, attached buffer of filetype `ft` in normal mode.
function M.new_buffer(ft, lines)
  vim.cmd('stopinsert')
  vim.cmd('enew!')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_name(buf, vim.fn.tempname() .. '.' .. (ft == 'python' and 'py' or ft))
  if lines then
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  end
  vim.bo[buf].filetype = ft
  local client = require('wafer.client')
  M.wait_for(function()
    local c = client.get()
    return c and c.initialized and vim.lsp.buf_is_attached(buf, client.id)
  end, 10000, 'the wafer client to attach')
  return buf
end

-- Records the notifications the plugin sends to the daemon.
function M.spy_notifications()
  local client = require('wafer.client')
  local seen = {}
  local orig = client.notify
  client.notify = function(method, params)
    table.insert(seen, { method = method, params = params })
    return orig(method, params)
  end
  return seen, function()
    client.notify = orig
  end
end

-- Runs `fn(seen)` with the notifications spied on (spy_notifications), then stops spying,
-- also when `fn` fails (the failure is raised again).
function M.with_notifications(fn)
  local seen, restore = M.spy_notifications()
  local ok, err = pcall(fn, seen)
  restore()
  assert(ok, err)
end

-- Waits until the daemon's wafer/stats count `name` is at least 1.
function M.wait_for_count(buf, name, timeout)
  local client = require('wafer.client')
  M.wait_for(function()
    local stats = client.request_sync('wafer/stats', vim.empty_dict(), 1000, buf)
    return stats and stats.counts and (stats.counts[name] or 0) >= 1
  end, timeout or 10000, 'the daemon to count ' .. name)
end

-- The params of the notifications in `seen` (from spy_notifications) with this method.
function M.params_of(seen, method)
  local out = {}
  for _, n in ipairs(seen) do
    if n.method == method then
      table.insert(out, n.params)
    end
  end
  return out
end

-- Types `prefix` in insert mode on a new line and waits for a suggestion; returns its
-- ghost text and the latency the plugin measured.
function M.type_until_ghost(prefix, timeout)
  M.type('i')
  M.type_slowly(prefix, 40)
  local wafer = require('wafer')
  local ghost = M.wait_for(function()
    return wafer.visible()
  end, timeout or 15000, 'ghost text after typing ' .. vim.inspect(prefix))
  local latency = require('wafer.suggestion').last_latency_ms
  -- A real model streams for a while after the first ghost appears: wait until the text
  -- has not changed for 300 ms, so what the test expects is what an accept will insert.
  local stable_since, last = vim.loop.now(), ghost
  M.wait_for(function()
    local now = wafer.visible() or last
    if now ~= last then
      last, stable_since = now, vim.loop.now()
    end
    return vim.loop.now() - stable_since >= 300
  end, timeout or 15000, 'the suggestion to finish streaming')
  return last, latency
end

return M
