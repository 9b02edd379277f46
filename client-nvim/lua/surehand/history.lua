--- Accepted tasks, and undoing a whole one: `:SurehandUndoTask` and
--- `:SurehandHistory` over the server's `surehand.history` and
--- `surehand.undoTask` (docs/protocol.md).
---
--- Tasks are undone newest first. The question names the task and its
--- files; keys typed before it are dropped, and Enter alone or Esc answers
--- "Cancel". The server puts the undo into the open files through
--- `workspace/applyEdit`: such an edit, sent while this undo waits for its
--- answer, goes into the buffers whole, unsaved (as an accepted proposal),
--- not into a review; the person said yes to it in the question. Task
--- text, paths and reasons are shown through `surehand.visible`.
local say = require('surehand.say').say
local visible = require('surehand.visible')

local M = {}

local HISTORY = 'surehand.history'
local UNDO = 'surehand.undoTask'
local WAIT_MS = 5000
local TASK_CHARS = 120

local undoing = 0 -- undo requests waiting for the server's answer

--- A task's text on one line, visible, cut at TASK_CHARS characters.
function M.task_text(task)
  local line = visible.line(vim.trim(tostring(task or '')))
  if vim.fn.strchars(line) > TASK_CHARS then
    line = vim.fn.strcharpart(line, 0, TASK_CHARS - 1) .. '…'
  end
  return line
end

--- `a.py`, `new.py (new)`, `old.py (deleted)`, `b.py (moved from a.py)`: visible.
function M.file_words(file)
  local path = visible.line(tostring(file.path or ''))
  if file.operation == 'create' then
    return path .. ' (new)'
  elseif file.operation == 'delete' then
    return path .. ' (deleted)'
  elseif file.operation == 'rename' then
    if type(file.source) == 'string' then
      return ('%s (moved from %s)'):format(path, visible.line(file.source))
    end
    return path .. ' (moved)'
  end
  return path
end

function M.files_words(files)
  if files == nil or #files == 0 then
    return 'no file'
  end
  return table.concat(vim.tbl_map(M.file_words, files), ', ')
end

--- The task an undo takes back: the newest not undone yet (tasks come newest first).
function M.last_undoable(tasks)
  for _, task in ipairs(tasks or {}) do
    if task.undone ~= true then
      return task
    end
  end
end

--- The question before undoing `task` (for `confirm()`).
function M.question(task)
  return ('Undo “%s”?\nIt changed %s.'):format(M.task_text(task.task), M.files_words(task.files))
end

