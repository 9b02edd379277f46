--- The tests' verdicts the server sends (`surehand/tests`, docs/protocol.md)
--- and `:SurehandCheckTests`.
---
--- A verdict on a proposal (`on = "proposal"`) comes right before the
--- proposal's `workspace/applyEdit`: it is kept until the review of that
--- proposal starts and takes it (`take`), which shows it in its opening
--- message, the statusline and the review list. A verdict on what the
--- person accepted (`on = "accepted"`) comes after a review that rejected
--- something: `running` (said, and in the statusline), then `done` (said in
--- one line, a warning when a test failed; the whole text kept for
--- `:SurehandMessages`), or `offered`: then `:SurehandCheckTests` runs them
--- (`surehand.checkTests`), reported the same way; an offer is said after
--- the task's own last line, which would hide it. The task's own message
--- at its end carries the headline too (`outcome_words`).
local say = require('surehand.say').say
local status = require('surehand.status')
local words = require('surehand.verdict_words')

local M = {}

M.METHOD = 'surehand/tests'
M.CHECK = 'surehand.checkTests'
local RUNNING = 'running the tests on what you accepted…'

local for_proposal = nil ---@type table?
local check = nil ---@type {told: boolean}?
local offer = nil ---@type string? the offer made while the task's answer was on its way

--- A task starts: no verdict of an earlier one is shown with its review.
function M.new_task()
  for_proposal, offer = nil, nil
end

--- The task's answer was said: an offer that came before it is said after it (shown,
--- where the two would share the message line; both kept).
function M.after_task()
  if offer then
    say(offer)
    offer = nil
  end
end

--- The verdict on the proposal about to be reviewed (nil when none came); once.
function M.take()
  local report = for_proposal
  for_proposal = nil
  return report
end

local function level(report)
  return words.bad(report) and vim.log.levels.WARN or vim.log.levels.INFO
end

local function done(report)
  status.checking(nil)
  say(words.accepted_message(report), level(report))
end

--- The handler of `surehand/tests`.
function M.on_tests(_, params)
  if type(params) ~= 'table' then
    return
  end
  if params.on == 'proposal' then
    for_proposal = params
  elseif params.on == 'accepted' then
    if params.state == 'running' then
      status.checking(RUNNING)
      say('surehand: ' .. RUNNING)
    elseif params.state == 'offered' then
      if require('surehand.server').busy() then
        offer = words.offered_message()
      else
        say(words.offered_message())
      end
    elseif params.state == 'done' then
      if check then
        check.told = true
      end
      done(params)
    end
  end
end

--- `:SurehandCheckTests`: the last proposal's tests on what the buffers hold
--- now. The server tells the run as `surehand/tests` (running, done); its
--- answer is said only when it told nothing (it refused: why).
function M.check(bufnr)
  local server = require('surehand.server')
  if require('surehand.review').current() then
    return say('surehand: decide the open review first; then :SurehandCheckTests', vim.log.levels.WARN)
  end
  if server.busy() then
    return say('surehand is working on a task (:SurehandCancel stops it)', vim.log.levels.WARN)
  end
  local this = { told = false }
  check = this
  local function over()
    if check == this then
      check = nil
    end
    status.checking(nil)
  end
  server.command(M.CHECK, bufnr, function(result)
    over()
    if this.told then
      return
    end
    if #words.verdicts(result) > 0 then
      return done(result)
    end
    local why = type(result.summary) == 'string' and result.summary ~= '' and result.summary or 'no tests to run'
    say('surehand: ' .. why, vim.log.levels.WARN)
  end, over)
end

return M
