-- wafer.suggestion: the per-buffer suggestion state machine. Schedules (debounces) and
-- cancels inline-completion requests, keeps the current suggestion anchored at the position
-- it was requested for, keeps it while the user types through it, and performs accepts,
-- cycling and dismissal. Rendering is wafer.render's; the LSP plumbing is wafer.client's.
--
-- A suggestion is anchored at an origin (row, byte col) with the line's text before (head)
-- and after (tail) the cursor at request time. It stays valid while the cursor is on that
-- row, head and tail are unchanged and what was typed since the origin is a prefix of the
-- ghost text; everything else clears it.
local client = require('wafer.client')
local config = require('wafer.config')
local render = require('wafer.render')
local text = require('wafer.text')

local M = {}

local uv = vim.loop
local buffers = {} -- buf -> { timer, req, sug, dismissed, t0 }

M.last_latency_ms = nil -- keystroke -> first ghost text, last request that showed one
M.stats = { requests = 0, shown = 0, accepted = 0, partial = 0, dismissed = 0 }

local function st(buf)
  local s = buffers[buf]
  if not s then
    s = { timer = uv.new_timer() }
    buffers[buf] = s
  end
  return s
end

local function line_at(buf, row)
  return vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ''
end

local function cursor()
  local c = vim.api.nvim_win_get_cursor(0)
  return c[1] - 1, c[2]
end

local function in_insert()
  local m = vim.api.nvim_get_mode().mode
  return m:sub(1, 1) == 'i'
end

local function pos_key(buf, row, col, line)
  return table.concat({ buf, row, col, line }, '\0')
end

