// Scheduled publishing and push for announcements (issue: announcements).
#include "tasks.h"

namespace ca {

int task_publish_scheduled(Db&, const Config&) { return 0; }
int task_send_push(Db&, const Config&) { return 0; }

}  // namespace ca
