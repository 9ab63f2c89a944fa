-- bench/move-tenant's writer: POST /api/v2/admin/orders with 1 to 3 items of
-- random products and an Idempotency-Key of its own (MOVE_RUN, thread,
-- counter); move_log.lua logs each answer with its key and body.
local address = os.getenv("BENCH_ADDRESS_ID") or "1"
local run = os.getenv("MOVE_RUN") or "run"
local sent = 0
request = function()
  sent = sent + 1
  local items = {}
  for i = 1, 1 + sent % 3 do
    items[i] = string.format('{"product_id":%d,"qty":%d,"amount":%d.25}', random_id(), i, sent % 50 + i)
  end
  last_body = string.format(
    '{"address_id":%s,"payment_type":1,"total_amount":9.75,"order_items":[%s]}',
    address, table.concat(items, ","))
  last_key = string.format("move-%s-%d-%d", run, thread_id, sent)
  local headers = {}
  for name, value in pairs(wrk.headers) do headers[name] = value end
  headers["Idempotency-Key"] = last_key
  return wrk.format("POST", "/api/v2/admin/orders", headers, last_body)
end
