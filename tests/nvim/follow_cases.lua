-- Typing in a buffer under review, at random, through the plugin's real
-- review (`workspace/applyEdit` handler, `on_bytes` following):
--
--   nvim --headless --clean -l tests/nvim/follow_cases.lua PLUGIN DIR CASES.json RESULT.json
--
-- CASES.json: [{ text, edits = [{range, newText}] (utf-16 positions), seed, typing }].
-- For each case: the file is written in DIR and opened, the proposal reviewed,
-- `typing` random changes made with nvim_buf_set_text, every hunk accepted.
-- RESULT.json per case: { tracked, holds, final, expected, stale }:
--   tracked  the review's copy of the text equals the buffer after the typing
--   holds    each hunk that is not stale still spans exactly its old text
--   final / expected  the buffer after the review / the typed text with the
--            hunks that were not stale put in (computed apart from the plugin)
local plugin, dir, cases_file, result_file = _G.arg[1], _G.arg[2], _G.arg[3], _G.arg[4]
vim.opt.runtimepath:prepend(plugin)
require('surehand').load()
require('surehand.config').setup({ review = { open_list = false } })
vim.notify = function() end
local review = require('surehand.review')
local buffers = require('surehand.buffers')

local ALPHABET = { 'a', 'b', ' ', '\n', 'é', '日', '😀', 'x' }

local function random_position(bufnr)
  local count = vim.api.nvim_buf_line_count(bufnr)
  local row = math.random(0, count - 1)
  local line = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, true)[1]
  local col = math.random(0, #line)
  if col < #line then
    col = col + vim.str_utf_start(line, col + 1) -- back to the start of its character
  end
  return row, col
end

local function type_once(bufnr)
  local r1, c1 = random_position(bufnr)
  local r2, c2 = random_position(bufnr)
  if r2 < r1 or (r2 == r1 and c2 < c1) then
    r1, c1, r2, c2 = r2, c2, r1, c1
  end
  if math.random() < 0.5 then
    r2, c2 = r1, c1 -- a pure insertion, as most typing is
  end
  local pieces = {}
  for _ = 1, math.random(0, 4) do
    pieces[#pieces + 1] = ALPHABET[math.random(#ALPHABET)]
  end
  local lines = vim.split(table.concat(pieces), '\n', { plain = true })
  vim.api.nvim_buf_set_text(bufnr, r1, c1, r2, c2, lines)
end

local cases = vim.json.decode(table.concat(vim.fn.readfile(cases_file), '\n'))
local out = {}
for i, case in ipairs(cases) do
  math.randomseed(case.seed)
  local path = vim.fs.joinpath(dir, ('case%d.txt'):format(i))
  local f = assert(io.open(path, 'wb'))
  f:write(case.text)
  f:close()
  local uri = vim.uri_from_fname(path)
  local edit = { documentChanges = { { textDocument = { uri = uri, version = vim.NIL }, edits = case.edits } } }
  local answer = nil
  coroutine.wrap(function()
    answer = review.handle_apply_edit(nil, { edit = edit }, { client_id = -1 })
  end)()
  local open = review.current()
  local result = { opened = open ~= nil }
  if open then
    local bufnr = open.shown[1]
    for _ = 1, case.typing do
      type_once(bufnr)
    end
    vim.wait(0)
    local file = open.proposal.files[1]
    local typed = buffers.text(bufnr)
    result.tracked = file.text == typed
    result.holds = true
    result.stale = 0
    local keep = {}
    for _, hunk in ipairs(file.hunks) do
      if hunk.stale then
        result.stale = result.stale + 1
      else
        keep[#keep + 1] = hunk
        if typed:sub(hunk.start + 1, hunk.stop) ~= hunk.old_text then
          result.holds = false
        end
      end
    end
    table.sort(keep, function(a, b)
      return a.start < b.start or (a.start == b.start and a.index < b.index)
    end)
    local parts, at = {}, 0
    for _, hunk in ipairs(keep) do
      parts[#parts + 1] = typed:sub(at + 1, hunk.start) .. hunk.new_text
      at = hunk.stop
    end
    result.expected = table.concat(parts) .. typed:sub(at + 1)
    require('surehand.decisions').decide_all('accepted')
    vim.wait(2000, function()
      return answer ~= nil
    end, 5)
    result.answered = answer ~= nil
    result.final = buffers.text(bufnr)
    vim.api.nvim_buf_delete(bufnr, { force = true })
  end
  out[#out + 1] = result
end
vim.fn.writefile({ vim.json.encode(out) }, result_file)
vim.cmd('qall!')
