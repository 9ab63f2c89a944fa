// Mail (issue 37): the outbox, the worker's SMTP sending, invitations by
// mail and password reset, through nginx against the stack, whose mail
// goes to scripts/run's sink ($CA_STATE_DIR/mail/*.eml, mailbox.h).
//
// Tests that must choose which worker sends pause the stack's worker and
// run their own (WorkerProcess), pointed at an SMTP server that is down or
// refuses, or two of them at the sink.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <regex>
#include <string>
#include <thread>

#include "json.h"
#include "mail_message.h"
#include "mailbox.h"
#include "own_handler.h"
#include "own_nginx.h"
#include "stack.h"

namespace ca::test {
namespace {

const char* const kInvalidReset = R"({"error":"The token is invalid, used or expired"})";
const char* const kForgotAnswer =
    R"({"message":"If an account has this email, a message with a link to choose a new password is on its way"})";

HttpResponse invite(const std::string& token, int64_t tenant, const std::string& email,
                    const std::string& role = "MEMBER") {
  return http("POST", "/api/v2/admin/team-members/" + std::to_string(tenant),
              {.token = token,
               .body = R"({"email":)" + json_text(email) + R"(,"role":")" + role + R"("})"});
}

HttpResponse forgot(const std::string& email) {
  return http("POST", "/api/v2/admin/password/forgot",
              {.body = R"({"email":)" + json_text(email) + "}"});
}

HttpResponse reset(const std::string& token, const std::string& password) {
  return http(
      "POST", "/api/v2/admin/password/reset",
      {.body = R"({"token":)" + json_text(token) + R"(,"password":)" + json_text(password) + "}"});
}

HttpResponse login_response(const std::string& email, const std::string& password) {
  return http(
      "POST", "/api/v2/admin/login",
      {.body = R"({"email":)" + json_text(email) + R"(,"password":)" + json_text(password) + "}"});
}

bool subject_is(const CapturedMail& m, const std::string& subject) {
  auto it = m.headers.find("subject");
  return it != m.headers.end() && it->second == subject;
}

std::string mail_status(int64_t tenant, int64_t id) {
  std::vector<std::string> r =
      sql("SELECT status FROM mails WHERE tenant_id = " + std::to_string(tenant) +
          " AND id = " + std::to_string(id));
  return r.empty() ? "" : r[0];
}

// The outbox row of the invitation mail of `invitation_id`.
int64_t invitation_mail_id(int64_t tenant, int64_t invitation_id) {
  std::vector<std::string> r =
      sql("SELECT m.id FROM mails m JOIN invitations i ON i.tenant_id = m.tenant_id "
          "  AND lower(i.email) = lower(m.recipient) "
          "WHERE m.tenant_id = " +
          std::to_string(tenant) + " AND i.id = " + std::to_string(invitation_id) +
          " AND m.kind = 'invitation' ORDER BY m.id DESC LIMIT 1");
  return r.empty() ? 0 : std::stoll(r[0]);
}

bool eventually(const std::function<bool()>& done, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return done();
}

// --- invitations by mail -------------------------------------------------------

// The attack of issue 37: an ADMIN of a tenant of their own invites someone
// else's address and tries to accept it as a new account. With mail on the
// invite's answer holds no token, a forged one is refused, and no account
// exists; the owner of the mailbox can still join, with the address proven.
TEST(MailInvitations, SquattingAnEmailFailsAndItsOwnerStillJoins) {
  TestUser attacker = add_user(admin_token(), create_tenant(admin_token(), unique("Home")));
  int64_t own = create_tenant(attacker.token, unique("Attacker's"));
  std::string victim = unique("victim") + "@corp.test";

  HttpResponse r = invite(attacker.token, own, victim, "ADMIN");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r["token"], nullptr) << r.body;
  EXPECT_EQ(r.body.find("inv_"), std::string::npos);
  int64_t id = json_get_int(r["invitation"], "id").value_or(0);
  // Tokens of the right form, guessed or forged: the one 400.
  for (const std::string& forged :
       {"inv_" + std::to_string(own) + "_" + std::to_string(id) + "_" + std::string(43, 'A'),
        std::string("inv_1_1_") + std::string(43, 'x')}) {
    HttpResponse squat = accept_as_new_account(forged, "Victim CEO", "attacker-password");
    EXPECT_EQ(squat.status, 400) << squat.body;
  }
  EXPECT_EQ(sql("SELECT count(*) FROM users WHERE lower(email) = lower('" + victim + "')"),
            (std::vector<std::string>{"0"}));
  EXPECT_EQ(login_response(victim, "attacker-password").status, 401);

