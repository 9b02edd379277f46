--- The review of the server's proposals (the VS Code extension's
--- `review/controller.ts`, for Neovim).
---
--- The surehand client's `workspace/applyEdit` lands here. The proposal's
--- files are loaded (a new file as a read-only preview buffer), its hunks
--- drawn in place, and the request stays open (its handler's coroutine
--- waits) while the user decides. Typing in a buffer under review moves its
--- hunks or makes the ones it touches stale. Once every hunk and file
--- operation is decided, the accepted ones go into the buffers (unsaved, one
--- undo step each), the server gets `surehand/reviewed`, and the request is
--- answered `{applied = <anything accepted>}`. One review at a time: a
--- second proposal waits for the first.
local apply = require('surehand.apply')
local buffers = require('surehand.buffers')
local decide = require('surehand.decide')
local list = require('surehand.list')
local model = require('surehand.model')
local navigate = require('surehand.navigate')
local render = require('surehand.render')
local shift = require('surehand.shift')
local say = require('surehand.say').say
local status = require('surehand.status')
local verdict_words = require('surehand.verdict_words')

local M = {}

M.REVIEWED = 'surehand/reviewed'

---@type table?
local current = nil
local waiting = {} ---@type thread[]
--- What the person rejected in this task's reviews: never offered again in it.
local rejected = {} ---@type table<string, boolean>

local function hunk_key(file, hunk)
  return table.concat({ 'hunk', file.uri, hunk.old_text, hunk.new_text }, '\0')
end

local function operation_key(file)
  return table.concat({ file.kind, file.text_uri, file.uri }, '\0')
end

--- A task starts: what was rejected before may be proposed again.
function M.new_task()
  rejected = {}
end

local function remember_rejected(proposal)
  for _, file in ipairs(proposal.files) do
    if file.kind ~= 'edit' and file.operation == 'rejected' then
      rejected[operation_key(file)] = true
    end
    for _, hunk in ipairs(file.hunks) do
      if not decide.applies(hunk) and (file.kind ~= 'create' or file.operation == 'rejected') then
        rejected[hunk_key(file, hunk)] = true
      end
    end
  end
end

--- Mark what this task already rejected as rejected again (and say so): a
--- "no" is final for the task, whatever the server proposes after it.
local function reject_again(proposal)
  local again = 0
  for _, file in ipairs(proposal.files) do
    if file.kind ~= 'edit' and rejected[operation_key(file)] then
      decide.decide_operation(proposal, file.index, 'rejected')
      again = again + 1
    end
    if file.kind ~= 'create' then
      for _, hunk in ipairs(file.hunks) do
        if rejected[hunk_key(file, hunk)] and hunk.decision == 'pending' then
          hunk.decision = 'rejected'
          hunk.again = true
          again = again + 1
        end
      end
    end
  end
  return again
end

function M.current()
  return current
end

local function log(message, level)
  say('surehand: ' .. message, level or vim.log.levels.INFO)
end

--- "3 hunks, 1 rename left" (or "nothing left") for the open review.
function M.left_words(review)
  local pending = decide.pending_summary(review.proposal)
  if decide.is_settled(review.proposal) then
    return 'nothing left to decide'
  end
  return status.pending_words(pending) .. ' left'
end

--- The files `bufnr` shows.
function M.files_on(review, bufnr)
  return vim.tbl_filter(function(f)
    return review.shown[f.index] == bufnr
  end, review.proposal.files)
end

local function indexes(files)
  return vim.tbl_map(function(f)
    return f.index
  end, files)
end

--- Where the cursor is: the files the current buffer shows and the line (0-based).
function M.cursor(review)
  local bufnr = vim.api.nvim_get_current_buf()
  return { files = indexes(M.files_on(review, bufnr)), line = vim.api.nvim_win_get_cursor(0)[1] - 1 }
end

local function draw(review)
  local by_buf = {}
  for _, file in ipairs(review.proposal.files) do
    local bufnr = review.shown[file.index]
    by_buf[bufnr] = by_buf[bufnr] or {}
    table.insert(by_buf[bufnr], file)
  end
  for bufnr, files in pairs(by_buf) do
    render.draw(bufnr, files)
  end
end

local finish

