#include "mail_content.h"

#include <ctime>
#include <string>

#include "json.h"

namespace ca {
namespace {

// "2026-11-28T22:00:00.000000Z" as "2026-11-28 22:00 UTC".
std::string shown_time(std::string_view iso) {
  if (iso.size() < 16) return std::string(iso);
  std::string out(iso.substr(0, 16));
  out[10] = ' ';
  return out + " UTC";
}

std::string str_of(const cJSON* data, const char* key) {
  return std::string(json_get_str(data, key).value_or(""));
}

struct Parts {
  std::string subject;
  std::string text;
  std::string html;
};

// The HTML part: the same paragraphs as the text, escaped, with the link
// as a link.
std::string html_document(const std::string& title, const std::string& body_html) {
  return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
         "</title></head>\n<body style=\"font-family: sans-serif; line-height: 1.5\">\n" +
         body_html + "</body></html>\n";
}

std::string html_link(const std::string& url, const std::string& label) {
  return "<p><a href=\"" + html_escape(url) + "\">" + html_escape(label) + "</a></p>\n";
}

std::string html_token(const std::string& token) {
  return "<p>Or paste this token where the application asks for it:<br>\n<code>" +
         html_escape(token) + "</code></p>\n";
}

std::string html_p(const std::string& text) { return "<p>" + html_escape(text) + "</p>\n"; }

Parts invitation(const cJSON* data, const Config& config, const std::string& token) {
  std::string tenant = str_of(data, "tenant_name"), inviter = str_of(data, "inviter_name"),
              role = str_of(data, "role"), expires = shown_time(str_of(data, "expires_at"));
  std::string link = config.public_url + "/accept-invitation#token=" + token;
  std::string invited = inviter + " invited you to join " + tenant + " as " + role + ".";
  std::string ignore = "The invitation expires at " + expires +
                       ". If you did not expect it, ignore this mail: nothing happens unless "
                       "it is accepted.";
  Parts p;
  p.subject = "Invitation to join " + tenant;
  p.text = "Hello,\n\n" + invited + "\n\nTo accept, open this link:\n" + link +
           "\n\nOr paste this token where the application asks for it:\nToken: " + token + "\n\n" +
           ignore + "\n";
  p.html = html_document(p.subject, html_p("Hello,") + html_p(invited) +
                                        html_link(link, "Accept the invitation") +
                                        html_token(token) + html_p(ignore));
  return p;
}

Parts joined_existing(const cJSON* data, const Config& config, const std::string& recipient) {
  std::string tenant = str_of(data, "tenant_name"), role = str_of(data, "role");
  std::string joined = "An invitation sent to " + recipient +
                       " was accepted, and your existing account with this address joined " +
                       tenant + " as " + role + ".";
  std::string password =
      "No account was created and your password was not changed: the name and password given "
      "when accepting were not used. Sign in with your existing password, or choose a new one "
      "here:";
  std::string link = config.public_url + "/forgot-password";
  Parts p;
  p.subject = "You joined " + tenant;
  p.text = "Hello,\n\n" + joined + "\n\n" + password + "\n" + link + "\n";
  p.html = html_document(p.subject, html_p("Hello,") + html_p(joined) + html_p(password) +
                                        html_link(link, "Reset your password"));
  return p;
}

Parts password_reset(const cJSON* data, const Config& config, const std::string& token) {
  std::string expires = shown_time(str_of(data, "expires_at"));
  std::string link = config.public_url + "/reset-password#token=" + token;
  std::string asked =
      "Someone, probably you, asked to reset the password of the account with this address.";
  std::string ignore = "The token works once, until " + expires +
                       ". If you did not ask, ignore this mail: your password stays as it is.";
  Parts p;
  p.subject = "Reset your password";
  p.text = "Hello,\n\n" + asked + "\n\nTo choose a new password, open this link:\n" + link +
           "\n\nOr paste this token where the application asks for it:\nToken: " + token + "\n\n" +
           ignore + "\n";
  p.html = html_document(p.subject, html_p("Hello,") + html_p(asked) +
                                        html_link(link, "Choose a new password") +
                                        html_token(token) + html_p(ignore));
  return p;
}

Parts password_changed(const Config& config, const std::string& recipient,
                       const std::string& when) {
  std::string changed = "The password of your account (" + recipient + ") was changed at " +
                        shown_time(when) + ", and every session of the account was signed out.";
  std::string not_you = "If you did not do this, reset your password at once:";
  std::string link = config.public_url + "/forgot-password";
  Parts p;
  p.subject = "Your password was changed";
  p.text = "Hello,\n\n" + changed + "\n\n" + not_you + "\n" + link + "\n";
  p.html = html_document(p.subject, html_p("Hello,") + html_p(changed) + html_p(not_you) +
                                        html_link(link, "Reset your password"));
  return p;
}

Parts webhook_disabled(const cJSON* data, const Config& config) {
  std::string tenant = str_of(data, "tenant_name"), description = str_of(data, "description");
  std::string id = std::to_string(json_get_int(data, "webhook_id").value_or(0));
  std::string which = "The webhook subscription " + id +
                      (description.empty() ? "" : " (" + description + ")") + " of " + tenant;
  std::string what = which + " was disabled. " + str_of(data, "reason") + ".";
  std::string next =
      "It gets no deliveries until an ADMIN of " + tenant +
      " enables it again (is_active true), after fixing its endpoint. Its past deliveries can "
      "be read, and sent again, from the subscription's deliveries:";
  std::string link = config.public_url + "/webhooks";
  Parts p;
  p.subject = "Webhook subscription " + id + " of " + tenant + " disabled";
  p.text = "Hello,\n\n" + what + "\n\n" + next + "\n" + link + "\n";
  p.html = html_document(p.subject, html_p("Hello,") + html_p(what) + html_p(next) +
                                        html_link(link, "Open the webhook subscriptions"));
  return p;
}

}  // namespace

int64_t mail_timestamp_unix(std::string_view iso) {
  struct tm tm {};
  if (iso.size() < 19) return 0;
  std::string head(iso.substr(0, 19));
  if (strptime(head.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) return 0;
  return static_cast<int64_t>(timegm(&tm));
}

std::string mail_message_id(const OutboxMail& mail, std::string_view from_address) {
  std::string_view domain = from_address.substr(from_address.rfind('@') + 1);
  // Microseconds of created_at: ids restart in a new database, the time does not.
  std::string micros = std::to_string(mail_timestamp_unix(mail.created_at));
  if (mail.created_at.size() >= 26) micros += mail.created_at.substr(20, 6);
  return micros + "." + std::to_string(mail.tenant_id) + "." + std::to_string(mail.id) + "@" +
         std::string(domain);
}

std::optional<MailMessage> mail_compose(const OutboxMail& mail, const Config& config,
                                        std::string* problem) {
  Json data = json_parse(mail.data);
  if (!data || !cJSON_IsObject(data.get())) {
    *problem = "the mail's data is not a JSON object";
    return std::nullopt;
  }
  std::string token = str_of(data.get(), "token");
  bool needs_token = mail.kind == "invitation" || mail.kind == "password_reset";
  if (needs_token && token.empty()) {
    *problem = "the mail's token is missing";
    return std::nullopt;
  }
  Parts parts;
  if (mail.kind == "invitation") {
    parts = invitation(data.get(), config, token);
  } else if (mail.kind == "joined_existing_account") {
    parts = joined_existing(data.get(), config, mail.recipient);
  } else if (mail.kind == "password_reset") {
    parts = password_reset(data.get(), config, token);
  } else if (mail.kind == "password_changed") {
    parts = password_changed(config, mail.recipient, mail.created_at);
  } else if (mail.kind == "webhook_disabled") {
    parts = webhook_disabled(data.get(), config);
  } else {
    *problem = "unknown kind of mail '" + mail.kind + "'";
    return std::nullopt;
  }
  MailMessage m;
  m.from = Mailbox{config.mail_from_name, config.mail_from_address};
  m.to = mail.recipient;
  m.subject = parts.subject;
  m.message_id = mail_message_id(mail, config.mail_from_address);
  m.date_unix = mail_timestamp_unix(mail.created_at);
  m.text = parts.text;
  m.html = parts.html;
  return m;
}

}  // namespace ca
