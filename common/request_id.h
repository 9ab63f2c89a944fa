// The request id a handler logs and puts in 500 bodies (REQUEST_ID): nginx
// chooses it (nginx/commerce-admin.conf.in, map $http_x_request_id), and the
// handler checks it again by the same rule, so that a local process speaking
// FastCGI to the socket directly cannot forge or break a log line with it.
//
// Thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace ca {

// nginx's rule: 1 to 64 characters of [A-Za-z0-9._-].
bool request_id_is_clean(std::string_view id);

// `id` when it is clean, else a fresh one: 32 random hex digits, as
// nginx's $request_id (libsodium's randombytes).
std::string clean_request_id(std::string_view id);

}  // namespace ca
