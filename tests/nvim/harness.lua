-- Drives a real Neovim through one surehand task, headless:
--
--   nvim --headless --clean -u NONE -l tests/nvim/harness.lua SPEC.json
--
-- It loads the user's snippet with the server command and settings, edits
-- a file, waits for surehand to attach, runs `:[range]Surehand task`,
-- answers each `window/showMessageRequest` with the next title of `choices`
-- (by standing in for `vim.ui.select`, which Neovim's handler calls), waits
-- for `User SurehandDone`, and writes what happened as JSON to `result`.
-- Every wait is bounded; an error is written there too, and Neovim exits 1.
--
-- With `review` instead of `choices` (the non-modal review), it waits for
-- surehand's diagnostics and runs each step of `review` in turn:
--   { do = 'action', line, title }: the cursor on `line` (0-based), the code
--        action whose title starts with `title`, as `vim.lsp.buf.code_action`
--        applies it; then waits until surehand's diagnostics change;
--   { do = 'type', start, stop, lines }: the user replaces those lines;
--   { do = 'wait', lines }: until surehand's diagnostics are on those lines;
--   { do = 'edit', file }: the user goes to another file (the steps after
--        act on its buffer);
--   { do = 'kill' }: the server process is killed (SIGTERM), as a crash would;
--        then waits for `:Surehand`'s result.
-- Each step records the diagnostics it saw (`out.seen`), and code actions
-- offered (`out.offered`).
--
-- With `steps` (the whole scenario, `test_neovim_scenario.py`), nothing is
-- asked up front: each step is taken in turn, as the user would,
--   { do = 'ask', task }: `:Surehand task` in the current buffer;
--   { do = 'keys', file?, keys }: typed in normal mode (`:normal! keys`);
--   { do = 'action', file?, line, title }: as above, in `file`'s buffer;
--   { do = 'edit', file }: the user goes to `file`;
-- then it waits until `until` holds (each key optional): `lines` { [path] =
-- lines of surehand's diagnostics }, `message` (a text vim.notify showed),
-- `exists` (a path on disk), `answered` (a command's answer came), `done` (`User SurehandDone` ran), after
-- `settle_ms` (the user waits that long first), and records in `out.record` the
-- project's loaded buffers (text, modified), its files on disk, surehand's
-- diagnostics per file (open or not), the code actions offered, the answers
-- of `workspace/executeCommand` and the messages shown. Paths are relative
-- to `root`.
--
-- SPEC.json: { snippet, cmd, settings, file, task, range?, choices?, review?,
--              steps?, root?, result, prepare?, typing?, attach_ms?, task_ms?,
--              log_level? }
--   prepare: { start, stop, lines }: before asking, the user replaces lines
--            [start, stop) of the buffer (0-based; unsaved changes).
--   typing:  { before = <choice>, start, stop, lines, think_ms? }: the same,
--            while being asked, just before answering <choice> (think_ms later).

local spec_file = assert(_G.arg[1], 'usage: nvim -l harness.lua SPEC.json')
local spec = vim.json.decode(table.concat(vim.fn.readfile(spec_file), '\n'), {
  luanil = { object = true },
})
local out = { events = {}, notified = {}, shown = {}, edits = {} }
local scenario -- the `steps` mode, below
local started = vim.uv.hrtime()

local function log(what, data)
  data = data or {}
  data.ms = math.floor((vim.uv.hrtime() - started) / 1e6)
  data.what = what
  table.insert(out.events, data)
end

local function text_of(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, true)
  return table.concat(lines, '\n') .. (vim.bo[bufnr].eol and '\n' or '')
end

local function finish(code)
  vim.fn.writefile({ vim.json.encode(out) }, spec.result)
  for _, client in ipairs(vim.lsp.get_clients()) do
    client:stop()
  end
  vim.wait(2000, function()
    return #vim.lsp.get_clients() == 0
  end, 20)
  vim.cmd(code == 0 and 'qall!' or 'cquit! 1')
end

-- The user's answers: Neovim's showMessageRequest handler calls vim.ui.select.
local choices = vim.deepcopy(spec.choices or {})
vim.ui.select = function(items, opts, on_choice)
  local want = table.remove(choices, 1)
  local titles = vim.tbl_map(function(item)
    return item.title
  end, items)
  log('select', { prompt = opts.prompt, titles = titles, chose = want or vim.NIL })
  local chosen, index = nil, nil
  for i, item in ipairs(items) do
    if item.title == want then
      chosen, index = item, i
    end
  end
  local typing = spec.typing -- the user types while being asked, then answers
  if typing and typing.before == want then
    spec.typing = nil
    local bufnr = vim.uri_to_bufnr(vim.uri_from_fname(spec.file))
    vim.api.nvim_buf_set_lines(bufnr, typing.start, typing.stop, true, typing.lines)
    log('typed', { lines = typing.lines })
    return vim.defer_fn(function()
      on_choice(chosen, index)
    end, typing.think_ms or 500)
  end
  on_choice(chosen, index)
end

vim.notify = function(message, level)
  table.insert(out.notified, { message = message, level = level or vim.log.levels.INFO })
end

-- Watch (never replace) what the server asks of the editor.
local function watch(method, record)
  local handler = vim.lsp.handlers[method]
  vim.lsp.handlers[method] = function(err, params, ctx, config)
    record(params, ctx)
    return handler(err, params, ctx, config)
  end
end
watch('window/showDocument', function(params)
  log('showDocument', { uri = params.uri })
  table.insert(out.shown, params.uri)
end)
watch('workspace/applyEdit', function(params)
  local versions = {}
  for _, change in ipairs(params.edit.documentChanges or {}) do
    if change.textDocument then
      local bufnr = vim.uri_to_bufnr(change.textDocument.uri)
      table.insert(versions, {
        uri = change.textDocument.uri,
        sent = change.textDocument.version,
        buffer = vim.lsp.util.buf_versions[bufnr],
      })
    end
  end
  log('applyEdit', { label = params.label })
  table.insert(out.edits, { edit = params.edit, versions = versions })
end)

-- surehand's diagnostics in the buffer: { line, severity, message }.
local function diagnostics(client, bufnr)
  local namespace = vim.lsp.diagnostic.get_namespace(client.id)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr, { namespace = namespace })) do
    table.insert(found, { line = d.lnum, severity = d.severity, message = d.message })
  end
  table.sort(found, function(a, b)
    return a.line < b.line
  end)
  return found
end

local function lines_of(found)
  return vim.tbl_map(function(d)
    return d.line
  end, found)
end

local function review(client, finished)
  local function here()
    return vim.api.nvim_get_current_buf()
  end
  out.seen, out.offered = {}, {}
  assert(
    vim.wait(spec.task_ms or 30000, function()
      return #diagnostics(client, here()) > 0 or finished()
    end, 20),
    'no review diagnostics within the timeout'
  )
  table.insert(out.seen, diagnostics(client, here()))
  for _, step in ipairs(spec.review) do
    local before = vim.json.encode(diagnostics(client, here()))
    if step['do'] == 'edit' then -- the user goes to another file
      vim.cmd.edit(vim.fn.fnameescape(step.file))
      assert(vim.wait(10000, function()
        return vim.lsp.get_clients({ bufnr = here(), name = 'surehand' })[1] ~= nil
      end, 20), 'surehand did not attach to ' .. step.file)
      before = vim.json.encode(diagnostics(client, here()))
    elseif step['do'] == 'kill' then
      client.rpc.terminate()
      log('killed')
      assert(vim.wait(10000, finished, 20), 'no result after the server was killed')
    elseif step['do'] == 'type' then
      vim.api.nvim_buf_set_lines(here(), step.start, step.stop, true, step.lines)
      log('typed', { lines = step.lines })
    elseif step['do'] == 'wait' then
      local ok = vim.wait(10000, function()
        return vim.deep_equal(lines_of(diagnostics(client, here())), step.lines)
      end, 20)
      assert(ok, 'diagnostics not on lines ' .. vim.inspect(step.lines) .. ': ' .. before)
    elseif step['do'] == 'action' then
      vim.api.nvim_win_set_cursor(0, { step.line + 1, 0 })
      local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
      params.context = { diagnostics = vim.lsp.diagnostic.from(vim.diagnostic.get(here(), { lnum = step.line })) }
      local answers = vim.lsp.buf_request_sync(here(), 'textDocument/codeAction', params, 5000) or {}
      local titles = {}
      for _, answer in pairs(answers) do
        for _, action in ipairs(answer.result or {}) do
          table.insert(titles, action.title)
        end
      end
      table.insert(out.offered, titles)
      vim.lsp.buf.code_action({
        apply = true,
        filter = function(action)
          return vim.startswith(action.title, step.title)
        end,
      })
      log('action', { title = step.title, line = step.line })
      local ok = vim.wait(10000, function()
        return vim.json.encode(diagnostics(client, here())) ~= before or finished()
      end, 20)
      assert(ok, 'nothing changed after ' .. step.title)
    end
    table.insert(out.seen, diagnostics(client, here()))
  end
end

-- The scenario mode (`steps`).
local function relative(name)
  local root = spec.root .. '/'
  return vim.startswith(name, root) and name:sub(#root + 1) or nil
end

local function snapshot(client)
  local state = { buffers = vim.empty_dict(), disk = vim.empty_dict(), diagnostics = vim.empty_dict() }
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    local name = relative(vim.api.nvim_buf_get_name(bufnr))
    if name and vim.api.nvim_buf_is_loaded(bufnr) then
      state.buffers[name] = { text = text_of(bufnr), modified = vim.bo[bufnr].modified }
    end
  end
  for name, kind in vim.fs.dir(spec.root, { depth = 10 }) do
    if kind == 'file' and not name:match('^%.') and not name:match('/%.') then
      state.disk[name] = table.concat(vim.fn.readfile(spec.root .. '/' .. name, 'b'), '\n')
    end
  end
  local namespace = vim.lsp.diagnostic.get_namespace(client.id)
  for _, d in ipairs(vim.diagnostic.get(nil, { namespace = namespace })) do
    local name = relative(vim.api.nvim_buf_get_name(d.bufnr)) or vim.api.nvim_buf_get_name(d.bufnr)
    state.diagnostics[name] = state.diagnostics[name] or {}
    table.insert(state.diagnostics[name], { line = d.lnum, message = d.message, code = d.code or vim.NIL })
  end
  for _, found in pairs(state.diagnostics) do
    table.sort(found, function(a, b)
      return a.line < b.line
    end)
  end
  return state
end

local function holds(client, want, result)
  local state = snapshot(client)
  for name, lines in pairs(want.lines or {}) do
    local found = vim.tbl_map(function(d)
      return d.line
    end, state.diagnostics[name] or {})
    if not vim.deep_equal(found, lines) then
      return false
    end
  end
  if want.message then
    local shown = vim.tbl_filter(function(n)
      return n.message:find(want.message, 1, true) ~= nil
    end, out.notified)
    if #shown == 0 then
      return false
    end
  end
  local answered = vim.tbl_filter(function(c)
    return c.command == want.answered
  end, out.commands)
  if want.answered and #answered == 0 then
    return false
  end
  if want.exists and not vim.uv.fs_stat(spec.root .. '/' .. want.exists) then
    return false
  end
  return not want.done or result() ~= nil
end

local function go_to(file)
  if file and vim.api.nvim_buf_get_name(0) ~= spec.root .. '/' .. file then
    vim.cmd.edit(vim.fn.fnameescape(spec.root .. '/' .. file))
    assert(vim.wait(10000, function()
      return vim.lsp.get_clients({ bufnr = 0, name = 'surehand' })[1] ~= nil
    end, 20), 'surehand did not attach to ' .. file)
  end
end

scenario = function(client, result)
  out.record, out.commands = {}, {}
  local function ms()
    return math.floor((vim.uv.hrtime() - started) / 1e6)
  end
  -- The answers of workspace/executeCommand (`:Surehand`'s ask, code actions' commands).
  local request = client.request
  client.request = function(self, method, params, handler, bufnr)
    if method == 'workspace/executeCommand' then
      local sent, inner = ms(), handler
      handler = function(err, answer, ctx, config)
        table.insert(out.commands, {
          command = params.command,
          sent = sent,
          ms = ms() - sent,
          answer = answer or vim.NIL,
          error = err and err.message or vim.NIL,
        })
        if inner then
          return inner(err, answer, ctx, config)
        end
      end
    end
    return request(self, method, params, handler, bufnr)
  end
  local notified = 0
  for index, step in ipairs(spec.steps) do
    local record = { step = index, ms = ms() }
    local kind = step['do']
    if kind == 'ask' then
      local before = vim.uv.hrtime()
      vim.cmd('Surehand ' .. step.task)
      record.took_ms = math.floor((vim.uv.hrtime() - before) / 1e6)
    elseif kind == 'keys' then
      go_to(step.file)
      vim.cmd.normal({ step.keys, bang = true })
      record.running = result() == nil
    elseif kind == 'edit' then
      go_to(step.file)
    elseif kind == 'action' then
      go_to(step.file)
      vim.api.nvim_win_set_cursor(0, { step.line + 1, 0 })
      local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
      params.context = { diagnostics = vim.lsp.diagnostic.from(vim.diagnostic.get(0, { lnum = step.line })) }
      local answers = vim.lsp.buf_request_sync(0, 'textDocument/codeAction', params, 5000) or {}
      record.offered = {}
      for _, answer in pairs(answers) do
        for _, action in ipairs(answer.result or {}) do
          table.insert(record.offered, action.title)
        end
      end
      local found = vim.tbl_filter(function(title)
        return vim.startswith(title, step.title)
      end, record.offered)
      assert(#found == 1, ('%d code actions %s on line %d: %s'):format(#found, step.title, step.line, vim.inspect(record.offered)))
      vim.lsp.buf.code_action({
        apply = true,
        filter = function(action)
          return vim.startswith(action.title, step.title)
        end,
      })
    else
      error('unknown step ' .. vim.inspect(step))
    end
    local want = step['until'] or {}
    vim.wait(want.settle_ms or 0, function()
      return false
    end, 20)
    local ok = vim.wait(20000, function()
      return holds(client, want, result)
    end, 20)
    record.waited_ms = ms() - record.ms
    for name, value in pairs(snapshot(client)) do
      record[name] = value
    end
    record.shown = vim.list_slice(out.notified, notified + 1)
    notified = #out.notified
    record.result = result() or vim.NIL
    table.insert(out.record, record)
    assert(ok, ('step %d: %s did not hold: %s'):format(index, vim.inspect(want), vim.json.encode(record)))
  end
end

local function main()
  vim.lsp.log.set_level(spec.log_level or 'warn')
  vim.cmd('filetype on') -- -u NONE leaves it off, and vim.lsp.enable starts on FileType
  vim.g.surehand_cmd = spec.cmd
  vim.g.surehand_settings = spec.settings
  dofile(spec.snippet)

  vim.cmd.edit(vim.fn.fnameescape(spec.file))
  local bufnr = vim.api.nvim_get_current_buf()
  local client
  local attached = vim.wait(spec.attach_ms or 15000, function()
    client = vim.lsp.get_clients({ bufnr = bufnr, name = 'surehand' })[1]
    return client ~= nil and client.initialized == true
  end, 20)
  assert(attached, 'surehand did not attach to ' .. spec.file)
  out.encoding = client.offset_encoding
  out.echospace = vim.v.echospace
  out.workspace = client.workspace_folders

  local result
  vim.api.nvim_create_autocmd('User', {
    pattern = 'SurehandDone',
    callback = function(event)
      result = event.data
    end,
  })
  if spec.steps then
    return scenario(client, function()
      return result
    end)
  end
  if spec.prepare then -- the user's unsaved changes before the ask
    vim.api.nvim_buf_set_lines(bufnr, spec.prepare.start, spec.prepare.stop, true, spec.prepare.lines)
  end
  vim.cmd((spec.range or '') .. 'Surehand ' .. spec.task)
  if spec.review then
    review(client, function()
      return result ~= nil
    end)
  end
  local done = vim.wait(spec.task_ms or 30000, function()
    return result ~= nil
  end, 20)
  assert(done, 'no result from :Surehand within the timeout')
  log('done')

  out.result = result
  out.text = text_of(bufnr)
  out.modified = vim.bo[bufnr].modified
  out.current = vim.api.nvim_buf_get_name(0)
  out.buffers = {}
  for _, other in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(other) then
      out.buffers[vim.api.nvim_buf_get_name(other)] = text_of(other)
    end
  end
  out.clients = #vim.lsp.get_clients()
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  out.error = err
end
finish(ok and 0 or 1)
