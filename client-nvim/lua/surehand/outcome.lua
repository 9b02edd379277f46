--- The outcome word a task ends with, held to what the review put in the
--- buffers. The server reads the outcome from the texts; when the person
--- typed elsewhere in a file it may call a review `conflict` although some
--- accepted hunks landed (docs/editors/neovim.md: `conflict` means nothing landed). The
--- plugin knows what it applied, so the word it reports follows that:
--- everything landed: `applied`; some: `partly_applied`; none: `conflict`
--- when typing left something out, else `discarded`. A new, moved or
--- deleted file the person accepted happens on disk when they save: the
--- server, which reads the disk, cannot see it yet, so the summary says it in
--- the plugin's words (the server's kept as `server_summary`).
local decide = require('surehand.decide')

local M = {}

local REVIEWED = { applied = true, partly_applied = true, discarded = true, conflict = true }

local tally = nil ---@type {items: integer, landed: integer, stale: integer, on_save: string[]}?

--- A task starts: nothing reviewed yet.
function M.new_task()
  tally = nil
end

--- Count a finished review's items: what landed in the buffers, what could not.
function M.record(proposal)
  tally = tally or { items = 0, landed = 0, stale = 0, on_save = {} }
  local on_save = require('surehand.saving').on_save(proposal)
  if on_save ~= '' then
    tally.on_save[#tally.on_save + 1] = on_save
  end
  for _, file in ipairs(proposal.files) do
    if file.kind ~= 'edit' then
      tally.items = tally.items + 1
      if file.operation == 'accepted' then
        tally.landed = tally.landed + 1
      elseif file.operation_stale then
        tally.stale = tally.stale + 1
      end
    end
    if file.kind ~= 'create' then
      for _, hunk in ipairs(file.hunks) do
        tally.items = tally.items + 1
        if decide.applies(hunk) then
          tally.landed = tally.landed + 1
        elseif hunk.stale then
          tally.stale = tally.stale + 1
        end
      end
    end
  end
end

--- The word for what the reviews of this task landed; nil when none was reviewed here.
function M.word()
  if tally == nil or tally.items == 0 then
    return nil
  end
  if tally.landed == tally.items then
    return 'applied'
  elseif tally.landed > 0 then
    return 'partly_applied'
  end
  return tally.stale > 0 and 'conflict' or 'discarded'
end

--- `result` (the server's answer to the ask) with the outcome word the
--- buffers bear out; the server's own word kept as `server_outcome` when
--- it differs.
function M.true_result(result)
  local word = M.word()
  if word == nil or not REVIEWED[result.outcome] then
    return result
  end
  if #tally.on_save > 0 then
    local out = vim.deepcopy(result)
    out.server_outcome, out.server_summary = result.outcome, result.summary
    out.outcome = word
    out.summary = (':wa %s (in your buffers, unsaved).'):format(table.concat(tally.on_save, ', '))
    return out
  end
  if result.outcome == word then
    return result
  end
  local out = vim.deepcopy(result)
  out.server_outcome = result.outcome
  out.outcome = word
  out.summary = ('%d of %d changes landed in your buffers (the server said %s). %s'):format(
    tally.landed,
    tally.items,
    result.outcome,
    result.summary or ''
  )
  return out
end

return M
