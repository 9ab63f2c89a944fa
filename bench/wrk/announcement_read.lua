-- POST /api/v2/admin/announcements/{random id}/read.
request = function()
  return wrk.format("POST", string.format("/api/v2/admin/announcements/%d/read", random_id()))
end
