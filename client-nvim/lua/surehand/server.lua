--- The surehand language server under Neovim's LSP client: its config (with
--- the review capability and the handlers that make the review ours), the
--- commands it runs, and what happens when it stops on its own (whether and
--- how it starts: `surehand.launch`).
local config = require('surehand.config')
local launch = require('surehand.launch')
local say = require('surehand.say').say
local status = require('surehand.status')

local M = {}

M.NAME = 'surehand'
local START_MS = 20000

local running = nil ---@type {client_id: integer, task: string}?
local stopping = {} ---@type table<integer, boolean>

--- What the client announces beyond Neovim's defaults: it reviews proposals
--- itself (`experimental.surehand.review`), and change annotations (which a
--- server before the review capability reads as the same thing).
function M.capabilities()
  return {
    experimental = { surehand = { review = 1 } },
    workspace = {
      workspaceEdit = {
        documentChanges = true,
        resourceOperations = { 'create', 'rename', 'delete' },
        changeAnnotationSupport = { groupsOnLabel = false },
      },
    },
    window = { workDoneProgress = true },
  }
end

function M.handlers()
  return {
    ['workspace/applyEdit'] = function(err, params, ctx)
      -- The edit of an undo the user agreed to goes in whole; anything else is a proposal to review.
      local history = require('surehand.history')
      if history.claims(params) then
        return history.apply_edit(params, ctx)
      end
      return require('surehand.review').handle_apply_edit(err, params, ctx)
    end,
    ['window/showMessageRequest'] = function(...)
      return require('surehand.approve').handle(...)
    end,
    ['surehand/step'] = function(...)
      return status.on_step(...)
    end,
    ['surehand/tests'] = function(...)
      return require('surehand.verdicts').on_tests(...)
    end,
  }
end

--- The server's commands that run here first: its code action "undo the
--- last task" asks, as `:SurehandUndoTask` does, before anything is undone.
function M.commands()
  return {
    ['surehand.undoTask'] = function(command, ctx)
      local argument = (command.arguments or {})[1]
      local id = type(argument) == 'table' and argument.task or nil
      require('surehand.history').undo_task(ctx and ctx.bufnr, type(id) == 'string' and id or nil)
    end,
  }
end

local function done(result)
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'SurehandDone', data = result, modeline = false })
end

--- The server stopped. Not asked to: the user is told, a running task ends
--- with an error, an open review goes on without it. One that quits before
--- it started is broken: it is not started again in every buffer opened
--- (`:Surehand` tries once more), and the user is told once.
function M.exited(code, signal, client_id)
  vim.schedule(function()
    if stopping[client_id] or (code == 0 and signal == 0) then
      stopping[client_id] = nil
      status.server('stopped', 'stopped')
      return
    end
    local why = signal ~= 0 and ('signal %d'):format(signal) or ('exit code %d'):format(code)
    if launch.quit_at_start(client_id, why) then
      return
    end
    status.server('stopped', why)
    require('surehand.approve').drop()
    require('surehand.review').orphan(client_id)
    local doing = ''
    if running and running.client_id == client_id then
      doing = ' during the task; its changes are lost'
      running = nil
      done({ outcome = 'error', summary = 'The surehand server stopped (' .. why .. ').' })
    end
    if require('surehand.review').current() then
      doing = doing .. '; the review goes on in your buffers, and the server will not hear how it ended'
    end
    say(('surehand: the server stopped (%s)%s. :Surehand starts it again.'):format(why, doing), vim.log.levels.ERROR)
  end)
end

--- The base config (`lsp/surehand.lua` returns it; `setup{}` puts it in place).
function M.config()
  local settings = config.settings()
  return {
    cmd = launch.spawn,
    root_dir = launch.root_dir,
    root_markers = config.options.root_markers,
    workspace_required = true,
    settings = { surehand = settings },
    init_options = settings,
    capabilities = M.capabilities(),
    handlers = M.handlers(),
    commands = M.commands(),
    on_init = function(client)
      launch.on_init(client)
      status.server('running')
    end,
    on_exit = M.exited,
  }
end

--- The surehand client attached to `bufnr`, if it runs.
function M.client(bufnr)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = M.NAME })[1]
  if client and not client:is_stopped() then
    return client
  end
end