  // The owner reads the mail (from the attacker's tenant) and joins.
  std::optional<CapturedMail> mail =
      wait_for_mail(victim, [](const CapturedMail& m) { return !mail_token(m).empty(); });
  ASSERT_TRUE(mail);
  HttpResponse joined = accept_as_new_account(mail_token(*mail), "The Victim", "victim-password");
  ASSERT_EQ(joined.status, 201) << joined.body;
  HttpResponse login = login_response(victim, "victim-password");
  ASSERT_EQ(login.status, 200) << login.body;
  EXPECT_TRUE(is_timestamp(json_get(json_get(login.json.get(), "user"), "email_verified_at")))
      << login.body;

  // And a real shop's later invitation reaches the same account.
  std::string admin = admin_token();
  int64_t shop = create_tenant(admin, unique("Real shop"));
  TestInvitation real = invite_user(admin, shop, victim, "MEMBER");
  HttpResponse accepted = accept_as(login.str("token"), real.token);
  EXPECT_EQ(accepted.status, 201) << accepted.body;
}

// A keyed invite's stored answer holds no token either, and its replay
// writes nothing: one invitation, one mail.
TEST(MailInvitations, AKeyedInviteRepliesWithoutTokenAndMailsOnce) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Keyed"));
  std::string to = unique("keyed") + "@test.local";
  Call call{.token = admin,
            .body = R"({"email":)" + json_text(to) + R"(,"role":"MEMBER"})",
            .headers = {"Idempotency-Key: " + unique("mail-key")}};
  HttpResponse first = http("POST", "/api/v2/admin/team-members/" + std::to_string(t), call);
  HttpResponse again = http("POST", "/api/v2/admin/team-members/" + std::to_string(t), call);
  ASSERT_EQ(first.status, 201) << first.body;
  ASSERT_EQ(again.status, 201) << again.body;
  EXPECT_EQ(again.body, first.body);
  EXPECT_EQ(again.headers["idempotent-replayed"], "true");
  EXPECT_EQ(first["token"], nullptr);
  EXPECT_EQ(sql("SELECT count(*) FROM mails WHERE tenant_id = " + std::to_string(t)),
            (std::vector<std::string>{"1"}));
  EXPECT_EQ(sql("SELECT count(*) FROM idempotency_keys WHERE tenant_id = " + std::to_string(t) +
                " AND position('inv_' IN idempotency_keys::text) > 0"),
            (std::vector<std::string>{"0"}));
}

// Without mail, today's behaviour: the invite answers the token (a
// team-members handler of the test's own, MAIL_URL unset).
TEST(MailInvitations, WithoutMailTheInviteAnswersTheToken) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("No mail"));
  OwnHandler handler("commerce-admin-team-members", "team-members-no-mail", {{"MAIL_URL", kUnset}});
  OwnAnswer a = handler.call(
      {.method = "POST",
       .uri = "/api/v2/admin/team-members/" + std::to_string(t),
       .token = admin,
       .body = R"({"email":")" + unique("nomail") + R"(@test.local","role":"MEMBER"})"});
  ASSERT_EQ(a.status, "Status: 201 Created") << a.body;
  Json body = json_parse(a.body);
  std::optional<std::string_view> token = json_get_str(body.get(), "token");
  ASSERT_TRUE(token);
  EXPECT_EQ(token->rfind("inv_" + std::to_string(t) + "_", 0), 0u);
  EXPECT_EQ(sql("SELECT count(*) FROM mails WHERE tenant_id = " + std::to_string(t)),
            (std::vector<std::string>{"0"}));
}

