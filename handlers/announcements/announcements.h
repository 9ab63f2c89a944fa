// Announcement endpoints (docs/openapi.yaml, docs/design/api-conventions.md "Announcements").
// Every endpoint is tenant-scoped by X-Tenant-ID and open to any member.
#pragma once

#include "router.h"

namespace ca {

// Not-found and validation errors are `{success:false, ...}`, 500 and 503
// `{error}` (docs/design/api-conventions.md, "Error bodies").
inline constexpr ErrorStyle kAnnouncementStyle = ErrorStyle::kSuccess4xx;

// announcement_read.cc
Result<Response> announcements_list(Ctx& ctx);
Result<Response> announcements_active(Ctx& ctx);
Result<Response> announcements_get(Ctx& ctx);

// announcement_write.cc
Result<Response> announcements_create(Ctx& ctx);
Result<Response> announcements_update(Ctx& ctx);
Result<Response> announcements_archive(Ctx& ctx);

// read_state.cc
Result<Response> announcements_mark_read(Ctx& ctx);
Result<Response> announcements_dismiss(Ctx& ctx);

}  // namespace ca
