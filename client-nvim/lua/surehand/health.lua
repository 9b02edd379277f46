--- `:checkhealth surehand`: each problem with its fix. The server command
--- (and, when none is found, how to get one), its interpreter, the settings
--- in force (as the server's `surehand config` says them, the editor's on
--- top), the sandbox mode, and whether the model endpoint answers (its model
--- list only). A Python error is one line, never a traceback.
local config = require('surehand.config')
local effective = require('surehand.effective')
local install = require('surehand.install')

local M = {}

--- The ways to get a server, for an error's advice.
function M.ways()
  local checkout = install.checkout()
  local source = checkout and vim.fn.fnamemodify(checkout, ':~') or '<your surehand checkout>'
  return {
    (':SurehandInstall makes %s with the server from %s, and the plugin finds it by itself'):format(
      vim.fn.fnamemodify(install.venv(), ':~'),
      checkout and source or 'install.source'
    ),
    ('or pip install %s into an environment whose bin/ is on PATH (then `surehand` is found)'):format(source),
    "or setup({ python = '/path/to/python' }): an interpreter that has surehand installed",
  }
end

local function server_section(health)
  health.start('surehand: server')
  if vim.fn.has('nvim-0.11') == 0 then
    health.error('Neovim 0.11 or newer is needed (vim.lsp.config)')
  else
    health.ok('Neovim ' .. tostring(vim.version()))
  end
  local cmd, why = require('surehand.launch').command()
  if cmd == nil then
    health.error('no surehand server found (' .. why .. ')', M.ways())
    return nil
  end
  health.info(('server command: %s (%s)'):format(table.concat(cmd, ' '), why))
  if vim.fn.executable(cmd[1]) == 0 then
    health.error(('%s is not an executable'):format(cmd[1]), M.ways())
    return nil
  end
  local python, own = require('surehand.probe').interpreter(cmd)
  if own then
    local probe = 'import sys, lsp_server; print(f"Python {sys.version.split()[0]}, surehand {lsp_server.__version__}")'
    local result = effective.run({ python, '-c', probe })
    if result.code ~= 0 then
      health.error(('%s cannot run the server: %s'):format(python, result.error), {
        cmd[2] == '-m' and ('install surehand with it (%s -m pip install %s), or set `python =` to one that has it'):format(
          python, vim.fn.fnamemodify(install.checkout() or '<your surehand checkout>', ':~'))
          or 'install it again (see below)',
        M.ways()[1],
      })
      return nil
    end
    health.ok(('interpreter: %s (%s)'):format(python, vim.trim(result.stdout)))
  else
    health.ok('server executable: ' .. vim.fn.exepath(cmd[1]))
  end
  local clients = vim.lsp.get_clients({ name = 'surehand' })
  if #clients > 0 then
    health.ok(('running: %d client(s), root %s'):format(#clients, clients[1].root_dir or '?'))
  else
    health.info('not running in this Neovim (it starts in a buffer of a project)')
  end
  return cmd, python, clients[1]
end

--- What the running server says it uses, when that differs from what is in force now.
local function running_differs(health, client, rows)
  local status = client and require('surehand.server').status_sync(0)
  if type(status) ~= 'table' then
    return
  end
  local model, url = rows.model and rows.model.value, rows.baseUrl and rows.baseUrl.value
  local differs = (type(status.model) == 'string' and status.model ~= '' and status.model ~= model)
    or (type(status.baseUrl) == 'string' and status.baseUrl ~= '' and status.baseUrl ~= url)
  if differs then
    health.warn(('the running server uses model %s at %s (started with other settings)'):format(
      tostring(status.model), tostring(status.baseUrl)), { ':LspRestart surehand starts it with these' })
  end
end

local function settings_section(health, cmd, client)
  health.start('surehand: settings in force (surehand config, your setup{} settings on top)')
  local cli = effective.cli(cmd)
  if cli == nil then
    health.warn('no `surehand` command to ask for the settings (a custom cmd)')
    return nil
  end
  local workspace = (client and client.root_dir) or vim.fn.getcwd()
  local settings = config.settings()
  local found, failed, what = effective.read(cli, workspace, settings)
  if found == nil and what == 'settings' then
    health.error('your setup{} settings: ' .. tostring(failed), { 'fix that setting in setup({ settings = ... })' })
    return nil
  elseif found == nil then
    health.error('`surehand config` failed: ' .. tostring(failed), { 'install the server again: ' .. M.ways()[1] })
    return nil
  end
  local rows = found.rows
  local function row(name)
    return rows[name] or { value = '?', from = '?' }
  end
  health.info(('endpoint: %s (from %s)'):format(row('baseUrl').value, row('baseUrl').from))
  if row('model').value == '(not set)' then
    health.error('no model set: a task cannot start', {
      "setup({ settings = { model = '...' } }), or SUREHAND_MODEL, or model = in ~/.config/surehand/config.toml",
    })
  else
    health.info(('model: %s (from %s)'):format(row('model').value, row('model').from))
  end
  local key = ('key: %s (from %s)'):format(row('key').value, row('key').from)
  -- No baseUrl set (the openai package's own URL) and no key: the server's client refuses a task.
  if row('key').value:match('^none') and row('baseUrl').from:find('openai package', 1, true) then
    health.error(key, { 'set the variable apiKeyEnv names, or set baseUrl to a server that needs no key' })
  else
    health.info(key)
  end
  for _, warning in ipairs(found.warnings) do
    health.warn(warning)
  end
  for _, name in ipairs(found.unknown) do
    health.warn(('%s in your settings is not a surehand setting (`surehand config` lists them)'):format(name))
  end
  running_differs(health, client, rows)
  local sandbox = effective.run(vim.list_extend(vim.deepcopy(cli), { 'status', '--workspace', workspace }))
  if sandbox.code == 0 then
    local text = vim.trim(sandbox.stdout):gsub('^sandbox: ', ''):gsub('\n', '. ', 1):gsub('\n', ' ')
    if text:match('^none') or text:match('Every command is asked first') then
      health.warn('sandbox: ' .. text)
    else
      health.ok('sandbox: ' .. text)
    end
  else
    health.warn('`surehand status` failed: ' .. sandbox.error)
  end
  return found
end

local function endpoint_section(health, python, found)
  health.start('surehand: model endpoint')
  local rows, settings = found.rows, config.settings()
  local key, note = effective.key(rows, settings)
  local model = rows.model and rows.model.value
  require('surehand.probe').check(health, python, {
    url = rows.baseUrl and rows.baseUrl.value or '',
    model = model ~= '(not set)' and model or nil,
    key = key,
    key_note = note,
    key_row = rows.key and rows.key.value or '?',
  })
end

function M.check()
  local health = vim.health
  local cmd, python, client = server_section(health)
  if cmd == nil then
    health.start('surehand: settings and model endpoint')
    health.info('checked once a server is found (see above)')
    return
  end
  local found = settings_section(health, cmd, client)
  if found and python then
    endpoint_section(health, python, found)
  end
end

return M
