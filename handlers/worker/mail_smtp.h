// Sends one message over SMTP with libcurl (MAIL_URL): smtp:// with
// STARTTLS, smtps:// with TLS from the first byte, AUTH when credentials
// are given (in the URL or MAIL_CREDENTIALS_FILE). STARTTLS is required
// unless the relay is on the loopback interface (a local relay or the dev
// stack's sink), where it is used when offered. Environment proxies are
// ignored. One blocking attempt, bounded by MAIL_TIMEOUT_SECONDS.
//
// Thread-compatible: one SmtpSender per thread.
#pragma once

#include <string>

#include "config.h"

namespace ca {

struct SmtpOutcome {
  bool sent = false;
  long reply = 0;     // the server's last reply code, 0 when none
  std::string error;  // why not, for the log and the row; never a credential
};

class SmtpSender {
 public:
  // Reads MAIL_CREDENTIALS_FILE when set; on a problem prints one line and
  // exits 2 (the worker's start-up check).
  explicit SmtpSender(const Config& config);

  SmtpOutcome send(const std::string& from_address, const std::string& to_address,
                   const std::string& message) const;

 private:
  const Config& config_;
  std::string userpwd_;  // from MAIL_CREDENTIALS_FILE, "" when unset
  bool require_tls_ = true;
};

// Reads "user:password" (one line; a trailing newline dropped) from the
// MAIL_CREDENTIALS_FILE; on a problem prints one line naming the variable
// and exits 2.
std::string mail_credentials_or_exit(const std::string& path);

}  // namespace ca
