-- Neovim, headless, as a user whose init.lua is docs/editors.md's snippet: open FILE (a module
-- of the project with a syntax slip on line SLIP and a one-line bug on line BUG, 1-based), see
-- the slip's diagnostic with "Heal with codeheal" offered, correct the slip and write, see the
-- failing tests' diagnostic move to the bug's line, take the heal, watch its progress, write
-- the buffer, quit. Prints what it saw ("slip", "bug", each progress message); exit 0 when all
-- of it happened (the test then runs the project's tests on disk). Runs on Neovim 0.7 and later.
local file, slip, bug = vim.env.FILE, tonumber(vim.env.SLIP) - 1, tonumber(vim.env.BUG) - 1
local function fail(message)
  io.stderr:write("heal.lua: " .. message .. "\n")
  vim.cmd("cquit 1")
end
local function say(line) io.stdout:write(line .. "\n") end

local shown = vim.lsp.handlers["$/progress"]
vim.lsp.handlers["$/progress"] = function(err, result, ctx, config)
  if result and result.value and result.value.message then say("progress: " .. result.value.message) end
  return shown(err, result, ctx, config)
end

local function lines_with_diagnostics()
  local lines = {}
  for _, diagnostic in ipairs(vim.diagnostic.get(0)) do lines[diagnostic.lnum] = true end
  return lines
end

local function heal_action(line)
  local params = vim.lsp.util.make_range_params()
  params.range = { start = { line = line, character = 0 }, ["end"] = { line = line, character = 0 } }
  local at_line = {}
  for _, d in ipairs(vim.diagnostic.get(0, { lnum = line })) do -- as LSP diagnostics, on any version
    table.insert(at_line, {
      range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.end_lnum, character = d.end_col } },
      message = d.message, source = d.source, severity = d.severity,
    })
  end
  params.context = { diagnostics = at_line }
  for _, reply in pairs(vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 10000) or {}) do
    for _, action in ipairs(reply.result or {}) do
      if action.title == "Heal with codeheal" then return action end
    end
  end
end

vim.cmd("edit " .. vim.fn.fnameescape(file))
if not vim.wait(90000, function() return lines_with_diagnostics()[slip] end, 50) then fail("no diagnostic at the slip") end
if not heal_action(slip) then fail("no heal offered at the slip") end
say("slip")

local text = vim.api.nvim_buf_get_lines(0, slip, slip + 1, true)[1]
vim.api.nvim_buf_set_lines(0, slip, slip + 1, true, { text .. ":" })
vim.cmd("write")
if not vim.wait(90000, function()
  local lines = lines_with_diagnostics()
  return lines[bug] and not lines[slip]
end, 50) then fail("no diagnostic at the bug once the slip was corrected") end
say("bug")

local action = heal_action(bug)
if not action then fail("no heal offered at the bug") end
local client
for _, candidate in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
  if candidate.name == "codeheal" then client = candidate end
end
if not client then fail("no codeheal client") end
local done = false
client.request("workspace/executeCommand", action.command, function(err, result)
  if err then fail("the heal failed: " .. vim.inspect(err)) end
  say(tostring(result))
  done = true
end, 0)
if not vim.wait(180000, function() return done end, 50) then fail("the heal did not end") end
vim.cmd("wall")
vim.cmd("qall!")
