--- Every message surehand shows: one line that fits the message area, with
--- model-chosen text made visible. A longer or multi-line message would stop
--- Neovim at "Press ENTER", which takes the next key typed for something
--- else; the whole text is kept for `:SurehandMessages`.
local visible = require('surehand.visible')

local M = {}

local KEEP = 100
local kept = {} ---@type {level: integer, text: string, time: string}[]

--- Room in the message area for one line (never less than 20 cells).
local function room()
  local space = vim.v.echospace
  if type(space) ~= 'number' or space <= 0 then
    space = vim.o.columns - 12
  end
  return math.max(space, 20)
end

--- `text` on one line (breaks shown as escapes) cut to `width` cells with "…".
function M.fit(text, width)
  local line = visible.line(text)
  if vim.fn.strdisplaywidth(line) <= width then
    return line
  end
  local hint = ' (:SurehandMessages)'
  local cut = width - vim.fn.strdisplaywidth(hint) - 1
  local out = ''
  for i = 0, vim.fn.strchars(line) - 1 do
    local char = vim.fn.strcharpart(line, i, 1)
    if vim.fn.strdisplaywidth(out .. char) > cut then
      break
    end
    out = out .. char
  end
  return out .. '…' .. hint
end

local pending = nil ---@type {text: string, level: integer}?

--- Show `text` (model-chosen parts included) as one line that fits. Several
--- messages in one turn of the event loop would stack up into "Press ENTER":
--- only the most severe (the last of equals) is shown, all are kept.
function M.say(text, level)
  level = level or vim.log.levels.INFO
  table.insert(kept, { level = level, text = visible.line(text), time = os.date('%H:%M:%S') })
  if #kept > KEEP then
    table.remove(kept, 1)
  end
  if pending then
    if level >= pending.level then
      pending.text, pending.level = text, level
    end
    return
  end
  pending = { text = text, level = level }
  vim.schedule(function()
    local show = pending
    pending = nil
    if show then
      vim.notify(M.fit(show.text, room()), show.level)
    end
  end)
end

--- Neovim's own words when the surehand server quits ("Client surehand quit
--- with exit code … Check log for errors: <path>") are longer than a line
--- and come with surehand's one-line message: together they would stop at
--- "Press ENTER". They are kept for `:SurehandMessages` instead of shown.
local CORE = { '^Client surehand quit with exit code', '^Spawning language server with cmd: .*surehand' }

local function from_core(message)
  if type(message) ~= 'string' then
    return false
  end
  for _, pattern in ipairs(CORE) do
    if message:find(pattern) then
      return true
    end
  end
  return false
end

function M.quiet_core()
  local original = vim.notify
  vim.notify = function(message, level, opts)
    if from_core(message) then
      table.insert(kept, { level = level or vim.log.levels.WARN, text = message, time = os.date('%H:%M:%S') })
      return
    end
    return original(message, level, opts)
  end
end

--- The messages kept, oldest first.
function M.kept()
  return kept
end

--- `:SurehandMessages`: the whole text of surehand's recent messages in a scratch buffer.
function M.show()
  local lines = {}
  for _, message in ipairs(kept) do
    lines[#lines + 1] = ('%s %s'):format(message.time, message.text)
  end
  if #lines == 0 then
    lines = { 'surehand has said nothing yet' }
  end
  return M.scratch(lines, 'surehand://messages')
end

--- A read-only scratch buffer named `name` below the windows, holding `lines` (one of that
--- name already open is replaced).
function M.scratch(lines, name)
  local existing = vim.fn.bufnr(name)
  if existing ~= -1 then
    pcall(vim.api.nvim_buf_delete, existing, { force = true })
  end
  vim.cmd('botright new')
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].bufhidden = 'wipe'
  vim.bo[bufnr].swapfile = false
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  pcall(vim.api.nvim_buf_set_name, bufnr, name)
  return bufnr
end

return M
