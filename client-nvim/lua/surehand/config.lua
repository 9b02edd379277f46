--- The plugin's options: defaults, merged once by `require('surehand').setup{}`.
local M = {}

M.defaults = {
  -- The language server command; nil: `surehand serve`, else `python -m lsp_server`
  -- with the interpreter below.
  cmd = nil,
  -- The interpreter for `-m lsp_server` when no `surehand` executable is on PATH.
  python = nil,
  -- The `surehand` settings sent to the server (camelCase, as in the README):
  -- model, baseUrl, apiKeyEnv, sandbox, ...
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
}

M.options = vim.deepcopy(M.defaults)

function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  return M.options
end

--- The server command: the option, else `surehand serve` when on PATH, else
--- `<python> -m lsp_server`.
---@return string[] cmd, string why
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
  if vim.fn.executable('surehand') == 1 then
    return { 'surehand', 'serve' }, '`surehand` on PATH'
  end
  return { 'python3', '-m', 'lsp_server' }, 'no `surehand` on PATH: python3 -m lsp_server'
end

function M.settings()
  return vim.tbl_deep_extend('force', vim.g.surehand_settings or {}, M.options.settings or {})
end

return M
