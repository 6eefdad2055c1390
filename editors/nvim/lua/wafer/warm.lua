-- Warm-up: tells the daemon where the cursor rests (a buffer shown, insert mode entered,
-- the cursor still in normal mode) with `wafer/warm`, so while its engine is idle it
-- prefills the prompt a suggestion there would need and the first suggestion comes quickly.
-- Sent at most once per buffer state and position; off with `warm = false`.
local client = require('wafer.client')
local config = require('wafer.config')
local text = require('wafer.text')

local M = {}

local last = {} -- buf -> "changedtick:row:col" last sent

-- Sends the notification for the cursor of the current window if it shows `buf`;
-- true when sent.
function M.send(buf)
  if not config.options.warm or vim.api.nvim_get_current_buf() ~= buf or not client.ready(buf) then
    return false
  end
  local pos = vim.api.nvim_win_get_cursor(0)
  local row, col = pos[1] - 1, pos[2]
  local key = ('%d:%d:%d'):format(vim.api.nvim_buf_get_changedtick(buf), row, col)
  if last[buf] == key then
    return false
  end
  last[buf] = key
  local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ''
  client.notify('wafer/warm', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = row, character = text.utf16_col(line, col) },
  })
  return true
end

-- After the buffer's didOpen has gone out (attach sends it on the next loop turn).
function M.send_later(buf)
  vim.defer_fn(function()
    if vim.api.nvim_buf_is_valid(buf) then
      M.send(buf)
    end
  end, 50)
end

function M.forget(buf)
  last[buf] = nil
end

return M
