-- wafer.client: the daemon through Neovim's built-in LSP client. Starts one `wafer lsp`
-- (vim.lsp.start_client, which exists from 0.5 on), attaches the buffers the plugin serves,
-- and sends inline-completion requests whose streamed partial results ($/progress with our
-- partialResultToken) are routed to the caller. Only this client's handlers are set, so
-- other language servers and the global vim.lsp.handlers are untouched.
local config = require('wafer.config')

local M = {}

M.id = nil               -- client id once started
M.error = nil            -- why the client could not start (binary missing, ...)
M.model_state = 'unknown' -- 'loading' | 'ready' | 'error' | 'unknown'
M.messages = {}          -- distinct window/showMessage texts already shown
M.log = {}               -- last window/logMessage lines (bounded)
M.binary = nil           -- the binary started and how it was found (wafer.binary.describe)
M.reported = {}          -- binary-not-found messages already shown

local partial = {}       -- partialResultToken -> function(value)
local token_seq = 0

local notify = function(msg, level)
  vim.notify((msg:find('^wafer') and '' or 'wafer: ') .. msg, level)
end

local function on_progress(err, result, ctx, cfg)
  local cb = result and partial[result.token]
  if cb then
    cb(result.value)
    return
  end
  local v = result and result.value
  if type(v) == 'table' and v.kind then
    local title = (v.title or ''):lower()
    if v.kind == 'begin' and title:find('model') then
      M.model_state = 'loading'
      M.loading_token = result.token
    elseif v.kind == 'end' and result.token == M.loading_token then
      if M.model_state == 'loading' then
        M.model_state = 'ready'
        -- The bundled model serves: say once that a better one can be pulled.
        vim.schedule(function()
          require('wafer.pull').check()
        end)
      end
    end
  end
  local default = vim.lsp.handlers['$/progress']
  if default then
    pcall(default, err, result, ctx, cfg)
  end
end

-- A daemon error (e.g. a missing model) is shown once, however often the daemon repeats it.
local function on_show_message(_, result)
  if not result or not result.message then
    return
  end
  local msg = result.message
  if result.type == 1 then
    M.model_state = (msg:lower():find('model') and 'error') or M.model_state
  end
  if M.messages[msg] then
    return
  end
  M.messages[msg] = true
  local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.INFO }
  notify(msg, levels[result.type] or vim.log.levels.INFO)
end

local function on_log_message(_, result)
  if result and result.message then
    table.insert(M.log, result.message)
    if #M.log > 200 then
      table.remove(M.log, 1)
    end
  end
end

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.textDocument = caps.textDocument or {}
  caps.textDocument.inlineCompletion = { dynamicRegistration = false }
  -- Neovim computes its own didChange positions in UTF-16 on older versions: offer only
  -- that, so the daemon and the editor always agree.
  caps.general = caps.general or {}
  caps.general.positionEncodings = { 'utf-16' }
  caps.offsetEncoding = nil
  return caps
end

-- Starts the daemon if needed. Returns the client id, or nil and an error message.
function M.start()
  if M.id and vim.lsp.get_client_by_id(M.id) then
    return M.id
  end
  local cmd, found = config.command()
  if not cmd then
    M.error = found
    M.binary = nil
    -- Once per distinct message: every buffer opened would try again.
    if not M.reported[found] then
      M.reported[found] = true
      notify(found .. ' (:checkhealth wafer)', vim.log.levels.WARN)
    end
    return nil, found
  end
  M.binary = require('wafer.binary').describe(found)
  M.error = nil
  M.messages = {}
  M.model_state = 'unknown'
  local id = vim.lsp.start_client({
    name = 'wafer',
    cmd = cmd,
    root_dir = vim.loop.cwd(),
    capabilities = capabilities(),
    init_options = config.init_options(),
    offset_encoding = 'utf-16',
    flags = { debounce_text_changes = 0, allow_incremental_sync = true },
    handlers = {
      ['$/progress'] = on_progress,
      ['window/showMessage'] = on_show_message,
      ['window/logMessage'] = on_log_message,
    },
    on_exit = function(code, signal)
      M.id = nil
      if code ~= 0 then
        M.error = ('daemon exited with code %d (signal %d)'):format(code or -1, signal or 0)
      end
    end,
  })
  if not id then
    M.error = 'vim.lsp.start_client failed for ' .. table.concat(cmd, ' ')
    return nil, M.error
  end
  M.id = id
  return id
end

function M.get()
  return M.id and vim.lsp.get_client_by_id(M.id) or nil
end

-- Attaches `buf` to the daemon (starting it); false plus a reason when it cannot.
function M.attach(buf)
  local id, why = M.start()
  if not id then
    return false, why
  end
  if not vim.lsp.buf_is_attached(buf, id) then
    vim.lsp.buf_attach_client(buf, id)
  end
  return true
end

function M.attached(buf)
  return M.id ~= nil and vim.lsp.buf_is_attached(buf, M.id)
end

-- Whether notifications about `buf` can go out: attached to a daemon that is initialized.
function M.ready(buf)
  local c = M.attached(buf) and M.get() or nil
  return c ~= nil and c.initialized == true
end

-- Sends textDocument/inlineCompletion. `on_partial(result)` gets each streamed partial
-- result, `on_done(err, result)` the final reply. Returns a handle for M.cancel or nil.
function M.inline_completion(buf, params, on_partial, on_done)
  local c = M.get()
  if not c then
    return nil
  end
  local token
  if on_partial and config.options.stream then
    token_seq = token_seq + 1
    token = ('wafer/%d'):format(token_seq)
    params.partialResultToken = token
    partial[token] = on_partial
  end
  local ok, rid = c.request('textDocument/inlineCompletion', params, function(err, result)
    if token then
      partial[token] = nil
    end
    on_done(err, result)
  end, buf)
  if not ok then
    if token then
      partial[token] = nil
    end
    return nil
  end
  return { id = rid, token = token }
end

-- Cancels a request made with M.inline_completion; its callbacks will not run.
function M.cancel(handle)
  if not handle then
    return
  end
  if handle.token then
    partial[handle.token] = nil
  end
  local c = M.get()
  if c and handle.id then
    c.cancel_request(handle.id)
  end
end

function M.notify(method, params)
  local c = M.get()
  if c then
    c.notify(method, params)
  end
end

-- Synchronous request for :WaferStatus / :checkhealth (nil on failure or timeout).
function M.request_sync(method, params, timeout_ms, buf)
  local c = M.get()
  if not c then
    return nil, 'daemon not running'
  end
  local res, err = c.request_sync(method, params or vim.empty_dict(), timeout_ms or 1000, buf or 0)
  if not res then
    return nil, err or 'timeout'
  end
  if res.err then
    return nil, res.err.message
  end
  return res.result
end

function M.stop()
  local c = M.get()
  if c then
    c.stop()
  end
  M.id = nil
end

return M
