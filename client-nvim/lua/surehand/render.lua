--- How a proposal looks in its buffers, drawn with extmarks and never by
--- changing the text:
--- - lines a hunk removes: highlighted `SurehandRemoved` (DiffDelete);
--- - lines it adds: virtual lines below them (`SurehandAdded`, DiffAdd);
--- - its description: a virtual text label at the end of its first line,
---   with the keys that decide it; a stale hunk's label says it can only be
---   rejected (`SurehandStale`);
--- - a new file: its preview buffer, every line added; a file to delete:
---   every line removed; a rename: a label on the first line;
--- - a file that changes how tools run: every label of it starts with ⚑ and
---   says what it governs (`SurehandGoverns`), with "accept on its own".
--- Every model-chosen string (labels, paths, added code) is shown through
--- `surehand.visible`: control and bidi characters as escapes. The key hint
--- shows only on the label the keys decide from that line.
local config = require('surehand.config')
local navigate = require('surehand.navigate')
local text = require('surehand.text')
local buffers = require('surehand.buffers')
local visible = require('surehand.visible')

local M = {}

M.ns = vim.api.nvim_create_namespace('surehand_review')

local LINKS = {
  SurehandRemoved = 'DiffDelete',
  SurehandAdded = 'DiffAdd',
  SurehandLabel = 'DiagnosticInfo',
  SurehandStale = 'DiagnosticWarn',
  SurehandAccepted = 'DiagnosticOk',
  SurehandRejected = 'Comment',
  SurehandGoverns = 'DiagnosticError',
}

M.GOVERNS_MARK = '⚑'

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
  return (visible.code(line):gsub('\t', string.rep(' ', ts)))
end

--- " ⚑ changes how tools run: <what> (accept on its own)" for a governing file, else ''.
local function governs(file)
  if not file.governs then
    return ''
  end
  return ('  %s %s (accept on its own)'):format(M.GOVERNS_MARK, visible.line(file.governs))
end

local function head_group(file, group)
  return file.governs and 'SurehandGoverns' or group
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

local function draw_hunk(bufnr, file, hunk, starts, keyed)
  local layout = navigate.layout(file.text, hunk, starts)
  local what = navigate.summary(layout)
  local name = visible.line(hunk.label)
  local mark = file.governs and (M.GOVERNS_MARK .. ' ') or ''
  if hunk.decision == 'rejected' then
    local before = hunk.again and ' (you rejected it earlier in this task)' or ''
    label(bufnr, layout.label_line, { { ('  ✗ %ssurehand: rejected: %s%s'):format(mark, name, before), 'SurehandRejected' } })
    return
  end
  if layout.removed then
    whole_lines(bufnr, layout.removed.start, layout.removed.stop, 'SurehandRemoved')
  end
  local hint = keyed[hunk.id] and keys(hunk.stale and { 'reject' } or { 'accept', 'reject' }) or ''
  if hunk.stale then
    label(bufnr, layout.label_line, {
      { ('  ⚠ %ssurehand: stale, you typed here: %s%s'):format(mark, name, hint), 'SurehandStale' },
    })
    return
  end
  added_lines(bufnr, layout, 'SurehandAdded')
  if hunk.decision == 'accepted' then
    label(bufnr, layout.label_line, { { ('  ✓ %ssurehand: accepted: %s'):format(mark, name), 'SurehandAccepted' } })
  else
    label(bufnr, layout.label_line, {
      { ('  ◆ %ssurehand: %s (%s)%s'):format(mark, name, what, hint), head_group(file, 'SurehandLabel') },
      file.governs and { governs(file), 'SurehandGoverns' } or nil,
    })
  end
end

local OPERATION = { create = 'new file', delete = 'delete', rename = 'rename to' }

local function operation_label(bufnr, file)
  local state = file.operation
  local name = visible.line(buffers.relative(file.uri))
  local what = visible.line(file.label)
  local head = ('%s %s: %s'):format(OPERATION[file.kind], name, what)
  if file.kind == 'create' then
    local lines = #text.split_lines(require('surehand.decide').text_with(file, function()
      return true
    end))
    head = ('new file %s (%d line%s): %s'):format(name, lines, lines == 1 and '' or 's', what)
  end
  local mark = file.governs and (M.GOVERNS_MARK .. ' ') or ''
  if state == 'pending' and file.operation_stale then
    local words = ('  ⚠ %ssurehand: %s: you typed in it, it can only be kept%s'):format(mark, head, keys({ 'reject' }))
    label(bufnr, 0, { { words, 'SurehandStale' } })
  elseif state == 'pending' then
    label(bufnr, 0, {
      { ('  ◆ %ssurehand: %s%s'):format(mark, head, keys({ 'accept', 'reject' })), head_group(file, 'SurehandLabel') },
      file.governs and { governs(file), 'SurehandGoverns' } or nil,
    })
  elseif state == 'accepted' then
    label(bufnr, 0, { { ('  ✓ %ssurehand: accepted: '):format(mark) .. head, 'SurehandAccepted' } })
  else
    label(bufnr, 0, { { ('  ✗ %ssurehand: rejected: '):format(mark) .. head, 'SurehandRejected' } })
  end
end

--- The pending hunks whose label carries the key hint: the one the keys
--- decide with the cursor on its label's line (a pending file operation on
--- the same line comes first and takes the hint).
local function keyed_hunks(file)
  local keyed, taken = {}, {}
  if file.kind ~= 'edit' and file.operation == 'pending' then
    taken[0] = true
  end
  for _, stop in ipairs(navigate.pending_stops({ files = { file } })) do
    if stop.hunk and not taken[stop.line] then
      taken[stop.line] = true
      keyed[stop.hunk] = true
    end
  end
  return keyed
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
      local keyed = keyed_hunks(file)
      for _, hunk in ipairs(file.hunks) do
        draw_hunk(bufnr, file, hunk, starts, keyed)
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
