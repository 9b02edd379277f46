--- Buffers as the review sees them: their text as the language server gets
--- it (lines joined by the 'fileformat' line break, a final one with 'eol'),
--- the files a proposal names, and read-only previews of new files.
local M = {}

local BREAK = { dos = '\r\n', mac = '\r', unix = '\n' }

function M.line_break(bufnr)
  return BREAK[vim.bo[bufnr].fileformat] or '\n'
end

--- The buffer's text, as Neovim's LSP client sends it to the server.
function M.text(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, true)
  local nl = M.line_break(bufnr)
  return table.concat(lines, nl) .. (vim.bo[bufnr].eol and nl or '')
end

--- The loaded buffer showing `uri`, loading the file if it exists; nil when
--- neither a buffer nor the file is there.
function M.load(uri)
  local fname = vim.uri_to_fname(uri)
  local bufnr = vim.fn.bufnr(fname)
  if bufnr == -1 then
    if not vim.uv.fs_stat(fname) then
      return nil
    end
    bufnr = vim.fn.bufadd(fname)
  end
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    if not vim.uv.fs_stat(fname) then
      return nil
    end
    vim.fn.bufload(bufnr)
    vim.bo[bufnr].buflisted = true
  end
  return bufnr
end

--- `uri`'s path relative to the working directory (or as it is).
function M.relative(uri)
  local path = vim.uri_to_fname(uri)
  return vim.fn.fnamemodify(path, ':~:.')
end

--- A read-only scratch buffer showing a new file's proposed content.
function M.preview(uri, content)
  local name = 'surehand://new/' .. require('surehand.visible').line(M.relative(uri))
  local existing = vim.fn.bufnr(name)
  local bufnr = existing ~= -1 and existing or vim.api.nvim_create_buf(true, true)
  vim.api.nvim_buf_set_name(bufnr, name)
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].bufhidden = 'hide'
  vim.bo[bufnr].swapfile = false
  vim.bo[bufnr].modifiable = true
  -- A preview of model-chosen text: control and bidi characters as escapes.
  local lines = vim.tbl_map(require('surehand.visible').code, require('surehand.text').split_lines(content))
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].modified = false
  local ft = vim.filetype.match({ filename = vim.uri_to_fname(uri), contents = lines })
  if ft then
    vim.bo[bufnr].filetype = ft
  end
  return bufnr
end

--- Wipe a preview buffer (never a user's file).
function M.wipe_preview(bufnr)
  if vim.api.nvim_buf_is_valid(bufnr) and vim.api.nvim_buf_get_name(bufnr):match('^surehand://') then
    vim.api.nvim_buf_delete(bufnr, { force = true })
  end
end

return M
