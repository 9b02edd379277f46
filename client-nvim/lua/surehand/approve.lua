--- The server's questions (`window/showMessageRequest`: a command's
--- approval) through `vim.ui.select`, never with keys the user was typing:
--- a question waits while you are in insert (or command-line) mode and until
--- you have stopped typing for `approval_idle_ms`; meanwhile a notification
--- says it waits and `:SurehandApprove` answers it at once.
local config = require('surehand.config')
local status = require('surehand.status')

local M = {}

local queue = {} ---@type {params: table, co: thread, told: boolean?}[]
local asking = false
local last_key = 0
local timer = nil
local key_ns = vim.api.nvim_create_namespace('surehand_keys')

--- Note the time of every key (from start-up: plugin/surehand.lua calls this).
function M.listen()
  vim.on_key(function()
    last_key = vim.uv.now()
  end, key_ns)
end

--- "waiting for your approval: rm -rf build" for an approval question.
function M.step(message)
  local command = message:match('wants to run `([^`]*)`')
  return command and ('waiting for your approval: ' .. command) or 'waiting for your answer'
end

local function busy_mode()
  local mode = vim.api.nvim_get_mode()
  return mode.blocking or not mode.mode:match('^n')
end

local function ask(question)
  asking = true
  local params = question.params
  local actions = params.actions or {}
  vim.ui.select(actions, {
    prompt = params.message,
    kind = 'surehand_approval',
    format_item = function(action)
      return action.title
    end,
  }, function(choice)
    vim.schedule(function()
      asking = false
      for i, q in ipairs(queue) do
        if q == question then
          table.remove(queue, i)
        end
      end
      status.asking(queue[1] and M.step(queue[1].params.message) or nil)
      coroutine.resume(question.co, choice or vim.NIL)
      M.poll()
    end)
  end)
end

--- Ask the first question once the user is not typing.
local function tick(force)
  local question = queue[1]
  if question == nil or asking then
    return true
  end
  local idle = vim.uv.now() - last_key >= (config.options.approval_idle_ms or 600)
  if force or (idle and not busy_mode()) then
    ask(question)
    return true
  end
  if not question.told then
    question.told = true
    local message = question.params.message
    vim.notify(('surehand asks: %s (leave insert mode to answer, or :SurehandApprove)'):format(message), vim.log.levels.WARN)
  end
  return false
end

function M.poll()
  if timer then
    return
  end
  timer = vim.uv.new_timer()
  timer:start(0, 100, vim.schedule_wrap(function()
    if timer and tick(false) then
      timer:stop()
      timer:close()
      timer = nil
    end
  end))
end

--- `:SurehandApprove`: answer the waiting question now.
function M.now()
  if queue[1] == nil then
    return vim.notify('surehand: no question is waiting', vim.log.levels.INFO)
  end
  tick(true)
end

--- The `window/showMessageRequest` handler of the surehand client.
function M.handle(_, params, _)
  local co, main = coroutine.running()
  if co == nil or main then
    return vim.NIL
  end
  table.insert(queue, { params = params, co = co })
  status.asking(M.step(params.message or ''))
  M.poll()
  return coroutine.yield()
end

--- The server is gone: its questions are moot.
function M.drop()
  queue = {}
  asking = false
  status.asking(nil)
end

return M
