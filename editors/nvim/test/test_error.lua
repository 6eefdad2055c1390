-- Run against a daemon whose model is missing: the error reaches the user once, as a
-- message, however many requests fail; typing goes on normally.
local h = require('helpers')
local wafer = require('wafer')

return {
  { 'a daemon error is shown once as a message', function()
    local shown = {}
    local orig = vim.notify
    vim.notify = function(msg, level, opts)
      table.insert(shown, { msg = msg, level = level })
      return orig(msg, level, opts)
    end
    local ok, err = pcall(function()
      local buf = h.new_buffer('python', { 'import os', '' })
      vim.api.nvim_win_set_cursor(0, { 2, 0 })
      h.type('i')
      h.type_slowly('def add(', 60)
      h.sleep(600)
      h.type_slowly('a, b', 60)
      h.type('<M-\\>')
      h.sleep(1000)
      h.eq('def add(a, b', h.lines(buf)[2], 'typing unaffected')
      h.eq(nil, wafer.visible(), 'no suggestion')
    end)
    vim.notify = orig
    assert(ok, err)
    local errors = vim.tbl_filter(function(m)
      return m.msg:find('wafer') and m.level == vim.log.levels.ERROR
    end, shown)
    h.eq(1, #errors, 'exactly one error message: ' .. vim.inspect(shown))
    h.ok(errors[1].msg:lower():find('model'), 'the message names the model: ' .. errors[1].msg)
    h.eq('wafer !', wafer.statusline(), 'statusline shows the error')
  end },
}
