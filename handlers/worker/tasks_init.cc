#include <curl/curl.h>

#include <atomic>

#include "tasks.h"

namespace ca {
namespace {

std::atomic<bool> g_stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

}  // namespace

void tasks_init() { curl_global_init(CURL_GLOBAL_DEFAULT); }

void request_stop() { g_stop_requested.store(true); }

bool stop_requested() { return g_stop_requested.load(); }

}  // namespace ca
