-- GET /api/v2/admin/products/{random id of the tenant}.
request = function()
  return wrk.format("GET", string.format("/api/v2/admin/products/%d", random_id()))
end
