#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "cli.h"
#include "http.h"
#include "password.h"
#include "validate.h"

namespace ca {
namespace {

// Creates the user, or with --if-missing leaves an existing one untouched.
const Statement kCreate{"cli_user_create",
                        "INSERT INTO users (name, email, password_hash) VALUES ($1, $2, $3) "
                        "ON CONFLICT (lower(email)) DO NOTHING RETURNING id"};

}  // namespace

int cli_user_create_parse(int argc, char** argv, UserToCreate* out) {
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--email") == 0 && i + 1 < argc) {
      out->email = trim_space(argv[++i]);
    } else if (std::strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
      out->name = trim_space(argv[++i]);
    } else if (std::strcmp(argv[i], "--if-missing") == 0) {
      out->if_missing = true;
    } else {
      std::fprintf(stderr, "commerce-admin: unknown option '%s'\n", argv[i]);
      return 2;
    }
  }
  if (out->email.empty() || out->name.empty()) {
    std::fprintf(stderr, "commerce-admin: user create needs --email EMAIL and --name NAME\n");
    return 2;
  }
  // The rules of POST /team-members/{tenantId} (and the users table's CHECK).
  if (!email_plausible(out->email) || utf8_length(out->email) > 254) {
    std::fprintf(stderr,
                 "commerce-admin: --email is not an address (text on both sides of an @, no "
                 "spaces or control characters, at most 254 characters)\n");
    return 2;
  }
  if (!utf8_valid(out->name) || utf8_length(out->name) > 255) {
    std::fprintf(stderr, "commerce-admin: --name must be UTF-8 text of at most 255 characters\n");
    return 2;
  }
  std::getline(std::cin, out->password);
  size_t length = utf8_valid(out->password) ? utf8_length(out->password) : 0;
  if (length < 8 || length > 1024) {
    std::fprintf(stderr,
                 "commerce-admin: the password (first line of stdin) must be UTF-8 text of 8 to "
                 "1024 characters, as login accepts\n");
    return 2;
  }
  return 0;
}

int cli_user_create(Db& db, const UserToCreate& user) {
  const std::string& email = user.email;
  const bool if_missing = user.if_missing;
  auto hash = password_hash(user.password);
  if (!hash) {
    std::fprintf(stderr, "commerce-admin: password hashing failed (out of memory?)\n");
    return 1;
  }
  DbResult r = db.exec(kCreate, {user.name, email, *hash});
  if (!r.ok()) {
    std::fprintf(stderr, "commerce-admin: %s\n", r.error().message.c_str());
    return 1;
  }
  if (r->empty()) {
    if (if_missing) {
      std::printf("user %s exists already\n", email.c_str());
      return 0;
    }
    std::fprintf(stderr, "commerce-admin: a user with email %s exists already\n", email.c_str());
    return 1;
  }
  std::printf("created user %lld (%s)\n", static_cast<long long>(r->int64(0, "id")), email.c_str());
  return 0;
}

}  // namespace ca
