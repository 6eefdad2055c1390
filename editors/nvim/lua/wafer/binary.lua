-- wafer.binary: which `wafer` binary the plugin runs, and how it was found, on Linux,
-- macOS and Windows. The order:
--   1. the `cmd` option (the whole command, as it is) or the `binary` option when set
--      (`~`, `$VAR`, `${VAR}`, `${env:VAR}` and, on Windows, `%VAR%` expanded; a bare name
--      is looked up on PATH);
--   2. the plugin's own binary: `bin/<os>-<arch>/wafer` in the plugin folder (`wafer.exe`
--      on Windows), then the one next to it: a checkout's build-release/install/bin/wafer
--      (scripts/run.sh) or, for an installed plugin (PREFIX/share/wafer/nvim), PREFIX/bin;
--   3. PATH, searched here: split on `;` on Windows (each name tried with the PATHEXT
--      extensions, `wafer.exe` among them), `:` elsewhere;
--   4. the default install folder: ~/.local/bin/wafer, on Windows
--      %LOCALAPPDATA%\Programs\wafer\bin\wafer.exe.
-- A `binary` that leads nowhere is reported as such, not replaced by another binary. All
-- OS access goes through a host table (M.host() is the real one) so tests can fake it.
local M = {}

-- The real OS. `os` and `arch` use Node's names (as VS Code's per-platform packages do):
-- linux/darwin/win32, x64/arm64.
function M.host()
  local uname = vim.loop.os_uname()
  local win = vim.fn.has('win32') == 1
  local os = win and 'win32' or (uname.sysname == 'Darwin' and 'darwin' or uname.sysname:lower())
  local machine = (uname.machine or ''):lower()
  local arch = ({ x86_64 = 'x64', amd64 = 'x64', aarch64 = 'arm64', arm64 = 'arm64' })[machine] or machine
  local src = debug.getinfo(1, 'S').source:sub(2) -- .../lua/wafer/binary.lua
  return {
    os = os,
    arch = arch,
    getenv = function(name)
      return vim.loop.os_getenv(name)
    end,
    home = vim.loop.os_homedir(),
    plugin_dir = vim.fn.fnamemodify(src, ':p:h:h:h'),
    is_executable = function(path)
      local st = vim.loop.fs_stat(path)
      if not st or st.type ~= 'file' then
        return false
      end
      return win or vim.fn.executable(path) == 1
    end,
  }
end

local function win(host)
  return host.os == 'win32'
end

local function sep(host)
  return win(host) and '\\' or '/'
end

-- `path` with `.` and `dir/..` segments removed (on Windows with backslashes).
local function clean(path, host)
  local s = sep(host)
  if win(host) then
    path = path:gsub('/', '\\')
  end
  local lead, rest = path:match('^(%a:[\\/])(.*)$')
  if not lead then
    lead, rest = path:match('^([\\/]*)(.*)$')
  end
  local parts = {}
  for part in rest:gmatch('[^\\/]+') do
    if part == '..' and #parts > 0 and parts[#parts] ~= '..' then
      table.remove(parts)
    elseif part ~= '.' then
      table.insert(parts, part)
    end
  end
  return lead .. table.concat(parts, s)
end

local function join(host, ...)
  return clean(table.concat({ ... }, sep(host)), host)
end

local function exe(host)
  return win(host) and 'wafer.exe' or 'wafer'
end

-- The `binary` option as a path: surrounding quotes dropped, `${env:VAR}`, `${VAR}`,
-- `$VAR` and on Windows `%VAR%` expanded (an unset variable is kept as written, except
-- `${env:VAR}`, which becomes empty as in VS Code), a leading `~` made the home folder.
function M.expand(value, host)
  local s = vim.trim(value or '')
  if #s >= 2 and s:sub(1, 1) == '"' and s:sub(-1) == '"' then
    s = vim.trim(s:sub(2, -2))
  end
  s = s:gsub('%${env:([^}]+)}', function(name)
    return host.getenv(name) or ''
  end)
  s = s:gsub('%${([%w_]+)}', function(name)
    return host.getenv(name)
  end)
  s = s:gsub('%$([%a_][%w_]*)', function(name)
    return host.getenv(name)
  end)
  if win(host) then
    s = s:gsub('%%([^%%\\/:]+)%%', function(name)
      return host.getenv(name)
    end)
  end
  if s == '~' or s:match('^~[\\/]') then
    s = host.home .. s:sub(2)
  end
  if win(host) and s ~= '' then
    s = s:gsub('/', '\\')
  end
  return s
end

-- A program name to look up on PATH rather than a path: no folder in it.
local function is_name(s, host)
  if win(host) then
    return not s:find('[\\/:]')
  end
  return not s:find('/')
end

-- Windows' program extensions in PATHEXT's order, `.exe` always among them.
local function extensions(host)
  local list = {}
  for e in (host.getenv('PATHEXT') or '.COM;.EXE;.BAT;.CMD'):gmatch('[^;]+') do
    e = vim.trim(e):lower()
    if e:sub(1, 1) == '.' then
      table.insert(list, e)
    end
  end
  if not vim.tbl_contains(list, '.exe') then
    table.insert(list, 1, '.exe')
  end
  return list
end

