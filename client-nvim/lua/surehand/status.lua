--- What the statusline component says, fed by `$/progress`, `surehand/step`,
--- the review, the tests' check and the server's life. In order of
--- precedence: an approval waiting, a review ("review 2 hunks, 1 new file ·
--- tests: 2 failed"), the current step, the tests running on what was
--- accepted, the server stopped, idle.
local visible = require('surehand.visible')

local M = {}

---@type {server: string, reason: string?, working: string?, reviewing: table?, tests: string?, asking: string?, checking: string?}
local state = { server = 'none' }

local MAX = 48

local function changed()
  vim.schedule(function()
    pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'SurehandStatus', modeline = false })
    vim.cmd('redrawstatus')
  end)
end

function M.get()
  return state
end

function M.server(what, reason)
  state.server, state.reason = what, reason
  if what ~= 'running' then
    state.working, state.checking = nil, nil
  end
  changed()
end

function M.working(step)
  state.working = step
  changed()
end

--- The review's decisions left (nil: no review) and its tests' headline, if any.
function M.reviewing(pending, tests)
  state.reviewing, state.tests = pending, tests
  changed()
end

--- What the tests' check of the accepted part does ("running the tests …"), nil when done.
function M.checking(words)
  state.checking = words
  changed()
end

function M.asking(question)
  state.asking = question
  changed()
end

local function count(n, word)
  return ('%d %s%s'):format(n, word, n == 1 and '' or 's')
end

--- "2 hunks, 1 rename": hunks and file operations counted apart.
function M.pending_words(pending)
  local parts = {}
  if pending.hunks > 0 then
    parts[#parts + 1] = count(pending.hunks, 'hunk')
  end
  if pending.create > 0 then
    parts[#parts + 1] = count(pending.create, 'new file')
  end
  if pending.rename > 0 then
    parts[#parts + 1] = count(pending.rename, 'rename')
  end
  if pending.delete > 0 then
    parts[#parts + 1] = count(pending.delete, 'deletion')
  end
  return #parts > 0 and table.concat(parts, ', ') or '0 hunks'
end

--- The statusline text ('' when there is nothing to say).
function M.text()
  if state.asking then
    return 'surehand: ' .. visible.line(state.asking)
  end
  if state.reviewing then
    local tests = state.tests and (' · ' .. visible.line(state.tests)) or ''
    return 'surehand: review ' .. M.pending_words(state.reviewing) .. tests
  end
  if state.working then
    local step = visible.line(state.working)
    if vim.fn.strchars(step) > MAX then
      step = vim.fn.strcharpart(step, 0, MAX - 1) .. '…'
    end
    return 'surehand: ' .. step
  end
  if state.checking then
    return 'surehand: ' .. visible.line(state.checking)
  end
  if state.server == 'starting' then
    return 'surehand: starting'
  elseif state.server == 'stopped' then
    return 'surehand: stopped'
  elseif state.server == 'running' then
    return 'surehand'
  end
  return ''
end

--- The words for a `surehand/step` notification, nil when it says nothing
--- worth showing. Takes the wire names (`tool_started`) and, from servers
--- before them, the event class names (`ToolStarted`).
function M.step_text(params)
  local kind = params.kind
  local step = type(params.step) == 'number' and ('step %d'):format(params.step) or 'step'
  local tool = params.tool or params.name
  if kind == 'step_started' or kind == 'StepStarted' then
    return step .. ': thinking'
  elseif kind == 'model_calling' or kind == 'ModelCalling' then
    return type(tool) == 'string' and ('%s: writing %s'):format(step, tool) or nil
  elseif kind == 'tool_started' or kind == 'ToolStarted' or kind == 'tool_finished' or kind == 'ToolFinished' then
    return type(params.summary) == 'string' and params.summary or nil
  elseif kind == 'model_retry' or kind == 'ModelRetry' or kind == 'task_ended' or kind == 'TaskEnded' then
    return type(params.message) == 'string' and params.message or nil
  end
  return nil
end

--- The handler of `surehand/step`.
function M.on_step(_, params)
  local words = type(params) == 'table' and M.step_text(params) or nil
  if params and (params.kind == 'task_ended' or params.kind == 'TaskEnded') then
    M.working(nil)
  elseif words then
    M.working(words)
  end
end

--- `$/progress` of the surehand server (through the LspProgress autocommand).
function M.on_progress(value)
  if type(value) ~= 'table' then
    return
  end
  if value.kind == 'end' then
    M.working(nil)
  elseif value.message and value.message ~= '' then
    M.working(value.message)
  elseif value.kind == 'begin' then
    M.working(value.title or 'working')
  end
end

return M
