#include <curl/curl.h>

#include "tasks.h"

namespace ca {

void tasks_init() { curl_global_init(CURL_GLOBAL_DEFAULT); }

}  // namespace ca
