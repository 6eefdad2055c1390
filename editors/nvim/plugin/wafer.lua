-- Commands of the wafer plugin (lua/wafer/commands.lua). Nothing starts until
-- `require('wafer').setup()` is called.
if vim.g.loaded_wafer then
  return
end
vim.g.loaded_wafer = true
require('wafer.commands').define()
