-- The plugin's words for undoing a task (client-nvim/lua/surehand/history.lua)
-- on the tasks and results a test gives:
--
--   nvim --headless --clean -l tests/nvim/history_cases.lua PLUGIN CASES.json RESULT
--
-- CASES.json: { history = <surehand.history's result>, results = [ <surehand.undoTask's result> ] };
-- RESULT gets { question = <the question about the task to undo, or null>,
-- reports = [ {text, level} ], lines = [ <:SurehandHistory's lines> ] }.
local plugin, cases_file, result = _G.arg[1], _G.arg[2], _G.arg[3]
vim.opt.runtimepath:prepend(plugin)
local history = require('surehand.history')

local spec = vim.json.decode(table.concat(vim.fn.readfile(cases_file, 'b'), '\n'), { luanil = { object = true } })
local tasks = spec.history.tasks
local last = history.last_undoable(tasks)
local reports = {}
for _, answer in ipairs(spec.results) do
  local text, level = history.report(answer)
  reports[#reports + 1] = { text = text, level = level }
end
local out = {
  question = last and history.question(last) or vim.NIL,
  reports = reports,
  lines = history.lines(tasks),
  not_newest = last and history.not_newest(tasks, 'older', last) or vim.NIL,
}
vim.fn.writefile({ vim.json.encode(out) }, result, 'b')
vim.cmd('qall!')
