-- Commands of the wafer plugin. Nothing starts until `require('wafer').setup()` is called.
if vim.g.loaded_wafer then
  return
end
vim.g.loaded_wafer = true

vim.api.nvim_create_user_command('WaferStatus', function()
  for _, line in ipairs(require('wafer').status_lines()) do
    vim.api.nvim_echo({ { line } }, true, {})
  end
end, { desc = 'wafer: daemon, model and latency status' })

vim.api.nvim_create_user_command('WaferRestart', function()
  require('wafer').restart()
end, { desc = 'wafer: restart the daemon' })
