--- The plugin's options: defaults, merged once by `require('surehand').setup{}`,
--- and where the server comes from.
local M = {}

M.defaults = {
  -- The language server command (a list); nil: found as `server_cmd` says.
  cmd = nil,
  -- An interpreter that has surehand installed: the server is `<python> -m lsp_server`.
  python = nil,
  -- The `surehand` settings sent to the server (camelCase, as in docs/configuration.md):
  -- model, baseUrl, apiKeyEnv, sandbox, testCommands (a list; the tests'
  -- verdict a proposal carries), testsBeforeReview (true), testsOnAccepted
  -- ("run" or "offer": after a review that rejected something), ...
  settings = {},
  -- Start the server with `vim.lsp.enable('surehand')` on every buffer in a project.
  enable = true,
  root_markers = { '.git', 'pyproject.toml' },
  -- Buffer-local keys while a review is open (false leaves one unmapped).
  keymaps = {
    next = ']s',
    prev = '[s',
    accept = '<leader>sa',
    reject = '<leader>sr',
    accept_file = '<leader>sfa',
    reject_file = '<leader>sfr',
    accept_all = '<leader>sA',
    reject_all = '<leader>sR',
    diff = '<leader>sd',
    list = '<leader>sl',
  },
  review = {
    -- Open the review list (quickfix) when a proposal comes; the cursor stays where it is.
    open_list = true,
    -- Show the first change in the current window when a proposal comes
    -- (never while you are typing in insert mode).
    jump = false,
  },
  -- `:SurehandInstall`: a virtual environment under stdpath('data')/surehand with the server.
  install = {
    -- The interpreter that makes the environment (Python 3.11+); nil: python3, else python.
    python = nil,
    -- What pip installs; nil: the repository this plugin folder is part of.
    source = nil,
    -- More arguments for `pip install` (an index, `--no-index --find-links DIR`, ...).
    pip_args = {},
  },
}

M.options = vim.deepcopy(M.defaults)
--- The options as given to setup{} (without the defaults).
M.given = {}

function M.setup(opts)
  M.given = opts or {}
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), M.given)
  return M.options
end

--- The server command and why it was chosen, in this order: the `cmd` option,
--- `g:surehand_cmd`, the `python` option, the environment `:SurehandInstall`
--- made, `surehand` on PATH. Nil (and why) when none is there.
---@return string[]? cmd, string why
function M.server_cmd()
  local o = M.options
  if o.cmd then
    return o.cmd, 'the cmd option'
  end
  if vim.g.surehand_cmd then
    return vim.g.surehand_cmd, 'g:surehand_cmd'
  end
  if o.python then
    return { o.python, '-m', 'lsp_server' }, 'the python option'
  end
  local installed = require('surehand.install').executable()
  if vim.fn.executable(installed) == 1 then
    return { installed, 'serve' }, 'installed by :SurehandInstall'
  end
  if vim.fn.executable('surehand') == 1 then
    return { 'surehand', 'serve' }, '`surehand` on PATH'
  end
  return nil, 'no `surehand` on PATH, no :SurehandInstall, no cmd or python option'
end

function M.settings()
  return vim.tbl_deep_extend('force', vim.g.surehand_settings or {}, M.options.settings or {})
end

return M