-- What was typed since the suggestion's origin, or nil when the suggestion no longer
-- applies at the cursor.
local function typed_since_origin(buf, sug)
  if vim.api.nvim_get_current_buf() ~= buf then
    return nil
  end
  local row, col = cursor()
  if row ~= sug.row or col < sug.col then
    return nil
  end
  local line = line_at(buf, row)
  if line:sub(1, sug.col) ~= sug.head or line:sub(col + 1) ~= sug.tail then
    return nil
  end
  local typed = line:sub(sug.col + 1, col)
  local it = sug.items[sug.index]
  if not it or it.ghost:sub(1, #typed) ~= typed then
    return nil
  end
  return typed
end

local function cancel_request(s)
  if s.timer then
    s.timer:stop()
  end
  if s.req then
    client.cancel(s.req)
    s.req = nil
  end
end

-- Forgets the buffer's suggestion and its ghost text (requests in flight go on).
function M.clear(buf)
  local s = buffers[buf]
  if s then
    s.sug = nil
  end
  render.clear(buf)
end

-- Cancels everything for `buf` (InsertLeave, buffer leave).
function M.reset(buf)
  local s = buffers[buf]
  if s then
    cancel_request(s)
  end
  M.clear(buf)
end

-- The ghost text still to show for the current suggestion, or nil.
function M.remaining(buf)
  local s = buffers[buf]
  local sug = s and s.sug
  if not sug then
    return nil
  end
  local typed = typed_since_origin(buf, sug)
  if not typed then
    return nil
  end
  local rest = sug.items[sug.index].ghost:sub(#typed + 1)
  return rest ~= '' and rest or nil, sug.items[sug.index]
end

-- Redraws the ghost text for `buf` from its state (hidden while the popup menu shows).
function M.refresh(buf)
  local s = buffers[buf]
  local sug = s and s.sug
  if not sug then
    render.clear(buf)
    return false
  end
  local rest, it = M.remaining(buf)
  if not rest then
    M.clear(buf)
    return false
  end
  if vim.fn.pumvisible() == 1 then
    render.clear(buf)
    return false
  end
  local row, col = cursor()
  local shown = render.show(buf, row, col, rest, it.replace, config.options.hl_group)
  if shown and not sug.shown_once then
    sug.shown_once = true
    M.stats.shown = M.stats.shown + 1
    if sug.t0 then
      M.last_latency_ms = (uv.hrtime() - sug.t0) / 1e6
    end
  end
  if shown and sug.final and not it.reported then
    it.reported = true
    client.notify('textDocument/didShowCompletion', { item = it.item })
  end
  return shown
end

local function items_of(result)
  if type(result) ~= 'table' then
    return {}
  end
  return result.items or result
end

-- A reply (partial or final) for the request started at `origin`.
local function on_result(buf, origin, handle, result, final)
  local s = buffers[buf]
  if not s or s.req ~= handle then
    return -- stale: a newer request replaced it, or it was cancelled
  end
  if final then
    s.req = nil
    local outcome = type(result) == 'table' and type(result.wafer) == 'table' and result.wafer.outcome
    if outcome == 'superseded' then
      return -- the daemon replaced it by a newer request (not a cancellation we asked for)
    end
    if outcome == 'held_back' then
      -- The confidence gate held it back after its start streamed: take that text back.
      if s.sug and s.sug.origin == origin then
        M.clear(buf)
      end
      return
    end
  end
  local line = origin.head .. origin.tail
  local list = {}
  for _, item in ipairs(items_of(result)) do
    local sug = text.from_item(item, line, origin.row, origin.col)
    if sug then
      sug.item = item
      table.insert(list, sug)
    end
  end
  local same = s.sug and s.sug.origin == origin
  if #list == 0 then
    -- After streamed partial results the final reply may be empty (LSP partial-result
    -- rule); the streamed suggestion then stands.
    if same and final then
      s.sug.final = true
      M.refresh(buf)
    end
    return
  end
  local index = same and math.min(s.sug.index, #list) or 1
  -- A request made by next/previous shows the first alternative once it arrives (streamed
  -- partial results carry only the first suggestion; the final reply has them all).
  local cycled = same and s.sug.cycled or false
  if origin.cycle and not cycled and #list > 1 then
    index, cycled = 2, true
  end
  s.sug = {
    origin = origin,
    row = origin.row,
    col = origin.col,
    head = origin.head,
    tail = origin.tail,
    items = list,
    index = index,
    t0 = origin.t0,
    final = final,
    shown_once = same and s.sug.shown_once or false,
    cycled = cycled,
  }
  M.refresh(buf)
end

-- Sends the request for the cursor's position now. `invoked`: explicit (trigger key),
-- which also bypasses a dismissal.
function M.request(buf, invoked, opts)
  opts = opts or {}
  local s = st(buf)
  cancel_request(s)
  if config.options.enabled == false or not in_insert() or vim.api.nvim_get_current_buf() ~= buf
    or not client.attached(buf) then
    return false
  end
  local row, col = cursor()
  local line = line_at(buf, row)
  if not invoked and s.dismissed == pos_key(buf, row, col, line) then
    return false
  end
  local origin = {
    row = row,
    col = col,
    head = line:sub(1, col),
    tail = line:sub(col + 1),
    t0 = opts.t0 or s.t0 or uv.hrtime(),
    cycle = opts.cycle,
  }
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = row, character = text.utf16_col(line, col) },
    context = { triggerKind = invoked and 1 or 2 },
  }
  local handle
  handle = client.inline_completion(buf, params, function(value)
    on_result(buf, origin, handle, value, false)
  end, function(err, result)
    if err then
      if s.req == handle then
        s.req = nil
      end
      return
    end
    on_result(buf, origin, handle, result, true)
  end)
  s.req = handle
  M.stats.requests = M.stats.requests + 1
  return handle ~= nil
end

-- Debounced automatic request (TextChangedI).
function M.schedule(buf)
  local s = st(buf)
  cancel_request(s)
  if not config.options.auto_trigger or config.options.enabled == false then
    return
  end
  local t0 = s.t0 or uv.hrtime()
  local row, col = cursor()
  s.scheduled_at = row .. ':' .. col
  s.timer:start(config.options.debounce_ms or 0, 0, vim.schedule_wrap(function()
    M.request(buf, false, { t0 = t0 })
  end))
end

-- Keystroke time, for the latency figure (InsertCharPre).
function M.keystroke(buf)
  st(buf).t0 = uv.hrtime()
end

-- The buffer changed in insert mode: keep a suggestion the user typed through, otherwise
-- drop it and ask again.
function M.on_change(buf)
  local s = st(buf)
  if s.sug then
    if M.remaining(buf) then
      M.refresh(buf)
      if not s.sug.final then
        -- Typed through a suggestion still streaming: the daemon drops that request
        -- (the document changed), so ask again; the partial text stays until the answer.
        M.schedule(buf)
      end
      s.t0 = nil
      return
    end
    M.clear(buf)
  end
  M.schedule(buf)
  s.t0 = nil
end

-- The cursor moved in insert mode: a suggestion (or a pending request) for another
-- position is stale.
function M.on_cursor(buf)
  local s = buffers[buf]
  if not s then
    return
  end
  if s.sug and M.remaining(buf) then
    return -- typed through, or an accept moved the cursor along the suggestion
  end
  M.clear(buf)
  local row, col = cursor()
  if s.scheduled_at ~= row .. ':' .. col then
    M.schedule(buf) -- a suggestion for where the cursor is now
  end
end

-- Accepts all, or the next 'line' or 'word' of the suggestion. False when there is none.
function M.accept(buf, kind)
  local s = buffers[buf]
  local sug = s and s.sug
  local rest, it = M.remaining(buf)
  if not rest then
    return false
  end
  local part = rest
  if kind == 'word' then
    part = text.next_word(rest)
  elseif kind == 'line' then
    part = text.next_line(rest)
  end
  local whole = part == rest
  local row, col = cursor()
  local typed = #it.ghost - #rest
  local replace = whole and math.min(it.replace, #sug.tail) or 0
  local pieces = text.lines(part)
  vim.api.nvim_buf_set_text(buf, row, col, row, col + replace, pieces)
  local new_row = row + #pieces - 1
  local new_col = (#pieces == 1) and (col + #part) or #pieces[#pieces]
  vim.api.nvim_win_set_cursor(0, { new_row + 1, new_col })
  local accepted = it.skip + typed + #part -- bytes of insertText now in the buffer

  if whole then
    M.stats.accepted = M.stats.accepted + 1
    local cmd = it.item.command
    if cmd and cmd.command then
      client.notify('workspace/executeCommand', { command = cmd.command, arguments = cmd.arguments })
    end
    M.reset(buf)
    return true
  end
  M.stats.partial = M.stats.partial + 1
  client.notify('textDocument/didPartiallyAcceptCompletion', {
    item = it.item,
    acceptedLength = text.utf16_len(it.text:sub(1, accepted)),
  })
  if #pieces > 1 then
    -- The rest now starts on a new line: move the anchor there.
    local line = line_at(buf, new_row)
    sug.row, sug.col = new_row, new_col
    sug.head = line:sub(1, new_col)
    it.ghost = rest:sub(#part + 1)
    it.skip = accepted
    sug.items, sug.index = { it }, 1
  end
  M.refresh(buf)
  return true
end

-- Cycles to the next (+1) or previous (-1) alternative; with a single suggestion, asks the
-- daemon for alternatives at the cursor (an explicitly invoked request; after typing
-- through a suggestion, for where the cursor is now).
function M.cycle(buf, step)
  local s = buffers[buf]
  local sug = s and s.sug
  if not sug or not M.remaining(buf) then
    return false
  end
  if #sug.items > 1 then
    sug.index = (sug.index - 1 + step) % #sug.items + 1
    if not M.remaining(buf) then
      sug.index = (sug.index - 1 + step) % #sug.items + 1
    end
    M.refresh(buf)
    return true
  end
  M.request(buf, true, { cycle = true })
  return true
end

-- Hides the suggestion; it does not come back automatically at this position.
function M.dismiss(buf)
  local s = buffers[buf]
  if not s or not (s.sug and M.remaining(buf)) then
    return false
  end
  local row, col = cursor()
  s.dismissed = pos_key(buf, row, col, line_at(buf, row))
  M.stats.dismissed = M.stats.dismissed + 1
  M.reset(buf)
  return true
end

function M.detach(buf)
  local s = buffers[buf]
  if s then
    cancel_request(s)
    if s.timer and not s.timer:is_closing() then
      s.timer:close()
    end
    buffers[buf] = nil
  end
end

-- True when a request for `buf` is in flight (for tests and :WaferStatus).
function M.pending(buf)
  local s = buffers[buf]
  return s ~= nil and s.req ~= nil
end

return M
