#include "mail_message.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <string>

#include "../../handlers/worker/mail_content.h"
#include "config.h"

namespace ca {
namespace {

TEST(MailHeaderText, PrintableAsciiStaysAsItIs) {
  EXPECT_EQ(mail_header_text("Invitation to join Acme"), "Invitation to join Acme");
}

TEST(MailHeaderText, NonAsciiIsAnEncodedWord) {
  // base64("Café") = "Q2Fmw6k="
  EXPECT_EQ(mail_header_text("Café"), "=?UTF-8?B?Q2Fmw6k=?=");
}

TEST(MailHeaderText, ControlCharactersCannotAddAHeader) {
  EXPECT_EQ(mail_header_text("Hi\r\nBcc: x@example.com"), "Hi  Bcc: x@example.com");
}

TEST(MailHeaderText, LongTextIsFoldedIntoWordsOfWholeCharacters) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "é";  // 80 bytes
  std::string out = mail_header_text(text, 9);
  // Two words, folded: 45 bytes cut at a character boundary is 44 (22 x é).
  size_t fold = out.find("\r\n ");
  ASSERT_NE(fold, std::string::npos);
  EXPECT_LE(9 + fold, 76u);
  std::string first = out.substr(0, fold), second = out.substr(fold + 3);
  ASSERT_EQ(first.rfind("=?UTF-8?B?", 0), 0u);
  ASSERT_EQ(second.rfind("=?UTF-8?B?", 0), 0u);
  auto decode = [](const std::string& word) {
    std::string b64 = word.substr(10, word.size() - 12);
    std::string bin(b64.size(), '\0');
    size_t len = 0;
    EXPECT_EQ(
        sodium_base642bin(reinterpret_cast<unsigned char*>(bin.data()), bin.size(), b64.data(),
                          b64.size(), nullptr, &len, nullptr, sodium_base64_VARIANT_ORIGINAL),
        0);
    bin.resize(len);
    return bin;
  };
  EXPECT_EQ(decode(first) + decode(second), text);
  EXPECT_EQ(decode(first).size() % 2, 0u);  // whole characters
  EXPECT_LE(second.size() + 1, 76u);
}

TEST(MailboxParse, AddressAloneOrWithName) {
  auto a = mailbox_parse("noreply@shop.example");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->name, "");
  EXPECT_EQ(a->address, "noreply@shop.example");
  auto b = mailbox_parse("Shop Admin <noreply@shop.example>");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->name, "Shop Admin");
  EXPECT_EQ(b->address, "noreply@shop.example");
  auto c = mailbox_parse("\"Shop, Admin\" <noreply@shop.example>");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->name, "Shop, Admin");
}

TEST(MailboxParse, RefusesWhatIsNotAnAddress) {
  EXPECT_FALSE(mailbox_parse(""));
  EXPECT_FALSE(mailbox_parse("no-at-sign"));
  EXPECT_FALSE(mailbox_parse("Name <a@b.example"));
  EXPECT_FALSE(mailbox_parse("a@b.example\r\nBcc: c@d.example"));
  EXPECT_FALSE(mailbox_parse("two words@b.example"));
}

TEST(MailFormatMailbox, QuotesSpecialsAndEncodesNonAscii) {
  EXPECT_EQ(mail_format_mailbox({"", "a@b.example"}), "a@b.example");
  EXPECT_EQ(mail_format_mailbox({"Shop Admin", "a@b.example"}), "Shop Admin <a@b.example>");
  EXPECT_EQ(mail_format_mailbox({"Shop, \"Admin\"", "a@b.example"}),
            "\"Shop, \\\"Admin\\\"\" <a@b.example>");
  EXPECT_EQ(mail_format_mailbox({"Zoë", "a@b.example"}), "=?UTF-8?B?Wm/Dqw==?= <a@b.example>");
}

TEST(QuotedPrintable, AsciiLinesStayReadable) {
  EXPECT_EQ(quoted_printable("Hello,\n\nToken: inv_1_2_abc\n"),
            "Hello,\r\n\r\nToken: inv_1_2_abc\r\n");
}

TEST(QuotedPrintable, EncodesEqualsNonAsciiAndTrailingSpace) {
  EXPECT_EQ(quoted_printable("a=b café \n"), "a=3Db caf=C3=A9=20\r\n");
}

TEST(QuotedPrintable, LongLinesGetSoftBreaksAndDecodeBack) {
  std::string line(200, 'x');
  line += "=é";
  std::string text = line + "\nshort\n";
  std::string qp = quoted_printable(text);
  size_t start = 0;
  while (start < qp.size()) {
    size_t end = qp.find("\r\n", start);
    ASSERT_NE(end, std::string::npos);
    EXPECT_LE(end - start, 76u) << qp.substr(start, end - start);
    start = end + 2;
  }
  EXPECT_EQ(quoted_printable_decode(qp), text);
}

TEST(MailDate, IsRfc5322InUtc) {
  EXPECT_EQ(mail_date(1795816801), "Fri, 27 Nov 2026 22:00:01 +0000");
}

