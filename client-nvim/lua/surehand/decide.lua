--- Deciding a proposal: accept or reject hunks and file operations, tell when
--- everything is decided, and compute what the decisions produce (the
--- semantics of the VS Code extension's `review/decide.ts`).
local M = {}

function M.hunk_by_id(proposal, id)
  for _, file in ipairs(proposal.files) do
    for _, hunk in ipairs(file.hunks) do
      if hunk.id == id then
        return hunk
      end
    end
  end
end

--- Decide a file operation (create, delete, rename); a new file's hunks follow it.
---@return boolean changed
function M.decide_operation(proposal, index, decision)
  local file = proposal.files[index]
  if file == nil or file.kind == 'edit' or file.operation == decision then
    return false
  end
  if file.operation_stale and decision == 'accepted' then
    return false
  end
  file.operation = decision
  if file.kind == 'create' then
    for _, hunk in ipairs(file.hunks) do
      hunk.decision = decision
    end
  end
  return true
end

--- Decide one hunk ('pending' undoes a decision). A stale hunk can only be
--- rejected; a new file's hunks go with the file.
---@return boolean changed
function M.decide_hunk(proposal, id, decision)
  local hunk = M.hunk_by_id(proposal, id)
  if hunk == nil or hunk.decision == decision then
    return false
  end
  local file = proposal.files[hunk.file]
  if file.kind == 'create' then
    return M.decide_operation(proposal, file.index, decision)
  end
  if hunk.stale and decision == 'accepted' then
    return false
  end
  hunk.decision = decision
  return true
end

--- Decide `file`'s pending operation and hunks; what is stale can only be
--- rejected, and a file that changes how tools run is never accepted in bulk
--- (it is accepted one item at a time): returns how many it left pending.
local function decide_pending(file, decision)
  if decision == 'accepted' and file.governs then
    return M.pending_in(file)
  end
  if file.kind ~= 'edit' and file.operation == 'pending' then
    file.operation = (decision == 'accepted' and not file.operation_stale) and 'accepted' or 'rejected'
    if file.kind == 'create' then
      for _, hunk in ipairs(file.hunks) do
        hunk.decision = file.operation
      end
    end
  end
  for _, hunk in ipairs(file.hunks) do
    if hunk.decision == 'pending' then
      hunk.decision = (decision == 'accepted' and not hunk.stale) and 'accepted' or 'rejected'
    end
  end
  return 0
end

--- Decide everything still pending (accepting leaves out what can only be
--- rejected, and leaves pending the files that change how tools run).
---@return integer held how many decisions were left pending (governing files)
function M.decide_all(proposal, decision)
  local held = 0
  for _, file in ipairs(proposal.files) do
    held = held + decide_pending(file, decision)
  end
  return held
end

--- Decide a whole file: its operation and every pending hunk.
---@return boolean changed, integer held
function M.decide_file(proposal, index, decision)
  local file = proposal.files[index]
  if file == nil or M.pending_in(file) == 0 then
    return false, 0
  end
  local held = decide_pending(file, decision)
  return held == 0, held
end

--- The decisions still to make in `file`.
function M.pending_in(file)
  local count = (file.kind ~= 'edit' and file.operation == 'pending') and 1 or 0
  if file.kind ~= 'create' then
    for _, hunk in ipairs(file.hunks) do
      if hunk.decision == 'pending' then
        count = count + 1
      end
    end
  end
  return count
end

function M.pending_count(proposal)
  local count = 0
  for _, file in ipairs(proposal.files) do
    count = count + M.pending_in(file)
  end
  return count
end

--- What is left to decide, by kind: hunks of existing files and file operations apart.
---@return {hunks: integer, create: integer, delete: integer, rename: integer}
function M.pending_summary(proposal)
  local out = { hunks = 0, create = 0, delete = 0, rename = 0 }
  for _, file in ipairs(proposal.files) do
    if file.kind ~= 'edit' and file.operation == 'pending' then
      out[file.kind] = out[file.kind] + 1
    end
    if file.kind ~= 'create' then
      for _, hunk in ipairs(file.hunks) do
        if hunk.decision == 'pending' then
          out.hunks = out.hunks + 1
        end
      end
    end
  end
  return out
end

function M.is_settled(proposal)
  return M.pending_count(proposal) == 0
end

--- Whether `hunk` goes into the file: accepted, and not made stale by typing.
function M.applies(hunk)
  return hunk.decision == 'accepted' and not hunk.stale
end

function M.any_accepted(proposal)
  for _, file in ipairs(proposal.files) do
    if file.kind ~= 'edit' and file.operation == 'accepted' then
      return true
    end
    for _, hunk in ipairs(file.hunks) do
      if M.applies(hunk) then
        return true
      end
    end
  end
  return false
end

--- Count `file` out: its text moved on unseen, so none of it may be applied.
function M.leave_out(file)
  for _, hunk in ipairs(file.hunks) do
    hunk.stale = true
    hunk.decision = 'rejected'
  end
  if file.kind == 'rename' then
    file.operation_stale = true
    file.operation = 'rejected'
  end
end

--- Hunks in the order they sit in the text (two insertions at one point: as sent).
function M.in_text_order(a, b)
  if a.start ~= b.start then
    return a.start < b.start
  end
  if a.stop ~= b.stop then
    return a.stop < b.stop
  end
  return a.index < b.index
end

--- `file.text` with the hunks that pass `keep` applied.
function M.text_with(file, keep)
  local hunks = vim.tbl_filter(keep, file.hunks)
  table.sort(hunks, M.in_text_order)
  local parts, at = {}, 0
  for _, hunk in ipairs(hunks) do
    parts[#parts + 1] = file.text:sub(at + 1, hunk.start)
    parts[#parts + 1] = hunk.new_text
    at = hunk.stop
  end
  parts[#parts + 1] = file.text:sub(at + 1)
  return table.concat(parts)
end

--- The file's text once its accepted hunks are in.
function M.accepted_text(file)
  return M.text_with(file, M.applies)
end

--- The file's text with every hunk that may still be accepted, for a diff view.
function M.proposed_text(file)
  return M.text_with(file, function(h)
    return h.decision ~= 'rejected' and not h.stale
  end)
end

--- What `surehand/reviewed` tells the server: every hunk and file operation with its decision.
function M.reviewed(proposal)
  local out = {}
  for _, file in ipairs(proposal.files) do
    if file.kind ~= 'edit' then
      out[#out + 1] = {
        uri = file.uri,
        index = -1,
        label = file.label,
        accepted = file.operation == 'accepted',
        operation = file.kind,
        stale = file.operation_stale or nil,
        -- The plugin makes a file operation when the buffers are saved, not at the accept.
        onSave = file.operation == 'accepted' or nil,
      }
    end
    local in_order = vim.list_extend({}, file.hunks)
    table.sort(in_order, function(a, b)
      return a.index < b.index
    end)
    for _, hunk in ipairs(in_order) do
      out[#out + 1] = {
        uri = file.uri,
        index = hunk.index,
        label = hunk.label,
        accepted = M.applies(hunk),
        stale = hunk.stale or nil,
      }
    end
  end
  return out
end

--- Every decision as it stands, to put back with `restore` (for undo).
function M.snapshot(proposal)
  local out = {}
  for _, file in ipairs(proposal.files) do
    out[#out + 1] = { operation = file.operation, hunks = vim.tbl_map(function(h)
      return h.decision
    end, file.hunks) }
  end
  return out
end

--- Put back `snapshot`'s decisions; what became stale since stays undecided, never accepted.
function M.restore(proposal, snapshot)
  for i, file in ipairs(proposal.files) do
    local saved = snapshot[i]
    local operation = saved.operation
    if file.operation_stale and operation == 'accepted' then
      operation = 'pending'
    end
    file.operation = operation
    for j, hunk in ipairs(file.hunks) do
      local decision = saved.hunks[j]
      if hunk.stale and decision == 'accepted' then
        decision = 'pending'
      end
      hunk.decision = decision
    end
  end
end

return M
