-- wafer.keymaps: buffer-local insert-mode keys for the suggestion actions. A key whose
-- action has nothing to act on (no suggestion shown) does what it does without the plugin,
-- so <Tab> still indents when there is no ghost text.
local M = {}

local function fallback(lhs)
  local keys = vim.api.nvim_replace_termcodes(lhs, true, false, true)
  vim.api.nvim_feedkeys(keys, 'n', false) -- 'n': no remapping, so this mapping is not re-entered
end

-- Maps `keys` ({ action = lhs | false }) in `buf`; `actions[action]()` returns true when it
-- handled the key.
function M.attach(buf, keys, actions)
  for action, lhs in pairs(keys or {}) do
    local fn = actions[action]
    if lhs and fn then
      vim.keymap.set('i', lhs, function()
        if not fn() then
          fallback(lhs)
        end
      end, { buffer = buf, silent = true, desc = 'wafer: ' .. action })
    end
  end
end

function M.detach(buf, keys)
  for _, lhs in pairs(keys or {}) do
    if lhs then
      pcall(vim.keymap.del, 'i', lhs, { buffer = buf })
    end
  end
end

return M