// The captured message, header by header and part by part.
TEST(MailMessages, AnInvitationMailIsExactlyThis) {
  std::string admin = admin_token();
  std::string tenant_name = "Café Zoë " + unique("t");
  int64_t t = create_tenant(admin, tenant_name);
  std::string to = unique("reader") + "@test.local";
  HttpResponse r = invite(admin, t, to, "ADMIN");
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t invitation = json_get_int(r["invitation"], "id").value_or(0);
  std::optional<CapturedMail> m =
      wait_for_mail(to, [](const CapturedMail& c) { return !mail_token(c).empty(); });
  ASSERT_TRUE(m);
  int64_t mail_id = invitation_mail_id(t, invitation);
  ASSERT_GT(mail_id, 0);
  std::string token = mail_token(*m);
  EXPECT_EQ(token.rfind("inv_" + std::to_string(t) + "_" + std::to_string(invitation) + "_", 0),
            0u);

  // Headers, in order; the subject as UTF-8 encoded words.
  ASSERT_GE(m->header_lines.size(), 8u);
  EXPECT_TRUE(std::regex_match(m->header_lines[0],
                               std::regex(R"(Date: (Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d )"
                                          R"((Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) )"
                                          R"(\d{4} \d\d:\d\d:\d\d \+0000)")))
      << m->header_lines[0];
  EXPECT_EQ(m->header_lines[1], "From: commerce-admin <noreply@localhost>");
  EXPECT_EQ(m->header_lines[2], "To: " + to);
  std::string subject = "Invitation to join " + tenant_name;
  std::string encoded = mail_header_text(subject, 9);
  ASSERT_EQ(encoded.rfind("=?UTF-8?B?", 0), 0u);
  for (size_t fold; (fold = encoded.find("\r\n")) != std::string::npos;) encoded.erase(fold, 2);
  EXPECT_EQ(m->header_lines[3], "Subject: " + encoded);
  EXPECT_TRUE(std::regex_match(m->header_lines[4],
                               std::regex("Message-ID: <\\d{16}\\." + std::to_string(t) + "\\." +
                                          std::to_string(mail_id) + "@localhost>")))
      << m->header_lines[4];
  EXPECT_EQ(m->header_lines[5], "MIME-Version: 1.0");
  std::string boundary =
      "=_" + m->headers["message-id"].substr(1, m->headers["message-id"].size() - 2);
  boundary[boundary.rfind('@')] = '.';
  EXPECT_EQ(m->header_lines[6],
            "Content-Type: multipart/alternative; boundary=\"" + boundary + "\"");
  EXPECT_EQ(m->header_lines[7], "Auto-Submitted: auto-generated");
  // No header line longer than 78 characters in the raw message.
  std::string head = m->raw.substr(0, m->raw.find("\r\n\r\n"));
  for (size_t at = 0, end; at < head.size(); at = end + 2) {
    end = head.find("\r\n", at);
    if (end == std::string::npos) end = head.size();
    EXPECT_LE(end - at, 78u) << head.substr(at, end - at);
  }
  // The parts: text then HTML, quoted-printable UTF-8.
  EXPECT_EQ(m->text_part_raw.rfind("Content-Type: text/plain; charset=utf-8\r\n"
                                   "Content-Transfer-Encoding: quoted-printable\r\n\r\n",
                                   0),
            0u)
      << m->text_part_raw;
  std::string link = "http://127.0.0.1:" + base_url().substr(base_url().rfind(':') + 1) +
                     "/accept-invitation#token=" + token;
  EXPECT_EQ(m->text,
            "Hello,\n\nAdmin invited you to join " + tenant_name +
                " as ADMIN.\n\nTo accept, open this link:\n" + link +
                "\n\nOr paste this token where the application asks for it:\nToken: " + token +
                "\n\nThe invitation expires at " +
                m->text.substr(m->text.find("expires at ") + 11, 20) +
                ". If you did not expect it, ignore this mail: nothing happens unless it is "
                "accepted.\n");
  EXPECT_NE(m->html.find("<a href=\"" + link + "\">Accept the invitation</a>"), std::string::npos)
      << m->html;
  EXPECT_NE(m->html.find("<code>" + token + "</code>"), std::string::npos);
  // Sent: the token has left the outbox row.
  EXPECT_TRUE(
      eventually([&] { return mail_status(t, mail_id) == "sent"; }, std::chrono::seconds(10)));
  EXPECT_EQ(sql("SELECT data ? 'token' FROM mails WHERE tenant_id = " + std::to_string(t) +
                " AND id = " + std::to_string(mail_id)),
            (std::vector<std::string>{"f"}));
}

