-- :WaferPull with the real `wafer pull` and the real daemon (WAFER_TEST_CMD: `wafer lsp`
-- serving its bundled model), against a loopback HTTP server (pull_server.py) that serves
-- copies of the bundled model: $WAFER_CATALOG names a test catalogue whose model and the
-- draft model paired with it live there; $XDG_CACHE_HOME is run.sh's temporary folder. A wrong checksum is refused with
-- nothing installed and completion goes on; a transfer that breaks off fails with pull's
-- message, the next :WaferPull resumes it with a Range request, and the daemon switches to
-- the downloaded model without a restart.
local h = require('helpers')
local client = require('wafer.client')
local pull = require('wafer.pull')

local here = debug.getinfo(1, 'S').source:sub(2):match('(.*/)')
local daemon = vim.fn.json_decode(os.getenv('WAFER_TEST_CMD'))
-- The model the server hands out: the bundled one (it loads quickly on one thread).
local model = vim.fn.fnamemodify(here .. '../../../models/wafer-tiny-code-q8_0.gguf', ':p')
local size = vim.fn.getfsize(model)
local digest = vim.trim(vim.fn.system({ 'python3', '-c',
  'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())', model }))
local control = vim.fn.tempname()
vim.fn.mkdir(control, 'p')
local catalogue = control .. '/catalogue.txt'
-- Set before the daemon starts: it and `wafer pull` read the file each time they need it.
vim.env.WAFER_CATALOG = catalogue
local cache = vim.env.XDG_CACHE_HOME .. '/wafer/models'
local port

local function write_catalogue(sha)
  vim.fn.writefile({
    '# the test catalogue',
    ('loop-draft %d %s http://127.0.0.1:%d/draft.gguf loop-draft.gguf | MIT | drafts'):format(size, sha, port),
    ('loop-coder %d %s http://127.0.0.1:%d/model.gguf loop-coder.gguf draft=loop-draft | MIT | served by pull_server.py'):format(size, sha, port),
  }, catalogue)
end

local function stats_model()
  local stats = client.request_sync('wafer/stats', vim.empty_dict(), 2000)
  return stats and stats.model
end

local function requests()
  local path = control .. '/requests'
  return vim.fn.filereadable(path) == 1 and vim.fn.readfile(path) or {}
end

-- Runs `:WaferPull ARGS` and waits for its outcome; returns the notifications shown and
-- the progress echoed.
local function wafer_pull(args)
  local shown, echoed = {}, {}
  local orig_notify, orig_echo = vim.notify, vim.api.nvim_echo
  vim.notify = function(msg, level)
    table.insert(shown, { msg = msg, level = level })
  end
  vim.api.nvim_echo = function(chunks, ...)
    table.insert(echoed, chunks[1][1])
    return orig_echo(chunks, ...)
  end
  local ok, err = pcall(function()
    vim.cmd('WaferPull ' .. args)
    h.ok(pull.job, 'the download runs')
    h.wait_for(function()
      return pull.job == nil
    end, 60000, 'wafer pull to finish')
  end)
  vim.notify, vim.api.nvim_echo = orig_notify, orig_echo
  assert(ok, err)
  return shown, echoed
end

local function errors(shown)
  return vim.tbl_filter(function(m)
    return m.level == vim.log.levels.ERROR
  end, shown)
end

