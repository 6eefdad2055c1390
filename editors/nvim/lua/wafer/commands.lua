-- wafer.commands: the plugin's user commands (:WaferToggle, :WaferAccept, ...). Defined by
-- plugin/wafer.lua at startup and again by setup() (idempotent), so they exist also when a
-- plugin manager puts the plugin on 'runtimepath' after startup without sourcing plugin/.
-- The suggestion commands act on the current buffer's ghost text; from insert mode, map
-- them with <Cmd>, e.g. vim.keymap.set('i', '<C-l>', '<Cmd>WaferAcceptWord<CR>').
local M = {}

function M.define()
  local function command(name, fn, opts)
    vim.api.nvim_create_user_command(name, fn, opts)
  end

  command('WaferStatus', function()
    for _, line in ipairs(require('wafer').status_lines()) do
      vim.api.nvim_echo({ { line } }, true, {})
    end
  end, { desc = 'wafer: daemon, model and latency status' })

  command('WaferPull', function(o)
    require('wafer.pull').pull(o.args ~= '' and o.args or nil)
  end, { nargs = '?', desc = "wafer: download a model (default: the one the daemon suggests) and switch to it" })

  command('WaferPullCancel', function()
    require('wafer.pull').cancel()
  end, { desc = 'wafer: stop a running download (it resumes next time)' })

  command('WaferRestart', function()
    require('wafer').restart()
  end, { desc = 'wafer: restart the daemon' })

  command('WaferToggle', function(o)
    local arg = o.args
    if arg ~= '' and arg ~= 'on' and arg ~= 'off' then
      vim.notify('wafer: :WaferToggle takes no argument, `on` or `off`', vim.log.levels.ERROR)
      return
    end
    local on = require('wafer').toggle(arg == '' and nil or arg == 'on')
    vim.api.nvim_echo({ { 'wafer: suggestions ' .. (on and 'on' or 'off') } }, false, {})
  end, {
    nargs = '?',
    complete = function()
      return { 'on', 'off' }
    end,
    desc = 'wafer: turn suggestions on or off',
  })

  -- One command per suggestion action (each silently does nothing without a suggestion).
  for name, action in pairs({
    WaferAccept = 'accept',
    WaferAcceptWord = 'accept_word',
    WaferAcceptLine = 'accept_line',
    WaferNext = 'next',
    WaferPrev = 'prev',
    WaferDismiss = 'dismiss',
    WaferTrigger = 'trigger',
  }) do
    command(name, function()
      require('wafer')[action]()
    end, { desc = 'wafer: ' .. action:gsub('_', ' ') .. ' (suggestion)' })
  end
end

return M
