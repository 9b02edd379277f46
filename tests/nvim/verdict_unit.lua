-- The tests' verdict in the plugin's words (verdict_words.lua), in the review
-- list's title and rows and in the statusline, checked in a headless Neovim:
--
--   nvim --headless --clean -l tests/nvim/verdict_unit.lua PLUGIN EXAMPLES RESULT
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

local words = require('surehand.verdict_words')
local list = require('surehand.list')
local model = require('surehand.model')
local status = require('surehand.status')

local ESC, RLO = '\27', '\226\128\174' -- U+202E RIGHT-TO-LEFT OVERRIDE

local function run(fields)
  return vim.tbl_extend('force', {
    status = 'passed',
    exitCode = 0,
    passed = 41,
    failed = 0,
    failing = {},
    seconds = 1.2,
    ranBy = 'surehand',
    contained = true,
    where = 'sandboxed (bubblewrap, no network)',
    state = '0123456789abcdef',
    result = '41 passed',
  }, fields)
end

-- The verdicts as the server sends them (agent/checks/verdicts.py, Verdict.as_json).
local PASSED = {
  command = 'python3 -m pytest -q',
  argv = { 'python3', '-m', 'pytest', '-q' },
  status = 'passed',
  on = 'proposal',
  line = 'tests `python3 -m pytest -q`: 41 passed on the proposed change; run by surehand, '
    .. 'sandboxed (bubblewrap, no network), in a copy of the workspace, 1.2 s.',
  short = '41 passed',
  why = '',
  run = run({}),
}
local FAILED = {
  command = 'npm test',
  argv = { 'npm', 'test' },
  status = 'failed',
  on = 'proposal',
  line = 'tests `npm test`: 2 failed, 3 passed on the proposed change; failing: adds, subtracts; run by the model, '
    .. 'sandboxed (bubblewrap, no network), in a copy of the workspace, 0.4 s; on the untouched workspace: 5 passed.',
  short = '2 failed',
  why = '',
  run = run({ status = 'failed', exitCode = 1, passed = 3, failed = 2, failing = { 'adds', 'subtracts' }, result = '2 failed, 3 passed' }),
  baseline = run({ passed = 5, result = '5 passed' }),
}
local STALE = {
  command = 'cargo test',
  argv = { 'cargo', 'test' },
  status = 'stale',
  on = 'proposal',
  line = 'tests `cargo test`: not run on the proposed change; its last run was on an earlier state '
    .. '(7 passed), and it would need your approval (not on the allowlist).',
  short = 'stale',
  why = 'it would need your approval (not on the allowlist)',
  run = run({ passed = 7, result = '7 passed' }),
}
-- A verdict from a server that sends neither `line` nor `short`: made from its status.
local NOT_RUN = {
  command = 'make test',
  argv = { 'make', 'test' },
  status = 'not_run',
  on = 'proposal',
  why = 'checking before review is off (testsBeforeReview)',
}

-- Passed.
local passed = { on = 'proposal', state = 'done', headline = 'tests: 41 passed', verdicts = { PASSED } }
equal('passed: headline', words.headline(passed), 'tests: 41 passed')
equal('passed: rows', words.rows(passed), { PASSED.line })
equal('passed: not a warning', words.bad(passed), false)

-- Failed, with the failing tests' names.
local failed = { on = 'proposal', state = 'done', headline = 'tests: 2 failed', verdicts = { FAILED } }
equal('failed: headline', words.headline(failed), 'tests: 2 failed')
equal('failed: the names', words.failing(FAILED), { 'adds', 'subtracts' })
equal('failed: rows', words.rows(failed), { FAILED.line, '  ✗ failing: adds', '  ✗ failing: subtracts' })
equal('failed: a warning', words.bad(failed), true)
equal('an error is a warning too', words.bad({ verdicts = { { status = 'error', short = 'error' } } }), true)

-- Stale, and not run (made from the status when the server sends no words).
equal('stale: short', words.short(STALE), 'stale')
equal('stale: its line', words.line(STALE), STALE.line)
equal('not run: short from the status', words.short(NOT_RUN), 'not run')
equal(
  'not run: a line from the command and why',
  words.line(NOT_RUN),
  'tests `make test`: not run: checking before review is off (testsBeforeReview)'
)
local mixed = { on = 'proposal', state = 'done', verdicts = { PASSED, STALE, NOT_RUN } }
equal('no headline given: made of the shorts', words.headline(mixed), 'tests: 41 passed; stale; not run')
equal('stale and not run are no warning', words.bad(mixed), false)

