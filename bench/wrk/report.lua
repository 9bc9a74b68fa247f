-- wrk script used by bench/run for every workload and server.
--
-- The request comes from the environment (set by bench/run):
--   BENCH_METHOD    GET, POST, … (default GET)
--   BENCH_PATH      request path; `{rand}` is replaced per request by a random id in
--                   1..BENCH_RAND_MAX (default: the path of the URL given to wrk)
--   BENCH_BODY      request body (empty: none)
--   BENCH_BODY_FILE request body read from this file instead (uploads: bytes, any size)
--   BENCH_HEADERS   extra headers, one `Name: value` per line (auth tokens go here)
--
-- done() prints one machine-readable line:
--   BENCH_RESULT requests=N duration_s=S rps=R p50_us=A p90_us=B p99_us=C max_us=D
--                non2xx=E socket_errors=F mib_s=G
-- (mib_s: request and response bytes moved per second, in MiB: 2^20 bytes).
-- (non2xx counts wrk's "status > 399" errors; socket_errors = connect + read + write + timeout).

local method = os.getenv("BENCH_METHOD")
local path = os.getenv("BENCH_PATH")
local body = os.getenv("BENCH_BODY")
local headers = os.getenv("BENCH_HEADERS")
local rand_max = tonumber(os.getenv("BENCH_RAND_MAX") or "") or 1000

if method and method ~= "" then wrk.method = method end
if path and path ~= "" then wrk.path = path end
if body and body ~= "" then wrk.body = body end
local body_file = os.getenv("BENCH_BODY_FILE")
if body_file and body_file ~= "" then
  local file = assert(io.open(body_file, "rb"))
  wrk.body = file:read("*a")
  file:close()
end
if headers then
  for line in headers:gmatch("[^\n]+") do
    local name, value = line:match("^%s*([^:]-)%s*:%s*(.-)%s*$")
    if name and name ~= "" then wrk.headers[name] = value end
  end
end

-- A path with `{rand}`, `{w}` or `{h}` needs a fresh request each time; any other request is
-- built once by wrk (a global `request` function is what makes wrk call Lua per request, so define
-- it only here). `{w}` and `{h}` make every request of a run a new image transform (a cache miss):
-- request n of a thread (counted from BENCH_SEQ_START + 1000000 * the thread's index) gets
-- width 300 + n mod 200 and height 1000 + (n / 200) mod 1500, the sequence
-- bench/transform_probe times in-process.
local seq_start = tonumber(os.getenv("BENCH_SEQ_START") or "") or 0
if wrk.path:find("{rand}", 1, true) or wrk.path:find("{w}", 1, true) then
  local template = wrk.path
  local thread_count = 0
  function setup(thread)
    thread:set("seed", math.random(1, 2147483647))
    thread:set("seq", seq_start + 1000000 * thread_count)
    thread_count = thread_count + 1
  end
  function init(args)
    math.randomseed(seed or os.time())
  end
  function request()
    local n = seq or 0
    seq = n + 1
    local p = template:gsub("{rand}", function() return tostring(math.random(1, rand_max)) end)
    p = p:gsub("{w}", tostring(300 + n % 200))
    p = p:gsub("{h}", tostring(1000 + math.floor(n / 200) % 1500))
    return wrk.format(nil, p)
  end
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  -- summary.bytes counts what wrk read (responses); a request body is sent once per request.
  local moved = summary.bytes + summary.requests * #(wrk.body or "")
  io.write(string.format(
    "BENCH_RESULT requests=%d duration_s=%.3f rps=%.1f p50_us=%.0f p90_us=%.0f p99_us=%.0f " ..
    "max_us=%.0f non2xx=%d socket_errors=%d mib_s=%.1f\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout, moved / seconds / 1048576))
end
