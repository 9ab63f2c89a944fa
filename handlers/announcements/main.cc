// commerce-admin-announcements: create, list, read, update and archive
// announcements; the active list; per-user read and dismiss.
#include "announcements.h"
#include "serve.h"

int main(int argc, char** argv) {
  return ca::serve_main(
      argc, argv, "commerce-admin-announcements",
      {
          {"GET", "/api/v2/admin/announcements", ca::announcements_list,
           ca::Scope::kAnnouncementsRead, ca::kAnnouncementStyle},
          {"POST", "/api/v2/admin/announcements", ca::announcements_create,
           ca::Scope::kAnnouncementsWrite, ca::kIdempotent, ca::kAnnouncementStyle},
          {"GET", "/api/v2/admin/announcements/active", ca::announcements_active,
           ca::Scope::kAnnouncementsRead, ca::kAnnouncementStyle},
          {"GET", "/api/v2/admin/announcements/{id}", ca::announcements_get,
           ca::Scope::kAnnouncementsRead, ca::kAnnouncementStyle},
          {"POST", "/api/v2/admin/announcements/{id}", ca::announcements_update,
           ca::Scope::kAnnouncementsWrite, ca::kAnnouncementStyle},
          {"DELETE", "/api/v2/admin/announcements/{id}", ca::announcements_archive,
           ca::Scope::kAnnouncementsWrite, ca::kAnnouncementStyle},
          // A person's own reading state: no scope, no API key.
          {"POST", "/api/v2/admin/announcements/{id}/read", ca::announcements_mark_read,
           ca::kAnnouncementStyle},
          {"POST", "/api/v2/admin/announcements/{id}/dismiss", ca::announcements_dismiss,
           ca::kAnnouncementStyle},
      });
}
