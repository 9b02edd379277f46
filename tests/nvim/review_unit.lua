-- The plugin's pure review modules, checked in a headless Neovim, and the
-- protocol examples in docs/protocol/examples/ they must agree with:
--
--   nvim --headless --clean -l tests/nvim/review_unit.lua PLUGIN EXAMPLES RESULT
--
-- Writes { checks = <number>, failures = [ ... ] } as JSON to RESULT.
local plugin, examples, result = _G.arg[1], _G.arg[2], _G.arg[3]
vim.opt.runtimepath:prepend(plugin)

local checks, failures = 0, {}
local function check(name, ok, detail)
  checks = checks + 1
  if not ok then
    table.insert(failures, name .. (detail and (': ' .. vim.inspect(detail)) or ''))
  end
end
local function equal(name, got, want)
  check(name, vim.deep_equal(got, want), { got = got, want = want })
end

local function example(name)
  local path = vim.fs.joinpath(examples, name)
  return vim.json.decode(table.concat(vim.fn.readfile(path), '\n'))
end

local text = require('surehand.text')
local shift = require('surehand.shift')
local model = require('surehand.model')
local decide = require('surehand.decide')
local status = require('surehand.status')

-- Positions in each encoding around wide characters, and back.
local wide = 'a😀b日c\r\nx'
for _, case in ipairs({
  { 'utf-8', 5, 5 },
  { 'utf-16', 3, 5 },
  { 'utf-32', 2, 5 },
  { 'utf-16', 5, 9 },
}) do
  local offset = text.offset_at(wide, { line = 0, character = case[2] }, case[1])
  equal('offset_at ' .. case[1] .. ' ' .. case[2], offset, case[3])
  equal('position_at ' .. case[1], text.position_at(wide, offset, case[1]), { line = 0, character = case[2] })
end
equal('a CRLF ends a line', text.offset_at(wide, { line = 1, character = 0 }, 'utf-8'), 12)
equal('past the line end: its end', text.offset_at(wide, { line = 0, character = 99 }, 'utf-16'), 10)
equal('split_lines', text.split_lines('a\r\nb\rc\nd'), { 'a', 'b', 'c', 'd' })

-- Typing moves the hunks after it and makes a touched one stale (strict edges).
local function shifted(start, stop, from, to, inserted)
  return { shift.shift_span(start, stop, from, to, inserted) }
end
equal('a change before moves the span', shifted(10, 20, 0, 2, 5), { 13, 23, false })
equal('a change after leaves it', shifted(10, 20, 21, 22, 0), { 10, 20, false })
equal('a change starting at its end does not touch it', shifted(10, 20, 20, 20, 3), { 10, 20, false })
equal('a change ending at its start touches it', shifted(10, 20, 8, 10, 0), { 8, 18, true })
equal('an insertion is touched at its point', shifted(10, 10, 10, 10, 1), { 10, 10, true })
equal('a change inside touches it', shifted(10, 20, 12, 14, 1), { 10, 19, true })

-- The reviewed example is exactly what a proposal decided that way reports.
local root = 'file:///project/'
local function range(l1, c1, l2, c2)
  return { start = { line = l1, character = c1 }, ['end'] = { line = l2, character = c2 } }
