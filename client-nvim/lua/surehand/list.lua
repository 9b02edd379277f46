--- The review list: a quickfix list with a row per decision (each file
--- operation and each hunk), in review order, each pointing at its line.
--- A decided row stays where it was and shows its decision ("✓ accepted: …",
--- "✗ rejected: …"): rows never move under `:cnext` or the cursor in the list
--- window, and the list is the record of the review once it is done. The
--- title counts what is left. When the proposal came with the tests'
--- verdict, the title carries its headline ("tests: 2 failed") and the
--- first rows its lines and the failing tests' names (rows with no place:
--- `:cnext` passes them by).
local buffers = require('surehand.buffers')
local decide = require('surehand.decide')
local navigate = require('surehand.navigate')
local status = require('surehand.status')
local text = require('surehand.text')
local verdict_words = require('surehand.verdict_words')
local visible = require('surehand.visible')

local M = {}

local TITLE = 'surehand review'
local list_id = nil

local KIND = { create = 'new file', delete = 'delete', rename = 'rename' }

--- The state of `file` in words: "2 to decide", "accepted", "partly accepted", "rejected".
function M.state(file)
  local pending = decide.pending_in(file)
  if pending > 0 then
    return ('%d to decide'):format(pending)
  end
  local accepted, rejected = 0, 0
  if file.kind ~= 'edit' then
    if file.operation == 'accepted' then
      accepted = accepted + 1
    else
      rejected = rejected + 1
    end
  end
  if file.kind ~= 'create' then
    for _, hunk in ipairs(file.hunks) do
      if decide.applies(hunk) then
        accepted = accepted + 1
      else
        rejected = rejected + 1
      end
    end
  end
  if accepted > 0 and rejected > 0 then
    return 'partly accepted'
  end
  return accepted > 0 and 'accepted' or 'rejected'
end

--- "◆ label", "✓ accepted: label", "✗ rejected: label", "⚠ stale, you typed here: label".
local function decided(decision, stale, label, again)
  if decision == 'accepted' then
    return '✓ accepted: ' .. label
  elseif decision == 'rejected' then
    return '✗ rejected: ' .. label .. (again and ' (you rejected it earlier in this task)' or '')
  elseif stale then
    return '⚠ stale, you typed here (reject only): ' .. label
  end
  return '◆ ' .. label
end

local function operation_row(file)
  local kind = KIND[file.kind]
  if file.kind == 'rename' then
    kind = 'rename → ' .. visible.line(buffers.relative(file.uri))
  end
  local label = visible.line(file.label)
  if file.kind == 'create' then
    local lines = #text.split_lines(decide.text_with(file, function()
      return true
    end))
    label = ('%s (%d line%s)'):format(label, lines, lines == 1 and '' or 's')
  end
  return { line = 0, text = ('[%s%s] %s'):format(file.governs and '⚑ ' or '', kind, decided(file.operation, file.operation_stale, label)) }
end

--- The rows of one file: its operation, then its hunks from top to bottom.
local function rows_of(file)
  local rows = {}
  if file.kind ~= 'edit' then
    rows[#rows + 1] = operation_row(file)
  end
  if file.kind ~= 'create' then -- a new file's hunks go with the file
    local starts = text.line_starts(file.text)
    local hunks = vim.list_extend({}, file.hunks)
    table.sort(hunks, decide.in_text_order)
    for _, hunk in ipairs(hunks) do
      local layout = navigate.layout(file.text, hunk, starts)
      local label = ('%s (%s)'):format(visible.line(hunk.label), navigate.summary(layout))
      rows[#rows + 1] = {
        line = layout.label_line,
        text = (file.governs and '[⚑] ' or '') .. decided(hunk.decision, hunk.stale, label, hunk.again),
      }
    end
  end
  if file.governs then
    for _, row in ipairs(rows) do
      if row.text:find('◆', 1, true) then
        row.text = row.text .. (' (⚑ %s: accept on its own)'):format(visible.line(file.governs))
      end
    end
  end
  return rows
end

--- The tests' rows (no place to go), then one row per decision, in review order.
function M.entries(review)
  local items = {}
  for _, row in ipairs(verdict_words.rows(review.tests)) do
    items[#items + 1] = { text = row, valid = 0 }
  end
  for _, file in ipairs(review.proposal.files) do
    local bufnr = review.shown[file.index]
    local valid = bufnr and vim.api.nvim_buf_is_valid(bufnr)
    for _, row in ipairs(rows_of(file)) do
      items[#items + 1] = {
        bufnr = valid and bufnr or nil,
        filename = (not valid) and vim.uri_to_fname(file.text_uri) or nil,
        lnum = row.line + 1,
        col = 1,
        text = row.text,
      }
    end
  end
  return items
end

local function ours()
  if list_id == nil then
    return false
  end
  return vim.fn.getqflist({ id = list_id }).id == list_id
end

--- "surehand review · 2 hunks, 1 new file left" (or "(done)"), with the tests'
--- headline when there is one: "surehand review · tests: 2 failed · 1 hunk left".
function M.title(review, done)
  local tests = verdict_words.headline(review.tests)
  local head = tests and (TITLE .. ' · ' .. tests) or TITLE
  if done then
    return TITLE .. ' (done)' .. (tests and (' · ' .. tests) or '')
  end
  if decide.is_settled(review.proposal) then
    return head .. ' · nothing left to decide'
  end
  return ('%s · %s left'):format(head, status.pending_words(decide.pending_summary(review.proposal)))
end

--- Put the review's decisions in the quickfix list (a list of its own, replaced
--- as it changes; the current row stays the current row).
function M.update(review, done)
  local what = { items = M.entries(review), title = M.title(review, done) }
  if ours() then
    what.id = list_id
    what.idx = vim.fn.getqflist({ id = list_id, idx = 0 }).idx
    vim.fn.setqflist({}, 'r', what)
  else
    vim.fn.setqflist({}, ' ', what)
    list_id = vim.fn.getqflist({ id = 0 }).id
  end
end

--- Open the list, leaving the cursor where it is.
function M.open()
  local win = vim.api.nvim_get_current_win()
  if ours() then
    local nr = vim.fn.getqflist({ id = list_id, nr = 0 }).nr
    vim.cmd(('silent %dchistory'):format(nr))
  end
  vim.cmd('botright copen 6')
  if vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_set_current_win(win)
  end
end

return M
