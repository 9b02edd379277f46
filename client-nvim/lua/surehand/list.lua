--- The review list: a quickfix list with one entry per changed file and what
--- is left to decide in it (new, deleted and renamed files included, each
--- pointing at its preview or its buffer).
local buffers = require('surehand.buffers')
local decide = require('surehand.decide')
local navigate = require('surehand.navigate')
local visible = require('surehand.visible')

local M = {}

local TITLE = 'surehand review'
local list_id = nil

local KIND = { edit = 'edit', create = 'new file', delete = 'delete', rename = 'rename' }

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

--- One line per file: "[rename → pkg/b.py] 1 to decide: move f".
function M.entries(review)
  local items = {}
  for _, file in ipairs(review.proposal.files) do
    local kind = KIND[file.kind]
    if file.kind == 'rename' then
      kind = 'rename → ' .. visible.line(buffers.relative(file.uri))
    end
    if file.governs then
      kind = '⚑ ' .. kind
    end
    local line = 1
    for _, stop in ipairs(navigate.pending_stops(review.proposal)) do
      if stop.file == file.index then
        line = stop.line + 1
        break
      end
    end
    local bufnr = review.shown[file.index]
    items[#items + 1] = {
      bufnr = (bufnr and vim.api.nvim_buf_is_valid(bufnr)) and bufnr or nil,
      filename = (bufnr and vim.api.nvim_buf_is_valid(bufnr)) and nil or vim.uri_to_fname(file.text_uri),
      lnum = line,
      col = 1,
      text = ('[%s] %s: %s%s'):format(
        kind,
        M.state(file),
        visible.line(file.label),
        file.governs and (' (⚑ %s: accept on its own)'):format(visible.line(file.governs)) or ''
      ),
    }
  end
  return items
end

local function ours()
  if list_id == nil then
    return false
  end
  return vim.fn.getqflist({ id = list_id }).id == list_id
end

--- Put the review's files in the quickfix list (a list of its own, replaced as it changes).
function M.update(review, done)
  local title = done and (TITLE .. ' (done)') or TITLE
  local what = { items = M.entries(review), title = title }
  if ours() then
    what.id = list_id
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
