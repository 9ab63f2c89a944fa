-- bench/move-tenant's readers: GET /products/{random id} (MOVE_LIST_PATHS
-- empty), or each request the next path of MOVE_LIST_PATHS (space separated,
-- relative to /api/v2/admin/), e.g. "products?page=1 products?page=9".
local paths = {}
for p in (os.getenv("MOVE_LIST_PATHS") or ""):gmatch("%S+") do paths[#paths + 1] = p end
local n = 0
request = function()
  if #paths == 0 then
    return wrk.format("GET", string.format("/api/v2/admin/products/%d", random_id()))
  end
  n = n % #paths + 1
  return wrk.format("GET", "/api/v2/admin/" .. paths[n])
end
