-- wafer.config: the plugin's options, their documented defaults, and the merge of the
-- user's `setup({...})` table over them. Every other module reads options from here.
local M = {}

M.defaults = {
  -- The daemon. `cmd` wins when set (a list, e.g. { '/opt/wafer/bin/wafer', 'lsp' });
  -- otherwise the binary is run as `binary lsp` with `args` appended. `binary`: a path
  -- (`~` and environment variables expanded) or a name looked up on PATH; nil: search the
  -- plugin's own bin/<os>-<arch>/, PATH, then the install folder (wafer.binary).
  cmd = nil,
  binary = nil,
  args = {},
  -- initializationOptions for the daemon; `model` and `threads` are the common ones and
  -- are copied in when set. Anything else the daemon understands goes in `init_options`.
  model = nil,
  threads = nil,
  init_options = {},
  -- Filetypes served: `['*']` is the default for every filetype not listed.
  filetypes = {
    ['*'] = true,
    help = false,
    gitcommit = false,
    gitrebase = false,
    ['TelescopePrompt'] = false,
    [''] = false,
  },
  -- Suggestions on at start; :WaferToggle (or require('wafer').toggle()) flips it. While off
  -- no request is sent, not even by the trigger key.
  enabled = true,
  -- Request suggestions automatically while typing; when false only the trigger key asks.
  auto_trigger = true,
  -- Client-side debounce in milliseconds (the daemon debounces too; this only avoids a
  -- request per keystroke when typing very fast).
  debounce_ms = 20,
  -- Keys in insert mode. Set one to false to leave the key alone. When there is no
  -- suggestion, a key does what it would do without the plugin.
  keymaps = {
    accept = '<Tab>',
    accept_line = '<M-C-Right>',
    accept_word = '<M-Right>',
    next = '<M-]>',
    prev = '<M-[>',
    dismiss = '<C-]>',
    trigger = '<M-\\>',
  },
  -- Highlight group of the ghost text (linked to Comment unless the colorscheme sets it).
  hl_group = 'WaferSuggestion',
  -- Ask for streamed partial results ($/progress) so the ghost text grows as it decodes.
  stream = true,
  -- Tell the daemon where the cursor rests (buffer shown, insert mode entered, CursorHold)
  -- so it prefills the prompt there while idle: the first suggestion comes sooner.
  warm = true,
  -- Send the lines you yank (`y`) to the daemon, which shows them in the prompt with the
  -- places you recently edited (`wafer/yank`).
  yank = true,
}

M.options = vim.deepcopy(M.defaults)

-- Merges `user` over the defaults (nested tables merged key by key).
function M.setup(user)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), user or {})
  return M.options
end

-- Whether the plugin serves buffers of filetype `ft`.
function M.filetype_enabled(ft)
  local map = M.options.filetypes or {}
  if map[ft] ~= nil then
    return map[ft] and true or false
  end
  return map['*'] ~= false
end

-- Resolves the daemon command line (wafer.binary finds the binary); returns the command
-- and the found binary ({ path, how }), or nil and what was searched and how to fix it.
function M.command()
  return require('wafer.binary').command(M.options)
end

-- The initializationOptions sent to the daemon.
function M.init_options()
  local o = M.options
  local init = vim.deepcopy(o.init_options or {})
  if o.model then
    init.model = init.model or o.model
  end
  if o.threads then
    init.threads = init.threads or o.threads
  end
  if next(init) == nil then
    return vim.empty_dict() -- an empty Lua table would be sent as [] and rejected
  end
  return init
end

return M