// --- password reset ------------------------------------------------------------

TEST(PasswordReset, ForgotAnswersTheSameForAnyEmail) {
  TestUser u = add_user(admin_token(), create_tenant(admin_token(), unique("Forgot")));
  std::string nobody = unique("nobody") + "@test.local";
  HttpResponse known = forgot(u.email);
  HttpResponse unknown = forgot(nobody);
  EXPECT_EQ(known.status, 202);
  EXPECT_EQ(unknown.status, 202);
  EXPECT_EQ(known.body, kForgotAnswer);
  EXPECT_EQ(unknown.body, kForgotAnswer);
  EXPECT_EQ(known.headers["content-type"], unknown.headers["content-type"]);
  // The same rows for both; the worker sends the account's and skips the other.
  EXPECT_EQ(sql("SELECT count(*) FROM password_resets WHERE lower(email) IN (lower('" + u.email +
                "'), lower('" + nobody + "')) GROUP BY lower(email) ORDER BY 1"),
            (std::vector<std::string>{"1", "1"}));
  std::optional<CapturedMail> m = wait_for_mail(
      u.email, [](const CapturedMail& c) { return subject_is(c, "Reset your password"); });
  ASSERT_TRUE(m);
  EXPECT_EQ(mail_token(*m).rfind("pwr_", 0), 0u);
  EXPECT_TRUE(eventually(
      [&] {
        return sql("SELECT status FROM mails WHERE tenant_id = 0 AND recipient = '" + nobody +
                   "'") == std::vector<std::string>{"skipped"};
      },
      std::chrono::seconds(10)));
  EXPECT_TRUE(captured_mails(nobody).empty());
  // Only hashes are stored.
  EXPECT_EQ(sql("SELECT count(*) FROM password_resets WHERE position('" + mail_token(*m) +
                "' IN password_resets::text) > 0"),
            (std::vector<std::string>{"0"}));
}

TEST(PasswordReset, AResetChangesThePasswordRevokesEverySessionAndTellsTheOwner) {
  TestUser u = add_user(admin_token(), create_tenant(admin_token(), unique("Reset")));
  std::string second = login(u.email, u.password);
  ASSERT_EQ(forgot(u.email).status, 202);
  std::optional<CapturedMail> m = wait_for_mail(
      u.email, [](const CapturedMail& c) { return subject_is(c, "Reset your password"); });
  ASSERT_TRUE(m);
  std::string token = mail_token(*m);
  EXPECT_NE(m->text.find("/reset-password#token=" + token + "\n"), std::string::npos) << m->text;

  HttpResponse r = reset(token, "a-brand-new-password");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, R"({"message":"Password changed; every session was signed out"})");
  // Both sessions, at once.
  EXPECT_TRUE(is_unauthenticated(http("GET", "/api/v2/admin/tenants", {.token = u.token})));
  EXPECT_TRUE(is_unauthenticated(http("GET", "/api/v2/admin/tenants", {.token = second})));
  EXPECT_EQ(login_response(u.email, u.password).status, 401);
  EXPECT_EQ(login_response(u.email, "a-brand-new-password").status, 200);
  // Single use; and every other token that cannot reset: the same 400.
  HttpResponse again = reset(token, "yet-another-password");
  EXPECT_EQ(again.status, 400);
  EXPECT_EQ(again.body, kInvalidReset);
  for (const std::string& bad : {std::string("pwr_") + std::string(43, 'Q'), std::string("garbage"),
                                 token.substr(0, token.size() - 1) + "A"}) {
    HttpResponse b = reset(bad, "yet-another-password");
    EXPECT_EQ(b.status, 400) << bad;
    EXPECT_EQ(b.body, kInvalidReset);
  }
  std::optional<CapturedMail> changed = wait_for_mail(
      u.email, [](const CapturedMail& c) { return subject_is(c, "Your password was changed"); });
  ASSERT_TRUE(changed);
  EXPECT_EQ(mail_token(*changed), "");
}

