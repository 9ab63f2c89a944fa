// request_age(): how long ago nginx passed a request on, from $msec.
#include <gtest/gtest.h>

#include <chrono>

#include "http.h"

namespace ca {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const std::chrono::system_clock::time_point kNow{seconds(1800000000) + milliseconds(250)};

TEST(RequestAge, IsNowMinusTheMillisecondsNginxSent) {
  EXPECT_EQ(request_age("1800000000.250", kNow), milliseconds(0));
  EXPECT_EQ(request_age("1799999990.000", kNow), milliseconds(10250));
  EXPECT_EQ(request_age("1799999999", kNow), milliseconds(1250));
}

TEST(RequestAge, AbsentMalformedFutureOrAncientIsUnknown) {
  for (const char* bad : {"", "abc", "1800000000.250x", "-5", "0", "nan", "inf", "1e300",
                          "1800000001.000", "1799990000.000"}) {
    EXPECT_FALSE(request_age(bad, kNow).has_value()) << bad;
  }
  EXPECT_FALSE(request_age(nullptr, kNow).has_value());
}

}  // namespace
}  // namespace ca
