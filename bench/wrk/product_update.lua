-- POST /api/v2/admin/products/{random id of the tenant}: a new stock value
-- (a product write: the update, its audit entry, event and deliveries).
request = function()
  return wrk.format("POST", string.format("/api/v2/admin/products/%d", random_id()), nil,
    string.format('{"stock":%d}', math.random(0, 1000)))
end