TEST(PasswordReset, AnExpiredTokenIsTheSameError) {
  TestUser u = add_user(admin_token(), create_tenant(admin_token(), unique("Expired")));
  ASSERT_EQ(forgot(u.email).status, 202);
  std::optional<CapturedMail> m = wait_for_mail(
      u.email, [](const CapturedMail& c) { return subject_is(c, "Reset your password"); });
  ASSERT_TRUE(m);
  sql("UPDATE password_resets SET expires_at = now() - interval '1 second' "
      "WHERE lower(email) = lower('" +
      u.email + "')");
  HttpResponse r = reset(mail_token(*m), "a-brand-new-password");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, kInvalidReset);
  EXPECT_EQ(login_response(u.email, u.password).status, 200);
}

TEST(PasswordReset, FieldsAreValidated) {
  HttpResponse r = http("POST", "/api/v2/admin/password/reset", {.body = R"({"token":"x"})"});
  EXPECT_EQ(r.status, 422) << r.body;
  HttpResponse s =
      http("POST", "/api/v2/admin/password/reset", {.body = R"({"token":"x","password":"short"})"});
  EXPECT_EQ(s.status, 422) << s.body;
  HttpResponse f = http("POST", "/api/v2/admin/password/forgot", {.body = R"({"email":"no"})"});
  EXPECT_EQ(f.status, 422) << f.body;
}

// Per email: past PASSWORD_FORGOT_MAX_PER_EMAIL (3) in the window, the same
// 202 and nothing written; no mailbox gets more than that from forgot.
TEST(PasswordReset, ForgotIsLimitedPerEmail) {
  std::string email = unique("flood") + "@test.local";
  for (int i = 0; i < 6; ++i) {
    HttpResponse r = forgot(i % 2 ? email : "  " + email + " ");
    EXPECT_EQ(r.status, 202);
    EXPECT_EQ(r.body, kForgotAnswer);
  }
  EXPECT_EQ(sql("SELECT count(*) FROM password_resets WHERE lower(email) = lower('" + email + "')"),
            (std::vector<std::string>{"3"}));
  EXPECT_EQ(sql("SELECT count(*) FROM mails WHERE tenant_id = 0 AND recipient = '" + email + "'"),
            (std::vector<std::string>{"3"}));
}

// --- sending -----------------------------------------------------------------

// A server that answers every connection with a refusal and closes.
class RefusingSmtp {
 public:
  RefusingSmtp() {
    fd_ = bind_loopback(&port_);
    listen(fd_, 16);
    thread_ = std::thread([this] {
      while (!stop_) {
        int c = accept(fd_, nullptr, nullptr);
        if (c < 0) continue;
        ++connections_;
        const char kRefusal[] = "554 5.3.2 No service here\r\n";
        (void)!write(c, kRefusal, sizeof kRefusal - 1);
        close(c);
      }
    });
  }
  ~RefusingSmtp() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }
  int connections() const { return connections_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread thread_;
};

