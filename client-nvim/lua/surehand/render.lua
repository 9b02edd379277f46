--- How a proposal looks in its buffers, drawn with extmarks and never by
--- changing the text:
--- - lines a hunk removes: highlighted `SurehandRemoved` (DiffDelete);
--- - lines it adds: virtual lines below them (`SurehandAdded`, DiffAdd);
--- - its description: a virtual text label at the end of its first line,
---   with the keys that decide it; a stale hunk's label says it can only be
---   rejected (`SurehandStale`);
--- - a new file: its preview buffer, every line added; a file to delete:
---   every line removed; a rename: a label on the first line.
local config = require('surehand.config')
local navigate = require('surehand.navigate')
local text = require('surehand.text')
local buffers = require('surehand.buffers')

local M = {}

M.ns = vim.api.nvim_create_namespace('surehand_review')

local LINKS = {
  SurehandRemoved = 'DiffDelete',
  SurehandAdded = 'DiffAdd',
  SurehandLabel = 'DiagnosticInfo',
  SurehandStale = 'DiagnosticWarn',
  SurehandAccepted = 'DiagnosticOk',
  SurehandRejected = 'Comment',
}

function M.define_highlights()
  for group, link in pairs(LINKS) do
    vim.api.nvim_set_hl(0, group, { link = link, default = true })
  end
end

local function keys(which)
  local maps = config.options.keymaps or {}
  local parts = {}
  for _, name in ipairs(which) do
    if maps[name] then
      parts[#parts + 1] = ('%s %s'):format(maps[name], name)
    end
  end
  return #parts > 0 and ('  [' .. table.concat(parts, ' · ') .. ']') or ''
end

local function expand(line, bufnr)
  local ts = vim.bo[bufnr].tabstop
  return (line:gsub('\t', string.rep(' ', ts)))
end

local function clamp(bufnr, line)
  local count = vim.api.nvim_buf_line_count(bufnr)
  return math.max(0, math.min(line, count - 1))
end

local function label(bufnr, line, chunks)
  vim.api.nvim_buf_set_extmark(bufnr, M.ns, clamp(bufnr, line), 0, {
    virt_text = chunks,
    virt_text_pos = 'eol',
    hl_mode = 'combine',
    priority = 200,
  })
end

local function whole_lines(bufnr, first, stop, group)
  local count = vim.api.nvim_buf_line_count(bufnr)
  for line = first, math.min(stop, count) - 1 do
    vim.api.nvim_buf_set_extmark(bufnr, M.ns, line, 0, { line_hl_group = group, priority = 150 })
  end
end

local function added_lines(bufnr, layout, group)
  if #layout.added == 0 then
    return
  end
  local virt = {}
  for _, line in ipairs(layout.added) do
    virt[#virt + 1] = { { '+ ' .. expand(line, bufnr), group } }
  end
  local above = layout.anchor_line < 0
  vim.api.nvim_buf_set_extmark(bufnr, M.ns, above and 0 or clamp(bufnr, layout.anchor_line), 0, {
    virt_lines = virt,
    virt_lines_above = above,
    priority = 150,
  })
end

local function draw_hunk(bufnr, file, hunk, starts)
  local layout = navigate.layout(file.text, hunk, starts)
  local what = navigate.summary(layout)
  if hunk.decision == 'rejected' then
    label(bufnr, layout.label_line, { { ('  ✗ surehand: rejected: %s'):format(hunk.label), 'SurehandRejected' } })
    return
  end
  if layout.removed then
    whole_lines(bufnr, layout.removed.start, layout.removed.stop, 'SurehandRemoved')
  end
  if hunk.stale then
    label(bufnr, layout.label_line, {
      { ('  ⚠ surehand: stale, you typed here: %s%s'):format(hunk.label, keys({ 'reject' })), 'SurehandStale' },
    })
    return
  end
  added_lines(bufnr, layout, 'SurehandAdded')
  if hunk.decision == 'accepted' then
    label(bufnr, layout.label_line, { { ('  ✓ surehand: accepted: %s'):format(hunk.label), 'SurehandAccepted' } })
  else
    label(bufnr, layout.label_line, {
      { ('  ◆ surehand: %s (%s)%s'):format(hunk.label, what, keys({ 'accept', 'reject' })), 'SurehandLabel' },
    })
  end
end

local OPERATION = { create = 'new file', delete = 'delete', rename = 'rename to' }

local function operation_label(bufnr, file)
  local state = file.operation
  local name = buffers.relative(file.uri)
  local head = ('%s %s: %s'):format(OPERATION[file.kind], name, file.label)
  if file.kind == 'create' then
    local lines = #text.split_lines(require('surehand.decide').text_with(file, function()
      return true
    end))
    head = ('new file %s (%d line%s): %s'):format(name, lines, lines == 1 and '' or 's', file.label)
  end
  if state == 'pending' and file.operation_stale then
    label(bufnr, 0, { { ('  ⚠ surehand: %s: you typed in it, it can only be kept%s'):format(head, keys({ 'reject' })), 'SurehandStale' } })
  elseif state == 'pending' then
    label(bufnr, 0, { { ('  ◆ surehand: %s%s'):format(head, keys({ 'accept', 'reject' })), 'SurehandLabel' } })
  elseif state == 'accepted' then
    label(bufnr, 0, { { '  ✓ surehand: accepted: ' .. head, 'SurehandAccepted' } })
  else
    label(bufnr, 0, { { '  ✗ surehand: rejected: ' .. head, 'SurehandRejected' } })
  end
end

--- Draw `files` (the ones a buffer shows) on `bufnr`, replacing what was drawn.
function M.draw(bufnr, files)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  for _, file in ipairs(files) do
    if file.kind == 'create' then
      if file.operation ~= 'rejected' then
        whole_lines(bufnr, 0, vim.api.nvim_buf_line_count(bufnr), 'SurehandAdded')
      end
      operation_label(bufnr, file)
    else
      if file.kind == 'delete' and file.operation ~= 'rejected' then
        whole_lines(bufnr, 0, vim.api.nvim_buf_line_count(bufnr), 'SurehandRemoved')
      end
      if file.kind ~= 'edit' then
        operation_label(bufnr, file)
      end
      local starts = text.line_starts(file.text)
      for _, hunk in ipairs(file.hunks) do
        draw_hunk(bufnr, file, hunk, starts)
      end
    end
  end
end

function M.clear(bufnr)
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  end
end

return M
