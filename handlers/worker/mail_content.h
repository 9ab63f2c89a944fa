// What each kind of mail says (sql/041 `mails.kind`), rendered by the
// worker when it sends: the subject, the text and HTML parts and the
// headers, from the row's `data` and the mail settings (MAIL_FROM,
// PUBLIC_URL). Every mail that carries a token has a link to the admin
// front-end and the token on a line of its own, `Token: <token>`, for
// clients that show a paste box instead of a link. The token goes in the
// link's fragment (`#token=`), which browsers never send to a server.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config.h"
#include "mail_message.h"

namespace ca {

// One outbox row, as the worker claimed it.
struct OutboxMail {
  int64_t tenant_id = 0;
  int64_t id = 0;
  std::string kind;  // invitation, password_reset, password_changed, joined_existing_account
  std::string recipient;
  std::string data;        // the row's `data`, JSON text
  std::string created_at;  // API format: 2026-11-22T01:26:12.123456Z
};

// The message to send, or nullopt when the row cannot make one (an unknown
// kind, data that is not an object, a token missing where one is needed):
// `*problem` says which, without the data.
std::optional<MailMessage> mail_compose(const OutboxMail& mail, const Config& config,
                                        std::string* problem);

// The Message-ID of a row (the same on every attempt, so a receiver can
// tell a repeated send): "<created µs>.<tenant>.<id>@<MAIL_FROM's domain>".
std::string mail_message_id(const OutboxMail& mail, std::string_view from_address);

// Unix seconds of an API timestamp (2026-11-22T01:26:12.123456Z); 0 when malformed.
int64_t mail_timestamp_unix(std::string_view iso);

}  // namespace ca
