-- POST /api/v2/admin/announcements/{random id}/read.
request = function()
  return wrk.format("POST", "/api/v2/admin/announcements/" .. random_id() .. "/read")
end
