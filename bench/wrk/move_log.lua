-- bench/move-tenant: appended after common.lua and a client script. Each
-- thread logs to $MOVE_LOG_DIR/<client>.<thread>, tab-separated: every
-- response that is not 2xx (unix time, status, Retry-After or -), and for
-- the order writer every response, with its key, the order id and the body.
local log_dir = os.getenv("MOVE_LOG_DIR") or "."
local client = os.getenv("MOVE_CLIENT") or "client"
local threads = 0

setup = function(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

local log = nil
init = function(args)
  math.randomseed(os.time() + math.floor(os.clock() * 1000000) + thread_id * 7919)
  log = io.open(string.format("%s/%s.%d", log_dir, client, thread_id), "w")
end

-- Set by the writer's request(): with one connection per thread (-c = -t)
-- the next response answers the last request.
last_key, last_body = nil, nil

response = function(status, headers, body)
  local line = string.format("%d\t%d\t%s", os.time(), status, headers["Retry-After"] or "-")
  if last_key ~= nil then
    local id = body:match('"data":{"id":(%d+)') or "-"
    log:write(string.format("%s\t%s\t%s\t%s\n", line, last_key, id, last_body))
  elseif status < 200 or status > 299 then
    log:write(line .. "\n")
  end
  log:flush()
end