-- No verdict: nothing to show.
equal('no verdicts: no headline', words.headline({ on = 'proposal', state = 'done', headline = '', verdicts = {} }), nil)
equal('nil: no headline', words.headline(nil), nil)
equal('nil: no rows', words.rows(nil), {})
equal('a verdicts field that is not a list', words.verdicts({ verdicts = vim.NIL }), {})

-- Hidden characters (a test's name, a command, the server's words) are escaped.
local SPOOF = {
  command = 'npm test' .. ESC .. '[2K',
  argv = { 'npm', 'test' },
  status = 'failed',
  short = '1 failed' .. ESC .. '[1G',
  run = run({ status = 'failed', failed = 1, failing = { 'adds ' .. RLO .. 'evil', 'two\nlines' } }),
}
local spoofed = { headline = 'tests: 1 failed' .. ESC .. '[2K', verdicts = { SPOOF } }
equal('escaped: headline', words.headline(spoofed), 'tests: 1 failed\\x1b[2K')
equal('escaped: short', words.short(SPOOF), '1 failed\\x1b[1G')
equal('escaped: the line made here', words.line(SPOOF), 'tests `npm test\\x1b[2K`: 1 failed\\x1b[1G')
equal('escaped: rows', words.rows(spoofed), {
  'tests `npm test\\x1b[2K`: 1 failed\\x1b[1G',
  '  ✗ failing: adds \\u202eevil',
  '  ✗ failing: two\\x0alines',
})
local line = words.line({ line = 'tests `x`: ' .. RLO .. 'deliaf' })
equal('escaped: the server line', line, 'tests `x`: \\u202edeliaf')
equal('at most 20 names', #words.failing({ run = run({ failing = vim.split(string.rep('t,', 30), ',', { trimempty = true }) }) }), 20)

-- The messages after a review that rejected something.
local accepted = vim.tbl_extend('force', failed, { on = 'accepted', rejected = 1, hunks = 3 })
equal(
  'accepted: the headline first, then every line',
  words.accepted_message(accepted),
  'surehand: tests: 2 failed on what you accepted. ' .. FAILED.line
)
equal(
  'accepted: none to run',
  words.accepted_message({ on = 'accepted', state = 'done', verdicts = {} }),
  'surehand: no test commands to run on what you accepted (the testCommands setting names them)'
)
equal('offered', words.offered_message(), 'surehand: :SurehandCheckTests runs the tests on what you accepted')

-- The task's closing message: the tests on what was accepted, else an applied proposal's.
local partly = { outcome = 'partly_applied', tests = { PASSED }, testsAccepted = { FAILED } }
equal('outcome: accepted', words.outcome_words(partly), ' (tests: 2 failed on what you accepted)')
equal('outcome: accepted is a warning', words.outcome_bad(partly), true)
equal('outcome: applied', words.outcome_words({ outcome = 'applied', tests = { PASSED } }), ' (tests: 41 passed)')
equal('outcome: applied, passed is no warning', words.outcome_bad({ outcome = 'applied', tests = { PASSED } }), false)
equal('outcome: discarded says nothing of tests', words.outcome_words({ outcome = 'discarded', tests = { FAILED } }), '')
equal('outcome: no tests', words.outcome_words({ outcome = 'applied' }), '')

-- The review list: the title carries the headline, the first rows the lines (with no place).
local root = 'file:///project/'
local edit = {
  documentChanges = {
    {
      textDocument = { uri = root .. 'calc.py', version = vim.NIL },
      edits = {
        {
          range = { start = { line = 1, character = 0 }, ['end'] = { line = 2, character = 0 } },
          newText = '    return a + b\n',
          annotationId = 'a',
        },
      },
    },
  },
  changeAnnotations = { a = { label = 'add adds', needsConfirmation = true } },
}
local proposal = model.parse(edit, { [root .. 'calc.py'] = 'def add(a, b):\n    return a - b\n' }, 'utf-16')
local review = { proposal = proposal, shown = {}, tests = failed }
equal('list title', list.title(review, false), 'surehand review · tests: 2 failed · 1 hunk left')
equal('list title (done)', list.title(review, true), 'surehand review (done) · tests: 2 failed')
local entries = list.entries(review)
equal('list rows', vim.tbl_map(function(item)
  return { item.text, item.valid }
end, entries), {
  { FAILED.line, 0 },
  { '  ✗ failing: adds', 0 },
  { '  ✗ failing: subtracts', 0 },
  { '◆ add adds (replace 1 line with 1)', nil },
})
equal('list title without tests', list.title({ proposal = proposal, shown = {} }, false), 'surehand review · 1 hunk left')
equal('list rows without tests', #list.entries({ proposal = proposal, shown = {} }), 1)

-- The statusline: the review with its headline; the check of the accepted part.
status.reviewing({ hunks = 1, create = 0, rename = 0, delete = 0 }, 'tests: 2 failed' .. ESC .. '[2K')
equal('statusline: review and tests', status.text(), 'surehand: review 1 hunk · tests: 2 failed\\x1b[2K')
status.reviewing(nil)
status.checking('running the tests on what you accepted…')
equal('statusline: checking', status.text(), 'surehand: running the tests on what you accepted…')
status.checking(nil)
equal('statusline: idle again', status.text(), '')
status.checking('running the tests on what you accepted…')
status.server('stopped', 'signal 9')
equal('statusline: a server that stopped checks nothing', status.text(), 'surehand: stopped')
status.server('none')

-- The protocol's examples read as the server means them.
local function example(name)
  return vim.json.decode(table.concat(vim.fn.readfile(vim.fs.joinpath(examples, name)), '\n'))
end
local seen = 0
for name in vim.fs.dir(examples) do
  if name:match('^tests%-.*%.json$') then
    seen = seen + 1
    local message = example(name)
    local params = message.params
    equal(name .. ' envelope', { message.direction, message.method }, { 'server->client', 'surehand/tests' })
    local headline = words.headline(params)
    equal(name .. ' headline', headline, #words.verdicts(params) > 0 and params.headline or nil)
    for _, verdict in ipairs(words.verdicts(params)) do
      equal(name .. ' line', words.line(verdict), verdict.line)
      equal(name .. ' short', words.short(verdict), verdict.short)
    end
  end
end
equal('four surehand/tests examples', seen, 4)
local checked = example('command-surehand.checkTests.json').result
equal('checkTests example: headline', words.headline(checked), 'tests: 1 failed')
equal('checkTests example: a warning', words.bad(checked), true)
local checked_message = 'surehand: tests: 1 failed on what you accepted. ' .. checked.summary
equal('checkTests example: the message', words.accepted_message(checked), checked_message)
equal('checkTests example: the failing name', words.failing(checked.verdicts[1]), { 'test_add (test_calc.CalcTest.test_add)' })

-- The handler: a proposal's verdict kept for its review (once); the accepted part's said.
local verdicts = require('surehand.verdicts')
local say = require('surehand.say')
local proposal_done = example('tests-proposal-done.json').params
verdicts.on_tests(nil, proposal_done)
equal('handler: the review takes the proposal verdict', verdicts.take(), proposal_done)
equal('handler: once', verdicts.take(), nil)
verdicts.on_tests(nil, proposal_done)
verdicts.new_task()
equal('handler: a new task forgets it', verdicts.take(), nil)
verdicts.on_tests(nil, example('tests-accepted-running.json').params)
equal('handler: running in the statusline', status.text(), 'surehand: running the tests on what you accepted…')
local accepted_done = example('tests-accepted-done.json').params
verdicts.on_tests(nil, accepted_done)
equal('handler: done, the statusline idle again', status.text(), '')
local kept = say.kept()
equal('handler: said', { kept[#kept - 1].text, kept[#kept].text }, {
  'surehand: running the tests on what you accepted…',
  words.accepted_message(accepted_done),
})
equal('handler: a warning when a test failed', kept[#kept].level, vim.log.levels.WARN)
verdicts.on_tests(nil, example('tests-accepted-offered.json').params)
equal('handler: offered', say.kept()[#say.kept()].text, words.offered_message())

vim.fn.writefile({ vim.json.encode({ checks = checks, failures = failures }) }, result)
vim.cmd('qall!')
