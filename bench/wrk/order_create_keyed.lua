-- POST /api/v2/admin/orders as order_create.lua, each request with an
-- Idempotency-Key of its own (a new key: the cost of claiming and storing
-- it, not of a replay). BENCH_ADDRESS_ID: an address of the token's user.
local address = os.getenv("BENCH_ADDRESS_ID") or "1"
local threads = 0
local run = nil

-- Main state, once per thread: a number per thread and a token per wrk
-- run, so that keys are unique across threads, runs and passes.
setup = function(thread)
  if run == nil then
    math.randomseed(os.time())
    run = string.format("%d-%d", os.time(), math.random(1, 1000000000))
  end
  threads = threads + 1
  thread:set("thread_id", threads)
  thread:set("run_id", run)
end

local sent = 0
request = function()
  sent = sent + 1
  local items = {}
  for i = 1, 3 do
    items[i] = string.format('{"product_id":%d,"qty":%d,"amount":%d.50}', random_id(), i, i * 3)
  end
  local body = string.format(
    '{"address_id":%s,"payment_type":1,"total_amount":19.50,"order_items":[%s]}',
    address, table.concat(items, ","))
  local headers = {}
  for name, value in pairs(wrk.headers) do headers[name] = value end
  headers["Idempotency-Key"] = string.format("bench-%s-%d-%d", run_id, thread_id, sent)
  return wrk.format("POST", "/api/v2/admin/orders", headers, body)
end
