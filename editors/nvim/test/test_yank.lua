-- Yanks: the plugin sends the range of what `y` yanked in an attached buffer (wafer/yank,
-- UTF-16 characters, ending at the end of the last yanked line), nothing for deletes, and
-- nothing with `yank = false`. Against the real daemon, it also checks that the yanked lines
-- joined its ring (wafer/stats).
local h = require('helpers')
local config = require('wafer.config')

local FAKE = os.getenv('WAFER_TEST_FAKE') == '1'

local function yanks(seen)
  return h.params_of(seen, 'wafer/yank')
end

return {
  { 'y sends the yanked lines, d sends nothing', function()
    h.with_notifications(function(seen)
      local buf = h.new_buffer('python', { 'import os', '', 'def add(a, b):', '    return "é" + a + b', 'x = 1' })
      vim.api.nvim_win_set_cursor(0, { 3, 4 })
      h.type('yj')  -- linewise: lines 3 and 4
      h.wait_for(function()
        return #yanks(seen) >= 1
      end, 5000, 'wafer/yank after yj')
      local first = yanks(seen)[1]
      h.eq(vim.uri_from_bufnr(buf), first.textDocument.uri, 'uri')
      h.eq({ line = 2, character = 0 }, first.range.start, 'start')
      h.eq({ line = 3, character = 22 }, first.range['end'], 'end: the last line, in UTF-16')
      vim.api.nvim_win_set_cursor(0, { 4, 18 })
      h.type('yiw')  -- charwise: the "a" after the "é" (byte 18, UTF-16 character 17)
      h.wait_for(function()
        return #yanks(seen) >= 2
      end, 5000, 'wafer/yank after yiw')
      h.eq({ line = 3, character = 17 }, yanks(seen)[2].range.start, 'start of a charwise yank, in UTF-16')
      h.type('dd')
      h.sleep(100)
      h.eq(2, #yanks(seen), 'no wafer/yank for a delete')
      if not FAKE then
        h.wait_for_count(buf, 'yanks_added')
      end
      vim.cmd('bwipe!')
    end)
  end },

  { 'yank = false sends nothing', function()
    config.options.yank = false
    local ok, err = pcall(h.with_notifications, function(seen)
      h.new_buffer('python', { 'x = 1', 'y = 2' })
      h.type('yj')
      h.sleep(100)
      h.eq(0, #yanks(seen), 'no wafer/yank')
      vim.cmd('bwipe!')
    end)
    config.options.yank = true
    assert(ok, err)
  end },
}
