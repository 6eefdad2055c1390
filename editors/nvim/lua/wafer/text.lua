-- wafer.text: pure string helpers for suggestions — UTF-16 <-> byte columns (LSP positions
-- are UTF-16 by default), turning an InlineCompletionItem into "ghost text after the
-- cursor", and the word/line pieces that partial accepts take. No editor state here, so
-- everything can be tested without a daemon.
local M = {}

-- Number of UTF-16 code units in the UTF-8 string `s`.
function M.utf16_len(s)
  local n, i, len = 0, 1, #s
  while i <= len do
    local b = s:byte(i)
    if b < 0x80 then
      i = i + 1
      n = n + 1
    elseif b < 0xE0 then
      i = i + 2
      n = n + 1
    elseif b < 0xF0 then
      i = i + 3
      n = n + 1
    else
      i = i + 4
      n = n + 2 -- outside the BMP: a surrogate pair
    end
  end
  return n
end

-- Byte offset (0-based) in `line` of the UTF-16 column `u16` (clamped to the line; a column
-- inside a surrogate pair or past the end lands on the next character boundary).
function M.byte_col(line, u16)
  local n, i, len = 0, 1, #line
  while i <= len and n < u16 do
    local b = line:byte(i)
    if b < 0x80 then
      i, n = i + 1, n + 1
    elseif b < 0xE0 then
      i, n = i + 2, n + 1
    elseif b < 0xF0 then
      i, n = i + 3, n + 1
    else
      i, n = i + 4, n + 2
    end
  end
  return math.min(i - 1, len)
end

-- UTF-16 column of the byte offset `col` (0-based) in `line`.
function M.utf16_col(line, col)
  return M.utf16_len(line:sub(1, col))
end

-- The insertText of an item as a plain string (it may be a StringValue snippet).
function M.insert_text(item)
  local t = item.insertText
  if type(t) == 'table' then
    t = t.value or ''
  end
  return t or ''
end

-- Splits `s` on "\n" (keeping empty pieces), as nvim_buf_set_text wants it.
function M.lines(s)
  local out = {}
  for piece in (s .. '\n'):gmatch('(.-)\n') do
    table.insert(out, piece)
  end
  return out
end

-- Turns an InlineCompletionItem into a suggestion relative to the cursor.
--   line: the cursor's line; col: cursor byte column (0-based); row: cursor row (0-based).
-- Returns nil when the item does not apply there (its range is on another line, or its
-- text does not start with what is already typed in the range). Otherwise a table:
--   ghost     text to show after the cursor (may hold newlines)
--   replace   bytes after the cursor that accepting the whole suggestion replaces
--   skip      bytes of insertText that were already in the buffer (range start..cursor)
--   text      the full insertText
function M.from_item(item, line, row, col)
  local text = M.insert_text(item)
  local s_col, e_col = col, col
  if item.range then
    local r = item.range
    if r.start.line ~= row or r['end'].line ~= row then
      return nil
    end
    s_col = M.byte_col(line, r.start.character)
    e_col = M.byte_col(line, r['end'].character)
  end
  if s_col > col then
    return nil
  end
  local typed = line:sub(s_col + 1, col)
  if text:sub(1, #typed) ~= typed then
    return nil
  end
  local ghost = text:sub(#typed + 1)
  if ghost == '' then
    return nil
  end
  return { ghost = ghost, replace = math.max(e_col - col, 0), skip = #typed, text = text }
end

-- The next word of `ghost` for accept-word: leading blanks plus a run of word characters,
-- or else plus a run of punctuation, or else the blanks alone.
function M.next_word(ghost)
  return ghost:match('^%s*[%w_]+') or ghost:match('^%s*[^%w_%s]+') or ghost:match('^%s+') or ghost
end

-- The next line of `ghost` for accept-line: up to the first line break (not included);
-- when the ghost starts with a line break, that break plus the following line.
function M.next_line(ghost)
  if ghost:sub(1, 1) == '\n' then
    local rest = ghost:sub(2)
    local nl = rest:find('\n', 1, true)
    return '\n' .. (nl and rest:sub(1, nl - 1) or rest)
  end
  local nl = ghost:find('\n', 1, true)
  return nl and ghost:sub(1, nl - 1) or ghost
end

return M
