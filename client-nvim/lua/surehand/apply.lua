--- Applying a decided proposal: exactly the accepted hunks and file
--- operations, into buffers (nothing is saved: the user saves; a new, moved
--- or deleted file changes on disk when its buffer is written, see
--- `surehand.saving`). Each accepted hunk is its own undo step. A file whose
--- text is no longer the one the hunks were tracked against is left alone
--- and its hunks (and its move) count as rejected: never applied to the
--- wrong lines. A text without a final line break is kept so when written:
--- the buffer gets 'noeol' and 'nofixeol'.
local buffers = require('surehand.buffers')
local decide = require('surehand.decide')
local text = require('surehand.text')

local saving = require('surehand.saving')

local M = {}

--- End the current undo block of `bufnr`, so the next change is its own step.
local function undo_break(bufnr)
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd('let &undolevels = &undolevels')
  end)
end

local function ends_with_break(s)
  return s:match('[\r\n]$') ~= nil
end

--- Make `bufnr` hold `new_text` (its text as the server sees it), changing
--- only the lines between the ones that stay the same at either end.
local function write_text(bufnr, new_text)
  local old = vim.api.nvim_buf_get_lines(bufnr, 0, -1, true)
  local new = text.split_lines(new_text)
  local eol = ends_with_break(new_text)
  if #new == 0 then
    new = { '' }
  end
  local first = 0
  while first < #old and first < #new and old[first + 1] == new[first + 1] do
    first = first + 1
  end
  local last = 0
  while last < #old - first and last < #new - first and old[#old - last] == new[#new - last] do
    last = last + 1
  end
  if first < #old - last or first < #new - last then
    vim.api.nvim_buf_set_lines(bufnr, first, #old - last, true, vim.list_slice(new, first + 1, #new - last))
  end
  M.final_break(bufnr, eol)
end

--- Give `bufnr` a final line break or none, as the text has it, also when written.
function M.final_break(bufnr, eol)
  if vim.bo[bufnr].eol ~= eol then
    vim.bo[bufnr].eol = eol
  end
  if not eol and vim.bo[bufnr].fixeol then
    vim.bo[bufnr].fixeol = false
  end
end

--- Put `file`'s accepted hunks into `bufnr` (whose text is `file.text`), last
--- first, each its own undo step.
local function put_hunks(bufnr, file, accepted)
  table.sort(accepted, function(a, b)
    return decide.in_text_order(b, a)
  end)
  vim.bo[bufnr].modifiable = true
  local now = file.text
  for _, hunk in ipairs(accepted) do
    undo_break(bufnr)
    now = now:sub(1, hunk.start) .. hunk.new_text .. now:sub(hunk.stop + 1)
    write_text(bufnr, now)
  end
  undo_break(bufnr)
end

local function fname(uri)
  return vim.uri_to_fname(uri)
end

--- A buffer for the new file `uri` (not on disk), holding `content`, unsaved.
local function fill_new(uri, content)
  local bufnr = vim.fn.bufadd(fname(uri))
  vim.fn.bufload(bufnr)
  vim.bo[bufnr].buflisted = true
  if content:match('\r\n') then
    vim.bo[bufnr].fileformat = 'dos'
  end
  local lines = text.split_lines(content)
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, true, lines)
  if content == '' then
    -- An empty file is empty (0 bytes, as Neovim writes an empty buffer); what is typed
    -- into it later still gets its final line break on :w ('fixeol' stays).
    vim.bo[bufnr].eol = false
  else
    M.final_break(bufnr, ends_with_break(content))
  end
  vim.bo[bufnr].modified = true
  saving.create(bufnr)
  return bufnr
end

--- Whether a new file may be made at `uri`: nothing is there, on disk or in a buffer with text.
local function free(uri)
  if vim.uv.fs_stat(fname(uri)) then
    return false
  end
  local bufnr = vim.fn.bufnr(fname(uri))
  return bufnr == -1 or not vim.api.nvim_buf_is_loaded(bufnr) or buffers.text(bufnr) == ''
end

local function count_out(file)
  file.operation, file.operation_stale = 'rejected', true
  if file.kind == 'create' then
    for _, hunk in ipairs(file.hunks) do
      hunk.decision = 'rejected'
    end
  end
end

---@return {applied: boolean, failure_reason: string?, skipped: string[], mismatched: string[]}
function M.apply(proposal)
  local skipped, mismatched = {}, {}
  local plan = {}
  -- Check every file first: nothing is applied to a file whose text moved on,
  -- no file is made or moved over one that is there now.
  for _, file in ipairs(proposal.files) do
    local accepted = vim.tbl_filter(decide.applies, file.hunks)
    local moving = file.kind == 'rename' and file.operation == 'accepted'
    if (file.kind == 'edit' or file.kind == 'rename') and (#accepted > 0 or moving) then
      local bufnr = buffers.load(file.text_uri)
      if bufnr == nil or buffers.text(bufnr) ~= file.text then
        skipped[#skipped + 1] = file.uri
        decide.leave_out(file)
      elseif moving and not free(file.uri) then
        skipped[#skipped + 1] = file.uri -- something is at the new name: never overwrite it
        count_out(file)
        plan[file.index] = #accepted > 0 and { bufnr = bufnr, accepted = accepted } or nil
      else
        plan[file.index] = { bufnr = bufnr, accepted = accepted }
      end
    elseif file.kind == 'create' and file.operation == 'accepted' and not free(file.uri) then
      skipped[#skipped + 1] = file.uri -- something made the file meanwhile: never overwrite it
      count_out(file)
    end
  end
  if not decide.any_accepted(proposal) then
    local reason = #skipped > 0 and 'The files changed during the review.' or 'The user rejected the proposal.'
    return { applied = false, failure_reason = reason, skipped = skipped, mismatched = mismatched }
  end
  for _, file in ipairs(proposal.files) do
    local step = plan[file.index]
    if file.kind == 'create' and file.operation == 'accepted' then
      local content = decide.accepted_text(file)
      local bufnr = fill_new(file.uri, content)
      if buffers.text(bufnr) ~= content then
        mismatched[#mismatched + 1] = file.uri
      end
    elseif file.kind == 'delete' and file.operation == 'accepted' then
      local bufnr = buffers.load(file.uri)
      if bufnr then
        saving.delete(bufnr, fname(file.uri))
      end
    elseif step then
      -- The hunks into the buffer, then (a move) the buffer under its new name, unsaved.
      put_hunks(step.bufnr, file, step.accepted)
      if buffers.text(step.bufnr) ~= decide.accepted_text(file) then
        mismatched[#mismatched + 1] = file.uri
      end
      if file.kind == 'rename' and file.operation == 'accepted' and not saving.move(step.bufnr, fname(file.text_uri), fname(file.uri)) then
        skipped[#skipped + 1] = file.uri
        count_out(file)
      end
    end
  end
  return { applied = true, skipped = skipped, mismatched = mismatched }
end

M.put_hunks = put_hunks

return M
