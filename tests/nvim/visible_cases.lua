-- The plugin's visible rule (client-nvim/lua/surehand/visible.lua) on the
-- texts a test gives, for the test to compare with Python's editing.visible:
--
--   nvim --headless --clean -l tests/nvim/visible_cases.lua PLUGIN CASES.json RESULT
--
-- CASES.json: { table = <bool>, cases = [ {text, keep?, code?} ] }; RESULT gets
-- { hidden = <the Lua table>, shown = [ <visible(text, keep) or code(text)> ] }.
local plugin, cases_file, result = _G.arg[1], _G.arg[2], _G.arg[3]
vim.opt.runtimepath:prepend(plugin)
local visible = require('surehand.visible')

local spec = vim.json.decode(table.concat(vim.fn.readfile(cases_file, 'b'), '\n'))
local shown = {}
for _, case in ipairs(spec.cases) do
  if case.code then
    shown[#shown + 1] = visible.code(case.text)
  else
    shown[#shown + 1] = visible.visible(case.text, case.keep)
  end
end
vim.fn.writefile({ vim.json.encode({ hidden = visible.HIDDEN, shown = shown }) }, result, 'b')
vim.cmd('qall!')
