// Headless Chromium for the tests that need a real browser (the API
// reference page, CORS): one page load in a fresh profile.
#pragma once

#include <string>

namespace ca::test {

struct PageLoad {
  int status = -1;  // chromium's exit status
  std::string dom;  // --dump-dom
  std::string log;  // stderr: console messages among the rest
};

// Loads `url` once with a fresh profile in `dir` (made anew), adding
// `extra_flags` (e.g. a net log into `dir`). Flags: no sandbox (tests run as
// root), none of the browser's own background traffic that can be turned
// off, every host name but 127.0.0.1 unresolvable, and virtual time, so
// that the page's scripts and fetches finish before the DOM is dumped (10 s
// of virtual time, a few real seconds).
PageLoad load_in_chromium(const std::string& url, const std::string& dir,
                          const std::string& extra_flags = "");

}  // namespace ca::test
