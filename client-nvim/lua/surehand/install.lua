--- `:SurehandInstall`: the server in a virtual environment of the plugin's own,
--- `stdpath('data')/surehand/venv`, made from the repository this plugin
--- folder is part of (`python3 -m venv`, then `pip install <repository>`).
--- `config.server_cmd` finds it there by itself. For lazy.nvim's `build`,
--- `client-nvim/build.lua` runs the same steps and waits for them.
local config = require('surehand.config')

local M = {}

local windows = vim.fn.has('win32') == 1

--- Where the plugin keeps what it installs.
function M.home()
  return vim.fs.joinpath(vim.fn.stdpath('data'), 'surehand')
end

function M.venv()
  return vim.fs.joinpath(M.home(), 'venv')
end

local function in_venv(name)
  return vim.fs.joinpath(M.venv(), windows and 'Scripts' or 'bin', name .. (windows and '.exe' or ''))
end

--- The `surehand` command of the environment (it may not exist yet).
function M.executable()
  return in_venv('surehand')
end

function M.log_file()
  return vim.fs.joinpath(M.home(), 'install.log')
end

--- The repository this plugin folder is part of (its pyproject.toml names
--- the `surehand` project), or nil.
function M.checkout()
  local source = debug.getinfo(1, 'S').source:gsub('^@', '')
  local plugin = vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(vim.fs.normalize(vim.fn.fnamemodify(source, ':p')))))
  local root = vim.fs.dirname(plugin)
  local ok, lines = pcall(vim.fn.readfile, vim.fs.joinpath(root, 'pyproject.toml'))
  if ok and vim.tbl_contains(lines, 'name = "surehand"') then
    return root
  end
end

--- The install options: `setup{ install = {...} }` over `g:surehand_install`
--- (which a build step can set before setup{} has run).
function M.options()
  return vim.tbl_deep_extend('force', config.defaults.install, vim.g.surehand_install or {}, config.given.install or {})
end

--- The interpreter that makes the environment.
function M.base_python()
  local chosen = M.options().python
  if chosen then
    return vim.fn.exepath(chosen) ~= '' and vim.fn.exepath(chosen) or nil
  end
  for _, name in ipairs({ 'python3', 'python' }) do
    if vim.fn.executable(name) == 1 then
      return vim.fn.exepath(name)
    end
  end
end

--- The steps, or nil and what is missing.
---@return {what: string, argv: string[]}[]?, string?
function M.steps()
  local options = M.options()
  local python = M.base_python()
  if python == nil then
    return nil, ('no Python to make the environment with (%s): install Python 3.11+ or set install.python'):format(
      options.python or 'python3, python'
    )
  end
  local source = options.source or M.checkout()
  if source == nil then
    return nil, 'this plugin folder is not in a surehand checkout: set install.source (a path or a pip requirement)'
  end
  local steps = {}
  if vim.fn.executable(in_venv('python')) == 0 then
    steps[#steps + 1] = { what = 'python -m venv ' .. M.venv(), argv = { python, '-m', 'venv', M.venv() } }
  end
  local pip = { in_venv('python'), '-m', 'pip', 'install', '--upgrade', '--disable-pip-version-check' }
  vim.list_extend(pip, options.pip_args or {})
  pip[#pip + 1] = source
  steps[#steps + 1] = { what = 'pip install ' .. source, argv = pip }
  local probe = 'import lsp_server; print(lsp_server.__version__)'
  steps[#steps + 1] = { what = 'check', argv = { in_venv('python'), '-c', probe } }
  return steps
end

--- The last line a failed step printed (a Python error's own summary), for one message.
function M.last_line(text)
  local last = ''
  for line in vim.gsplit(text or '', '\n') do
    if vim.trim(line) ~= '' then
      last = vim.trim(line)
    end
  end
  return last
end

local running = false

--- Run the steps. `opts.wait`: block until done and raise on failure (for a
--- build step); else run in the background and say each step in one line.
--- `opts.on_done(ok, message)` is called at the end either way.
---@param opts {wait: boolean?, on_done: fun(ok: boolean, message: string)?}?
function M.run(opts)
  opts = opts or {}
  local say = function(text, level)
    if not opts.wait then
      require('surehand.say').say(text, level)
    end
  end
  if running then
    return say('surehand: an install is already running', vim.log.levels.WARN)
  end
  local steps, why = M.steps()
  local function finish(ok, message)
    running = false
    if ok then
      require('surehand.launch').reconfigure()
    end
    say(message, ok and vim.log.levels.INFO or vim.log.levels.ERROR)
    if opts.on_done then
      opts.on_done(ok, message)
    end
    if opts.wait and not ok then
      error(message, 0)
    end
    return ok, message
  end
  if steps == nil then
    return finish(false, 'surehand: cannot install: ' .. why)
  end
  vim.fn.mkdir(M.home(), 'p')
  local log = assert(io.open(M.log_file(), 'w'))
  running = true
  local index = 0
  local step_done
  local function next_step()
    index = index + 1
    local step = steps[index]
    if step == nil then
      log:close()
      return
    end
    say(('surehand: installing the server (%d/%d): %s'):format(index, #steps, step.what))
    log:write(('$ %s\n'):format(table.concat(step.argv, ' ')))
    local ok, job = pcall(vim.system, step.argv, { text = true }, (not opts.wait) and vim.schedule_wrap(function(result)
      step_done(step, result)
    end) or nil)
    if not ok then
      return step_done(step, { code = -1, stdout = '', stderr = tostring(job) })
    end
    if opts.wait then
      return step_done(step, job:wait())
    end
  end
  step_done = function(step, result)
    log:write(result.stdout or '', result.stderr or '')
    if result.code ~= 0 then
      log:close()
      local line = M.last_line(result.stderr) ~= '' and M.last_line(result.stderr) or M.last_line(result.stdout)
      return finish(false, ('surehand: the install failed at %s (exit %d): %s (log: %s)'):format(
        step.what:match('^%S+ %S+') or step.what, result.code, line, vim.fn.fnamemodify(M.log_file(), ':~')))
    end
    if step.what == 'check' then
      log:close()
      return finish(true, ('surehand: installed (surehand %s); the server starts in your project buffers'):format(
        vim.trim(result.stdout)))
    end
    return next_step()
  end
  return next_step()
end

return M
