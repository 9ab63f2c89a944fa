#include "mail_message.h"

#include <sodium.h>

#include <cstdio>
#include <ctime>
#include <string>

#include "validate.h"

namespace ca {
namespace {

constexpr size_t kMaxLine = 76;
// "=?UTF-8?B?" + "?=": 12 characters of an encoded word's 75; 60 base64
// characters (45 bytes) leave room for the folding space.
constexpr size_t kWordBytes = 45;

bool printable_ascii(std::string_view text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

// Control characters (CR and LF among them) as spaces.
std::string without_controls(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = ' ';
  }
  return out;
}

std::string base64(std::string_view bytes) {
  std::string out(sodium_base64_ENCODED_LEN(bytes.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

// Where a chunk of at most `max` bytes of UTF-8 text starting at `from` may
// end without cutting a character.
size_t utf8_cut(std::string_view text, size_t from, size_t max) {
  size_t end = from + max;
  if (end >= text.size()) return text.size();
  while (end > from && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80) --end;
  return end == from ? from + max : end;
}

// Whether an ASCII display name needs double quotes (RFC 5322 specials).
bool needs_quotes(std::string_view name) {
  for (char c : name) {
    if (std::string_view("()<>[]:;@\\,.\"").find(c) != std::string_view::npos) return true;
  }
  return false;
}

const char kHex[] = "0123456789ABCDEF";

void append_hex(std::string& out, unsigned char c) {
  out += '=';
  out += kHex[c >> 4];
  out += kHex[c & 0xf];
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// One line (without its break) as quoted-printable, soft-broken at 76.
void qp_line(std::string& out, std::string_view line) {
  size_t width = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    bool last = i + 1 == line.size();
    std::string token;
    if ((c == ' ' || c == '\t') && !last) {
      token = static_cast<char>(c);
    } else if (c >= 33 && c <= 126 && c != '=') {
      token = static_cast<char>(c);
    } else {
      append_hex(token, c);
    }
    // Room for the token and, unless it ends the line, a soft break's "=".
    size_t room = last ? kMaxLine : kMaxLine - 1;
    if (width + token.size() > room) {
      out += "=\r\n";
      width = 0;
    }
    out += token;
    width += token.size();
  }
  out += "\r\n";
}

}  // namespace

std::optional<Mailbox> mailbox_parse(std::string_view text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return std::nullopt;
  }
  auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  };
  text = trim(text);
  Mailbox m;
  std::string_view address = text;
  if (!text.empty() && text.back() == '>') {
    size_t open = text.rfind('<');
    if (open == std::string_view::npos) return std::nullopt;
    address = text.substr(open + 1, text.size() - open - 2);
    std::string_view name = trim(text.substr(0, open));
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
      name = name.substr(1, name.size() - 2);
    }
    if (name.find('"') != std::string_view::npos) return std::nullopt;
    m.name = std::string(name);
  }
  if (address.find_first_of("<>\" ,") != std::string_view::npos) return std::nullopt;
  if (address.size() < 3 || address.size() > 254 || !email_plausible(address)) return std::nullopt;
  m.address = std::string(address);
  return m;
}

std::string mail_header_text(std::string_view raw, size_t used) {
  std::string text = without_controls(raw);
  if (printable_ascii(text)) return text;
  std::string out;
  size_t width = used;
  for (size_t at = 0; at < text.size();) {
    // As many bytes as fit on this line (4 base64 characters per 3 bytes,
    // 12 for "=?UTF-8?B?" and "?="); too few left: fold first.
    size_t sep = out.empty() ? 0 : 1;
    size_t room = kMaxLine > width + sep + 12 ? kMaxLine - width - sep - 12 : 0;
    size_t bytes = room / 4 * 3;
    if (bytes < 12 && !out.empty()) {
      out += "\r\n";
      width = 0;
      bytes = kWordBytes;
    }
    if (bytes > kWordBytes) bytes = kWordBytes;
    if (bytes < 4) bytes = 4;  // at least one character, whatever the line
    size_t end = utf8_cut(text, at, bytes);
    std::string word = "=?UTF-8?B?" + base64(std::string_view(text).substr(at, end - at)) + "?=";
    if (!out.empty()) {
      out += ' ';
      width += 1;
    }
    out += word;
    width += word.size();
    at = end;
  }
  return out;
}

std::string mail_format_mailbox(const Mailbox& mailbox, size_t used) {
  std::string name = without_controls(mailbox.name);
  if (name.empty()) return mailbox.address;
  std::string shown;
  if (!printable_ascii(name)) {
    shown = mail_header_text(name, used);
  } else if (needs_quotes(name)) {
    shown = "\"";
    for (char c : name) {
      if (c == '"' || c == '\\') shown += '\\';
      shown += c;
    }
    shown += '"';
  } else {
    shown = name;
  }
  return shown + " <" + mailbox.address + ">";
}

std::string quoted_printable(std::string_view text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    qp_line(out, line);
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out;
}

std::string quoted_printable_decode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '=') {
      std::string_view rest = text.substr(i + 1);
      if (rest.substr(0, 2) == "\r\n") {
        i += 2;
        continue;
      }
      if (rest.substr(0, 1) == "\n") {
        i += 1;
        continue;
      }
      if (rest.size() >= 2 && hex_value(rest[0]) >= 0 && hex_value(rest[1]) >= 0) {
        out += static_cast<char>(hex_value(rest[0]) * 16 + hex_value(rest[1]));
        i += 2;
        continue;
      }
    }
    if (c == '\r' && text.substr(i + 1, 1) == "\n") continue;
    out += c;
  }
  return out;
}

std::string mail_date(int64_t unix_seconds) {
  time_t t = static_cast<time_t>(unix_seconds);
  struct tm tm {};
  gmtime_r(&t, &tm);
  static const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[tm.tm_wday],
                tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return buf;
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string mail_render(const MailMessage& m) {
  // "=_" never occurs in quoted-printable output ("=" is always =3D), so
  // the boundary cannot occur in a part.
  std::string boundary = "=_" + m.message_id;
  for (char& c : boundary) {
    if (c == '@') c = '.';
  }
  std::string out;
  out += "Date: " + mail_date(m.date_unix) + "\r\n";
  out += "From: " + mail_format_mailbox(m.from, 6) + "\r\n";
  out += "To: " + m.to + "\r\n";
  out += "Subject: " + mail_header_text(m.subject, 9) + "\r\n";
  out += "Message-ID: <" + m.message_id + ">\r\n";
  out += "MIME-Version: 1.0\r\n";
  out += "Content-Type: multipart/alternative;\r\n boundary=\"" + boundary + "\"\r\n";
  out += "Auto-Submitted: auto-generated\r\n";
  out += "\r\n";
  out += "--" + boundary + "\r\n";
  out += "Content-Type: text/plain; charset=utf-8\r\n";
  out += "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
  out += quoted_printable(m.text);
  out += "--" + boundary + "\r\n";
  out += "Content-Type: text/html; charset=utf-8\r\n";
  out += "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
  out += quoted_printable(m.html);
  out += "--" + boundary + "--\r\n";
  return out;
}

}  // namespace ca
