// Webhook deliveries (issue: webhooks).
#include "tasks.h"

namespace ca {

int task_deliver_webhooks(Db&, const Config&) { return 0; }

}  // namespace ca
