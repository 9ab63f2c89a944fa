// Announcement endpoints (SPEC "Announcements (T)", DESIGN §4 "Announcements").
// Every endpoint is tenant-scoped by X-Tenant-ID and open to any member.
#pragma once

#include "router.h"

namespace ca {

// announcement_read.cc
Response announcements_list(Ctx& ctx);
Response announcements_active(Ctx& ctx);
Response announcements_get(Ctx& ctx);

// announcement_write.cc
Response announcements_create(Ctx& ctx);
Response announcements_update(Ctx& ctx);
Response announcements_archive(Ctx& ctx);

// read_state.cc
Response announcements_mark_read(Ctx& ctx);
Response announcements_dismiss(Ctx& ctx);

}  // namespace ca
