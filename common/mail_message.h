// Internet messages (RFC 5322) with MIME (RFC 2045-2047): the mails the
// worker sends (handlers/worker/mail_tasks.cc) as the bytes given to SMTP.
//
// A message is multipart/alternative with a plain-text and an HTML part,
// both UTF-8 in quoted-printable (ASCII text stays readable in the raw
// message, and no line is longer than 76 characters); header values that
// are not printable ASCII are RFC 2047 encoded words (`=?UTF-8?B?...?=`),
// folded. Every line ends with CRLF. The output depends only on the
// input (no clock, no randomness), so a retried mail is the same bytes
// and tests can compare it exactly.
//
// Pure functions; thread-safe (libsodium's base64 only).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ca {

// A mailbox: `address`, or `name <address>`.
struct Mailbox {
  std::string name;  // may be empty
  std::string address;
};

// Parses "user@example.com", "<user@example.com>" or
// "Display Name <user@example.com>" (the name may be in double quotes).
// nullopt when the address is not plausible (validate.h) or the text holds
// a control character.
std::optional<Mailbox> mailbox_parse(std::string_view text);

// A header value as it may be written after "Name: " on a line that already
// holds `used` characters: as is when it is printable ASCII, otherwise as
// encoded words, folded (CRLF SP) so no line exceeds 76 characters. Control
// characters (CR, LF included) become spaces: nothing can add a header.
std::string mail_header_text(std::string_view text, size_t used = 0);

// "name <address>" with the name quoted or encoded as needed; the address
// alone when the name is empty.
std::string mail_format_mailbox(const Mailbox& mailbox, size_t used = 0);

// Quoted-printable (RFC 2045 §6.7) of UTF-8 text whose lines end in "\n"
// (or "\r\n"): lines end in CRLF, at most 76 characters, soft breaks ("=")
// where a line is longer; "=", non-ASCII and control bytes, and a space or
// tab at a line's end are =XX.
std::string quoted_printable(std::string_view text);

// The inverse (for tests and readers): soft breaks removed, =XX decoded,
// CRLF made "\n".
std::string quoted_printable_decode(std::string_view text);

// RFC 5322 date of a Unix time, in UTC: "Fri, 27 Nov 2026 22:03:21 +0000".
std::string mail_date(int64_t unix_seconds);

// "&", "<", ">", '"' and "'" as HTML entities.
std::string html_escape(std::string_view text);

struct MailMessage {
  Mailbox from;
  std::string to;          // the recipient's address
  std::string subject;     // UTF-8
  std::string message_id;  // without the angle brackets: "local@domain"
  int64_t date_unix = 0;
  std::string text;  // UTF-8, lines ending in "\n"
  std::string html;  // UTF-8, a complete document
};

// The message's bytes: Date, From, To, Subject, Message-ID, MIME-Version,
// Content-Type (multipart/alternative; the boundary is derived from the
// message id), Auto-Submitted, then the text and HTML parts.
std::string mail_render(const MailMessage& message);

}  // namespace ca
