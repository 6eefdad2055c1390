-- Headless test runner for the Neovim plugin.
--
--   WAFER_TEST_CMD='["python3", "fake_lsp.py"]' WAFER_TEST_FILES='test_ghost.lua' \
--   nvim --headless --clean -u NONE --cmd 'set rtp^=editors/nvim' \
--        -c 'luafile editors/nvim/test/run.lua'
--
-- WAFER_TEST_CMD: the daemon command (a JSON list); WAFER_TEST_FILES: space-separated test
-- files in this folder (each returns a list of { name, fn }); WAFER_TEST_FILTER: run only
-- tests whose name contains it; WAFER_TEST_TIMEOUT: seconds per test (default 30).
-- Prints one line per test and "N passed, N failed"; exits 0 when all passed, 1 otherwise.
local dir = debug.getinfo(1, 'S').source:sub(2):match('(.*/)') or './'
package.path = dir .. '?.lua;' .. package.path

local h = require('helpers')

local function out(s)
  io.stdout:write(s .. '\n')
  io.stdout:flush()
end

-- No remote-plugin providers: their detection (e.g. `has('python3')` in the python ftplugin)
-- runs external programs synchronously and can stall a loaded machine for many seconds.
for _, p in ipairs({ 'python3', 'python', 'ruby', 'node', 'perl' }) do
  vim.g['loaded_' .. p .. '_provider'] = 0
end
vim.o.columns = 100
vim.o.lines = 30
vim.o.swapfile = false
vim.o.showmode = false
vim.cmd('runtime plugin/wafer.lua')
vim.o.shortmess = vim.o.shortmess .. 'I'

local cmd = os.getenv('WAFER_TEST_CMD')
local wafer = require('wafer')
wafer.setup({
  cmd = cmd and vim.fn.json_decode(cmd) or nil,
  debounce_ms = 10,
})

local cases = {}
for file in (os.getenv('WAFER_TEST_FILES') or ''):gmatch('%S+') do
  local list = dofile(dir .. file)
  for _, case in ipairs(list) do
    table.insert(cases, { name = file:gsub('%.lua$', '') .. ': ' .. case[1], fn = case[2] })
  end
end
local filter = os.getenv('WAFER_TEST_FILTER')
local timeout_ms = (tonumber(os.getenv('WAFER_TEST_TIMEOUT') or '') or 30) * 1000

local passed, failed, index = 0, 0, 0
local current_id = 0
local run_next

local function finish(id, err)
  if id ~= current_id then
    return -- a test that timed out reporting late
  end
  current_id = current_id + 1
  if err then
    failed = failed + 1
    out('FAIL ' .. cases[index].name .. '\n     ' .. tostring(err):gsub('\n', '\n     '))
  else
    passed = passed + 1
    out('ok   ' .. cases[index].name)
  end
  vim.schedule(run_next)
end

run_next = function()
  index = index + 1
  local case = cases[index]
  if not case then
    out(('%d passed, %d failed'):format(passed, failed))
    pcall(require('wafer.client').stop)
    vim.cmd(failed == 0 and passed > 0 and 'qa!' or 'cq')
    return
  end
  if filter and not case.name:find(filter, 1, true) then
    index = index -- skipped
    return run_next()
  end
  local id = current_id
  h.on_error = function(err)
    finish(id, debug.traceback(h.co, err))
  end
  h.co = coroutine.create(function()
    local ok, err = xpcall(case.fn, debug.traceback)
    finish(id, not ok and err or nil)
  end)
  vim.defer_fn(function()
    finish(id, ('timed out after %d ms'):format(timeout_ms))
  end, timeout_ms)
  local ok, err = coroutine.resume(h.co)
  if not ok then
    finish(id, err)
  end
end

vim.schedule(run_next)