TEST(MailRender, HeadersAndPartsExactly) {
  MailMessage m;
  m.from = {"Shop Admin", "noreply@shop.example"};
  m.to = "ana@corp.example";
  m.subject = "Invitation to join Café";
  m.message_id = "1795816801000000.7.42@shop.example";
  m.date_unix = 1795816801;
  m.text = "Hello,\nToken: inv_7_42_x\n";
  m.html = "<p>Hello</p>\n";
  EXPECT_EQ(mail_render(m),
            "Date: Fri, 27 Nov 2026 22:00:01 +0000\r\n"
            "From: Shop Admin <noreply@shop.example>\r\n"
            "To: ana@corp.example\r\n"
            "Subject: =?UTF-8?B?SW52aXRhdGlvbiB0byBqb2luIENhZsOp?=\r\n"
            "Message-ID: <1795816801000000.7.42@shop.example>\r\n"
            "MIME-Version: 1.0\r\n"
            "Content-Type: multipart/alternative;\r\n"
            " boundary=\"=_1795816801000000.7.42.shop.example\"\r\n"
            "Auto-Submitted: auto-generated\r\n"
            "\r\n"
            "--=_1795816801000000.7.42.shop.example\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Content-Transfer-Encoding: quoted-printable\r\n"
            "\r\n"
            "Hello,\r\n"
            "Token: inv_7_42_x\r\n"
            "--=_1795816801000000.7.42.shop.example\r\n"
            "Content-Type: text/html; charset=utf-8\r\n"
            "Content-Transfer-Encoding: quoted-printable\r\n"
            "\r\n"
            "<p>Hello</p>\r\n"
            "--=_1795816801000000.7.42.shop.example--\r\n");
}

TEST(HtmlEscape, EscapesMarkup) {
  EXPECT_EQ(html_escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

Config mail_config() {
  Config c;
  c.mail_url = "smtp://127.0.0.1:2525";
  c.mail_from_name = "Shop Admin";
  c.mail_from_address = "noreply@shop.example";
  c.public_url = "https://admin.shop.example";
  return c;
}

TEST(MailCompose, InvitationHasTheLinkAndTheTokenOnALineOfItsOwn) {
  OutboxMail mail{7,
                  42,
                  "invitation",
                  "ana@corp.example",
                  R"({"token":"inv_7_42_secret","tenant_name":"Zoë's <shop>","inviter_name":"Bob",)"
                  R"("role":"ADMIN","expires_at":"2026-12-04T22:00:01.000000Z"})",
                  "2026-11-27T22:00:01.123456Z"};
  std::string problem;
  auto m = mail_compose(mail, mail_config(), &problem);
  ASSERT_TRUE(m) << problem;
  EXPECT_EQ(m->subject, "Invitation to join Zoë's <shop>");
  EXPECT_EQ(m->message_id, "1795816801123456.7.42@shop.example");
  EXPECT_EQ(m->date_unix, 1795816801);
  EXPECT_NE(m->text.find("\nToken: inv_7_42_secret\n"), std::string::npos) << m->text;
  EXPECT_NE(m->text.find("\nhttps://admin.shop.example/accept-invitation#token=inv_7_42_secret\n"),
            std::string::npos);
  EXPECT_NE(m->text.find("Bob invited you to join Zoë's <shop> as ADMIN."), std::string::npos);
  EXPECT_NE(m->text.find("2026-12-04 22:00 UTC"), std::string::npos);
  // The tenant's name is text in the HTML part, never markup.
  EXPECT_NE(m->html.find("Zoë&#39;s &lt;shop&gt;"), std::string::npos);
  EXPECT_EQ(m->html.find("<shop>"), std::string::npos);
}

TEST(MailCompose, RefusesRowsItCannotRender) {
  std::string problem;
  OutboxMail no_token{0, 1, "password_reset", "a@b.example", "{}", "2026-11-27T22:00:01.000000Z"};
  EXPECT_FALSE(mail_compose(no_token, mail_config(), &problem));
  EXPECT_EQ(problem, "the mail's token is missing");
  OutboxMail unknown{0, 1, "newsletter", "a@b.example", "{}", "2026-11-27T22:00:01.000000Z"};
  EXPECT_FALSE(mail_compose(unknown, mail_config(), &problem));
  OutboxMail not_json{0, 1, "password_changed", "a@b.example", "[", "2026-11-27T22:00:01.000000Z"};
  EXPECT_FALSE(mail_compose(not_json, mail_config(), &problem));
}

TEST(MailCompose, PasswordChangedCarriesNoToken) {
  std::string problem;
  OutboxMail mail{0, 3, "password_changed", "a@b.example", "{}", "2026-11-27T22:00:01.000000Z"};
  auto m = mail_compose(mail, mail_config(), &problem);
  ASSERT_TRUE(m) << problem;
  EXPECT_EQ(m->subject, "Your password was changed");
  EXPECT_EQ(m->text.find("Token:"), std::string::npos);
  EXPECT_NE(m->text.find("https://admin.shop.example/forgot-password"), std::string::npos);
}

// The ADMINs of a tenant whose subscription the worker disabled: which one,
// why, and where to enable it again; no token.
TEST(MailCompose, WebhookDisabledSaysWhichWhyAndWhereToEnableIt) {
  std::string problem;
  OutboxMail mail{7,
                  4,
                  "webhook_disabled",
                  "a@b.example",
                  R"({"tenant_name":"Zoë's <shop>","webhook_id":12,"description":"ERP sync",)"
                  R"("reason":"Disabled automatically: the last 10 deliveries failed and none )"
                  R"(succeeded for 72 hours"})",
                  "2026-11-27T22:00:01.000000Z"};
  auto m = mail_compose(mail, mail_config(), &problem);
  ASSERT_TRUE(m) << problem;
  EXPECT_EQ(m->subject, "Webhook subscription 12 of Zoë's <shop> disabled");
  EXPECT_NE(m->text.find("The webhook subscription 12 (ERP sync) of Zoë's <shop> was disabled. "
                         "Disabled automatically: the last 10 deliveries failed and none "
                         "succeeded for 72 hours."),
            std::string::npos)
      << m->text;
  EXPECT_NE(m->text.find("\nhttps://admin.shop.example/webhooks\n"), std::string::npos);
  EXPECT_EQ(m->text.find("Token:"), std::string::npos);
  EXPECT_EQ(m->html.find("<shop>"), std::string::npos);
}

}  // namespace
}  // namespace ca
