-- Neovim, headless, as a user: open FILE in PROJECT with `codeheal lsp` attached, wait for the
-- diagnostic, take the "Heal with codeheal" code action, write every changed buffer, quit.
-- Exit 0 when all of it happened; the test then runs the project's tests on disk.
local root, file, server = vim.env.PROJECT, vim.env.FILE, vim.env.SERVER
local function fail(message)
  io.stderr:write("heal.lua: " .. message .. "\n")
  vim.cmd("cquit 1")
end

local client_id = vim.lsp.start_client({
  cmd = { server, "-m", "codeheal", "lsp" },
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = "project" } },
  init_options = { trustedFolders = { root } },
})
vim.cmd("edit " .. vim.fn.fnameescape(file))
vim.lsp.buf_attach_client(0, client_id)

if not vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50) then
  fail("no diagnostic")
end
local diagnostic = vim.diagnostic.get(0)[1]
local lsp_diagnostics = vim.lsp.diagnostic.get_line_diagnostics(0, diagnostic.lnum)
local params = vim.lsp.util.make_range_params()
params.range = {
  start = { line = diagnostic.lnum, character = 0 },
  ["end"] = { line = diagnostic.lnum, character = 0 },
}
params.context = { diagnostics = lsp_diagnostics }
local replies = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 10000) or {}
local action
for _, reply in pairs(replies) do
  for _, candidate in ipairs(reply.result or {}) do
    if candidate.title == "Heal with codeheal" then action = candidate end
  end
end
if not action then fail("no code action") end

local client = vim.lsp.get_client_by_id(client_id)
local done = false
client.request("workspace/executeCommand", action.command, function(err, result)
  if err then fail("the heal failed: " .. vim.inspect(err)) end
  io.stdout:write(tostring(result) .. "\n")
  done = true
end, 0)
if not vim.wait(120000, function() return done end, 50) then fail("the heal did not end") end
vim.cmd("wall")
vim.cmd("qall!")
