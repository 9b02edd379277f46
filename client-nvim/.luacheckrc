-- luacheck for the Neovim plugin and its test drivers (Lua 5.1 / LuaJIT).
std = 'luajit'
globals = { 'vim' }
max_line_length = 140
exclude_files = { '.luarocks' }
