--- surehand for Neovim: `require('surehand').setup{}` and the statusline
--- component `require('surehand').status()`. See `:help surehand`.
local M = {}

--- Set the options, configure the `surehand` language server and (unless
--- `enable = false`) start it in every buffer of a project.
function M.setup(opts)
  local config = require('surehand.config')
  config.setup(opts)
  vim.lsp.config('surehand', require('surehand.server').config())
  if config.options.enable then
    vim.lsp.enable('surehand')
  end
end

--- The statusline component: what surehand does now ('' when nothing).
function M.status()
  return require('surehand.status').text()
end

return M