--- Redraw, report, and end the review once everything is decided.
function M.update(review)
  if review ~= current then
    return
  end
  draw(review)
  list.update(review, false)
  status.reviewing(decide.pending_summary(review.proposal), verdict_words.headline(review.tests))
  if decide.is_settled(review.proposal) and not review.finishing then
    review.finishing = true
    vim.schedule(function()
      finish(review)
    end)
  end
end

--- Follow one change of `bufnr` (from `on_bytes`) in the files it shows.
local function follow(review, bufnr, srow, scol, oer, oec, ner, nec)
  local _ = ner + nec
  for _, file in ipairs(M.files_on(review, bufnr)) do
    if file.kind ~= 'create' then
      local starts = require('surehand.text').line_starts(file.text)
      local function offset(row, col)
        if row + 1 > #starts then
          return #file.text
        end
        return math.min(starts[row + 1] + col, #file.text)
      end
      local from = offset(srow, scol)
      local to = offset(srow + oer, oer == 0 and scol + oec or oec)
      local now = buffers.text(bufnr)
      local inserted_len = #now - #file.text + (to - from)
      shift.follow(file, from, to, now:sub(from + 1, from + inserted_len))
      if file.text ~= now then
        -- Lost track (a change we could not place): nothing of it may be accepted any more.
        file.text = now
        for _, hunk in ipairs(file.hunks) do
          hunk.stale = true
          if hunk.decision == 'accepted' then
            hunk.decision = 'pending'
          end
        end
      end
    end
  end
  vim.schedule(function()
    M.update(review)
  end)
end

local function watch(review, bufnr)
  vim.api.nvim_buf_attach(bufnr, false, {
    on_bytes = function(_, buf, _, srow, scol, _, oer, oec, _, ner, nec)
      if review ~= current or review.finishing then
        return true -- detach: this review is over
      end
      follow(review, buf, srow, scol, oer, oec, ner, nec)
    end,
  })
end

--- The current text of each URI that exists (its buffer, loaded from disk if needed).
local function read_texts(uris)
  local texts = {}
  for _, uri in ipairs(uris) do
    local bufnr = buffers.load(uri)
    if bufnr then
      texts[uri] = buffers.text(bufnr)
    end
  end
  return texts
end

--- The first versioned document open at another version than the edit's.
local function stale_version(edit, client)
  for _, change in ipairs(edit.documentChanges or {}) do
    local doc = change.textDocument
    if doc and doc.version ~= nil and doc.version ~= vim.NIL then
      local bufnr = vim.fn.bufnr(vim.uri_to_fname(doc.uri))
      if bufnr ~= -1 and vim.api.nvim_buf_is_loaded(bufnr) and client and client.attached_buffers[bufnr] then
        local version = vim.lsp.util.buf_versions[bufnr]
        if version ~= nil and version ~= doc.version then
          return doc.uri
        end
      end
    end
  end
end

M.read_texts = read_texts
M.stale_version = stale_version

--- Start reviewing `proposal`; returns the review.
local function start(proposal, client, co)
  local review = {
    proposal = proposal,
    client_id = client and client.id,
    encoding = client and client.offset_encoding or 'utf-16',
    shown = {},
    previews = {},
    history = {},
    co = co,
    tests = require('surehand.verdicts').take(), -- the tests' verdict on this proposal, if any
  }
  for _, file in ipairs(proposal.files) do
    if file.kind == 'create' then
      local content = decide.text_with(file, function()
        return true
      end)
      local bufnr = buffers.preview(file.uri, content)
      review.shown[file.index] = bufnr
      table.insert(review.previews, bufnr)
    else
      review.shown[file.index] = assert(buffers.load(file.text_uri))
    end
  end
  review.again = reject_again(proposal)
  current = review
  local watched = {}
  for _, bufnr in pairs(review.shown) do
    if not watched[bufnr] then
      watched[bufnr] = true
      require('surehand.keymaps').attach(review, bufnr)
      if not vim.tbl_contains(review.previews, bufnr) then
        watch(review, bufnr)
      end
    end
  end
  M.update(review)
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'SurehandReview', modeline = false })
  -- No count here: it would stay on the message line while the statusline
  -- counts down; each decision says what is left.
  -- The tests' headline first: a line cut to fit keeps it.
  local tests = verdict_words.headline(review.tests)
  log(('%s %d file%s (%s next, :SurehandList)%s'):format(
    tests and (tests .. ' · review') or 'a review is open in',
    #proposal.files,
    #proposal.files == 1 and '' or 's',
    require('surehand.config').options.keymaps.next or ':SurehandNext',
    review.again > 0 and ('; %d you rejected before stay rejected'):format(review.again) or ''
  ), verdict_words.bad(review.tests) and vim.log.levels.WARN or nil)
  return review
