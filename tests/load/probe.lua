-- A plain GET of the run's URL (health, or one record with LOAD_TOKEN set), counting statuses:
-- the probe whose latency the slowloris and slow-query parts report.
dofile(os.getenv("LOAD_LUA_DIR") .. "/report.lua")

local token = os.getenv("LOAD_TOKEN")
if token and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end
