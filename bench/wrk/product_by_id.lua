-- GET /api/v2/admin/products/{random id of the tenant}.
request = function()
  return wrk.format("GET", "/api/v2/admin/products/" .. random_id())
end
