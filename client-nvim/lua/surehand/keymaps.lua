--- Buffer-local keys while a review is open on a buffer, put back as they
--- were when it ends. The keys come from `setup{ keymaps = {...} }`.
local config = require('surehand.config')

local M = {}

local saved = {} ---@type table<integer, table[]>

local function actions()
  local review = require('surehand.decisions')
  return {
    next = { function() review.next(1) end, 'surehand: next change' },
    prev = { function() review.next(-1) end, 'surehand: previous change' },
    accept = { function() review.decide_here('accepted') end, 'surehand: accept the change here' },
    reject = { function() review.decide_here('rejected') end, 'surehand: reject the change here' },
    accept_file = { function() review.decide_file('accepted') end, 'surehand: accept every change left in this file' },
    reject_file = { function() review.decide_file('rejected') end, 'surehand: reject every change left in this file' },
    accept_all = { function() review.decide_all('accepted') end, 'surehand: accept every change left' },
    reject_all = { function() review.decide_all('rejected') end, 'surehand: reject every change left' },
    diff = { function() require('surehand.diff').open() end, "surehand: this file's diff" },
    list = { function() require('surehand.list').open() end, 'surehand: the review list' },
  }
end

function M.attach(_, bufnr)
  if saved[bufnr] then
    return
  end
  saved[bufnr] = {}
  for name, action in pairs(actions()) do
    local lhs = (config.options.keymaps or {})[name]
    if lhs then
      local previous = vim.fn.maparg(lhs, 'n', false, true)
      if previous.buffer == 1 then
        table.insert(saved[bufnr], previous)
      end
      vim.keymap.set('n', lhs, action[1], { buffer = bufnr, desc = action[2], nowait = true, silent = true })
      table.insert(saved[bufnr], { lhs = lhs, ours = true })
    end
  end
end

function M.detach(bufnr)
  local maps = saved[bufnr]
  saved[bufnr] = nil
  if maps == nil or not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  for _, map in ipairs(maps) do
    if map.ours then
      pcall(vim.keymap.del, 'n', map.lhs, { buffer = bufnr })
    end
  end
  for _, map in ipairs(maps) do
    if not map.ours then
      vim.api.nvim_buf_call(bufnr, function()
        vim.fn.mapset('n', false, map)
      end)
    end
  end
end

return M
