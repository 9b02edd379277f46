--- Whether and how the surehand server starts: the command in force (looked
--- up at each start, so the one `:SurehandInstall` made is found at once),
--- the project root `vim.lsp.enable` starts it for, and, when it cannot start
--- (none found, or it quit as it started), one line saying what to do, said
--- once: the server is then tried in no buffer until `:Surehand` asks again
--- or `:SurehandInstall` made one.
local config = require('surehand.config')
local say = require('surehand.say').say
local status = require('surehand.status')

local M = {}

local NAME = 'surehand'
local started = {} ---@type table<integer, boolean> clients that initialized
local broken = nil ---@type string? why the server quit before it started
local told = nil ---@type string? the last reason said for not starting it

--- The server command in force and why: one set with `vim.lsp.config()`
--- over the plugin's, else the one `config.server_cmd` finds (nil: none).
---@return string[]?, string
function M.command()
  local resolved = vim.lsp.config[NAME]
  if resolved and type(resolved.cmd) == 'table' then
    return resolved.cmd, "vim.lsp.config('surehand', { cmd = ... })"
  end
  return config.server_cmd()
end

--- Start the server found now (after `:SurehandInstall`, say): the command is
--- looked up at each start, never kept from before.
function M.spawn(dispatchers, client_config)
  local cmd = assert(M.command(), 'no surehand server found')
  return vim.lsp.rpc.start(cmd, dispatchers, {
    cwd = client_config.cmd_cwd,
    env = client_config.cmd_env,
    detached = client_config.detached,
  })
end

--- The project root of `bufnr` for `vim.lsp.enable`, given only when the
--- server can start: a missing or broken server is said once, not tried in
--- every buffer opened.
function M.root_dir(bufnr, on_dir)
  if M.missing() then
    return
  end
  local root = vim.fs.root(bufnr, config.options.root_markers)
  if root then
    on_dir(root)
  end
end

--- Why the server cannot start, said once in one line (what to do
--- included); nil when it can.
function M.missing()
  local why = broken
  if why == nil then
    local cmd = M.command()
    if cmd == nil then
      why = 'surehand: no server found (:SurehandInstall, :checkhealth surehand)'
    elseif type(cmd[1]) ~= 'string' or vim.fn.executable(cmd[1]) == 0 then
      why = ('surehand: server not found: %s (:checkhealth surehand)'):format(tostring(cmd[1]))
    else
      return nil
    end
    status.server('stopped', 'not found')
  end
  if told ~= why then
    told = why
    say(why, vim.log.levels.WARN)
  end
  return why
end

--- The server can be found now (`:SurehandInstall` made it): start it in
--- the project buffers open, where it is enabled.
function M.reconfigure()
  broken, told = nil, nil
  if vim.lsp.is_enabled(NAME) and M.missing() == nil then
    vim.lsp.enable(NAME)
  end
end

--- A client initialized: the server starts.
function M.on_init(client)
  started[client.id] = true
  broken = nil
end

--- A client stopped with `why`: when it never initialized the server is
--- broken (said once, and not started again by itself). Whether it was so.
function M.quit_at_start(client_id, why)
  if started[client_id] then
    return false
  end
  broken = ('surehand: server quit at start (%s); :checkhealth surehand'):format(why)
  status.server('stopped', 'failed to start')
  told = nil
  M.missing()
  return true
end

--- Try again (`:Surehand` asks): what was said may be said again.
function M.retry()
  broken, told = nil, nil
end

return M
