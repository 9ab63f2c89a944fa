-- POST /api/v2/admin/tenants/{BENCH_TENANT}: a new name (a tenant's
-- update: its row locked and written, its audit entry). Every request
-- writes the same row: run it with few connections.
local path = "/api/v2/admin/tenants/" .. (os.getenv("BENCH_TENANT") or "1")
request = function()
  return wrk.format("POST", path, nil,
    string.format('{"name":"Bench store %d"}', math.random(0, 1000000)))
end
