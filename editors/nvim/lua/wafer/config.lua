-- wafer.config: the plugin's options, their documented defaults, and the merge of the
-- user's `setup({...})` table over them. Every other module reads options from here.
local M = {}

M.defaults = {
  -- The daemon. `cmd` wins when set (a list, e.g. { '/opt/wafer/bin/wafer', 'lsp' });
  -- otherwise `binary` is looked up on PATH (or used as is when it is a path) and run as
  -- `binary lsp` with `args` appended.
  cmd = nil,
  binary = 'wafer',
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

-- The plugin's folder (the one holding lua/ and plugin/).
local function plugin_dir()
  local src = debug.getinfo(1, 'S').source:sub(2) -- .../lua/wafer/config.lua
  return vim.fn.fnamemodify(src, ':p:h:h:h')
end

-- Where a `wafer` binary sits next to the plugin when it is not on PATH: the build of the
-- same checkout (scripts/run.sh installs into build-release/install), or the prefix the
-- plugin was installed with (PREFIX/share/wafer/nvim -> PREFIX/bin/wafer).
function M.bundled_binaries()
  local dir = plugin_dir()
  return {
    dir .. '/../../build-release/install/bin/wafer',
    dir .. '/../../../bin/wafer',
  }
end

-- Resolves the daemon command line, or nil plus a reason when the binary is not found.
function M.command()
  local o = M.options
  if o.cmd then
    return o.cmd
  end
  local bin = o.binary or 'wafer'
  local path = vim.fn.exepath(bin)
  if path == '' and bin == 'wafer' then
    for _, candidate in ipairs(M.bundled_binaries()) do
      if vim.fn.executable(candidate) == 1 then
        path = vim.fn.fnamemodify(candidate, ':p')
        break
      end
    end
  end
  if path == '' then
    return nil, ('wafer binary %q not found (on PATH or as configured in `binary`)'):format(bin)
  end
  local cmd = { path, 'lsp' }
  for _, a in ipairs(o.args or {}) do
    table.insert(cmd, a)
  end
  return cmd
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
