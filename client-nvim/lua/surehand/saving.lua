--- Accepted file operations land with the buffers: nothing reaches the disk
--- before the person saves, so `:qa!` leaves the project as it was and `:wa`
--- makes the whole change.
--- - A new file is a buffer named after it, unsaved; `:w` makes it (and its folder).
--- - A move renames the buffer (its text, undo history and windows go with
---   it), unsaved; `:w` writes the new file, then deletes the old one.
--- - A deletion empties the file's buffer (one undo step), unsaved; `:w` of
---   the empty buffer deletes the file instead of writing it. Take the text
---   back (`u`) and the deletion is off: `:w` writes the text as usual.
local say = require('surehand.say').say

local M = {}

local group = vim.api.nvim_create_augroup('surehand_saving', { clear = true })

local function relative(path)
  return require('surehand.visible').line(vim.fn.fnamemodify(path, ':~:.'))
end

local function make_folder(bufnr)
  vim.api.nvim_create_autocmd('BufWritePre', {
    group = group,
    buffer = bufnr,
    desc = 'surehand: make the folder of a new file',
    callback = function(event)
      vim.fn.mkdir(vim.fs.dirname(vim.api.nvim_buf_get_name(event.buf)), 'p')
    end,
  })
end

--- Wipe the unloaded buffer Neovim keeps for a name a buffer had (the alternate file).
local function forget_name(path, keep)
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if bufnr ~= keep and vim.api.nvim_buf_get_name(bufnr) == path and not vim.api.nvim_buf_is_loaded(bufnr) then
      pcall(vim.api.nvim_buf_delete, bufnr, { force = true })
    end
  end
end

--- `bufnr` (named after a file that is not there) is a new file: made by `:w`.
function M.create(bufnr)
  make_folder(bufnr)
end

--- Move `bufnr` (showing `from`) to `to`: the buffer is renamed now, the disk
--- changes when it is written. Language servers see it closed under its old
--- name and opened under the new one.
---@return boolean moved (false: said why; the buffer keeps its name)
function M.move(bufnr, from, to)
  for _, other in ipairs(vim.api.nvim_list_bufs()) do -- an empty buffer of that name (nothing to keep)
    if other ~= bufnr and vim.api.nvim_buf_get_name(other) == to then
      if vim.api.nvim_buf_is_loaded(other) and require('surehand.buffers').text(other) ~= '' then
        say(('surehand: not moved: a buffer holds %s'):format(relative(to)), vim.log.levels.WARN)
        return false
      end
      pcall(vim.api.nvim_buf_delete, other, { force = true })
    end
  end
  local clients = vim.lsp.get_clients({ bufnr = bufnr })
  for _, client in ipairs(clients) do
    vim.lsp.buf_detach_client(bufnr, client.id)
  end
  local renamed, why = pcall(vim.api.nvim_buf_set_name, bufnr, to)
  if not renamed then
    for _, client in ipairs(clients) do
      vim.lsp.buf_attach_client(bufnr, client.id)
    end
    say(('surehand: not moved to %s: %s'):format(relative(to), tostring(why)), vim.log.levels.WARN)
    return false
  end
  forget_name(from, bufnr)
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd('silent! filetype detect')
  end)
  for _, client in ipairs(clients) do
    if not client:is_stopped() then
      vim.lsp.buf_attach_client(bufnr, client.id)
    end
  end
  vim.bo[bufnr].modified = true -- `:wa` writes it, hunks accepted or not
  make_folder(bufnr)
  vim.api.nvim_create_autocmd('BufWritePost', {
    group = group,
    buffer = bufnr,
    once = true,
    desc = 'surehand: delete the file a move came from',
    callback = function(event)
      if vim.api.nvim_buf_get_name(event.buf) == to and vim.uv.fs_stat(from) then
        local ok, err = os.remove(from)
        if ok then
          say(('surehand: moved %s to %s on disk'):format(relative(from), relative(to)))
        else
          local words = 'surehand: %s is written, but %s could not be deleted: %s'
          say(words:format(relative(to), relative(from), tostring(err)), vim.log.levels.ERROR)
        end
      end
    end,
  })
  return true
end

local function is_empty(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, true)
  return #lines == 1 and lines[1] == ''
end

--- Delete `path` when its buffer `bufnr` is written empty: the buffer is emptied now.
function M.delete(bufnr, path)
  local eol, fixeol = vim.bo[bufnr].eol, vim.bo[bufnr].fixeol
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd('let &undolevels = &undolevels')
  end)
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, true, {})
  vim.bo[bufnr].eol, vim.bo[bufnr].fixeol = false, false
  local ids = {}
  local function cancel()
    for _, id in ipairs(ids) do
      pcall(vim.api.nvim_del_autocmd, id)
    end
    vim.bo[bufnr].eol, vim.bo[bufnr].fixeol = eol, fixeol
  end
  ids[#ids + 1] = vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
    group = group,
    buffer = bufnr,
    desc = 'surehand: the text is back, the deletion is off',
    callback = function(event)
      if not is_empty(event.buf) then
        cancel()
      end
    end,
  })
  ids[#ids + 1] = vim.api.nvim_create_autocmd('BufWriteCmd', {
    group = group,
    buffer = bufnr,
    nested = true,
    desc = 'surehand: writing the emptied buffer deletes the file',
    callback = function(event)
      if is_empty(event.buf) and vim.fs.normalize(event.match) == vim.fs.normalize(path) then
        local ok, err = true, nil
        if vim.uv.fs_stat(path) then
          ok, err = os.remove(path)
        end
        if not ok then
          return say(('surehand: %s could not be deleted: %s'):format(relative(path), tostring(err)), vim.log.levels.ERROR)
        end
        cancel()
        vim.bo[event.buf].modified = false
        say(('surehand: deleted %s'):format(relative(path)))
        vim.schedule(function()
          if vim.api.nvim_buf_is_valid(event.buf) and not vim.bo[event.buf].modified then
            pcall(vim.api.nvim_buf_delete, event.buf, { force = true })
          end
        end)
      else
        cancel()
        vim.api.nvim_buf_call(event.buf, function()
          vim.cmd(('write %s'):format(vim.fn.fnameescape(event.match)))
        end)
      end
    end,
  })
end

local ON_SAVE = { create = 'makes %s', rename = 'moves %s to %s', delete = 'deletes %s' }

--- "makes util.py, moves a.py to pkg/b.py": what saving does for the file
--- operations accepted ('' when none); they happen on disk when their
--- buffers are written.
function M.on_save(proposal)
  local words = {}
  for _, file in ipairs(proposal.files) do
    if file.kind ~= 'edit' and file.operation == 'accepted' then
      local to = relative(vim.uri_to_fname(file.uri))
      local from = relative(vim.uri_to_fname(file.text_uri))
      words[#words + 1] = file.kind == 'rename' and ON_SAVE.rename:format(from, to) or ON_SAVE[file.kind]:format(to)
    end
  end
  return table.concat(words, ', ')
end

return M
