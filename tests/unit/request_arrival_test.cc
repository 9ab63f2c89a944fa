// fastcgi_arrival(): whether what is queued on a connection holds a whole
// request, judged from the FastCGI record headers alone.
#include "request_arrival.h"

#include <gtest/gtest.h>

#include <string>

namespace ca {
namespace {

// One record as nginx sends it: type, request id 1, `content`, `padding`.
std::string record(unsigned char type, const std::string& content, unsigned char padding = 0) {
  std::string r = {1, static_cast<char>(type), 0, 1};
  r += static_cast<char>(content.size() >> 8);
  r += static_cast<char>(content.size() & 0xff);
  r += static_cast<char>(padding);
  r += '\0';
  return r + content + std::string(padding, '\0');
}

Arrival arrival_of(const std::string& queued) {
  return fastcgi_arrival(reinterpret_cast<const unsigned char*>(queued.data()), queued.size());
}

constexpr unsigned char kBegin = 1;
constexpr unsigned char kParams = 4;
constexpr unsigned char kStdin = 5;

const std::string kHead = record(kBegin, std::string(8, '\1')) +
                          record(kParams, std::string(300, 'p'), 4) + record(kParams, "");

TEST(RequestArrival, AWholeRequestEndsWithAnEmptyStdinRecord) {
  EXPECT_EQ(arrival_of(kHead + record(kStdin, "")), Arrival::kWhole);
  EXPECT_EQ(arrival_of(kHead + record(kStdin, R"({"a":1})", 1) + record(kStdin, "")),
            Arrival::kWhole);
  // A body of several records, one of the largest size a record carries.
  EXPECT_EQ(arrival_of(kHead + record(kStdin, std::string(65535, 'b')) +
                       record(kStdin, std::string(10, 'b'), 6) + record(kStdin, "")),
            Arrival::kWhole);
}

TEST(RequestArrival, ARequestCutAnywhereIsStillArriving) {
  std::string whole = kHead + record(kStdin, std::string(1000, 'b'), 0) + record(kStdin, "");
  for (size_t cut = 0; cut < whole.size(); ++cut) {
    Arrival expected = cut < kHead.size() ? Arrival::kHead : Arrival::kBody;
    ASSERT_EQ(arrival_of(whole.substr(0, cut)), expected) << cut;
  }
}

TEST(RequestArrival, ABodyByteThatLooksLikeARecordEndIsNotOne) {
  // A body whose bytes spell an empty STDIN record header: only headers count.
  std::string fake = record(kStdin, "");
  EXPECT_EQ(arrival_of(kHead + record(kStdin, fake + fake)), Arrival::kBody);
  // An empty PARAMS record ends the parameters, not the request.
  EXPECT_EQ(arrival_of(kHead), Arrival::kBody);
  EXPECT_EQ(arrival_of(kHead.substr(0, kHead.size() - 1)), Arrival::kHead);
}

}  // namespace
}  // namespace ca