--- Call `callback(client)` once a surehand client is attached to `bufnr`,
--- starting the server when none runs (after it stopped, say).
function M.ensure(bufnr, callback)
  local client = M.client(bufnr)
  if client and client.initialized then
    return callback(client)
  end
  if client == nil then
    local base = vim.lsp.config[M.NAME] or M.config()
    local root = vim.fs.root(bufnr, base.root_markers or config.options.root_markers)
    if root == nil then
      return say('surehand: this buffer is in no project (no .git or pyproject.toml above it)', vim.log.levels.WARN)
    end
    launch.retry()
    if launch.missing() then
      return
    end
    status.server('starting')
    local id = vim.lsp.start(vim.tbl_extend('force', base, { root_dir = root }), { bufnr = bufnr, silent = true })
    if id == nil then
      status.server('stopped', 'could not start')
      return say('surehand: the server could not be started', vim.log.levels.ERROR)
    end
  end
  local waited = 0
  local timer = assert(vim.uv.new_timer())
  timer:start(50, 50, vim.schedule_wrap(function()
    waited = waited + 50
    local now = M.client(bufnr)
    if now and now.initialized then
      timer:stop()
      timer:close()
      callback(now)
    elseif waited >= START_MS then
      timer:stop()
      timer:close()
      status.server('stopped', 'did not start')
      say('surehand: the server did not start in time', vim.log.levels.ERROR)
    end
  end))
end

--- Ask surehand to do `task` in `bufnr` (optionally about lines [line1, line2]).
function M.ask(task, bufnr, line1, line2)
  if running then
    return say('surehand is already working on a task (:SurehandCancel stops it)', vim.log.levels.WARN)
  end
  M.ensure(bufnr, function(client)
    -- The buffer's file is the task's context only when it is in the workspace (the server
    -- refuses a URI outside it): a buffer elsewhere asks about the workspace as a whole.
    local name = vim.api.nvim_buf_get_name(bufnr)
    local root = client.root_dir and vim.fs.normalize(client.root_dir)
    local inside = name ~= '' and root ~= nil and vim.startswith(vim.fs.normalize(name), root .. '/')
    local argument = { task = task, uri = inside and vim.uri_from_bufnr(bufnr) or nil }
    if line1 and inside then -- whole lines: from the start of line1 to the start of line2 + 1
      argument.range = { start = { line = line1 - 1, character = 0 }, ['end'] = { line = line2, character = 0 } }
    end
    running = { client_id = client.id, task = task }
    require('surehand.outcome').new_task()
    require('surehand.review').new_task()
    require('surehand.verdicts').new_task()
    status.working('asking: ' .. task)
    say('surehand: working on it… (:SurehandCancel stops it)')
    client:exec_cmd({ title = 'surehand', command = 'surehand.ask', arguments = { argument } }, { bufnr = bufnr }, function(err, result)
      if running == nil or running.client_id ~= client.id then
        return -- already reported (the server stopped)
      end
      running = nil
      status.working(nil)
      if err then
        result = { outcome = 'error', summary = err.message }
      else
        result = require('surehand.outcome').true_result(result or {})
      end
      local words = require('surehand.verdict_words')
      local level = result.outcome == 'error' and vim.log.levels.ERROR
        or words.outcome_bad(result) and vim.log.levels.WARN
        or vim.log.levels.INFO
      say(('surehand: %s%s. %s'):format(result.outcome, words.outcome_words(result), result.summary or ''), level)
      require('surehand.verdicts').after_task()
      done(result)
    end)
  end)
end

--- Run the server's command `name` (no arguments); `report(result)` with its
--- result. A failure is said, and `failed()` (if given) called.
function M.command(name, bufnr, report, failed)
  local client = M.client(bufnr) or vim.lsp.get_clients({ name = M.NAME })[1]
  if client == nil then
    say('surehand is not running', vim.log.levels.WARN)
    return failed and failed()
  end
  client:exec_cmd({ title = name, command = name, arguments = {} }, { bufnr = bufnr }, function(err, result)
    if err then
      say('surehand: ' .. err.message, vim.log.levels.ERROR)
      return failed and failed()
    end
    report(result or {})
  end)
end

function M.cancel(bufnr)
  M.command('surehand.cancel', bufnr, function(result)
    say(result.cancelled and 'surehand: cancelled' or 'surehand: nothing to cancel')
  end)
end

function M.reset(bufnr)
  M.command('surehand.reset', bufnr, function()
    say('surehand: the conversation starts afresh')
  end)
end

--- The server's `surehand.status` (model, endpoint, sandbox), or nil and why not.
function M.status_sync(bufnr)
  local client = M.client(bufnr) or vim.lsp.get_clients({ name = M.NAME })[1]
  if client == nil then
    return nil, 'not running'
  end
  local response = client:request_sync('workspace/executeCommand', { command = 'surehand.status', arguments = {} }, 3000, bufnr)
  if response == nil then
    return nil, 'no answer'
  end
  if response.err then
    return nil, response.err.message
  end
  return response.result
end

--- Stop the server on purpose (the user is not told it stopped).
function M.stop()
  for _, client in ipairs(vim.lsp.get_clients({ name = M.NAME })) do
    stopping[client.id] = true
    client:stop()
  end
end

function M.busy()
  return running ~= nil
end

return M
