-- Applies generated hunks into real buffers the way the review does, and
-- checks each result against the text the decisions should give:
--
--   nvim --headless --clean -l tests/nvim/apply_cases.lua PLUGIN CASES.json RESULT.json
--
-- CASES.json: [{ text, dos, hunks = [{start, stop, new_text, accepted}] }] (byte offsets;
-- dos: the buffer's 'fileformat' is dos; undos: how many `undo` to run after).
-- RESULT.json: [{ ok, got, want, undone }] per case; `undone` is the text after
-- one `undo` per accepted hunk (it must be the original).
local plugin, cases_file, result_file = _G.arg[1], _G.arg[2], _G.arg[3]
vim.opt.runtimepath:prepend(plugin)
local apply = require('surehand.apply')
local buffers = require('surehand.buffers')
local decide = require('surehand.decide')
local text = require('surehand.text')

local cases = vim.json.decode(table.concat(vim.fn.readfile(cases_file), '\n'))
local out = {}
for _, case in ipairs(cases) do
  local bufnr = vim.api.nvim_create_buf(true, false)
  vim.bo[bufnr].undolevels = 1000
  vim.bo[bufnr].fileformat = case.dos and 'dos' or 'unix'
  local lines = text.split_lines(case.text)
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, true, #lines > 0 and lines or { '' })
  vim.bo[bufnr].eol = case.text:match('[\r\n]$') ~= nil
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd('let &undolevels = &undolevels')
  end)
  local file = { text = case.text, hunks = {} }
  for i, h in ipairs(case.hunks) do
    local decision = h.accepted and 'accepted' or 'rejected'
    file.hunks[i] = { index = i - 1, start = h.start, stop = h.stop, new_text = h.new_text, decision = decision, stale = false }
  end
  local shown = buffers.text(bufnr)
  local accepted = vim.tbl_filter(decide.applies, file.hunks)
  apply.put_hunks(bufnr, file, accepted)
  local got = buffers.text(bufnr)
  local want = decide.accepted_text(file)
  for _ = 1, case.undos do
    vim.api.nvim_buf_call(bufnr, function()
      vim.cmd('silent undo')
    end)
  end
  local undone = buffers.text(bufnr)
  table.insert(out, { ok = got == want, got = got, want = want, shown = shown, undone = undone })
  vim.api.nvim_buf_delete(bufnr, { force = true })
end
vim.fn.writefile({ vim.json.encode(out) }, result_file)
vim.cmd('qall!')
