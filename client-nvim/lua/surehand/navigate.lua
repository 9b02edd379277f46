--- Where a hunk shows and moving through a review by keyboard: the decisions
--- in order (each file's operation at its top, then its hunks from top to
--- bottom, files in the proposal's order), the one under the cursor, the
--- next and previous one (as the VS Code extension's `layout.ts` and
--- `navigate.ts`). Lines are 0-based.
local text = require('surehand.text')

local M = {}

---@class surehand.Layout
---@field label_line integer  the line the hunk's label goes on
---@field removed {start: integer, stop: integer}?  the lines [start, stop) it replaces
---@field added string[]      the lines it puts there
---@field anchor_line integer the added lines show below this line; -1: above the first line

---@return surehand.Layout
function M.layout(file_text, hunk, starts)
  starts = starts or text.line_starts(file_text)
  local first_line, first_col = text.row_col(file_text, hunk.start, starts)
  local last_line, last_col = text.row_col(file_text, hunk.stop, starts)
  local added = text.split_lines(hunk.new_text)
  if hunk.start == hunk.stop then
    -- An insertion at the start of a line goes above it; one inside a line, after it.
    local anchor = first_col == 0 and first_line - 1 or first_line
    return { label_line = first_line, added = added, anchor_line = anchor }
  end
  local stop = (last_col == 0 and last_line > first_line) and last_line or last_line + 1
  return { label_line = first_line, removed = { start = first_line, stop = stop }, added = added, anchor_line = stop - 1 }
end

--- "replace 2 lines with 3", "insert 1 line", "delete 4 lines".
function M.summary(layout)
  local function lines(n)
    return ('%d line%s'):format(n, n == 1 and '' or 's')
  end
  local removed = layout.removed and (layout.removed.stop - layout.removed.start) or 0
  if removed == 0 then
    return 'insert ' .. lines(#layout.added)
  elseif #layout.added == 0 then
    return 'delete ' .. lines(removed)
  end
  return ('replace %s with %d'):format(lines(removed), #layout.added)
end

---@class surehand.Stop
---@field file integer
---@field hunk string?  nil for a file operation
---@field line integer
---@field last_line integer

--- Every pending decision, in review order.
---@return surehand.Stop[]
function M.pending_stops(proposal)
  local out = {}
  for _, file in ipairs(proposal.files) do
    if file.kind ~= 'edit' and file.operation == 'pending' then
      out[#out + 1] = { file = file.index, line = 0, last_line = 0 }
    end
    if file.kind ~= 'create' then -- a new file's hunks go with the file
      local starts = text.line_starts(file.text)
      local hunks = vim.tbl_filter(function(h)
        return h.decision == 'pending'
      end, file.hunks)
      table.sort(hunks, require('surehand.decide').in_text_order)
      for _, hunk in ipairs(hunks) do
        local layout = M.layout(file.text, hunk, starts)
        local last = math.max(layout.label_line, layout.removed and layout.removed.stop - 1 or layout.anchor_line)
        out[#out + 1] = { file = file.index, hunk = hunk.id, line = layout.label_line, last_line = last }
      end
    end
  end
  return out
end

local function contains(list, value)
  return vim.tbl_contains(list, value)
end

--- The pending decision the keys act on: the first (in review order) whose
--- label is on the cursor's line (the one whose label shows the keys: a file
--- operation before a hunk on the same line), else the one whose lines hold
--- the cursor, else the next one below it in the same buffer, else the
--- first one in it.
---@param cursor {files: integer[], line: integer}
function M.stop_at(proposal, cursor)
  local here = vim.tbl_filter(function(s)
    return contains(cursor.files, s.file)
  end, M.pending_stops(proposal))
  for _, s in ipairs(here) do
    if s.line == cursor.line then
      return s
    end
  end
  for _, s in ipairs(here) do
    if s.line <= cursor.line and cursor.line <= s.last_line then
      return s
    end
  end
  for _, s in ipairs(here) do
    if s.line > cursor.line then
      return s
    end
  end
  return here[1]
end

--- The pending decision after (1) or before (-1) the cursor, wrapping around.
function M.next_stop(proposal, cursor, direction)
  local stops = M.pending_stops(proposal)
  if #stops == 0 then
    return nil
  end
  if cursor == nil or #cursor.files == 0 then
    return direction == 1 and stops[1] or stops[#stops]
  end
  local file = math.min(unpack(cursor.files))
  local function order(s)
    if contains(cursor.files, s.file) then
      return 0
    end
    return s.file < file and -1 or 1
  end
  if direction == 1 then
    for _, s in ipairs(stops) do
      if order(s) > 0 or (order(s) == 0 and s.line > cursor.line) then
        return s
      end
    end
    return stops[1]
  end
  for i = #stops, 1, -1 do
    local s = stops[i]
    if order(s) < 0 or (order(s) == 0 and s.line < cursor.line) then
      return s
    end
  end
  return stops[#stops]
end

--- Where to go once the decision at the cursor is made: the next one in this
--- buffer below it, else the next anywhere.
function M.stop_after(proposal, cursor)
  for _, s in ipairs(M.pending_stops(proposal)) do
    if contains(cursor.files, s.file) and s.last_line >= cursor.line then
      return s
    end
  end
  return M.next_stop(proposal, cursor, 1)
end

return M
