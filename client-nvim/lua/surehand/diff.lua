--- `:SurehandDiff`: a split with the diff of a file under review (its text
--- now against the text with every change that may still be accepted).
local buffers = require('surehand.buffers')
local decide = require('surehand.decide')
local say = require('surehand.say').say

local M = {}

function M.text(file)
  local before, after, old_name, new_name = file.text, decide.proposed_text(file), file.text_uri, file.uri
  if file.kind == 'create' then
    before, after = '', decide.text_with(file, function()
      return file.operation ~= 'rejected'
    end)
  elseif file.kind == 'delete' then
    after = file.operation == 'rejected' and file.text or ''
  end
  local function lf(s)
    return (s:gsub('\r\n', '\n'))
  end
  local body = vim.diff(lf(before), lf(after), { result_type = 'unified', ctxlen = 3 }) --[[@as string]]
  local shown = require('surehand.visible').line
  local head = ('--- %s\n+++ %s\n'):format(shown(buffers.relative(old_name)), shown(buffers.relative(new_name)))
  return head .. body
end

function M.open()
  local file = require('surehand.decisions').file_here()
  if file == nil then
    return say('surehand: no review is open', vim.log.levels.WARN)
  end
  local name = 'surehand://diff/' .. require('surehand.visible').line(buffers.relative(file.uri))
  local bufnr = vim.fn.bufnr(name)
  if bufnr == -1 then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(bufnr, name)
  end
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].bufhidden = 'wipe'
  vim.bo[bufnr].modifiable = true
  -- A diff line shows what the bytes are: control and bidi characters as escapes.
  local lines = vim.tbl_map(require('surehand.visible').code, vim.split(M.text(file), '\n', { plain = true }))
  if lines[#lines] == '' then
    table.remove(lines)
  end
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].filetype = 'diff'
  vim.cmd('vertical rightbelow sbuffer ' .. bufnr)
  return bufnr
end

return M
