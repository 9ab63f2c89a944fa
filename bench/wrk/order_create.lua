-- POST /api/v2/admin/orders with 3 items of random products.
-- BENCH_ADDRESS_ID: an address of the token's user.
local address = os.getenv("BENCH_ADDRESS_ID") or "1"
request = function()
  local items = {}
  for i = 1, 3 do
    items[i] = string.format('{"product_id":%d,"qty":%d,"amount":%d.50}', random_id(), i, i * 3)
  end
  local body = string.format(
    '{"address_id":%s,"payment_type":1,"total_amount":19.50,"order_items":[%s]}',
    address, table.concat(items, ","))
  return wrk.format("POST", "/api/v2/admin/orders", nil, body)
end
