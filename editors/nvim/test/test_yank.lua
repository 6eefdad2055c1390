-- Yanks: the plugin sends the range of what `y` yanked in an attached buffer (wafer/yank,
-- UTF-16 characters, ending at the end of the last yanked line), nothing for deletes, and
-- nothing with `yank = false`. Against the real daemon, it also checks that the yanked lines
-- joined its ring (wafer/stats).
local h = require('helpers')
local client = require('wafer.client')
local config = require('wafer.config')

local FAKE = os.getenv('WAFER_TEST_FAKE') == '1'

local function yanks(seen)
  return h.params_of(seen, 'wafer/yank')
end

return {
  { 'y sends the yanked lines, d sends nothing', function()
    local seen, restore = h.spy_notifications()
    local ok, err = pcall(function()
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
        h.wait_for(function()
          local stats = client.request_sync('wafer/stats', vim.empty_dict(), 1000, buf)
          return stats and stats.counts and (stats.counts.yanks_added or 0) >= 1
        end, 10000, 'the daemon to keep the yank')
      end
      vim.cmd('bwipe!')
    end)
    restore()
    assert(ok, err)
  end },

  { 'yank = false sends nothing', function()
    local seen, restore = h.spy_notifications()
    config.options.yank = false
    local ok, err = pcall(function()
      h.new_buffer('python', { 'x = 1', 'y = 2' })
      h.type('yj')
      h.sleep(100)
      h.eq(0, #yanks(seen), 'no wafer/yank')
      vim.cmd('bwipe!')
    end)
    config.options.yank = true
    restore()
    assert(ok, err)
  end },
}
