-- Warm-up notifications: the plugin tells the daemon where the cursor rests (wafer/warm)
-- when a buffer is shown and when insert mode starts, once per buffer state and position,
-- and not at all with `warm = false`. Against the real daemon, it also checks that the
-- daemon acted on them (wafer/stats).
local h = require('helpers')
local config = require('wafer.config')

local FAKE = os.getenv('WAFER_TEST_FAKE') == '1'

local function warms(seen)
  return h.params_of(seen, 'wafer/warm')
end

return {
  { 'showing a buffer and entering insert mode send wafer/warm once per position', function()
    h.with_notifications(function(seen)
      local buf = h.new_buffer('python', { 'import os', '', 'def add(a, b):', '    return a + b' })
      vim.cmd('doautocmd BufEnter')
      h.wait_for(function()
        return #warms(seen) >= 1
      end, 5000, 'wafer/warm after the buffer was shown')
      local first = warms(seen)[1]
      h.eq(vim.uri_from_bufnr(buf), first.textDocument.uri, 'uri')
      h.eq(0, first.position.line, 'line of the cursor')
      vim.api.nvim_win_set_cursor(0, { 4, 4 })
      h.type('i')
      h.wait_for(function()
        return #warms(seen) >= 2
      end, 5000, 'wafer/warm on InsertEnter')
      local second = warms(seen)[2]
      h.eq(3, second.position.line, 'line on InsertEnter')
      h.eq(4, second.position.character, 'character on InsertEnter')
      -- Leave insert mode (the cursor steps back) and let every deferred send go out, then
      -- warm where the cursor is now: a second InsertEnter there has nothing new to warm.
      vim.cmd('stopinsert')
      h.sleep(300)
      vim.cmd('doautocmd InsertEnter')
      h.sleep(100)
      local sent = #warms(seen)
      vim.cmd('doautocmd InsertEnter')  -- same text, same place
      h.sleep(100)
      h.eq(sent, #warms(seen), 'no repeat for an unchanged position: ' .. vim.inspect(warms(seen)))
      if not FAKE then
        h.wait_for_count(buf, 'warm_started')
      end
      vim.cmd('bwipe!')
    end)
  end },

  { 'warm = false sends nothing', function()
    config.options.warm = false
    local ok, err = pcall(h.with_notifications, function(seen)
      h.new_buffer('python', { 'x = 1' })
      vim.cmd('doautocmd BufEnter')
      h.type('i')
      h.sleep(200)
      vim.cmd('stopinsert')
      h.eq(0, #warms(seen), 'no wafer/warm')
      vim.cmd('bwipe!')
    end)
    config.options.warm = true
    assert(ok, err)
  end },
}
