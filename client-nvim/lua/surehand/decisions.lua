--- The user's decisions in an open review: at the cursor, all at once, taken
--- back; and moving from one change to decide to the next (what the keys and
--- commands call).
local decide = require('surehand.decide')
local navigate = require('surehand.navigate')
local review_ = require('surehand.review')
local say = require('surehand.say').say

local M = {}

local function log(message, level)
  say('surehand: ' .. message, level or vim.log.levels.INFO)
end

local function record(review)
  table.insert(review.history, decide.snapshot(review.proposal))
end

--- Put `stop` in view in the current window.
function M.reveal(stop)
  local review = review_.current()
  if review == nil or stop == nil then
    return
  end
  local bufnr = review.shown[stop.file]
  if vim.api.nvim_get_current_buf() ~= bufnr then
    vim.api.nvim_win_set_buf(0, bufnr)
  end
  local count = vim.api.nvim_buf_line_count(bufnr)
  vim.api.nvim_win_set_cursor(0, { math.min(stop.line + 1, count), 0 })
end

--- Go to the next (1) or previous (-1) pending decision.
function M.next(direction)
  if review_.current() == nil then
    return log('no review is open', vim.log.levels.WARN)
  end
  local review = review_.current()
  M.reveal(navigate.next_stop(review.proposal, review_.cursor(review), direction))
end

--- Decide the pending hunk (or file operation) at the cursor, then go to the next one.
function M.decide_here(decision)
  local review = review_.current()
  if review == nil then
    return log('no review is open', vim.log.levels.WARN)
  end
  local here = review_.cursor(review)
  local stop = navigate.stop_at(review.proposal, here)
  if stop == nil then
    return M.next(1)
  end
  local before = decide.snapshot(review.proposal)
  local changed
  if stop.hunk == nil then
    changed = decide.decide_operation(review.proposal, stop.file, decision)
  else
    changed = decide.decide_hunk(review.proposal, stop.hunk, decision)
  end
  if not changed then
    if decision == 'accepted' then
      log('this change is stale (you typed in it): it can only be rejected', vim.log.levels.WARN)
    end
    return
  end
  table.insert(review.history, before)
  review_.update(review)
  log(('%s · %s'):format(decision, review_.left_words(review)))
  if not review.finishing then
    M.reveal(navigate.stop_after(review.proposal, here))
  end
end

--- Decide everything still pending.
function M.decide_all(decision)
  local review = review_.current()
  if review == nil then
    return log('no review is open', vim.log.levels.WARN)
  end
  record(review)
  local held = decide.decide_all(review.proposal, decision)
  review_.update(review)
  if held == 0 then
    log(('%s every change left · %s'):format(decision, review_.left_words(review)))
  else
    log(('%d change%s to files that change how tools run left to accept one by one (%s)'):format(
      held,
      held == 1 and '' or 's',
      require('surehand.config').options.keymaps.next or ':SurehandNext'
    ), vim.log.levels.WARN)
    M.reveal(navigate.next_stop(review.proposal, nil, 1))
  end
end

--- Decide every pending change of the file at the cursor.
function M.decide_file(decision)
  local review = review_.current()
  local file = M.file_here()
  if review == nil or file == nil then
    return log('no review is open', vim.log.levels.WARN)
  end
  local before = decide.snapshot(review.proposal)
  local changed, held = decide.decide_file(review.proposal, file.index, decision)
  if changed then
    table.insert(review.history, before)
  end
  review_.update(review)
  local name = require('surehand.visible').line(require('surehand.buffers').relative(file.uri))
  if held > 0 then
    log(('this file changes how tools run: accept its %d change%s one by one'):format(held, held == 1 and '' or 's'), vim.log.levels.WARN)
  elseif changed then
    log(('%s %s · %s'):format(decision, name, review_.left_words(review)))
    if not review.finishing then
      M.reveal(navigate.next_stop(review.proposal, review_.cursor(review), 1))
    end
  else
    log(('nothing left to decide in %s · %s'):format(name, review_.left_words(review)))
  end
end

--- Take back the last decision of the open review.
function M.undo()
  local review = review_.current()
  if review == nil then
    return log('no review is open (after a review, u in a buffer undoes one accepted change)', vim.log.levels.WARN)
  end
  local snapshot = table.remove(review.history)
  if snapshot == nil then
    return log('nothing to undo in this review', vim.log.levels.WARN)
  end
  decide.restore(review.proposal, snapshot)
  review_.update(review)
end

--- The file at the cursor (else the first file with something pending).
function M.file_here()
  local review = review_.current()
  if review == nil then
    return nil
  end
  local files = review_.files_on(review, vim.api.nvim_get_current_buf())
  if files[1] then
    return files[1]
  end
  local stop = navigate.next_stop(review.proposal, nil, 1)
  return review.proposal.files[stop and stop.file or 1]
end


return M
