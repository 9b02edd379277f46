-- surehand for Neovim 0.11+: the language server, `:Surehand <task>` and its review.
--
-- Put this in your init.lua (or a file it sources). Before it, you may set
--   vim.g.surehand_cmd      the server command (default: { 'surehand', 'serve' })
--   vim.g.surehand_settings the `surehand` settings (camelCase, see docs/configuration.md)
--
-- `:Surehand fix the date parsing` asks about the current file;
-- `:'<,'>Surehand make this faster` also sends the selected lines.
-- The proposal comes as diagnostics, one per hunk (`]d` goes to the next,
-- `<C-w>d` shows its diff); its code actions (`gra`) accept or reject it,
-- all hunks of the file, or all. Nothing asks while you type. Accepted
-- hunks land in your buffers, unsaved; `:w` keeps them, `u` undoes them.
-- `:SurehandCancel` stops a task (or ends its review), `:SurehandReset`
-- forgets the conversation, `:SurehandStatus` says what surehand is doing,
-- `:SurehandUndo` brings back a file a review deleted or moved.
-- When a task ends, the outcome is shown and the `User SurehandDone`
-- autocommand runs with it as its `data`.

local settings = vim.g.surehand_settings
  or {
    -- model = 'qwen2.5-coder-32b-instruct',
    -- baseUrl = 'http://localhost:8000/v1',
    -- apiKeyEnv = 'OPENAI_API_KEY',
  }

-- One line that fits: a longer message would stop Neovim at "Press ENTER",
-- which takes the next key you type. `:SurehandStatus` has the whole outcome.
local function say(message, level)
  local room = math.max(vim.v.echospace, 20)
  if vim.fn.strdisplaywidth(message) > room then
    message = vim.fn.strcharpart(message, 0, room - 1) .. '…'
  end
  vim.notify(message, level)
end

local function done(result)
  local level = result.outcome == 'error' and vim.log.levels.ERROR or vim.log.levels.INFO
  say(('surehand: %s. %s'):format(result.outcome, result.summary or ''), level)
  vim.api.nvim_exec_autocmds('User', { pattern = 'SurehandDone', data = result })
end

local running = false -- a task or its review is under way

vim.lsp.config('surehand', {
  cmd = vim.g.surehand_cmd or { 'surehand', 'serve' },
  root_markers = { '.git', 'pyproject.toml' },
  -- No root, no server: keeps a diff shown from /tmp from starting one.
  workspace_required = true,
  settings = { surehand = settings },
  init_options = settings,
  -- Ask for surehand's own notifications: `surehand/outcome` says when the proposal is
  -- out and how the task ended (without it, the server says so in `window/showMessage`).
  capabilities = vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(), {
    experimental = { surehand = { notifications = 1 } },
  }),
  handlers = {
    ['surehand/outcome'] = function(_, result)
      if result.outcome == 'reviewing' then
        say(('surehand: %d to review (code actions on each). %s'):format(result.remaining, result.modelSummary))
      else
        running = false
        done(result)
      end
    end,
  },
  on_init = function(client)
    -- Show each hunk's first line beside it.
    local namespace = vim.lsp.diagnostic.get_namespace(client.id)
    vim.diagnostic.config({ virtual_text = true }, namespace)
  end,
  on_exit = function(code, signal)
    if running then
      running = false
      local why = signal ~= 0 and 'signal ' .. signal or 'code ' .. code
      -- Called in a fast event: the editor is told once it may be.
      vim.schedule(function()
        done({ outcome = 'error', summary = ('the server stopped (%s)'):format(why) })
      end)
    end
  end,
})
vim.lsp.enable('surehand')

-- Progress: Neovim does not show `$/progress` by itself.
vim.api.nvim_create_autocmd('LspProgress', {
  callback = function(event)
    local client = vim.lsp.get_client_by_id(event.data.client_id)
    local value = event.data.params.value
    if client and client.name == 'surehand' and value.message then
      local message = 'surehand: ' .. value.message
      vim.api.nvim_echo({ { vim.fn.strcharpart(message, 0, math.max(vim.v.echospace - 1, 20)) } }, false, {})
    end
  end,
})

local function surehand(bufnr)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'surehand' })[1]
  if not client then
    say('surehand is not attached to this buffer', vim.log.levels.WARN)
  end
  return client
end

local function run(name, argument, on_result)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = surehand(bufnr)
  if client then
    local command = { title = 'surehand', command = name, arguments = { argument or vim.empty_dict() } }
    client:exec_cmd(command, { bufnr = bufnr }, function(err, result)
      if err then
        say('surehand: ' .. err.message, vim.log.levels.ERROR)
      elseif on_result then
        on_result(result)
      end
    end)
  end
end

vim.api.nvim_create_user_command('Surehand', function(command)
  local bufnr = vim.api.nvim_get_current_buf()
  local argument = { task = command.args, uri = vim.uri_from_bufnr(bufnr) }
  if command.range > 0 then -- whole lines: from the start of line1 to the start of line2 + 1
    argument.range = {
      start = { line = command.line1 - 1, character = 0 },
      ['end'] = { line = command.line2, character = 0 },
    }
  end
  if not surehand(bufnr) then
    return
  end
  running = true
  say('surehand: working on it… (:SurehandCancel stops it)')
  run('surehand.ask', argument, function(result)
    -- `started`: the task runs, and surehand/outcome follows; else it did not start.
    if result.outcome ~= 'started' then
      running = result.outcome == 'busy'
      done(result)
    end
  end)
end, { nargs = '+', range = true, desc = 'Ask surehand to do a task in this file' })

vim.api.nvim_create_user_command('SurehandCancel', function()
  run('surehand.cancel')
end, { desc = 'Stop the surehand task, or end its review' })

vim.api.nvim_create_user_command('SurehandReset', function()
  run('surehand.reset', nil, function()
    say('surehand: the conversation starts afresh')
  end)
end, { desc = 'Forget the conversation with surehand' })

vim.api.nvim_create_user_command('SurehandUndo', function()
  run('surehand.undo', nil, function(result)
    say('surehand: ' .. (result.undone and ('undid the %s of %s'):format(result.undone.operation, result.undone.path) or result.why))
  end)
end, { desc = 'Bring back the file the last review deleted or moved' })

vim.api.nvim_create_user_command('SurehandStatus', function()
  run('surehand.status', nil, function(status)
    local review = status.review and (', %d to review'):format(status.review.remaining) or ''
    local outcome = status.lastOutcome
    local last = outcome and ('\nlast: %s. %s'):format(outcome.outcome, outcome.summary) or ''
    -- Asked for: the whole of it, even where it takes more than a line.
    local state = status.busy and 'working' or 'idle'
    vim.notify(('surehand: %s, %s%s; commands run %s%s'):format(state, status.model, review, status.sandbox.description, last))
  end)
end, { desc = 'What surehand is doing' })
