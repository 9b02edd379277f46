--- Does the model endpoint answer? One `GET <baseUrl>/models` with the key the
--- server would send, a few seconds at most: no code, no file, nothing of the
--- workspace is sent. Made with the server's own interpreter (Python's
--- standard library only); the key goes to it in its environment, never on
--- a command line.
local M = {}

M.TIMEOUT = 5

local SCRIPT = [[
import json, os, sys, urllib.error, urllib.request
url, timeout = sys.argv[1].rstrip("/") + "/models", float(sys.argv[2])
key = os.environ.get("SUREHAND_PROBE_KEY", "")
headers = {"Authorization": "Bearer " + key} if key else {}
def said(body):
    try:
        error = json.loads(body).get("error")
        return (error.get("message") if isinstance(error, dict) else str(error or "")) or body
    except Exception:
        return body
try:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as answer:
        data = json.loads(answer.read(1 << 20)).get("data") or []
        ids = [m.get("id") for m in data if isinstance(m, dict) and isinstance(m.get("id"), str)]
        print(json.dumps({"status": answer.status, "models": ids}))
except urllib.error.HTTPError as error:
    body = error.read(4000).decode("utf-8", "replace")
    print(json.dumps({"status": error.code, "message": said(body)[:300]}))
except Exception as error:
    reason = getattr(error, "reason", error)
    print(json.dumps({"status": 0, "message": f"{type(reason).__name__}: {reason}"[:300]}))
]]

--- The interpreter of the server command `cmd` (`python -m lsp_server`, or
--- the `#!` line of a `surehand` script), else python3; and whether it is
--- the server's own.
---@return string?, boolean
function M.interpreter(cmd)
  if cmd[2] == '-m' then
    return vim.fn.exepath(cmd[1]), true
  end
  local ok, lines = pcall(vim.fn.readfile, vim.fn.exepath(cmd[1]), '', 1)
  local shebang = ok and lines[1] and lines[1]:match('^#!(%S+python[%d.]*)$')
  if shebang and vim.fn.executable(shebang) == 1 then
    return shebang, true
  end
  return vim.fn.exepath('python3') ~= '' and vim.fn.exepath('python3') or nil, false
end

--- Ask `url` for its models with `key`. Returns {status, models?, message?}
--- (status 0: no answer).
function M.models(python, url, key)
  local run = require('surehand.effective').run
  local result = run({ python, '-c', SCRIPT, url, tostring(M.TIMEOUT) }, { SUREHAND_PROBE_KEY = key or '' })
  local ok, answer = pcall(vim.json.decode, result.stdout or '')
  if result.code ~= 0 or not ok or type(answer) ~= 'table' then
    return { status = 0, message = result.error or 'no answer' }
  end
  return answer
end

local function listed(models)
  local shown = vim.list_slice(models, 1, 5)
  return table.concat(shown, ', ') .. (#models > #shown and (', … %d more'):format(#models - #shown) or '')
end

--- Report the probe of `url` for `model` to `health` (vim.health).
---@param report {url: string, model: string?, key: string?, key_note: string?, key_row: string}
function M.check(health, python, report)
  local url = report.url
  health.info(('GET %s/models (the model list only: no code or file is sent)'):format((url:gsub('/$', ''))))
  if report.key_note then
    health.warn(report.key_note)
  end
  local answer = M.models(python, url, report.key)
  local status = answer.status
  if status == 200 then
    local models = answer.models or {}
    health.ok(('the endpoint answered: %d model%s (%s)'):format(#models, #models == 1 and '' or 's', listed(models)))
    if report.model and report.model ~= '' then
      if vim.tbl_contains(models, report.model) then
        health.ok(('the model %s is among them'):format(report.model))
      elseif #models > 0 then
        health.warn(('the model %s is not among them'):format(report.model), {
          ("set the model to one the endpoint has: setup({ settings = { model = '%s' } })"):format(models[1]),
        })
      end
    end
  elseif status == 401 or status == 403 then
    health.error(('the endpoint refused the key (%d): %s'):format(status, answer.message or ''), {
      ('the key sent: %s'):format(report.key_row),
      'set that variable to a valid key before starting Neovim, or name another with apiKeyEnv',
    })
  elseif status == 404 then
    health.warn(('the endpoint answered 404 to GET /models: %s'):format(answer.message or ''), {
      'is baseUrl the API root (it usually ends in /v1)? Some servers have no model list: try a task',
    })
  elseif status == 0 then
    health.error(('cannot reach %s: %s'):format(url, answer.message or 'no answer'), {
      'is the model server running? Check baseUrl (setup({ settings = { baseUrl = ... } }))',
    })
  else
    health.warn(('the endpoint answered %d: %s'):format(status, answer.message or ''))
  end
end

return M
