-- wafer: local inline code completion for Neovim. `require('wafer').setup({...})` starts
-- the `wafer lsp` daemon through Neovim's built-in LSP client for the filetypes it serves,
-- shows its suggestions as ghost text while typing, and maps the accept/cycle/dismiss keys.
-- Options and defaults: lua/wafer/config.lua and the README's Neovim section.
local client = require('wafer.client')
local config = require('wafer.config')
local keymaps = require('wafer.keymaps')
local render = require('wafer.render')
local suggestion = require('wafer.suggestion')
local warm = require('wafer.warm')
local yank = require('wafer.yank')

local M = {}

local group = nil
local attached = {} -- buf -> true

local function cur()
  return vim.api.nvim_get_current_buf()
end

-- Public actions (each returns true when it did something).
function M.accept()
  return suggestion.accept(cur(), 'all')
end
function M.accept_line()
  return suggestion.accept(cur(), 'line')
end
function M.accept_word()
  return suggestion.accept(cur(), 'word')
end
function M.next()
  return suggestion.cycle(cur(), 1)
end
function M.prev()
  return suggestion.cycle(cur(), -1)
end
function M.dismiss()
  return suggestion.dismiss(cur())
end
function M.trigger()
  return suggestion.request(cur(), true)
end
-- Turns suggestions on or off (`on`: true/false; nil flips). Off cancels what is in flight,
-- hides the ghost text and sends no more requests. Returns the new state.
function M.toggle(on)
  if on == nil then
    on = config.options.enabled == false
  end
  config.options.enabled = on and true or false
  if not on then
    for buf in pairs(attached) do
      suggestion.reset(buf)
    end
  end
  return config.options.enabled
end
function M.enabled()
  return config.options.enabled ~= false
end

-- The ghost text currently shown in the current buffer (nil when none).
function M.visible()
  return suggestion.remaining(cur())
end

local actions = {
  accept = M.accept,
  accept_line = M.accept_line,
  accept_word = M.accept_word,
  next = M.next,
  prev = M.prev,
  dismiss = M.dismiss,
  trigger = M.trigger,
}

-- Attaches `buf` when its filetype is served. Idempotent.
function M.attach(buf)
  buf = (buf == nil or buf == 0) and cur() or buf
  if attached[buf] or not vim.api.nvim_buf_is_valid(buf) then
    return attached[buf] or false
  end
  if vim.bo[buf].buftype ~= '' or not config.filetype_enabled(vim.bo[buf].filetype) then
    return false
  end
  local ok = client.attach(buf)
  if not ok then
    return false
  end
  attached[buf] = true
  keymaps.attach(buf, config.options.keymaps, actions)
  return true
end

function M.detach(buf)
  if attached[buf] then
    attached[buf] = nil
    suggestion.detach(buf)
    warm.forget(buf)
    render.clear(buf)
    keymaps.detach(buf, config.options.keymaps)
  end
end

-- Stops the daemon and attaches every served buffer to a fresh one.
function M.restart()
  for buf in pairs(attached) do
    M.detach(buf)
  end
  client.stop()
  vim.defer_fn(function()
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) then
        M.attach(buf)
      end
    end
  end, 200)
end

local function on(events, fn)
  vim.api.nvim_create_autocmd(events, {
    group = group,
    callback = function(ev)
      if attached[ev.buf] then
        fn(ev.buf)
      end
    end,
  })
end

-- Statusline component: "wafer 42ms" (last keystroke-to-ghost-text latency), with the
-- model state when it is not ready.
function M.statusline()
  if config.options.enabled == false then
    return 'wafer off'
  end
  if not client.id then
    return client.error and 'wafer !' or ''
  end
  local state = client.model_state
  if state == 'loading' then
    return 'wafer …'
  elseif state == 'error' then
    return 'wafer !'
  end
  local ms = suggestion.last_latency_ms
  return ms and ('wafer %dms'):format(math.floor(ms + 0.5)) or 'wafer'
end

-- Lines for :WaferStatus.
function M.status_lines()
  local lines = {}
  local cmd, found = config.command()
  table.insert(lines, 'suggestions: ' .. (M.enabled() and 'on' or 'off (:WaferToggle)'))
  local running = client.id and client.binary -- what the daemon was started with
  table.insert(lines, 'binary: ' .. (running or (cmd and require('wafer.binary').describe(found)) or ('not found: ' .. found)))
  if cmd then
    table.insert(lines, 'command: ' .. table.concat(cmd, ' '))
  end
  table.insert(lines, 'daemon: ' .. (client.id and ('running (client id ' .. client.id .. ')') or ('not running' .. (client.error and (': ' .. client.error) or ''))))
  table.insert(lines, 'model: ' .. client.model_state)
  local ms = suggestion.last_latency_ms
  table.insert(lines, 'last latency: ' .. (ms and ('%.1f ms'):format(ms) or 'n/a'))
  local s = suggestion.stats
  table.insert(lines, ('this session: %d requests, %d shown, %d accepted, %d partially accepted, %d dismissed'):format(
    s.requests, s.shown, s.accepted, s.partial, s.dismissed))
  if client.id then
    local stats, err = client.request_sync('wafer/stats', vim.empty_dict(), 1000)
    table.insert(lines, 'daemon stats: ' .. (stats and vim.fn.json_encode(stats) or ('unavailable (' .. tostring(err) .. ')')))
  end
  table.insert(lines, 'buffer attached: ' .. tostring(attached[cur()] == true))
  return lines
end

function M.setup(opts)
  config.setup(opts)
  require('wafer.commands').define()
  vim.api.nvim_set_hl(0, 'WaferSuggestion', { link = 'Comment', default = true })
  group = vim.api.nvim_create_augroup('wafer', { clear = true })

  vim.api.nvim_create_autocmd({ 'FileType', 'BufEnter' }, {
    group = group,
    callback = function(ev)
      if M.attach(ev.buf) then
        warm.send_later(ev.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd('BufUnload', {
    group = group,
    callback = function(ev)
      M.detach(ev.buf)
    end,
  })
  on('InsertCharPre', suggestion.keystroke)
  on({ 'TextChangedI', 'TextChangedP' }, suggestion.on_change)
  on('CursorMovedI', suggestion.on_cursor)
  on({ 'InsertEnter', 'CursorHold' }, warm.send)
  on('TextYankPost', yank.send)
  on({ 'InsertLeave', 'BufLeave' }, suggestion.reset)
  on('CompleteChanged', render.clear)
  on('CompleteDone', function(buf)
    vim.schedule(function()
      suggestion.refresh(buf)
    end)
  end)

  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) then
      M.attach(buf)
    end
  end
  return M
end

return M