end
local edit = {
  documentChanges = {
    {
      textDocument = { uri = root .. 'calc.py', version = vim.NIL },
      edits = {
        { range = range(1, 0, 2, 0), newText = '    return a + b\n', annotationId = 'a' },
        { range = range(5, 0, 6, 0), newText = '    return b - a\n', annotationId = 'b' },
      },
    },
    { kind = 'create', uri = root .. 'util.py', annotationId = 'c' },
    {
      textDocument = { uri = root .. 'util.py', version = vim.NIL },
      edits = { { range = range(0, 0, 1, 0), newText = 'X = 2\n', annotationId = 'c' } },
    },
    { kind = 'delete', uri = root .. 'old.py', annotationId = 'd' },
    { kind = 'rename', oldUri = root .. 'a.py', newUri = root .. 'pkg/b.py', annotationId = 'e' },
    {
      textDocument = { uri = root .. 'pkg/b.py', version = vim.NIL },
      edits = { { range = range(1, 0, 2, 0), newText = '    return 2\n', annotationId = 'e' } },
    },
  },
  changeAnnotations = {
    a = { label = 'add adds' },
    b = { label = 'sub swaps' },
    c = { label = 'new util' },
    d = { label = 'old goes' },
    e = { label = 'move f' },
  },
}
local calc = 'def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n'
local texts = { [root .. 'calc.py'] = calc, [root .. 'old.py'] = 'OLD = 1\n', [root .. 'a.py'] = 'def f():\n    return 1\n' }
equal('text sources', model.text_sources(edit), { root .. 'calc.py', root .. 'old.py', root .. 'a.py' })
local proposal = model.parse(edit, texts, 'utf-16')
equal('files', vim.tbl_map(function(f)
  return f.kind
end, proposal.files), { 'edit', 'create', 'delete', 'rename' })
check('accept', decide.decide_hunk(proposal, '1.0', 'accepted'))
-- The user types in sub's line: its hunk can only be rejected now.
local at = #'def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return '
shift.follow(proposal.files[1], at, at + 1, 'b')
check('stale cannot be accepted', not decide.decide_hunk(proposal, '1.1', 'accepted'))
check('stale can be rejected', decide.decide_hunk(proposal, '1.1', 'rejected'))
check('the new file', decide.decide_operation(proposal, 2, 'accepted'))
check('the delete', decide.decide_operation(proposal, 3, 'rejected'))
check('the move', decide.decide_operation(proposal, 4, 'accepted'))
check('not settled yet', not decide.is_settled(proposal))
check('the moved hunk', decide.decide_hunk(proposal, '4.0', 'accepted'))
check('settled', decide.is_settled(proposal))
equal('accepted text', decide.accepted_text(proposal.files[1]), calc:gsub('a %- b', 'a + b', 1):gsub('return a %- b', 'return b - b'))
local reviewed = example('reviewed.json')
equal('reviewed.json direction', { reviewed.direction, reviewed.method }, { 'client->server', require('surehand.review').REVIEWED })
equal('reviewed.json hunks', vim.json.decode(vim.json.encode(decide.reviewed(proposal))), reviewed.params.hunks)

-- A file to delete that the user typed in can only be kept; accepting all keeps it.
local deleting = model.parse(
  { documentChanges = { { kind = 'delete', uri = root .. 'old.py' } } },
  { [root .. 'old.py'] = 'OLD = 1\n' },
  'utf-8'
)
check('delete pending', decide.pending_count(deleting) == 1)
shift.follow(deleting.files[1], 0, 0, '# keep\n')
check('typed-in delete is stale', deleting.files[1].operation_stale)
check('typed-in delete cannot be accepted', not decide.decide_operation(deleting, 1, 'accepted'))
decide.decide_all(deleting, 'accepted')
equal('accept all keeps it', deleting.files[1].operation, 'rejected')
equal('reported stale', decide.reviewed(deleting)[1].stale, true)

-- Undo puts decisions back, but never an accept on what went stale since.
local undoing = model.parse(edit, texts, 'utf-16')
local before = decide.snapshot(undoing)
decide.decide_hunk(undoing, '1.0', 'accepted')
local accepted = decide.snapshot(undoing)
decide.decide_hunk(undoing, '1.0', 'rejected')
decide.restore(undoing, before)
equal('undo to pending', decide.hunk_by_id(undoing, '1.0').decision, 'pending')
shift.follow(undoing.files[1], 20, 21, 'x')
decide.restore(undoing, accepted)
equal('a stale hunk is not accepted again by undo', decide.hunk_by_id(undoing, '1.0').decision, 'pending')

-- Every step example gives words, under its wire name and its old class name.
local CLASS = {
  step_started = 'StepStarted',
  model_calling = 'ModelCalling',
  model_retry = 'ModelRetry',
  tool_started = 'ToolStarted',
  tool_finished = 'ToolFinished',
  task_ended = 'TaskEnded',
}
local WORDS = {
  step_started = function(params)
    return ('step %d: thinking'):format(params.step)
  end,
  model_calling = function(params)
    return ('step %d: writing %s'):format(params.step, params.tool)
  end,
}
local seen = 0
for name in vim.fs.dir(examples) do
  local kind = name:match('^step%-(.+)%.json$')
  if kind then
    seen = seen + 1
    local msg = example(name)
    equal(name .. ' envelope', { msg.direction, msg.method, msg.params.kind }, { 'server->client', 'surehand/step', kind })
    check(name .. ' tool field', msg.params.name == nil, msg.params)
    local words = status.step_text(msg.params)
    local want = WORDS[kind] and WORDS[kind](msg.params) or msg.params.summary or msg.params.message
    equal(name .. ' words', words, want)
    local old = vim.tbl_extend('force', msg.params, { kind = CLASS[kind] })
    if old.tool then
      old.name, old.tool = old.tool, nil -- the class-name servers sent `name` for ModelCalling
    end
    equal(name .. ' words (class name)', status.step_text(old), want)
  end
end
equal('six step examples', seen, 6)

vim.fn.writefile({ vim.json.encode({ checks = checks, failures = failures }) }, result)
vim.cmd('qall!')