// A relay that refuses, then one that is down: the mail stays pending with
// the error, its attempts counted and retried after the backoff; once a
// working relay is back it goes out, once.
TEST(MailSending, ARefusingOrDownServerKeepsTheMailPendingAndRetried) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Relay down"));
  std::string to = unique("patient") + "@test.local";
  StackWorkerPause pause;
  HttpResponse r = invite(admin, t, to);
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t mail = invitation_mail_id(t, json_get_int(r["invitation"], "id").value_or(0));
  ASSERT_GT(mail, 0);
  const std::string row =
      "FROM mails WHERE tenant_id = " + std::to_string(t) + " AND id = " + std::to_string(mail);
  {
    RefusingSmtp refusing;
    WorkerProcess worker({{"MAIL_URL", "smtp://127.0.0.1:" + std::to_string(refusing.port())},
                          {"MAIL_RETRY_BASE_SECONDS", "1"}});
    EXPECT_TRUE(eventually([&] { return sql("SELECT attempts >= 2 " + row)[0] == "t"; },
                           std::chrono::seconds(20)));
    worker.stop();
    EXPECT_GE(refusing.connections(), 2);
  }
  EXPECT_EQ(sql("SELECT status " + row), (std::vector<std::string>{"pending"}));
  EXPECT_EQ(sql("SELECT error LIKE '%554%' OR error LIKE '%refus%' OR error <> '' " + row),
            (std::vector<std::string>{"t"}));
  EXPECT_EQ(sql("SELECT next_attempt_at > last_attempt_at " + row),
            (std::vector<std::string>{"t"}));
  {
    int down = free_port();
    WorkerProcess worker({{"MAIL_URL", "smtp://127.0.0.1:" + std::to_string(down)},
                          {"MAIL_RETRY_BASE_SECONDS", "1"}});
    std::string before = sql("SELECT attempts " + row)[0];
    EXPECT_TRUE(eventually([&] { return sql("SELECT attempts " + row)[0] != before; },
                           std::chrono::seconds(20)));
    worker.stop();
  }
  EXPECT_EQ(sql("SELECT status " + row), (std::vector<std::string>{"pending"}));
  EXPECT_TRUE(captured_mails(to).empty());
  // The sink again: sent once.
  sql("UPDATE mails SET next_attempt_at = now() WHERE tenant_id = " + std::to_string(t) +
      " AND id = " + std::to_string(mail));
  pause.resume();
  ASSERT_TRUE(wait_for_mail(to, [](const CapturedMail&) { return true; }));
  EXPECT_TRUE(eventually([&] { return sql("SELECT status " + row)[0] == "sent"; },
                         std::chrono::seconds(10)));
  // A whole pass begun after it was sent sends it no more.
  ASSERT_TRUE(run_worker_once());
  EXPECT_EQ(captured_mails(to).size(), 1u);
}

