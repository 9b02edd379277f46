-- surehand for Neovim 0.11+: the language server, and `:Surehand <task>`.
--
-- Put this in your init.lua (or a file it sources). Before it, you may set
--   vim.g.surehand_cmd      the server command (default: { 'surehand', 'serve' })
--   vim.g.surehand_settings the `surehand` settings (camelCase, see the README)
--
-- `:Surehand fix the date parsing` asks about the current file;
-- `:'<,'>Surehand make this faster` also sends the selected lines.
-- surehand asks before it changes a buffer: Apply / Show diff / Discard.
-- The changes land in your buffers, unsaved; `:w` keeps them, `u` undoes them.
-- When the task ends, the outcome is shown, and the `User SurehandDone`
-- autocommand runs with the command's result as its `data`.

local settings = vim.g.surehand_settings
  or {
    -- model = 'qwen2.5-coder-32b-instruct',
    -- baseUrl = 'http://localhost:8000/v1',
    -- apiKeyEnv = 'OPENAI_API_KEY',
  }

vim.lsp.config('surehand', {
  cmd = vim.g.surehand_cmd or { 'surehand', 'serve' },
  root_markers = { '.git', 'pyproject.toml' },
  -- No root, no server: keeps a `Show diff` file in /tmp from starting one.
  workspace_required = true,
  settings = { surehand = settings },
  init_options = settings,
})
vim.lsp.enable('surehand')

vim.api.nvim_create_user_command('Surehand', function(command)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'surehand' })[1]
  if not client then
    vim.notify('surehand is not attached to this buffer', vim.log.levels.WARN)
    return
  end
  local argument = { task = command.args, uri = vim.uri_from_bufnr(bufnr) }
  if command.range > 0 then -- whole lines: from the start of line1 to the start of line2 + 1
    argument.range = {
      start = { line = command.line1 - 1, character = 0 },
      ['end'] = { line = command.line2, character = 0 },
    }
  end
  vim.notify('surehand: working on it…')
  client:exec_cmd(
    { title = 'surehand', command = 'surehand.ask', arguments = { argument } },
    { bufnr = bufnr },
    function(err, result)
      if err then
        vim.notify('surehand: ' .. err.message, vim.log.levels.ERROR)
        result = { outcome = 'error', summary = err.message }
      else
        local level = result.outcome == 'error' and vim.log.levels.ERROR or vim.log.levels.INFO
        vim.notify(('surehand: %s. %s'):format(result.outcome, result.summary or ''), level)
      end
      vim.api.nvim_exec_autocmds('User', { pattern = 'SurehandDone', data = result })
    end
  )
end, { nargs = '+', range = true, desc = 'Ask surehand to do a task in this file' })
