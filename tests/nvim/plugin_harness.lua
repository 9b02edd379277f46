-- Drives the surehand plugin (client-nvim/) in a real headless Neovim:
--
--   nvim --headless --clean -l tests/nvim/plugin_harness.lua SPEC.json
--
-- It puts the repository's plugin on 'runtimepath', calls setup{} with the
-- server command and settings, edits `file`, waits for surehand to attach
-- and runs `steps` in order, then writes what happened as JSON to `result`.
-- Every wait is bounded; an error is written there too, and Neovim exits 1.
--
-- SPEC.json: { plugin, cmd?, settings, file, steps, result, options?, choices?, attach_ms?, wait_ms?, no_attach? }
--   no_attach: do not wait for surehand to attach first (no server yet: `wait_attach` later).
--   options: more setup{} options; choices: the titles vim.ui.select answers, in turn;
--   inputs: what vim.ui.input gets, in turn; confirms: what confirm() answers, in turn (then 0).
-- Steps (each a table with `do`):
--   ask {task}                 :Surehand task (no wait)
--   wait_review                until a review is open
--   wait_done                  until `User SurehandDone` (the task's result is kept)
--   wait_reviewed              until the review has ended (`User SurehandReviewed`)
--   wait_undone                until an undo of a task answered (`User SurehandUndone`; its data kept)
--   goto {path, line}          show `path` (relative to the project; "new:" for a preview) at line (1-based)
--   keys {keys}                feed normal-mode keys (mappings on), e.g. "]s" or " sa"
--   cmd {cmd}                  run an Ex command, e.g. "SurehandAccept"
--   type {path, start, stop, lines}  the user replaces lines [start, stop) (0-based)
--   settext {path, row, col, end_row, end_col, text}  nvim_buf_set_text, as typing
--   snapshot {name}            record the review's state and what each buffer shows
--   kill                       SIGKILL the language server
--   wait_file {path}           until a file exists (the test makes it when the model is asked)
--   wait_notified {contains}  until a notification holds that text
--   wait_said {contains, times?}  until that many of surehand's messages (shown or not) hold it
--   wait_attach                until surehand is attached to the current buffer and initialized
--   sleep {ms}

local spec = vim.json.decode(table.concat(vim.fn.readfile(assert(_G.arg[1])), '\n'), { luanil = { object = true } })
local out = { snapshots = {}, notified = {}, done = {}, events = {} }
local project = vim.fs.dirname(spec.file)

local function log(what, data)
  data = data or {}
  data.what = what
  table.insert(out.events, data)
end

vim.notify = function(message, level)
  table.insert(out.notified, { message = message, level = level or vim.log.levels.INFO })
end

-- What the user types at a vim.ui.input prompt: the next of `inputs`.
out.inputs = {}
local inputs = vim.deepcopy(spec.inputs or {})
vim.ui.input = function(opts, on_confirm)
  table.insert(out.inputs, opts.prompt)
  on_confirm(table.remove(inputs, 1))
end

-- The user's answers to vim.ui.select: the next title of `choices` (nil: dismissed).
out.selects = {}
local choices = vim.deepcopy(spec.choices or {})
vim.ui.select = function(items, opts, on_choice)
  local want = table.remove(choices, 1)
  local titles = vim.tbl_map(function(item)
    return opts.format_item and opts.format_item(item) or item
  end, items)
  table.insert(out.selects, { prompt = opts.prompt, titles = titles, chose = want or vim.NIL, mode = vim.api.nvim_get_mode().mode })
  for i, title in ipairs(titles) do
    if title == want then
      return on_choice(items[i], i)
    end
  end
  on_choice(nil, nil)
end

-- The user's answers to confirm(): the next of `confirms` (0: dismissed).
out.confirms = {}
local confirms = vim.deepcopy(spec.confirms or {})
vim.fn.confirm = function(message, buttons, default, kind)
  local answer = table.remove(confirms, 1) or 0
  table.insert(out.confirms, { message = message, buttons = buttons, default = default or 1, kind = kind, answer = answer })
  return answer
end

local function text_of(bufnr)
  return require('surehand.buffers').text(bufnr)
end

local function wait(what, ms, test)
  assert(vim.wait(ms or spec.wait_ms or 30000, test, 20), 'timed out waiting for ' .. what)
end

local function path_of(relative)
  if relative:match('^new:') then
    return 'surehand://new/' .. relative:sub(5)
  end
  return vim.fs.joinpath(project, relative)
end

local function buffer(relative)
  local bufnr = vim.fn.bufnr(path_of(relative))
  assert(bufnr ~= -1, 'no buffer for ' .. relative)
  return bufnr
end

local function relative(name)
  local prefix = project .. '/'
  if name:sub(1, #prefix) == prefix then
    return name:sub(#prefix + 1)
  end
  return (name:gsub('^surehand://new/', 'new:'))
end

--- What a buffer shows of the review: labels, added virtual lines, highlighted lines.
local function drawn(bufnr)
  local ns = require('surehand.render').ns
  local marks = vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })
  local shown = { labels = {}, added = {}, removed = {}, new = {} }
  for _, mark in ipairs(marks) do
    local row, d = mark[2], mark[4]
    if d.virt_text then
      local chunks = vim.tbl_map(function(c)
        return c[1]
      end, d.virt_text)
      table.insert(shown.labels, { line = row, text = vim.trim(table.concat(chunks)), hl = d.virt_text[1][2] })
    end
    if d.virt_lines then
      for _, vl in ipairs(d.virt_lines) do
        table.insert(shown.added, { below = row, above = d.virt_lines_above or false, text = vl[1][1] })
      end
    end
    if d.line_hl_group == 'SurehandRemoved' then
      table.insert(shown.removed, row)
    elseif d.line_hl_group == 'SurehandAdded' then
      table.insert(shown.new, row)
    end
  end
  return shown
end

local function snapshot(name)
  local review = require('surehand.review').current()
  local snap = { name = name, status = require('surehand').status(), buffers = {}, files = {} }
  if review then
    for _, file in ipairs(review.proposal.files) do
      local hunks = {}
      for _, h in ipairs(file.hunks) do
        table.insert(hunks, { id = h.id, index = h.index, label = h.label, decision = h.decision, stale = h.stale })
      end
      table.insert(snap.files, {
        kind = file.kind,
        path = relative(vim.uri_to_fname(file.uri)),
        operation = file.operation,
        operation_stale = file.operation_stale,
        hunks = hunks,
        state = require('surehand.list').state(file),
      })
    end
    for _, bufnr in pairs(review.shown) do
      local name_ = relative(vim.api.nvim_buf_get_name(bufnr))
      snap.buffers[name_] = drawn(bufnr)
      snap.buffers[name_].text = text_of(bufnr)
      snap.buffers[name_].keymaps = #vim.tbl_filter(function(m)
          return m.desc == 'surehand: accept the change here'
        end, vim.api.nvim_buf_get_keymap(bufnr, 'n')) > 0
    end
  end
  snap.quickfix = vim.tbl_map(function(item)
    local where = item.bufnr ~= 0 and relative(vim.api.nvim_buf_get_name(item.bufnr)) or vim.NIL
    return { name = where, lnum = item.lnum, text = item.text }
  end, vim.fn.getqflist())
  snap.quickfix_valid = vim.tbl_map(function(item)
    return item.valid == 1
  end, vim.fn.getqflist())
  snap.quickfix_title = vim.fn.getqflist({ title = 1 }).title
  snap.quickfix_idx = vim.fn.getqflist({ idx = 0 }).idx
  snap.disk = {}
  for path, kind in vim.fs.dir(project, { depth = 3 }) do
    if kind == 'file' then
      table.insert(snap.disk, path)
    end
  end
  table.sort(snap.disk)
  snap.current = relative(vim.api.nvim_buf_get_name(0))
  snap.lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  snap.selects = #out.selects
  local has_banner, banner = pcall(require, 'surehand.banner')
  snap.banner = has_banner and banner.shown() or vim.NIL
  snap.messages_area = vim.trim(vim.fn.execute('messages'))
  snap.cursor = vim.api.nvim_win_get_cursor(0)
  table.insert(out.snapshots, snap)
