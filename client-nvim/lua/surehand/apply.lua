--- Applying a decided proposal: exactly the accepted hunks and file
--- operations, into buffers (nothing is saved: the user saves). Each accepted
--- hunk is its own undo step. A file whose text is no longer the one the
--- hunks were tracked against is left alone and its hunks (and its move)
--- count as rejected: never applied to the wrong lines.
local buffers = require('surehand.buffers')
local decide = require('surehand.decide')
local text = require('surehand.text')

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

local function strip_break(s)
  return (s:gsub('\r?\n$', '', 1):gsub('\r$', '', 1))
end

--- Replace the byte span [start, stop) of the buffer's text (`file_text`,
--- whose line starts are `starts`) by `new_text`.
local function replace(bufnr, file_text, starts, start, stop, new_text)
  local srow, scol = text.row_col(file_text, start, starts)
  local erow, ecol = text.row_col(file_text, stop, starts)
  local count = vim.api.nvim_buf_line_count(bufnr)
  local eol = nil
  local function last_len()
    return #vim.api.nvim_buf_get_lines(bufnr, count - 1, count, true)[1]
  end
  if erow >= count then
    -- The span runs past the last line's break, which the API cannot address:
    -- leave that break where it is ('eol') and replace up to it.
    if new_text == '' and srow == 0 and scol == 0 then
      vim.api.nvim_buf_set_lines(bufnr, 0, -1, true, {})
      vim.bo[bufnr].eol = false
      return
    end
    erow, ecol = count - 1, last_len()
    if srow >= count then
      srow, scol = erow, ecol
      new_text = '\n' .. new_text
    elseif new_text == '' and scol == 0 and srow > 0 then
      srow = srow - 1 -- absorb the break before, keep the final one
      scol = #vim.api.nvim_buf_get_lines(bufnr, srow, srow + 1, true)[1]
    end
    if ends_with_break(new_text) then
      new_text = strip_break(new_text)
    elseif new_text ~= '' then
      eol = false
    end
  end
  local normal = new_text:gsub('\r\n?', '\n')
  local lines = vim.split(normal, '\n', { plain = true })
  vim.api.nvim_buf_set_text(bufnr, srow, scol, erow, ecol, lines)
  if eol ~= nil then
    vim.bo[bufnr].eol = eol
  end
end

--- Put `file`'s accepted hunks into `bufnr` (whose text is `file.text`), last first.
local function put_hunks(bufnr, file, accepted)
  table.sort(accepted, function(a, b)
    return a.start > b.start
  end)
  local starts = text.line_starts(file.text)
  vim.bo[bufnr].modifiable = true
  for _, hunk in ipairs(accepted) do
    undo_break(bufnr)
    replace(bufnr, file.text, starts, hunk.start, hunk.stop, hunk.new_text)
  end
  undo_break(bufnr)
end

local function fname(uri)
  return vim.uri_to_fname(uri)
end

--- The buffer of a file just made on disk, holding `content`, unsaved.
local function fill_new(uri, content)
  local bufnr = vim.fn.bufadd(fname(uri))
  vim.fn.bufload(bufnr)
  vim.bo[bufnr].buflisted = true
  if content:match('\r\n') then
    vim.bo[bufnr].fileformat = 'dos'
  end
  local lines = text.split_lines(content)
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, true, lines)
  vim.bo[bufnr].eol = content == '' or ends_with_break(content)
  vim.bo[bufnr].modified = true
  return bufnr
end

---@return {applied: boolean, failure_reason: string?, skipped: string[], mismatched: string[]}
function M.apply(proposal, encoding)
  local skipped, mismatched = {}, {}
  local plan = {}
  -- Check every file first: nothing is applied to a file whose text moved on.
  for _, file in ipairs(proposal.files) do
    local accepted = vim.tbl_filter(decide.applies, file.hunks)
    if (file.kind == 'edit' or file.kind == 'rename') and #accepted > 0 then
      local bufnr = buffers.load(file.text_uri)
      if bufnr == nil or buffers.text(bufnr) ~= file.text then
        skipped[#skipped + 1] = file.uri
        decide.leave_out(file)
      else
        plan[file.index] = { bufnr = bufnr, accepted = accepted }
      end
    elseif file.kind == 'create' and file.operation == 'accepted' and vim.uv.fs_stat(fname(file.uri)) then
      skipped[#skipped + 1] = file.uri -- something made the file meanwhile: never overwrite it
      file.operation, file.operation_stale = 'rejected', true
      for _, hunk in ipairs(file.hunks) do
        hunk.decision = 'rejected'
      end
    end
  end
  if not decide.any_accepted(proposal) then
    local reason = #skipped > 0 and 'The files changed during the review.' or 'The user rejected the proposal.'
    return { applied = false, failure_reason = reason, skipped = skipped, mismatched = mismatched }
  end
  for _, file in ipairs(proposal.files) do
    local step = plan[file.index]
    if file.kind == 'create' and file.operation == 'accepted' then
      vim.lsp.util.apply_workspace_edit({
        documentChanges = { { kind = 'create', uri = file.uri, options = { overwrite = false, ignoreIfExists = false } } },
      }, encoding)
      local content = decide.accepted_text(file)
      local bufnr = fill_new(file.uri, content)
      if buffers.text(bufnr) ~= content then
        mismatched[#mismatched + 1] = file.uri
      end
    elseif file.kind == 'delete' and file.operation == 'accepted' then
      vim.lsp.util.apply_workspace_edit({
        documentChanges = { { kind = 'delete', uri = file.uri, options = { ignoreIfNotExists = true } } },
      }, encoding)
    elseif file.kind == 'edit' or file.kind == 'rename' then
      local bufnr = step and step.bufnr
      -- The move first (it writes the buffer as it was), then the hunks into
      -- the moved buffer, unsaved.
      if file.kind == 'rename' and file.operation == 'accepted' then
        vim.lsp.util.rename(fname(file.text_uri), fname(file.uri), { overwrite = false })
        bufnr = step and buffers.load(file.uri)
      end
      if step and bufnr then
        put_hunks(bufnr, file, step.accepted)
        if buffers.text(bufnr) ~= decide.accepted_text(file) then
          mismatched[#mismatched + 1] = file.uri
        end
      end
    end
  end
  return { applied = true, skipped = skipped, mismatched = mismatched }
end

M._replace = replace

return M
