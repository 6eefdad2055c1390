-- Yanks: the lines yanked in an attached buffer go to the daemon (`wafer/yank` with the
-- yanked range), which keeps them with the places recently edited and shows them in the
-- prompt of the next suggestions, as llama.vim does with its ring of yanked chunks. Only
-- yanks (`y`), not deletes or changes; off with `yank = false`.
local client = require('wafer.client')
local config = require('wafer.config')
local text = require('wafer.text')

local M = {}

-- On TextYankPost in `buf`: sends the yanked lines' range; true when sent.
function M.send(buf)
  if config.options.yank == false or vim.v.event.operator ~= 'y' or not client.ready(buf) then
    return false
  end
  -- The yanked text runs from mark '[ to mark '] (1-based rows, byte columns, inclusive).
  local first = vim.api.nvim_buf_get_mark(buf, '[')
  local last = vim.api.nvim_buf_get_mark(buf, ']')
  if first[1] < 1 or last[1] < first[1] then
    return false
  end
  local first_line = vim.api.nvim_buf_get_lines(buf, first[1] - 1, first[1], false)[1] or ''
  local last_line = vim.api.nvim_buf_get_lines(buf, last[1] - 1, last[1], false)[1] or ''
  -- The daemon takes whole lines: the range ends at the end of the last one.
  client.notify('wafer/yank', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = {
      start = { line = first[1] - 1, character = text.utf16_col(first_line, math.min(first[2], #first_line)) },
      ['end'] = { line = last[1] - 1, character = text.utf16_len(last_line) },
    },
  })
  return true
end

return M
