--- `:checkhealth surehand`: the server command, the interpreter, the sandbox
--- mode and the model endpoint.
local config = require('surehand.config')

local M = {}

local function run(cmd)
  local ok, result = pcall(function()
    return vim.system(cmd, { text = true }):wait(10000)
  end)
  if not ok or result == nil then
    return nil, tostring(result)
  end
  return result
end

--- The `surehand` executable beside the server's interpreter, or on PATH.
local function surehand_cli(cmd)
  if cmd[1] and vim.fs.basename(cmd[1]) == 'surehand' then
    return cmd[1]
  end
  if cmd[2] == '-m' then
    local beside = vim.fs.joinpath(vim.fs.dirname(cmd[1]), 'surehand')
    if vim.fn.executable(beside) == 1 then
      return beside
    end
  end
  if vim.fn.executable('surehand') == 1 then
    return 'surehand'
  end
end

function M.check()
  local health = vim.health
  health.start('surehand: server')
  if vim.fn.has('nvim-0.11') == 0 then
    health.error('Neovim 0.11 or newer is needed (vim.lsp.config)')
  else
    health.ok('Neovim ' .. tostring(vim.version()))
  end
  local resolved = vim.lsp.config.surehand
  local cmd, why = config.server_cmd()
  if resolved and type(resolved.cmd) == 'table' then
    cmd = resolved.cmd
  end
  health.info(('server command: %s (%s)'):format(table.concat(cmd, ' '), why))
  local exe = vim.fn.exepath(cmd[1])
  if exe == '' then
    health.error(('%s is not executable'):format(cmd[1]), { 'pip install surehand, or set `cmd`/`python` in setup{}' })
    return
  end
  local interpreter = cmd[2] == '-m' and exe or nil
  if interpreter then
    local probe = 'import sys, lsp_server; print(f"Python {sys.version.split()[0]}, surehand {lsp_server.__version__}")'
    local result = run({ interpreter, '-c', probe })
    if result and result.code == 0 then
      health.ok(('interpreter: %s (%s)'):format(interpreter, vim.trim(result.stdout)))
    else
      health.error(('interpreter %s cannot import lsp_server'):format(interpreter), { (result and result.stderr) or '' })
    end
  else
    health.ok('server executable: ' .. exe)
  end
  local clients = vim.lsp.get_clients({ name = 'surehand' })
  if #clients > 0 then
    health.ok(('running: %d client(s), root %s'):format(#clients, clients[1].root_dir or '?'))
  else
    health.info('not running in this Neovim (it starts in a buffer of a project)')
  end

  health.start('surehand: sandbox and model')
  local cli = surehand_cli(cmd)
  if cli == nil then
    health.warn('no `surehand` command to ask for the sandbox mode and the settings')
    return
  end
  local workspace = (clients[1] and clients[1].root_dir) or vim.fn.getcwd()
  local sandbox = run({ cli, 'status', '--workspace', workspace })
  if sandbox and sandbox.code == 0 then
    local mode = sandbox.stdout:match('sandbox: ([^\n]+)') or '?'
    local text = vim.trim(sandbox.stdout):gsub('^sandbox: ', '')
    if mode == 'none' or text:match('Every command is asked first') then
      health.warn('sandbox: ' .. text:gsub('\n', ' '))
    else
      health.ok('sandbox: ' .. text:gsub('\n', ' '))
    end
  else
    health.warn('`surehand status` failed: ' .. ((sandbox and sandbox.stderr) or ''))
  end
  local settings = run({ cli, 'config', '--workspace', workspace })
  if settings and settings.code == 0 then
    for line in vim.gsplit(vim.trim(settings.stdout), '\n') do
      if line:match('^model ') or line:match('^baseUrl ') or line:match('^sandbox ') then
        health.info(line)
      end
    end
  else
    health.warn('`surehand config` failed: ' .. ((settings and settings.stderr) or ''))
  end
  local configured = config.settings()
  if configured.baseUrl or configured.model then
    health.info(('editor settings: model %s, endpoint %s'):format(tostring(configured.model), tostring(configured.baseUrl)))
  end
end

return M
