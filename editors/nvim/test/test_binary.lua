-- Unit tests for wafer.binary (which binary the plugin runs) on a faked Linux, macOS and
-- Windows, and :checkhealth wafer's report of it on this machine. No daemon needed.
local h = require('helpers')
local binary = require('wafer.binary')

-- A fake OS: `files` are the executable files that exist (Windows compares paths and
-- environment variable names without case, as it does).
local function fake(os, files, env)
  local win = os == 'win32'
  local function key(s)
    return win and s:lower() or s
  end
  local set = {}
  for _, f in ipairs(files) do
    set[key(f)] = true
  end
  local vars = {}
  for k, v in pairs(env or {}) do
    vars[win and k:upper() or k] = v
  end
  local home = ({ linux = '/home/ann', darwin = '/Users/ann', win32 = 'C:\\Users\\Ann Lee' })[os]
  local plugin = win and (home .. '\\AppData\\Local\\nvim-data\\lazy\\wafer\\editors\\nvim')
    or (home .. '/.local/share/nvim/lazy/wafer/editors/nvim')
  return {
    os = os,
    arch = os == 'darwin' and 'arm64' or 'x64',
    home = home,
    plugin_dir = plugin,
    getenv = function(name)
      return vars[win and name:upper() or name]
    end,
    is_executable = function(p)
      return set[key(p)] == true
    end,
  }
end

local function same(want, got, what)
  h.eq(vim.inspect(want), vim.inspect(got), what)
end

local cases = {}
local function case(name, fn)
  table.insert(cases, { name, fn })
end

for _, os in ipairs({ 'linux', 'darwin' }) do
  local home = os == 'linux' and '/home/ann' or '/Users/ann'
  local checkout = home .. '/.local/share/nvim/lazy/wafer'
  local own = ('%s/editors/nvim/bin/%s-%s/wafer'):format(checkout, os, os == 'darwin' and 'arm64' or 'x64')
  local built = checkout .. '/build-release/install/bin/wafer'
  local installed = home .. '/.local/bin/wafer'
  local env = { PATH = '/usr/local/bin::/usr/bin', TOOLS = home .. '/tools' }

  case(os .. ': the binary option first, expanded', function()
    local host = fake(os, { home .. '/tools/wafer', own, '/usr/bin/wafer', installed }, env)
    same({ path = home .. '/tools/wafer', how = 'setting' }, binary.find({ binary = '~/tools/wafer' }, host), '~')
    same({ path = home .. '/tools/wafer', how = 'setting' }, binary.find({ binary = '$TOOLS/wafer' }, host), '$VAR')
    same({ path = home .. '/tools/wafer', how = 'setting' }, binary.find({ binary = '${env:TOOLS}/wafer' }, host), '${env:VAR}')
    same({ path = '/usr/bin/wafer', how = 'setting' }, binary.find({ binary = 'wafer' }, host), 'a name on PATH')
    same({ path = 'python3', how = 'cmd' }, binary.find({ cmd = { 'python3', 'x.py' }, binary = '~/tools/wafer' }, host), 'cmd wins')
  end)

  case(os .. ': a binary option that leads nowhere is reported, not replaced', function()
    local host = fake(os, { own, '/usr/bin/wafer' }, env)
    local found, nf = binary.find({ binary = '/nope/wafer' }, host)
    h.eq(nil, found, 'not found')
    same({ setting = '/nope/wafer', searched = { '/nope/wafer' } }, nf, 'what was searched')
    local cmd, msg = binary.command({ binary = '/nope/wafer' }, host)
    h.eq(nil, cmd, 'no command')
    h.ok(msg:find('`binary` is "/nope/wafer"', 1, true), msg)
  end)

  case(os .. ': then the plugin\'s own bin/<os>-<arch>/, then the checkout\'s build', function()
    same({ path = own, how = 'plugin' }, binary.find({}, fake(os, { own, built, '/usr/bin/wafer' }, env)), 'bin/')
    same({ path = built, how = 'beside' }, binary.find({}, fake(os, { built, '/usr/bin/wafer' }, env)), 'build-release')
  end)

  case(os .. ': then PATH in order, then ~/.local/bin', function()
    local host = fake(os, { '/usr/bin/wafer', installed }, env)
    same({ path = '/usr/bin/wafer', how = 'PATH' }, binary.find({}, host), 'PATH')
    same({ '/usr/local/bin', '/usr/bin' }, binary.path_folders(host), 'empty entries skipped')
    same({ path = installed, how = 'install' }, binary.find({}, fake(os, { installed }, env)), 'install folder')
    local cmd = binary.command({ args = { '--threads', '2' } }, host)
    same({ '/usr/bin/wafer', 'lsp', '--threads', '2' }, cmd, 'the command')
  end)

  case(os .. ': says what it searched and how to fix it', function()
    local found, nf = binary.find({}, fake(os, {}, env))
    h.eq(nil, found, 'not found')
    same({ own, built, home .. '/.local/share/nvim/lazy/bin/wafer', 'wafer on PATH', installed }, nf.searched, 'searched')
    local msg = binary.not_found_message(nf, fake(os, {}, env))
    h.ok(msg:find('Install wafer into ' .. installed, 1, true), msg)
    h.ok(msg:find('set `binary`', 1, true), msg)
  end)
end

local W = 'C:\\Users\\Ann Lee'
local wplugin = W .. '\\AppData\\Local\\nvim-data\\lazy\\wafer\\editors\\nvim'
local wown = wplugin .. '\\bin\\win32-x64\\wafer.exe'
local winstalled = W .. '\\AppData\\Local\\Programs\\wafer\\bin\\wafer.exe'
local wenv = {
  Path = 'C:\\Windows\\system32;"C:\\Program Files\\wafer\\bin";;C:\\tools',
  PATHEXT = '.COM;.EXE;.BAT;.CMD',
  LOCALAPPDATA = W .. '\\AppData\\Local',
  WAFER_HOME = 'D:\\wafer build',
}

