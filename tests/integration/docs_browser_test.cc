// The API reference opened in a real browser (headless Chromium, Debian's
// `chromium`, which scripts/test installs): it renders the API, breaks no
// rule of its Content-Security-Policy, and makes no request to any host but
// the stack's own (issue 42: Redoc's footer logo came from cdn.redoc.ly on
// every load). Every request is read from Chromium's net log; console
// messages (CSP violations, script errors) from its log on stderr. Hosts
// other than 127.0.0.1 do not resolve inside this browser, so nothing it
// tries leaves the machine. Chromium missing is a failure, not a skip.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "chromium.h"
#include "json.h"
#include "stack.h"

namespace ca::test {
namespace {

// The URLs of the requests the page made: its navigation and every request
// it initiated (scripts, fetches, images, workers, the icon). The browser's
// own traffic (update checks, sign-in probes) has no initiator and is not
// the page's.
std::vector<std::string> page_requests(const std::string& net_log, const std::string& origin) {
  std::vector<std::string> urls;
  Json log = json_parse(net_log);
  EXPECT_TRUE(log) << "the net log is not JSON (" << net_log.size() << " bytes)";
  if (!log) return urls;
  const cJSON* types = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(log.get(), "constants"), "logEventTypes");
  std::optional<int64_t> start_job = json_get_int(types, "URL_REQUEST_START_JOB");
  EXPECT_TRUE(start_job) << "no URL_REQUEST_START_JOB in the net log's constants";
  const cJSON* event = nullptr;
  cJSON_ArrayForEach(event, cJSON_GetObjectItemCaseSensitive(log.get(), "events")) {
    if (json_get_int(event, "type") != start_job) continue;
    const cJSON* params = cJSON_GetObjectItemCaseSensitive(event, "params");
    std::string url(json_get_str(params, "url").value_or(""));
    if (url.empty()) continue;
    if (json_get_str(params, "request_type").value_or("") == "main frame" ||
        json_get_str(params, "initiator").value_or("") == origin) {
      urls.push_back(url);
    }
  }
  return urls;
}

TEST(ApiReferenceInABrowser, ItRendersTheApiFromThisOriginOnlyWithinItsPolicy) {
  ASSERT_EQ(std::system("command -v chromium >/dev/null"), 0)
      << "chromium is not installed (scripts/test installs Debian's chromium package)";
  const std::string origin = base_url();
  const std::string dir = state_dir() + "/chromium-" + std::to_string(getpid());
  PageLoad load = load_in_chromium(
      origin + "/api/v2/admin/docs", dir,
      "--log-net-log=" + shell_quote(dir + "/net.json") + " --net-log-capture-mode=Default");
  ASSERT_EQ(load.status, 0) << load.log;

  // Rendered: the page's own title, and Redoc's heading with the
  // document's title and a few of its operations.
  EXPECT_NE(load.dom.find("<title>commerce-admin API reference</title>"), std::string::npos);
  EXPECT_NE(load.dom.find(">commerce-admin API "), std::string::npos)
      << "Redoc did not render the document's title; DOM of " << load.dom.size() << " bytes";
  for (const char* path : {"/api/v2/admin/login", "/api/v2/admin/products/{id}",
                           "/api/v2/admin/webhooks/{tenantId}/deliveries"}) {
    EXPECT_NE(load.dom.find(path), std::string::npos) << path;
  }

  // Nothing refused by the policy, no script error.
  EXPECT_EQ(text_lines_with(load.log, "Content Security Policy"), std::vector<std::string>{});
  EXPECT_EQ(text_lines_with(load.log, "Uncaught"), std::vector<std::string>{});

  // Every request of the page went to this origin, and the three files came from it.
  std::vector<std::string> urls = page_requests(file_text(dir + "/net.json"), origin);
  for (const std::string& url : urls) {
    EXPECT_EQ(url.rfind(origin + "/", 0), 0u) << "a request to another origin: " << url;
  }
  std::set<std::string> asked(urls.begin(), urls.end());
  for (const char* path : {"/api/v2/admin/docs", "/api/v2/admin/docs/redoc.standalone.js",
                           "/api/v2/admin/docs/openapi.yaml"}) {
    EXPECT_EQ(asked.count(origin + path), 1u) << path;
  }
}

}  // namespace
}  // namespace ca::test
