// Test-side access to the mail the stack sends: scripts/run's SMTP sink
// writes every message to $CA_STATE_DIR/mail/<time>-<n>.eml (raw RFC 5322
// text); these helpers read them back, parsed enough to check headers and
// read the plain-text and HTML parts, and find tokens in them.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stack.h"

namespace ca::test {

struct CapturedMail {
  std::string file;                            // its path
  std::string raw;                             // the bytes the sink wrote
  std::vector<std::string> header_lines;       // as written, unfolded, in order
  std::map<std::string, std::string> headers;  // lower-case names, unfolded values
  std::string text;                            // the text/plain part, decoded
  std::string html;                            // the text/html part, decoded
  std::string text_part_raw;                   // the text/plain part's headers and body as sent
};

// Every captured mail whose To is `recipient` (case-insensitive), oldest first.
std::vector<CapturedMail> captured_mails(const std::string& recipient);

// Waits up to `timeout` for a mail to `recipient` for which `match` holds.
std::optional<CapturedMail> wait_for_mail(
    const std::string& recipient, const std::function<bool(const CapturedMail&)>& match,
    std::chrono::milliseconds timeout = std::chrono::seconds(20));

// The value of the text part's "Token: " line; "" when there is none.
std::string mail_token(const CapturedMail& mail);

// The token of invitation `invitation_id` of `tenant_id`, as only its
// invitee gets it: from the outbox row while the mail is pending, from the
// captured mail once sent (waits up to 20 s). "" when neither has it.
std::string invitation_token_by_mail(int64_t tenant_id, int64_t invitation_id);

// The token of an invite's answer (201): its `token` when mail is off, else
// the one mailed to the invitee (invitation_token_by_mail).
std::string invitation_token_of(const HttpResponse& invite_answer, int64_t tenant_id);

}  // namespace ca::test
