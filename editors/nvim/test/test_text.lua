-- Unit tests for wafer.text (no daemon needed).
local h = require('helpers')
local text = require('wafer.text')

return {
  { 'utf16 lengths and columns', function()
    h.eq(5, text.utf16_len('hello'), 'ascii')
    h.eq(1, text.utf16_len('é'), 'two-byte char')
    h.eq(1, text.utf16_len('中'), 'CJK')
    h.eq(2, text.utf16_len('😀'), 'emoji is a surrogate pair')
    local line = 'a😀b中c'
    h.eq(0, text.byte_col(line, 0), 'col 0')
    h.eq(1, text.byte_col(line, 1), 'before emoji')
    h.eq(5, text.byte_col(line, 3), 'after emoji')
    h.eq(6, text.byte_col(line, 4), 'after b')
    h.eq(#line, text.byte_col(line, 99), 'clamped')
    h.eq(4, text.utf16_col(line, 6), 'back to utf16')
  end },

  { 'from_item: insertion at the cursor', function()
    local s = text.from_item({ insertText = 'a, b):' }, 'def add(', 0, 8)
    h.eq('a, b):', s.ghost, 'ghost')
    h.eq(0, s.replace, 'replace')
    h.eq(0, s.skip, 'skip')
  end },

  { 'from_item: range from line start and past the cursor', function()
    local item = {
      insertText = 'print(x)',
      range = { start = { line = 3, character = 0 }, ['end'] = { line = 3, character = 7 } },
    }
    local s = text.from_item(item, 'print()', 3, 6)
    h.eq('x)', s.ghost, 'ghost after what is typed')
    h.eq(1, s.replace, 'replaces the closing paren')
    h.eq(6, s.skip, 'typed part')
  end },

  { 'from_item: items that do not apply', function()
    local other_line = { insertText = 'x', range = { start = { line = 1, character = 0 }, ['end'] = { line = 1, character = 0 } } }
    h.eq(nil, text.from_item(other_line, 'abc', 0, 3), 'other line')
    local mismatch = { insertText = 'zzz', range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 3 } } }
    h.eq(nil, text.from_item(mismatch, 'abc', 0, 3), 'typed text disagrees')
    h.eq(nil, text.from_item({ insertText = '' }, 'abc', 0, 3), 'empty')
    h.eq('v', text.from_item({ insertText = { kind = 'snippet', value = 'v' } }, '', 0, 0).ghost, 'StringValue')
  end },

  { 'next_word and next_line', function()
    h.eq('a', text.next_word('a, b):'), 'word')
    h.eq(',', text.next_word(', b):'), 'punctuation run')
    h.eq(' b', text.next_word(' b):'), 'blank + word')
    h.eq('):', text.next_word('):\n  x'), 'punctuation stops at newline')
    h.eq('\n    return', text.next_word('\n    return a'), 'newline counts as blank')
    h.eq('a, b):', text.next_line('a, b):\n    return a + b'), 'first line')
    h.eq('\n    return a + b', text.next_line('\n    return a + b\n    x'), 'break plus next line')
    h.eq('tail', text.next_line('tail'), 'single line')
    h.eq({ 'a', '', 'b' }, text.lines('a\n\nb'), 'lines keep empty pieces')
  end },
}