--- What an undo's result tells: the text and its level.
function M.report(result)
  result = type(result) == 'table' and result or {}
  local summary = visible.line(vim.trim(type(result.summary) == 'string' and result.summary or ''))
  local undone = type(result.undone) == 'table' and result.undone or nil
  if undone then
    if summary == '' then
      local files = table.concat(vim.tbl_map(visible.line, undone.files or {}), ', ')
      summary = ('undid “%s”%s.'):format(M.task_text(undone.task), files ~= '' and (' (' .. files .. ')') or '')
    end
    return 'surehand: ' .. summary, vim.log.levels.INFO
  end
  local refused = type(result.refused) == 'table' and result.refused or {}
  if summary == '' then
    summary = 'nothing was undone.'
  end
  if #refused == 0 then
    return 'surehand: ' .. summary, vim.log.levels.INFO
  end
  -- The files first (the message area shows one line), then the summary, then
  -- each refused file and why, unless the summary says it already.
  local paths = table.concat(vim.tbl_map(function(r)
    return visible.line(tostring(r.path or ''))
  end, refused), ', ')
  summary = ('undo refused (%s). %s'):format(paths, summary)
  local why = {}
  for _, r in ipairs(refused) do
    local words = ('%s: %s'):format(visible.line(tostring(r.path or '')), visible.line(tostring(r.why or '')))
    if not summary:find(words, 1, true) then
      why[#why + 1] = words
    end
  end
  if #why == 0 then
    return 'surehand: ' .. summary, vim.log.levels.WARN
  end
  return ('surehand: %s Not undone, to keep your changes: %s.'):format(summary, table.concat(why, '; ')), vim.log.levels.WARN
end

--- `2026-05-09 14:03` in local time from the server's ISO 8601 (UTC); as it is when it does not parse.
function M.when_text(iso)
  iso = tostring(iso or '')
  local y, mo, d, h, mi, s, zone = iso:match('^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)[%.%d]*(.*)$')
  if y == nil or not (zone == 'Z' or zone == '+00:00' or zone == '') then
    return visible.line(iso)
  end
  local fields = { year = tonumber(y), month = tonumber(mo), day = tonumber(d), hour = tonumber(h), min = tonumber(mi), sec = tonumber(s) }
  local now = os.time()
  local offset = os.difftime(now, os.time(os.date('!*t', now) --[[@as osdateparam]]))
  return os.date('%Y-%m-%d %H:%M', os.time(fields) + offset) --[[@as string]]
end

--- One line per task, newest first: when, undone or not, the task, its files.
function M.lines(tasks)
  local last = M.last_undoable(tasks)
  local out = {}
  for _, task in ipairs(tasks or {}) do
    local state = task.undone == true and 'undone  ' or (task == last and 'undoable' or 'applied ')
    local where = task.front == 'terminal' and ' (terminal)' or ''
    out[#out + 1] = ('%s  %s  %s%s — %s'):format(M.when_text(task.when), state, M.task_text(task.task), where, M.files_words(task.files))
  end
  return out
end

local function client_for(bufnr)
  local server = require('surehand.server')
  return server.client(bufnr) or vim.lsp.get_clients({ name = server.NAME })[1]
end

--- The server's answer to `command` now (it is quick), or nil and why not.
local function ask_now(client, bufnr, command, arguments)
  local response = client:request_sync('workspace/executeCommand', { command = command, arguments = arguments }, WAIT_MS, bufnr)
  if response == nil then
    return nil, 'no answer from the server'
  end
  if response.err then
    return nil, response.err.message
  end
  return response.result or vim.NIL
end

local function tasks_of(result)
  return type(result) == 'table' and type(result.tasks) == 'table' and result.tasks or {}
end

local function undone_event(result)
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'SurehandUndone', data = result, modeline = false })
end

--- Why `chosen` (an id) is not undone now: undone already, or a newer task comes first.
function M.not_newest(tasks, id, newest)
  for _, task in ipairs(tasks) do
    if task.id == id and task.undone == true then
      return ('surehand: “%s” is undone already'):format(M.task_text(task.task))
    end
  end
  return ('surehand: tasks are undone newest first: “%s” comes first'):format(M.task_text(newest.task))
end

--- The server's client for `bufnr` and the tasks it keeps, newest first; nil (said why)
--- when it is not running or did not answer.
local function history_of(bufnr)
  local client = client_for(bufnr)
  if client == nil then
    say('surehand is not running', vim.log.levels.WARN)
    return nil, nil
  end
  local history, why = ask_now(client, bufnr, HISTORY, {})
  if history == nil then
    say('surehand: ' .. why, vim.log.levels.ERROR)
    return client, nil
  end
  return client, tasks_of(history)
end

--- `:SurehandUndoTask` (and the server's code action "undo the last task",
--- whose `id` must be the newest task not undone): ask, then undo it.
function M.undo_task(bufnr, id)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if require('surehand.review').current() then
    return say('surehand: a proposal is under review; decide it before undoing a task', vim.log.levels.WARN)
  end
  if require('surehand.server').busy() then
    return say('surehand is working on a task (:SurehandCancel stops it); undo after it', vim.log.levels.WARN)
  end
  local client, tasks = history_of(bufnr)
  if tasks == nil then
    return
  end
  local task = M.last_undoable(tasks)
  if task == nil then
    return say('surehand: no accepted task to undo')
  end
  if id ~= nil and id ~= task.id then
    return say(M.not_newest(tasks, id, task))
  end
  -- Only a key pressed at the question answers it: keys typed before it are
  -- dropped, and Cancel is the default (Enter alone or Esc undoes nothing).
  while vim.fn.getchar(0) ~= 0 do
  end
  if vim.fn.confirm(M.question(task), '&Undo\n&Cancel', 2, 'Question') ~= 1 then
    return say('surehand: nothing undone')
  end
  undoing = undoing + 1
  -- A request, not `exec_cmd`: that would run this plugin's own `surehand.undoTask` again.
  local params = { command = UNDO, arguments = { { task = task.id } } }
  client:request('workspace/executeCommand', params, function(err, result)
    undoing = undoing - 1
    if err then
      say('surehand: the undo failed: ' .. err.message, vim.log.levels.ERROR)
      return undone_event({ undone = vim.NIL, refused = {}, summary = err.message, error = true })
    end
    say(M.report(result))
    undone_event(result or {})
  end, bufnr)
