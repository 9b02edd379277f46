-- surehand: commands, highlights and progress. The server starts from
-- `require('surehand').setup{}` or `vim.lsp.enable('surehand')`.
if vim.fn.has('nvim-0.11') == 0 then
  return
end
require('surehand').load()