end

local reviewing, reviewed = false, 0
local done_count = 0
vim.api.nvim_create_autocmd('User', {
  pattern = 'SurehandReview',
  callback = function()
    reviewing = true
    log('review')
  end,
})
vim.api.nvim_create_autocmd('User', {
  pattern = 'SurehandReviewed',
  callback = function(event)
    reviewing = false
    reviewed = reviewed + 1
    out.reviewed = event.data.hunks
    log('reviewed')
  end,
})
vim.api.nvim_create_autocmd('User', {
  pattern = 'SurehandDone',
  callback = function(event)
    done_count = done_count + 1
    table.insert(out.done, event.data)
    log('done', { outcome = event.data.outcome })
  end,
})

out.undone = {}
vim.api.nvim_create_autocmd('User', {
  pattern = 'SurehandUndone',
  callback = function(event)
    table.insert(out.undone, event.data)
    log('undone')
  end,
})

local STEPS = {}
function STEPS.ask(step)
  vim.cmd('Surehand ' .. step.task)
end
function STEPS.wait_review()
  wait('a review', nil, function()
    return reviewing
  end)
end
local seen_done = 0
function STEPS.wait_done()
  wait('the task result', nil, function()
    return done_count > seen_done
  end)
  seen_done = done_count
end
local seen_reviewed = 0
function STEPS.wait_reviewed()
  wait('the end of the review', nil, function()
    return reviewed > seen_reviewed
  end)
  seen_reviewed = reviewed