end

--- `:SurehandHistory`: the accepted tasks kept for this workspace, newest first, in a scratch buffer.
function M.show(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local _, tasks = history_of(bufnr)
  if tasks == nil then
    return
  end
  local lines = M.lines(tasks)
  if #lines == 0 then
    lines = { 'surehand: no accepted task is kept for this workspace' }
  end
  return require('surehand.say').scratch(lines, 'surehand://history')
end

--- Whether a `workspace/applyEdit` is the edit of the undo this Neovim waits for.
function M.claims(params)
  if undoing == 0 then
    return false
  end
  local label = params and params.label
  if type(label) == 'string' and label ~= '' then
    return label:match('^surehand[^:]*: undo') ~= nil
  end
  for id in pairs((params and params.edit or {}).changeAnnotations or {}) do
    if tostring(id):match('^surehand%-%d') then
      return false -- a proposal's hunk
    end
  end
  return true
end

--- Accept every hunk and file operation of `proposal`: the undo goes in whole.
function M.accept_whole(proposal)
  for _, file in ipairs(proposal.files) do
    file.operation = 'accepted'
    for _, hunk in ipairs(file.hunks) do
      hunk.decision = 'accepted'
    end
  end
end

--- The undo's file operations happen on disk at once, as the person confirmed them (a
--- proposal's wait for `:w`): the buffers they made, moved or emptied are written, and
--- no other buffer is.
function M.save_operations(proposal, skipped)
  local left_out = {}
  for _, uri in ipairs(skipped) do
    left_out[uri] = true
  end
  for _, file in ipairs(proposal.files) do
    if file.kind ~= 'edit' and not left_out[file.uri] then
      local bufnr = vim.fn.bufnr(vim.uri_to_fname(file.uri))
      if bufnr ~= -1 and vim.api.nvim_buf_is_loaded(bufnr) then
        vim.api.nvim_buf_call(bufnr, function()
          vim.cmd('silent write')
        end)
      end
    end
  end
end

--- The undo's `workspace/applyEdit`: into the buffers whole, unsaved (as an
--- accepted proposal goes), or not at all when a buffer moved on.
function M.apply_edit(params, ctx)
  local review = require('surehand.review')
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local edit = params.edit or {}
  local stale = review.stale_version(edit, client)
  if stale then
    return { applied = false, failureReason = stale .. ' changed since the undo was planned.' }
  end
  local model = require('surehand.model')
  local encoding = client and client.offset_encoding or 'utf-16'
  local ok, proposal = pcall(model.parse, edit, review.read_texts(model.text_sources(edit)), encoding)
  if not ok then
    return { applied = false, failureReason = tostring(proposal) }
  end
  M.accept_whole(proposal)
  local applied = require('surehand.apply').apply(proposal, encoding)
  if #applied.skipped > 0 or #applied.mismatched > 0 then
    local uris = vim.list_extend(vim.list_extend({}, applied.skipped), applied.mismatched)
    local files = table.concat(vim.tbl_map(function(uri)
      return visible.line(vim.fn.fnamemodify(vim.uri_to_fname(uri), ':.'))
    end, uris), ', ')
    say('surehand: some files of the undo changed meanwhile: ' .. files, vim.log.levels.WARN)
  end
  if applied.applied then
    M.save_operations(proposal, applied.skipped)
  end
  if applied.applied then
    return { applied = true }
  end
  return { applied = false, failureReason = applied.failure_reason }
end

return M
