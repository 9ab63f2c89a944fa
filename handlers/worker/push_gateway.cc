#include "push_gateway.h"

#include <curl/curl.h>

#include "curl_handles.h"

namespace ca {
namespace {

// The gateway's answer body is not used; only the status counts.
size_t discard(char*, size_t size, size_t n, void*) { return size * n; }

}  // namespace

PushOutcome push_gateway_send(const Config& config, const std::string& body) {
  if (config.push_gateway_url.empty()) return {false, "PUSH_GATEWAY_URL is not configured"};
  CurlEasy curl(curl_easy_init());
  if (!curl) return {false, "push gateway unreachable: libcurl could not start"};

  curl_slist* raw = curl_slist_append(nullptr, "Content-Type: application/json");
  if (!config.push_gateway_token.empty()) {
    std::string auth = "Authorization: Bearer " + config.push_gateway_token;
    raw = curl_slist_append(raw, auth.c_str());
  }
  // No "Expect: 100-continue" round trip for larger bodies.
  raw = curl_slist_append(raw, "Expect:");
  CurlSlist headers(raw);

  char error_buffer[CURL_ERROR_SIZE] = {0};
  long timeout = config.webhook_timeout_seconds > 0 ? config.webhook_timeout_seconds : 10;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, config.push_gateway_url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_USERAGENT, "commerce-admin-worker");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout);
  // Name-resolution timeouts must not raise SIGALRM in the worker process.
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_buffer);

  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    return {false, std::string("push gateway unreachable: ") +
                       (error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(rc))};
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status > 299) {
    return {false, "push gateway answered " + std::to_string(status)};
  }
  return {true, ""};
}

}  // namespace ca