end

--- Run `fn` now, or once the user leaves insert mode: windows never change under their typing.
function M.when_not_typing(fn)
  if not vim.api.nvim_get_mode().mode:match('^[iRc]') then
    return fn()
  end
  vim.api.nvim_create_autocmd('ModeChanged', {
    pattern = '*:n',
    once = true,
    callback = function()
      vim.schedule(fn)
    end,
  })
end

--- The `workspace/applyEdit` handler of the surehand client.
function M.handle_apply_edit(_, params, ctx)
  local co, main = coroutine.running()
  if co == nil or main then
    return { applied = false, failureReason = 'The review needs to wait for the user.' }
  end
  if current ~= nil then
    table.insert(waiting, co)
    coroutine.yield()
  end
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local edit = params.edit or {}
  local stale = stale_version(edit, client)
  local result
  if stale then
    result = { applied = false, failureReason = stale .. ' changed since the proposal was made.' }
  else
    local encoding = client and client.offset_encoding or 'utf-16'
    local ok, proposal = pcall(model.parse, edit, read_texts(model.text_sources(edit)), encoding)
    if not ok then
      log('cannot show the proposal: ' .. tostring(proposal), vim.log.levels.ERROR)
      result = { applied = false, failureReason = tostring(proposal) }
    elseif #proposal.files == 0 then
      result = { applied = true }
    else
      local review = start(proposal, client, co)
      M.when_not_typing(function()
        local options = require('surehand.config').options
        if review ~= current then
          return
        end
        if options.review.open_list then
          list.open()
        end
        if options.review.jump then
          require('surehand.decisions').reveal(navigate.next_stop(proposal, nil, 1))
        end
      end)
      result = coroutine.yield()
      if review.orphaned then
        return nil -- the server is gone: nobody to answer
      end
    end
  end
  local next_one = table.remove(waiting, 1)
  if next_one then
    vim.schedule(function()
      coroutine.resume(next_one)
    end)
  end
  return result
end

local function end_review(review)
  current = nil
  for _, bufnr in pairs(review.shown) do
    render.clear(bufnr)
    require('surehand.keymaps').detach(bufnr)
  end
  for _, bufnr in ipairs(review.previews) do
    buffers.wipe_preview(bufnr)
  end
  status.reviewing(nil)
end

finish = function(review)
  if review ~= current then
    return
  end
  end_review(review)
  local result = apply.apply(review.proposal, review.encoding)
  for _, uri in ipairs(result.skipped) do
    log(buffers.relative(uri) .. ' changed outside the review; its accepted changes were not applied.', vim.log.levels.WARN)
  end
  for _, uri in ipairs(result.mismatched) do
    log(buffers.relative(uri) .. ': the buffer does not hold exactly the accepted text.', vim.log.levels.ERROR)
  end
  list.update(review, true)
  require('surehand.outcome').record(review.proposal)
  remember_rejected(review.proposal)
  local hunks = decide.reviewed(review.proposal)
  local client = review.client_id and vim.lsp.get_client_by_id(review.client_id)
  if client and not review.orphaned then
    -- The server reads the buffers once it has the answer: send their changes first.
    pcall(function()
      require('vim.lsp._changetracking').flush(client)
    end)
    client:notify(M.REVIEWED, { hunks = hunks })
  end
  local accepted = #vim.tbl_filter(function(h)
    return h.accepted
  end, hunks)
  local on_save = require('surehand.saving').on_save(review.proposal)
  if on_save == '' then
    log(('%d of %d accepted; the changes are in your buffers, unsaved.'):format(accepted, #hunks))
  else -- what saving does first: a long line is cut at its end
    log(('%d of %d accepted, unsaved; :wa %s'):format(accepted, #hunks, on_save))
  end
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'SurehandReviewed', data = { hunks = hunks } })
  local answer = { applied = result.applied, failureReason = result.failure_reason }
  if not review.orphaned and review.co then
    coroutine.resume(review.co, answer)
  end
end

--- The server that sent the proposal is gone: the review goes on, nobody is told its decisions.
function M.orphan(client_id)
  if current and current.client_id == client_id then
    current.orphaned = true
    current.client_id = nil
  end
end

return M
