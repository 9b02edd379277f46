-- The `surehand` language server for Neovim 0.11's `vim.lsp.config`:
-- `vim.lsp.enable('surehand')` is enough; `require('surehand').setup{}`
-- sets the options first. The handlers make the review the plugin's own.
return require('surehand.server').config()
