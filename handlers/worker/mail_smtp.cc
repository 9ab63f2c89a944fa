#include "mail_smtp.h"

#include <curl/curl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "curl_handles.h"
#include "log.h"
#include "small_file.h"

namespace ca {
namespace {

struct Upload {
  const std::string* data;
  size_t offset = 0;
};

size_t read_message(char* buffer, size_t size, size_t count, void* userdata) {
  Upload* up = static_cast<Upload*>(userdata);
  size_t room = size * count;
  size_t left = up->data->size() - up->offset;
  size_t n = left < room ? left : room;
  std::memcpy(buffer, up->data->data() + up->offset, n);
  up->offset += n;
  return n;
}

// Whether MAIL_URL's host is a loopback address or "localhost".
bool loopback_host(const std::string& url_text) {
  CurlUrl url(curl_url());
  if (!url || curl_url_set(url.get(), CURLUPART_URL, url_text.c_str(), 0) != CURLUE_OK) {
    return false;
  }
  char* host = nullptr;
  if (curl_url_get(url.get(), CURLUPART_HOST, &host, 0) != CURLUE_OK) return false;
  std::string h(host);
  curl_free(host);
  return h == "localhost" || h == "[::1]" || h.rfind("127.", 0) == 0;
}

}  // namespace

std::string mail_credentials_or_exit(const std::string& path) {
  SmallFile file = read_small_file(path, 4096);
  std::string s = std::move(file.text);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  if (!file.ok() || s.find(':') == std::string::npos || s.find('\n') != std::string::npos) {
    std::fprintf(stderr,
                 "%scommerce-admin-worker: MAIL_CREDENTIALS_FILE '%s' must hold one line "
                 "user:password\n",
                 log_priority_prefix(LogLevel::kError), path.c_str());
    std::exit(2);
  }
  return s;
}

SmtpSender::SmtpSender(const Config& config) : config_(config) {
  if (!config.mail_credentials_file.empty()) {
    userpwd_ = mail_credentials_or_exit(config.mail_credentials_file);
  }
  require_tls_ = !loopback_host(config.mail_url);
}

SmtpOutcome SmtpSender::send(const std::string& from_address, const std::string& to_address,
                             const std::string& message) const {
  SmtpOutcome out;
  CurlEasy h(curl_easy_init());
  if (!h) {
    out.error = "could not start libcurl";
    return out;
  }
  std::string from = "<" + from_address + ">";
  CurlSlist rcpt(curl_slist_append(nullptr, ("<" + to_address + ">").c_str()));
  Upload upload{&message};
  char errbuf[CURL_ERROR_SIZE] = {0};
  CURL* c = h.get();
  curl_easy_setopt(c, CURLOPT_URL, config_.mail_url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  // smtp://: STARTTLS, required but on loopback; smtps:// is TLS anyway.
  curl_easy_setopt(c, CURLOPT_USE_SSL,
                   static_cast<long>(require_tls_ ? CURLUSESSL_ALL : CURLUSESSL_TRY));
  if (!userpwd_.empty()) curl_easy_setopt(c, CURLOPT_USERPWD, userpwd_.c_str());
  curl_easy_setopt(c, CURLOPT_MAIL_FROM, from.c_str());
  curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt.get());
  curl_easy_setopt(c, CURLOPT_READFUNCTION, read_message);
  curl_easy_setopt(c, CURLOPT_READDATA, &upload);
  curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(message.size()));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  curl_easy_setopt(c, CURLOPT_TIMEOUT, static_cast<long>(config_.mail_timeout_seconds));
  curl_easy_setopt(
      c, CURLOPT_CONNECTTIMEOUT,
      static_cast<long>(config_.mail_timeout_seconds < 10 ? config_.mail_timeout_seconds : 10));
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out.reply);
  if (rc == CURLE_OK) {
    out.sent = true;
    return out;
  }
  out.error = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
  while (!out.error.empty() && (out.error.back() == '\n' || out.error.back() == '\r')) {
    out.error.pop_back();
  }
  return out;
}

}  // namespace ca
