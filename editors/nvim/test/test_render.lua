-- How ghost text is drawn on this Neovim: inline virtual text from 0.10 (the rest of the
-- line moves right), an overlay that redraws the rest of the line on 0.7–0.9, virtual
-- lines below for further lines. The screen must read the same either way.
local h = require('helpers')
local render = require('wafer.render')

local function mark(buf)
  local marks = vim.api.nvim_buf_get_extmarks(buf, render.ns, 0, -1, { details = true })
  h.eq(1, #marks, 'one extmark')
  return marks[1][4]
end

local function scratch(line)
  vim.cmd('enew!')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { line })
  return buf
end

return {
  { 'a one-line suggestion inside a line reads as if inserted', function()
    local buf = scratch('x = total(items)')
    h.ok(render.show(buf, 0, 10, 'len(', 0, 'Comment'), 'drawn')
    local d = mark(buf)
    h.eq(vim.fn.has('nvim-0.10') == 1 and 'inline' or 'overlay', d.virt_text_pos, 'virt_text_pos on this Neovim')
    h.eq('x = total(len(items)', h.screen_line(1), 'screen')
    h.eq({ 'x = total(items)' }, h.lines(buf), 'buffer unchanged')
    render.clear(buf)
    h.eq('x = total(items)', h.screen_line(1), 'screen after clear')
  end },

  { 'a suggestion that replaces text after the cursor is an overlay on every version', function()
    local buf = scratch('print(x)')
    h.ok(render.show(buf, 0, 6, 'value)', 2, 'Comment'), 'drawn') -- replaces "x)"
    h.eq('overlay', mark(buf).virt_text_pos, 'virt_text_pos')
    h.eq('print(value)', h.screen_line(1), 'screen')
  end },

  { 'further lines are virtual lines below, the text after the cursor after the last', function()
    local buf = scratch('def f():')
    render.show(buf, 0, 8, '\n    return 1', 0, 'Comment')
    h.eq(1, #(mark(buf).virt_lines or {}), 'one virtual line')
    h.eq('def f():', h.screen_line(1), 'first line')
    h.eq('    return 1', h.screen_line(2), 'virtual line')
  end },
}