// Two workers at the same outbox: every row is sent exactly once.
TEST(MailSending, EachMailIsSentOnceWithTwoWorkers) {
  std::string admin = admin_token();
  const int kTenants = 4, kPerTenant = 5;
  std::vector<std::string> recipients;
  StackWorkerPause pause;
  for (int i = 0; i < kTenants; ++i) {
    int64_t t = create_tenant(admin, unique("Two workers"));
    for (int j = 0; j < kPerTenant; ++j) {
      recipients.push_back(unique("twice") + "@test.local");
      ASSERT_EQ(invite(admin, t, recipients.back()).status, 201);
    }
  }
  {
    WorkerProcess a, b;
    for (const std::string& to : recipients) {
      EXPECT_TRUE(wait_for_mail(to, [](const CapturedMail&) { return true; })) << to;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    EXPECT_GT(a.processed("mails") + b.processed("mails"), 0);
  }
  for (const std::string& to : recipients) EXPECT_EQ(captured_mails(to).size(), 1u) << to;
}

// Fair between tenants: a tenant with a backlog does not hold up another's
// mail; each tenant with due mails gets a turn (at most 2 of a tenant's per
// turn) before any tenant's next ones.
TEST(MailSending, ATenantsBacklogDoesNotHoldUpAnothersMail) {
  std::string admin = admin_token();
  int64_t busy = create_tenant(admin, unique("Backlog"));
  int64_t quiet = create_tenant(admin, unique("Quiet"));
  StackWorkerPause pause;
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(invite(admin, busy, unique("bulk") + "@test.local").status, 201);
  }
  std::string to = unique("waiting") + "@test.local";
  ASSERT_EQ(invite(admin, quiet, to).status, 201);
  {
    WorkerProcess worker;
    ASSERT_TRUE(wait_for_mail(to, [](const CapturedMail&) { return true; }));
    EXPECT_TRUE(eventually(
        [&] {
          return sql("SELECT count(*) FROM mails WHERE tenant_id = " + std::to_string(busy) +
                     " AND status = 'pending'")[0] == "0";
        },
        std::chrono::seconds(30)));
  }
  // Sent before it: at most one turn of the busy tenant's.
  std::vector<std::string> sent_at =
      sql("SELECT sent_at FROM mails WHERE tenant_id = " + std::to_string(quiet) +
          " AND status = 'sent'");
  ASSERT_EQ(sent_at.size(), 1u);
  std::vector<std::string> before =
      sql("SELECT count(*) FROM mails WHERE tenant_id = " + std::to_string(busy) +
          " AND sent_at < '" + sent_at[0] + "'::timestamptz");
  ASSERT_EQ(before.size(), 1u);
  EXPECT_LE(std::stoi(before[0]), 2);
}

// No mailbox is flooded: beyond MAIL_MAX_PER_ADDRESS_PER_HOUR (10) mails to
// one address in an hour, whatever tenant sends them, the rest are skipped.
TEST(MailSending, MailsToOneAddressAreBoundedPerHour) {
  std::string admin = admin_token();
  std::string to = unique("popular") + "@test.local";
  for (int i = 0; i < 12; ++i) {
    int64_t t = create_tenant(admin, unique("Flood"));
    ASSERT_EQ(invite(admin, t, to).status, 201);
  }
  EXPECT_TRUE(eventually(
      [&] {
        return sql("SELECT count(*) FROM mails WHERE recipient = '" + to +
                   "' AND status <> 'pending'")[0] == "12";
      },
      std::chrono::seconds(30)));
  EXPECT_EQ(sql("SELECT status, count(*) FROM mails WHERE recipient = '" + to +
                "' GROUP BY status ORDER BY status"),
            (std::vector<std::string>{"sent", "skipped"}));
  EXPECT_EQ(captured_mails(to).size(), 10u);
}

// --- retention -----------------------------------------------------------------

// Sent (or failed, skipped) mails go RETENTION_DAYS (30) after they were
// written, pending ones stay; expired reset tokens go with expired sessions.
TEST(MailRetention, FinishedMailsAndExpiredResetTokensArePurged) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Retention"));
  std::string sent_to = unique("old") + "@test.local", pending_to = unique("stuck") + "@test.local";
  HttpResponse a = invite(admin, t, sent_to);
  ASSERT_EQ(a.status, 201) << a.body;
  int64_t sent = invitation_mail_id(t, json_get_int(a["invitation"], "id").value_or(0));
  ASSERT_TRUE(wait_for_mail(sent_to, [](const CapturedMail&) { return true; }));
  ASSERT_TRUE(eventually([&] { return mail_status(t, sent) == "sent"; }, std::chrono::seconds(10)));
  std::string email = unique("expiring") + "@test.local";
  ASSERT_EQ(forgot(email).status, 202);
  {
    StackWorkerPause pause;
    HttpResponse b = invite(admin, t, pending_to);
    ASSERT_EQ(b.status, 201) << b.body;
    int64_t pending = invitation_mail_id(t, json_get_int(b["invitation"], "id").value_or(0));
    sql("UPDATE mails SET created_at = now() - interval '31 days' WHERE tenant_id = " +
        std::to_string(t) + " AND id IN (" + std::to_string(sent) + ", " + std::to_string(pending) +
        ")");
    sql("UPDATE mails SET next_attempt_at = now() + interval '1 hour' WHERE tenant_id = " +
        std::to_string(t) + " AND id = " + std::to_string(pending));
    sql("UPDATE password_resets SET expires_at = now() - interval '1 second' "
        "WHERE lower(email) = lower('" +
        email + "')");
    pause.resume();
    EXPECT_TRUE(eventually([&] { return mail_status(t, sent).empty(); }, std::chrono::seconds(15)));
    EXPECT_TRUE(eventually(
        [&] {
          return sql("SELECT count(*) FROM password_resets WHERE lower(email) = lower('" + email +
                     "')")[0] == "0";
        },
        std::chrono::seconds(15)));
    EXPECT_EQ(mail_status(t, pending), "pending");
  }
}

