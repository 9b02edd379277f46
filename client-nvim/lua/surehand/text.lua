--- Offsets in a text and LSP positions.
---
--- The review works in byte offsets into a Lua string; positions exist only
--- where protocol values come in and go out. A line ends at "\n", "\r\n" or
--- "\r". A position's `character` counts code units of the negotiated
--- encoding ('utf-8', 'utf-16' or 'utf-32').
local M = {}

--- The byte offset (0-based) where each line starts; always at least { 0 }.
---@param text string
---@return integer[]
function M.line_starts(text)
  local starts = { 0 }
  local i, n = 1, #text
  while i <= n do
    local c = text:byte(i)
    if c == 10 then
      starts[#starts + 1] = i
    elseif c == 13 then
      if text:byte(i + 1) == 10 then
        i = i + 1
      end
      starts[#starts + 1] = i
    end
    i = i + 1
  end
  return starts
end

--- The text of each line without its break; a final break ends the last line.
---@param text string
---@return string[]
function M.split_lines(text)
  local lines = {}
  if text == '' then
    return lines
  end
  local at = 1
  while at <= #text do
    local s, e = text:find('\r?\n', at)
    local cr = text:find('\r', at, true)
    if cr and (not s or cr < s) and text:byte(cr + 1) ~= 10 then
      s, e = cr, cr
    end
    if not s then
      lines[#lines + 1] = text:sub(at)
      break
    end
    lines[#lines + 1] = text:sub(at, s - 1)
    at = e + 1
  end
  return lines
end

--- The line break a text uses first ("\n" when it has none).
---@param text string
function M.line_break(text)
  return text:match('\r\n') or text:match('[\r\n]') or '\n'
end

--- Where line `line` (0-based) ends, before its break (a byte offset).
local function line_end(text, starts, line)
  if line + 1 >= #starts then
    return #text
  end
  local e = starts[line + 2]
  if text:byte(e) == 10 then
    e = e - 1
  end
  if e > starts[line + 1] and text:byte(e) == 13 then
    e = e - 1
  end
  return e
end
M.line_end = line_end

--- The length in bytes of the UTF-8 sequence starting with byte `c`.
local function seq_len(c)
  if c < 0x80 then
    return 1
  elseif c >= 0xF0 then
    return 4
  elseif c >= 0xE0 then
    return 3
  elseif c >= 0xC0 then
    return 2
  end
  return 1
end

--- Code units of `encoding` in a UTF-8 sequence of `len` bytes.
local function units(len, encoding)
  if encoding == 'utf-8' then
    return len
  elseif encoding == 'utf-32' then
    return 1
  end
  return len == 4 and 2 or 1
end

--- The byte offset of `pos` in `text`. A line past the end is the end of the
--- text; a character past the end of its line is the line's end.
---@param text string
---@param pos {line: integer, character: integer}
---@param encoding string
---@param starts? integer[]
---@return integer
function M.offset_at(text, pos, encoding, starts)
  starts = starts or M.line_starts(text)
  if pos.line >= #starts then
    return #text
  end
  local line = math.max(0, pos.line)
  local offset = starts[line + 1]
  local stop = line_end(text, starts, line)
  local counted = 0
  while offset < stop and counted < pos.character do
    local len = seq_len(text:byte(offset + 1))
    counted = counted + units(len, encoding)
    offset = offset + len
  end
  return math.min(offset, stop)
end

--- The position of byte `offset` in `text`, its character in units of `encoding`.
---@return {line: integer, character: integer}
function M.position_at(text, offset, encoding, starts)
  starts = starts or M.line_starts(text)
  offset = math.max(0, math.min(offset, #text))
  local low, high = 1, #starts
  while low < high do
    local mid = math.floor((low + high + 1) / 2)
    if starts[mid] <= offset then
      low = mid
    else
      high = mid - 1
    end
  end
  local character, at = 0, starts[low]
  while at < offset do
    local len = seq_len(text:byte(at + 1))
    character = character + units(len, encoding)
    at = at + len
  end
  return { line = low - 1, character = character }
end

--- The row (0-based) and byte column of `offset`: where Neovim's API puts it.
---@return integer row, integer col
function M.row_col(text, offset, starts)
  local pos = M.position_at(text, offset, 'utf-8', starts)
  return pos.line, pos.character
end

return M
