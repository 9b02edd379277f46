-- lazy.nvim's build step: `build = 'client-nvim/build.lua'` in a spec of the
-- repository. Installs the surehand server as `:SurehandInstall` does (a
-- virtual environment under stdpath('data')/surehand), and waits for it: a
-- failure is the build's error. `g:surehand_install` holds install options
-- here, where setup{} has not run yet. Also makes the help tags of
-- `:help surehand` (lazy makes them only for a doc/ at the top of a plugin).
local here = vim.fs.dirname(vim.fs.normalize((debug.getinfo(1, 'S').source:gsub('^@', ''))))
if not vim.tbl_contains(vim.opt.runtimepath:get(), here) then
  vim.opt.runtimepath:append(here)
end
pcall(vim.cmd.helptags, vim.fn.fnameescape(vim.fs.joinpath(here, 'doc')))
require('surehand.install').run({ wait = true })