return {
  { 'the daemon serves its bundled model and suggests the test catalogue\'s model', function()
    h.eq('lsp', daemon[2], 'the real daemon runs: ' .. vim.inspect(daemon))
    require('wafer.config').options.binary = daemon[1] -- :WaferPull runs this wafer
    h.ok(size > 100000 and #digest == 64, model)
    local job = vim.fn.jobstart({ 'python3', here .. 'pull_server.py', model, control }, {
      on_stdout = function(_, data)
        port = port or tonumber(data[1])
      end,
    })
    h.ok(job > 0, 'the loopback server starts')
    h.wait_for(function()
      return port
    end, 10000, 'the loopback server\'s port')
    write_catalogue(digest)
    h.new_buffer('python', { 'import os', '', '' }) -- starts the daemon
    local m = h.wait_for(function()
      local m = stats_model()
      return m and m.source and m
    end, 60000, 'the model to load')
    h.eq('bundled', m.source)
    -- The first model that drafts for no other, with its draft.
    h.eq({ name = 'loop-coder', bytes = size, draft = { name = 'loop-draft', bytes = size } }, m.suggested)
    h.eq('loop-coder', pull.suggested({ model = m }).name)
    h.eq('loop-draft', pull.suggested({ model = m }).draft.name)
  end },

  { 'a wrong sha256 is refused: a clear error, nothing in the cache, completion goes on', function()
    write_catalogue(string.rep('0', 64))
    local shown = wafer_pull('loop-coder')
    local e = errors(shown)
    h.eq(1, #e, vim.inspect(shown))
    h.ok(e[1].msg:find('could not download loop%-coder: loop%-coder%.gguf: sha256 mismatch: got ' .. digest), e[1].msg)
    h.ok(e[1].msg:find('the download was deleted. Completions go on with the bundled model', 1, true), e[1].msg)
    h.eq({}, vim.fn.glob(cache .. '/*', true, true), 'nothing installed')
    h.eq('bundled', stats_model().source)
    vim.api.nvim_win_set_cursor(0, { 3, 0 })
    h.ok(h.type_until_ghost('def add(', 30000), 'a suggestion from the bundled model')
    h.type('<Esc>')
  end },

  { 'a transfer that breaks off fails; :WaferPull again resumes it, pulls the draft, and the daemon switches', function()
    write_catalogue(digest)
    vim.fn.writefile({}, control .. '/requests')
    vim.fn.writefile({}, control .. '/broken')
    local id = client.id
    local shown = wafer_pull('')  -- the suggested model
    local e = errors(shown)
    h.eq(1, #e, vim.inspect(shown))
    h.ok(e[1].msg:find('could not download loop-coder: ', 1, true), e[1].msg)
    h.ok(e[1].msg:find('(run again to resume)', 1, true), e[1].msg)
    h.eq(math.floor(size / 2), vim.fn.getfsize(cache .. '/loop-coder.gguf.part'), 'half the file kept')
    h.eq(-1, vim.fn.getfsize(cache .. '/loop-coder.gguf'))
    h.eq('bundled', stats_model().source)

    vim.fn.delete(control .. '/broken')
    vim.fn.writefile({}, control .. '/requests')
    local echoed
    shown, echoed = wafer_pull('')
    h.eq({}, errors(shown), vim.inspect(shown))
    h.ok(vim.tbl_filter(function(m)
      return m.msg:find('downloaded loop-coder and its draft model loop-draft; completions switch to them now', 1, true)
    end, shown)[1], vim.inspect(shown))
    h.eq({ ('GET /model.gguf range=%d-'):format(math.floor(size / 2)), 'GET /draft.gguf' }, requests(),
      'the model resumed, then the draft')
    h.ok(vim.tbl_contains(echoed, 'wafer: downloading loop-coder 100%'), vim.inspect(echoed))
    h.eq('wafer: downloading loop-draft 100%', echoed[#echoed], vim.inspect(echoed))
    h.eq(size, vim.fn.getfsize(cache .. '/loop-coder.gguf'))
    h.eq(size, vim.fn.getfsize(cache .. '/loop-draft.gguf'))
    h.eq(-1, vim.fn.getfsize(cache .. '/loop-coder.gguf.part'))

    local m = h.wait_for(function()
      local m = stats_model()
      return m and m.source == 'cache' and m
    end, 60000, 'the daemon to switch to the downloaded model')
    h.eq(cache .. '/loop-coder.gguf', m.path)
    h.eq(nil, m.suggested)
    h.ok(type(m.draft) == 'string' and m.draft ~= '', 'the draft model drafts for it: ' .. vim.inspect(m))
    h.eq(id, client.id, 'the same daemon (no restart)')
    h.new_buffer('python', { 'import os', '', '' })
    vim.api.nvim_win_set_cursor(0, { 3, 0 })
    h.ok(h.type_until_ghost('def sub(', 30000), 'a suggestion from the downloaded model')
    h.type('<Esc>')
  end },

  { 'the model serves without its draft: the daemon names the draft; :WaferPull gets it and the daemon drafts', function()
    vim.fn.delete(cache .. '/loop-draft.gguf')
    client.notify('wafer/modelsChanged', vim.empty_dict())
    local m = h.wait_for(function()
      local m = stats_model()
      return m and m.source == 'cache' and m.draft == nil and m
    end, 60000, 'the daemon to serve loop-coder alone')
    h.eq({ name = 'loop-draft', bytes = size, ['for'] = 'loop-coder' }, m.suggested_draft)
    vim.fn.writefile({}, control .. '/requests')
    local shown = wafer_pull('')
    h.eq({}, errors(shown), vim.inspect(shown))
    h.ok(vim.tbl_filter(function(n)
      return n.msg:find('downloaded loop-draft; it drafts for loop-coder from now on', 1, true)
    end, shown)[1], vim.inspect(shown))
    h.eq({ 'GET /draft.gguf' }, requests(), 'the draft alone')
    m = h.wait_for(function()
      local m = stats_model()
      return m and type(m.draft) == 'string' and m
    end, 60000, 'the daemon to draft with it')
    h.eq(cache .. '/loop-coder.gguf', m.path)
    h.eq(nil, m.suggested_draft)
  end },
}
