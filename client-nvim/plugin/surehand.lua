-- surehand: commands, highlights and progress. The server starts from
-- `require('surehand').setup{}` or `vim.lsp.enable('surehand')`.
if vim.g.loaded_surehand or vim.fn.has('nvim-0.11') == 0 then
  return
end
vim.g.loaded_surehand = true

require('surehand.commands').define()
require('surehand.render').define_highlights()

local group = vim.api.nvim_create_augroup('surehand', { clear = true })
vim.api.nvim_create_autocmd('ColorScheme', {
  group = group,
  callback = function()
    require('surehand.render').define_highlights()
  end,
})
vim.api.nvim_create_autocmd('LspProgress', {
  group = group,
  callback = function(event)
    local client = vim.lsp.get_client_by_id(event.data.client_id)
    if client and client.name == 'surehand' then
      require('surehand.status').on_progress(event.data.params.value)
    end
  end,
})
