--- The settings in force for a workspace, as the server's own `surehand config`
--- says them (its endpoint, model and key lines, each with where it came
--- from), with the editor's settings (`setup{ settings }`) passed on top as
--- its flags: the order the server itself uses. Nothing is re-derived here.
local M = {}

--- How to run the `surehand` command line of the server command `cmd`
--- (an argv prefix), or nil.
---@param cmd string[]
function M.cli(cmd)
  local program = cmd[1] and vim.fs.basename(cmd[1]):gsub('%.exe$', '')
  if program == 'surehand' then
    return { cmd[1] }
  end
  if cmd[2] == '-m' and cmd[3] == 'lsp_server' then
    return { cmd[1], '-m', 'surehand' }
  end
  if vim.fn.executable('surehand') == 1 then
    return { vim.fn.exepath('surehand') }
  end
end

--- Run `argv` (10 s at most); the result, with `error` holding one line when it failed.
function M.run(argv, env)
  local ok, result = pcall(function()
    return vim.system(argv, { text = true, env = env }):wait(10000)
  end)
  if not ok or result == nil then
    return { code = -1, stdout = '', stderr = '', error = tostring(result) }
  end
  if result.code ~= 0 then
    local line = require('surehand.install').last_line(result.stderr)
    if line == '' then
      line = require('surehand.install').last_line(result.stdout)
    end
    result.error = line ~= '' and line or ('exit code %d'):format(result.code)
  end
  return result
end

--- `--base-url` for `baseUrl`.
local function flag(name)
  return '--' .. name:gsub('%u', function(c)
    return '-' .. c:lower()
  end)
end

--- The flags that pass `settings` to `surehand config` (only the names it
--- lists, `provider` and `trustProject`); the names it does not know.
function M.flags(settings, known)
  local out, unknown = {}, {}
  -- apiKey has no flag: a command line is visible to every process.
  local names = vim.tbl_filter(function(name)
    return name ~= 'apiKey'
  end, vim.tbl_keys(settings))
  for _, name in ipairs(names) do
    local value = settings[name]
    if name == 'provider' then
      vim.list_extend(out, { '--provider', tostring(value) })
    elseif name == 'trustProject' then
      if value == true then
        out[#out + 1] = '--trust-project'
      end
    elseif not known[name] then
      unknown[#unknown + 1] = name
    elseif type(value) == 'boolean' then
      out[#out + 1] = value and flag(name) or flag(name):gsub('^%-%-', '--no-')
    elseif type(value) == 'table' then
      for _, item in ipairs(value) do
        vim.list_extend(out, { flag(name), tostring(item) })
      end
    else
      vim.list_extend(out, { flag(name), tostring(value) })
    end
  end
  table.sort(unknown)
  return out, unknown
end

--- The rows of `surehand config`'s table: name -> {value, from}; its warnings.
function M.parse(text)
  local rows, warnings, in_table = {}, {}, false
  for line in vim.gsplit(text, '\n') do
    if line:match('^setting%s+value%s+from') then
      in_table = true
    elseif in_table and line == '' then
      in_table = false
    elseif in_table then
      local name, value, from = line:match('^(%S+)%s%s+(.-)%s%s+(%S.*)$')
      if name then
        rows[name] = { value = value, from = from }
      end
    elseif line:match('^warning: ') then
      warnings[#warnings + 1] = line:sub(10)
    end
  end
  return rows, warnings
end

local EDITOR = 'your setup{} settings'

--- The settings in force for `workspace` with `settings` on top, read from
--- `surehand config`; nil, one line and what failed ('server' or 'settings')
--- when that fails.
---@return {rows: table<string, {value: string, from: string}>, warnings: string[], unknown: string[]}?, string?, string?
function M.read(cli, workspace, settings)
  local plain = M.run(vim.list_extend(vim.deepcopy(cli), { 'config', '--workspace', workspace }))
  if plain.code ~= 0 then
    return nil, plain.error, 'server'
  end
  local known = M.parse(plain.stdout)
  local flags, unknown = M.flags(settings, known)
  local result = plain
  if #flags > 0 then
    result = M.run(vim.list_extend(vim.list_extend(vim.deepcopy(cli), { 'config', '--workspace', workspace }), flags))
    if result.code ~= 0 then -- named as in your settings: `--max-steps` is `maxSteps`
      local said = result.error:gsub('%-%-([%w%-]+)', function(name)
        return (name:gsub('%-(%w)', string.upper))
      end)
      return nil, said, 'settings'
    end
  end
  local rows, warnings = M.parse(result.stdout)
  for _, row in pairs(rows) do
    row.from = row.from:gsub('command line', EDITOR)
  end
  if type(settings.apiKey) == 'string' and settings.apiKey ~= '' then
    rows.key = { value = 'apiKey, given directly (not shown)', from = EDITOR }
  end
  return { rows = rows, warnings = warnings, unknown = unknown }
end

--- The key the server sends, read as it reads it: the editor's `apiKey`,
--- else the variable the key row names; nil and why when there is none to read.
function M.key(rows, settings)
  local row = rows.key or { value = '' }
  if row.from == EDITOR and type(settings.apiKey) == 'string' then
    return settings.apiKey
  end
  local variable = row.value:match('^%$([%w_]+) %(set')
  if variable then
    return vim.env[variable]
  end
  if row.value:match('^apiKey') then
    return nil, 'the key is given directly in ' .. row.from .. ': the probe goes without it'
  end
  return nil
end

return M
