// The browsable API reference: nginx serves the page, the OpenAPI document it
// renders and Redoc's bundle, all from the build (nothing from the internet),
// without a token, each with its media type, the security headers and a
// Content-Security-Policy that allows this origin only, gzipped for clients
// that accept it (issue 42). docs_browser_test.cc opens it in Chromium.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "stack.h"

namespace ca::test {
namespace {

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string source_file(const std::string& path) {
  return file_bytes(std::string(CA_SOURCE_DIR) + "/" + path);
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
  // Its footer logo came from Redocly's CDN on every page load
  // (scripts/fetch-redoc cuts it out).
  EXPECT_EQ(js.body.find("cdn.redoc.ly"), std::string::npos);
}

const char* const kDocs[] = {"/api/v2/admin/docs", "/api/v2/admin/docs/openapi.yaml",
                             "/api/v2/admin/docs/redoc.standalone.js"};

// This origin only, plus what Redoc needs (found in Chromium): inline styles,
// data: images, a blob: worker. docs/decisions/0012-api-reference-csp.md.
const char* const kCsp =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'";

// The docs locations have add_headers of their own, so they repeat the
// server's: each of those is checked here too.
TEST(ApiReference, ThePageAndItsAssetsSendTheContentSecurityPolicyAndTheServersHeaders) {
  for (const char* path : kDocs) {
    HttpResponse r = http("GET", path, {.headers = {"X-Request-Id: " + unique("csp")}});
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.headers["content-security-policy"], kCsp) << path;
    EXPECT_EQ(r.headers["cache-control"], "no-store") << path;
    EXPECT_EQ(r.headers["x-content-type-options"], "nosniff") << path;
    EXPECT_EQ(r.headers["x-request-id"].rfind("csp-", 0), 0u) << path;
  }
  // A 404 under the docs too (its own JSON body, as everywhere).
  HttpResponse missing = http("GET", "/api/v2/admin/docs/x.js");
  expect_body(missing, 404, R"({"error":"Not found"})");
  EXPECT_EQ(missing.headers["content-security-policy"], kCsp);
  EXPECT_EQ(missing.headers["x-content-type-options"], "nosniff");
}

// `body` through gzip -d ("" when it is not gzip).
std::string gunzip(const std::string& body) {
  std::string path = state_dir() + "/gunzip-" + std::to_string(getpid());
  std::ofstream(path + ".gz", std::ios::binary) << body;
  std::string command =
      "gzip -dc " + shell_quote(path + ".gz") + " >" + shell_quote(path) + " 2>/dev/null";
  std::string out = std::system(command.c_str()) == 0 ? file_bytes(path) : "";
  std::remove((path + ".gz").c_str());
  std::remove(path.c_str());
  return out;
}

// The build gzips each file (gzip_static): a client that accepts gzip gets
// those bytes, the others the file as it is; Vary tells caches apart.
TEST(ApiReference, TheFilesAreSentGzippedToClientsThatAcceptIt) {
  for (const char* path : kDocs) {
    HttpResponse plain = http("GET", path);
    ASSERT_EQ(plain.status, 200) << path;
    EXPECT_EQ(plain.headers.count("content-encoding"), 0u) << path;
    EXPECT_EQ(plain.headers["vary"], "Accept-Encoding") << path;
    HttpResponse gzipped = http("GET", path, {.headers = {"Accept-Encoding: gzip"}});
    ASSERT_EQ(gzipped.status, 200) << path;
    EXPECT_EQ(gzipped.headers["content-encoding"], "gzip") << path;
    EXPECT_EQ(gzipped.headers["vary"], "Accept-Encoding") << path;
    EXPECT_EQ(gzipped.headers["content-type"], plain.headers["content-type"]) << path;
    EXPECT_EQ(gzipped.headers["content-security-policy"], kCsp) << path;
    EXPECT_TRUE(gunzip(gzipped.body) == plain.body) << path;
    // Measured: the bundle 1,103,360 -> 326,594 bytes, the document 228 KB -> 37 KB.
    if (plain.body.size() > 100000) {
      EXPECT_LT(gzipped.body.size(), plain.body.size() / 3) << path;
    }
  }
}

// Every browser asks for /favicon.ico: it has none, and says so with 204
// rather than a JSON 404 (docs/decisions/0014-favicon.md).
TEST(ApiReference, TheFaviconIsNoContent) {
  HttpResponse r = http("GET", "/favicon.ico");
  EXPECT_EQ(r.status, 204);
  EXPECT_EQ(r.body, "");
  EXPECT_EQ(r.headers["x-content-type-options"], "nosniff");
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
