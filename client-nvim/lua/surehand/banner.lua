--- A waiting question, kept in view: a small floating window at the top
--- right of the editor that takes neither focus nor keys (`focusable =
--- false`), redrawn when the editor is resized or another tab shows, gone
--- once the question is answered.
local visible = require('surehand.visible')

local M = {}

local state = { win = nil, buf = nil, lines = nil } ---@type {win: integer?, buf: integer?, lines: string[]?}
local group = nil
local MAX_LINES = 4

local function cut(line, width)
  if vim.fn.strdisplaywidth(line) <= width then
    return line
  end
  local out = ''
  for i = 0, vim.fn.strchars(line) - 1 do
    local char = vim.fn.strcharpart(line, i, 1)
    if vim.fn.strdisplaywidth(out .. char) > width - 1 then
      break
    end
    out = out .. char
  end
  return out .. '…'
end

--- The banner's lines for `message` (model-chosen parts made visible), at most `width` cells each.
function M.lines_for(message, waiting, width)
  local head = waiting > 1 and ('surehand asks (1 of %d):'):format(waiting) or 'surehand asks:'
  local out = { head }
  local cut_short = false
  for _, line in ipairs(visible.lines(message)) do
    -- Wrap long lines rather than lose the end of a command.
    while vim.fn.strdisplaywidth(line) > width and #out < MAX_LINES do
      local piece = cut(line, width + 1):gsub('…$', '')
      out[#out + 1] = piece
      line = line:sub(#piece + 1)
    end
    if #out < MAX_LINES then
      out[#out + 1] = cut(line, width)
    elseif line ~= '' then
      cut_short = true
    end
  end
  if cut_short then
    out[#out] = cut(out[#out] .. ' …', width)
  end
  out[#out + 1] = 'answer: :SurehandApprove'
  return out
end

local function close()
  if state.win and vim.api.nvim_win_is_valid(state.win) then
    pcall(vim.api.nvim_win_close, state.win, true)
  end
  state.win = nil
end

local function place()
  close()
  if state.lines == nil then
    return
  end
  if state.buf == nil or not vim.api.nvim_buf_is_valid(state.buf) then
    state.buf = vim.api.nvim_create_buf(false, true)
    vim.bo[state.buf].bufhidden = 'hide'
  end
  vim.api.nvim_buf_set_lines(state.buf, 0, -1, false, state.lines)
  local width = 1
  for _, line in ipairs(state.lines) do
    width = math.max(width, vim.fn.strdisplaywidth(line))
  end
  local ok, win = pcall(vim.api.nvim_open_win, state.buf, false, {
    relative = 'editor',
    anchor = 'NE',
    row = 0,
    col = vim.o.columns,
    width = math.min(width, math.max(vim.o.columns - 2, 1)),
    height = #state.lines,
    focusable = false,
    style = 'minimal',
    border = 'single',
    zindex = 60,
    noautocmd = true,
  })
  if ok then
    state.win = win
    vim.wo[win].winhighlight = 'Normal:WarningMsg,FloatBorder:WarningMsg'
    vim.wo[win].wrap = false
  end
end

--- Show (or update) the banner for `message`, `waiting` questions in all.
function M.show(message, waiting)
  local width = math.max(math.min(vim.o.columns - 4, 72), 20)
  state.lines = M.lines_for(message, waiting or 1, width)
  place()
  if group == nil then
    group = vim.api.nvim_create_augroup('surehand_banner', { clear = true })
    vim.api.nvim_create_autocmd({ 'VimResized', 'TabEnter' }, {
      group = group,
      callback = function()
        if state.lines then
          place()
        end
      end,
    })
  end
end

function M.hide()
  state.lines = nil
  close()
end

--- The lines shown now (nil when no question waits).
function M.shown()
  if state.win and vim.api.nvim_win_is_valid(state.win) then
    return state.lines
  end
  return nil
end

return M
