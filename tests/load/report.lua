-- Shared by the wrk scripts of tests/load: counts the answers by status on every thread and, when
-- the run is done, prints one JSON line (prefixed "wrk-report ") that run.py reads: requests,
-- latency percentiles in microseconds, wrk's socket errors and the status counts.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

statuses = {}

function count_status(status)
  statuses[status] = (statuses[status] or 0) + 1
end

function response(status, headers, body)
  count_status(status)
end

local function encode_statuses(counts)
  local parts = {}
  for status, n in pairs(counts) do
    table.insert(parts, status .. ":" .. n)
  end
  return table.concat(parts, ",")
end

function done(summary, latency, requests)
  local merged = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("statuses") or {}) do
      merged[status] = (merged[status] or 0) + n
    end
  end
  local e = summary.errors
  io.write(string.format(
    'wrk-report {"requests":%d,"duration_us":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,' ..
    '"max_us":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"status_errors":%d,' ..
    '"statuses":"%s"}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, e.connect, e.read, e.write, e.timeout, e.status,
    encode_statuses(merged)))
end
