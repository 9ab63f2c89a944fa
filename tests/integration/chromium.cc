#include "chromium.h"

#include "stack.h"

namespace ca::test {
PageLoad load_in_chromium(const std::string& url, const std::string& dir,
                          const std::string& extra_flags) {
  std::string command =
      "rm -rf " + shell_quote(dir) + " && mkdir -p " + shell_quote(dir) +
      " && timeout -s KILL 60 chromium --headless=new --no-sandbox --disable-gpu"
      " --user-data-dir=" +
      shell_quote(dir + "/profile") +
      " --no-first-run --disable-background-networking --disable-component-update"
      " --disable-sync --disable-extensions --disable-default-apps"
      " --disable-features=AutofillServerCommunication,OptimizationHints,Translate"
      " --host-resolver-rules='MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'"
      " --enable-logging=stderr --v=0 " +
      extra_flags + " --virtual-time-budget=10000 --dump-dom " + shell_quote(url) + " >" +
      shell_quote(dir + "/dom.html") + " 2>" + shell_quote(dir + "/chromium.log");
  PageLoad load;
  load.status = shell_status(command);
  load.dom = file_text(dir + "/dom.html");
  load.log = file_text(dir + "/chromium.log");
  return load;
}

}  // namespace ca::test
