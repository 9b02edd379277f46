--- The user commands (defined by plugin/surehand.lua; each loads what it needs).
local M = {}

local function review()
  return require('surehand.review')
end

local function decisions()
  return require('surehand.decisions')
end

local function server()
  return require('surehand.server')
end

local COMMANDS = {
  Surehand = {
    function(cmd)
      local bufnr = vim.api.nvim_get_current_buf()
      local line1, line2 = nil, nil
      if cmd.range > 0 then
        line1, line2 = cmd.line1, cmd.line2
      end
      if cmd.args ~= '' then
        return server().ask(cmd.args, bufnr, line1, line2)
      end
      vim.ui.input({ prompt = 'surehand: ' }, function(task)
        if task and vim.trim(task) ~= '' then
          server().ask(task, bufnr, line1, line2)
        end
      end)
    end,
    { nargs = '*', range = true, desc = 'Ask surehand to do a task in this file (a prompt without words)' },
  },
  SurehandCancel = { function() server().cancel(vim.api.nvim_get_current_buf()) end, { desc = 'Stop the running surehand task' } },
  SurehandReset = { function() server().reset(vim.api.nvim_get_current_buf()) end, { desc = "Forget surehand's conversation" } },
  SurehandAccept = { function() decisions().decide_here('accepted') end, { desc = 'Accept the change at the cursor' } },
  SurehandReject = { function() decisions().decide_here('rejected') end, { desc = 'Reject the change at the cursor' } },
  SurehandAcceptAll = { function() decisions().decide_all('accepted') end, { desc = 'Accept every change left' } },
  SurehandRejectAll = { function() decisions().decide_all('rejected') end, { desc = 'Reject every change left' } },
  SurehandAcceptFile = { function() decisions().decide_file('accepted') end, { desc = 'Accept every change left in this file' } },
  SurehandRejectFile = { function() decisions().decide_file('rejected') end, { desc = 'Reject every change left in this file' } },
  SurehandUndo = { function() decisions().undo() end, { desc = 'Take back the last review decision' } },
  SurehandNext = { function() decisions().next(1) end, { desc = 'Go to the next change to decide' } },
  SurehandPrev = { function() decisions().next(-1) end, { desc = 'Go to the previous change to decide' } },
  SurehandDiff = { function() require('surehand.diff').open() end, { desc = "A split with this file's proposed diff" } },
  SurehandList = {
    function()
      local open = review().current()
      if open == nil then
        return require('surehand.say').say('surehand: no review is open', vim.log.levels.WARN)
      end
      require('surehand.list').update(open, false)
      require('surehand.list').open()
    end,
    { desc = 'The review list: each changed file and its state' },
  },
  SurehandApprove = { function() require('surehand.approve').now() end, { desc = "Answer surehand's waiting question" } },
  SurehandUndoTask = {
    function() require('surehand.history').undo_task(vim.api.nvim_get_current_buf()) end,
    { desc = 'Undo the last accepted surehand task (asks first)' },
  },
  SurehandHistory = {
    function() require('surehand.history').show(vim.api.nvim_get_current_buf()) end,
    { desc = 'The accepted surehand tasks, newest first' },
  },
  SurehandInstall = {
    function() require('surehand.install').run() end,
    { desc = 'Install the surehand server into a virtual environment of the plugin (stdpath("data")/surehand)' },
  },
  SurehandCheckTests = {
    function() require('surehand.verdicts').check(vim.api.nvim_get_current_buf()) end,
    { desc = "Run the last proposal's tests on what you accepted (in the sandbox's copy)" },
  },
  SurehandMessages = { function() require('surehand.say').show() end, { desc = "The whole text of surehand's recent messages" } },
}

function M.define()
  for name, spec in pairs(COMMANDS) do
    vim.api.nvim_create_user_command(name, spec[1], spec[2])
  end
end

M.names = vim.tbl_keys(COMMANDS)

return M
