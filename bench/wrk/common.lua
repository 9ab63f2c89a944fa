-- Shared by every bench script (bench/run concatenates it in front of the
-- endpoint's own script). Settings come from the environment:
--   BENCH_TOKEN, BENCH_TENANT  bearer token and X-Tenant-ID
--   BENCH_ID_LO, BENCH_ID_HI   id range for scripts that pick random ids
-- At the end one line is printed that bench/run parses:
--   RESULT <requests> <seconds> <non2xx> <socket errors> <p50 us> <p99 us>
local token = os.getenv("BENCH_TOKEN") or ""
local tenant = os.getenv("BENCH_TENANT") or ""
id_lo = tonumber(os.getenv("BENCH_ID_LO") or "1")
id_hi = tonumber(os.getenv("BENCH_ID_HI") or "1")

wrk.headers["Content-Type"] = "application/json"
if token ~= "" then wrk.headers["Authorization"] = "Bearer " .. token end
if tenant ~= "" then wrk.headers["X-Tenant-ID"] = tenant end

function random_id()
  return math.random(id_lo, id_hi)
end

init = function(args)
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %.3f %d %d %d %d\n", summary.requests,
    summary.duration / 1e6, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
