-- POST /api/v2/admin/login (Argon2id: deliberately slow per request).
local body = string.format('{"email":"%s","password":"%s"}',
  os.getenv("BENCH_EMAIL"), os.getenv("BENCH_PASSWORD"))
wrk.headers["Authorization"] = nil
request = function()
  return wrk.format("POST", "/api/v2/admin/login", nil, body)
end
