// commerce-admin-auth: login, logout, password reset, the health/ping
// probes and /metrics.
#include "login.h"
#include "metrics.h"
#include "password_reset.h"
#include "serve.h"

int main(int argc, char** argv) {
  return ca::serve_main(argc, argv, "commerce-admin-auth",
                        {
                            {"POST", "/api/v2/admin/login", ca::login_handler},
                            {"POST", "/api/v2/admin/logout", ca::logout_handler},
                            {"POST", "/api/v2/admin/password/forgot", ca::password_forgot_handler},
                            {"POST", "/api/v2/admin/password/reset", ca::password_reset_handler},
                            {"GET", "/healthz", ca::health_handler},
                            {"HEAD", "/healthz", ca::health_handler},
                            {"GET", "/api/v2/admin/ping", ca::ping_handler},
                            // Only to the addresses in METRICS_ALLOW: nginx refuses the
                            // others, and so does the handler (403) for whoever bypasses nginx.
                            {"GET", "/metrics", ca::metrics_handler},
                        });
}
