--- The one rule for showing text a model chose (a command, a path, a label,
--- code) to a person: the Neovim copy of `editing/visible.py`.
---
--- A terminal or an editor interprets some characters instead of showing
--- them: an escape sequence erases a line, a carriage return goes back to
--- column 1, a bidirectional override reorders what follows. Every such
--- character is shown as a visible escape (`\x1b`, `\u202e`, `\U000e0041`),
--- so what a person reads is what the bytes are. `HIDDEN` is the same table
--- as the Python one (the tests hold them together). A byte that is not part
--- of valid UTF-8 is shown as `\xNN` too.
local M = {}

--- Inclusive ranges of the code points never shown as themselves.
M.HIDDEN = {
  { 0x0000, 0x001F },
  { 0x007F, 0x009F },
  { 0x00AD, 0x00AD },
  { 0x0600, 0x0605 },
  { 0x061C, 0x061C },
  { 0x06DD, 0x06DD },
  { 0x070F, 0x070F },
  { 0x0890, 0x0891 },
  { 0x08E2, 0x08E2 },
  { 0x180E, 0x180E },
  { 0x200B, 0x200F },
  { 0x2028, 0x202E },
  { 0x2060, 0x2064 },
  { 0x2066, 0x206F },
  { 0xFEFF, 0xFEFF },
  { 0xFFF9, 0xFFFB },
  { 0x110BD, 0x110BD },
  { 0x110CD, 0x110CD },
  { 0x13430, 0x1343F },
  { 0x1BCA0, 0x1BCA3 },
  { 0x1D173, 0x1D17A },
  { 0xE0001, 0xE0001 },
  { 0xE0020, 0xE007F },
}

function M.is_hidden(point)
  for _, range in ipairs(M.HIDDEN) do
    if point < range[1] then
      return false
    end
    if point <= range[2] then
      return true
    end
  end
  return false
end

--- The visible escape of one code point: `\x1b`, `\u202e`, `\U000e0041`.
function M.escape(point)
  if point <= 0xFF then
    return ('\\x%02x'):format(point)
  elseif point <= 0xFFFF then
    return ('\\u%04x'):format(point)
  end
  return ('\\U%08x'):format(point)
end

--- The code point of the UTF-8 sequence at byte `i` of `s` and its length;
--- nil when the bytes there are not valid UTF-8.
local function decode(s, i)
  local c = s:byte(i)
  local len, point, min
  if c < 0x80 then
    return c, 1
  elseif c >= 0xC2 and c <= 0xDF then
    len, point, min = 2, c - 0xC0, 0x80
  elseif c >= 0xE0 and c <= 0xEF then
    len, point, min = 3, c - 0xE0, 0x800
  elseif c >= 0xF0 and c <= 0xF4 then
    len, point, min = 4, c - 0xF0, 0x10000
  else
    return nil
  end
  for k = 1, len - 1 do
    local b = s:byte(i + k)
    if b == nil or b < 0x80 or b > 0xBF then
      return nil
    end
    point = point * 64 + (b - 0x80)
  end
  if point < min or point > 0x10FFFF or (point >= 0xD800 and point <= 0xDFFF) then
    return nil
  end
  return point, len
end

--- `text` with every hidden character, except those in `keep` (a string of
--- characters, e.g. "\t"), as a visible escape. Text without hidden
--- characters comes back unchanged.
---@param text string
---@param keep string?
---@return string
function M.visible(text, keep)
  text = tostring(text)
  -- Plain printable ASCII: nothing to do.
  if not text:find('[%z\1-\31\127-\255]') then
    return text
  end
  local out, i, n = {}, 1, #text
  while i <= n do
    local point, len = decode(text, i)
    if point == nil then
      out[#out + 1] = ('\\x%02x'):format(text:byte(i))
      i = i + 1
    else
      local char = text:sub(i, i + len - 1)
      if M.is_hidden(point) and not (keep and keep:find(char, 1, true)) then
        out[#out + 1] = M.escape(point)
      else
        out[#out + 1] = char
      end
      i = i + len
    end
  end
  return table.concat(out)
end

--- One line of code as shown beside the buffer: tabs kept (the view lays
--- them out), every other hidden character escaped (a lone carriage return
--- too, so it cannot go back to column 1).
function M.code(line)
  return M.visible(line, '\t')
end

--- A block of lines (code, a model's message): its line breaks laid out
--- (a CRLF ending is one break), each line as `code` shows it.
---@return string[]
function M.lines(text)
  local lines = vim.split(tostring(text):gsub('\r\n', '\n'), '\n', { plain = true })
  return vim.tbl_map(M.code, lines)
end

--- One line for the message area or a prompt: `visible`, with nothing kept.
function M.line(text)
  return M.visible(text)
end

return M