// --- settings ----------------------------------------------------------------

// A bad mail setting stops every process at start with one line naming it
// (exit 2); MAIL_URL's value is never repeated (it may hold a password).
TEST(MailStartup, ABadMailSettingIsOneLineAndExit2) {
  const std::string form =
      "MAIL_URL must be smtp://host[:port] (STARTTLS) or smtps://host[:port] (TLS), credentials "
      "as user:password@ or in MAIL_CREDENTIALS_FILE";
  const std::string public_form =
      "PUBLIC_URL must be the admin front-end's http:// or https:// base URL (links in mails "
      "point there) when MAIL_URL is set, without query or fragment, got ";
  struct Case {
    std::map<std::string, std::string> env;
    std::string line;
  };
  const std::vector<Case> cases = {
      {{{"MAIL_URL", "http://user:s3cret@relay.example"}}, form + "; got the scheme 'http'"},
      {{{"MAIL_URL", "smtp://user:s3cret@relay.example:587/?x=1"}},
       form + "; a query or fragment is not allowed"},
      {{{"MAIL_URL", "smtp://"}}, form + "; the value set is not a URL"},
      {{{"MAIL_FROM", "not an address"}},
       "MAIL_FROM must be an address or 'Name <address>' when MAIL_URL is set, got 'not an "
       "address'"},
      {{{"PUBLIC_URL", "ftp://admin.example"}}, public_form + "'ftp://admin.example'"},
      {{{"PUBLIC_URL", kUnset}}, public_form + "''"},
      {{{"MAIL_CREDENTIALS_FILE", "/nonexistent/mail"}},
       "MAIL_CREDENTIALS_FILE '/nonexistent/mail' is not a readable regular file (one line: "
       "user:password)"},
  };
  for (const Case& c : cases) {
    for (const std::string program : {"commerce-admin-worker", "commerce-admin-auth"}) {
      Outcome e = run_with_stack_env(program, c.env);
      EXPECT_EQ(e.status, 2) << program << " " << c.line;
      EXPECT_EQ(e.err, program + ": " + c.line + "\n");
      EXPECT_EQ(e.err.find("s3cret"), std::string::npos);
    }
  }
}

// --- nginx -------------------------------------------------------------------

// forgot and reset share a budget per client address at the login rate (a
// zone of their own). From an address of its own, so other tests keep theirs.
TEST(ZzPasswordRateLimit, ForgotAndResetStormFromOneAddressGets429) {
  const std::string storm_ip = "127.0.0.4";
  expect_storm_limited(
      [&](int i) {
        return http("POST",
                    i % 2 ? "/api/v2/admin/password/forgot" : "/api/v2/admin/password/reset",
                    {.body = "{}", .source_ip = storm_ip});
      },
      422);  // no fields
  // Logins from that address have their own budget.
  EXPECT_EQ(http("POST", "/api/v2/admin/login",
                 {.body = R"({"email":)" + json_text(admin_email()) + R"(,"password":)" +
                          json_text(admin_password()) + "}",
                  .source_ip = storm_ip})
                .status,
            200);
}

}  // namespace
}  // namespace ca::test
