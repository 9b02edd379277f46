--- surehand for Neovim: `require('surehand').setup{}` and the statusline
--- component `require('surehand').status()`. See `:help surehand`.
local M = {}

--- Set the options, configure the `surehand` language server and (unless
--- `enable = false`) start it in every buffer of a project.
function M.setup(opts)
  M.load()
  local config = require('surehand.config')
  config.setup(opts)
  local server = require('surehand.server')
  vim.lsp.config('surehand', server.config())
  -- A missing server is said once, in one line, with what to do (Neovim's
  -- own message is longer than a line and would stop at "Press ENTER"); the
  -- server starts in no buffer until it is found (after :SurehandInstall).
  if config.options.enable then
    require('surehand.launch').missing()
    vim.lsp.enable('surehand')
  end
end

--- Commands, highlights and the progress autocommand (once; plugin/surehand.lua calls it).
function M.load()
  if vim.g.loaded_surehand then
    return
  end
  vim.g.loaded_surehand = true
  require('surehand.commands').define()
  require('surehand.render').define_highlights()
  require('surehand.say').quiet_core()
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
end

--- The statusline component: what surehand does now ('' when nothing).
function M.status()
  return require('surehand.status').text()
end

return M
