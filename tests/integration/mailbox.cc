#include "mailbox.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include "json.h"
#include "mail_message.h"
#include "stack.h"

namespace ca::test {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Header block (up to the first empty line) and body of `part`.
void split_part(const std::string& part, std::vector<std::string>* lines,
                std::map<std::string, std::string>* headers, std::string* body) {
  size_t end = part.find("\r\n\r\n");
  std::string head = end == std::string::npos ? part : part.substr(0, end);
  *body = end == std::string::npos ? "" : part.substr(end + 4);
  std::vector<std::string> raw_lines;
  std::istringstream in(head);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!raw_lines.empty() && !line.empty() && (line[0] == ' ' || line[0] == '\t')) {
      raw_lines.back() += line;  // unfold
    } else {
      raw_lines.push_back(line);
    }
  }
  for (const std::string& l : raw_lines) {
    if (lines) lines->push_back(l);
    size_t colon = l.find(':');
    if (colon == std::string::npos) continue;
    std::string value = l.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    (*headers)[lower(l.substr(0, colon))] = value;
  }
}

CapturedMail parse(const std::string& file, const std::string& raw) {
  CapturedMail m;
  m.file = file;
  m.raw = raw;
  std::string body;
  split_part(raw, &m.header_lines, &m.headers, &body);
  std::string type = m.headers["content-type"];
  size_t b = type.find("boundary=\"");
  if (b == std::string::npos) return m;
  std::string boundary = type.substr(b + 10, type.find('"', b + 10) - b - 10);
  std::string delimiter = "--" + boundary;
  size_t at = body.find(delimiter);
  while (at != std::string::npos) {
    size_t start = at + delimiter.size();
    if (body.compare(start, 2, "--") == 0) break;
    start += 2;  // CRLF
    size_t next = body.find("\r\n" + delimiter, start);
    if (next == std::string::npos) break;
    std::string part = body.substr(start, next - start + 2);
    std::map<std::string, std::string> headers;
    std::string content;
    split_part(part, nullptr, &headers, &content);
    std::string decoded = quoted_printable_decode(content);
    if (headers["content-type"].rfind("text/plain", 0) == 0) {
      m.text = decoded;
      m.text_part_raw = part;
    } else if (headers["content-type"].rfind("text/html", 0) == 0) {
      m.html = decoded;
    }
    at = next + 2;
  }
  return m;
}

}  // namespace

std::vector<CapturedMail> captured_mails(const std::string& recipient) {
  std::string dir = state_dir() + "/mail";
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 4 && name[0] != '.' && name.substr(name.size() - 4) == ".eml") {
        names.push_back(name);
      }
    }
    closedir(d);
  }
  // <time in ns>-<n>.eml: by time, then n.
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    return std::make_pair(a.size(), a) < std::make_pair(b.size(), b);
  });
  std::vector<CapturedMail> out;
  for (const std::string& name : names) {
    std::ifstream in(dir + "/" + name, std::ios::binary);
    std::stringstream raw;
    raw << in.rdbuf();
    CapturedMail m = parse(dir + "/" + name, raw.str());
    if (lower(m.headers["to"]) == lower(recipient)) out.push_back(std::move(m));
  }
  return out;
}

std::optional<CapturedMail> wait_for_mail(const std::string& recipient,
                                          const std::function<bool(const CapturedMail&)>& match,
                                          std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    for (CapturedMail& m : captured_mails(recipient)) {
      if (match(m)) return m;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string mail_token(const CapturedMail& mail) {
  size_t at = mail.text.find("\nToken: ");
  if (at == std::string::npos) return "";
  at += 8;
  return mail.text.substr(at, mail.text.find('\n', at) - at);
}

std::string invitation_token_by_mail(int64_t tenant_id, int64_t invitation_id) {
  const std::string prefix =
      "inv_" + std::to_string(tenant_id) + "_" + std::to_string(invitation_id) + "_";
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (;;) {
    // Pending (or being sent): the outbox row has it.
    std::vector<std::string> pending =
        sql("SELECT data->>'token' FROM mails WHERE tenant_id = " + std::to_string(tenant_id) +
            " AND kind = 'invitation' AND data->>'token' LIKE '" + prefix + "%'");
    if (!pending.empty() && pending[0] != "<null>") return pending[0];
    std::vector<std::string> to =
        sql("SELECT email FROM invitations WHERE tenant_id = " + std::to_string(tenant_id) +
            " AND id = " + std::to_string(invitation_id));
    for (const std::string& r : to) {
      for (const CapturedMail& m : captured_mails(r)) {
        std::string token = mail_token(m);
        if (token.rfind(prefix, 0) == 0) return token;
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) return "";
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace ca::test

namespace ca::test {

std::string invitation_token_of(const HttpResponse& invite_answer, int64_t tenant_id) {
  if (std::optional<std::string_view> token = json_get_str(invite_answer.json.get(), "token")) {
    return std::string(*token);
  }
  std::optional<int64_t> id = json_get_int(json_get(invite_answer.json.get(), "invitation"), "id");
  return id ? invitation_token_by_mail(tenant_id, *id) : "";
}

}  // namespace ca::test
