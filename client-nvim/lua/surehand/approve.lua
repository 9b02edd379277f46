--- The server's questions (`window/showMessageRequest`: may a command run?),
--- answered only by the person, on purpose.
---
--- No prompt ever opens by itself: keys typed for something else can never
--- answer a question. A waiting question shows in a small window at the
--- top right that takes no keys and no focus, in the statusline, and in one
--- line in the message area; it stays until answered. `:SurehandApprove`
--- asks it: Deny is the first choice, Allow once the second; "Always allow"
--- is asked again and needs the word `always` typed. Dismissing the prompt
--- (Esc, Enter alone) answers nothing: the question keeps waiting.
local banner = require('surehand.banner')
local say = require('surehand.say')
local status = require('surehand.status')
local visible = require('surehand.visible')

local M = {}

local queue = {} ---@type {params: table, co: thread}[]

--- The command an approval question is about (as the server wrote it), or nil.
local function command_of(message)
  return (message or ''):match('wants to run `(.*)`')
end

--- "waiting for your approval: rm -rf build" for an approval question.
function M.step(message)
  local command = command_of(message)
  if command then
    command = command:match('^(.-)`%s*%(') or command
    return 'waiting for your approval: ' .. visible.line(command)
  end
  return 'waiting for your answer'
end

local function show()
  local question = queue[1]
  if question == nil then
    status.asking(nil)
    banner.hide()
    return
  end
  status.asking(M.step(question.params.message))
  banner.show(question.params.message or '', #queue)
end

local function is_always(title)
  return title:match('^Always') ~= nil
end

local function is_deny(title)
  return title:match('^Deny') ~= nil or title:match('^Don') ~= nil or title:match('^No') ~= nil
end

--- The choices in the order the prompt offers them: the deny first, "always" last.
function M.choices(actions)
  local first, middle, last = {}, {}, {}
  for _, action in ipairs(actions or {}) do
    local title = tostring(action.title)
    if is_deny(title) then
      first[#first + 1] = action
    elseif is_always(title) then
      last[#last + 1] = action
    else
      middle[#middle + 1] = action
    end
  end
  return vim.list_extend(vim.list_extend(first, middle), last)
end

--- The words a choice shows in the prompt.
function M.choice_title(action)
  local title = visible.line(tostring(action.title))
  if is_always(title) then
    return title .. ' (asks again: type "always")'
  end
  return title
end

local function answer(question, choice)
  local waiting = false
  for i, q in ipairs(queue) do
    if q == question then
      table.remove(queue, i)
      waiting = true
      break
    end
  end
  if not waiting then
    return -- answered already (a second prompt for the same question), or moot
  end
  show()
  local ok, err = coroutine.resume(question.co, choice)
  if not ok then
    say.say('surehand: the answer could not be sent: ' .. tostring(err), vim.log.levels.ERROR)
  end
end

--- "Always allow" needs a second, typed confirmation; anything else answers nothing.
local function confirm_always(question, choice, done)
  local command = command_of(question.params.message) or 'this command'
  vim.ui.input({
    prompt = ('surehand: type "always" to allow `%s` from now on (anything else: not answered): '):format(visible.line(command)),
  }, function(typed)
    if typed ~= nil and vim.trim(typed) == 'always' then
      return done(choice)
    end
    say.say('surehand: not answered; the question still waits (:SurehandApprove)', vim.log.levels.WARN)
    done(nil)
  end)
end

--- `:SurehandApprove`: ask the waiting question, now that the person asked for it.
function M.now()
  local question = queue[1]
  if question == nil then
    return say.say('surehand: no question is waiting')
  end
  -- Each prompt may answer only its own question, once (a picker that never
  -- calls back leaves nothing locked: :SurehandApprove asks again).
  local function done(choice)
    if choice == nil then
      return show()
    end
    answer(question, choice)
  end
  local lines = visible.lines(question.params.message or '')
  local prompt = table.concat(lines, '\n') .. '\n(Esc or Enter alone: answer later)'
  vim.ui.select(M.choices(question.params.actions), {
    prompt = prompt,
    kind = 'surehand_approval',
    format_item = M.choice_title,
  }, function(choice)
    vim.schedule(function()
      if choice ~= nil and is_always(tostring(choice.title)) then
        return confirm_always(question, choice, done)
      end
      if choice == nil then
        say.say('surehand: not answered; the question still waits (:SurehandApprove)')
      end
      done(choice)
    end)
  end)
end

--- The `window/showMessageRequest` handler of the surehand client.
function M.handle(_, params, _)
  local co, main = coroutine.running()
  if co == nil or main then
    return vim.NIL
  end
  local question = { params = params or {}, co = co }
  table.insert(queue, question)
  vim.schedule(function()
    show()
    say.say(('surehand asks: %s (answer with :SurehandApprove)'):format(M.step(question.params.message)), vim.log.levels.WARN)
  end)
  local choice = coroutine.yield()
  return choice or vim.NIL
end

--- The questions waiting (for tests and the statusline).
function M.waiting()
  return #queue
end

--- The server is gone: its questions are moot.
function M.drop()
  queue = {}
  show()
end

return M
