-- wafer.render: draws and clears ghost text with extmarks. The first line of a suggestion
-- goes at the cursor (virt_text_pos='inline' where Neovim has it, otherwise an overlay that
-- redraws the rest of the line after the ghost so the line reads as if the text were
-- inserted); further lines are virt_lines below the cursor's line.
local text = require('wafer.text')

local M = {}

M.ns = vim.api.nvim_create_namespace('wafer')
M.has_inline = vim.fn.has('nvim-0.10') == 1

local function expand_tabs(s, buf)
  if not s:find('\t', 1, true) then
    return s
  end
  local ts = vim.bo[buf].tabstop
  return (s:gsub('\t', string.rep(' ', ts > 0 and ts or 8)))
end

function M.clear(buf)
  if vim.api.nvim_buf_is_valid(buf) then
    vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  end
end

-- Draws `ghost` at (row, col) (0-based, col in bytes) of `buf`. `replace` is the number of
-- bytes after the cursor that the suggestion replaces when accepted whole.
function M.show(buf, row, col, ghost, replace, hl)
  M.clear(buf)
  local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1]
  if not line or ghost == '' then
    return false
  end
  local pieces = text.lines(ghost)
  local multi = #pieces > 1
  local rest = line:sub(col + 1)                  -- what the buffer shows after the cursor
  local after = line:sub(col + 1 + replace)       -- what follows the suggestion once accepted
  local opts = { hl_mode = 'combine', priority = 200 }
  local first = expand_tabs(pieces[1], buf)

  if M.has_inline and not multi and replace == 0 then
    opts.virt_text = { { first, hl } }
    opts.virt_text_pos = 'inline'
  else
    -- Overlay: ghost, then the text that will follow it (single line), padded so that it
    -- covers everything the buffer shows after the cursor.
    local chunks = { { first, hl } }
    local width = vim.fn.strdisplaywidth(first)
    if not multi and after ~= '' then
      table.insert(chunks, { expand_tabs(after, buf), 'Normal' })
      width = width + vim.fn.strdisplaywidth(after)
    end
    local cover = vim.fn.strdisplaywidth(rest)
    if width < cover then
      table.insert(chunks, { string.rep(' ', cover - width), 'Normal' })
    end
    opts.virt_text = chunks
    opts.virt_text_pos = 'overlay'
  end

  if multi then
    local vl = {}
    for i = 2, #pieces do
      local chunks = { { expand_tabs(pieces[i], buf), hl } }
      if i == #pieces and after ~= '' then
        table.insert(chunks, { expand_tabs(after, buf), 'Normal' })
      end
      table.insert(vl, chunks)
    end
    opts.virt_lines = vl
  end
  local ok = pcall(vim.api.nvim_buf_set_extmark, buf, M.ns, row, math.min(col, #line), opts)
  return ok
end

return M