case('win32: the binary option with %VAR%, ~, forward slashes, no .exe, quotes', function()
  local host = fake('win32', { 'D:\\wafer build\\bin\\wafer.exe', winstalled }, wenv)
  local want = { path = 'D:\\wafer build\\bin\\wafer.exe', how = 'setting' }
  same(want, binary.find({ binary = '%WAFER_HOME%\\bin\\wafer.exe' }, host), '%VAR%')
  same(want, binary.find({ binary = '${env:wafer_home}/bin/wafer.exe' }, host), '${env:VAR}, any case')
  same(want, binary.find({ binary = 'D:/wafer build/bin/wafer' }, host), 'slashes, no .exe')
  same(want, binary.find({ binary = '"D:\\wafer build\\bin\\wafer.exe"' }, host), 'quoted')
  same({ path = winstalled, how = 'setting' }, binary.find({ binary = '~\\AppData\\Local\\Programs\\wafer\\bin\\wafer.exe' }, host), '~')
  h.eq('%NOPE%\\wafer.exe', binary.expand('%NOPE%\\wafer.exe', host), 'an unset %VAR% is kept')
end)

case('win32: then the plugin\'s own bin\\win32-x64\\wafer.exe', function()
  local host = fake('win32', { wown, 'C:\\tools\\wafer.exe', winstalled }, wenv)
  same({ path = wown, how = 'plugin' }, binary.find({}, host), 'own')
end)

case('win32: then PATH (Path, quoted folders, PATHEXT), wafer.exe without PATHEXT', function()
  local host = fake('win32', { 'C:\\Program Files\\wafer\\bin\\wafer.exe', 'C:\\tools\\wafer.exe', winstalled }, wenv)
  same({ path = 'C:\\Program Files\\wafer\\bin\\wafer.exe', how = 'PATH' }, binary.find({}, host), 'PATH')
  same({ 'C:\\Windows\\system32', 'C:\\Program Files\\wafer\\bin', 'C:\\tools' }, binary.path_folders(host), 'folders')
  local bare = fake('win32', { 'C:\\tools\\wafer.exe' }, { PATH = 'C:\\tools' })
  same({ path = 'C:\\tools\\wafer.exe', how = 'PATH' }, binary.find({}, bare), 'no PATHEXT')
  local cmdfile = fake('win32', { 'C:\\tools\\wafer.cmd' }, wenv)
  same({ path = 'C:\\tools\\wafer.cmd', how = 'PATH' }, binary.find({}, cmdfile), 'PATHEXT')
  same({ 'C:\\Program Files\\wafer\\bin\\wafer.exe', 'lsp' }, binary.command({}, host), 'the command keeps the spaces')
end)

case('win32: then %LOCALAPPDATA%\\Programs\\wafer\\bin\\wafer.exe', function()
  same({ path = winstalled, how = 'install' }, binary.find({}, fake('win32', { winstalled }, wenv)), 'LOCALAPPDATA')
  local nolocal = fake('win32', { winstalled }, { Path = 'C:\\tools' })
  same({ path = winstalled, how = 'install' }, binary.find({}, nolocal), 'from the home folder')
  local found, nf = binary.find({}, fake('win32', {}, wenv))
  h.eq(nil, found, 'not found')
  h.eq(wown, nf.searched[1], 'searched the own binary first')
  h.eq(winstalled, nf.searched[#nf.searched], 'and the install folder last')
  local _, miss = binary.find({ binary = 'C:\\wafer\\wafer' }, fake('win32', {}, wenv))
  h.ok(vim.tbl_contains(miss.searched, 'C:\\wafer\\wafer.exe'), vim.inspect(miss.searched))
end)

case('file URIs of Windows paths', function()
  h.eq('file:///C:/Users/Ann%20Lee/a.py', vim.uri_from_fname('C:\\Users\\Ann Lee\\a.py'), 'to a URI')
end)

-- :checkhealth wafer on this machine, with a stand-in binary and then a missing one.
local function health()
  vim.cmd('checkhealth wafer')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  vim.cmd('bwipeout!')
  return text
end

case(':checkhealth wafer names the binary, how it was found, its version and Neovim', function()
  local config = require('wafer.config')
  local saved = config.options
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local bin = dir .. '/wafer'
  vim.fn.writefile({ '#!/bin/sh', 'if [ "$1" = --version ]; then echo "wafer 9.9.9"; exit 0; fi',
    'echo "no model here" >&2; exit 1' }, bin)
  vim.fn.setfperm(bin, 'rwx------')
  local ok, err = pcall(function()
    config.setup({ binary = bin })
    local text = health()
    h.ok(text:find('binary: ' .. bin .. ' (the `binary` option)', 1, true), text)
    h.ok(text:find('version: wafer 9.9.9', 1, true), text)
    h.ok(text:find('Neovim %d+%.%d+%.%d+'), text)
    h.ok(text:find('model: no model here', 1, true), text)

    config.setup({ binary = dir .. '/missing' })
    text = health()
    h.ok(text:find('there is no program there', 1, true), text)
    h.ok(text:find('set `binary` in setup()', 1, true), text)
    h.ok(text:find('model and daemon: not checked without a binary', 1, true), text)
  end)
  config.options = saved
  vim.fn.delete(dir, 'rf')
  assert(ok, err)
end)

return cases
