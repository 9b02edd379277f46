--- A proposal under review: the server's WorkspaceEdit parsed into files and
--- hunks, each hunk a byte span of the file's current text with the text
--- proposed for it. Knows nothing of buffers (the same model as the VS Code
--- extension's `review/model.ts`).
---
--- A file is one of:
--- - 'edit':   hunks against an existing document;
--- - 'create': a new file, its content the hunks against the empty text; the
---             file and its hunks are accepted or rejected together;
--- - 'delete': a file to delete, no hunks;
--- - 'rename': a move, decided on its own, with hunks against the old file's
---             text (they land in the new file if the move is accepted, else
---             in place).
local text = require('surehand.text')

local M = {}

--- The start of the id of a change annotation on a file that changes how
--- tools run (lsp_server/workspace_edit.py); its description says what.
M.GOVERNS_ID = 'surehand-governs-'
local GOVERNS_DEFAULT = 'changes how tools run'

---@alias surehand.Decision 'pending'|'accepted'|'rejected'

---@class surehand.Hunk
---@field id string        "<file>.<index>", unique in its proposal
---@field file integer     the file's place in the proposal (1-based)
---@field index integer    its place among the file's text edits as sent (0-based)
---@field label string
---@field start integer    the byte span of the file's current text it replaces
---@field stop integer
---@field old_text string  what the span held when the proposal came
---@field new_text string
---@field decision surehand.Decision
---@field stale boolean    the user's typing touched it: it can only be rejected

---@class surehand.FileReview
---@field index integer
---@field kind 'edit'|'create'|'delete'|'rename'
---@field uri string       where the result goes (a rename's new URI)
---@field text_uri string  the document the hunks are against (a rename's old URI)
---@field version integer?
---@field label string
---@field text string      text_uri's text now: it follows the user's typing
---@field hunks surehand.Hunk[]
---@field operation surehand.Decision  always 'accepted' for a plain edit
---@field operation_stale boolean      a file to delete typed in since: it can only be kept
---@field governs string?  the server's sentence when the file changes how tools run
---                       ("changes how tools run: <what>"): accepted only on its own

---@class surehand.Proposal
---@field files surehand.FileReview[]

local function changes_of(edit)
  if edit.documentChanges ~= nil then
    return edit.documentChanges
  end
  local out = {}
  for uri, edits in pairs(edit.changes or {}) do
    out[#out + 1] = { textDocument = { uri = uri, version = vim.NIL }, edits = edits }
  end
  table.sort(out, function(a, b)
    return a.textDocument.uri < b.textDocument.uri
  end)
  return out
end

local function nonnull(value)
  if value == vim.NIL then
    return nil
  end
  return value
end

--- The documents whose current text `parse` needs, in order.
---@return string[]
function M.text_sources(edit)
  local created, seen, out = {}, {}, {}
  local function add(uri)
    if not seen[uri] then
      seen[uri] = true
      out[#out + 1] = uri
    end
  end
  for _, change in ipairs(changes_of(edit)) do
    if change.textDocument then
      if not created[change.textDocument.uri] then
        add(change.textDocument.uri)
      end
    elseif change.kind == 'create' then
      created[change.uri] = true
    elseif change.kind == 'rename' then
      created[change.newUri] = true
      add(change.oldUri)
    else
      add(change.uri)
    end
  end
  return out
end

--- Parse `edit` against `texts` (each source's current text, by URI).
--- Raises a string that says why when the proposal cannot be reviewed.
---@param edit table
---@param texts table<string, string>
---@param encoding string
---@return surehand.Proposal
function M.parse(edit, texts, encoding)
  local annotations = nonnull(edit.changeAnnotations) or {}
  local function label_of(id, fallback)
    local annotation = id and annotations[id]
    return (annotation and annotation.label ~= '' and annotation.label) or fallback
  end
  local function text_of(uri)
    local found = texts[uri]
    if found == nil then
      error(('The proposal edits %s, which cannot be read.'):format(uri), 0)
    end
    return found
  end
  --- The sentence of a governing annotation, nil for any other.
  local function governs_of(id)
    if type(id) ~= 'string' or id:sub(1, #M.GOVERNS_ID) ~= M.GOVERNS_ID then
      return nil
    end
    local annotation = annotations[id]
    local description = annotation and nonnull(annotation.description)
    if type(description) == 'string' and description:match('^' .. GOVERNS_DEFAULT) then
      return description
    end
    return GOVERNS_DEFAULT
  end
  local files, by_uri = {}, {}
  local function add(file)
    if by_uri[file.uri] then
      error(('The proposal changes %s more than once.'):format(file.uri), 0)
    end
    file.index = #files + 1
    file.hunks = {}
    file.operation = file.kind == 'edit' and 'accepted' or 'pending'
    file.operation_stale = false
    files[#files + 1] = file
    by_uri[file.uri] = file
    return file
  end
  local function flag(file, id)
    file.governs = file.governs or governs_of(id)
  end
  for _, change in ipairs(changes_of(edit)) do
    local id = nonnull(change.annotationId)
    if change.kind == 'create' then
      add({ kind = 'create', uri = change.uri, text_uri = change.uri, label = label_of(id, 'new file'), text = '' })
    elseif change.kind == 'delete' then
      local uri = change.uri
      add({ kind = 'delete', uri = uri, text_uri = uri, label = label_of(id, 'delete file'), text = text_of(uri) })
    elseif change.kind == 'rename' then
      local old = change.oldUri
      add({ kind = 'rename', uri = change.newUri, text_uri = old, label = label_of(id, 'rename file'), text = text_of(old) })
    elseif change.textDocument then
      local uri = change.textDocument.uri
      local edits = change.edits or {}
      local file = by_uri[uri]
        or add({
          kind = 'edit',
          uri = uri,
          text_uri = uri,
          version = nonnull(change.textDocument.version),
          label = label_of(edits[1] and nonnull(edits[1].annotationId), 'change'),
          text = text_of(uri),
        })
      if #file.hunks > 0 or file.kind == 'delete' then
        error(('The proposal changes %s more than once.'):format(uri), 0)
      end
      M.add_hunks(file, edits, label_of, encoding)
      for _, e in ipairs(edits) do
        flag(file, nonnull(e.annotationId))
      end
    else
      error('The proposal holds a change of an unknown kind.', 0)
    end
    local file = by_uri[change.newUri or change.uri or (change.textDocument and change.textDocument.uri)]
    if file then
      flag(file, id)
    end
  end
  return { files = files }
end

--- The hunks of one TextDocumentEdit, in the order of their spans.
function M.add_hunks(file, edits, label_of, encoding)
  local starts = text.line_starts(file.text)
  local spans = {}
  for i, edit in ipairs(edits) do
    spans[#spans + 1] = {
      edit = edit,
      index = i - 1,
      start = text.offset_at(file.text, edit.range.start, encoding, starts),
      stop = text.offset_at(file.text, edit.range['end'], encoding, starts),
    }
  end
  table.sort(spans, function(a, b)
    if a.start ~= b.start then
      return a.start < b.start
    end
    if a.stop ~= b.stop then
      return a.stop < b.stop
    end
    return a.index < b.index
  end)
  local previous = 0
  for _, span in ipairs(spans) do
    if span.stop < span.start or span.start < previous then
      error(("The proposal's edits of %s overlap."):format(file.uri), 0)
    end
    previous = span.stop
  end
  for _, span in ipairs(spans) do
    file.hunks[#file.hunks + 1] = {
      id = ('%d.%d'):format(file.index, span.index),
      file = file.index,
      index = span.index,
      label = label_of(nonnull(span.edit.annotationId), file.label),
      start = span.start,
      stop = span.stop,
      old_text = file.text:sub(span.start + 1, span.stop),
      new_text = span.edit.newText or '',
      decision = file.kind == 'create' and file.operation or 'pending',
      stale = false,
    }
  end
end

return M