-- The files that stand for `file`: itself, or on Windows with each program extension when
-- it has none of them.
local function program_files(file, host)
  if not win(host) then
    return { file }
  end
  local exts = extensions(host)
  local ext = (file:match('(%.[^.\\/]*)$') or ''):lower()
  if vim.tbl_contains(exts, ext) then
    return { file }
  end
  local out = {}
  for _, e in ipairs(exts) do
    table.insert(out, file .. e)
  end
  return out
end

-- The folders of PATH in order (empty entries and, on Windows, quotes dropped).
function M.path_folders(host)
  local out = {}
  local delim = win(host) and ';' or ':'
  for dir in (host.getenv('PATH') or ''):gmatch('[^' .. delim .. ']+') do
    if win(host) then
      dir = vim.trim((dir:gsub('"', '')))
    end
    if dir ~= '' then
      table.insert(out, dir)
    end
  end
  return out
end

-- `name` looked up in the folders of PATH, as the shell would; nil when it is not there.
function M.search_path(name, host)
  for _, dir in ipairs(M.path_folders(host)) do
    for _, file in ipairs(program_files(join(host, dir, name), host)) do
      if host.is_executable(file) then
        return file
      end
    end
  end
  return nil
end

-- The plugin's own binaries, in order: bin/<os>-<arch>/, a checkout's build, an install
-- prefix's bin/.
function M.own_paths(host)
  local dir = host.plugin_dir
  return {
    join(host, dir, 'bin', host.os .. '-' .. host.arch, exe(host)),
    join(host, dir, '..', '..', 'build-release', 'install', 'bin', exe(host)),
    join(host, dir, '..', '..', '..', 'bin', exe(host)),
  }
end

function M.install_path(host)
  if win(host) then
    local from = host.getenv('LOCALAPPDATA')
    if not from or from == '' then
      from = join(host, host.home, 'AppData', 'Local')
    end
    return join(host, from, 'Programs', 'wafer', 'bin', 'wafer.exe')
  end
  return join(host, host.home, '.local', 'bin', 'wafer')
end

-- Finds the binary for `opts` (the plugin's options: `cmd`, `binary`). Returns
-- { path, how } (how: 'cmd', 'setting', 'plugin', 'beside', 'PATH', 'install'), or nil and
-- { setting, searched } saying what was looked at.
function M.find(opts, host)
  host = host or M.host()
  opts = opts or {}
  if type(opts.cmd) == 'table' and opts.cmd[1] then
    return { path = opts.cmd[1], how = 'cmd' }
  end
  local value = type(opts.binary) == 'string' and M.expand(opts.binary, host) or ''
  if value ~= '' then
    if is_name(value, host) then
      local hit = M.search_path(value, host)
      if hit then
        return { path = hit, how = 'setting' }
      end
      return nil, { setting = value, searched = { ('%q on PATH'):format(value) } }
    end
    local files = program_files(value, host)
    for _, f in ipairs(files) do
      if host.is_executable(f) then
        return { path = f, how = 'setting' }
      end
    end
    return nil, { setting = value, searched = files }
  end
  local searched = {}
  for i, p in ipairs(M.own_paths(host)) do
    table.insert(searched, p)
    if host.is_executable(p) then
      return { path = p, how = i == 1 and 'plugin' or 'beside' }
    end
  end
  local hit = M.search_path('wafer', host)
  if hit then
    return { path = hit, how = 'PATH' }
  end
  table.insert(searched, 'wafer on PATH')
  local installed = M.install_path(host)
  table.insert(searched, installed)
  if host.is_executable(installed) then
    return { path = installed, how = 'install' }
  end
  return nil, { setting = '', searched = searched }
end

local HOW = {
  cmd = 'the `cmd` option',
  setting = 'the `binary` option',
  plugin = "the plugin's own binary",
  beside = "next to the plugin: its checkout's build or its install prefix",
  PATH = 'found on PATH',
  install = 'the default install folder',
}

-- One line: which binary, and how it was found.
function M.describe(found)
  return ('%s (%s)'):format(found.path, HOW[found.how] or found.how)
end

-- What was searched and how to fix it.
function M.not_found_message(nf, host)
  host = host or M.host()
  if nf.setting ~= '' then
    return ('`binary` is %q, but there is no program there (looked for %s). Set `binary` in setup() to the full path of %s, or leave it unset to search.'):format(
      nf.setting, table.concat(nf.searched, ', '), win(host) and 'wafer.exe' or 'the wafer binary')
  end
  return ('no wafer binary found: looked for %s. Install wafer into %s or a folder on PATH, or set `binary` in setup() to its full path.'):format(
    table.concat(nf.searched, ', '), M.install_path(host))
end

-- The daemon's command line (`binary lsp` + `args`, or `cmd` as it is), the found binary;
-- or nil and the message of M.not_found_message.
function M.command(opts, host)
  host = host or M.host()
  local found, nf = M.find(opts, host)
  if not found then
    return nil, M.not_found_message(nf, host)
  end
  if found.how == 'cmd' then
    return vim.deepcopy(opts.cmd), found
  end
  local cmd = { found.path, 'lsp' }
  for _, a in ipairs(opts.args or {}) do
    table.insert(cmd, a)
  end
  return cmd, found
end

return M
