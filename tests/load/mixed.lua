-- The mixed read/write workload of the load run (run.py, part `mixed`): with a signed-in
-- session (LOAD_TOKEN), 40% lists, 30% gets, 15% creates, 15% updates of the items table, gets
-- and updates over the records LOAD_FIRST_ID..LOAD_LAST_ID that run.py created.
dofile(os.getenv("LOAD_LUA_DIR") .. "/report.lua")

local base = "/api/tables/items/records"
local headers = {
  ["Authorization"] = "Bearer " .. os.getenv("LOAD_TOKEN"),
  ["Content-Type"] = "application/json",
}
local first = tonumber(os.getenv("LOAD_FIRST_ID"))
local last = tonumber(os.getenv("LOAD_LAST_ID"))
local stages = { "lead", "won", "lost" }
local sequence = 0

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

function request()
  sequence = sequence + 1
  local pick = math.random(100)
  local id = math.random(first, last)
  if pick <= 40 then
    return wrk.format("GET", base .. "?limit=20&sort=count&order=desc", headers)
  elseif pick <= 70 then
    return wrk.format("GET", base .. "/" .. id, headers)
  elseif pick <= 85 then
    local body = string.format(
      '{"fields":{"title":"load %d","body":"created under load","count":%d,"stage":"%s"}}',
      sequence, sequence % 1000, stages[sequence % 3 + 1])
    return wrk.format("POST", base, headers, body)
  else
    local body = string.format('{"fields":{"count":%d,"stage":"%s"}}', sequence % 1000,
                               stages[(sequence + 1) % 3 + 1])
    return wrk.format("PATCH", base .. "/" .. id, headers, body)
  end
end
