--- The tests' verdict in words, from a `surehand/tests` notification or a
--- `surehand.checkTests` result (docs/protocol.md): the headline a label
--- shows ("tests: 2 failed"), the review list's rows (each verdict's line,
--- then each failing test's name), and the messages after a review. The
--- server's words are used when it sends them, else made from the
--- verdict's status; every one of them (commands, test names and results
--- come from the project and the model) goes through `surehand.visible`.
--- Pure: no state, no editor calls.
local visible = require('surehand.visible')

local M = {}

--- A verdict's few words by its status, when the server sends none.
local SHORT = { passed = 'passed', failed = 'failed', error = 'error', stale = 'stale', not_run = 'not run' }
--- Statuses that make a message a warning.
local BAD = { failed = true, error = true }
local MAX_NAMES = 20

local function text(value)
  return type(value) == 'string' and value or nil
end

--- The verdicts of `report` (a list, never nil).
function M.verdicts(report)
  local verdicts = type(report) == 'table' and report.verdicts or nil
  if type(verdicts) ~= 'table' then
    return {}
  end
  return vim.tbl_filter(function(v)
    return type(v) == 'table'
  end, verdicts)
end

--- "41 passed", "2 failed", "stale", "not run", "error".
function M.short(verdict)
  return visible.line(text(verdict.short) or SHORT[verdict.status] or 'unknown')
end

--- The command a verdict is about, as shown ("npm test").
function M.command(verdict)
  if text(verdict.command) then
    return visible.line(verdict.command)
  end
  if type(verdict.argv) == 'table' then
    return visible.line(table.concat(vim.tbl_map(tostring, verdict.argv), ' '))
  end
  return '?'
end

--- The verdict in one line: the server's sentence, else "tests `cmd`: 2 failed".
function M.line(verdict)
  local line = text(verdict.line)
  if line then
    return visible.line(line)
  end
  local why = text(verdict.why)
  return ('tests `%s`: %s%s'):format(M.command(verdict), M.short(verdict), why and why ~= '' and (': ' .. visible.line(why)) or '')
end

--- The names of the failing tests of a verdict's run (at most 20), visible.
function M.failing(verdict)
  local run = type(verdict.run) == 'table' and verdict.run or nil
  local names = run and type(run.failing) == 'table' and run.failing or {}
  local out = {}
  for _, name in ipairs(names) do
    if type(name) == 'string' and #out < MAX_NAMES then
      out[#out + 1] = visible.line(name)
    end
  end
  return out
end

--- "tests: 2 failed" ("tests: 41 passed; not run"), nil when there is no verdict.
function M.headline(report)
  local verdicts = M.verdicts(report)
  if #verdicts == 0 then
    return nil
  end
  local given = text(report.headline)
  if given and given ~= '' then
    return visible.line(given)
  end
  return 'tests: ' .. table.concat(vim.tbl_map(M.short, verdicts), '; ')
end

--- Whether a verdict of `report` failed or could not run properly (a warning).
function M.bad(report)
  for _, verdict in ipairs(M.verdicts(report)) do
    if BAD[verdict.status] then
      return true
    end
  end
  return false
end

--- The review list's rows: each verdict's line, then "✗ failing: <name>" for each failing test.
function M.rows(report)
  local rows = {}
  for _, verdict in ipairs(M.verdicts(report)) do
    rows[#rows + 1] = M.line(verdict)
    for _, name in ipairs(M.failing(verdict)) do
      rows[#rows + 1] = '  ✗ failing: ' .. name
    end
  end
  return rows
end

--- The message once the tests ran on what was accepted: the headline first
--- (what a cut line keeps), then every verdict's line (`:SurehandMessages`).
function M.accepted_message(report)
  local headline = M.headline(report)
  if headline == nil then
    return 'surehand: no test commands to run on what you accepted (the testCommands setting names them)'
  end
  local lines = vim.tbl_map(M.line, M.verdicts(report))
  return ('surehand: %s on what you accepted. %s'):format(headline, table.concat(lines, ' '))
end

--- The message when the check is offered rather than run (testsOnAccepted "offer"): it fits a line.
function M.offered_message()
  return 'surehand: :SurehandCheckTests runs the tests on what you accepted'
end

--- The tests in a task's closing message (a `surehand.ask` result): " (tests: 2
--- failed on what you accepted)", " (tests: 41 passed)" for an applied proposal, or "".
function M.outcome_words(result)
  local accepted = M.headline({ verdicts = result.testsAccepted })
  if accepted then
    return (' (%s on what you accepted)'):format(accepted)
  end
  local proposed = M.headline({ verdicts = result.tests })
  if proposed and result.outcome == 'applied' then
    return (' (%s)'):format(proposed)
  end
  return ''
end

--- Whether a task's closing message is a warning for its tests.
function M.outcome_bad(result)
  if #M.verdicts({ verdicts = result.testsAccepted }) > 0 then
    return M.bad({ verdicts = result.testsAccepted })
  end
  return result.outcome == 'applied' and M.bad({ verdicts = result.tests })
end

return M
