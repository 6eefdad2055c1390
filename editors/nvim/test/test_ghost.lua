-- End-to-end tests: a Python buffer, keys typed in insert mode, suggestions from the
-- daemon (the real `wafer lsp`, or the scripted fake), checked on screen and in the buffer.
-- Assertions derive the expected text from the suggestion actually shown, so they hold
-- for any daemon; WAFER_TEST_FAKE=1 adds checks that need the fake's known streaming.
local h = require('helpers')
local text = require('wafer.text')
local render = require('wafer.render')
local suggestion = require('wafer.suggestion')
local wafer = require('wafer')

local FAKE = os.getenv('WAFER_TEST_FAKE') == '1'
local PREFIX = 'def add('
local CONTEXT = { 'import os', '', '' }
local latencies = {}

local function start(prefix)
  local buf = h.new_buffer('python', CONTEXT)
  vim.api.nvim_win_set_cursor(0, { #CONTEXT, 0 })
  local ghost, ms = h.type_until_ghost(prefix or PREFIX)
  table.insert(latencies, ms)
  return buf, ghost
end

local function marks(buf)
  return #vim.api.nvim_buf_get_extmarks(buf, render.ns, 0, -1, {})
end

local function last_line(buf)
  local lines = h.lines(buf)
  return lines[#lines]
end

local function partial_accepts(seen)
  return h.params_of(seen, 'textDocument/didPartiallyAcceptCompletion')
end

-- The expected screen text of a ghost line (tabs expanded as render does, cut to width).
local function shown(s)
  return (s:gsub('\t', string.rep(' ', vim.bo.tabstop))):sub(1, vim.o.columns):gsub('%s+$', '')
end

return {
  { 'ghost text appears on screen at the cursor', function()
    local buf, ghost = start()
    local row = vim.api.nvim_win_get_cursor(0)[1]
    local pieces = text.lines(ghost)
    h.eq(shown(PREFIX .. pieces[1]), h.screen_line(row), 'cursor line on screen')
    if #pieces > 1 then
      h.eq(shown(pieces[2]), h.screen_line(row + 1), 'second suggestion line (virt_lines)')
    end
    h.eq(PREFIX, last_line(buf), 'buffer unchanged by ghost text')
    h.ok(suggestion.last_latency_ms and suggestion.last_latency_ms > 0, 'latency measured')
    h.ok(wafer.statusline():match('^wafer %d+ms$'), 'statusline shows latency: ' .. wafer.statusline())
  end },

  { 'Tab accepts the whole suggestion', function()
    local buf, ghost = start()
    h.type('<Tab>')
    local want = text.lines(PREFIX .. ghost)
    local lines = h.lines(buf)
    h.eq(want, vim.list_slice(lines, #CONTEXT, #CONTEXT + #want - 1), 'buffer after accept')
    local cur = vim.api.nvim_win_get_cursor(0)
    h.eq(#CONTEXT + #want - 1, cur[1], 'cursor on the last accepted line')
    h.eq(#want[#want], cur[2], 'cursor after the accepted text')
  end },

  { 'accept word inserts the next word and reports acceptedLength', function()
    local seen, restore = h.spy_notifications()
    local buf, ghost = start()
    local word = text.next_word(ghost)
    h.type('<M-Right>')
    restore()
    h.eq(text.lines(PREFIX .. word), vim.list_slice(h.lines(buf), #CONTEXT), 'buffer after accept word')
    if word ~= ghost then
      h.eq(ghost:sub(#word + 1), wafer.visible(), 'rest of the suggestion still shown')
      local acc = partial_accepts(seen)
      h.eq(1, #acc, 'one didPartiallyAcceptCompletion')
      local insert = text.insert_text(acc[1].item)
      h.eq(text.utf16_len(insert:sub(1, #insert - #ghost + #word)), acc[1].acceptedLength, 'acceptedLength')
    end
  end },

  { 'accept line inserts the next line', function()
    local seen, restore = h.spy_notifications()
    local buf, ghost = start()
    local line = text.next_line(ghost)
    h.type('<M-C-Right>')
    h.eq(text.lines(PREFIX .. line), vim.list_slice(h.lines(buf), #CONTEXT), 'buffer after accept line')
    if line ~= ghost then
      local rest = ghost:sub(#line + 1)
      h.eq(rest, wafer.visible(), 'rest of the suggestion still shown')
      h.eq(1, #partial_accepts(seen), 'one didPartiallyAcceptCompletion')
      -- The next accept-line continues on the following line.
      local nxt = text.next_line(rest)
      h.type('<M-C-Right>')
      h.eq(text.lines(PREFIX .. line .. nxt), vim.list_slice(h.lines(buf), #CONTEXT), 'second accept line')
    end
    restore()
  end },

  { 'typing through a suggestion keeps it without a new request', function()
    local buf, ghost = start()
    local ch = ghost:sub(1, 1)
    h.ok(ch:match('[%w%p ]'), 'first ghost character is typeable: ' .. vim.inspect(ch))
    local before = suggestion.stats.requests
    h.type_slowly(ch == ' ' and ' ' or ch, 10)
    h.eq(ghost:sub(2), wafer.visible(), 'suggestion minus the typed character')
    h.eq(before, suggestion.stats.requests, 'no new request')
    local row = vim.api.nvim_win_get_cursor(0)[1]
    h.eq(shown(PREFIX .. text.lines(ghost)[1]), h.screen_line(row), 'screen unchanged')
    h.ok(marks(buf) > 0, 'ghost still drawn')
  end },

  { 'a dismissed suggestion does not come back at the same position', function()
    local buf = start()
    h.type('<C-]>')
    h.eq(nil, wafer.visible(), 'dismissed')
    h.eq(0, marks(buf), 'no ghost drawn')
    -- Leave the position and come back: TextChangedI fires, but no request is made.
    h.type('x')
    h.type('<BS>')
    local before = suggestion.stats.requests
    h.sleep(400)
    h.eq(PREFIX, last_line(buf), 'back at the same text')
    h.eq(nil, wafer.visible(), 'still dismissed')
    h.eq(0, marks(buf), 'still no ghost drawn')
    h.eq(before, suggestion.stats.requests, 'no request for the dismissed position')
    -- An explicit trigger brings it back.
    h.type('<M-\\>')
    h.wait_for(wafer.visible, 15000, 'suggestion after manual trigger')
  end },

  { 'moving the cursor and leaving insert mode clear the ghost text', function()
    local buf, ghost = start()
    h.type('<Left>')
    h.ok(wafer.visible() ~= ghost, 'the old suggestion is not shown after a cursor move')
    h.type('<End>')
    h.wait_for(wafer.visible, 15000, 'suggestion again after typing')
    h.type('<Esc>')
    h.eq(0, marks(buf), 'no ghost in normal mode')
  end },

  { 'Tab falls back to a tab when there is no suggestion', function()
    local buf = h.new_buffer('python', { '' })
    h.type('i<Tab>')
    local sts = vim.bo.softtabstop > 0 and vim.bo.softtabstop or vim.bo.tabstop
    local want = vim.bo.expandtab and string.rep(' ', sts) or '\t'
    h.wait_for(function()
      return h.lines(buf)[1] == want
    end, 5000, 'Tab to indent as without the plugin (' .. vim.inspect(want) .. ')')
  end },

  { 'ghost text is hidden while the popup menu is visible', function()
    local buf = start()
    h.type('<C-n>', true)
    h.wait_for(function()
      return vim.fn.pumvisible() == 1
    end, 2000, 'popup menu')
    h.eq(0, marks(buf), 'no ghost while the popup menu shows')
    h.type('<C-e>', true)
    h.wait_for(function()
      return vim.fn.pumvisible() == 0 and marks(buf) > 0
    end, 15000, 'ghost back after the popup menu closed')
  end },

  { 'the suggestion streams in and is reported as shown', function()
    local seen, restore = h.spy_notifications()
    local lengths = {}
    local orig = render.show
    render.show = function(buf, row, col, ghost, ...)
      table.insert(lengths, #ghost)
      return orig(buf, row, col, ghost, ...)
    end
    local ok, err = pcall(function()
      start()
      h.wait_for(function()
        for _, n in ipairs(seen) do
          if n.method == 'textDocument/didShowCompletion' then
            return true
          end
        end
      end, 15000, 'didShowCompletion')
    end)
    render.show = orig
    restore()
    assert(ok, err)
    if FAKE then
      h.ok(#lengths >= 3 and lengths[1] < lengths[#lengths], 'ghost grew while streaming: ' .. vim.inspect(lengths))
    end
  end },

  { 'a suggestion the daemon holds back after it streamed is taken back', function()
    if not FAKE then
      return -- the real daemon holds back what its model is unsure of, which no test can pick
    end
    local buf = start('import not_')
    h.wait_for(function()
      return marks(buf) == 0 and not suggestion.pending(buf)
    end, 5000, 'ghost text taken back')
    h.eq(nil, wafer.visible(), 'no suggestion left')
  end },

  { 'next and previous change the suggestion', function()
    local _, ghost = start()
    local before = suggestion.stats.requests
    h.type('<M-]>')
    -- With a single suggestion, next asks the daemon for alternatives (an invoked request).
    h.eq(before + 1, suggestion.stats.requests, 'next asked the daemon')
    h.wait_for(function()
      return not suggestion.pending(vim.api.nvim_get_current_buf()) and wafer.visible()
        and (not FAKE or wafer.visible() ~= ghost)
    end, 15000, 'another suggestion after next')
    local second = wafer.visible()
    if FAKE then
      h.type('<M-[>')
      h.eq(ghost, wafer.visible(), 'previous shows the first one again')
      h.type('<M-[>')
      h.eq(second, wafer.visible(), 'previous wraps around')
      vim.cmd('WaferNext')
      h.eq(ghost, wafer.visible(), ':WaferNext cycles too')
    end
  end },

  { 'the accept commands insert exactly the expected text', function()
    local buf, ghost = start()
    local word = text.next_word(ghost)
    h.type('<Cmd>WaferAcceptWord<CR>')
    h.eq(text.lines(PREFIX .. word), vim.list_slice(h.lines(buf), #CONTEXT), ':WaferAcceptWord')
    local rest = ghost:sub(#word + 1)
    if rest ~= '' then
      local line = text.next_line(rest)
      h.type('<Cmd>WaferAcceptLine<CR>')
      h.eq(text.lines(PREFIX .. word .. line), vim.list_slice(h.lines(buf), #CONTEXT), ':WaferAcceptLine')
      if rest ~= line then
        h.type('<Cmd>WaferAccept<CR>')
        h.eq(text.lines(PREFIX .. ghost), vim.list_slice(h.lines(buf), #CONTEXT), ':WaferAccept')
      end
    end
    if FAKE then
      h.eq(nil, wafer.visible(), 'nothing left to show') -- (a real model may suggest more at once)
    end
  end },

  { 'Escape dismisses the ghost text', function()
    local buf = start()
    h.type('<Esc>')
    h.eq(0, marks(buf), 'no ghost after Escape')
    h.eq(PREFIX, last_line(buf), 'buffer unchanged')
  end },

  { ':WaferToggle disables requests and enables them again', function()
    local buf = start()
    vim.cmd('WaferToggle')
    h.eq(false, wafer.enabled(), 'off')
    h.eq('wafer off', wafer.statusline(), 'statusline says off')
    h.eq(0, marks(buf), 'ghost text hidden')
    local before = suggestion.stats.requests
    h.type_slowly(' ', 10)
    h.eq(false, wafer.trigger(), 'the trigger does nothing while off')
    h.sleep(300)
    h.eq(before, suggestion.stats.requests, 'no request while off')
    h.eq(nil, wafer.visible(), 'no suggestion while off')
    h.eq(0, marks(buf), 'no ghost while off')
    vim.cmd('WaferToggle on')
    h.eq(true, wafer.enabled(), 'on again')
    h.type('<BS>')
    h.wait_for(wafer.visible, 15000, 'a suggestion once on again')
    h.ok(marks(buf) > 0, 'ghost drawn again')
  end },

  { ':WaferStatus and :checkhealth wafer report the daemon', function()
    start()
    vim.cmd('stopinsert')
    local lines = table.concat(wafer.status_lines(), '\n')
    h.ok(lines:find('daemon: running'), 'daemon running in status: ' .. lines)
    h.ok(lines:find('last latency: %d'), 'latency in status: ' .. lines)
    h.ok(lines:find('daemon stats: {'), 'daemon stats in status: ' .. lines)
    vim.cmd('checkhealth wafer')
    local report = table.concat(h.lines(0), '\n')
    h.ok(report:find('binary:'), 'checkhealth names the binary: ' .. report)
    h.ok(report:find('daemon running'), 'checkhealth sees the daemon: ' .. report)
    h.ok(report:find('Neovim'), 'checkhealth names the Neovim version: ' .. report)
    h.ok(report:find('version:'), 'checkhealth names the wafer version: ' .. report)
    h.ok(report:find('model:'), 'checkhealth checks the model: ' .. report)
    vim.cmd('bwipe!')
  end },

  { 'report latencies', function()
    local sorted = vim.deepcopy(latencies)
    table.sort(sorted)
    io.stdout:write(('     ghost-text latency over %d runs (ms): min %.1f, median %.1f, max %.1f\n'):format(
      #sorted, sorted[1] or 0, sorted[math.max(1, math.floor((#sorted + 1) / 2))] or 0, sorted[#sorted] or 0))
    h.ok(#sorted > 0, 'latencies recorded')
  end },
}
