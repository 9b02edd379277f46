--- Following the user's typing in a file under review (the semantics of the
--- VS Code extension's `review/shift.ts`).
---
--- Each change (a byte range of the text before it and the text put there)
--- moves the hunks after it and leaves the ones before it alone. A change
--- that touches a hunk's span makes the hunk stale: its old text is no
--- longer what it would replace, so it can only be rejected. "Touches" is
--- strict on purpose:
--- - a change ending exactly where a hunk starts touches it;
--- - a change starting exactly where a hunk ends does not, unless the hunk
---   is an insertion (an empty span), where any change at its point does,
---   or the hunk ends inside a line (not after a line break: the last line
---   of a file without a final newline, say), where what is typed there
---   joins the hunk's last line.
local M = {}

--- Where `span` is after `[from, to)` was replaced by `inserted` bytes, and
--- whether the change touched it.
--- `joins`: the span ends inside a line, so a change at its end is on its last line.
---@return integer start, integer stop, boolean touched
function M.shift_span(start, stop, from, to, inserted, joins)
  local delta = inserted - (to - from)
  if to < start then
    return start + delta, stop + delta, false
  end
  local insertion = start == stop
  if from > stop or (from == stop and not insertion and not joins) then
    return start, stop, false
  end
  -- Touched: keep the span over what is left of it, for showing.
  local function map(at)
    if at <= from then
      return at
    elseif at >= to then
      return at + delta
    end
    return from + inserted
  end
  local new_start = map(start)
  return new_start, math.max(new_start, map(stop)), true
end

--- Apply one change of the user's to `file`: its text follows, its hunks move or go stale.
---@param file surehand.FileReview
---@param from integer
---@param to integer
---@param inserted string
function M.follow(file, from, to, inserted)
  to = math.max(from, to)
  local before = file.text
  file.text = before:sub(1, from) .. inserted .. before:sub(to + 1)
  for _, hunk in ipairs(file.hunks) do
    local joins = hunk.stop > hunk.start and not before:sub(hunk.stop, hunk.stop):match('[\r\n]')
    local start, stop, touched = M.shift_span(hunk.start, hunk.stop, from, to, #inserted, joins)
    hunk.start, hunk.stop = start, stop
    if touched and not hunk.stale then
      hunk.stale = true
      if hunk.decision == 'accepted' then
        hunk.decision = 'pending' -- it cannot be applied any more: the user decides again
      end
    end
  end
  if file.kind == 'delete' then
    file.operation_stale = true
    if file.operation == 'accepted' then
      file.operation = 'pending'
    end
  end
end

return M
