// The browsable API reference: nginx serves the page, the OpenAPI document it
// renders and Redoc's bundle, all from the build (nothing from the internet),
// without a token, each with its media type and the security headers.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "stack.h"

namespace ca::test {
namespace {

std::string source_file(const std::string& path) {
  std::ifstream in(std::string(CA_SOURCE_DIR) + "/" + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ApiReference, ThePageLoadsRedocAndTheDocumentFromThisServer) {
  HttpResponse page = http("GET", "/api/v2/admin/docs");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.headers["content-type"], "text/html; charset=utf-8");
  EXPECT_EQ(page.body, source_file("docs/api-reference.html"));
  EXPECT_NE(page.body.find(R"(<redoc spec-url="/api/v2/admin/docs/openapi.yaml")"),
            std::string::npos);
  EXPECT_NE(page.body.find(R"(<script src="/api/v2/admin/docs/redoc.standalone.js">)"),
            std::string::npos);
  EXPECT_EQ(page.headers["x-content-type-options"], "nosniff");
}

TEST(ApiReference, TheDocumentIsTheRepositorysOpenApiFile) {
  HttpResponse doc = http("GET", "/api/v2/admin/docs/openapi.yaml");
  ASSERT_EQ(doc.status, 200);
  EXPECT_EQ(doc.headers["content-type"], "application/yaml; charset=utf-8");
  std::string expected = source_file("docs/openapi.yaml");
  ASSERT_FALSE(expected.empty());
  EXPECT_TRUE(doc.body == expected)
      << "served " << doc.body.size() << " bytes, the file has " << expected.size();
}

TEST(ApiReference, RedocsBundleIsServedFromTheBuild) {
  HttpResponse js = http("GET", "/api/v2/admin/docs/redoc.standalone.js");
  ASSERT_EQ(js.status, 200);
  EXPECT_EQ(js.headers["content-type"], "text/javascript; charset=utf-8");
  EXPECT_GT(js.body.size(), 500000u);
  EXPECT_NE(js.body.find("Redoc"), std::string::npos);
}

TEST(ApiReference, AnythingElseUnderDocsIsTheJson404) {
  for (const char* path : {"/api/v2/admin/docs/", "/api/v2/admin/docs/index.html",
                           "/api/v2/admin/docsx", "/api/v2/admin/docs/x.js"}) {
    HttpResponse r = http("GET", path);
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(r.body, R"({"error":"Not found"})") << path;
  }
}

}  // namespace
}  // namespace ca::test