end
local seen_undone = 0
function STEPS.wait_undone()
  wait('the undo of a task', nil, function()
    return #out.undone > seen_undone
  end)
  seen_undone = #out.undone
end
STEPS['goto'] = function(step)
  local bufnr = buffer(step.path)
  vim.api.nvim_win_set_buf(0, bufnr)
  vim.api.nvim_win_set_cursor(0, { step.line or 1, 0 })
end
function STEPS.keys(step)
  local keys = vim.api.nvim_replace_termcodes(step.keys, true, false, true)
  vim.api.nvim_feedkeys(keys, 'mx', false)
end
function STEPS.cmd(step)
  vim.cmd(step.cmd)
end
function STEPS.type(step)
  vim.api.nvim_buf_set_lines(buffer(step.path), step.start, step.stop, true, step.lines)
end
function STEPS.settext(step)
  local lines = vim.split(step.text, '\n', { plain = true })
  vim.api.nvim_buf_set_text(buffer(step.path), step.row, step.col, step.end_row, step.end_col, lines)
end
function STEPS.snapshot(step)
  vim.wait(50) -- let scheduled redraws run
  snapshot(step.name)
end
function STEPS.kill()
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    vim.uv.kill(pid, 'sigkill')
  end
  wait('the server to stop', 10000, function()
    return #vim.tbl_filter(function(c)
      return not c:is_stopped()
    end, vim.lsp.get_clients({ name = 'surehand' })) == 0
  end)
  vim.wait(200)
end
function STEPS.wait_file(step)
  wait(step.path, nil, function()
    return vim.uv.fs_stat(step.path) ~= nil
  end)
end
function STEPS.wait_notified(step)
  wait('a notification with ' .. step.contains, nil, function()
    for _, n in ipairs(out.notified) do
      if n.message:find(step.contains, 1, true) then
        return true
      end
    end
    return false
  end)
end
function STEPS.wait_said(step)
  wait(('%d messages with %s'):format(step.times or 1, step.contains), nil, function()
    local found = 0
    for _, message in ipairs(require('surehand.say').kept()) do
      if message.text:find(step.contains, 1, true) then
        found = found + 1
      end
    end
    return found >= (step.times or 1)
  end)
end
local function attached()
  local client = vim.lsp.get_clients({ bufnr = vim.api.nvim_get_current_buf(), name = 'surehand' })[1]
  return client ~= nil and client.initialized == true and client or nil
end
function STEPS.wait_attach()
  wait('surehand to attach', spec.attach_ms or 30000, function()
    return attached() ~= nil
  end)
end
function STEPS.sleep(step)
  vim.wait(step.ms)
end

--- Every message surehand said, whole (what `:SurehandMessages` shows).
local function said()
  local ok, say = pcall(require, 'surehand.say')
  if not ok then
    return {}
  end
  return vim.tbl_map(function(m)
    return m.text
  end, say.kept())
end

local function finish(code)
  out.said = said()
  vim.fn.writefile({ vim.json.encode(out) }, spec.result)
  require('surehand.server').stop()
  vim.wait(3000, function()
    return #vim.lsp.get_clients() == 0
  end, 20)
  vim.cmd(code == 0 and 'qall!' or 'cquit! 1')
end

local function main()
  vim.opt.runtimepath:prepend(spec.plugin)
  vim.cmd('filetype on')
  vim.cmd('runtime plugin/surehand.lua')
  vim.g.mapleader = ' '
  vim.lsp.log.set_level(spec.log_level or 'warn')
  require('surehand').setup(vim.tbl_deep_extend('force', { cmd = spec.cmd, settings = spec.settings }, spec.options or {}))
  vim.cmd.edit(vim.fn.fnameescape(spec.file))
  if not spec.no_attach then
    wait('surehand to attach', spec.attach_ms or 15000, function()
      return attached() ~= nil
    end)
    local client = attached()
    out.encoding = client.offset_encoding
    out.capabilities = { experimental = client.capabilities.experimental, workspaceEdit = client.capabilities.workspace.workspaceEdit }
  end
  for i, step in ipairs(spec.steps) do
    local run = assert(STEPS[step['do']], 'unknown step ' .. tostring(step['do']))
    log('step', { index = i, step = step['do'] })
    run(step)
  end
  vim.wait(300) -- the last didChange and notifications
  out.buffers, out.modified = {}, {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(b)
    if vim.api.nvim_buf_is_loaded(b) and name ~= '' and not name:match('^surehand://') then
      out.buffers[relative(name)] = text_of(b)
      out.modified[relative(name)] = vim.bo[b].modified
    end
  end
  out.status = require('surehand').status()
end


local ok, err = xpcall(main, debug.traceback)
if not ok then
  out.error = err
end
finish(ok and 0 or 1)
