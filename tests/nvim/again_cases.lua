-- A "no" is final for the task: the review, given a second proposal in the
-- same task that holds a hunk the person rejected (a server that rebased
-- and proposed again), shows it rejected and never asks again; a new task
-- may propose it afresh.
--
--   nvim --headless --clean -l tests/nvim/again_cases.lua PLUGIN FOLDER RESULT
local plugin, folder, result = _G.arg[1], _G.arg[2], _G.arg[3]
vim.opt.runtimepath:prepend(plugin)
vim.notify = function() end
require('surehand').setup({ enable = false })
local review = require('surehand.review')
local decide = require('surehand.decide')

local path = vim.fs.joinpath(folder, 'calc.py')
vim.fn.writefile({ 'def add(a, b):', '    return a - b', '', '', 'def sub(a, b):', '    return a - b' }, path)
local uri = vim.uri_from_fname(path)
vim.cmd.edit(vim.fn.fnameescape(path))

local function edit_of(lines)
  local edits = {}
  for _, l in ipairs(lines) do
    edits[#edits + 1] = {
      range = { start = { line = l[1], character = 0 }, ['end'] = { line = l[1] + 1, character = 0 } },
      newText = l[2],
      annotationId = l[3],
    }
  end
  return {
    documentChanges = { { textDocument = { uri = uri, version = vim.NIL }, edits = edits } },
    changeAnnotations = {
      a = { label = 'add adds', needsConfirmation = true },
      s = { label = 'sub swaps', needsConfirmation = true },
    },
  }
end

local function propose(edit)
  local answer = nil
  local co = coroutine.create(function()
    answer = review.handle_apply_edit(nil, { edit = edit }, { client_id = nil })
  end)
  assert(coroutine.resume(co))
  vim.wait(200)
  return function()
    return answer
  end
end

local out = {}
-- Task 1, first proposal: add rejected, sub accepted.
review.new_task()
local first = propose(edit_of({ { 1, '    return a + b\n', 'a' }, { 5, '    return b - a\n', 's' } }))
local open = assert(review.current(), 'no review')
decide.decide_hunk(open.proposal, '1.0', 'rejected')
decide.decide_hunk(open.proposal, '1.1', 'accepted')
review.update(open)
vim.wait(2000, function()
  return first() ~= nil
end)
out.first_answer = first()
out.after_first = vim.api.nvim_buf_get_lines(0, 0, -1, false)

-- Task 1, proposed again (add once more, and a new hunk): add stays rejected.
local again = propose(edit_of({ { 1, '    return a + b\n', 'a' }, { 4, 'def sub(x, y):\n', 's' } }))
local second = review.current()
out.second_open = second ~= nil
if second then
  out.second = vim.tbl_map(function(h)
    return { label = h.label, decision = h.decision, again = h.again or false }
  end, second.proposal.files[1].hunks)
  decide.decide_all(second.proposal, 'rejected')
  review.update(second)
end
vim.wait(2000, function()
  return again() ~= nil
end)

-- Task 2: the same hunk may be proposed and decided afresh.
review.new_task()
local third = propose(edit_of({ { 1, '    return a + b\n', 'a' } }))
local fresh = review.current()
out.third = fresh and fresh.proposal.files[1].hunks[1].decision or vim.NIL
if fresh then
  decide.decide_all(fresh.proposal, 'rejected')
  review.update(fresh)
end
vim.wait(2000, function()
  return third() ~= nil
end)
vim.fn.writefile({ vim.json.encode(out) }, result)
vim.cmd('qall!')
